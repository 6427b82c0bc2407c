// SPDX-License-Identifier: GPL-2.0
/* Tests: histogram bucket math and percentile estimates. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "unit.h"

/*
 * Lower bounds straight from the definition, not from the formulas: one
 * bucket per value below 8, then every [2^k, 2^(k+1)) cut into 8 equal
 * parts.
 */
static uint64_t ref_lower[KP_HIST_BUCKETS];

static void ref_build(void)
{
	unsigned int i = 0, k, j;

	for (; i < 8; i++)
		ref_lower[i] = i;
	for (k = 3; i < KP_HIST_BUCKETS; k++)
		for (j = 0; j < 8 && i < KP_HIST_BUCKETS; j++)
			ref_lower[i++] = (1ULL << k) + j * (1ULL << (k - 3));
}

/* Bucket of @v by binary search over the reference bounds. */
static unsigned int ref_index(uint64_t v)
{
	unsigned int lo = 0, hi = KP_HIST_BUCKETS;

	while (hi - lo > 1) {
		unsigned int mid = (lo + hi) / 2;

		if (ref_lower[mid] <= v)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static void check_value(uint64_t v)
{
	unsigned int i = kp_hist_index(v), r = ref_index(v);

	EXPECT(i == r, "index(%llu) = %u, want %u", (unsigned long long)v, i, r);
	EXPECT(kp_hist_lower(i) <= v && v < kp_hist_upper(i),
	       "%llu outside bucket %u [%llu, %llu)", (unsigned long long)v, i,
	       (unsigned long long)kp_hist_lower(i),
	       (unsigned long long)kp_hist_upper(i));
}

static void test_bounds(void)
{
	unsigned int i;

	ref_build();
	for (i = 0; i < KP_HIST_BUCKETS; i++) {
		EXPECT(kp_hist_lower(i) == ref_lower[i], "lower(%u) = %llu, want %llu",
		       i, (unsigned long long)kp_hist_lower(i),
		       (unsigned long long)ref_lower[i]);
		if (i + 1 < KP_HIST_BUCKETS)
			EXPECT(kp_hist_upper(i) == ref_lower[i + 1],
			       "upper(%u) = %llu", i,
			       (unsigned long long)kp_hist_upper(i));
		EXPECT(kp_hist_index(kp_hist_lower(i)) == i, "index(lower(%u))", i);
	}
	EXPECT(kp_hist_upper(KP_HIST_LAST) == UINT64_MAX, "last bucket unbounded");
	EXPECT(kp_hist_lower(KP_HIST_LAST) == 15ULL << 34,
	       "last bucket starts at 15 << 34");
	/* The formulas of the uapi comment, literally. */
	for (i = 8; i < KP_HIST_BUCKETS; i++)
		EXPECT(kp_hist_lower(i) == (uint64_t)(8 + i % 8) << (i / 8 - 1),
		       "lower(%u) formula", i);
}

static void test_every_value_16(void)
{
	uint64_t v;

	ref_build();
	for (v = 0; v <= 1U << 16; v++)
		check_value(v);
}

static void test_random_40(void)
{
	uint64_t v;
	unsigned int n;

	ref_build();
	for (n = 0; n < 2000000; n++) {
		/* Spread over magnitudes: random bits, random length. */
		v = kp_test_rand() & ((1ULL << 40) - 1);
		v >>= kp_test_rand() % 40;
		check_value(v);
	}
	/* Around every power of two and bucket edge up to 2^40. */
	for (n = 1; n < 40; n++) {
		check_value((1ULL << n) - 1);
		check_value(1ULL << n);
		check_value((1ULL << n) + 1);
	}
}

static void test_overflow_bucket(void)
{
	EXPECT(kp_hist_index((1ULL << 38) - 1) == KP_HIST_LAST, "2^38 - 1");
	EXPECT(kp_hist_index(1ULL << 38) == KP_HIST_LAST, "2^38");
	EXPECT(kp_hist_index(1ULL << 40) == KP_HIST_LAST, "2^40");
	EXPECT(kp_hist_index(UINT64_MAX) == KP_HIST_LAST, "UINT64_MAX");
	EXPECT(kp_hist_index((15ULL << 34) - 1) == KP_HIST_LAST - 1,
	       "just below the last bucket");
	EXPECT(kp_hist_mid(KP_HIST_LAST) == kp_hist_lower(KP_HIST_LAST),
	       "the last bucket reports its lower bound");
}

static void test_exact_small(void)
{
	uint32_t h[KP_HIST_BUCKETS];
	uint64_t v;

	for (v = 0; v < 16; v++) {
		EXPECT(kp_hist_index(v) == v, "index(%llu)", (unsigned long long)v);
		EXPECT(kp_hist_mid(v) == v, "mid(%llu)", (unsigned long long)v);
		memset(h, 0, sizeof(h));
		h[kp_hist_index(v)] = 5;
		EXPECT(kp_hist_percentile(h, KP_HIST_BUCKETS, 50) == v,
		       "p50 of constant %llu", (unsigned long long)v);
	}
}

static void test_midpoint_error(void)
{
	uint64_t lo, hi, mid;
	unsigned int i;

	for (i = 0; i < KP_HIST_LAST; i++) {
		lo = kp_hist_lower(i);
		hi = kp_hist_upper(i) - 1;	/* largest value */
		mid = kp_hist_mid(i);
		EXPECT(lo <= mid && mid <= hi, "mid(%u) inside", i);
		if (i >= 8)
			EXPECT((hi - lo + 1) * 8 <= lo, "bucket %u width", i);
		if (lo)
			EXPECT((double)(mid - lo) / lo <= 0.0625 &&
			       (double)(hi - mid) / hi <= 0.0625,
			       "bucket %u midpoint error", i);
	}
}

static void test_rank(void)
{
	EXPECT(kp_hist_rank(0, 50) == 0, "empty");
	EXPECT(kp_hist_rank(10, 0) == 1, "p0");
	EXPECT(kp_hist_rank(10, -3) == 1, "negative p");
	EXPECT(kp_hist_rank(10, NAN) == 1, "NaN");
	EXPECT(kp_hist_rank(10, 100) == 10, "p100");
	EXPECT(kp_hist_rank(10, 250) == 10, "p250");
	EXPECT(kp_hist_rank(10, 50) == 5, "p50 of 10");
	EXPECT(kp_hist_rank(11, 50) == 6, "p50 of 11");
	EXPECT(kp_hist_rank(20, 95) == 19, "p95 of 20");
	EXPECT(kp_hist_rank(1000, 99.9) == 999, "p99.9 of 1000: %llu",
	       (unsigned long long)kp_hist_rank(1000, 99.9));
	EXPECT(kp_hist_rank(1001, 99.9) == 1000, "p99.9 of 1001");
	EXPECT(kp_hist_rank(100000, 99) == 99000, "p99 of 100000");
	EXPECT(kp_hist_rank(1, 99.9) == 1, "one value");
	EXPECT(kp_hist_rank(UINT64_MAX, 100) == UINT64_MAX, "huge");
}

static void test_merge(void)
{
	uint32_t a[KP_HIST_BUCKETS] = { 0 }, b[KP_HIST_BUCKETS] = { 0 };

	a[0] = 1;
	a[1] = UINT32_MAX - 1;
	a[2] = UINT32_MAX;
	b[0] = 2;
	b[1] = 5;
	b[2] = 1;
	b[KP_HIST_LAST] = 7;
	kp_hist_merge(a, b, KP_HIST_BUCKETS);
	EXPECT(a[0] == 3, "plain add");
	EXPECT(a[1] == UINT32_MAX, "saturates");
	EXPECT(a[2] == UINT32_MAX, "stays saturated");
	EXPECT(a[KP_HIST_LAST] == 7, "last bucket");
	EXPECT(kp_hist_total(a, KP_HIST_BUCKETS) == 3 + 2ULL * UINT32_MAX + 7,
	       "total in 64 bits");
}

static void test_percentile_empty(void)
{
	uint32_t h[KP_HIST_BUCKETS] = { 0 };

	EXPECT(kp_hist_percentile(h, KP_HIST_BUCKETS, 50) == 0, "empty: 0");
	EXPECT(kp_hist_percentile_clamped(h, KP_HIST_BUCKETS, 50, 5, 9) == 0,
	       "empty clamped: 0");
}

/* --- distributions against exact sorted percentiles ------------------ */

#define NVAL	200000

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double normal(void)
{
	double u1 = kp_test_uniform(), u2 = kp_test_uniform();

	if (u1 < 1e-300)
		u1 = 1e-300;
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* Percentiles as thousandths: exact nearest-rank in integers. */
static const unsigned int pmille[] = { 500, 950, 990, 999 };

static void check_distribution(const char *name, uint64_t *v, unsigned int n)
{
	static uint32_t h[KP_HIST_BUCKETS];
	uint64_t rank, exact, est, cl;
	double err, p;
	unsigned int i;

	memset(h, 0, sizeof(h));
	for (i = 0; i < n; i++)
		h[kp_hist_index(v[i])]++;
	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < sizeof(pmille) / sizeof(pmille[0]); i++) {
		rank = ((uint64_t)pmille[i] * n + 999) / 1000;
		exact = v[rank - 1];
		p = pmille[i] / 10.0;
		est = kp_hist_percentile(h, KP_HIST_BUCKETS, p);
		cl = kp_hist_percentile_clamped(h, KP_HIST_BUCKETS, p, v[0],
						v[n - 1]);
		err = exact ? fabs((double)est - exact) / exact : (double)est;
		EXPECT(err <= 0.07, "%s p%.1f: estimate %llu, exact %llu (%.2f%%)",
		       name, p, (unsigned long long)est,
		       (unsigned long long)exact, err * 100);
		err = exact ? fabs((double)cl - exact) / exact : (double)cl;
		EXPECT(err <= 0.07, "%s p%.1f clamped: %llu, exact %llu", name,
		       p, (unsigned long long)cl, (unsigned long long)exact);
	}
	EXPECT(kp_hist_percentile_clamped(h, KP_HIST_BUCKETS, 0, v[0],
					  v[n - 1]) >= v[0], "%s p0", name);
	EXPECT(kp_hist_percentile_clamped(h, KP_HIST_BUCKETS, 100, v[0],
					  v[n - 1]) <= v[n - 1], "%s p100", name);
}

static uint64_t *values(void)
{
	uint64_t *v = malloc(NVAL * sizeof(*v));

	EXPECT(v, "malloc");
	return v;
}

static void test_uniform(void)
{
	uint64_t *v = values();
	unsigned int i;

	if (!v)
		return;
	for (i = 0; i < NVAL; i++)	/* 1 us .. 10 ms */
		v[i] = 1000 + kp_test_rand() % 9999000;
	check_distribution("uniform", v, NVAL);
	for (i = 0; i < NVAL; i++)	/* 0 .. 100 ns: small, exact-ish */
		v[i] = kp_test_rand() % 101;
	check_distribution("uniform small", v, NVAL);
	free(v);
}

static void test_lognormal(void)
{
	uint64_t *v = values();
	unsigned int i;

	if (!v)
		return;
	for (i = 0; i < NVAL; i++)	/* median 1 ms, sigma 1.5 */
		v[i] = (uint64_t)exp(log(1e6) + 1.5 * normal());
	check_distribution("log-normal", v, NVAL);
	free(v);
}

static void test_bimodal(void)
{
	uint64_t *v = values();
	unsigned int i;

	if (!v)
		return;
	for (i = 0; i < NVAL; i++)	/* 97% ~200 us, 3% ~50 ms */
		v[i] = kp_test_rand() % 100 < 97 ?
		       180000 + kp_test_rand() % 40000 :
		       45000000 + kp_test_rand() % 10000000;
	check_distribution("bimodal", v, NVAL);
	free(v);
}

static void test_constant(void)
{
	static const uint64_t c[] = { 0, 7, 1234567, 999999999, 60ULL * 1000000000 };
	uint32_t h[KP_HIST_BUCKETS];
	uint64_t *v = values();
	unsigned int i, j;

	if (!v)
		return;
	for (j = 0; j < sizeof(c) / sizeof(c[0]); j++) {
		for (i = 0; i < NVAL; i++)
			v[i] = c[j];
		check_distribution("constant", v, NVAL);
		/* Clamped to [min, max] a constant comes out exact. */
		memset(h, 0, sizeof(h));
		h[kp_hist_index(c[j])] = 10;
		EXPECT(kp_hist_percentile_clamped(h, KP_HIST_BUCKETS, 99, c[j],
						  c[j]) == c[j],
		       "constant %llu exact when clamped", (unsigned long long)c[j]);
	}
	free(v);
}

const struct kp_test t_hist[] = {
	{ "hist: bucket bounds match the definition and the uapi formulas", test_bounds },
	{ "hist: index of every value 0..2^16 matches brute force", test_every_value_16 },
	{ "hist: index of 2M random values below 2^40 matches brute force", test_random_40 },
	{ "hist: values from 2^38 up land in the last bucket", test_overflow_bucket },
	{ "hist: values below 16 have exact buckets and estimates", test_exact_small },
	{ "hist: bucket width <= lower/8, midpoint within 6.25%", test_midpoint_error },
	{ "hist: nearest-rank edge cases", test_rank },
	{ "hist: merge adds and saturates", test_merge },
	{ "hist: empty histogram estimates 0", test_percentile_empty },
	{ "hist: p50/p95/p99/p99.9 of uniform data within 7%", test_uniform },
	{ "hist: p50/p95/p99/p99.9 of log-normal data within 7%", test_lognormal },
	{ "hist: p50/p95/p99/p99.9 of bimodal data within 7%", test_bimodal },
	{ "hist: p50/p95/p99/p99.9 of constant data within 7%", test_constant },
	{ NULL, NULL },
};
