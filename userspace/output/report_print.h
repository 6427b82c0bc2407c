/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof reader: `kprof report` as text or as one JSON object
 * (docs/report-json.md), from a recording and what the command knew
 * about its window.
 */
#ifndef KPROF_READER_REPORT_PRINT_H
#define KPROF_READER_REPORT_PRINT_H

#include <stddef.h>
#include <stdint.h>

#include <linux/kprof.h>

#include "analysis.h"
#include "rec.h"

struct kp_report {
	/* filled by the command */
	const struct kp_rec *rec;
	struct kprof_info info;	/* as the window ended */
	unsigned int run;	/* KPROF_RUN_* measured */
	unsigned int started;	/* of which the command started */
	uint64_t requested_ns;	/* -d */
	uint64_t threshold_ns;
	uint64_t top;		/* rows per list */
	uint32_t resets_first, resets_last;	/* stack_resets seen */
	int stopped;		/* a signal ended the window early */
	/* GET_STATS as the window began and ended; used when have_cost */
	struct kprof_stats st_first, st_last;
	int have_cost;
	int color;		/* bold section titles */
	/* filled by kp_report_analyze() */
	uint64_t basis;
	struct kp_func *funcs;
	size_t nr_funcs;
	struct kp_rcpu **cpu;	/* sorted */
	struct kp_endpoint *eps;
	size_t nr_eps;
};

/* The analysis of @r->rec.  0 or -ENOMEM (free with kp_report_free()). */
int kp_report_analyze(struct kp_report *r);
void kp_report_free(struct kp_report *r);

/* On stdout; the caller checks for write errors. */
void kp_report_text(const struct kp_report *r);
/* 0, or -1 when memory ran out. */
int kp_report_json(const struct kp_report *r);

#endif
