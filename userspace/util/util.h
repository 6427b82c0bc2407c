/* SPDX-License-Identifier: GPL-2.0 */
/* kprof reader: small shared helpers. */
#ifndef KPROF_READER_UTIL_H
#define KPROF_READER_UTIL_H

#include <stddef.h>

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

/* The columns of the terminal on @fd, 0 when it is none. */
unsigned int kp_term_cols(int fd);

/*
 * Make @s, a string other users shape (a comm, a symbol or file name),
 * safe to print and valid UTF-8, in place and at the same length: every
 * byte of a control character (C0, DEL, C1), of a bidi control or a line
 * or paragraph separator (they reorder or break what a terminal shows),
 * or of an invalid UTF-8 sequence (a stray or truncated byte, an overlong
 * form, a surrogate, above U+10FFFF) becomes '?', as ps(1) shows them.
 * Returns the number of bytes replaced.
 */
unsigned int kp_text_sanitize(char *s);

/*
 * Room for element @n of the array *@arr (elements of @size bytes,
 * capacity *@cap): when full, the capacity doubles (from 16).  0, or
 * -ENOMEM with the array as it was.
 */
int kp_grow(void **arr, size_t *cap, size_t n, size_t size);
#define KP_GROW(arr, n, cap)						\
	kp_grow((void **)&(arr), &(cap), (n), sizeof(*(arr)))

#define KP_C_BOLD	"\033[1m"
#define KP_C_OFF	"\033[0m"

#endif
