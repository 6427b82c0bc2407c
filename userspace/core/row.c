// SPDX-License-Identifier: GPL-2.0
/* kprof reader: shared output pieces, see report.h. */
#include <stdio.h>

#include "addr.h"
#include "hist.h"
#include "row.h"
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

void kp_comm(char out[17], const char comm[16])
{
	snprintf(out, 17, "%.*s", 16, comm);
	kp_text_sanitize(out);
}
