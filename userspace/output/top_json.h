/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KPROF_TOP_JSON_H
#define KPROF_TOP_JSON_H

#include <stdint.h>

#include "snapshot.h"
#include "stack.h"

/* Frames top shows under a row. */
#define KP_TOP_FRAMES	3

/* What top shows of an interval: its filtered rows, the top N first. */
struct kp_top_view {
	const struct kprof_tcp_row **rows;
	uint32_t nr_rows;
	uint32_t rows_shown;	/* the top N of @nr_rows */
	uint64_t rows_requests;	/* in all @nr_rows */
	const struct kprof_cpu_row **cpu;
	uint32_t nr_cpu;	/* all rows that passed the filter */
	uint32_t shown;		/* of which the top N are shown */
	uint64_t cpu_samples;	/* in all @nr_cpu rows */
};

/*
 * The interval as one JSON line on stdout; counters of what @run (the
 * session's KPROF_RUN_*) does not measure are 0, even when someone else's
 * tracing or sampling fills them.
 */
void kp_top_json(const struct kp_snapshot *snap, const struct kp_top_view *v,
		 struct kp_stacks *stacks, uint32_t run);

#endif
