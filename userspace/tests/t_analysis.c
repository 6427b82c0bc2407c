// SPDX-License-Identifier: GPL-2.0
/*
 * Tests: the arithmetic of `kprof report` on fixed inputs: shares, Amdahl
 * ceilings, percentiles from a histogram, hot functions aggregated over
 * hand-made stacks, TCP rows added up per endpoint.
 */
#include <arpa/inet.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "analysis.h"
#include "hist.h"
#include "series.h"
#include "unit.h"

static void test_share_amdahl(void)
{
	double v;

	EXPECT(kp_share(3, 4) == 0.75, "%g", kp_share(3, 4));
	EXPECT(kp_share(0, 0) == 0, "empty total");
	EXPECT(kp_share(5, 0) == 0, "zero total");
	EXPECT(kp_share(7, 7) == 1, "all");

	v = kp_amdahl(0.30);
	EXPECT(v == 1 / (1 - 0.30), "p=0.30: %.17g", v);
	EXPECT(fabs(v - 1.4285714285714286) < 1e-15, "p=0.30: %.17g", v);
	EXPECT(kp_amdahl(0) == 1.0, "p=0: %g", kp_amdahl(0));
	EXPECT(kp_amdahl(0.5) == 2.0, "p=0.5: %g", kp_amdahl(0.5));
	EXPECT(kp_amdahl(0.75) == 4.0, "p=0.75: %g", kp_amdahl(0.75));
	EXPECT(fabs(kp_amdahl(0.99) - 100) < 1e-9, "p=0.99: %g",
	       kp_amdahl(0.99));
	EXPECT(isinf(kp_amdahl(1)) && kp_amdahl(1) > 0, "p=1: %g",
	       kp_amdahl(1));
	EXPECT(isinf(kp_amdahl(1.5)), "p>1: %g", kp_amdahl(1.5));
	EXPECT(kp_amdahl(-0.1) == 1.0, "p<0: %g", kp_amdahl(-0.1));
	EXPECT(kp_amdahl(NAN) == 1.0, "NaN: %g", kp_amdahl(NAN));
	EXPECT(kp_amdahl(kp_share(30, 100)) == 1 / (1 - 0.3), "30 of 100");

	EXPECT(kp_window_share(5059, 10000) == 0.5059, "%g",
	       kp_window_share(5059, 10000));
	EXPECT(kp_window_share(30000, 10000) == 3.0, "overlap");
	EXPECT(kp_window_share(1, 0) == 0, "empty window");
}

/* A row of @n values in @vals, each @times times. */
static void row_of(struct kprof_tcp_row *r, uint32_t stack_id, int family,
		   const char *addr, uint16_t port, uint8_t role,
		   const uint64_t *vals, const unsigned int *times,
		   unsigned int n)
{
	unsigned int i, k;

	memset(r, 0, sizeof(*r));
	r->stack_id = stack_id;
	r->family = family;
	r->rport = port;
	r->role = role;
	inet_pton(family, addr, r->raddr);
	for (i = 0; i < n; i++) {
		for (k = 0; k < times[i]; k++) {
			if (!r->count || vals[i] < r->min_ns)
				r->min_ns = vals[i];
			if (vals[i] > r->max_ns)
				r->max_ns = vals[i];
			r->count++;
			r->sum_ns += vals[i];
			r->hist[kp_hist_index(vals[i])]++;
		}
	}
}

