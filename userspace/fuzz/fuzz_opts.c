// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the reader's option values.  Input: one selector
 * byte, then the text.  The numbers, durations and port lists a parser
 * accepts must keep what its contract says; what it refuses must leave
 * the output alone.  kp_sess_opt() is driven the way getopt does for
 * top, record and report (options that look at the system, -p and
 * --cgroup, are left out).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"
#include "session.h"
#include "units.h"
#include "util.h"

#define SENTINEL	0x5a5a5a5a5a5a5a5aULL

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	stderr = fopen("/dev/null", "w");
	return 0;
}

static void check_uint(const char *s, uint8_t sel)
{
	static const uint64_t bounds[][2] = {
		{ 0, UINT64_MAX }, { 1, UINT64_MAX }, { 1, 10000 },
		{ 3, 1000 }, { 1, UINT32_MAX }, { 0, 0 }, { 65535, 65535 },
	};
	const uint64_t *b = bounds[sel % 7];
	uint64_t v = SENTINEL;
	char back[32];
	const char *why = kp_parse_uint(s, b[0], b[1], &v);

	if (why) {
		if (v != SENTINEL)
			abort();
		return;
	}
	if (v < b[0] || v > b[1])
		abort();
	/* digits only: printing it back gives the text minus leading 0s */
	while (s[0] == '0' && s[1])
		s++;
	snprintf(back, sizeof(back), "%llu", (unsigned long long)v);
	if (strcmp(back, s))
		abort();
}

static void check_ports(const char *s, uint8_t sel)
{
	uint16_t ports[KPROF_MAX_PORTS + 1];
	unsigned int nr = sel % 4, before, i, j;
	unsigned int max = (sel >> 2) % (KPROF_MAX_PORTS + 1);

	for (i = 0; i < nr; i++)
		ports[i] = 1000 + i;
	for (; i < KPROF_MAX_PORTS + 1; i++)
		ports[i] = 0xdead;
	before = nr;
	if (kp_parse_ports(s, ports, &nr, max)) {
		if (nr != before || ports[before] != 0xdead)
			abort();
		return;
	}
	if (nr < before || nr > max || ports[KPROF_MAX_PORTS] != 0xdead)
		abort();
	for (i = 0; i < nr; i++) {
		if (!ports[i])
			abort();
		for (j = 0; j < i; j++)
			if (ports[i] == ports[j])
				abort();
	}
}

static void check_duration(const char *s, int seconds)
{
	uint64_t v = SENTINEL, again;
	char buf[KP_DURATION_LEN];
	const char *why = seconds ? kp_parse_seconds(s, &v) :
			  kp_parse_duration(s, &v);
	int n;

	if (why) {
		if (v != SENTINEL)
			abort();
		return;
	}
	/* every accepted value prints without being cut */
	kp_fmt_duration(buf, sizeof(buf), v);
	n = strlen(buf);
	if (n == 0 || n >= KP_DURATION_LEN - 1)
		abort();
	/* a plain number of seconds is the same as a duration "Ns" */
	if (seconds) {
		char *t = malloc(strlen(s) + 2);

		if (!t)
			return;
		strcpy(t, s);
		strcat(t, "s");
		if (kp_parse_duration(t, &again) || again != v)
			abort();
		free(t);
	}
}

static void check_sess_opt(const char *s, uint8_t sel)
{
	static const int opts[] = { KP_OPT_RPORT, KP_OPT_LPORT, KP_OPT_ROLE,
		KP_OPT_THRESHOLD, KP_OPT_FREQ, '4', '6', KP_OPT_NO_CPU,
		KP_OPT_NO_TCP };
	struct kp_sess_opts o;
	int i, ret;

	kp_sess_opts_init(&o);
	/* a few options in a row, as on a command line */
	for (i = 0; i < 3; i++) {
		ret = kp_sess_opt("top", opts[(sel + i * 3) % 9], s, &o);
		if (ret && ret != KP_EXIT_USAGE)
			abort();
	}
	if (o.cfg.nr_rports > KPROF_MAX_PORTS ||
	    o.cfg.nr_lports > KPROF_MAX_PORTS ||
	    o.cfg.threshold_ns > 100 * KP_NSEC_PER_SEC ||
	    o.cfg.sample_hz > KPROF_SAMPLE_HZ_MAX)
		abort();
	for (i = 0; i < o.cfg.nr_rports; i++)
		if (!o.cfg.rports[i])
			abort();
	for (i = 0; i < o.cfg.nr_lports; i++)
		if (!o.cfg.lports[i])
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t sel;
	char *s;

	if (!size)
		return 0;
	sel = data[0];
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	switch (sel & 7) {
	case 0: check_uint(s, sel >> 3); break;
	case 1: check_ports(s, sel >> 3); break;
	case 2: check_duration(s, 0); break;
	case 3: check_duration(s, 1); break;
	default: check_sess_opt(s, sel >> 3); break;
	}
	free(s);
	return 0;
}
