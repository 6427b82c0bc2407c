// SPDX-License-Identifier: GPL-2.0
/*
 * CPU stack sampling: attribution to the right functions, kernel frames
 * for a syscall-heavy process, sample counts against CPU time at 99 and
 * 999 Hz, idle accounting, bad rates, START and SET_CONFIG as all or
 * nothing, the cycles feature bit, CPU hotplug while sampling, and a
 * verified call site forgotten once its page is remapped.
 */
#include <dlfcn.h>
#include <linux/perf_event.h>
#include <math.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "tcp_test.h"
#include "cpu_spin.h"

#define MS_NS	1000000ull

/* ---- workloads, in a child; built with frame pointers, -rdynamic ---- */

__attribute__((noinline)) void syscall_heavy(double secs)
{
	uint64_t end = now_ns() + (uint64_t)(secs * 1e9);
	char buf[256] = { 0 };
	int fd = open("/dev/null", O_WRONLY), i;

	/* the clock is read rarely: under emulation it is a slow syscall */
	while (now_ns() < end)
		for (i = 0; i < 2000; i++)
			if (write(fd, buf, sizeof(buf)) < 0)
				goto out;
out:
	close(fd);
}

/*
 * Run @fn(@secs) in a child on @cpu (-1: any); with a pipe @go, once a
 * byte comes down it.  A child that cannot be pinned or released exits
 * without running @fn.
 */
static pid_t run_child(void (*fn)(double), double secs, int cpu,
		       const int *go)
{
	pid_t pid = fork();

	if (pid == 0) {
		cpu_set_t set;
		char c;

		if (go)
			close(go[1]);
		if (cpu >= 0) {
			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			if (sched_setaffinity(0, sizeof(set), &set))
				_exit(1);
		}
		if (go && read(go[0], &c, 1) != 1)
			_exit(1);
		fn(secs);
		_exit(0);
	}
	return pid;
}

static uint64_t wait_child(pid_t pid)
{
	struct rusage ru;
	int status;

	if (wait4(pid, &status, 0, &ru) != pid)
		return 0;
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
}

/* ---- reading the export ---- */

static const struct kprof_cpu_row *cpu_rows(const struct export *e)
{
	return (const void *)((const char *)e->map + e->hdr->cpu_rows_off);
}

static uint64_t samples_of(const struct export *e, uint32_t tgid)
{
	const struct kprof_cpu_row *r = cpu_rows(e);
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < e->hdr->nr_cpu_rows; i++)
		if (r[i].tgid == tgid)
			n += r[i].samples;
	return n;
}

/* The configured sampling rate, or 0 when it cannot be read. */
static uint32_t config_hz(int fd)
{
	struct kprof_config cfg;

	return kprof_get_config(fd, &cfg) ? 0 : cfg.sample_hz;
}

static int set_hz(int fd, uint32_t hz)
{
	struct kprof_config cfg;
	int ret = kprof_get_config(fd, &cfg);

	if (ret)
		return ret;
	cfg.sample_hz = hz;
	return kprof_set_config(fd, &cfg);
}

FIXTURE(cpu) {
	int fd;
	struct export ex;
};

FIXTURE_SETUP(cpu)
{
	ASSERT_EQ(0, kprof_test_load());
	self->fd = open(KPROF_TEST_DEV, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, export_map(self->fd, &self->ex));
	kprof_control(self->fd, KPROF_IOC_STOP, KPROF_RUN_ALL);
	/*
	 * An empty stack table: the tests before this one keep theirs
	 * (IDs live until a reset), and a full table files every new
	 * stack under stack ID 0.
	 */
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_RESET,
				   KPROF_RESET_STACKS));
	ASSERT_EQ(0, set_hz(self->fd, 99));
}

FIXTURE_TEARDOWN(cpu)
{
	kprof_control(self->fd, KPROF_IOC_STOP, KPROF_RUN_ALL);
	export_unmap(&self->ex);
	close(self->fd);
}

/* What the samples that are in neither spin_hot_a nor spin_hot_b have. */
struct elsewhere {
	uint64_t no_stack;	/* stack ID 0, or no such stack exported */
	uint64_t no_user;	/* a stack without user frames */
	uint64_t unnamed;	/* a first user frame dladdr() cannot name */
	uint64_t named;		/* in some other function, the most in: */
	uint64_t top_n;
	char top[64];
};

