/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof reader: the JSON builders.  Every object of docs/report-json.md
 * that more than one command prints is built here; json-c is visible
 * to output/ and the commands only.
 */
#ifndef KPROF_READER_REPORT_JSON_H
#define KPROF_READER_REPORT_JSON_H

#include <stdint.h>

#include <json-c/json.h>
#include <linux/kprof.h>

#include "names.h"
#include "row.h"

json_object *kp_json_u64(uint64_t v);

/*
 * A TCP row: stack_id, family, raddr, rport, role, count, sum_ns,
 * min_ns, max_ns, avg_ns, p50_ns, p95_ns, p99_ns, p999_ns.
 */
json_object *kp_json_tcp_row(const struct kprof_tcp_row *r);

/* A CPU row: stack_id, tgid, comm, samples. */
json_object *kp_json_cpu_row(uint32_t stack_id, uint32_t tgid,
			     const char *comm, uint64_t samples);

/* {start_ns, end_ns, duration_ns} */
json_object *kp_json_interval(uint64_t start_ns, uint64_t end_ns);

/* {inflight, rows, stacks, export, samples} */
json_object *kp_json_drops(const struct kp_drops *d);

/* The names of the bits of @v, and 0x... for the bits without one. */
json_object *kp_json_bits(uint64_t v, const struct kp_bitnames *n);

/* {"sendmsg": {"ns": N, "calls": N}, ...} for the named kinds. */
json_object *kp_json_cost(const __u64 *ns, const __u64 *calls);

/* The guard's counters of @st (or of @b minus @a when @a is not NULL). */
json_object *kp_json_guard(const struct kprof_stats *a,
			   const struct kprof_stats *b);

#endif
