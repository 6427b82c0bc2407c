// SPDX-License-Identifier: GPL-2.0
/*
 * The sampling path in NMI, on a test build of the module (KPROF_TEST_NMI,
 * module/kprof_nmi_test.c): every cpu-clock sample is taken in an NMI the
 * timer raises, and with test_nmi=2 another NMI lands on the next CPU in
 * whatever it runs, a probe's stack capture included.
 *
 *  - every sample is taken in NMI, none lost on the way;
 *  - NMIs that land in the middle of a probe's capture (an int3 probe
 *    runs in NMI context since v5.8, so both want the NMI scratch slot;
 *    kprobe optimization is turned off for it, so probes stay int3)
 *    never mix two stacks: no request's stack holds a frame of the
 *    module's own capture or of the NMI path, and the nested captures
 *    are counted as dropped.
 *
 * On a module built without it, every test skips, saying so.
 */
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "tcp_test.h"
#include "cpu_spin.h"

#define MS_NS		1000000ull
#define PARAM		"/sys/module/kprofmod/parameters/"

static int param_write(const char *name, const char *v)
{
	char path[128];

	snprintf(path, sizeof(path), PARAM "%s", name);
	return kprof_test_write_file(path, v);
}

#define OPTIMIZE	"/proc/sys/debug/kprobes-optimization"

/* Write @v to the sysctl file @path; its value before (0 or 1), or -1. */
static int sysctl_write(const char *path, const char *v)
{
	char old = '?';
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (read(fd, &old, 1) != 1 || lseek(fd, 0, SEEK_SET) ||
	    write(fd, v, strlen(v)) < 0)
		old = '?';
	close(fd);
	return old == '0' || old == '1' ? old - '0' : -1;
}

struct nmi_stats {
	unsigned long long sampled, cross, missed;
};

static int nmi_stats(struct nmi_stats *s)
{
	FILE *f = fopen(PARAM "test_nmi_stats", "re");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "sampled %llu cross %llu missed %llu", &s->sampled,
		   &s->cross, &s->missed);
	fclose(f);
	return n == 3 ? 0 : -1;
}

static int configure(int fd, uint64_t threshold_ns, uint32_t hz)
{
	struct kprof_config cfg = { .size = sizeof(cfg) };

	cfg.threshold_ns = threshold_ns;
	cfg.sample_hz = hz;
	return kprof_set_config(fd, &cfg);
}

/* A frame no request's own stack can hold: the capture's or the NMI's. */
static int foreign_frame(const char *s)
{
	return !strncmp(s, "kprof_", 6) || strstr(s, "nmi") ||
	       strstr(s, "perf_") || strstr(s, "hrtimer");
}

FIXTURE(nmi) {
	int fd;
	int test_build;		/* 0: SKIP()ped in the setup */
	struct export ex;
};

FIXTURE_SETUP(nmi)
{
	ASSERT_EQ(0, kprof_test_load());
	self->fd = open(KPROF_TEST_DEV, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	if (access(PARAM "test_nmi", F_OK))
		SKIP(return, "module not built with KPROF_TEST_NMI=1: samples are not taken in NMI");
	self->test_build = 1;
	ASSERT_EQ(0, export_map(self->fd, &self->ex));
	kprof_control(self->fd, KPROF_IOC_STOP, KPROF_RUN_ALL);
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_RESET,
				   KPROF_RESET_STACKS));
	ASSERT_EQ(0, param_write("test_nmi", "1"));
}

FIXTURE_TEARDOWN(nmi)
{
	if (!self->test_build) {
		close(self->fd);
		return;
	}
	kprof_control(self->fd, KPROF_IOC_STOP, KPROF_RUN_ALL);
	param_write("test_nmi", "1");
	configure(self->fd, MS_NS, 99);
	export_unmap(&self->ex);
	close(self->fd);
}

/* Every sample of a spinning process is taken in NMI, and counted once. */
TEST_F(nmi, every_sample_in_nmi)
{
	struct kprof_stats a, b;
	struct nmi_stats na, nb;
	pid_t pid;

	if (!self->test_build)
		return;		/* skipped in the setup */
	ASSERT_EQ(0, configure(self->fd, MS_NS, 999));
	ASSERT_EQ(0, kprof_get_stats(self->fd, &a));
	ASSERT_EQ(0, nmi_stats(&na));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_CPU));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		spin_75_25(1);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_STOP, KPROF_RUN_CPU));
	ASSERT_EQ(0, kprof_get_stats(self->fd, &b));
	ASSERT_EQ(0, nmi_stats(&nb));
	TH_LOG("%llu samples: %llu in NMI, %llu missed the NMI",
	       (unsigned long long)(b.samples - a.samples),
	       nb.sampled - na.sampled, nb.missed - na.missed);
	EXPECT_LT(100, b.samples - a.samples);
	EXPECT_EQ(0, nb.missed - na.missed);
	EXPECT_EQ(b.samples - a.samples, nb.sampled - na.sampled);
	EXPECT_EQ(0, nb.cross - na.cross);
}

