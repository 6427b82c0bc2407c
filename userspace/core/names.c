// SPDX-License-Identifier: GPL-2.0
/* kprof reader: names of the module's bit masks, see names.h. */
#include <inttypes.h>

#include <linux/kprof.h>

#include "names.h"

#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

static const char *const features[] = {
	"tcp-latency", "user-stacks", "ksyms", "cpu-sampling", "hw-cycles",
	"cgroup", "guard", "tcp-ftrace", "tcp-health", "tcp-connect",
};

static const char *const attach[] = {
	"tcp_sendmsg", "tcp_cleanup_rbuf", "__tcp_cleanup_rbuf",
	"tcp_recvmsg(ret)", "tcp_v4_destroy_sock", "tcp_close", "tcp_connect",
	"tcp_sendpage", "tcp_disconnect", "tcp:tcp_retransmit_skb",
	"tcp:tcp_send_reset", "tcp:tcp_receive_reset", "tcp:tcp_destroy_sock",
	"sock:inet_sock_set_state", "__tcp_retransmit_skb(ret)",
	"tcp_send_reset", "tcp_reset", "tcp_set_state",
};

static const char *const run[] = {
	"tcp", "cpu",
};

const struct kp_bitnames kp_feature_names = { features, ARRAY_LEN(features) };
const struct kp_bitnames kp_attach_names = { attach, ARRAY_LEN(attach) };
const struct kp_bitnames kp_run_names = { run, ARRAY_LEN(run) };

/* The bits of @v that have no name. */
uint64_t kp_bits_unnamed(uint64_t v, const struct kp_bitnames *n)
{
	return n->nr < 64 ? v >> n->nr << n->nr : 0;
}

void kp_print_bits(FILE *out, uint64_t v, const struct kp_bitnames *n)
{
	unsigned int i;

	if (!v)
		fprintf(out, " none");
	for (i = 0; i < n->nr; i++)
		if (v & (1ULL << i))
			fprintf(out, " %s", n->names[i]);
	if (kp_bits_unnamed(v, n))
		fprintf(out, " 0x%" PRIx64, kp_bits_unnamed(v, n));
}

const char *kp_endpoints_name(uint32_t mode)
{
	switch (mode) {
	case KPROF_ENDPOINTS_FULL:
		return "full";
	case KPROF_ENDPOINTS_PREFIX:
		return "prefix";
	case KPROF_ENDPOINTS_HASH:
		return "hash";
	}
	return NULL;
}
