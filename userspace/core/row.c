// SPDX-License-Identifier: GPL-2.0
/* kprof reader: shared output pieces, see report.h. */
#include <stdio.h>
#include <string.h>

#include "addr.h"
#include "hist.h"
#include "htab.h"
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
	case KPROF_ROLE_CONNECT:
		return "connect";
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

int kp_row_has_health(const struct kprof_tcp_row *r)
{
	return r->retransmits || r->retransmits_rto || r->resets_sent ||
	       r->resets_received || r->after_retransmit ||
	       kp_row_connect_failures(r);
}

uint64_t kp_row_connect_failures(const struct kprof_tcp_row *r)
{
	return r->connects_refused + r->connects_timedout + r->connects_failed;
}

void kp_row_health_add(struct kprof_tcp_row *d, const struct kprof_tcp_row *r)
{
	d->retransmits += r->retransmits;
	d->retransmits_rto += r->retransmits_rto;
	d->resets_sent += r->resets_sent;
	d->resets_received += r->resets_received;
	d->after_retransmit += r->after_retransmit;
	d->connects_refused += r->connects_refused;
	d->connects_timedout += r->connects_timedout;
	d->connects_failed += r->connects_failed;
}

void kp_row_health_sub(struct kprof_tcp_row *d, const struct kprof_tcp_row *c,
		       const struct kprof_tcp_row *p)
{
	d->retransmits = c->retransmits - p->retransmits;
	d->retransmits_rto = c->retransmits_rto - p->retransmits_rto;
	d->resets_sent = c->resets_sent - p->resets_sent;
	d->resets_received = c->resets_received - p->resets_received;
	d->after_retransmit = c->after_retransmit - p->after_retransmit;
	d->connects_refused = c->connects_refused - p->connects_refused;
	d->connects_timedout = c->connects_timedout - p->connects_timedout;
	d->connects_failed = c->connects_failed - p->connects_failed;
}

int kp_row_same_endpoint(const struct kprof_tcp_row *a,
			 const struct kprof_tcp_row *b)
{
	return a->family == b->family && a->rport == b->rport &&
	       a->role == b->role &&
	       !memcmp(a->raddr, b->raddr, sizeof(a->raddr));
}

uint64_t kp_row_endpoint_hash(const struct kprof_tcp_row *r, uint64_t h)
{
	h = kp_hash(&r->family, sizeof(r->family), h);
	h = kp_hash(&r->rport, sizeof(r->rport), h);
	h = kp_hash(r->raddr, sizeof(r->raddr), h);
	return kp_hash(&r->role, sizeof(r->role), h);
}

void kp_row_merge(struct kprof_tcp_row *d, const struct kprof_tcp_row *r)
{
	if (r->count && (!d->count || r->min_ns < d->min_ns))
		d->min_ns = r->min_ns;
	if (r->max_ns > d->max_ns)
		d->max_ns = r->max_ns;
	d->count += r->count;
	d->sum_ns += r->sum_ns;
	kp_row_health_add(d, r);
	kp_hist_merge(d->hist, r->hist, KP_HIST_BUCKETS);
}

void kp_comm(char out[17], const char comm[16])
{
	snprintf(out, 17, "%.*s", 16, comm);
	kp_text_sanitize(out);
}
