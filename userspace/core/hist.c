// SPDX-License-Identifier: GPL-2.0
/* kprof reader: latency histogram math, see hist.h and uapi's KPROF_HIST_*. */
#include <stdint.h>

#include "hist.h"

_Static_assert(KPROF_HIST_BUCKETS % (1U << KPROF_HIST_SUB_BITS) == 0,
	       "whole powers of two per histogram");
_Static_assert(KPROF_HIST_BUCKETS / (1U << KPROF_HIST_SUB_BITS) <= 64 - KPROF_HIST_SUB_BITS + 1,
	       "histogram bounds fit in 64 bits");

unsigned int kp_hist_index(uint64_t v)
{
	return kprof_hist_bucket(v);
}

uint64_t kp_hist_lower(unsigned int i)
{
	return kprof_hist_lower(i);
}

uint64_t kp_hist_upper(unsigned int i)
{
	if (i >= KP_HIST_LAST)
		return UINT64_MAX;
	return kp_hist_lower(i + 1);
}

uint64_t kp_hist_mid(unsigned int i)
{
	uint64_t lo = kp_hist_lower(i);

	if (i >= KP_HIST_LAST)
		return lo;
	return lo + (kp_hist_upper(i) - lo) / 2;
}

uint64_t kp_hist_total(const uint32_t *hist, unsigned int n)
{
	uint64_t total = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		total += hist[i];
	return total;
}

uint64_t kp_hist_rank(uint64_t total, double p)
{
	long double r;
	uint64_t rank;

	if (!total)
		return 0;
	if (!(p > 0))		/* also NaN */
		return 1;
	if (p >= 100)
		return total;
	/*
	 * ceil(p * total / 100), computed so that a product that is an
	 * integer up to rounding (99.9% of 1000) does not round up to the
	 * next rank.
	 */
	r = (long double)p * total / 100;
	rank = (uint64_t)r;
	if (r - rank > 1e-9L * r)
		rank++;
	if (rank < 1)
		rank = 1;
	return rank < total ? rank : total;
}

uint64_t kp_hist_percentile(const uint32_t *hist, unsigned int n, double p)
{
	uint64_t total = kp_hist_total(hist, n), rank, seen = 0;
	unsigned int i;

	if (!total)
		return 0;
	rank = kp_hist_rank(total, p);
	for (i = 0; i < n; i++) {
		seen += hist[i];
		if (seen >= rank)
			return kp_hist_mid(i);
	}
	return kp_hist_mid(n - 1);	/* not reached */
}

uint64_t kp_hist_percentile_clamped(const uint32_t *hist, unsigned int n,
				    double p, uint64_t min, uint64_t max)
{
	uint64_t v = kp_hist_percentile(hist, n, p);

	if (min > max || !kp_hist_total(hist, n))
		return v;
	if (v < min)
		return min;
	return v > max ? max : v;
}

void kp_hist_merge(uint32_t *dst, const uint32_t *src, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		dst[i] = src[i] > UINT32_MAX - dst[i] ? UINT32_MAX :
			 dst[i] + src[i];
}
