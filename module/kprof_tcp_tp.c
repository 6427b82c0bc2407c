// SPDX-License-Identifier: GPL-2.0
/*
 * TCP health from the kernel's tracepoints: retransmitted segments and
 * resets, per endpoint, beside the latency rows (kprof_tcp_health()); the
 * end of each connect (kprof_tcp_connected()); and each socket's end
 * (kprof_tcp_destroyed()), where the tracepoints are.
 *
 * The probes are registered when TCP tracing starts and unregistered
 * when it stops, as the kprobes are: nothing of kprofmod is on the
 * tracepoints while it is stopped, and other tools' probes on the same
 * tracepoints run as before (a tracepoint calls every probe).  A probe
 * runs with preemption off, in any context (the retransmit timer's
 * softirq, a receive, a system call); it reads only the socket's
 * addresses and state and the segment count of the retransmitted skb's
 * control block, never its data.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#define KPROF_UNIT KPROF_UNIT_TCP

#include <linux/kernel.h>
#include <linux/string.h>
#include <net/inet_connection_sock.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "kprof_agg.h"
#include "kprof_tcp.h"
#include "compat/kprof_compat_tracepoint.h"

#if KPROF_HAVE_TCP_TRACEPOINTS

#if KPROF_HAVE_TP_RETRANSMIT_ANY
/*
 * The socket is its owner's or its softirq's here (the retransmit paths
 * hold it), so its congestion state is stable: TCP_CA_Loss is the state a
 * retransmission timeout enters (tcp_enter_loss()), and every segment
 * retransmitted in it is recovery from that timeout, not fast recovery.
 */
static void notrace kprof_tp_retransmit(KPROF_TP_RETRANSMIT_PROTO)
{
	KPROF_TP_CHECK(tcp_retransmit_skb, kprof_tp_retransmit);
	if (!KPROF_TP_RETRANSMIT_SENT)
		return;
	KPROF_TP_BEGIN();
	kprof_tcp_health(sk, KPROF_HEALTH_RETRANSMITS, tcp_skb_pcount(skb));
	if (inet_csk(sk)->icsk_ca_state == TCP_CA_Loss)
		kprof_tcp_health(sk, KPROF_HEALTH_RETRANSMITS_RTO,
				 tcp_skb_pcount(skb));
	KPROF_TP_END();
}
#endif

#if KPROF_HAVE_TP_SEND_RESET_ANY
/* A reset answering a segment may have no socket, or a time-wait one. */
static void notrace kprof_tp_send_reset(KPROF_TP_SEND_RESET_PROTO)
{
	KPROF_TP_CHECK(tcp_send_reset, kprof_tp_send_reset);
	if (!sk || !sk_fullsock(sk))
		return;
	KPROF_TP_BEGIN();
	kprof_tcp_health(sk, KPROF_HEALTH_RESETS_SENT, 1);
	KPROF_TP_END();
}
#endif

#if KPROF_HAVE_TP_RECEIVE_RESET
static void notrace kprof_tp_receive_reset(KPROF_TP_RECEIVE_RESET_PROTO)
{
	KPROF_TP_CHECK(tcp_receive_reset, kprof_tp_receive_reset);
	KPROF_TP_BEGIN();
	kprof_tcp_health(sk, KPROF_HEALTH_RESETS_RECEIVED, 1);
	KPROF_TP_END();
}
#endif

#if KPROF_HAVE_TP_DESTROY_SOCK
static void notrace kprof_tp_destroy_sock(KPROF_TP_DESTROY_SOCK_PROTO)
{
	KPROF_TP_CHECK(tcp_destroy_sock, kprof_tp_destroy_sock);
	KPROF_TP_BEGIN();
	kprof_tcp_destroyed(sk);
	KPROF_TP_END();
}
#endif

#if KPROF_HAVE_TP_SET_STATE
/*
 * Every state change of every inet socket (DCCP, SCTP and MPTCP's too):
 * only a TCP socket's leaving SYN_SENT goes further.  A failed connect's
 * error is set before tcp_done() closes the socket (tcp_reset(),
 * tcp_write_err(), an ICMP error in tcp_v4_err()/tcp_v6_err(),
 * tcp_abort()), and is still 0 when the application closed, shut down
 * or disconnected it, or tcp_v4_connect() failed after the SYN_SENT.
 * A simultaneous open (SYN_SENT to SYN_RECV) forgets the start.
 */
