// SPDX-License-Identifier: GPL-2.0
/* kprof reader: hash index, see htab.h. */
#include <errno.h>
#include <stdlib.h>

#include "htab.h"

uint64_t kp_hash(const void *p, size_t len, uint64_t seed)
{
	const unsigned char *b = p;
	uint64_t h = seed ? seed : 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

int64_t kp_htab_find(const struct kp_htab *h, uint64_t hash, kp_htab_eq eq,
		     const void *ctx)
{
	size_t i;

	if (!h->cap)
		return -1;
	for (i = hash & (h->cap - 1); h->slots[i].idx;
	     i = (i + 1) & (h->cap - 1))
		if (h->slots[i].hash == hash && eq(ctx, h->slots[i].idx - 1))
			return h->slots[i].idx - 1;
	return -1;
}

static void put(struct kp_hslot *slots, size_t cap, uint64_t hash,
		uint32_t idx1)
{
	size_t i;

	for (i = hash & (cap - 1); slots[i].idx; i = (i + 1) & (cap - 1))
		;
	slots[i].hash = hash;
	slots[i].idx = idx1;
}

int kp_htab_add(struct kp_htab *h, uint64_t hash, uint32_t idx)
{
	struct kp_hslot *slots;
	size_t cap, i;

	/* At most half full. */
	if ((h->n + 1) * 2 > h->cap) {
		cap = h->cap ? h->cap * 2 : 64;
		slots = calloc(cap, sizeof(*slots));
		if (!slots)
			return -ENOMEM;
		for (i = 0; i < h->cap; i++)
			if (h->slots[i].idx)
				put(slots, cap, h->slots[i].hash,
				    h->slots[i].idx);
		free(h->slots);
		h->slots = slots;
		h->cap = cap;
	}
	put(h->slots, h->cap, hash, idx + 1);
	h->n++;
	return 0;
}

void kp_htab_free(struct kp_htab *h)
{
	free(h->slots);
	h->slots = NULL;
	h->cap = h->n = 0;
}
