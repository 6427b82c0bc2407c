// SPDX-License-Identifier: GPL-2.0
/* kprof reader: the folded stack format, see folded.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "folded.h"

/* Room for one frame of a line. */
#define NAME_LEN	(KP_SYM_LEN + 16)

char *kp_folded_name(char *buf, size_t len, const char *name)
{
	size_t i;
	unsigned char c;

	if (!name || !*name)
		name = KP_SYM_UNKNOWN;
	for (i = 0; name[i] && i + 1 < len; i++) {
		c = name[i];
		if (c == ';')
			c = ':';
		else if (c == ' ' || (c >= '\t' && c <= '\r'))
			c = '_';
		else if (c < 0x20 || c == 0x7f)
			c = '?';
		buf[i] = c;
	}
	buf[i] = '\0';
	return buf;
}

struct line {
	char *s;
	uint64_t n;
};

struct sbuf {
	char *s;
	size_t len, cap;
	int oom;
};

static void sb_add(struct sbuf *b, const char *s)
{
	size_t n = strlen(s);
	char *p;

	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;

		while (b->len + n + 1 > cap)
			cap *= 2;
		p = realloc(b->s, cap);
		if (!p) {
			b->oom = 1;
			return;
		}
		b->s = p;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n + 1);
	b->len += n;
}

/* "comm;root;...;leaf" of row @c; NULL when out of memory. */
static char *fold(const struct kp_rec *rec, const struct kp_rcpu *c)
{
	const struct kp_rstack *rs = rec->stacks[c->stack];
	struct sbuf b = { 0 };
	char name[NAME_LEN];
	unsigned int i;

	sb_add(&b, kp_folded_name(name, sizeof(name), c->comm));
	for (i = rs->nr; i-- > 0;) {
		const struct kp_rframe *f = &rs->f[i];

		sb_add(&b, ";");
		sb_add(&b, kp_folded_name(name, sizeof(name) - 4, f->func));
		if (f->kind == KP_RF_KERNEL)
			sb_add(&b, "_[k]");
	}
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->s, ((const struct line *)b)->s);
}

int kp_folded_write(FILE *f, const struct kp_rec *rec)
{
	struct line *v;
	size_t i, n = 0, j;
	int ret = 0;

	v = calloc(rec->nr_cpu ? rec->nr_cpu : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < rec->nr_cpu; i++) {
		if (!rec->cpu[i].samples)
			continue;
		v[n].s = fold(rec, &rec->cpu[i]);
		if (!v[n].s) {
			ret = -ENOMEM;
			goto out;
		}
		v[n++].n = rec->cpu[i].samples;
	}
	qsort(v, n, sizeof(*v), cmp_line);
	for (i = 0; i < n; i = j) {
		uint64_t sum = v[i].n;

		for (j = i + 1; j < n && !strcmp(v[i].s, v[j].s); j++)
			sum += v[j].n;
		if (fprintf(f, "%s %" PRIu64 "\n", v[i].s, sum) < 0)
			ret = -EIO;
	}
out:
	for (i = 0; i < n; i++)
		free(v[i].s);
	free(v);
	return ret;
}
