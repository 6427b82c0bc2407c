/* SPDX-License-Identifier: GPL-2.0 */
/* kprof reader: parsing and printing durations. */
#ifndef KPROF_READER_UNITS_H
#define KPROF_READER_UNITS_H

#include <stddef.h>
#include <stdint.h>

#define KP_NSEC_PER_SEC	1000000000ULL

/*
 * A duration: a decimal number ("2", "2.5") with an optional unit ns, us,
 * ms or s; without one it is milliseconds.  Parsed exactly: "2.5s" is
 * 2500000000 ns, and anything finer than a nanosecond is refused.
 * Returns NULL and stores @ns, or a reason the text is invalid.
 */
const char *kp_parse_duration(const char *s, uint64_t *ns);

/* A plain decimal number of seconds ("1", "0.1"), exactly, as @ns. */
const char *kp_parse_seconds(const char *s, uint64_t *ns);

/* Room for any kp_fmt_duration() result. */
#define KP_DURATION_LEN	24

/*
 * @ns with three significant digits in the largest fitting unit: "850ns",
 * "1.25us", "12.5ms", "250ms", "2.50s", "1234s".  Returns @buf.
 */
char *kp_fmt_duration(char *buf, size_t len, uint64_t ns);

#endif
