// SPDX-License-Identifier: GPL-2.0
/* Trial compile: sock:inet_sock_set_state, see kprof_compat_tracepoint.h. */
#include <linux/tracepoint.h>
#include <trace/events/sock.h>

typedef void (*kprof_probe_t)(void *data, const struct sock *sk,
			      const int oldstate, const int newstate);

/* a negative array size, so no build, unless the probe's type matches */
typedef char kprof_probe_matches[__builtin_types_compatible_p(
	typeof(register_trace_inet_sock_set_state),
	int (kprof_probe_t, void *)) ? 1 : -1];
