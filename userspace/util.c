// SPDX-License-Identifier: GPL-2.0
/* kprof reader: small shared helpers. */
#include <stdarg.h>
#include <stdio.h>

#include "util.h"

void kp_err(const char *fmt, ...)
{
	va_list ap;

	fputs("kprof: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