/*
 * The samples of @pid in spin_hot_a (@a), spin_hot_b (@b) and elsewhere
 * (@other: no user stack, or a first user frame in neither), and what
 * those have (@why).
 */
static void tally_75_25(struct __test_metadata *_metadata,
			const struct export *ex, pid_t pid, uint64_t *a,
			uint64_t *b, uint64_t *other, struct elsewhere *why)
{
	const struct kprof_cpu_row *r = cpu_rows(ex);
	uint32_t i;

	*a = *b = *other = 0;
	memset(why, 0, sizeof(*why));
	for (i = 0; i < ex->hdr->nr_cpu_rows; i++) {
		const struct kprof_stack *st;
		uint64_t n = r[i].samples;
		Dl_info di;

		if (r[i].tgid != (uint32_t)pid)
			continue;
		EXPECT_EQ(0, strncmp(r[i].comm, "cpu_sample_test", 15));
		st = find_stack(ex, r[i].stack_id);
		if (!st) {
			why->no_stack += n;
		} else if (!st->nr_user) {
			why->no_user += n;
		} else if (!dladdr((void *)(uintptr_t)st->user_ips[0], &di) ||
			   !di.dli_sname) {
			why->unnamed += n;
		} else if (!strcmp(di.dli_sname, "spin_hot_a")) {
			*a += n;
			continue;
		} else if (!strcmp(di.dli_sname, "spin_hot_b")) {
			*b += n;
			continue;
		} else {
			why->named += n;
			if (n > why->top_n) {
				why->top_n = n;
				snprintf(why->top, sizeof(why->top), "%s",
					 di.dli_sname);
			}
		}
		*other += n;
	}
}

/*
 * The spinner's hot samples split 75/25 within 10 points, and under a
 * tenth land elsewhere.  With exact time at the first try; elsewhere in
 * one of three, each logged: a guest whose host is busy gets its timer
 * interrupts late and in bursts, wherever its vCPU is emulated next.
 */
TEST_F(cpu, attributes_75_25)
{
	uint64_t a = 0, b = 0, other = 0;
	struct kprof_stats s0, s1;
	struct elsewhere why;
	double share = 0;
	int tries;
	pid_t pid;

	ASSERT_EQ(0, set_hz(self->fd, 999));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_CPU));
	for (tries = 0; tries < (kprof_test_exact_time() ? 1 : 3); tries++) {
		ASSERT_EQ(0, kp_snapshot(self->fd));
		ASSERT_EQ(0, kprof_get_stats(self->fd, &s0));
		pid = run_child(spin_75_25, 3, -1, NULL);
		wait_child(pid);
		ASSERT_EQ(0, kp_snapshot(self->fd));
		ASSERT_EQ(0, kprof_get_stats(self->fd, &s1));
		tally_75_25(_metadata, &self->ex, pid, &a, &b, &other, &why);
		share = a + b ? 100.0 * a / (a + b) : 0;
		TH_LOG("spin_hot_a %llu, spin_hot_b %llu, elsewhere %llu: %.1f%% in a",
		       (unsigned long long)a, (unsigned long long)b,
		       (unsigned long long)other, share);
		if (a + b > 100 && fabs(share - 75.0) < 10.0 &&
		    other < (a + b) / 10)
			break;
		TH_LOG("elsewhere: %llu without a stack, %llu without user frames, %llu unnamed, %llu named (most in %s: %llu)",
		       (unsigned long long)why.no_stack,
		       (unsigned long long)why.no_user,
		       (unsigned long long)why.unnamed,
		       (unsigned long long)why.named, why.top[0] ? why.top : "-",
		       (unsigned long long)why.top_n);
		TH_LOG("module: %llu samples, %llu stacks dropped, %llu shed (guard level %u, budget %u ppm), %u stacks; kernel.perf_event_max_sample_rate %ld",
		       (unsigned long long)(s1.samples - s0.samples),
		       (unsigned long long)(s1.drops_stacks - s0.drops_stacks),
		       (unsigned long long)(s1.shed_stacks - s0.shed_stacks),
		       s1.guard_level, s1.budget_ppm, s1.stacks,
		       kprof_test_sysctl("kernel/perf_event_max_sample_rate"));
	}
	ASSERT_LT(100, a + b);
	EXPECT_LT(fabs(share - 75.0), 10.0);
	EXPECT_LT(other, (a + b) / 10);
}

