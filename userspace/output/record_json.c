// SPDX-License-Identifier: GPL-2.0
/* record --format json: the window as one JSON object (docs/report-json.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <json-c/json.h>

#include "record_json.h"
#include "report_json.h"

/* "frames": every frame, leaf first; none for the pseudo stacks. */
static void json_frames(json_object *o, const struct kp_rstack *rs)
{
	json_object *fr = json_object_new_array();
	unsigned int i;

	for (i = 0; i < rs->nr; i++)
		if (rs->f[i].kind != KP_RF_PSEUDO)
			json_object_array_add(fr,
				json_object_new_string(rs->f[i].text));
	json_object_object_add(o, "frames", fr);
}

int kp_rec_json_write(FILE *f, const struct kp_rec *rec)
{
	const struct kp_drops d = {
		.inflight = rec->drops_inflight, .rows = rec->drops_rows,
		.stacks = rec->drops_stacks, .export = rec->drops_export,
		.samples = rec->drops_samples,
	};
	json_object *o, *cpu, *tcp, *row;
	struct kp_rcpu **cv;
	struct kp_rtcp **tv;
	const struct kp_rstack *rs;
	size_t i;
	int ret = 0;

	cv = kp_rec_cpu_sorted(rec);
	tv = kp_rec_tcp_sorted(rec);
	if (!cv || !tv) {
		free(cv);
		free(tv);
		return -ENOMEM;
	}
	o = json_object_new_object();
	json_object_object_add(o, "interval",
			       kp_json_interval(rec->start_ns, rec->end_ns));
	json_object_object_add(o, "intervals", kp_json_u64(rec->intervals));
	json_object_object_add(o, "requests", kp_json_u64(rec->requests));
	json_object_object_add(o, "abandoned", kp_json_u64(rec->abandoned));
	json_object_object_add(o, "samples_total", kp_json_u64(rec->samples));
	json_object_object_add(o, "samples_idle",
			       kp_json_u64(rec->samples_idle));
	json_object_object_add(o, "sample_hz", kp_json_u64(rec->sample_hz));
	json_object_object_add(o, "drops", kp_json_drops(&d));
	cpu = json_object_new_array();
	for (i = 0; i < rec->nr_cpu; i++) {
		rs = rec->stacks[cv[i]->stack];
		row = kp_json_cpu_row(rs->id, cv[i]->tgid, cv[i]->comm,
				      cv[i]->samples);
		json_frames(row, rs);
		json_object_array_add(cpu, row);
	}
	json_object_object_add(o, "cpu", cpu);
	tcp = json_object_new_array();
	for (i = 0; i < rec->nr_tcp; i++) {
		rs = rec->stacks[tv[i]->stack];
		row = kp_json_tcp_row(&tv[i]->row);
		if (rs->id && rs->f[0].kind != KP_RF_PSEUDO) {
			json_object_object_add(row, "tgid",
					       kp_json_u64(rs->tgid));
			json_object_object_add(row, "comm",
					       json_object_new_string(rs->comm));
			json_frames(row, rs);
		}
		json_object_array_add(tcp, row);
	}
	json_object_object_add(o, "tcp", tcp);
	if (fprintf(f, "%s\n",
		    json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN)) < 0)
		ret = -EIO;
	json_object_put(o);
	free(cv);
	free(tv);
	return ret;
}
