/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof reader: small-sample statistics for A/B runs: medians, quartiles,
 * the median absolute deviation, and the two-sided sign test.
 */
#ifndef KPROF_READER_STATS_H
#define KPROF_READER_STATS_H

#include <stddef.h>

/*
 * The @q quantile (0..1) of @n values, linearly interpolated between the
 * two nearest ranks (R type 7).  Sorts @v.  0 for n == 0.
 */
double kp_quantile(double *v, size_t n, double q);

/* The median absolute deviation from the median.  Reorders @v. */
double kp_mad(double *v, size_t n);

/*
 * Two-sided exact sign test: the probability, with no real difference,
 * of a split at least as uneven as @pos positive against @neg negative
 * differences (ties left out).  1 for no data.
 */
double kp_sign_test(unsigned int pos, unsigned int neg);

#endif
