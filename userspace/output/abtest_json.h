/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KPROF_ABTEST_JSON_H
#define KPROF_ABTEST_JSON_H

#include <stdint.h>

#include "abtest.h"

/* @r, for @argv run after @warmup unmeasured rounds, as a JSON line. */
void kp_ab_json(char *const *argv, uint64_t warmup,
		const struct kp_ab_result *r);

#endif
