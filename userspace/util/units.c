// SPDX-License-Identifier: GPL-2.0
/* kprof reader: durations, see units.h. */
#include <stdio.h>
#include <string.h>

#include "units.h"

static const struct {
	const char *name;
	unsigned int exp10;	/* the unit is 10^exp10 ns */
} units[] = {
	{ "ns", 0 },
	{ "us", 3 },
	{ "\u00b5s", 3 },	/* µs */
	{ "ms", 6 },
	{ "s", 9 },
};

static uint64_t pow10u(unsigned int e)
{
	uint64_t p = 1;

	while (e--)
		p *= 10;
	return p;
}

/*
 * "D+[.D+]" scaled by 10^@exp10 into @out, exactly; @end gets the first
 * character after the number.
 */
static const char *parse_decimal(const char *s, unsigned int exp10,
				 const char **end, uint64_t *out)
{
	uint64_t whole = 0, frac = 0, v;
	unsigned int nfrac = 0;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return "not a number";
	for (; *p >= '0' && *p <= '9'; p++)
		if (__builtin_mul_overflow(whole, 10, &whole) ||
		    __builtin_add_overflow(whole, *p - '0', &whole))
			return "too large";
	if (*p == '.') {
		const char *f = ++p, *last;

		if (*p < '0' || *p > '9')
			return "not a number";
		while (*p >= '0' && *p <= '9')
			p++;
		/* Trailing zeros carry no precision. */
		for (last = p; last > f && last[-1] == '0'; last--)
			;
		for (; f < last; f++, nfrac++) {
			if (nfrac >= exp10)
				return "finer than a nanosecond";
			frac = frac * 10 + (*f - '0');
		}
	}
	if (__builtin_mul_overflow(whole, pow10u(exp10), &v) ||
	    __builtin_add_overflow(v, frac * pow10u(exp10 - nfrac), &v))
		return "too large";
	*end = p;
	*out = v;
	return NULL;
}

const char *kp_parse_duration(const char *s, uint64_t *ns)
{
	const char *unit = s, *end, *why;
	unsigned int exp10 = 6;		/* no unit: milliseconds */
	uint64_t v;
	size_t i;

	while ((*unit >= '0' && *unit <= '9') || *unit == '.')
		unit++;
	if (*unit) {
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcmp(unit, units[i].name))
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return "unknown unit (use ns, us, ms or s; default ms)";
		exp10 = units[i].exp10;
	}
	why = parse_decimal(s, exp10, &end, &v);
	if (why)
		return why;
	if (end != unit)
		return "not a number";
	*ns = v;
	return NULL;
}

const char *kp_parse_seconds(const char *s, uint64_t *ns)
{
	const char *end, *why;
	uint64_t v;

	why = parse_decimal(s, 9, &end, &v);
	if (why)
		return why;
	if (*end)
		return "not a number of seconds";
	*ns = v;
	return NULL;
}

char *kp_fmt_duration(char *buf, size_t len, uint64_t ns)
{
	static const char *const names[] = { "ns", "us", "ms", "s" };
	unsigned int u = 0;
	double x;

	if (ns < 1000) {
		snprintf(buf, len, "%uns", (unsigned int)ns);
		return buf;
	}
	while (u < 3 && ns >= pow10u(3 * (u + 1)))
		u++;
	x = (double)ns / pow10u(3 * u);
	if (x >= 999.5 && u < 3) {
		u++;
		x /= 1000;
	}
	if (x < 9.995)
		snprintf(buf, len, "%.2f%s", x, names[u]);
	else if (x < 99.95)
		snprintf(buf, len, "%.1f%s", x, names[u]);
	else
		snprintf(buf, len, "%.0f%s", x, names[u]);
	return buf;
}
