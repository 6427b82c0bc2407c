// SPDX-License-Identifier: GPL-2.0
/*
 * TCP health from the kernel's tracepoints: retransmitted segments and
 * resets, per endpoint, beside the latency rows (kprof_tcp_health()); the
 * end of each connect (kprof_tcp_connected()); and each socket's end
 * (kprof_tcp_destroyed()), where the tracepoints are.  On the kernels
 * before them, kprobes at the same places stand in for the health and
 * connect ones (see kprof_compat_tracepoint.h; no stand-in is needed for
 * a socket's end, which kprof_tcp.c's kprobe sees).
 *
 * The probes are registered when TCP tracing starts and unregistered
 * when it stops, as the kprobes are: nothing of kprofmod is on the
 * tracepoints while it is stopped, and other tools' probes on the same
 * tracepoints run as before (a tracepoint calls every probe).  A probe
 * runs with preemption off, in any context (the retransmit timer's
 * softirq, a receive, a system call); it reads only the socket's
 * addresses and state, the segment count of the retransmitted skb's
 * control block and (a stand-in's) an incoming segment's TCP flags,
 * never data.
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

#include "compat/kprof_compat_kprobes.h"

/*
 * What each kind of event does, from a tracepoint's probe or the kprobe
 * standing in for it.  Any context (the retransmit timer's softirq, a
 * receive, a system call); each disables preemption itself, as a
 * tracepoint's probe may run with it enabled (KPROF_TP_BEGIN()).
 */
#if KPROF_HAVE_TP_RETRANSMIT_ANY || KPROF_KP_RETRANSMIT
/*
 * The socket is its owner's or its softirq's here (the retransmit paths
 * hold it), so its congestion state is stable: TCP_CA_Loss is the state a
 * retransmission timeout enters (tcp_enter_loss()), and every segment
 * retransmitted in it is recovery from that timeout, not fast recovery.
 */
static void notrace kprof_on_retransmit(const struct sock *sk,
					const struct sk_buff *skb)
{
	KPROF_TP_BEGIN();
	kprof_tcp_health(sk, KPROF_HEALTH_RETRANSMITS, tcp_skb_pcount(skb));
	if (inet_csk(sk)->icsk_ca_state == TCP_CA_Loss)
		kprof_tcp_health(sk, KPROF_HEALTH_RETRANSMITS_RTO,
				 tcp_skb_pcount(skb));
	KPROF_TP_END();
}
#endif

#if KPROF_HAVE_TP_SEND_RESET_ANY || KPROF_KP_SEND_RESET
/* A reset answering a segment may have no socket, or a time-wait one. */
static void notrace kprof_on_reset_sent(const struct sock *sk)
{
	if (!sk || !sk_fullsock(sk))
		return;
	KPROF_TP_BEGIN();
	kprof_tcp_health(sk, KPROF_HEALTH_RESETS_SENT, 1);
	KPROF_TP_END();
}
#endif

#if KPROF_HAVE_TP_RECEIVE_RESET || KPROF_KP_RECEIVE_RESET
static void notrace kprof_on_reset_received(const struct sock *sk)
{
	KPROF_TP_BEGIN();
	kprof_tcp_health(sk, KPROF_HEALTH_RESETS_RECEIVED, 1);
	KPROF_TP_END();
}
#endif

#if KPROF_HAVE_TP_SET_STATE || KPROF_KP_SET_STATE
/*
 * Every state change of every inet socket (DCCP, SCTP and MPTCP's too):
 * only a TCP socket's leaving SYN_SENT goes further.  A failed connect's
 * error is set before tcp_done() closes the socket (tcp_reset(),
 * tcp_write_err(), an ICMP error in tcp_v4_err()/tcp_v6_err(),
 * tcp_abort()), and is still 0 when the application closed, shut down
 * or disconnected it, or tcp_v4_connect() failed after the SYN_SENT.
 * A simultaneous open (SYN_SENT to SYN_RECV) forgets the start.
 */
