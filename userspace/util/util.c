// SPDX-License-Identifier: GPL-2.0
/* kprof reader: small shared helpers. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
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

/* The length of the valid UTF-8 sequence at @s, 0 if none; *cp its value. */
static unsigned int utf8_seq(const unsigned char *s, unsigned int *cp)
{
	unsigned int n, i, c = s[0], min;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		c &= 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		c &= 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		c &= 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* the NUL ends it too */
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/*
 * Printable: not a C0 or C1 control or DEL, and not a character that
 * reorders or breaks what a terminal shows: the bidi embeddings,
 * overrides and isolates (U+202A-U+202E, U+2066-U+2069), the marks
 * (U+200E, U+200F, U+061C) and the line and paragraph separators
 * (U+2028, U+2029).
 */
static int printable(unsigned int cp)
{
	if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0))
		return 0;
	return !(cp == 0x061c || cp == 0x200e || cp == 0x200f ||
		 (cp >= 0x2028 && cp <= 0x202e) ||
		 (cp >= 0x2066 && cp <= 0x2069));
}

unsigned int kp_text_sanitize(char *s)
{
	unsigned char *p = (unsigned char *)s;
	unsigned int n, i, cp, bad = 0;

	while (*p) {
		n = utf8_seq(p, &cp);
		if (n && printable(cp)) {
			p += n;
			continue;
		}
		if (!n)
			n = 1;
		for (i = 0; i < n; i++)
			p[i] = '?';
		bad += n;
		p += n;
	}
	return bad;
}

unsigned int kp_term_cols(int fd)
{
	struct winsize ws;

	return isatty(fd) && !ioctl(fd, TIOCGWINSZ, &ws) ? ws.ws_col : 0;
}

int kp_grow(void **arr, size_t *cap, size_t n, size_t size)
{
	size_t c;
	void *p;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 16;
	p = realloc(*arr, c * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = c;
	return 0;
}
