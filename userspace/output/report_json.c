// SPDX-License-Identifier: GPL-2.0
/*
 * kprof reader: the JSON builders, the one place that knows the schema
 * documented in docs/report-json.md.  json-c is output/'s alone.
 */
#include <inttypes.h>
#include <stdio.h>

#include "addr.h"
#include "cost.h"
#include "names.h"
#include "report_json.h"
#include "row.h"

json_object *kp_json_u64(uint64_t v)
{
	return json_object_new_uint64(v);
}

json_object *kp_json_tcp_row(const struct kprof_tcp_row *r)
{
	json_object *o = json_object_new_object();
	char host[KP_ADDR_LEN];
	struct kp_row_stats s;
	const char *fam;

	kp_row_stats(r, &s);
	fam = kp_family_name(r->family);
	if (kp_addr_host(host, sizeof(host), r->family, r->raddr))
		host[0] = '\0';
	json_object_object_add(o, "stack_id", kp_json_u64(r->stack_id));
	json_object_object_add(o, "family",
			       json_object_new_string(fam ? fam : "unknown"));
	json_object_object_add(o, "raddr", json_object_new_string(host));
	json_object_object_add(o, "rport", kp_json_u64(r->rport));
	json_object_object_add(o, "role",
			       json_object_new_string(kp_role_name(r->role)));
	json_object_object_add(o, "count", kp_json_u64(r->count));
	json_object_object_add(o, "sum_ns", kp_json_u64(r->sum_ns));
	/* a row of health counters alone has no request, no latency */
	json_object_object_add(o, "min_ns",
			       kp_json_u64(r->count ? r->min_ns : 0));
	json_object_object_add(o, "max_ns", kp_json_u64(r->max_ns));
	json_object_object_add(o, "avg_ns", kp_json_u64(s.avg));
	json_object_object_add(o, "p50_ns", kp_json_u64(s.p50));
	json_object_object_add(o, "p95_ns", kp_json_u64(s.p95));
	json_object_object_add(o, "p99_ns", kp_json_u64(s.p99));
	json_object_object_add(o, "p999_ns", kp_json_u64(s.p999));
	json_object_object_add(o, "retransmits", kp_json_u64(r->retransmits));
	json_object_object_add(o, "retransmits_rto",
			       kp_json_u64(r->retransmits_rto));
	json_object_object_add(o, "resets_sent", kp_json_u64(r->resets_sent));
	json_object_object_add(o, "resets_received",
			       kp_json_u64(r->resets_received));
	json_object_object_add(o, "after_retransmit",
			       kp_json_u64(r->after_retransmit));
	/* a connect row's count is of connects, and it has failures */
	if (r->role == KPROF_ROLE_CONNECT) {
		json_object_object_add(o, "connects_refused",
				       kp_json_u64(r->connects_refused));
		json_object_object_add(o, "connects_timedout",
				       kp_json_u64(r->connects_timedout));
		json_object_object_add(o, "connects_failed",
				       kp_json_u64(r->connects_failed));
	}
	return o;
}

json_object *kp_json_cpu_row(uint32_t stack_id, uint32_t tgid,
			     const char *comm, uint64_t samples)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "stack_id", kp_json_u64(stack_id));
	json_object_object_add(o, "tgid", kp_json_u64(tgid));
	json_object_object_add(o, "comm", json_object_new_string(comm));
	json_object_object_add(o, "samples", kp_json_u64(samples));
	return o;
}

json_object *kp_json_interval(uint64_t start_ns, uint64_t end_ns)
{
	json_object *iv = json_object_new_object();

	json_object_object_add(iv, "start_ns", kp_json_u64(start_ns));
	json_object_object_add(iv, "end_ns", kp_json_u64(end_ns));
	json_object_object_add(iv, "duration_ns",
			       kp_json_u64(end_ns > start_ns ?
					   end_ns - start_ns : 0));
	return iv;
}

json_object *kp_json_drops(const struct kp_drops *d)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "inflight", kp_json_u64(d->inflight));
	json_object_object_add(o, "rows", kp_json_u64(d->rows));
	json_object_object_add(o, "stacks", kp_json_u64(d->stacks));
	json_object_object_add(o, "export", kp_json_u64(d->export));
	json_object_object_add(o, "samples", kp_json_u64(d->samples));
	return o;
}

json_object *kp_json_bits(uint64_t v, const struct kp_bitnames *n)
{
	json_object *a = json_object_new_array();
	char hex[24];
	unsigned int i;

	for (i = 0; i < n->nr; i++)
		if (v & (1ULL << i))
			json_object_array_add(a,
					      json_object_new_string(n->names[i]));
	if (kp_bits_unnamed(v, n)) {
		snprintf(hex, sizeof(hex), "0x%" PRIx64, kp_bits_unnamed(v, n));
		json_object_array_add(a, json_object_new_string(hex));
	}
	return a;
}

json_object *kp_json_cost(const __u64 *ns, const __u64 *calls)
{
	json_object *o = json_object_new_object();
	unsigned int k;

	for (k = 0; kp_cost_kind_name(k); k++) {
		json_object *x = json_object_new_object();

		json_object_object_add(x, "ns", json_object_new_uint64(ns[k]));
		json_object_object_add(x, "calls",
				       json_object_new_uint64(calls[k]));
		json_object_object_add(o, kp_cost_kind_name(k), x);
	}
	return o;
}

json_object *kp_json_guard(const struct kprof_stats *a,
			   const struct kprof_stats *b)
{
	static const struct kprof_stats zero;
	json_object *o = json_object_new_object(), *s;
	unsigned int i;

	if (!a)
		a = &zero;
	json_object_object_add(o, "budget_ppm",
			       json_object_new_uint64(b->budget_ppm));
	json_object_object_add(o, "level", json_object_new_uint64(b->guard_level));
	json_object_object_add(o, "level_name",
			       json_object_new_string(kp_guard_level_name(b->guard_level)));
	json_object_object_add(o, "cpus_shedding",
			       json_object_new_uint64(b->guard_cpus));
	json_object_object_add(o, "load_ppm_max",
			       json_object_new_uint64(b->load_ppm));
	s = json_object_new_array();
	for (i = 0; i < 3; i++)
		json_object_array_add(s, json_object_new_uint64(b->guard_steps[i] -
								a->guard_steps[i]));
	json_object_object_add(o, "steps", s);
	json_object_object_add(o, "recoveries",
			       json_object_new_uint64(b->guard_recoveries -
						      a->guard_recoveries));
	json_object_object_add(o, "shed_stacks",
			       json_object_new_uint64(b->shed_stacks - a->shed_stacks));
	json_object_object_add(o, "shed_requests",
			       json_object_new_uint64(b->shed_requests -
						      a->shed_requests));
	return o;
}
