/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof reader: a small hash index over an array the caller owns.  The
 * table stores (hash, array index) pairs; the caller compares keys.
 */
#ifndef KPROF_READER_HTAB_H
#define KPROF_READER_HTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kp_hslot {
	uint64_t hash;
	uint32_t idx;		/* array index + 1, 0: empty */
};

struct kp_htab {
	struct kp_hslot *slots;
	size_t cap;		/* power of two, or 0 */
	size_t n;
};

/* Does the caller's entry @idx have the key @ctx points to? */
typedef bool (*kp_htab_eq)(const void *ctx, uint32_t idx);

/* FNV-1a over @len bytes, continuing from @seed (0 to start). */
uint64_t kp_hash(const void *p, size_t len, uint64_t seed);

/* Index of the entry with @hash for which @eq holds, or -1. */
int64_t kp_htab_find(const struct kp_htab *h, uint64_t hash, kp_htab_eq eq,
		     const void *ctx);

/* Index @idx under @hash (not already present).  0 or -ENOMEM. */
int kp_htab_add(struct kp_htab *h, uint64_t hash, uint32_t idx);

void kp_htab_free(struct kp_htab *h);

#endif
