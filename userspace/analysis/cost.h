/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof reader: the module's own cost and its overhead guard (API 1.4),
 * from struct kprof_stats and KPROF_IOC_GET_CPU_COST, for text and JSON.
 */
#ifndef KPROF_READER_COST_H
#define KPROF_READER_COST_H

#include <stddef.h>
#include <stdint.h>

#include <linux/kprof.h>

#include "dev.h"

/* Total estimated handler time of @st, and its calls in *@calls. */
uint64_t kp_cost_total(const struct kprof_stats *st, uint64_t *calls);

/* "none", "no-stacks", "low-rate", "no-tcp", or "?". */
const char *kp_guard_level_name(unsigned int level);

/* A share in millionths as a percentage: "1%", "0.0123%". */
char *kp_fmt_ppm(char *buf, size_t len, uint64_t ppm);

/* "sendmsg", "recv", ... for KPROF_COST_*, NULL past the last */
const char *kp_cost_kind_name(unsigned int k);

#endif
