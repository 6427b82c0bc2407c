// SPDX-License-Identifier: GPL-2.0
/*
 * kprof reader: windows over the cumulative counts; see window.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "row.h"
#include "window.h"

/* The key of a TCP row: every field before @reserved0 (zero anyway). */
#define TCP_KEY_LEN	offsetof(struct kprof_tcp_row, reserved0)
/* The key of a CPU row: stack ID and tgid, and views (API 3.0). */
#define CPU_KEY_LEN	offsetof(struct kprof_cpu_row, samples)

static int cmp_tcp(const void *a, const void *b)
{
	return memcmp(a, b, TCP_KEY_LEN);
}

static int cmp_cpu(const void *a, const void *b)
{
	const struct kprof_cpu_row *x = a, *y = b;
	int d = memcmp(a, b, CPU_KEY_LEN);

	return d ? d : x->views < y->views ? -1 : x->views > y->views;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void drop_stacks(struct kp_snapshot *s)
{
	free(s->stacks);
	free(s->strings);
	s->stacks = NULL;
	s->strings = NULL;
	s->nr_stacks = 0;
	s->strings_len = 0;
}

void kp_window_reset(struct kp_window *w)
{
	if (w->have)
		kp_snapshot_free(&w->last);
	memset(w, 0, sizeof(*w));
}

/* @d = @c - @p, @p being the same key's earlier copy, same birth. */
static int tcp_delta(struct kprof_tcp_row *d, const struct kprof_tcp_row *c,
		     const struct kprof_tcp_row *p)
{
	unsigned int i, lo = KPROF_HIST_BUCKETS, hi = 0;

	if (c->count == p->count) {
		/* no request, but maybe retransmits or resets */
		memset(d, 0, sizeof(*d));
		memcpy(d, c, TCP_KEY_LEN);
		d->birth = c->birth;
		d->min_ns = UINT64_MAX;
		kp_row_health_sub(d, c, p);
		return kp_row_has_health(d);
	}
	*d = *c;
	kp_row_health_sub(d, c, p);
	d->count = c->count - p->count;
	d->sum_ns = c->sum_ns - p->sum_ns;
	for (i = 0; i < KPROF_HIST_BUCKETS; i++) {
		d->hist[i] = c->hist[i] - p->hist[i];	/* modulo 2^32 */
		if (!d->hist[i])
			continue;
		if (lo == KPROF_HIST_BUCKETS)
			lo = i;
		hi = i;
	}
	if (lo == KPROF_HIST_BUCKETS)	/* 2^32 of one bucket: keep c's */
		return 1;
	if (kp_hist_lower(lo) > d->min_ns)
		d->min_ns = kp_hist_lower(lo);
	if (kp_hist_upper(hi) - 1 < d->max_ns)	/* upper: one past */
		d->max_ns = kp_hist_upper(hi) - 1;
	return 1;
}

/* Keep in @out only the stacks its rows name (@cum's are sorted). */
static int pick_stacks(struct kp_snapshot *out, const struct kp_snapshot *cum)
{
	uint32_t *ids, n = 0, i;

	ids = malloc(((size_t)out->nr_rows + out->nr_cpu_rows + 1) *
		     sizeof(*ids));
	out->stacks = malloc(((size_t)cum->nr_stacks + 1) *
			     sizeof(*out->stacks));
	if (!ids || !out->stacks) {
		free(ids);
		return -ENOMEM;
	}
	for (i = 0; i < out->nr_rows; i++)
		ids[n++] = out->rows[i].stack_id;
	for (i = 0; i < out->nr_cpu_rows; i++)
		ids[n++] = out->cpu_rows[i].stack_id;
	qsort(ids, n, sizeof(*ids), cmp_u32);
	for (i = 0; i < cum->nr_stacks; i++)
		if (bsearch(&cum->stacks[i].id, ids, n, sizeof(*ids), cmp_u32))
			out->stacks[out->nr_stacks++] = cum->stacks[i];
	free(ids);
	return 0;
}

int kp_window_next(struct kp_window *w, struct kp_snapshot *cum,
		   struct kp_snapshot *out)
{
	const struct kp_snapshot *last = &w->last;
	uint32_t i, j;

	memset(out, 0, sizeof(*out));
	qsort(cum->rows, cum->nr_rows, sizeof(*cum->rows), cmp_tcp);
	qsort(cum->cpu_rows, cum->nr_cpu_rows, sizeof(*cum->cpu_rows),
	      cmp_cpu);
	if (!w->have) {
		w->last = *cum;
		w->have = 1;
		drop_stacks(&w->last);
		return 1;
	}

	*out = *cum;	/* counters and identity; arrays below */
	out->rows = malloc(((size_t)cum->nr_rows + 1) * sizeof(*out->rows));
	out->cpu_rows = malloc(((size_t)cum->nr_cpu_rows + 1) *
			       sizeof(*out->cpu_rows));
	out->stacks = NULL;
	out->strings = NULL;
	out->nr_rows = out->nr_cpu_rows = out->nr_stacks = 0;
	if (!out->rows || !out->cpu_rows)
		goto nomem;

	for (i = j = 0; i < cum->nr_rows; i++) {
		const struct kprof_tcp_row *c = &cum->rows[i];
		struct kprof_tcp_row *d = &out->rows[out->nr_rows];
		int k = 1;

		while (j < last->nr_rows &&
		       (k = cmp_tcp(&last->rows[j], c)) < 0)
			j++;
		if (!k && last->rows[j].birth == c->birth &&
		    c->count >= last->rows[j].count)
			out->nr_rows += tcp_delta(d, c, &last->rows[j]);
		else if (c->count || kp_row_has_health(c))
			out->rows[out->nr_rows++] = *c;
	}
	for (i = j = 0; i < cum->nr_cpu_rows; i++) {
		const struct kprof_cpu_row *c = &cum->cpu_rows[i];
		struct kprof_cpu_row *d = &out->cpu_rows[out->nr_cpu_rows];
		int k = 1;

		while (j < last->nr_cpu_rows &&
		       (k = cmp_cpu(&last->cpu_rows[j], c)) < 0)
			j++;
		*d = *c;
		if (!k && last->cpu_rows[j].birth == c->birth &&
		    c->samples >= last->cpu_rows[j].samples)
			d->samples -= last->cpu_rows[j].samples;
		if (d->samples)
			out->nr_cpu_rows++;
	}

#define SUB(f) (out->f = cum->f >= last->f ? cum->f - last->f : cum->f)
	SUB(requests);
	SUB(abandoned);
	SUB(drops_inflight);
	SUB(drops_rows);
	SUB(drops_stacks);
	SUB(drops_export);
	SUB(samples);
	SUB(samples_idle);
	SUB(drops_samples);
#undef SUB
	out->start_ns = last->end_ns;

	if (pick_stacks(out, cum))
		goto nomem;
	out->strings = cum->strings;
	out->strings_len = cum->strings_len;
	cum->strings = NULL;
	kp_snapshot_free(&w->last);
	w->last = *cum;
	drop_stacks(&w->last);
	return 0;
nomem:
	free(out->rows);
	free(out->cpu_rows);
	free(out->stacks);
	memset(out, 0, sizeof(*out));
	kp_snapshot_free(cum);
	return -ENOMEM;
}

static bool port_in(uint16_t port, const uint16_t *ports, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ports[i] == port)
			return true;
	return false;
}

