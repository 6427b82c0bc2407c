// SPDX-License-Identifier: GPL-2.0
/* kprof reader: the arithmetic of `kprof report`, see analysis.h. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "hist.h"
#include "row.h"
#include "series.h"
#include "stats.h"

#define KP_NO_FRAMES	"[no frames]"

double kp_share(uint64_t n, uint64_t total)
{
	return total ? (double)n / (double)total : 0;
}

double kp_amdahl(double p)
{
	if (!(p > 0))		/* also NaN */
		return 1;
	if (p >= 1)
		return INFINITY;
	return 1 / (1 - p);
}

uint64_t kp_row_percentile(const struct kprof_tcp_row *r, double p)
{
	if (!r->count)
		return 0;
	return kp_hist_percentile_clamped(r->hist, KP_HIST_BUCKETS, p,
					  r->min_ns, r->max_ns);
}

uint64_t kp_cpu_basis(const struct kp_rec *rec)
{
	return rec->tgid ? kp_rec_cpu_samples(rec) : kp_rec_busy(rec);
}

double kp_window_share(uint64_t sum_ns, uint64_t window_ns)
{
	return kp_share(sum_ns, window_ns);
}

/* --- hot functions ----------------------------------------------------- */

static int cmp_name(const void *a, const void *b)
{
	const struct kp_func *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_hot(const void *a, const void *b)
{
	const struct kp_func *x = a, *y = b;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return cmp_name(a, b);
}

/* Does frame @j of @rs name a function an earlier frame named? */
static int seen_before(const struct kp_rstack *rs, unsigned int j)
{
	unsigned int i;

	for (i = 0; i < j; i++)
		if (rs->f[i].kind == rs->f[j].kind &&
		    !strcmp(rs->f[i].func, rs->f[j].func))
			return 1;
	return 0;
}

int kp_hot_funcs(const struct kp_rec *rec, struct kp_func **out, size_t *nr)
{
	struct kp_func *v = NULL, *f;
	size_t n = 0, cap = 0, i, m;
	const struct kp_rstack *rs;
	unsigned int j, frames;

	*out = NULL;
	*nr = 0;
	/* One entry per function and stack, then the entries merged. */
	for (i = 0; i < rec->nr_cpu; i++) {
		rs = rec->stacks[rec->cpu[i].stack];
		frames = rs->nr ? rs->nr : 1;
		if (n + frames > cap) {
			cap = (n + frames) * 2;
			f = realloc(v, cap * sizeof(*v));
			if (!f) {
				free(v);
				return -ENOMEM;
			}
			v = f;
		}
		if (!rs->nr) {
			v[n++] = (struct kp_func){ KP_NO_FRAMES, KP_RF_PSEUDO,
						   rec->cpu[i].samples,
						   rec->cpu[i].samples };
			continue;
		}
		for (j = 0; j < rs->nr; j++) {
			if (seen_before(rs, j))
				continue;
			v[n++] = (struct kp_func){ rs->f[j].func, rs->f[j].kind,
						   j ? 0 : rec->cpu[i].samples,
						   rec->cpu[i].samples };
		}
	}
	if (!n) {
		free(v);
		return 0;
	}
	qsort(v, n, sizeof(*v), cmp_name);
	for (i = 1, m = 0; i < n; i++) {
		if (!cmp_name(&v[m], &v[i])) {
			v[m].self += v[i].self;
			v[m].total += v[i].total;
		} else {
			v[++m] = v[i];
		}
	}
	m++;
	qsort(v, m, sizeof(*v), cmp_hot);
	*out = v;
	*nr = m;
	return 0;
}

/* --- remote endpoints -------------------------------------------------- */

/* For sorting an endpoint's slow rows. */
struct slow_ctx {
	const struct kp_rec *rec;
	size_t idx;
	uint64_t p99;
};

static int cmp_slow(const void *a, const void *b)
{
	const struct slow_ctx *x = a, *y = b;
	const struct kprof_tcp_row *rx = &x->rec->tcp[x->idx].row;
	const struct kprof_tcp_row *ry = &y->rec->tcp[y->idx].row;

	if (x->p99 != y->p99)
		return x->p99 > y->p99 ? -1 : 1;
	if (rx->max_ns != ry->max_ns)
		return rx->max_ns > ry->max_ns ? -1 : 1;
	if (rx->count != ry->count)
		return rx->count > ry->count ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int cmp_endpoint(const void *a, const void *b)
{
	const struct kp_endpoint *x = a, *y = b;

	if (x->sum.sum_ns != y->sum.sum_ns)
		return x->sum.sum_ns > y->sum.sum_ns ? -1 : 1;
	if (x->sum.count != y->sum.count)
		return x->sum.count > y->sum.count ? -1 : 1;
	if (x->sum.rport != y->sum.rport)
		return x->sum.rport < y->sum.rport ? -1 : 1;
	return memcmp(x->sum.raddr, y->sum.raddr, sizeof(x->sum.raddr));
}

/* The slow rows of endpoint @ep, slowest first.  0 or -ENOMEM. */
static int find_slow(const struct kp_rec *rec, struct kp_endpoint *ep)
{
	struct slow_ctx *c;
	size_t i, n = 0;

	c = calloc(rec->nr_tcp ? rec->nr_tcp : 1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	for (i = 0; i < rec->nr_tcp; i++) {
		const struct kprof_tcp_row *r = &rec->tcp[i].row;

		if (!r->stack_id || !kp_row_same_endpoint(r, &ep->sum))
			continue;
		c[n].rec = rec;
		c[n].idx = i;
		c[n++].p99 = kp_row_percentile(r, 99);
	}
	qsort(c, n, sizeof(*c), cmp_slow);
	ep->slow = calloc(n ? n : 1, sizeof(*ep->slow));
	if (!ep->slow) {
		free(c);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		ep->slow[i] = c[i].idx;
	ep->nr_slow = n;
	free(c);
	return 0;
}

int kp_together(const struct kp_series_set *set, const struct kp_series *s,
		struct kp_together *t)
{
	size_t n = kp_series_points(set), i, k = 0;
	double *x, *y;
	int ret;

	memset(t, 0, sizeof(*t));
	t->rho = NAN;
	t->p = NAN;
	t->span = set->span ? set->span : 1;
	if (!s || !n)
		return 0;
	x = calloc(n, sizeof(*x));
	y = calloc(n, sizeof(*y));
	if (!x || !y) {
		free(x);
		free(y);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		const struct kp_spoint *pt = &s->points[i];

		if (!pt->count)
			continue;
		x[k] = pt->errors;
		y[k++] = (double)pt->p99_ns;
		t->with_errors += !!pt->errors;
	}
	t->points = k;
	ret = 0;
	if (k >= KP_TOGETHER_MIN_POINTS && t->with_errors) {
		ret = kp_rank_corr(x, y, k, KP_TOGETHER_PERMS, &t->rho, &t->p);
		t->tested = !ret;
		if (ret == -EDOM)
			ret = 0;
	}
	t->together = t->tested && t->rho > 0 && t->p < KP_TOGETHER_ALPHA;
	free(x);
	free(y);
	return ret;
}

int kp_endpoints(const struct kp_rec *rec, struct kp_endpoint **out,
		 size_t *nr)
{
	struct kp_endpoint *v;
	size_t n = 0, i, j;

	*out = NULL;
	*nr = 0;
	v = calloc(rec->nr_tcp ? rec->nr_tcp : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	/* Few endpoints in a window: a linear search is enough. */
	for (i = 0; i < rec->nr_tcp; i++) {
		const struct kprof_tcp_row *r = &rec->tcp[i].row;

		for (j = 0; j < n; j++)
			if (kp_row_same_endpoint(&v[j].sum, r))
				break;
		if (j == n) {
			v[n].sum.family = r->family;
			v[n].sum.rport = r->rport;
			v[n].sum.role = r->role;
			memcpy(v[n].sum.raddr, r->raddr, sizeof(r->raddr));
			n++;
		}
		kp_row_merge(&v[j].sum, r);
		if (!r->stack_id)
			v[j].below += r->count;
	}
	for (j = 0; j < n; j++) {
		v[j].p50 = kp_row_percentile(&v[j].sum, 50);
		v[j].p95 = kp_row_percentile(&v[j].sum, 95);
		v[j].p99 = kp_row_percentile(&v[j].sum, 99);
		if (find_slow(rec, &v[j]) ||
		    kp_together(&rec->series,
				kp_series_find(&rec->series, &v[j].sum),
				&v[j].tog)) {
			kp_endpoints_free(v, n);
			return -ENOMEM;
		}
	}
	qsort(v, n, sizeof(*v), cmp_endpoint);
	*out = v;
	*nr = n;
	return 0;
}

void kp_endpoints_free(struct kp_endpoint *ep, size_t nr)
{
	size_t i;

	if (!ep)
		return;
	for (i = 0; i < nr; i++)
		free(ep[i].slow);
	free(ep);
}
