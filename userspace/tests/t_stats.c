// SPDX-License-Identifier: GPL-2.0
/* Tests: the statistics behind `kprof abtest` and `report`. */
#include <errno.h>
#include <math.h>
#include <stdint.h>

#include "stats.h"
#include "unit.h"

#define NEAR(a, b)	(fabs((a) - (b)) < 1e-12)

static void test_quantiles(void)
{
	double one[] = { 7 };
	double odd[] = { 5, 1, 3 };
	double even[] = { 4, 1, 3, 2 };
	double v[] = { 10, 20, 30, 40, 50 };

	EXPECT(kp_quantile(NULL, 0, 0.5) == 0, "empty");
	EXPECT(kp_quantile(one, 1, 0.5) == 7, "one value");
	EXPECT(kp_quantile(odd, 3, 0.5) == 3, "odd median");
	EXPECT(NEAR(kp_quantile(even, 4, 0.5), 2.5), "even median between 2 and 3");
	EXPECT(kp_quantile(v, 5, 0) == 10 && kp_quantile(v, 5, 1) == 50,
	       "ends");
	EXPECT(NEAR(kp_quantile(v, 5, 0.25), 20) &&
	       NEAR(kp_quantile(v, 5, 0.75), 40), "quartiles at ranks");
	EXPECT(NEAR(kp_quantile(v, 5, 0.1), 14), "interpolated: 10 + 0.4 * 10");
}

static void test_mad(void)
{
	double v[] = { 1, 1, 2, 2, 4, 6, 9 };	/* median 2; |d| 1 1 0 0 2 4 7 */
	double same[] = { 3, 3, 3 };

	EXPECT(kp_mad(v, 7) == 1, "MAD of a textbook sample is 1");
	EXPECT(kp_mad(same, 3) == 0, "no spread");
}

static void test_sign(void)
{
	EXPECT(kp_sign_test(0, 0) == 1, "no data");
	EXPECT(NEAR(kp_sign_test(10, 0), 2.0 / 1024), "10/10: p = 2/1024");
	EXPECT(NEAR(kp_sign_test(0, 10), 2.0 / 1024), "symmetric");
	EXPECT(NEAR(kp_sign_test(9, 1), 22.0 / 1024), "9/10: 2 * 11/1024");
	EXPECT(kp_sign_test(5, 5) == 1, "even split: p = 1, capped");
	EXPECT(NEAR(kp_sign_test(3, 0), 0.25), "3/3: 2/8");
	EXPECT(NEAR(kp_sign_test(60, 40), 0.05688793364098079), "60/40");
}

static void test_rank_corr(void)
{
	double x[12], y[12], rho, p, pmin = 1, pmax = 0;
	double a[] = { 1, 2, 3, 4, 5 }, b[] = { 2, 1, 4, 3, 5 };
	double tx[] = { 0, 0, 0, 1, 1, 2 }, ty[] = { 5, 6, 7, 8, 8, 9 };
	double flat[] = { 3, 3, 3, 3, 3 };
	unsigned int i, seed, hits = 0;

	/* 1 - 6 * sum(d^2) / (n (n^2 - 1)), d = (-1, 1, -1, 1, 0): 0.8 */
	EXPECT(!kp_rank_corr(a, b, 5, 999, &rho, &p) && NEAR(rho, 0.8),
	       "textbook rho: %g", rho);
	/* 120 orders; rho >= 0.8 in 1 (identity) + 4 (one adjacent swap) + ... */
	EXPECT(p > 0.03 && p < 0.15, "5 pairs at 0.8 are weak evidence: p %g", p);
	for (i = 0; i < 12; i++) {
		x[i] = i;
		y[i] = 100 + 3 * i * i;	/* monotonic, not linear */
	}
	EXPECT(!kp_rank_corr(x, y, 12, 1999, &rho, &p) && NEAR(rho, 1) &&
	       NEAR(p, 1.0 / 2000), "monotonic: rho %g, p %g", rho, p);
	EXPECT(!kp_rank_corr(x, y, 12, 1999, &rho, &pmin) && pmin == p,
	       "the same data gives the same p");
	for (i = 0; i < 12; i++)
		y[i] = -y[i];
	EXPECT(!kp_rank_corr(x, y, 12, 1999, &rho, &p) && NEAR(rho, -1) &&
	       p == 1, "opposite: rho %g, p %g", rho, p);
	/* ties: ranks x (2, 2, 2, 4.5, 4.5, 6), y (1, 2, 3, 4.5, 4.5, 6):
	 * centred, sxy 15, sxx 15, syy 17 */
	EXPECT(!kp_rank_corr(tx, ty, 6, 999, &rho, &p) &&
	       NEAR(rho, 15 / sqrt(15.0 * 17)), "ties averaged: %g", rho);
	EXPECT(kp_rank_corr(flat, a, 5, 99, &rho, &p) == -EDOM &&
	       isnan(rho) && isnan(p), "one side never changes");
	EXPECT(kp_rank_corr(a, b, 2, 99, &rho, &p) == -EDOM, "two pairs");
	/* unrelated data: p below 0.01 about one time in a hundred */
	pmin = 1;
	for (seed = 1; seed <= 200; seed++) {
		uint64_t r = seed * 0x9E3779B97F4A7C15ULL;

		for (i = 0; i < 12; i++) {
			r ^= r << 13;
			r ^= r >> 7;
			r ^= r << 17;
			x[i] = r % 7;
			y[i] = (r >> 20) % 1000;
		}
		if (kp_rank_corr(x, y, 12, 999, &rho, &p))
			continue;
		hits += p < 0.01;
		pmin = p < pmin ? p : pmin;
		pmax = p > pmax ? p : pmax;
	}
	EXPECT(hits <= 8, "unrelated: %u of 200 under 0.01", hits);
	EXPECT(pmax > 0.9 && pmin < 0.2, "p spread over [%g, %g]", pmin, pmax);
}

const struct kp_test t_stats[] = {
	{ "stats: quantiles (R type 7)", test_quantiles },
	{ "stats: median absolute deviation", test_mad },
	{ "stats: exact two-sided sign test", test_sign },
	{ "stats: rank correlation and its permutation test", test_rank_corr },
	{ NULL, NULL },
};
