/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof reader: small-sample statistics for A/B runs: medians, quartiles,
 * the median absolute deviation, the two-sided sign test, and a rank
 * correlation with its permutation test.
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

/*
 * Spearman's rank correlation of @n pairs (@x[i], @y[i]), ties given
 * their mean rank, into @rho (-1..1), and in @p the one-sided p-value of
 * a correlation at least that high when the two are unrelated, from
 * @perms random permutations of @y's ranks (a fixed sequence: the same
 * data gives the same p; its resolution is 1 / (perms + 1)), stopping
 * once 20 of them have correlated at least as high (then p = 20 / the
 * permutations tried: Besag and Clifford's sequential p-value, never
 * under 20 / @perms, so only a clearly unrelated pair stops early).  0; -EDOM
 * when it is undefined (n < 3, or one side never changes: @rho and @p
 * NaN); -ENOMEM.
 */
int kp_rank_corr(const double *x, const double *y, size_t n,
		 unsigned int perms, double *rho, double *p);

#endif
