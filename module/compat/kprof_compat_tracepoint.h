/* SPDX-License-Identifier: GPL-2.0 */
/* kprofmod compat: TCP's tracepoints, for the health counters and ends. */
#ifndef _KPROF_COMPAT_TRACEPOINT_H
#define _KPROF_COMPAT_TRACEPOINT_H

#include <linux/build_bug.h>
#include <linux/tracepoint.h>
#include "kprof_compat_version.h"

/*
 * tcp:tcp_retransmit_skb came with upstream commit e086101b150a ("tcp:
 * add a tracepoint for tcp retransmission"), v4.15, and tcp:tcp_send_reset
 * and tcp:tcp_receive_reset in the same release: on a kernel without them
 * (4.14) kprobes stand in (below).  Their probes' prototypes changed twice
 * since, and each form is a trial compile against the kernel's own
 * register_trace_<name>() (module/configure/tp_*.c), so a backport is
 * seen as what it is:
 * - tcp_send_reset gained the reset's reason (enum sk_rst_reason) with
 *   v6.10's "rstreason" series; the reason is not used here;
 * - tcp_retransmit_skb gained the transmit's error and, with it, fires for
 *   attempts that sent nothing (upstream "tcp: trace retransmit failures
 *   in tcp_retransmit_skb", 2025, between v6.12 and v7.2): only a
 *   segment handed to the IP layer counts, as before.  The kernel's
 *   TcpRetransSegs also counts the rare one whose local transmit failed
 *   (e.g. a full qdisc), counted before the transmit.
 *
 * The tracepoints are found by name with for_each_kernel_tracepoint(): a
 * module may not reference __tracepoint_<name> unless the kernel exports
 * it, and only tcp_send_reset's is.  Each probe below is checked against
 * its register_trace_<name>() at build time.
 */
/*
 * Each tracepoint whose probe matches none of the known forms (a future
 * change) is left out at build time: its counter stays 0, as on a kernel
 * without it.
 */
#define KPROF_HAVE_TP_RETRANSMIT_ANY \
	(KPROF_HAVE_TP_RETRANSMIT || KPROF_HAVE_TP_RETRANSMIT_ERR)
#define KPROF_HAVE_TP_SEND_RESET_ANY \
	(KPROF_HAVE_TP_SEND_RESET || KPROF_HAVE_TP_SEND_RESET_REASON)
/*
 * tcp:tcp_destroy_sock, the first call of tcp_v4_destroy_sock() (and so of
 * every TCP socket's destruction, IPv6 included), came with the same
 * series in v4.15; its prototype has not changed since.  A socket's end
 * through it is never missed, where a kprobe on tcp_v4_destroy_sock() is
 * when it hits while another kprobe's handler runs on the CPU (a softirq
 * that interrupts a kprobe on ftrace, whose handler runs with interrupts
 * on): see kprof_tcp.c.
 */
/*
 * sock:inet_sock_set_state, every change of an inet socket's state (old
 * and new), came with upstream commit 563e0bb0dc74 ("net: tracepoint:
 * replace tcp_set_state tracepoint with inet_sock_set_state
 * tracepoint"), v4.16; its prototype has not changed since.  It times
 * connects (KPROF_ROLE_CONNECT rows); on a kernel without it (4.14,
 * 4.15) a kprobe stands in (below).
 */
#define KPROF_HAVE_TCP_TRACEPOINTS \
	(KPROF_HAVE_TP_RETRANSMIT_ANY || KPROF_HAVE_TP_SEND_RESET_ANY || \
	 KPROF_HAVE_TP_RECEIVE_RESET || KPROF_HAVE_TP_DESTROY_SOCK || \
	 KPROF_HAVE_TP_SET_STATE)

