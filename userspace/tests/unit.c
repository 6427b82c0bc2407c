// SPDX-License-Identifier: GPL-2.0
/* kprof reader host tests: runs every table, prints TAP. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

int kp_test_copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t n = -1;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	while (out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			n = -1;
			break;
		}
	close(in);
	if (out >= 0)
		close(out);
	return out < 0 || n < 0 ? -1 : 0;
}

/*
 * A child that runs @setup (which reports an address to look up, or 0),
 * then waits to be killed.  Returns its pid (*addr set), or -1.
 */
pid_t kp_test_child(uint64_t (*setup)(void *arg), void *arg, uint64_t *addr)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (!pid) {
		uint64_t a = setup(arg);

		if (write(p[1], &a, sizeof(a)) != sizeof(a))
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid < 0 || read(p[0], addr, sizeof(*addr)) != sizeof(*addr) ||
	    !*addr) {
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		close(p[0]);
		return -1;
	}
	close(p[0]);
	return pid;
}

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
	t_analysis, t_prom, t_outfile, t_symbound, t_window, t_rowhash,
	t_parse_opts,
};

/* Is @t selected: no arguments, or one of them is part of its name? */
static int selected(const struct kp_test *t, int argc, char **argv)
{
	int a;

	for (a = 1; a < argc; a++)
		if (strstr(t->name, argv[a]))
			return 1;
	return argc < 2;
}

/* unit [PART...]: the tests whose names hold one of the PARTs, or all */
int main(int argc, char **argv)
{
	unsigned int n = 0, failed = 0, i;
	const struct kp_test *t;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		for (t = tables[i]; t->name; t++)
			n += selected(t, argc, argv);
	printf("1..%u\n", n);
	n = 0;
	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		for (t = tables[i]; t->name; t++) {
			if (!selected(t, argc, argv))
				continue;
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
