// SPDX-License-Identifier: GPL-2.0
/* Trial compile: tcp:tcp_destroy_sock of (sk), see kprof_compat_tracepoint.h. */
#include <linux/tracepoint.h>
#include <trace/events/tcp.h>

typedef void (*kprof_probe_t)(void *data, struct sock *sk);

/* a negative array size, so no build, unless the probe's type matches */
typedef char kprof_probe_matches[__builtin_types_compatible_p(
	typeof(register_trace_tcp_destroy_sock), int (kprof_probe_t, void *)) ? 1 : -1];