/* Does @c let @r through (its role, family, remote port)? */
static bool row_wanted(const struct kprof_tcp_row *r,
		       const struct kprof_config *c)
{
	unsigned int fam = r->family & ~KPROF_RADDR_FLAGS;

	/* a client's connects are traced with its requests */
	if (c->roles && !(c->roles & (1U << (r->role == KPROF_ROLE_CONNECT ?
					       KPROF_ROLE_CLIENT : r->role))))
		return false;
	if (c->families &&
	    !(c->families & (fam == AF_INET6 ? KPROF_FAMILY_INET6 :
			     KPROF_FAMILY_INET)))
		return false;
	return !c->nr_rports || port_in(r->rport, c->rports,
					c->nr_rports < KPROF_MAX_PORTS ?
					c->nr_rports : KPROF_MAX_PORTS);
}

/* Does a reader with @view keep a row marked with @views? */
static bool in_view(uint8_t views, uint8_t view)
{
	return !view || view > KPROF_MAX_VIEWS || (views & (1U << (view - 1)));
}

/*
 * CPU rows of @view (0, KPROF_VIEW_NONE: all), then one row per stack and
 * process again.
 */
static void filter_cpu_views(struct kp_snapshot *w, uint8_t view)
{
	uint32_t i, n = 0;
	bool marked = false;

	for (i = 0; i < w->nr_cpu_rows; i++) {
		struct kprof_cpu_row *r = &w->cpu_rows[i];

		if (!in_view(r->views, view))
			continue;
		marked |= !!r->views;
		r->views = 0;
		w->cpu_rows[n++] = *r;
	}
	w->nr_cpu_rows = n;
	if (!marked)
		return;
	qsort(w->cpu_rows, w->nr_cpu_rows, sizeof(*w->cpu_rows), cmp_cpu);
	for (i = 1, n = 1; i < w->nr_cpu_rows; i++) {
		struct kprof_cpu_row *d = &w->cpu_rows[n - 1];

		if (cmp_cpu(d, &w->cpu_rows[i]))
			w->cpu_rows[n++] = w->cpu_rows[i];
		else
			d->samples += w->cpu_rows[i].samples;
	}
	w->nr_cpu_rows = w->nr_cpu_rows ? n : 0;
}

void kp_window_filter(struct kp_snapshot *w, const struct kprof_config *c,
		      uint8_t view)
{
	uint32_t i, n = 0;
	bool folded = false;

	for (i = 0; i < w->nr_rows; i++) {
		struct kprof_tcp_row *r = &w->rows[i];

		if (!row_wanted(r, c))
			continue;
		if (!in_view(r->views, view))
			continue;
		if (r->views) {
			r->views = 0;	/* one row per key again, below */
			folded = true;
		}
		/*
		 * Only when the module walked stacks below our threshold
		 * (another reader's); max is never below the truth.
		 */
		if (r->stack_id && w->threshold_ns < c->threshold_ns &&
		    r->max_ns < c->threshold_ns) {
			r->stack_id = 0;
			folded = true;
		}
		w->rows[n++] = *r;
	}
	w->nr_rows = n;
	filter_cpu_views(w, view);
	if (!folded)
		return;
	/* rows of one key are now neighbours: add them up */
	qsort(w->rows, w->nr_rows, sizeof(*w->rows), cmp_tcp);
	for (i = 1, n = 1; i < w->nr_rows; i++) {
		struct kprof_tcp_row *d = &w->rows[n - 1], *r = &w->rows[i];

		if (cmp_tcp(d, r)) {
			w->rows[n++] = *r;
			continue;
		}
		kp_row_merge(d, r);
	}
	w->nr_rows = w->nr_rows ? n : 0;
}
