// SPDX-License-Identifier: GPL-2.0
/* Tests: the statistics behind `kprof abtest`. */
#include <math.h>

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

const struct kp_test t_stats[] = {
	{ "stats: quantiles (R type 7)", test_quantiles },
	{ "stats: median absolute deviation", test_mad },
	{ "stats: exact two-sided sign test", test_sign },
	{ NULL, NULL },
};