/*
 * Under emulation timer samples skid to where interrupts come back on, and
 * on 4.14 most samples of this loop land on do_syscall_64()'s interrupt
 * enable: the write path's share depends on the kernel.  It must be seen,
 * and the kernel stacks must reach down to the syscall entry.
 */
TEST_F(cpu, syscall_path_has_kernel_frames)
{
	const struct kprof_cpu_row *r;
	uint64_t kernel = 0, write_path = 0, entry = 0;
	pid_t pid;
	uint32_t i, k;

	ASSERT_EQ(0, set_hz(self->fd, 999));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_CPU));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	pid = run_child(syscall_heavy, 2, -1, NULL);
	wait_child(pid);
	ASSERT_EQ(0, kp_snapshot(self->fd));
	r = cpu_rows(&self->ex);
	for (i = 0; i < self->ex.hdr->nr_cpu_rows; i++) {
		const struct kprof_stack *st = find_stack(&self->ex,
							  r[i].stack_id);
		int in_write = 0, in_entry = 0;
		const char *s;

		if (r[i].tgid != (uint32_t)pid || !st || !st->nr_kernel)
			continue;
		kernel += r[i].samples;
		s = (const char *)self->ex.map + self->ex.hdr->strings_off +
		    st->ksyms_off;
		for (k = 0; k < st->nr_kernel; k++, s += strlen(s) + 1) {
			/* SyS_write before v4.17, then __x64_sys_write */
			if (strcasestr(s, "sys_write") ||
			    strstr(s, "vfs_write"))
				in_write = 1;
			if (strstr(s, "entry_SYSCALL") ||
			    strstr(s, "do_syscall_64"))
				in_entry = 1;
		}
		write_path += in_write ? r[i].samples : 0;
		entry += in_entry ? r[i].samples : 0;
	}
	TH_LOG("%llu samples in the kernel, %llu of them in the write path, %llu reaching the syscall entry",
	       (unsigned long long)kernel, (unsigned long long)write_path,
	       (unsigned long long)entry);
	EXPECT_LT(20, kernel);
	EXPECT_LT(kernel / 10, write_path);
	EXPECT_LT(kernel * 3 / 4, entry);
}

/*
 * With exact time (kprof_test_exact_time()) sample counts are held to
 * what the rate promises, 1% or 2 samples, whichever is more, at the
 * first try, against the CPU time sampled.  Elsewhere a guest's timer
 * interrupts come late whenever its vCPU is not being emulated, and each
 * late expiry pushes the next one out (the hrtimer is forwarded from
 * now): on a busy host 999 Hz gave 2500 samples in 3 s of CPU, and 1500
 * on PREEMPT_RT, with 2990 on the same guests when the host was idle.
 * So there the count is held to the kernel's own sampling of the same
 * run, a per-task cpu-clock perf event at the same rate, which meets the
 * same delays: 10%, at most three tries.
 */
static double rate_band(double want)
{
	if (!kprof_test_exact_time())
		return 0.10 * want;
	return want / 100 > 2 ? want / 100 : 2;
}

/*
 * Is @n samples of @cpu_s seconds of CPU at @hz right, against @want
 * (rate_band())?  Without exact time the per-task reference meets late
 * expiries more often than the per-CPU event when the task moves on and
 * off its CPU: on the debug kernel, after CPU hotplug, 690 and 787
 * samples against perf's 613 and 705, for 914 and 1070 at the rate.  So
 * there a count above the reference's band passes up to what the rate
 * promises for the CPU time used (2% or 2 samples over it): late timers
 * only ever lose samples, so more than that is counted twice.
 */
static bool rate_ok(double n, double want, uint32_t hz, double cpu_s)
{
	double at_rate = hz * cpu_s;

	if (fabs(n - want) <= rate_band(want))
		return true;
	return !kprof_test_exact_time() && n > want &&
	       n <= at_rate + (at_rate / 50 > 2 ? at_rate / 50 : 2);
}

/*
 * A 75/25 spinner of @secs on @cpu (-1: any) is sampled at @hz: of the
 * CPU time it used with exact time, else as the reference sampled it;
 * within rate_ok().  Sampling runs at @hz already.
 */
static void expect_rate(struct __test_metadata *_metadata, int fd,
			struct export *ex, uint32_t hz, double secs, int cpu)
{
	uint64_t cpu_ns = 0, n = 0, ref_n;
	struct kprof_test_ref ref;
	double want = 0;
	int tries, go[2], rret;
	pid_t pid;