static void test_percentiles(void)
{
	static struct kprof_tcp_row r;

	memset(&r, 0, sizeof(r));
	EXPECT(kp_row_percentile(&r, 50) == 0, "empty row");
	EXPECT(kp_row_percentile(&r, 99) == 0, "empty row");

	/* one-value buckets: exact */
	row_of(&r, 0, AF_INET, "10.0.0.1", 1, 1, (uint64_t[]){ 5, 9 },
	       (unsigned int[]){ 50, 50 }, 2);
	EXPECT(kp_row_percentile(&r, 50) == 5, "p50 at the edge: %llu",
	       (unsigned long long)kp_row_percentile(&r, 50));
	EXPECT(kp_row_percentile(&r, 50.1) == 9, "rank 51: %llu",
	       (unsigned long long)kp_row_percentile(&r, 50.1));
	EXPECT(kp_row_percentile(&r, 0) == 5, "p0");
	EXPECT(kp_row_percentile(&r, 100) == 9, "p100");

	/* 99 x 5 and one 1000 (bucket [960, 1024), midpoint 992) */
	row_of(&r, 0, AF_INET, "10.0.0.1", 1, 1, (uint64_t[]){ 5, 1000 },
	       (unsigned int[]){ 99, 1 }, 2);
	EXPECT(kp_row_percentile(&r, 99) == 5, "rank 99 of 100: %llu",
	       (unsigned long long)kp_row_percentile(&r, 99));
	EXPECT(kp_row_percentile(&r, 99.5) == 992, "rank 100: %llu",
	       (unsigned long long)kp_row_percentile(&r, 99.5));

	/* 16 and 17 share a bucket, midpoint 17: clamped to the max 16 */
	row_of(&r, 0, AF_INET, "10.0.0.1", 1, 1, (uint64_t[]){ 16 },
	       (unsigned int[]){ 10 }, 1);
	EXPECT(kp_row_percentile(&r, 50) == 16, "clamped: %llu",
	       (unsigned long long)kp_row_percentile(&r, 50));
	/* 2000 alone: its bucket's midpoint 1984 is under min: clamped up */
	row_of(&r, 0, AF_INET, "10.0.0.1", 1, 1, (uint64_t[]){ 2000 },
	       (unsigned int[]){ 1 }, 1);
	EXPECT(kp_row_percentile(&r, 99) == 2000, "%llu",
	       (unsigned long long)kp_row_percentile(&r, 99));
}

/* --- a hand-made recording ------------------------------------------- */

#define F(k, name)	{ .kind = (k), .func = (char *)(name), .map = -1 }

static struct kp_rframe f_full[] = { F(KP_RF_PSEUDO, "[stack table full]") };
static struct kp_rframe f_below[] = { F(KP_RF_PSEUDO, "[below threshold]") };
static struct kp_rframe f_read[] = {
	F(KP_RF_KERNEL, "copy_user"), F(KP_RF_KERNEL, "sys_read"),
	F(KP_RF_USER, "read_loop"), F(KP_RF_USER, "main"),
};
static struct kp_rframe f_spin[] = {	/* recursion: spin counted once */
	F(KP_RF_USER, "spin"), F(KP_RF_USER, "spin"), F(KP_RF_USER, "main"),
};
static struct kp_rframe f_loop[] = {
	F(KP_RF_USER, "read_loop"), F(KP_RF_USER, "main"),
};
static struct kp_rframe f_kspin[] = { F(KP_RF_KERNEL, "spin") };

#define S(id_, fr)	{ .id = (id_), .nr = sizeof(fr) / sizeof(fr[0]), .f = (fr) }

static struct kp_rstack s_full = S(0, f_full), s_below = S(0, f_below),
	s_read = S(21, f_read), s_spin = S(22, f_spin),
	s_loop = S(23, f_loop), s_none = { .id = 24 },
	s_kspin = S(25, f_kspin), s_tcp7 = S(7, f_loop), s_tcp8 = S(8, f_read);

static struct kp_rstack *stacks[] = {
	&s_full, &s_below, &s_read, &s_spin, &s_loop, &s_none, &s_kspin,
	&s_tcp7, &s_tcp8,
};

static void rec_init(struct kp_rec *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->stacks = stacks;
	rec->nr_stacks = sizeof(stacks) / sizeof(stacks[0]);
}

static const struct kp_func *find(const struct kp_func *v, size_t n,
				  const char *name, int kind)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].kind == kind && !strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

