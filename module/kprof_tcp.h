/* SPDX-License-Identifier: GPL-2.0 */
/* kprof_tcp.c: request/response latency from kprobes. */
#define KPROF_HEADER_UNIT KPROF_UNIT_TCP
#include "kprof_layer.h"

#ifndef _KPROF_TCP_H
#define _KPROF_TCP_H

#include <linux/types.h>

int kprof_tcp_init(void);
void kprof_tcp_exit(void);
int kprof_tcp_start(void);
void kprof_tcp_stop(void);
bool kprof_tcp_running(void);
bool kprof_tcp_start_possible(void);
u32 kprof_tcp_attach(void);
bool kprof_tcp_ftrace(void);
u32 kprof_tcp_inflight(void);
u32 kprof_tcp_inflight_closed(void);
u32 kprof_tcp_inflight_dead(void);
u64 kprof_tcp_hooks_missed(void);

/* kprof_tcp_tp.c: the health counters' tracepoints, or their stand-ins */
enum kprof_health;
struct sock;
void kprof_tcp_health(const struct sock *sk, enum kprof_health what, u32 n);
u64 kprof_tcp_health_missed(void);
void kprof_tcp_destroyed(const struct sock *sk);
/* kprof_tcp_connected()'s @err, beside 0 (established) and an errno */
#define KPROF_CONNECT_CLOSED	(-1)	/* closed without an error */
#define KPROF_CONNECT_FORGET	(-2)	/* left SYN_SENT otherwise */
void kprof_tcp_connected(const struct sock *sk, int err);
u32 kprof_tcp_tp_init(void);
u32 kprof_tcp_tp_arm(void);
void kprof_tcp_tp_disarm(u32 armed);
u64 kprof_tcp_tp_missed(void);
/* kprof_tcp.c: a kprobe made ready to be registered again */
struct kprobe;
struct kretprobe;
void kprof_kp_fresh(struct kprobe *p);
void kprof_krp_fresh(struct kretprobe *rp);

#endif /* _KPROF_TCP_H */
