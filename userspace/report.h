/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof reader: what `top` and `record` both print: TCP row statistics,
 * role names, and the JSON objects for rows and intervals.
 */
#ifndef KPROF_READER_REPORT_H
#define KPROF_READER_REPORT_H

#include <stdint.h>

#include <json-c/json.h>
#include <linux/kprof.h>

/* "client", "server" or "unknown". */
const char *kp_role_name(unsigned int role);

struct kp_row_stats {
	uint64_t avg, p50, p95, p99, p999;
};

void kp_row_stats(const struct kprof_tcp_row *r, struct kp_row_stats *s);

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

struct kp_drops {
	uint64_t inflight, rows, stacks, export, samples;
};

/* {inflight, rows, stacks, export, samples} */
json_object *kp_json_drops(const struct kp_drops *d);

/* Names of the KPROF_FEAT_*, KPROF_ATTACH_* and KPROF_RUN_* bits. */
extern const char *const kp_feature_names[];
extern const char *const kp_attach_names[];
extern const char *const kp_run_names[];
extern const unsigned int kp_nr_feature_names, kp_nr_attach_names,
	kp_nr_run_names;

/* The names of the bits of @v; a bit without a name as "0x...". */
json_object *kp_json_bits(uint64_t v, const char *const *names,
			  unsigned int nr);

/* A process name from a 16-byte field that may lack its NUL. */
void kp_comm(char out[17], const char comm[16]);

#endif
