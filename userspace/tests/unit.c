// SPDX-License-Identifier: GPL-2.0
/* kprof reader host tests: runs every table, prints TAP. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "unit.h"

#define MAX_DIAG	12

unsigned int kp_test_fails;
static unsigned int diags;

void kp_test_diag(const char *fmt, ...)
{
	va_list ap;

	if (diags++ >= MAX_DIAG) {
		if (diags == MAX_DIAG + 1)
			printf("#   (more failures not shown)\n");
		return;
	}
	fputs("#   ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

void kp_test_rmtree(const char *dir)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		kp_test_diag("cannot remove %s", dir);
}

uint64_t kp_test_rand(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

double kp_test_uniform(void)
{
	return (kp_test_rand() >> 11) * (1.0 / 9007199254740992.0);
}

static const struct kp_test *const tables[] = {
	t_hist, t_addr, t_units, t_snapshot, t_symbolize, t_record, t_stats,
	t_analysis, t_prom, t_outfile,
};

int main(void)
{
	unsigned int n = 0, failed = 0, i;
	const struct kp_test *t;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		for (t = tables[i]; t->name; t++)
			n++;
	printf("1..%u\n", n);
	n = 0;
	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		for (t = tables[i]; t->name; t++) {
			kp_test_fails = 0;
			diags = 0;
			t->fn();
			n++;
			printf("%sok %u - %s\n", kp_test_fails ? "not " : "", n,
			       t->name);
			failed += !!kp_test_fails;
		}
	}
	if (failed)
		printf("# %u of %u tests failed\n", failed, n);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
