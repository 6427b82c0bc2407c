// SPDX-License-Identifier: GPL-2.0
/* Tests: option values (durations, intervals, numbers, port lists). */
#include <stdio.h>
#include <string.h>

#include "opts.h"
#include "units.h"
#include "util.h"
#include "unit.h"

#define MS	1000000ULL
#define S	1000000000ULL

static void dur_ok(const char *s, uint64_t want)
{
	uint64_t v = 12345;
	const char *why = kp_parse_duration(s, &v);

	EXPECT(!why && v == want, "duration '%s': %s, %llu (want %llu)", s,
	       why ? why : "ok", (unsigned long long)v, (unsigned long long)want);
}

static void dur_bad(const char *s)
{
	uint64_t v = 12345;
	const char *why = kp_parse_duration(s, &v);

	EXPECT(why && v == 12345, "duration '%s' accepted as %llu", s,
	       (unsigned long long)v);
}

static void test_durations(void)
{
	dur_ok("500us", 500000);
	dur_ok("1ms", MS);
	dur_ok("2.5s", 2500 * MS);
	dur_ok("1", MS);
	dur_ok("0.5", 500000);
	dur_ok("250", 250 * MS);
	dur_ok("100ns", 100);
	dur_ok("1.5us", 1500);
	dur_ok("1.000001ms", 1000001);
	dur_ok("0", 0);
	dur_ok("0s", 0);
	dur_ok("1.000s", S);
	dur_ok("1.50000000000000000000s", 1500 * MS);
	dur_ok("100s", 100 * S);
	dur_ok("7\u00b5s", 7000);
	dur_ok("007ms", 7 * MS);
	dur_ok("18446744073709551615ns", UINT64_MAX);
}

static void test_durations_bad(void)
{
	static const char *const bad[] = {
		"", "ms", "s", "1x", "1m", "1h", "-1ms", "+1ms", "1.5ns",
		"0.0000005ms", "1e3", "1e3ms", " 1ms", "1 ms", "1ms ", "1.",
		".5", "1..2", "1.2.3ms", "0x10", "inf", "nan", "1MS", "1Ms",
		"18446744073709551616ns", "18446744073709552s",
		"99999999999999999999999", "1,5ms",
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		dur_bad(bad[i]);
}

static void test_seconds(void)
{
	static const char *const bad[] = {
		"", "1s", "-1", "+1", "1e-2", "0.0000000001", "1.", ".1", "abc",
		"0x1", " 1", "1 ", "18446744074",
	};
	uint64_t v;
	unsigned int i;

	EXPECT(!kp_parse_seconds("1", &v) && v == S, "1");
	EXPECT(!kp_parse_seconds("0.1", &v) && v == 100 * MS, "0.1");
	EXPECT(!kp_parse_seconds("0.01", &v) && v == 10 * MS, "0.01");
	EXPECT(!kp_parse_seconds("2.5", &v) && v == 2500 * MS, "2.5");
	EXPECT(!kp_parse_seconds("3600", &v) && v == 3600 * S, "3600");
	EXPECT(!kp_parse_seconds("0.000000001", &v) && v == 1, "1 ns");
	EXPECT(!kp_parse_seconds("0", &v) && v == 0, "0 (range is the caller's)");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT(kp_parse_seconds(bad[i], &v), "seconds '%s' accepted", bad[i]);
}

static void fmt(uint64_t ns, const char *want)
{
	char buf[KP_DURATION_LEN];

	kp_fmt_duration(buf, sizeof(buf), ns);
	EXPECT(!strcmp(buf, want), "%llu ns: '%s', want '%s'",
	       (unsigned long long)ns, buf, want);
}

static void test_format(void)
{
	fmt(0, "0ns");
	fmt(999, "999ns");
	fmt(1000, "1.00us");
	fmt(1500, "1.50us");
	fmt(12345, "12.3us");
	fmt(123456, "123us");
	fmt(999499, "999us");
	fmt(999500, "1.00ms");
	fmt(25 * MS, "25.0ms");
	fmt(250 * MS, "250ms");
	fmt(2500 * MS, "2.50s");
	fmt(1234 * S, "1234s");
	fmt(UINT64_MAX, "18446744074s");
}

static void test_uint(void)
{
	uint64_t v;

	EXPECT(!kp_parse_uint("1", 1, 10, &v) && v == 1, "1");
	EXPECT(!kp_parse_uint("10", 1, 10, &v) && v == 10, "10");
	EXPECT(!kp_parse_uint("0010", 1, 10, &v) && v == 10, "leading zeros");
	EXPECT(!kp_parse_uint("18446744073709551615", 0, UINT64_MAX, &v) &&
	       v == UINT64_MAX, "UINT64_MAX");
	EXPECT(kp_parse_uint("0", 1, 10, &v), "below min");
	EXPECT(kp_parse_uint("11", 1, 10, &v), "above max");
	EXPECT(kp_parse_uint("18446744073709551616", 0, UINT64_MAX, &v), "overflow");
	EXPECT(kp_parse_uint("", 0, 10, &v), "empty");
	EXPECT(kp_parse_uint("-1", 0, 10, &v), "negative");
	EXPECT(kp_parse_uint("+1", 0, 10, &v), "plus");
	EXPECT(kp_parse_uint(" 1", 0, 10, &v), "space");
	EXPECT(kp_parse_uint("1a", 0, 10, &v), "junk");
	EXPECT(kp_parse_uint("0x1", 0, 10, &v), "hex");
	EXPECT(kp_parse_uint("4294967296", 1, UINT32_MAX, &v), "u32 range");
}

static void ports_ok(const char *s, unsigned int nwant, const uint16_t *want)
{
	uint16_t p[16] = { 0 };
	unsigned int n = 0, i;
	const char *why = kp_parse_ports(s, p, &n, 16);

	EXPECT(!why && n == nwant, "ports '%s': %s, %u ports", s,
	       why ? why : "ok", n);
	for (i = 0; i < n && i < nwant; i++)
		EXPECT(p[i] == want[i], "ports '%s' [%u] = %u", s, i, p[i]);
}

static void test_ports(void)
{
	static const char *const bad[] = {
		"", ",", "80,", ",80", "80,,443", "0", "65536", "abc", "80;443",
		"-1", "1 2", " 80", "80 ", "0x50", "99999999999999999999",
		"1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17",
	};
	uint16_t p[16], want[16];
	unsigned int n, i;

	ports_ok("80", 1, (const uint16_t[]){ 80 });
	ports_ok("80,443", 2, (const uint16_t[]){ 80, 443 });
	ports_ok("1,65535", 2, (const uint16_t[]){ 1, 65535 });
	ports_ok("80,80,443,80", 2, (const uint16_t[]){ 80, 443 });
	for (i = 0; i < 16; i++)
		want[i] = i + 1;
	ports_ok("1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16", 16, want);
	ports_ok("1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,16,1", 16, want);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = 0;
		EXPECT(kp_parse_ports(bad[i], p, &n, 16) && n == 0,
		       "ports '%s' accepted", bad[i]);
	}

	/* Repeated options add up; a failed one changes nothing. */
	n = 0;
	EXPECT(!kp_parse_ports("80", p, &n, 16), "first");
	EXPECT(!kp_parse_ports("443,80", p, &n, 16) && n == 2 && p[0] == 80 &&
	       p[1] == 443, "second adds 443 only");
	EXPECT(kp_parse_ports("8080,0", p, &n, 16) && n == 2, "bad: unchanged");
	n = 15;
	for (i = 0; i < 15; i++)
		p[i] = 1000 + i;
	EXPECT(!kp_parse_ports("1000,2000", p, &n, 16) && n == 16, "fills to 16");
	EXPECT(kp_parse_ports("3000", p, &n, 16) && n == 16, "17th refused");
	EXPECT(!kp_parse_ports("1001", p, &n, 16) && n == 16, "known port at the limit");
}

