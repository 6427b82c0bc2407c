/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof reader: per-endpoint time series over a recording's intervals.
 * For each (family, address, port, role), one point per interval: the
 * requests (connects, for a connect row) that completed in it, their
 * 99th percentile, and the endpoint's error signals in it: retransmitted
 * segments, resets sent and received, failed connects.  `report` asks of
 * them whether an endpoint's latency and errors move together.
 *
 * Bounded: at most KP_SERIES_POINTS points per endpoint (past that, each
 * point comes to cover twice as many intervals: counts and errors are
 * added, the percentile is the larger of the two) and KP_SERIES_MAX
 * endpoints (those past it are counted in kp_series_set.untracked).
 */
#ifndef KPROF_READER_SERIES_H
#define KPROF_READER_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include <linux/kprof.h>

#include "htab.h"

#define KP_SERIES_POINTS	256
#define KP_SERIES_MAX		1024

struct kp_spoint {
	uint32_t count;		/* requests completed */
	uint32_t errors;	/* retransmits + resets + failed connects */
	uint64_t p99_ns;	/* of those requests; 0 when count is 0 */
};

struct kp_series {
	/* the endpoint: family, raddr, rport and role; nothing else */
	uint16_t family;
	uint16_t rport;
	uint8_t raddr[16];
	uint8_t role;
	/* points[i] covers intervals [i * span, (i + 1) * span) */
	struct kp_spoint *points;
	int32_t acc;		/* its scratch row in the interval, -1: none */
};

struct kp_series_set {
	struct kp_series *s;
	size_t nr, cap;
	struct kp_htab idx;
	uint64_t intervals;	/* added so far */
	uint32_t span;		/* intervals per point: 1, 2, 4, ... */
	uint64_t untracked;	/* endpoints past KP_SERIES_MAX */
	/* one interval's rows added up per endpoint */
	struct kprof_tcp_row *scratch;
	size_t nr_scratch, cap_scratch;
};

/* The points in use: intervals / span, rounded up. */
size_t kp_series_points(const struct kp_series_set *set);

/* The error signals of a row (of one endpoint, or a sum of them). */
uint64_t kp_series_errors(const struct kprof_tcp_row *r);

/* Add one interval's TCP rows.  0 or -ENOMEM (the set stays usable). */
int kp_series_add(struct kp_series_set *set, const struct kprof_tcp_row *rows,
		  size_t nr);

/* The series of @r's endpoint (family, raddr, rport, role), or NULL. */
const struct kp_series *kp_series_find(const struct kp_series_set *set,
				       const struct kprof_tcp_row *r);

void kp_series_fini(struct kp_series_set *set);

#endif