static void notrace kprof_on_set_state(const struct sock *sk, int oldstate,
				       int newstate)
{
	int err;

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

#if KPROF_HAVE_TCP_TRACEPOINTS

#if KPROF_HAVE_TP_RETRANSMIT_ANY
static void notrace kprof_tp_retransmit(KPROF_TP_RETRANSMIT_PROTO)
{
	KPROF_TP_CHECK(tcp_retransmit_skb, kprof_tp_retransmit);
	if (KPROF_TP_RETRANSMIT_SENT)
		kprof_on_retransmit(sk, skb);
}
#endif

#if KPROF_HAVE_TP_SEND_RESET_ANY
static void notrace kprof_tp_send_reset(KPROF_TP_SEND_RESET_PROTO)
{
	KPROF_TP_CHECK(tcp_send_reset, kprof_tp_send_reset);
	kprof_on_reset_sent(sk);
}
#endif

#if KPROF_HAVE_TP_RECEIVE_RESET
static void notrace kprof_tp_receive_reset(KPROF_TP_RECEIVE_RESET_PROTO)
{
	KPROF_TP_CHECK(tcp_receive_reset, kprof_tp_receive_reset);
	kprof_on_reset_received(sk);
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
static void notrace kprof_tp_set_state(KPROF_TP_SET_STATE_PROTO)
{
	KPROF_TP_CHECK(inet_sock_set_state, kprof_tp_set_state);
	kprof_on_set_state(sk, oldstate, newstate);
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
static u32 kprof_tps_init(void)
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
 * Unregister what kprof_tps_arm() registered and wait until no probe of
 * ours runs.  Process context.
 */
static void kprof_tps_disarm(u32 armed)
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
static u32 kprof_tps_arm(void)
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

static u32 kprof_tps_init(void)
{
	if (!KPROF_KP_HEALTH)
		pr_info("no TCP tracepoints on this kernel: no health counters\n");
	return 0;
}

static u32 kprof_tps_arm(void)
{
	return 0;
}

static void kprof_tps_disarm(u32 armed)
{
}

#endif /* KPROF_HAVE_TCP_TRACEPOINTS */

#if KPROF_KP_HEALTH
/*
 * The kprobes standing in for missing tracepoints: registered when TCP
 * tracing starts and unregistered when it stops, with the others;
 * another tool's kprobe on the same function runs as before.  Their
 * handlers run with preemption off; they read the socket's state and
 * addresses, the retransmitted skb's segment count and an incoming
 * segment's TCP flags, never data.  A hit the kprobes core drops (another
 * kprobe's handler running on the CPU) is counted in their nmissed, and
 * so in hooks_missed.
 */
#if KPROF_KP_RETRANSMIT
struct kprof_rtx_call {
	const struct sock *sk;
	const struct sk_buff *skb;
};

/*
 * __tcp_retransmit_skb(sk, skb, segs): the skb is the one sent (split
 * to what the window takes before the transmit) and stays on the queue,
 * held by the socket's lock; 0 is returned where v4.15 put the
 * tracepoint, a segment handed to the IP layer.
 */
static int notrace kprof_kp_rtx_entry(struct kretprobe_instance *ri,
				      struct pt_regs *regs)
{
	struct kprof_rtx_call *c = (struct kprof_rtx_call *)ri->data;

	c->sk = (const struct sock *)kprof_probe_arg(regs, 0);
	c->skb = (const struct sk_buff *)kprof_probe_arg(regs, 1);
	return 0;
}

static int notrace kprof_kp_rtx_ret(struct kretprobe_instance *ri,
				    struct pt_regs *regs)
{
	const struct kprof_rtx_call *c = (const struct kprof_rtx_call *)ri->data;

	if ((int)regs_return_value(regs) == 0)
		kprof_on_retransmit(c->sk, c->skb);
	return 0;
}

static struct kretprobe kprof_krp_rtx = {
	.kp.symbol_name = "__tcp_retransmit_skb",
	.entry_handler = kprof_kp_rtx_entry,
	.handler = kprof_kp_rtx_ret,
	.data_size = sizeof(struct kprof_rtx_call),
	/*
	 * calls nest on a CPU (a retransmit from the backlog whose transmit
	 * runs softirqs that retransmit on another socket); the default is
	 * one instance per CPU
	 */
	.maxactive = 64,
};

/* registered at load's trial, and now */
static bool kprof_krp_rtx_found, kprof_krp_rtx_on;
#endif

#if KPROF_KP_SEND_RESET
/*
 * tcp_send_active_reset(sk, priority): a close or abort's reset.  v4.15's
 * tracepoint is its last line, not reached when the reset's skb cannot be
 * allocated; counted here at entry, as the kernel's OutRsts counts it.
 */
static int notrace kprof_kp_active_reset(struct kprobe *p,
					 struct pt_regs *regs)
{
	kprof_on_reset_sent((const struct sock *)kprof_probe_arg(regs, 0));
	return 0;
}

/*
 * tcp_v4_send_reset(sk, skb) and tcp_v6_send_reset(): a reset answering
 * @skb, which v4.15 counts only for a full socket (kprof_on_reset_sent())
 * and past "never send a reset in response to a reset": that check
 * reads @skb's TCP header, as the function's first line does.
 */
static int notrace kprof_kp_send_reset(struct kprobe *p, struct pt_regs *regs)
{
	const struct sock *sk = (const struct sock *)kprof_probe_arg(regs, 0);
	const struct sk_buff *skb =
		(const struct sk_buff *)kprof_probe_arg(regs, 1);

	if (sk && !tcp_hdr(skb)->rst)
		kprof_on_reset_sent(sk);
	return 0;
}

static struct kprobe kprof_kp_rst_active = {
	.symbol_name = "tcp_send_active_reset",
	.pre_handler = kprof_kp_active_reset,
};

static struct kprobe kprof_kp_rst_v4 = {
	.symbol_name = "tcp_v4_send_reset",
	.pre_handler = kprof_kp_send_reset,
};

#if IS_ENABLED(CONFIG_IPV6)
static struct kprobe kprof_kp_rst_v6 = {
	.symbol_name = "tcp_v6_send_reset",
	.pre_handler = kprof_kp_send_reset,
};
#endif
#endif

#if KPROF_KP_RECEIVE_RESET
/* tcp_reset(sk): v4.15's tcp:tcp_receive_reset is its first line */
static int notrace kprof_kp_reset(struct kprobe *p, struct pt_regs *regs)
{
	kprof_on_reset_received((const struct sock *)kprof_probe_arg(regs, 0));
	return 0;
}

static struct kprobe kprof_kp_rst_received = {
	.symbol_name = "tcp_reset",
	.pre_handler = kprof_kp_reset,
};
#endif

#if KPROF_KP_SET_STATE
/* tcp_set_state(sk, state), before it stores the state */
static int notrace kprof_kp_set_state(struct kprobe *p, struct pt_regs *regs)
{
	const struct sock *sk = (const struct sock *)kprof_probe_arg(regs, 0);

	kprof_on_set_state(sk, READ_ONCE(sk->sk_state),
			   (int)kprof_probe_arg(regs, 1));
	return 0;
}

static struct kprobe kprof_kp_state = {
	.symbol_name = "tcp_set_state",
	.pre_handler = kprof_kp_set_state,
};
#endif

static struct kprobe *const kprof_fb_kps[] = {
#if KPROF_KP_SEND_RESET
	&kprof_kp_rst_active,
	&kprof_kp_rst_v4,
#if IS_ENABLED(CONFIG_IPV6)
	&kprof_kp_rst_v6,
#endif
#endif
#if KPROF_KP_RECEIVE_RESET
	&kprof_kp_rst_received,
#endif
#if KPROF_KP_SET_STATE
	&kprof_kp_state,
#endif
};

static const u32 kprof_fb_bits[] = {
#if KPROF_KP_SEND_RESET
	KPROF_ATTACH_KP_SEND_RESET,
	KPROF_ATTACH_KP_SEND_RESET,
#if IS_ENABLED(CONFIG_IPV6)
	KPROF_ATTACH_KP_SEND_RESET,
#endif
#endif
#if KPROF_KP_RECEIVE_RESET
	KPROF_ATTACH_KP_RECEIVE_RESET,
#endif
#if KPROF_KP_SET_STATE
	KPROF_ATTACH_KP_SET_STATE,
#endif
};

/* kprof_fb_kps[i] registered at load's trial, and now */
static bool kprof_fb_found[ARRAY_SIZE(kprof_fb_kps)];
static bool kprof_fb_on[ARRAY_SIZE(kprof_fb_kps)];

/*
 * Which stand-ins can be registered here: a trial registration of each,
 * the counts it made dropped.  A function a build inlined into all its
 * callers has no symbol to probe: its counter stays 0, and the log says.
 * (One inlined into some callers only would miss those calls: on the
 * 4.14.67 tested, every call of each is a call.)  tcp_v6_send_reset() of
 * an IPv6 module loaded later is probed from kprofmod's next load.
 */
static u32 kprof_fbs_init(void)
{
	struct kprobe *kps[ARRAY_SIZE(kprof_fb_kps)];
	unsigned int i, n = 0;
	u32 bits = 0;

	BUILD_BUG_ON(ARRAY_SIZE(kprof_fb_kps) != ARRAY_SIZE(kprof_fb_bits));
	for (i = 0; i < ARRAY_SIZE(kprof_fb_kps); i++) {
		if (register_kprobe(kprof_fb_kps[i])) {
			pr_info("cannot probe %s: %s\n",
				kprof_fb_kps[i]->symbol_name,
				kprof_fb_bits[i] == KPROF_ATTACH_KP_SET_STATE ?
				"no connect rows" :
				"its TCP health counter stays 0");
			continue;
		}
		kps[n++] = kprof_fb_kps[i];
		kprof_fb_found[i] = true;
		bits |= kprof_fb_bits[i];
	}
	if (n)
		unregister_kprobes(kps, n);
	for (i = 0; i < ARRAY_SIZE(kprof_fb_kps); i++)
		kprof_fb_kps[i]->nmissed = 0;
#if KPROF_KP_RETRANSMIT
	if (!register_kretprobe(&kprof_krp_rtx)) {
		unregister_kretprobe(&kprof_krp_rtx);
		kprof_krp_rtx_found = true;
		bits |= KPROF_ATTACH_KP_RETRANSMIT;
	} else {
		pr_info("cannot probe %s: no retransmit counts\n",
			kprof_krp_rtx.kp.symbol_name);
	}
	kprof_krp_rtx.nmissed = 0;
	kprof_krp_rtx.kp.nmissed = 0;
#endif
	if (bits)
		pr_info("TCP health through kprobes (attach 0x%x): this kernel has no TCP tracepoints for it\n",
			bits);
	return bits;
}

/* Register the stand-ins found at load; the KPROF_ATTACH_KP_* registered. */
static u32 kprof_fbs_arm(void)
{
	unsigned int i;
	u32 armed = 0;
	int ret;

	for (i = 0; i < ARRAY_SIZE(kprof_fb_kps); i++) {
		if (!kprof_fb_found[i])
			continue;
		kprof_kp_fresh(kprof_fb_kps[i]);
		ret = register_kprobe(kprof_fb_kps[i]);
		if (ret) {
			pr_warn_ratelimited("cannot register on %s (%d)\n",
					    kprof_fb_kps[i]->symbol_name, ret);
			continue;
		}
		kprof_fb_on[i] = true;
		armed |= kprof_fb_bits[i];
	}
#if KPROF_KP_RETRANSMIT
	if (kprof_krp_rtx_found) {
		kprof_krp_fresh(&kprof_krp_rtx);
		ret = register_kretprobe(&kprof_krp_rtx);
		if (ret)
			pr_warn_ratelimited("cannot register on %s (%d)\n",
					    kprof_krp_rtx.kp.symbol_name, ret);
		kprof_krp_rtx_on = !ret;
		if (!ret)
			armed |= KPROF_ATTACH_KP_RETRANSMIT;
	}
#endif
	return armed;
}

/* Unregister them, one grace period for the kprobes.  Process context. */
static void kprof_fbs_disarm(void)
{
	struct kprobe *kps[ARRAY_SIZE(kprof_fb_kps)];
	unsigned int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(kprof_fb_kps); i++) {
		if (kprof_fb_on[i])
			kps[n++] = kprof_fb_kps[i];
		kprof_fb_on[i] = false;
	}
	if (n)
		unregister_kprobes(kps, n);
#if KPROF_KP_RETRANSMIT
	if (kprof_krp_rtx_on)
		unregister_kretprobe(&kprof_krp_rtx);
	kprof_krp_rtx_on = false;
#endif
}

/* The kprobes core's misses on them since their last registration. */
static u64 kprof_fbs_missed(void)
{
	unsigned int i;
	u64 n = 0;

	for (i = 0; i < ARRAY_SIZE(kprof_fb_kps); i++)
		n += READ_ONCE(kprof_fb_kps[i]->nmissed);
#if KPROF_KP_RETRANSMIT
	n += READ_ONCE(kprof_krp_rtx.nmissed) +
	     READ_ONCE(kprof_krp_rtx.kp.nmissed);
#endif
	return n;
}

#else /* !KPROF_KP_HEALTH */

static u32 kprof_fbs_init(void)
{
	return 0;
}

static u32 kprof_fbs_arm(void)
{
	return 0;
}

static void kprof_fbs_disarm(void)
{
}

static u64 kprof_fbs_missed(void)
{
	return 0;
}

#endif /* KPROF_KP_HEALTH */

/*
 * Which tracepoints this kernel has, and the stand-ins for those it has
 * not: KPROF_ATTACH_TP_* and KPROF_ATTACH_KP_* bits.
 */
u32 kprof_tcp_tp_init(void)
{
	return kprof_tps_init() | kprof_fbs_init();
}

/* Register them all; those registered (the same bits). */
u32 kprof_tcp_tp_arm(void)
{
	return kprof_tps_arm() | kprof_fbs_arm();
}

/*
 * Unregister what kprof_tcp_tp_arm() registered (@armed) and wait until
 * no probe or handler of ours runs.  Process context.
 */
void kprof_tcp_tp_disarm(u32 armed)
{
	kprof_tps_disarm(armed);
	kprof_fbs_disarm();
}

/* The kprobes core's misses on the stand-ins, see kprof_tcp_hooks_missed(). */
u64 kprof_tcp_tp_missed(void)
{
	return kprof_fbs_missed();
}