	for (tries = 0; tries < (kprof_test_exact_time() ? 1 : 3); tries++) {
		ASSERT_EQ(0, pipe(go));
		pid = run_child(spin_75_25, secs, cpu, go);
		ASSERT_LE(0, pid);
		close(go[0]);
		rret = kprof_test_ref_open(&ref, pid, -1, hz, secs);
		ASSERT_EQ(0, kp_snapshot(fd));
		ASSERT_EQ(1, write(go[1], "x", 1));
		close(go[1]);
		cpu_ns = wait_child(pid);
		ASSERT_EQ(0, kp_snapshot(fd));
		ASSERT_EQ(0, rret) TH_LOG("the reference: %s", strerror(ref.err));
		ref_n = kprof_test_ref_close(&ref);
		n = samples_of(ex, pid);
		want = kprof_test_exact_time() ? hz * (cpu_ns / 1e9) : ref_n;
		TH_LOG("%u Hz on CPU %d: %llu samples for %.2f s of CPU (%.0f at the rate), perf's own %llu; expected %.0f",
		       hz, cpu, (unsigned long long)n, cpu_ns / 1e9,
		       hz * (cpu_ns / 1e9), (unsigned long long)ref_n, want);
		EXPECT_EQ(hz, ex->hdr->sample_hz);
		EXPECT_LE(ex->hdr->samples_idle, ex->hdr->samples);
		if (rate_ok(n, want, hz, cpu_ns / 1e9))
			break;
		/*
		 * The kernel lowers this for the rest of the boot when
		 * handling a sample took too long (on a guest whose host is
		 * busy, say), and throttles frequency-mode events to it.
		 */
		TH_LOG("kernel.perf_event_max_sample_rate is %ld",
		       kprof_test_sysctl("kernel/perf_event_max_sample_rate"));
	}
	EXPECT_TRUE(rate_ok(n, want, hz, cpu_ns / 1e9))
		TH_LOG("%llu samples: not within %.0f of %.0f, nor above it up to the rate's %.0f",
		       (unsigned long long)n, rate_band(want), want,
		       hz * (cpu_ns / 1e9));
}


/* ---- a verified call site, then the page remapped without the call ---- */

#define CS_CALL_END	0x105	/* where a call rel32 at 0x100 ends */

/*
 * Spin for @secs with the frame pointer on a made-up frame { 0, @ret }:
 * a sample's user walk reads @ret as the caller's return address, and
 * keeps it only where a call instruction ends just before it.
 */
__attribute__((noinline)) static void cs_spin(unsigned long ret, double secs)
{
	unsigned long frame[2] = { 0, ret };
	uint64_t end = now_ns() + (uint64_t)(secs * 1e9);

	while (now_ns() < end)
		asm volatile("push %%rbp\n\t"
			     "mov %0, %%rbp\n\t"
			     "mov $200000, %%ecx\n"
			     "1:\tdec %%ecx\n\t"
			     "jnz 1b\n\t"
			     "pop %%rbp"
			     : : "r"(frame) : "rcx", "memory", "cc");
}

/*
 * A fresh executable page at @at (NULL: anywhere), all int3, with a call
 * rel32 ending at CS_CALL_END when @call.  Written while mapped writable
 * and executable, so that no mprotect() (a TLB flush of its own) comes
 * between the unmap and the next walk.
 */
static unsigned char *cs_map(void *at, int call)
{
	unsigned char *p = mmap(at, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				MAP_PRIVATE | MAP_ANONYMOUS |
				(at ? MAP_FIXED_NOREPLACE : 0), -1, 0);

	if (p == MAP_FAILED || (at && p != at))
		return NULL;
	memset(p, 0xcc, 4096);
	if (call)
		memcpy(p + CS_CALL_END - 5, "\xe8\0\0\0\0", 5);
	return p;
}

/* Samples of @pid whose walk kept @ret after the interrupted address. */
static uint64_t samples_with_ret(const struct export *e, pid_t pid,
				 unsigned long ret, uint64_t *without)
{
	const struct kprof_cpu_row *r = cpu_rows(e);
	uint64_t with = 0;
	uint32_t i;

	*without = 0;
	for (i = 0; i < e->hdr->nr_cpu_rows; i++) {
		const struct kprof_stack *st = find_stack(e, r[i].stack_id);

		if (r[i].tgid != (uint32_t)pid || !st || st->nr_kernel)
			continue;
		if (st->nr_user >= 2 && st->user_ips[1] == ret)
			with += r[i].samples;
		else if (st->nr_user == 1)
			*without += r[i].samples;
	}
	return with;
}