/*
 * Where a tracepoint is missing, a kprobe stands in at the place upstream
 * put it (kprof_tcp_tp.c), on the kernels before it only: the handlers
 * follow those kernels' code (4.14's and 4.15's), and a later kernel
 * whose tracepoint matches no known form is a change to look at, not one
 * to guess around.  So each is the trial compile's "no such tracepoint"
 * and the version before the tracepoint came (a version test, as no
 * compile can tell which kernel's code a kprobe meets):
 * - __tcp_retransmit_skb()'s return (the retransmit tracepoint fires
 *   where it returns 0), before v4.15;
 * - tcp_send_active_reset() and tcp_v4_send_reset()/tcp_v6_send_reset()
 *   for a full socket and not in answer to a reset (where the send_reset
 *   tracepoint went), before v4.15;
 * - tcp_reset(), whose first line the receive_reset tracepoint became,
 *   before v4.15;
 * - tcp_set_state(), where sock:inet_sock_set_state (and v4.15's
 *   tcp:tcp_set_state) fires, with the old state still in sk_state,
 *   before v4.16.
 */
#define KPROF_KP_RETRANSMIT \
	(!KPROF_HAVE_TP_RETRANSMIT_ANY && KPROF_KERNEL_BEFORE(4, 15, 0))
#define KPROF_KP_SEND_RESET \
	(!KPROF_HAVE_TP_SEND_RESET_ANY && KPROF_KERNEL_BEFORE(4, 15, 0))
#define KPROF_KP_RECEIVE_RESET \
	(!KPROF_HAVE_TP_RECEIVE_RESET && KPROF_KERNEL_BEFORE(4, 15, 0))
#define KPROF_KP_SET_STATE \
	(!KPROF_HAVE_TP_SET_STATE && KPROF_KERNEL_BEFORE(4, 16, 0))
#define KPROF_KP_HEALTH \
	(KPROF_KP_RETRANSMIT || KPROF_KP_SEND_RESET || \
	 KPROF_KP_RECEIVE_RESET || KPROF_KP_SET_STATE)

#if KPROF_HAVE_TCP_TRACEPOINTS
#include <trace/events/tcp.h>
#endif
#if KPROF_HAVE_TP_SET_STATE
#include <trace/events/sock.h>
#endif

#if KPROF_HAVE_TP_RETRANSMIT_ERR
#define KPROF_TP_RETRANSMIT_PROTO \
	void *data, const struct sock *sk, const struct sk_buff *skb, int err
#define KPROF_TP_RETRANSMIT_SENT	(!err)
#else
#define KPROF_TP_RETRANSMIT_PROTO \
	void *data, const struct sock *sk, const struct sk_buff *skb
#define KPROF_TP_RETRANSMIT_SENT	true
#endif

#if KPROF_HAVE_TP_SEND_RESET_REASON
#define KPROF_TP_SEND_RESET_PROTO \
	void *data, const struct sock *sk, const struct sk_buff *skb, \
	const enum sk_rst_reason reason
#else
#define KPROF_TP_SEND_RESET_PROTO \
	void *data, const struct sock *sk, const struct sk_buff *skb
#endif

#define KPROF_TP_RECEIVE_RESET_PROTO	void *data, struct sock *sk
#define KPROF_TP_DESTROY_SOCK_PROTO	void *data, struct sock *sk
#define KPROF_TP_SET_STATE_PROTO \
	void *data, const struct sock *sk, const int oldstate, const int newstate

/*
 * A tracepoint called its probes with preemption disabled until the
 * SRCU-fast change to __DECLARE_TRACE() (upstream "tracing: Guard
 * __DECLARE_TRACE() use of __DO_TRACE_CALL() with SRCU-fast", after v6.12; in
 * Debian's 7.x): since, with preemption enabled, from process context
 * too (a close that sends a reset, a connect that fails).  A probe's work
 * writes this CPU's tables and nesting count and reads the configuration
 * under sched-RCU, so every probe disables preemption itself, on every
 * kernel: no trial compile can see how a tracepoint calls its probes, and
 * where they already run with it disabled this costs a count.
 */
#define KPROF_TP_BEGIN()	preempt_disable_notrace()
#define KPROF_TP_END()		preempt_enable_notrace()

/* In @probe: @probe is what register_trace_@name() takes, or no build. */
#define KPROF_TP_CHECK(name, probe)					\
	BUILD_BUG_ON(!__builtin_types_compatible_p(			\
		typeof(register_trace_##name),				\
		int (typeof(probe) *, void *)))

#endif /* _KPROF_COMPAT_TRACEPOINT_H */
