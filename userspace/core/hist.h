/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof reader: the log-linear latency histogram of uapi's KPROF_HIST_*
 * comment.  Buckets below 2^KPROF_HIST_SUB_BITS (and, with 3 sub-bits, up
 * to 15) hold one value each, so estimates there are exact; above, a
 * bucket is at most 1/8 of its lower bound wide.
 */
#ifndef KPROF_READER_HIST_H
#define KPROF_READER_HIST_H

#include <stdint.h>

#include <linux/kprof.h>

#define KP_HIST_BUCKETS	KPROF_HIST_BUCKETS
#define KP_HIST_LAST	(KPROF_HIST_BUCKETS - 1)

/* Bucket of value @v; everything past the last bucket lands in it. */
unsigned int kp_hist_index(uint64_t v);

/* Smallest value of bucket @i (i < KP_HIST_BUCKETS). */
uint64_t kp_hist_lower(unsigned int i);

/*
 * One past the largest value of bucket @i; UINT64_MAX for the last bucket,
 * which is unbounded.
 */
uint64_t kp_hist_upper(unsigned int i);

/*
 * The value reported for bucket @i: its midpoint, lower + width / 2 (the
 * value itself for one-value buckets); the last bucket reports its lower
 * bound.
 */
uint64_t kp_hist_mid(unsigned int i);

/* Sum of @n buckets. */
uint64_t kp_hist_total(const uint32_t *hist, unsigned int n);

/*
 * 1-based rank of the @p-th percentile (p in [0, 100]) among @total
 * sorted values, nearest-rank: ceil(p / 100 * total), at least 1.
 * 0 when @total is 0.
 */
uint64_t kp_hist_rank(uint64_t total, double p);

/*
 * Estimate of the @p-th percentile (p in [0, 100], clamped) of the values
 * counted in @hist (@n buckets, n <= KP_HIST_BUCKETS): kp_hist_mid() of
 * the bucket holding the kp_hist_rank()-th smallest value.  Returns 0 for
 * an empty histogram.
 */
uint64_t kp_hist_percentile(const uint32_t *hist, unsigned int n, double p);

/*
 * As kp_hist_percentile(), clamped to the exact [@min, @max] of the same
 * values when known (min <= max): a bucket midpoint may lie outside them.
 */
uint64_t kp_hist_percentile_clamped(const uint32_t *hist, unsigned int n,
				    double p, uint64_t min, uint64_t max);

/* dst[i] += src[i] for @n buckets, saturating at UINT32_MAX. */
void kp_hist_merge(uint32_t *dst, const uint32_t *src, unsigned int n);

#endif