/*
 * The walk remembers the call sites it verified (per CPU, per address
 * space and page-table generation).  A page whose call site it verified,
 * unmapped and mapped again with no call there, executable all along:
 * the return address must not be kept any more.  A cache that outlived
 * the unmap would keep it (the frame lies in an executable mapping, so
 * the export's own check would let it through).
 */
TEST_F(cpu, call_site_verdict_ends_with_the_mapping)
{
	uint64_t with, without;
	int go[2], done[2];
	unsigned long ret;
	unsigned char *page;
	pid_t pid;
	char c;

	ASSERT_EQ(0, set_hz(self->fd, 999));
	page = cs_map(NULL, 1);
	ASSERT_NE(NULL, page);
	ret = (unsigned long)page + CS_CALL_END;
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(done));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		cpu_set_t set;

		/* one CPU: the cache consulted is the one that was filled */
		CPU_ZERO(&set);
		CPU_SET(0, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			_exit(1);
		cs_spin(ret, 1.5);
		if (write(done[1], "a", 1) != 1 || read(go[0], &c, 1) != 1 ||
		    munmap(page, 4096) || !cs_map(page, 0))
			_exit(1);
		cs_spin(ret, 1.5);
		_exit(0);
	}
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_CPU));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	ASSERT_EQ(1, read(done[0], &c, 1));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	with = samples_with_ret(&self->ex, pid, ret, &without);
	TH_LOG("with the call: %llu samples kept the return address, %llu did not",
	       (unsigned long long)with, (unsigned long long)without);
	EXPECT_LT(0, with);
	ASSERT_EQ(1, write(go[1], "b", 1));
	wait_child(pid);
	ASSERT_EQ(0, kp_snapshot(self->fd));
	with = samples_with_ret(&self->ex, pid, ret, &without);
	TH_LOG("remapped without it: %llu samples kept the return address, %llu did not",
	       (unsigned long long)with, (unsigned long long)without);
	EXPECT_EQ(0, with);
	EXPECT_LT(0, without);
	munmap(page, 4096);
}

/* Samples against the CPU time they sample, see rate_ok(). */
static void check_rate(struct __test_metadata *_metadata, int fd,
		       struct export *ex, uint32_t hz)
{
	ASSERT_EQ(0, set_hz(fd, hz));
	ASSERT_EQ(0, kprof_control(fd, KPROF_IOC_START, KPROF_RUN_CPU));
	expect_rate(_metadata, fd, ex, hz, 3, -1);
	ASSERT_EQ(0, kprof_control(fd, KPROF_IOC_STOP, KPROF_RUN_CPU));
}

TEST_F(cpu, rate_99hz)
{
	check_rate(_metadata, self->fd, &self->ex, 99);
}

TEST_F(cpu, rate_999hz)
{
	check_rate(_metadata, self->fd, &self->ex, 999);
}

/*
 * A second of sleep at 99 Hz: a sample per CPU every 1/99 s, nearly all
 * of an idle CPU.  With exact time (see rate_band()) the count is the
 * rate's, and the CPU is idle but for the test's own wake-up, the
 * snapshots and the kernel's housekeeping (at most 5% of the samples).
 * Elsewhere the count is held to the kernel's own sampling of every CPU
 * (a cpu-clock event per CPU at the same rate), and 10% may be busy.
 */
TEST_F(cpu, idle_counted_apart)
{
	long c, ncpu = sysconf(_SC_NPROCESSORS_CONF);
	uint64_t n, idle, ref_n = 0;
	struct kprof_test_ref *ref;
	double want;

	ASSERT_LT(0, ncpu);
	ref = calloc(ncpu, sizeof(*ref));
	ASSERT_NE(NULL, ref);
	ASSERT_EQ(0, set_hz(self->fd, 99));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_CPU));
	/* an offline CPU is sampled by neither */
	for (c = 0; c < ncpu; c++)
		EXPECT_TRUE(!kprof_test_ref_open(&ref[c], -1, c, 99, 2) ||
			    ref[c].err == ENODEV)
			TH_LOG("CPU %ld's reference: %s", c, strerror(ref[c].err));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	sleep_ns(1000 * MS_NS);
	ASSERT_EQ(0, kp_snapshot(self->fd));
	for (c = 0; c < ncpu; c++)
		ref_n += kprof_test_ref_close(&ref[c]);
	free(ref);
	n = self->ex.hdr->samples;
	idle = self->ex.hdr->samples_idle;
	want = kprof_test_exact_time() ?
	       99.0 * sysconf(_SC_NPROCESSORS_ONLN) : ref_n;
	TH_LOG("1 s asleep: %llu samples, %llu idle, %.0f at the rate, perf's own %llu; expected %.0f",
	       (unsigned long long)n, (unsigned long long)idle,
	       99.0 * sysconf(_SC_NPROCESSORS_ONLN),
	       (unsigned long long)ref_n, want);
	EXPECT_LE(idle, n);
	EXPECT_LE(fabs(n - want), rate_band(want));
	EXPECT_LE(n - idle, n / (kprof_test_exact_time() ? 20 : 10));
}

