// SPDX-License-Identifier: GPL-2.0
/* kprof reader: small-sample statistics, see stats.h. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
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

struct ranked {
	double v;
	size_t i;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* The ranks (1..n, ties averaged) of @n values into @rank; @tmp: n slots. */
static void ranks(const double *v, size_t n, double *rank, struct ranked *tmp)
{
	size_t i, j, k;

	for (i = 0; i < n; i++) {
		tmp[i].v = v[i];
		tmp[i].i = i;
	}
	qsort(tmp, n, sizeof(*tmp), cmp_ranked);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && tmp[j].v == tmp[i].v; j++)
			;
		/* positions i..j-1 share the mean of ranks i+1..j */
		for (k = i; k < j; k++)
			rank[tmp[k].i] = (double)(i + 1 + j) / 2;
	}
}

/* kp_rank_corr() stops after this many permutations at least as high. */
#define KP_CORR_EARLY	20

/* xorshift64*: a fixed sequence, so the same data gives the same p. */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

int kp_rank_corr(const double *x, const double *y, size_t n,
		 unsigned int perms, double *rho, double *p)
{
	double *rx, *ry, mean, sxx = 0, syy = 0, sxy = 0, obs;
	struct ranked *tmp;
	uint64_t seed = 0x9E3779B97F4A7C15ULL;
	unsigned int t, above = 0;
	size_t i;
	int ret = -EDOM;

	*rho = NAN;
	*p = NAN;
	if (n < 3)
		return -EDOM;
	rx = malloc(n * sizeof(*rx));
	ry = malloc(n * sizeof(*ry));
	tmp = malloc(n * sizeof(*tmp));
	if (!rx || !ry || !tmp) {
		ret = -ENOMEM;
		goto out;
	}
	ranks(x, n, rx, tmp);
	ranks(y, n, ry, tmp);
	mean = (double)(n + 1) / 2;
	for (i = 0; i < n; i++) {
		rx[i] -= mean;
		ry[i] -= mean;
		sxx += rx[i] * rx[i];
		syy += ry[i] * ry[i];
		sxy += rx[i] * ry[i];
	}
	if (sxx <= 0 || syy <= 0)
		goto out;	/* one of them never changed */
	*rho = sxy / sqrt(sxx * syy);
	/*
	 * Permuting one side keeps both sums of squares: only the sum of
	 * products changes.  A small tolerance counts ties as at least as
	 * high (rounding must not make the observed one look rarer).
	 */
	obs = sxy - 1e-9 * sqrt(sxx * syy);
	for (t = 0; t < perms; t++) {
		double s = 0;

		for (i = n - 1; i > 0; i--) {
			size_t j = next_rand(&seed) % (i + 1);
			double v = ry[i];

			ry[i] = ry[j];
			ry[j] = v;
		}
		for (i = 0; i < n; i++)
			s += rx[i] * ry[i];
		above += s >= obs;
		/*
		 * Besag and Clifford's sequential test: once enough
		 * permutations have done as well, p is h / t, and no
		 * further one can bring it under h / perms.
		 */
		if (above == KP_CORR_EARLY) {
			*p = (double)above / (t + 1);
			goto done;
		}
	}
	*p = (double)(above + 1) / (perms + 1);
done:
	ret = 0;
out:
	free(rx);
	free(ry);
	free(tmp);
	return ret;
}