static void test_hot_funcs(void)
{
	static const struct {
		const char *name;
		int kind;
		uint64_t self, total;
	} want[] = {
		{ "spin", KP_RF_USER, 65, 65 },
		{ "read_loop", KP_RF_USER, 20, 30 },
		{ "copy_user", KP_RF_KERNEL, 10, 10 },
		{ "[stack table full]", KP_RF_PSEUDO, 5, 5 },
		{ "[no frames]", KP_RF_PSEUDO, 2, 2 },
		{ "spin", KP_RF_KERNEL, 1, 1 },
		{ "main", KP_RF_USER, 0, 95 },
		{ "sys_read", KP_RF_KERNEL, 0, 10 },
	};
	struct kp_rcpu cpu[] = {
		{ .stack = 2, .tgid = 10, .samples = 10 },
		{ .stack = 3, .tgid = 10, .samples = 60 },
		{ .stack = 4, .tgid = 10, .samples = 20 },
		{ .stack = 0, .tgid = 10, .samples = 5 },
		{ .stack = 3, .tgid = 11, .samples = 5 },
		{ .stack = 5, .tgid = 10, .samples = 2 },
		{ .stack = 6, .tgid = 0, .samples = 1 },
	};
	struct kp_func *v;
	struct kp_rec rec;
	size_t n, i;

	rec_init(&rec);
	EXPECT(!kp_hot_funcs(&rec, &v, &n) && !v && !n, "no rows: none");

	rec.cpu = cpu;
	rec.nr_cpu = sizeof(cpu) / sizeof(cpu[0]);
	rec.samples = 150;
	rec.samples_idle = 47;
	EXPECT(kp_cpu_basis(&rec) == 103, "busy: %llu",
	       (unsigned long long)kp_cpu_basis(&rec));
	if (!EXPECT(!kp_hot_funcs(&rec, &v, &n), "ENOMEM"))
		return;
	EXPECT(n == sizeof(want) / sizeof(want[0]), "%zu functions", n);
	for (i = 0; i < n && i < sizeof(want) / sizeof(want[0]); i++)
		EXPECT(v[i].kind == want[i].kind && !strcmp(v[i].name, want[i].name) &&
		       v[i].self == want[i].self && v[i].total == want[i].total,
		       "#%zu: %s/%d %llu %llu", i, v[i].name, v[i].kind,
		       (unsigned long long)v[i].self,
		       (unsigned long long)v[i].total);
	EXPECT(find(v, n, "spin", KP_RF_KERNEL) != find(v, n, "spin", KP_RF_USER),
	       "same name, other kind: two functions");
	free(v);

	/* -p: the process's rows are the basis */
	rec.tgid = 10;
	EXPECT(kp_cpu_basis(&rec) == 103, "rows: %llu",
	       (unsigned long long)kp_cpu_basis(&rec));
	rec.nr_cpu = 2;
	EXPECT(kp_cpu_basis(&rec) == 70, "rows: %llu",
	       (unsigned long long)kp_cpu_basis(&rec));
}

static void test_endpoints(void)
{
	static struct kp_rtcp tcp[5];
	struct kp_endpoint *ep;
	struct kp_rec rec;
	size_t n;

	rec_init(&rec);
	EXPECT(!kp_endpoints(&rec, &ep, &n) && n == 0, "no rows");
	kp_endpoints_free(ep, n);

	/* A: 10.0.0.1:443 client; B: the same as a server; C: [::1]:80 */
	row_of(&tcp[0].row, 0, AF_INET, "10.0.0.1", 443, KPROF_ROLE_CLIENT,
	       (uint64_t[]){ 5 }, (unsigned int[]){ 10 }, 1);
	row_of(&tcp[1].row, 7, AF_INET, "10.0.0.1", 443, KPROF_ROLE_CLIENT,
	       (uint64_t[]){ 1000 }, (unsigned int[]){ 3 }, 1);
	row_of(&tcp[2].row, 8, AF_INET, "10.0.0.1", 443, KPROF_ROLE_CLIENT,
	       (uint64_t[]){ 9, 2000 }, (unsigned int[]){ 1, 1 }, 2);
	row_of(&tcp[3].row, 7, AF_INET, "10.0.0.1", 443, KPROF_ROLE_SERVER,
	       (uint64_t[]){ 100000 }, (unsigned int[]){ 1 }, 1);
	row_of(&tcp[4].row, 0, AF_INET6, "::1", 80, KPROF_ROLE_CLIENT,
	       (uint64_t[]){ 8 }, (unsigned int[]){ 2 }, 1);
	tcp[0].stack = tcp[4].stack = 1;
	tcp[1].stack = 7;
	tcp[2].stack = 8;
	tcp[3].stack = 7;
	rec.tcp = tcp;
	rec.nr_tcp = 5;
	if (!EXPECT(!kp_endpoints(&rec, &ep, &n), "ENOMEM"))
		return;
	if (!EXPECT(n == 3, "%zu endpoints", n)) {
		kp_endpoints_free(ep, n);
		return;
	}
	/* by total wait: B 100000, A 5059, C 16 */
	EXPECT(ep[0].sum.role == KPROF_ROLE_SERVER && ep[0].sum.count == 1 &&
	       ep[0].p50 == 100000 && ep[0].p99 == 100000 && !ep[0].below &&
	       ep[0].nr_slow == 1 && ep[0].slow[0] == 3, "B");
	EXPECT(ep[1].sum.role == KPROF_ROLE_CLIENT && ep[1].sum.rport == 443 &&
	       ep[1].sum.family == AF_INET, "A");
	EXPECT(ep[1].sum.count == 15 && ep[1].sum.sum_ns == 5059 &&
	       ep[1].sum.min_ns == 5 && ep[1].sum.max_ns == 2000 &&
	       ep[1].below == 10, "A: %llu requests, %llu ns, [%llu, %llu]",
	       (unsigned long long)ep[1].sum.count,
	       (unsigned long long)ep[1].sum.sum_ns,
	       (unsigned long long)ep[1].sum.min_ns,
	       (unsigned long long)ep[1].sum.max_ns);
	EXPECT(ep[1].p50 == 5 && ep[1].p95 == 1984 && ep[1].p99 == 1984,
	       "A: p50 %llu p95 %llu p99 %llu", (unsigned long long)ep[1].p50,
	       (unsigned long long)ep[1].p95, (unsigned long long)ep[1].p99);
	EXPECT(kp_hist_total(ep[1].sum.hist, KP_HIST_BUCKETS) == 15,
	       "A: histograms merged");
	/* slowest first: row 2 (p99 1984) before row 1 (p99 1000) */
	EXPECT(ep[1].nr_slow == 2 && ep[1].slow[0] == 2 && ep[1].slow[1] == 1,
	       "A: slow rows %zu", ep[1].nr_slow);
	EXPECT(ep[2].sum.family == AF_INET6 && ep[2].sum.count == 2 &&
	       ep[2].sum.sum_ns == 16 && ep[2].below == 2 && !ep[2].nr_slow,
	       "C");
	EXPECT(!ep[0].sum.stack_id && !ep[1].sum.stack_id, "sums have stack ID 0");
	kp_endpoints_free(ep, n);
}

