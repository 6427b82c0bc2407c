/* SPDX-License-Identifier: GPL-2.0 */
/* kprof reader: small shared helpers. */
#ifndef KPROF_READER_UTIL_H
#define KPROF_READER_UTIL_H

/* Exit statuses: 1 runtime failure, 2 usage error. */
#define KP_EXIT_FAIL	1
#define KP_EXIT_USAGE	2

/* "kprof: <message>\n" on stderr. */
void kp_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * A progress line is (1) or is no longer (0) on the terminal at stderr:
 * kp_err() erases it first, and the next update draws it again.
 */
void kp_err_progress(int on);

/*
 * Colour on stdout: only on a terminal, not with @no_color, $NO_COLOR set
 * or TERM=dumb.
 */
int kp_use_color(int no_color);

#define KP_C_BOLD	"\033[1m"
#define KP_C_OFF	"\033[0m"

#endif
