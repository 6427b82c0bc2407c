// SPDX-License-Identifier: GPL-2.0
/* Trial compile: tcp:tcp_send_reset of (sk, skb, reason), see kprof_compat_tracepoint.h. */
#include <linux/tracepoint.h>
#include <trace/events/tcp.h>

typedef void (*kprof_probe_t)(void *data, const struct sock *sk,
			      const struct sk_buff *skb,
			      const enum sk_rst_reason reason);

/* a negative array size, so no build, unless the probe's type matches */
typedef char kprof_probe_matches[__builtin_types_compatible_p(
	typeof(register_trace_tcp_send_reset), int (kprof_probe_t, void *)) ? 1 : -1];