/*
 * Per-endpoint series, one interval at a time: A's p99 is high exactly in
 * the intervals with retransmits, B's rises and falls on its own, C has
 * errors but a p99 that never changes, D too few intervals.
 */
static void test_together(void)
{
	static struct kprof_tcp_row rows[4];
	struct kp_series_set set;
	struct kp_together t;
	const struct kp_series *a;
	unsigned int i;

	memset(&set, 0, sizeof(set));
	for (i = 0; i < 20; i++) {
		int lossy = i % 3 == 0, slow_b = i % 2 == 0;

		row_of(&rows[0], 7, AF_INET, "10.0.0.1", 443, KPROF_ROLE_CLIENT,
		       (uint64_t[]){ 1000000 + i, 50000000 },
		       (unsigned int[]){ 9, lossy }, 2);
		rows[0].retransmits = lossy ? 5 : 0;
		row_of(&rows[1], 7, AF_INET, "10.0.0.2", 443, KPROF_ROLE_CLIENT,
		       (uint64_t[]){ slow_b ? 40000000 : 2000000 },
		       (unsigned int[]){ 10 }, 1);
		rows[1].resets_received = lossy;
		row_of(&rows[2], 0, AF_INET, "10.0.0.3", 80, KPROF_ROLE_SERVER,
		       (uint64_t[]){ 3000 }, (unsigned int[]){ 4 }, 1);
		rows[2].resets_sent = i % 2;
		row_of(&rows[3], 0, AF_INET, "10.0.0.4", 80, KPROF_ROLE_CONNECT,
		       (uint64_t[]){ 3000 + 1000 * i }, (unsigned int[]){ i < 4 }, 1);
		rows[3].connects_refused = i < 4 ? i : 0;
		if (!EXPECT(!kp_series_add(&set, rows, 4), "interval %u", i))
			goto out;
	}
	EXPECT(set.nr == 4 && set.span == 1 && kp_series_points(&set) == 20,
	       "%zu series, span %u", set.nr, set.span);
	a = kp_series_find(&set, &rows[0]);
	if (!EXPECT(a != NULL, "A's series"))
		goto out;
	EXPECT(a->points[0].count == 10 && a->points[0].errors == 5 &&
	       a->points[0].p99_ns == kp_hist_mid(kp_hist_index(50000000)),
	       "A, interval 0: %u %u %llu",
	       a->points[0].count, a->points[0].errors,
	       (unsigned long long)a->points[0].p99_ns);
	EXPECT(a->points[1].count == 9 && !a->points[1].errors &&
	       a->points[1].p99_ns == 1000001, "A, interval 1: %llu",
	       (unsigned long long)a->points[1].p99_ns);
	EXPECT(!kp_together(&set, a, &t) && t.tested && t.together &&
	       t.points == 20 && t.with_errors == 7 && t.rho > 0.8 &&
	       t.p < 0.001, "A moves together: rho %g p %g", t.rho, t.p);
	EXPECT(!kp_together(&set, kp_series_find(&set, &rows[1]), &t) &&
	       t.tested && !t.together && fabs(t.rho) < 0.3,
	       "B does not: rho %g p %g", t.rho, t.p);
	EXPECT(!kp_together(&set, kp_series_find(&set, &rows[2]), &t) &&
	       !t.tested && !t.together && isnan(t.rho) && t.with_errors == 10,
	       "C: a p99 that never changes is not tested");
	EXPECT(!kp_together(&set, kp_series_find(&set, &rows[3]), &t) &&
	       !t.tested && t.points == 4, "D: 4 intervals are too few");
	EXPECT(!kp_together(&set, NULL, &t) && !t.tested && !t.points,
	       "no series");

	/* past 256 intervals, pairs merge: counts added, larger p99 kept */
	for (i = 20; i < 300; i++) {
		row_of(&rows[0], 7, AF_INET, "10.0.0.1", 443, KPROF_ROLE_CLIENT,
		       (uint64_t[]){ 1000 + i }, (unsigned int[]){ 1 }, 1);
		rows[0].retransmits = 1;
		if (!EXPECT(!kp_series_add(&set, rows, 1), "interval %u", i))
			goto out;
	}
	a = kp_series_find(&set, &rows[0]);
	EXPECT(set.span == 2 && kp_series_points(&set) == 150,
	       "span %u, %zu points", set.span, kp_series_points(&set));
	EXPECT(a->points[0].count == 19 && a->points[0].errors == 5 &&
	       a->points[0].p99_ns == kp_hist_mid(kp_hist_index(50000000)),
	       "merged: %u %u",
	       a->points[0].count, a->points[0].errors);
	EXPECT(a->points[149].count == 2 && a->points[149].errors == 2 &&
	       a->points[149].p99_ns == 1000 + 299, "last point: %llu",
	       (unsigned long long)a->points[149].p99_ns);
	EXPECT(!a->points[150].count && !a->points[255].count, "rest empty");
	EXPECT(!kp_series_find(&set, &rows[1])->points[10].count &&
	       kp_series_find(&set, &rows[1])->points[9].count == 20,
	       "B merged too, nothing after its last interval");
out:
	kp_series_fini(&set);
}