TEST_F(cpu, bad_rates_einval)
{
	EXPECT_EQ(-EINVAL, set_hz(self->fd, 10001));
	EXPECT_EQ(-EINVAL, set_hz(self->fd, 0xffffffffu));
	EXPECT_EQ(0, set_hz(self->fd, 1));
	EXPECT_EQ(1, config_hz(self->fd));
	EXPECT_EQ(0, set_hz(self->fd, 10000));
	EXPECT_EQ(10000, config_hz(self->fd));
	/* 0 keeps the rate; refused values left it too */
	EXPECT_EQ(0, set_hz(self->fd, 0));
	EXPECT_EQ(10000, config_hz(self->fd));
	EXPECT_EQ(-EINVAL, set_hz(self->fd, 10001));
	EXPECT_EQ(10000, config_hz(self->fd));
}

static uint32_t running(int fd)
{
	struct kprof_info info;

	return kprof_get_info(fd, &info) ? ~0u : info.running;
}

/* START of both leaves what ran before; STOP of one leaves the other. */
TEST_F(cpu, start_both_keeps_what_ran)
{
	struct kprof_info info;

	ASSERT_EQ(0, kprof_get_info(self->fd, &info));
	if (!(info.features & KPROF_FEAT_TCP_LATENCY))
		SKIP(return, "no TCP latency on this kernel");
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_ALL));
	EXPECT_EQ(KPROF_RUN_ALL, running(self->fd));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_STOP, KPROF_RUN_CPU));
	EXPECT_EQ(KPROF_RUN_TCP, running(self->fd));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_ALL));
	EXPECT_EQ(KPROF_RUN_ALL, running(self->fd));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_STOP, KPROF_RUN_TCP));
	EXPECT_EQ(KPROF_RUN_CPU, running(self->fd));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_ALL));
	EXPECT_EQ(KPROF_RUN_ALL, running(self->fd));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_STOP, KPROF_RUN_ALL));
	EXPECT_EQ(0, running(self->fd));
}

/*
 * A SET_CONFIG that fails changes nothing, neither the TCP part nor the
 * rate, and stops nothing; one that succeeds changes both.
 */
TEST_F(cpu, set_config_all_or_nothing)
{
	struct kprof_config old, cfg, now;
	struct kprof_info info;
	uint32_t run = KPROF_RUN_CPU;

	ASSERT_EQ(0, kprof_get_info(self->fd, &info));
	if (info.features & KPROF_FEAT_TCP_LATENCY)
		run = KPROF_RUN_ALL;
	ASSERT_EQ(0, kprof_get_config(self->fd, &old));
	old.threshold_ns = 5 * MS_NS;
	old.sample_hz = 99;
	ASSERT_EQ(0, kprof_set_config(self->fd, &old));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, run));

	/* a bad rate with a good TCP part */
	cfg = old;
	cfg.threshold_ns = 7 * MS_NS;
	cfg.tgid = getpid();
	cfg.sample_hz = KPROF_SAMPLE_HZ_MAX + 1;
	EXPECT_EQ(-EINVAL, kprof_set_config(self->fd, &cfg));
	ASSERT_EQ(0, kprof_get_config(self->fd, &now));
	EXPECT_EQ(0, memcmp(&old, &now, sizeof(now)));
	EXPECT_EQ(run, running(self->fd));

	/* a bad TCP part with a good new rate */
	cfg.sample_hz = 499;
	cfg.roles = 1;
	EXPECT_EQ(-EINVAL, kprof_set_config(self->fd, &cfg));
	ASSERT_EQ(0, kprof_get_config(self->fd, &now));
	EXPECT_EQ(0, memcmp(&old, &now, sizeof(now)));
	EXPECT_EQ(run, running(self->fd));

	/* both good: both applied, everything still runs */
	cfg.roles = 0;
	EXPECT_EQ(0, kprof_set_config(self->fd, &cfg));
	ASSERT_EQ(0, kprof_get_config(self->fd, &now));
	EXPECT_EQ(0, memcmp(&cfg, &now, sizeof(now)));
	EXPECT_EQ(run, running(self->fd));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	sleep_ns(300 * MS_NS);
	ASSERT_EQ(0, kp_snapshot(self->fd));
	EXPECT_EQ(499, self->ex.hdr->sample_hz);

	cfg.tgid = 0;
	cfg.threshold_ns = MS_NS;
	EXPECT_EQ(0, kprof_set_config(self->fd, &cfg));
}

