// SPDX-License-Identifier: GPL-2.0
/* kprof reader: option values, see opts.h. */
#include <stddef.h>

#include "opts.h"

/* Digits from @s up to @end (or the NUL) as a number in [min, max]. */
static const char *parse_uint_span(const char *s, const char *end,
				   uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	const char *p;

	if (s == end || !*s)
		return "not a number";
	for (p = s; p != end && *p; p++) {
		if (*p < '0' || *p > '9')
			return "not a number";
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, *p - '0', &v))
			return "out of range";
	}
	if (v < min || v > max)
		return "out of range";
	*out = v;
	return NULL;
}

const char *kp_parse_uint(const char *s, uint64_t min, uint64_t max,
			  uint64_t *out)
{
	return parse_uint_span(s, NULL, min, max, out);
}

const char *kp_parse_ports(const char *s, uint16_t *ports, unsigned int *nr,
			   unsigned int max)
{
	uint16_t list[256];	/* scratch: commit only if all of @s parses */
	unsigned int n = *nr, i;
	const char *p = s, *comma;
	uint64_t v;

	if (max > sizeof(list) / sizeof(list[0]))
		max = sizeof(list) / sizeof(list[0]);
	if (n > max)
		return "too many ports";
	for (i = 0; i < n; i++)
		list[i] = ports[i];
	for (;;) {
		for (comma = p; *comma && *comma != ','; comma++)
			;
		if (comma == p)
			return "empty port in list";
		if (parse_uint_span(p, comma, 1, 65535, &v))
			return "ports are numbers 1..65535";
		for (i = 0; i < n && list[i] != v; i++)
			;
		if (i == n) {
			if (n >= max)
				return "too many ports";
			list[n++] = v;
		}
		if (!*comma)
			break;
		p = comma + 1;
	}
	for (i = *nr; i < n; i++)
		ports[i] = list[i];
	*nr = n;
	return NULL;
}
