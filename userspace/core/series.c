// SPDX-License-Identifier: GPL-2.0
/* kprof reader: per-endpoint time series, see series.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "row.h"
#include "series.h"
#include "util.h"

size_t kp_series_points(const struct kp_series_set *set)
{
	if (!set->span)
		return 0;
	return (set->intervals + set->span - 1) / set->span;
}

uint64_t kp_series_errors(const struct kprof_tcp_row *r)
{
	return r->retransmits + r->resets_sent + r->resets_received +
	       kp_row_connect_failures(r);
}

struct series_key {
	const struct kp_series_set *set;
	const struct kprof_tcp_row *r;
};

static bool series_eq(const void *ctx, uint32_t idx)
{
	const struct series_key *k = ctx;
	const struct kp_series *s = &k->set->s[idx];

	return s->family == k->r->family && s->rport == k->r->rport &&
	       s->role == k->r->role &&
	       !memcmp(s->raddr, k->r->raddr, sizeof(s->raddr));
}

const struct kp_series *kp_series_find(const struct kp_series_set *set,
				       const struct kprof_tcp_row *r)
{
	struct series_key k = { set, r };
	int64_t i = kp_htab_find(&set->idx, kp_row_endpoint_hash(r, 0),
				 series_eq, &k);

	return i < 0 ? NULL : &set->s[i];
}

/* @r's series, new (all points empty) when first seen; NULL past the cap. */
static struct kp_series *series_get(struct kp_series_set *set,
				    const struct kprof_tcp_row *r, int *err)
{
	struct series_key k = { set, r };
	uint64_t h = kp_row_endpoint_hash(r, 0);
	int64_t i = kp_htab_find(&set->idx, h, series_eq, &k);
	struct kp_series *s;

	if (i >= 0)
		return &set->s[i];
	if (set->nr == KP_SERIES_MAX) {
		set->untracked++;
		return NULL;
	}
	if (KP_GROW(set->s, set->nr, set->cap))
		goto nomem;
	s = &set->s[set->nr];
	memset(s, 0, sizeof(*s));
	s->points = calloc(KP_SERIES_POINTS, sizeof(*s->points));
	if (!s->points)
		goto nomem;
	if (kp_htab_add(&set->idx, h, set->nr)) {
		free(s->points);
		goto nomem;
	}
	s->family = r->family;
	s->rport = r->rport;
	s->role = r->role;
	memcpy(s->raddr, r->raddr, sizeof(s->raddr));
	s->acc = -1;
	set->nr++;
	return s;
nomem:
	*err = -ENOMEM;
	return NULL;
}

/* Every series' points, pairs merged: each covers twice the intervals. */
static void coarsen(struct kp_series_set *set)
{
	size_t i, j;

	for (i = 0; i < set->nr; i++) {
		struct kp_spoint *p = set->s[i].points;

		for (j = 0; j < KP_SERIES_POINTS / 2; j++) {
			struct kp_spoint a = p[2 * j], b = p[2 * j + 1];

			p[j].count = a.count + b.count;
			p[j].errors = a.errors + b.errors;
			p[j].p99_ns = a.p99_ns > b.p99_ns ? a.p99_ns : b.p99_ns;
		}
		memset(&p[KP_SERIES_POINTS / 2], 0,
		       KP_SERIES_POINTS / 2 * sizeof(*p));
	}
	set->span *= 2;
}

static uint32_t sat32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : v;
}

int kp_series_add(struct kp_series_set *set, const struct kprof_tcp_row *rows,
		  size_t nr)
{
	size_t i, at;
	int err = 0;

	if (!set->span)
		set->span = 1;
	at = set->intervals / set->span;
	if (at == KP_SERIES_POINTS) {
		coarsen(set);
		at = set->intervals / set->span;
	}
	set->intervals++;
	set->nr_scratch = 0;
	for (i = 0; i < nr; i++) {
		struct kp_series *s = series_get(set, &rows[i], &err);

		if (!s)
			continue;
		if (s->acc < 0) {
			if (KP_GROW(set->scratch, set->nr_scratch,
				    set->cap_scratch)) {
				err = -ENOMEM;
				continue;
			}
			s->acc = set->nr_scratch++;
			memset(&set->scratch[s->acc], 0,
			       sizeof(*set->scratch));
		}
		kp_row_merge(&set->scratch[s->acc], &rows[i]);
	}
	for (i = 0; i < set->nr; i++) {
		struct kp_series *s = &set->s[i];
		const struct kprof_tcp_row *d;
		struct kp_spoint *p;
		uint64_t p99;

		if (s->acc < 0)
			continue;
		d = &set->scratch[s->acc];
		p = &s->points[at];
		p99 = d->count ?
		      kp_hist_percentile_clamped(d->hist, KP_HIST_BUCKETS, 99,
						 d->min_ns, d->max_ns) : 0;
		p->count = sat32((uint64_t)p->count + d->count);
		p->errors = sat32((uint64_t)p->errors + kp_series_errors(d));
		if (p99 > p->p99_ns)
			p->p99_ns = p99;
		s->acc = -1;
	}
	return err;
}

void kp_series_fini(struct kp_series_set *set)
{
	size_t i;

	for (i = 0; i < set->nr; i++)
		free(set->s[i].points);
	free(set->s);
	free(set->scratch);
	kp_htab_free(&set->idx);
	memset(set, 0, sizeof(*set));
}