/* At most KP_SERIES_MAX endpoints have a series; the rest are counted. */
static void test_series_cap(void)
{
	static struct kprof_tcp_row rows[KP_SERIES_MAX + 3];
	struct kp_series_set set;
	unsigned int i;

	memset(&set, 0, sizeof(set));
	for (i = 0; i < KP_SERIES_MAX + 3; i++) {
		rows[i].family = AF_INET;
		rows[i].rport = 1 + i;
		rows[i].count = 1;
	}
	EXPECT(!kp_series_add(&set, rows, KP_SERIES_MAX + 3), "added");
	EXPECT(!kp_series_add(&set, rows, KP_SERIES_MAX + 3), "again");
	EXPECT(set.nr == KP_SERIES_MAX && set.untracked == 6,
	       "%zu series, %llu untracked", set.nr,
	       (unsigned long long)set.untracked);
	EXPECT(kp_series_find(&set, &rows[KP_SERIES_MAX - 1])->points[1].count == 1 &&
	       !kp_series_find(&set, &rows[KP_SERIES_MAX]), "the first ones kept");
	kp_series_fini(&set);
}

const struct kp_test t_analysis[] = {
	{ "analysis: shares, Amdahl ceilings, window shares", test_share_amdahl },
	{ "analysis: percentiles from histograms, at bucket edges", test_percentiles },
	{ "analysis: hot functions, self and total, across stacks", test_hot_funcs },
	{ "analysis: endpoints added up, percentiles, slowest stacks", test_endpoints },
	{ "analysis: series per endpoint; latency and errors moving together", test_together },
	{ "analysis: series for at most KP_SERIES_MAX endpoints", test_series_cap },
	{ NULL, NULL },
};
