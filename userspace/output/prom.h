/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof reader: Prometheus text exposition (format 0.0.4) of what `top`
 * measured since it started, for node_exporter's textfile collector.
 *
 * Every interval is added to running totals, so each counter and
 * histogram is cumulative and monotonic since the reader started (a
 * restart of the reader is a counter reset, which Prometheus handles).
 * TCP rows are merged per (remote address, remote port, role): stack IDs
 * are not labels.  Past @max_series endpoint series, rows of new endpoints
 * are added to one "other" series per role (raddr="other", rport="other")
 * and counted in kprof_tcp_folded_rows_total.
 *
 * Histogram buckets: the module counts latency in log-linear buckets
 * (hist.h) that do not line up with the round le boundaries.  A module
 * bucket is counted under le only if its largest value is <= le, so a
 * bucket le="X" never counts a request slower than X, and may miss
 * requests in the one module bucket that straddles X (at most 1/9 below
 * X); those appear from the next le on.
 *
 * The formatting only reads a struct kp_prom and writes to a FILE, so
 * the tests feed it fixed inputs.
 */
#ifndef KPROF_READER_PROM_H
#define KPROF_READER_PROM_H

#include <stdint.h>
#include <stdio.h>

#include <linux/kprof.h>

#include "htab.h"
#include "snapshot.h"

/* The le boundaries, 100us to 10s, 1-2.5-5 per decade. */
#define KP_PROM_NR_LE		16

#define KP_PROM_DEFAULT_SERIES	500
#define KP_PROM_MAX_SERIES	100000

/* le boundary @i (< KP_PROM_NR_LE) in nanoseconds and as the label text. */
extern const uint64_t kp_prom_le_ns[KP_PROM_NR_LE];
extern const char *const kp_prom_le_text[KP_PROM_NR_LE];

/* struct kprof_tcp_row's health counters, in its order */
enum kp_prom_health {
	KP_PROM_RETX, KP_PROM_RTO, KP_PROM_RST_SENT, KP_PROM_RST_RECV,
	KP_PROM_AFTER_RETX,
	KP_PROM_CREFUSED, KP_PROM_CTIMEDOUT, KP_PROM_CFAILED, KP_PROM_HEALTH_NR
};

/* One latency histogram series: an endpoint and role, or "other". */
struct kp_prom_ep {
	uint16_t family;
	uint16_t rport;
	uint8_t raddr[16];	/* IPv4: first 4 bytes, the rest zero */
	uint8_t role;
	uint8_t other;		/* the series of endpoints past the cap */
	uint64_t count;
	uint64_t sum_ns;
	/*
	 * requests whose module bucket first fits under le[i];
	 * [KP_PROM_NR_LE]: only under +Inf
	 */
	uint64_t slot[KP_PROM_NR_LE + 1];
	/* TCP health (API 3.2), by enum kp_prom_health */
	uint64_t health[KP_PROM_HEALTH_NR];
};

struct kp_prom {
	/* kprof_info labels; borrowed strings */
	const char *version;		/* the reader's */
	const char *module_version;
	uint32_t api_major, api_minor;	/* the module's */
	uint32_t max_series;		/* endpoint series, "other" apart */

	uint64_t intervals;		/* added */
	uint64_t requests, abandoned;
	uint64_t samples_busy, samples_idle;
	uint64_t drops_inflight, drops_rows, drops_stacks, drops_export;
	uint64_t drops_samples;
	uint64_t folded_rows;		/* rows added to an "other" series */

	struct kp_prom_ep *eps;		/* endpoint and "other" series */
	size_t nr_eps, cap_eps;
	size_t nr_endpoints;		/* of which not "other" */
	struct kp_htab idx;
};

/* Empty totals, at most @max_series endpoint series. */
void kp_prom_init(struct kp_prom *p, uint32_t max_series);
void kp_prom_fini(struct kp_prom *p);

/*
 * Add one interval: its TCP rows and counters if @tcp_on, its sample
 * counters if @cpu_on (what is not measured stays 0, as in top's JSON;
 * stack drops count either way).  0 or -ENOMEM (the totals may then hold
 * part of the interval).
 */
int kp_prom_add(struct kp_prom *p, const struct kp_snapshot *snap,
		int tcp_on, int cpu_on);

/* Add one TCP row to its series.  0 or -ENOMEM. */
int kp_prom_add_row(struct kp_prom *p, const struct kprof_tcp_row *r);

/* @s as a label value: backslash, double quote and newline escaped. */
void kp_prom_escape(FILE *f, const char *s);

/*
 * The whole exposition: HELP and TYPE before each family, families in a
 * fixed order, series sorted, ending in a newline.  0 or -ENOMEM; write
 * errors are left in @f's error flag.
 */
int kp_prom_write(const struct kp_prom *p, FILE *f);

#endif
