/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof reader: what a TCP row means: its statistics and role, the drop
 * counters of an interval, a task's name.
 */
#ifndef KPROF_READER_ROW_H
#define KPROF_READER_ROW_H

#include <stdint.h>

#include <linux/kprof.h>

/* "client", "server" or "unknown". */
const char *kp_role_name(unsigned int role);

struct kp_row_stats {
	uint64_t avg, p50, p95, p99, p999;
};

void kp_row_stats(const struct kprof_tcp_row *r, struct kp_row_stats *s);

/*
 * A row's TCP health counters (API 3.2; 0 from an older module): does
 * @r have any, add @r's to @d, @d = @c - @p (a same-birth earlier copy).
 */
int kp_row_has_health(const struct kprof_tcp_row *r);
/* Connects that failed, any cause (API 4.0, KPROF_ROLE_CONNECT rows). */
uint64_t kp_row_connect_failures(const struct kprof_tcp_row *r);
void kp_row_health_add(struct kprof_tcp_row *d, const struct kprof_tcp_row *r);
void kp_row_health_sub(struct kprof_tcp_row *d, const struct kprof_tcp_row *c,
		       const struct kprof_tcp_row *p);

/* Same remote endpoint and role: family, address, port, role. */
int kp_row_same_endpoint(const struct kprof_tcp_row *a,
			 const struct kprof_tcp_row *b);
/* @h extended by what kp_row_same_endpoint() compares. */
uint64_t kp_row_endpoint_hash(const struct kprof_tcp_row *r, uint64_t h);
/*
 * Add @r into @d, a sum of rows: requests, time, extremes (a row without
 * requests has no minimum, whatever its min_ns), health counters and the
 * histogram (saturating).
 */
void kp_row_merge(struct kprof_tcp_row *d, const struct kprof_tcp_row *r);

struct kp_drops {
	uint64_t inflight, rows, stacks, export, samples;
};

/* A process name from a 16-byte field that may lack its NUL. */
void kp_comm(char out[17], const char comm[16]);

#endif
