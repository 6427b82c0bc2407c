// SPDX-License-Identifier: GPL-2.0
/* kprof reader: small shared helpers. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

static int progress;

void kp_err_progress(int on)
{
	progress = on;
}

void kp_err(const char *fmt, ...)
{
	va_list ap;

	if (progress)
		fputs("\r\033[K", stderr);
	fputs("kprof: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int kp_use_color(int no_color)
{
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");

	return isatty(STDOUT_FILENO) && !no_color && !(nc && *nc) &&
	       !(term && !strcmp(term, "dumb"));
}
