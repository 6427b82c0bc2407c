// SPDX-License-Identifier: GPL-2.0
/* top --json: an interval as one JSON object on a line (docs/report-json.md). */
#include <stdio.h>

#include <json-c/json.h>

#include "report_json.h"
#include "top_json.h"
#include "util.h"

/* "frames": the leaf-most KP_TOP_FRAMES, by @leaf: kernel first, else as
 * kp_stack_top() picks them. */
static void json_frames(struct kp_stacks *stacks,
			const struct kp_snapshot *snap, json_object *o,
			uint32_t id, int leaf, int with_proc)
{
	const char *frames[KP_TOP_FRAMES];
	struct kp_stack_info *si;
	json_object *fr;
	unsigned int i, n;

	if (!id)
		return;
	si = kp_stacks_get(stacks, id, snap);
	if (!si || si->err)
		return;
	if (with_proc) {
		json_object_object_add(o, "tgid", kp_json_u64(si->tgid));
		json_object_object_add(o, "comm",
				       json_object_new_string(si->comm));
	}
	fr = json_object_new_array();
	if (leaf)
		n = kp_stack_leaf(stacks, si, frames, KP_TOP_FRAMES);
	else
		n = kp_stack_top(stacks, si, frames, KP_TOP_FRAMES);
	for (i = 0; i < n; i++)
		json_object_array_add(fr, json_object_new_string(frames[i]));
	json_object_object_add(o, "frames", fr);
}

void kp_top_json(const struct kp_snapshot *snap, const struct kp_top_view *v,
		 struct kp_stacks *stacks, uint32_t run)
{
	int tcp_on = !!(run & KPROF_RUN_TCP);
	int cpu_on = !!(run & KPROF_RUN_CPU);
	const struct kp_drops d = {
		.inflight = tcp_on ? snap->drops_inflight : 0,
		.rows = tcp_on ? snap->drops_rows : 0,
		.stacks = snap->drops_stacks,
		.export = tcp_on ? snap->drops_export : 0,
		.samples = cpu_on ? snap->drops_samples : 0,
	};
	json_object *o = json_object_new_object(), *tcp, *cpu, *r;
	char comm[17];
	uint32_t i;

	json_object_object_add(o, "interval",
			       kp_json_interval(snap->start_ns, snap->end_ns));
	json_object_object_add(o, "generation", kp_json_u64(snap->generation));
	json_object_object_add(o, "requests",
			       kp_json_u64(tcp_on ? snap->requests : 0));
	json_object_object_add(o, "abandoned",
			       kp_json_u64(tcp_on ? snap->abandoned : 0));
	json_object_object_add(o, "samples_total",
			       kp_json_u64(cpu_on ? snap->samples : 0));
	json_object_object_add(o, "samples_idle",
			       kp_json_u64(cpu_on ? snap->samples_idle : 0));
	json_object_object_add(o, "sample_hz",
			       kp_json_u64(cpu_on ? snap->sample_hz : 0));
	json_object_object_add(o, "drops", kp_json_drops(&d));
	json_object_object_add(o, "cpu_rows", kp_json_u64(v->nr_cpu));
	json_object_object_add(o, "tcp_rows", kp_json_u64(v->nr_rows));
	cpu = json_object_new_array();
	for (i = 0; i < v->shown; i++) {
		kp_comm(comm, v->cpu[i]->comm);
		r = kp_json_cpu_row(v->cpu[i]->stack_id, v->cpu[i]->tgid, comm,
				    v->cpu[i]->samples);
		json_frames(stacks, snap, r, v->cpu[i]->stack_id, 1, 0);
		if (!json_object_object_get_ex(r, "frames", NULL))
			json_object_object_add(r, "frames",
					       json_object_new_array());
		json_object_array_add(cpu, r);
	}
	json_object_object_add(o, "cpu", cpu);
	tcp = json_object_new_array();
	for (i = 0; i < v->rows_shown; i++) {
		r = kp_json_tcp_row(v->rows[i]);
		json_frames(stacks, snap, r, v->rows[i]->stack_id, 0, 1);
		json_object_array_add(tcp, r);
	}
	json_object_object_add(o, "tcp", tcp);
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
}
