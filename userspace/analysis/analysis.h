/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof reader: the arithmetic of `kprof report`, on a recording (rec.h)
 * or plain numbers; no I/O.  Shares, Amdahl ceilings, percentiles from a
 * histogram, hot functions aggregated over stacks, and TCP rows added up
 * per remote endpoint.
 */
#ifndef KPROF_READER_ANALYSIS_H
#define KPROF_READER_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include <linux/kprof.h>

#include "rec.h"

/* @n / @total; 0 when @total is 0. */
double kp_share(uint64_t n, uint64_t total);

/*
 * Amdahl's ceiling for code that takes share @p (0..1) of the time: the
 * speed-up of the whole if that code took no time, 1 / (1 - p).  1 for
 * p <= 0 (and NaN), INFINITY for p >= 1.
 */
double kp_amdahl(double p);

/*
 * The @p-th percentile (0..100) of a row's latencies: the histogram
 * estimate clamped to the row's exact [min, max]; 0 for no requests.
 */
uint64_t kp_row_percentile(const struct kprof_tcp_row *r, double p);

/*
 * Samples whose shares the hot lists give: the samples of process @tgid
 * (its CPU rows) when the recording is limited to one, else all busy
 * (not idle) samples.
 */
uint64_t kp_cpu_basis(const struct kp_rec *rec);

/* --- hot functions ----------------------------------------------------- */

struct kp_func {
	const char *name;	/* kp_rframe.func, borrowed from the recording */
	uint8_t kind;		/* enum kp_rframe_kind */
	uint64_t self;		/* samples with it as the leaf frame */
	uint64_t total;		/* samples with it anywhere, once per stack */
};

/*
 * The functions of the recording's CPU rows, one per (kind, name): a
 * function of the same name in two programs is one.  Sorted by self
 * samples, then total samples (both descending), then kind and name.
 * Stack ID 0 counts as the pseudo function "[stack table full]".
 * Returns 0 with a new array to free in @out (NULL when none), or
 * -ENOMEM.
 */
int kp_hot_funcs(const struct kp_rec *rec, struct kp_func **out, size_t *nr);

/* --- remote endpoints -------------------------------------------------- */

/*
 * Do an endpoint's latency and errors move together?  Over the intervals
 * in which its requests completed (the points of its series), Spearman's
 * rank correlation of each interval's p99 with its errors (retransmitted
 * segments, resets, failed connects), and the permutation test's
 * one-sided p-value.  "Together" when that correlation is positive, its
 * p-value under KP_TOGETHER_ALPHA and there were at least
 * KP_TOGETHER_MIN_POINTS such intervals.
 */
#define KP_TOGETHER_MIN_POINTS	6
#define KP_TOGETHER_ALPHA	0.01
#define KP_TOGETHER_PERMS	1999

struct kp_together {
	uint32_t points;	/* intervals (points) with requests */
	uint32_t with_errors;	/* of which had errors */
	uint32_t span;		/* intervals per point */
	int tested;		/* rho and p computed (else both NaN) */
	double rho, p;
	int together;
};

/*
 * @s's verdict; a NULL @s (an endpoint the series did not keep) gives an
 * untested one.  0 or -ENOMEM.
 */
int kp_together(const struct kp_series_set *set, const struct kp_series *s,
		struct kp_together *t);

struct kp_endpoint {
	/* The rows of one (family, address, port, role) added up, histograms
	 * merged; stack_id 0. */
	struct kprof_tcp_row sum;
	uint64_t p50, p95, p99;
	uint64_t below;		/* requests under the threshold (stack ID 0) */
	/* Rows past the threshold (index in kp_rec.tcp), slowest first:
	 * by p99, then max, then count. */
	size_t *slow;
	size_t nr_slow;
	struct kp_together tog;
};

/*
 * The recording's TCP rows per remote endpoint and role, sorted by total
 * wait (sum_ns), then count, descending.  0 with a new array in @out
 * (free with kp_endpoints_free()), or -ENOMEM.
 */
int kp_endpoints(const struct kp_rec *rec, struct kp_endpoint **out,
		 size_t *nr);
void kp_endpoints_free(struct kp_endpoint *ep, size_t nr);

/*
 * Wait time of @sum_ns over a window of @window_ns: above 1 when requests
 * overlap.  0 for an empty window.
 */
double kp_window_share(uint64_t sum_ns, uint64_t window_ns);

#endif
