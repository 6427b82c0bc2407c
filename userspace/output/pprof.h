/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof reader: a recording as gzip-compressed pprof profiles
 * (profile.proto).
 *
 * CPU profile: sample types samples/count and cpu/nanoseconds (samples x
 * period, period = 1e9 / sample rate), period type cpu/nanoseconds;
 * labels "comm" (string) and "pid" (number) on each sample.
 *
 * Latency profile: sample types requests/count and latency/nanoseconds
 * (the requests' summed latency), labels "endpoint" ("10.0.4.12:443",
 * "[::1]:8080") and "role" ("client", "server").
 *
 * Both: one Location per distinct address (user frames: per process;
 * return addresses as the address of the call, ip - 1), with the
 * Function found for it; user addresses in Mappings taken from the
 * processes' /proc/PID/maps with GNU build IDs where known; kernel
 * frames, which come as symbols only, at address 0 in a
 * "[kernel.kallsyms]" mapping; notes such as "[stack table full]" as
 * functions without a mapping.
 */
#ifndef KPROF_READER_PPROF_H
#define KPROF_READER_PPROF_H

#include <stdint.h>
#include <stdio.h>

#include "rec.h"

enum kp_pprof_kind {
	KP_PPROF_CPU,
	KP_PPROF_LATENCY,
};

struct kp_pprof_meta {
	int64_t time_nanos;	/* start, since the Unix epoch */
	uint32_t sample_hz;	/* CPU: the rate of the samples */
	const char *comment;	/* one line shown by pprof -comments */
};

/* Write @kind of @rec to @f.  0, or -ENOMEM / -EIO. */
int kp_pprof_write(FILE *f, const struct kp_rec *rec, enum kp_pprof_kind kind,
		   const struct kp_pprof_meta *meta);

#endif
