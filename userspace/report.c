// SPDX-License-Identifier: GPL-2.0
/* kprof reader: shared output pieces, see report.h. */
#include <stdio.h>

#include "addr.h"
#include "hist.h"
#include "report.h"
#include "util.h"

#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

const char *kp_role_name(unsigned int role)
{
	switch (role) {
	case KPROF_ROLE_CLIENT:
		return "client";
	case KPROF_ROLE_SERVER:
		return "server";
	}
	return "unknown";
}

void kp_row_stats(const struct kprof_tcp_row *r, struct kp_row_stats *s)
{
	const uint32_t *h = r->hist;

	s->avg = r->count ? r->sum_ns / r->count : 0;
	s->p50 = kp_hist_percentile_clamped(h, KP_HIST_BUCKETS, 50, r->min_ns,
					    r->max_ns);
	s->p95 = kp_hist_percentile_clamped(h, KP_HIST_BUCKETS, 95, r->min_ns,
					    r->max_ns);
	s->p99 = kp_hist_percentile_clamped(h, KP_HIST_BUCKETS, 99, r->min_ns,
					    r->max_ns);
	s->p999 = kp_hist_percentile_clamped(h, KP_HIST_BUCKETS, 99.9,
					     r->min_ns, r->max_ns);
}

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
	json_object_object_add(o, "min_ns", kp_json_u64(r->min_ns));
	json_object_object_add(o, "max_ns", kp_json_u64(r->max_ns));
	json_object_object_add(o, "avg_ns", kp_json_u64(s.avg));
	json_object_object_add(o, "p50_ns", kp_json_u64(s.p50));
	json_object_object_add(o, "p95_ns", kp_json_u64(s.p95));
	json_object_object_add(o, "p99_ns", kp_json_u64(s.p99));
	json_object_object_add(o, "p999_ns", kp_json_u64(s.p999));
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

void kp_comm(char out[17], const char comm[16])
{
	snprintf(out, 17, "%.*s", 16, comm);
	kp_text_sanitize(out);
}
