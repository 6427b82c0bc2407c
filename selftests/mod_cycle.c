// SPDX-License-Identifier: GPL-2.0
/*
 * mod_cycle: load and unload kprofmod N times with finit_module(2) and
 * delete_module(2), the calls insmod(8) and rmmod(8) make, without a
 * process per call: under CPU emulation and on the debug kernel, starting
 * insmod and rmmod costs several times what the kernel's own work does.
 *
 *   mod_cycle [-s] [-n N] MODULE.ko [PARAM...]
 *
 * After each load /dev/kprof must be a character device; after each
 * unload none of it, /sys/class/misc/kprof and /sys/module/kprofmod may
 * be left.  With -s every other cycle starts tracing and sampling
 * (threshold 0, 999 Hz, kp_start_all()) in a session, which must keep
 * the module from unloading (-EWOULDBLOCK) until it is closed; the close
 * stops both, under traffic, and the unload follows at once.  Prints a
 * TAP comment with the times;
 * exits 0, or 1 after the first failure, saying which.
 */
#include "tcp_test.h"

static int fail(int cycle, const char *what)
{
	printf("# cycle %d: %s: %s\n", cycle, what, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	uint64_t t, t_load = 0, t_unload = 0, t0 = now_ns();
	char params[4096] = "";
	int n = 100, start = 0, opt, i, fd, ret;
	size_t len = 0;
	struct stat st;

	while ((opt = getopt(argc, argv, "sn:")) != -1) {
		switch (opt) {
		case 's':
			start = 1;
			break;
		case 'n':
			n = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (optind >= argc || n < 1)
		goto usage;
	for (i = optind + 1; i < argc; i++) {
		int w = snprintf(params + len, sizeof(params) - len, "%s%s",
				 len ? " " : "", argv[i]);

		if (w < 0 || (size_t)w >= sizeof(params) - len) {
			fprintf(stderr, "mod_cycle: parameters too long\n");
			return 2;
		}
		len += w;
	}

	for (i = 0; i < n; i++) {
		fd = open(argv[optind], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return fail(i, argv[optind]);
		t = now_ns();
		if (syscall(SYS_finit_module, fd, params, 0))
			return fail(i, "finit_module");
		t_load += now_ns() - t;
		close(fd);
		if (stat(KPROF_TEST_DEV, &st) || !S_ISCHR(st.st_mode))
			return fail(i, KPROF_TEST_DEV " is not there after the load");
		if (start && i % 2 == 0) {
			int sfd = kp_start_all(999);

			if (sfd < 0) {
				errno = -sfd;
				return fail(i, "start tracing and sampling");
			}
			ret = kp_unload_refused();
			if (ret < 0) {
				printf("# cycle %d: unloaded with a session open\n",
				       i);
				return 1;
			}
			errno = ret;
			if (ret)
				return fail(i, "delete_module with a session open");
			close(sfd);
		}
		t = now_ns();
		if (syscall(SYS_delete_module, "kprofmod", O_NONBLOCK))
			return fail(i, "delete_module");
		t_unload += now_ns() - t;
		errno = 0;
		if (access(KPROF_TEST_DEV, F_OK) == 0)
			return fail(i, KPROF_TEST_DEV " left behind");
		if (access("/sys/class/misc/kprof", F_OK) == 0)
			return fail(i, "/sys/class/misc/kprof left behind");
		if (access("/sys/module/kprofmod", F_OK) == 0)
			return fail(i, "/sys/module/kprofmod left behind");
	}
	printf("# %d load/unload cycles in %.1f s: load %.0f ms, unload %.0f ms on average\n",
	       n, (now_ns() - t0) / 1e9, t_load / 1e6 / n, t_unload / 1e6 / n);
	return 0;
usage:
	fprintf(stderr, "usage: mod_cycle [-s] [-n N] MODULE.ko [PARAM...]\n");
	return 2;
}