static void notrace kprof_tp_set_state(KPROF_TP_SET_STATE_PROTO)
{
	int err;

	KPROF_TP_CHECK(inet_sock_set_state, kprof_tp_set_state);
	if (likely(oldstate != TCP_SYN_SENT) ||
	    sk->sk_protocol != IPPROTO_TCP)
		return;
	if (newstate == TCP_ESTABLISHED)
		err = 0;
	else if (newstate == TCP_CLOSE)
		err = READ_ONCE(sk->sk_err) ?: KPROF_CONNECT_CLOSED;
	else
		err = KPROF_CONNECT_FORGET;
	KPROF_TP_BEGIN();
	kprof_tcp_connected(sk, err);
	KPROF_TP_END();
}
#endif

static struct kprof_tp {
	const char *name;	/* system:name */
	void *probe;
	u32 bit;
	struct tracepoint *tp;
} kprof_tps[] = {
#if KPROF_HAVE_TP_RETRANSMIT_ANY
	{ "tcp:tcp_retransmit_skb", kprof_tp_retransmit,
	  KPROF_ATTACH_TP_RETRANSMIT },
#endif
#if KPROF_HAVE_TP_SEND_RESET_ANY
	{ "tcp:tcp_send_reset", kprof_tp_send_reset, KPROF_ATTACH_TP_SEND_RESET },
#endif
#if KPROF_HAVE_TP_RECEIVE_RESET
	{ "tcp:tcp_receive_reset", kprof_tp_receive_reset,
	  KPROF_ATTACH_TP_RECEIVE_RESET },
#endif
#if KPROF_HAVE_TP_DESTROY_SOCK
	{ "tcp:tcp_destroy_sock", kprof_tp_destroy_sock,
	  KPROF_ATTACH_TP_DESTROY_SOCK },
#endif
#if KPROF_HAVE_TP_SET_STATE
	{ "sock:inet_sock_set_state", kprof_tp_set_state,
	  KPROF_ATTACH_TP_SET_STATE },
#endif
};

static void kprof_tp_lookup(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kprof_tps); i++)
		if (!strcmp(tp->name, strchr(kprof_tps[i].name, ':') + 1))
			kprof_tps[i].tp = tp;
}

/* Which tracepoints this kernel has: KPROF_ATTACH_TP_* bits. */
u32 kprof_tcp_tp_init(void)
{
	unsigned int i;
	u32 bits = 0;

	for_each_kernel_tracepoint(kprof_tp_lookup, NULL);
	for (i = 0; i < ARRAY_SIZE(kprof_tps); i++) {
		if (kprof_tps[i].tp)
			bits |= kprof_tps[i].bit;
		else if (kprof_tps[i].bit == KPROF_ATTACH_TP_DESTROY_SOCK)
			pr_info("no tracepoint %s: sockets' ends through the kprobe only\n",
				kprof_tps[i].name);
		else if (kprof_tps[i].bit == KPROF_ATTACH_TP_SET_STATE)
			pr_info("no tracepoint %s: no connect rows\n",
				kprof_tps[i].name);
		else
			pr_info("no tracepoint %s: its health counter stays 0\n",
				kprof_tps[i].name);
	}
	return bits;
}

/*
 * Unregister what kprof_tcp_tp_arm() registered and wait until no probe
 * of ours runs.  Process context.
 */
void kprof_tcp_tp_disarm(u32 armed)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kprof_tps); i++)
		if ((armed & kprof_tps[i].bit) &&
		    tracepoint_probe_unregister(kprof_tps[i].tp,
						kprof_tps[i].probe, NULL))
			pr_warn("cannot unregister from %s\n",
				kprof_tps[i].name);
	if (armed)
		tracepoint_synchronize_unregister();
}

/* Register the probes of the tracepoints found; the ones registered. */
u32 kprof_tcp_tp_arm(void)
{
	unsigned int i;
	u32 armed = 0;
	int ret;

	for (i = 0; i < ARRAY_SIZE(kprof_tps); i++) {
		if (!kprof_tps[i].tp)
			continue;
		ret = tracepoint_probe_register(kprof_tps[i].tp,
						kprof_tps[i].probe, NULL);
		if (ret) {
			pr_warn_ratelimited("cannot register on %s (%d)\n",
					    kprof_tps[i].name, ret);
			continue;
		}
		armed |= kprof_tps[i].bit;
	}
	return armed;
}

#else /* !KPROF_HAVE_TCP_TRACEPOINTS */

u32 kprof_tcp_tp_init(void)
{
	pr_info("no TCP tracepoints on this kernel: no health counters\n");
	return 0;
}

u32 kprof_tcp_tp_arm(void)
{
	return 0;
}

void kprof_tcp_tp_disarm(u32 armed)
{
}

#endif