/* KPROF_FEAT_HW_CYCLES is known from load: starting sampling keeps it. */
TEST_F(cpu, hw_cycles_feature_is_stable)
{
	struct kprof_info before, after;

	ASSERT_EQ(0, kprof_get_info(self->fd, &before));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_CPU));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_STOP, KPROF_RUN_CPU));
	ASSERT_EQ(0, kprof_get_info(self->fd, &after));
	TH_LOG("features 0x%llx", (unsigned long long)after.features);
	EXPECT_EQ(before.features, after.features);
}

static int set_online(int cpu, int on)
{
	char path[64];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	ret = fprintf(f, "%d\n", on) < 0 ? -EIO : 0;
	if (fclose(f))
		ret = -errno;
	return ret;
}

/* Offline and online CPU 1 while sampling: samples resume there. */
TEST_F(cpu, hotplug_while_sampling)
{
	pid_t pid;
	int i;

	if (sysconf(_SC_NPROCESSORS_CONF) < 2 ||
	    access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(return, "needs a second CPU that can go offline");
	ASSERT_EQ(0, set_hz(self->fd, 999));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_CPU));
	for (i = 0; i < 4; i++) {
		pid = run_child(spin_75_25, 0.3, 0, NULL);
		ASSERT_EQ(0, set_online(1, 0));
		sleep_ns(200 * MS_NS);
		ASSERT_EQ(0, set_online(1, 1));
		wait_child(pid);
	}
	/* a child pinned to the CPU that came back: sampled at the rate */
	expect_rate(_metadata, self->fd, &self->ex, 999, 1, 1);
}

#define PEER_DEEP	"/sys/module/kprof_peer/parameters/deep_spin_ms"

/*
 * @st's kernel frames into @f (KPROF_MAX_KERNEL_FRAMES strings): their
 * number, or 0 when none are exported.
 */
static unsigned int kernel_frames(const struct export *e,
				  const struct kprof_stack *st, const char **f)
{
	const char *s;
	unsigned int k;

	if (!st->nr_kernel || st->ksyms_off == KPROF_KSYMS_MISSING ||
	    st->nr_kernel > KPROF_MAX_KERNEL_FRAMES)
		return 0;
	s = (const char *)e->map + e->hdr->strings_off + st->ksyms_off;
	for (k = 0; k < st->nr_kernel; k++, s += strlen(s) + 1)
		f[k] = s;
	return k;
}

/*
 * A sample taken 48 calls deep in the kernel (kprof_peer's deep_spin_ms)
 * keeps the KPROF_MAX_KERNEL_FRAMES leaf-most kernel frames: past the
 * first few (where the spin was interrupted), the same return address in
 * the nested function, down to the last frame kept.  Its user frames are
 * still there.
 */
