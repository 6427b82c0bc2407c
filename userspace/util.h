/* SPDX-License-Identifier: GPL-2.0 */
/* kprof reader: small shared helpers. */
#ifndef KPROF_READER_UTIL_H
#define KPROF_READER_UTIL_H

/* Exit statuses: 1 runtime failure, 2 usage error. */
#define KP_EXIT_FAIL	1
#define KP_EXIT_USAGE	2

/* "kprof: <message>\n" on stderr. */
void kp_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
