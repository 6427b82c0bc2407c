// SPDX-License-Identifier: GPL-2.0
/*
 * kprof reader: the module's own cost and its overhead guard.
 */
#include <stddef.h>
#include <stdio.h>

#include "cost.h"

static const char *const kinds[] = {
	[KPROF_COST_SENDMSG] = "sendmsg",
	[KPROF_COST_RECV] = "recv",
	[KPROF_COST_CONNECT] = "connect",
	[KPROF_COST_CLOSE] = "close",
	[KPROF_COST_SAMPLE] = "sample",
};

const char *kp_cost_kind_name(unsigned int k)
{
	return k < sizeof(kinds) / sizeof(kinds[0]) ? kinds[k] : NULL;
}

uint64_t kp_cost_total(const struct kprof_stats *st, uint64_t *calls)
{
	uint64_t ns = 0, n = 0;
	unsigned int k;

	for (k = 0; k < KPROF_COST_NR; k++) {
		ns += st->cost_ns[k];
		n += st->cost_calls[k];
	}
	if (calls)
		*calls = n;
	return ns;
}

const char *kp_guard_level_name(unsigned int level)
{
	static const char *const names[] = {
		"none", "no-stacks", "low-rate", "no-tcp",
	};

	return level < sizeof(names) / sizeof(names[0]) ? names[level] : "?";
}

char *kp_fmt_ppm(char *buf, size_t len, uint64_t ppm)
{
	if (ppm % 10000 == 0)
		snprintf(buf, len, "%llu%%", (unsigned long long)(ppm / 10000));
	else
		snprintf(buf, len, "%.4g%%", (double)ppm / 10000.0);
	return buf;
}