TEST_F(cpu, kernel_frames_cut_at_32)
{
	const unsigned int last = KPROF_MAX_KERNEL_FRAMES - 1;
	const char *f[KPROF_MAX_KERNEL_FRAMES];
	uint64_t deep = 0, cut = 0, other = 0, unstored = 0;
	const struct kprof_cpu_row *r;
	struct kprof_stats a, b;
	uint32_t i, n, most = 0;

	ASSERT_EQ(0, kprof_test_peer_load()) TH_LOG("KPROF_PEER_KO: make peer-module");
	ASSERT_EQ(0, set_hz(self->fd, 999));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_CPU));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	ASSERT_EQ(0, kprof_get_stats(self->fd, &a));
	ASSERT_EQ(0, kprof_test_write_file(PEER_DEEP, "300"));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	ASSERT_EQ(0, kprof_get_stats(self->fd, &b));
	r = cpu_rows(&self->ex);
	for (i = 0; i < self->ex.hdr->nr_cpu_rows; i++) {
		const struct kprof_stack *st = find_stack(&self->ex,
							  r[i].stack_id);

		if (r[i].tgid != (uint32_t)getpid())
			continue;
		if (!st) {
			unstored += r[i].samples;
			continue;
		}
		n = kernel_frames(&self->ex, st, f);
		most = n > most ? n : most;
		if (n < 8 || strcmp(f[4], f[7]) ||
		    !strstr(f[4], "kprof_peer_deep")) {
			other += r[i].samples;
			continue;
		}
		deep += r[i].samples;
		if (n == KPROF_MAX_KERNEL_FRAMES && !strcmp(f[last], f[4]) &&
		    st->nr_user)
			cut += r[i].samples;
	}
	TH_LOG("%llu samples in the nested calls, %llu of them cut at %u frames with user frames; %llu elsewhere, %llu without a stack (%llu stacks not stored); deepest %u",
	       (unsigned long long)deep, (unsigned long long)cut,
	       KPROF_MAX_KERNEL_FRAMES, (unsigned long long)other,
	       (unsigned long long)unstored,
	       (unsigned long long)(b.drops_stacks - a.drops_stacks), most);
	EXPECT_EQ(a.drops_stacks, b.drops_stacks);
	EXPECT_LT(20, deep);
	EXPECT_EQ(deep, cut);
	EXPECT_EQ(KPROF_MAX_KERNEL_FRAMES, most);
	EXPECT_EQ(0, system("rmmod kprof_peer"));
}

static int cpu_unsampled(int fd, unsigned int cpu)
{
	struct kprof_cpu_cost c;
	int ret = kprof_get_cpu_cost(fd, cpu, &c);

	return ret ? ret : (int)c.unsampled;
}

/*
 * A CPU whose sampling event cannot be created still comes online:
 * unsampled, and reported so.  The failure is real: kprof_peer's kprobe
 * on perf_event_create_kernel_counter() gives the event's attr a type no
 * PMU takes, for CPU 1 only.
 */
TEST_F(cpu, hotplug_event_fails_cpu_comes_online)
{
	const char *peer = getenv("KPROF_PEER_KO");
	char cmd[512];

	if (sysconf(_SC_NPROCESSORS_CONF) < 2 ||
	    access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(return, "needs a second CPU that can go offline");
	ASSERT_EQ(0, kprof_test_peer_load()) TH_LOG("KPROF_PEER_KO='%s': make peer-module",
					  peer ? peer : "");
	ASSERT_EQ(0, set_hz(self->fd, 999));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_CPU));
	EXPECT_EQ(0, cpu_unsampled(self->fd, 1));
	ASSERT_EQ(0, kprof_test_write_file(KPROF_TEST_PEER_FAIL, "1"));
	ASSERT_EQ(0, set_online(1, 0));
	EXPECT_EQ(0, set_online(1, 1))
		TH_LOG("CPU 1 refused to come online");
	EXPECT_EQ(1, cpu_unsampled(self->fd, 1));
	EXPECT_EQ(0, cpu_unsampled(self->fd, 0));
	if (getenv("KPROF_BIN")) {
		snprintf(cmd, sizeof(cmd),
			 "'%s' status | grep -q '^  cpu 1 .*unsampled'",
			 getenv("KPROF_BIN"));
		EXPECT_EQ(0, system(cmd)) TH_LOG("kprof status: %s", cmd);
	}
	/* with the fault gone, the next online samples it again */
	EXPECT_EQ(0, kprof_test_write_file(KPROF_TEST_PEER_FAIL, "-1"));
	set_online(1, 0);
	EXPECT_EQ(0, set_online(1, 1));
	EXPECT_EQ(0, cpu_unsampled(self->fd, 1));
	expect_rate(_metadata, self->fd, &self->ex, 999, 1, 1);
	/* stopped, no CPU counts as unsampled */
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_STOP, KPROF_RUN_CPU));
	EXPECT_EQ(0, cpu_unsampled(self->fd, 1));
	kprof_test_write_file(KPROF_TEST_PEER_FAIL, "-1");
	set_online(1, 1);
	EXPECT_EQ(0, system("rmmod kprof_peer"));
}

TEST_HARNESS_MAIN