/* kp_text_sanitize: what a terminal or a strict JSON parser must not see */
static void test_sanitize(void)
{
	static const struct {
		const char *in, *out;
		unsigned int bad;
	} cases[] = {
		{ "nginx: worker", "nginx: worker", 0 },
		{ "z\xc3\xbcrich \xe2\x82\xac \xf0\x9f\x98\x80", "z\xc3\xbcrich \xe2\x82\xac \xf0\x9f\x98\x80", 0 },
		{ "\x1b]0;pwn\a\x1b[2K", "?]0;pwn??[2K", 3 },
		{ "tab\there\n", "tab?here?", 2 },
		{ "del\x7f", "del?", 1 },
		{ "c1 \xc2\x9b" "1A", "c1 ??1A", 2 },		/* CSI, 8-bit */
		{ "cut \xc3", "cut ?", 1 },			/* truncated */
		{ "stray \x80\xbf", "stray ??", 2 },
		{ "over \xc0\xaf \xe0\x80\xaf", "over ?? ???", 5 },	/* overlong */
		{ "sur \xed\xa0\x80", "sur ???", 3 },		/* surrogate */
		{ "big \xf4\x90\x80\x80", "big ????", 4 },	/* > U+10FFFF */
		{ "\xff\xfe", "??", 2 },
		/* bidi controls reorder what the terminal shows (Trojan Source) */
		{ "a\xe2\x80\xae" "b", "a???b", 3 },		/* RLO */
		{ "\xe2\x80\xaa\xe2\x80\xac", "??????", 6 },	/* LRE, PDF */
		{ "\xe2\x81\xa6x\xe2\x81\xa9", "???x???", 6 },	/* LRI, PDI */
		{ "\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c", "????????", 8 }, /* LRM RLM ALM */
		/* line and paragraph separators break lines in some viewers */
		{ "l\xe2\x80\xa8p\xe2\x80\xa9", "l???p???", 6 },
		/* their neighbours are text */
		{ "\xe2\x80\x94\xe2\x81\xb0", "\xe2\x80\x94\xe2\x81\xb0", 0 },
		{ "", "", 0 },
	};
	unsigned int i, bad;
	char buf[64];

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(buf, sizeof(buf), "%s", cases[i].in);
		bad = kp_text_sanitize(buf);
		EXPECT(!strcmp(buf, cases[i].out) && bad == cases[i].bad,
		       "case %u: got '%s' (%u replaced), want '%s' (%u)", i,
		       buf, bad, cases[i].out, cases[i].bad);
	}
}

const struct kp_test t_units[] = {
	{ "units: durations with and without units", test_durations },
	{ "units: invalid durations refused", test_durations_bad },
	{ "units: intervals in seconds, exact", test_seconds },
	{ "units: human durations ns/us/ms/s", test_format },
	{ "opts: strict unsigned integers", test_uint },
	{ "opts: port lists (ranges, duplicates, limit, repeats)", test_ports },
	{ "util: names others choose made printable and valid UTF-8", test_sanitize },
	{ NULL, NULL },
};