/*
 * NMIs land on the other CPU while both CPUs walk the stacks of every
 * request (threshold 0): captures in int3 probes are interrupted by NMIs
 * that capture too.  No request's stack may hold a frame of the capture
 * code or of the NMI path (a shared scratch buffer would put the NMI's
 * frames, which start inside the interrupted capture, into the request's
 * stack), and the nested captures show as drops, not as mixed stacks.
 */
TEST_F_TIMEOUT(nmi, nested_captures_keep_stacks_apart, 120)
{
	uint64_t rows = 0, walked = 0, foreign = 0;
	struct kprof_info info = { .size = sizeof(info) };
	struct kprof_stats a, b;
	struct nmi_stats na, nb;
	struct load l;
	uint32_t i, k;
	int opt;

	if (!self->test_build)
		return;		/* skipped in the setup */
	/*
	 * int3 probes, not jump-optimized ones: an optimized probe runs
	 * its handler in task context, where no capture shares the NMI's
	 * slot.  And a stack table the samples cannot fill (each sample's
	 * leaf makes a stack of its own): a drop then means a nested
	 * capture.
	 */
	opt = sysctl_write(OPTIMIZE, "0");
	export_unmap(&self->ex);
	close(self->fd);
	ASSERT_EQ(0, kprof_test_reload("stacks=131072"));
	self->fd = open(KPROF_TEST_DEV, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, export_map(self->fd, &self->ex));
	ASSERT_EQ(0, param_write("test_nmi", "2"));
	/* often enough that NMIs land inside captures */
	ASSERT_EQ(0, configure(self->fd, 0, 4999));
	ASSERT_EQ(0, kprof_get_stats(self->fd, &a));
	ASSERT_EQ(0, nmi_stats(&na));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_ALL));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	ASSERT_EQ(0, load_start(&l, 0));
	sleep_ns(4000 * MS_NS);
	load_stop(&l);
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_STOP, KPROF_RUN_ALL));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	ASSERT_EQ(0, kprof_get_stats(self->fd, &b));
	ASSERT_EQ(0, nmi_stats(&nb));

	for (i = 0; i < self->ex.hdr->nr_tcp_rows; i++) {
		const struct kprof_tcp_row *r = &self->ex.rows[i];
		const struct kprof_stack *st = find_stack(&self->ex,
							  r->stack_id);
		int bad = 0;

		rows++;
		if (!st)
			continue;
		walked += r->count;
		for (k = 0; k < st->nr_kernel; k++) {
			const char *s = stack_ksym(&self->ex, st, k);

			if (foreign_frame(s)) {
				if (!bad)
					TH_LOG("stack %u, frame %u: %s",
					       st->id, k, s);
				bad = 1;
			}
		}
		foreign += bad ? r->count : 0;
	}
	TH_LOG("%llu requests in %llu rows, %llu with a stack, %llu of them with a foreign frame",
	       (unsigned long long)l.done, (unsigned long long)rows,
	       (unsigned long long)walked, (unsigned long long)foreign);
	TH_LOG("NMIs: %llu timer samples, %llu on the next CPU, %llu missed; %llu stacks dropped, %u of %u stored",
	       nb.sampled - na.sampled, nb.cross - na.cross,
	       nb.missed - na.missed,
	       (unsigned long long)(b.drops_stacks - a.drops_stacks),
	       b.stacks, self->ex.hdr->nr_stacks);
	EXPECT_LT(100, walked);
	EXPECT_EQ(0, foreign);
	EXPECT_LT(0, nb.cross - na.cross);
	EXPECT_EQ(0, nb.missed - na.missed);
	/* nesting did happen: captures found their slot taken */
	EXPECT_LT(0, b.drops_stacks - a.drops_stacks);
	/* and not because the table was full */
	ASSERT_EQ(0, kprof_get_info(self->fd, &info));
	EXPECT_GT(info.stacks_max / 2, b.stacks);

	export_unmap(&self->ex);
	close(self->fd);
	if (opt >= 0)
		sysctl_write(OPTIMIZE, opt ? "1" : "0");
	ASSERT_EQ(0, kprof_test_reload(""));
	self->fd = open(KPROF_TEST_DEV, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, export_map(self->fd, &self->ex));
}

TEST_HARNESS_MAIN
