// SPDX-License-Identifier: GPL-2.0
/* kprof reader: small-sample statistics, see stats.h. */
#include <math.h>
#include <stdlib.h>

#include "stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double kp_quantile(double *v, size_t n, double q)
{
	double pos, frac;
	size_t lo;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	if (q <= 0)
		return v[0];
	if (q >= 1)
		return v[n - 1];
	pos = q * (double)(n - 1);
	lo = (size_t)pos;
	frac = pos - (double)lo;
	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + frac * (v[lo + 1] - v[lo]);
}

double kp_mad(double *v, size_t n)
{
	double med = kp_quantile(v, n, 0.5);
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = fabs(v[i] - med);
	return kp_quantile(v, n, 0.5);
}

double kp_sign_test(unsigned int pos, unsigned int neg)
{
	unsigned int n = pos + neg, k = pos < neg ? pos : neg, i;
	double p = 0, c = 1;	/* c = C(n, i) */

	if (!n)
		return 1;
	/* P(X <= k) for X ~ Binomial(n, 1/2), doubled. */
	for (i = 0; i <= k; i++) {
		p += c;
		c = c * (n - i) / (i + 1);
	}
	p = 2 * p * pow(0.5, n);
	return p > 1 ? 1 : p;
}
