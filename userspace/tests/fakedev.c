// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim for the command-line tests: a fake /dev/kprof.  open()
 * of $KPROF_FAKE_DEVICE (default /fake/kprof) gives a memfd standing for
 * the device; ioctl() and mmap() on it behave like kprofmod publishing a
 * fixed set of rows each interval.  Every call is logged, one line each,
 * to $KPROF_FAKE_LOG.
 *
 * Knobs:
 *   KPROF_FAKE_RUNNING=N      KPROF_RUN_* bits already on, held by
 *                             "another reader's" session (1 tracing,
 *                             2 sampling)
 *   KPROF_FAKE_OLD=1          API 1.0: no mapping
 *   KPROF_FAKE_API11=1        API 1.1: no sampling, zeros in the 1.2
 *                             header fields, sample_hz and KPROF_RUN_CPU
 *                             refused
 *   KPROF_FAKE_FEATURES=N     the features word
 *   KPROF_FAKE_CORRUPT=N      the Nth snapshot publishes a corrupt layout
 *   KPROF_FAKE_CORRUPT_CPU=N  the Nth snapshot has a short cpu_row_size
 *   KPROF_FAKE_STEAL=N        after the Nth snapshot, "another reader's"
 *                             lands before the copy
 *   KPROF_FAKE_START_ERRNO=N  START fails with N
 *   KPROF_FAKE_DROPS_STACKS=N every snapshot has N stack drops
 *   KPROF_FAKE_EXTRA_ROWS=N   N more TCP rows after the four below,
 *                             10.1.x.y clients with two requests each (a
 *                             large interval, for profiling)
 *   KPROF_FAKE_THRESHOLD=NS   the module's threshold in the header
 *                             (another reader's lower one)
 *   KPROF_FAKE_LOSSY=1        in interval i, 10.0.4.12:443 is 1 + i % 4
 *                             times as slow, with 3 * (i % 4) more
 *                             retransmits; [2001:db8::1]:8080 and
 *                             [::ffff:127.0.0.1]:80 too, with i % 4
 *                             more resets sent and retransmits
 *   KPROF_FAKE_ODD=N          the Nth snapshot leaves the generation odd,
 *                             as if still writing, until the reader next
 *                             waits in ppoll()
 *   KPROF_FAKE_WAITS=1        log every waitpid()
 * Like kprofmod since API 2.0, the rows and counters are cumulative: each
 * snapshot adds one interval's worth to them.
 *
 * While sampling runs, each interval has 150 samples, 50 of them idle, in
 * six CPU rows of this very process (so its user frames symbolize to the
 * kprof_fake_* functions below) and of a kernel thread: kprof_fake_hot_a
 * 60, kprof_fake_hot_b 20 (comm "fake app"), a read() in the kernel 10,
 * ksoftirqd/1 6, kernel frames missing 2, stack ID 0 (not stored) 2.
 */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <poll.h>

#include <linux/kprof.h>

#define ROWS_OFF	256
#define NR_ROWS		4
#define MAP_SIZE	map_size()
#define NR_CPU_ROWS	6
#define NR_STACKS_MAX	6

static int fake_fd = -1;
static char *region;
static uint64_t generation;
static unsigned int snapshots;
static struct kprof_config config = { .size = sizeof(config), .sample_hz = 99 };
/*
 * What runs: "another reader's" (KPROF_FAKE_RUNNING), and what this
 * process's session holds (API 1.9; before, START and STOP act on
 * @running itself).
 */
static unsigned int running, held;

static void fake_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fake_log(const char *fmt, ...)
{
	const char *path = getenv("KPROF_FAKE_LOG");
	va_list ap;
	FILE *f;

	if (!path)
		return;
	f = fopen(path, "a");
	if (!f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

/*
 * KPROF_FAKE_COMM, when set, is the comm of "fake-app" and "fake-client"
 * (16 bytes, no NUL needed, as a task can set it): the hostile name tests.
 */
static void fake_comm(char comm[16], const char *dflt)
{
	const char *c = getenv("KPROF_FAKE_COMM");

	memset(comm, 0, 16);
	if (!c || (strcmp(dflt, "fake-app") && strcmp(dflt, "fake-client")))
		c = dflt;
	memcpy(comm, c, strnlen(c, 16));
}

static long env_num(const char *name, long dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtol(v, NULL, 0) : dflt;
}

static const char *device(void)
{
	const char *p = getenv("KPROF_FAKE_DEVICE");

	return p && *p ? p : "/fake/kprof";
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* KPROF_FAKE_CONNECT=1: a connect row (API 4.0) after the four rows */
static uint32_t connect_rows(void)
{
	return env_num("KPROF_FAKE_CONNECT", 0) ? 1 : 0;
}

static uint32_t extra_rows(void)
{
	long n = env_num("KPROF_FAKE_EXTRA_ROWS", 0);

	return (n > 0 && n <= 1000000 ? n : 0) + connect_rows();
}

/* Room for the rows, the CPU rows, the stacks and 1 KiB of strings. */
static size_t map_size(void)
{
	size_t n = ROWS_OFF + (NR_ROWS + extra_rows()) *
		   sizeof(struct kprof_tcp_row) +
		   NR_CPU_ROWS * sizeof(struct kprof_cpu_row) +
		   NR_STACKS_MAX * sizeof(struct kprof_stack) + 1024;

	return (n + 65535) & ~(size_t)65535;
}

static int fake_open(void)
{
	fake_fd = memfd_create("kprof-fake", MFD_CLOEXEC);
	if (fake_fd < 0)
		return -1;
	if (!region) {
		region = mmap(NULL, MAP_SIZE, PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (region == MAP_FAILED) {
			region = NULL;
			return -1;
		}
		memset(region, 0, MAP_SIZE);
	}
	running = env_num("KPROF_FAKE_RUNNING", 0) & KPROF_RUN_ALL;
	fake_log("open");
	return fake_fd;
}

int open(const char *path, int flags, ...)
{
	static int (*real)(const char *, int, ...);
	mode_t mode = 0;
	va_list ap;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (!strcmp(path, device()))
		return fake_open();
	if (!real)
		real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	return real(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	static int (*real)(const char *, int, ...);
	mode_t mode = 0;
	va_list ap;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (!strcmp(path, device()))
		return fake_open();
	if (!real)
		real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open64");
	return real(path, flags, mode);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static void *(*real)(void *, size_t, int, int, int, off_t);

	if (fd >= 0 && fd == fake_fd) {
		fake_log("mmap len=%zu prot=%d", len, prot);
		if (prot & PROT_WRITE) {
			errno = EPERM;
			return MAP_FAILED;
		}
		if (off || len != MAP_SIZE) {
			errno = EINVAL;
			return MAP_FAILED;
		}
		return region;
	}
	if (!real)
		real = (void *(*)(void *, size_t, int, int, int, off_t))
			dlsym(RTLD_NEXT, "mmap");
	return real(addr, len, prot, flags, fd, off);
}

/* --- the published interval ------------------------------------------------ */

static const char ksyms[] =
	"tcp_sendmsg+0x0/0x50\0inet_sendmsg+0x3c/0x70\0__sys_sendto+0x11c/0x190\0";

/*
 * Add one interval's @count requests to @r, cumulative like kprofmod's
 * rows since API 2.0; the first time (@r->birth 0), make the row.
 */
static void fill_row(struct kprof_tcp_row *r, uint32_t stack_id, int family,
		     const char *addr, unsigned int port, unsigned int role,
		     unsigned int count, uint64_t base_ns)
{
	unsigned int i;
	uint64_t v;

	if (!r->birth) {
		memset(r, 0, sizeof(*r));
		r->stack_id = stack_id;
		r->family = family;
		r->rport = port;
		inet_pton(family, addr, r->raddr);
		r->role = role;
		r->min_ns = UINT64_MAX;
		r->birth = 1;
	}
	r->count += count;
	for (i = 0; i < count; i++) {
		v = base_ns + base_ns * i / count;	/* base .. 2 * base */
		r->sum_ns += v;
		r->min_ns = v < r->min_ns ? v : r->min_ns;
		r->max_ns = v > r->max_ns ? v : r->max_ns;
		/* index() of the uapi comment */
		{
			unsigned int msb = 63 - __builtin_clzll(v);
			unsigned int b = v < 8 ? v :
				(msb - 2) * 8 + ((v >> (msb - 3)) & 7);

			r->hist[b < KPROF_HIST_BUCKETS ? b : KPROF_HIST_BUCKETS - 1]++;
		}
	}
}

/* User frames of the CPU stacks: functions of this library. */
static volatile unsigned int fake_sink;

#define FAKE_FN(name)							\
	__attribute__((noinline, used)) void name(void);		\
	__attribute__((noinline, used)) void name(void)			\
	{								\
		unsigned int i;						\
									\
		for (i = 0; i < 16; i++)				\
			fake_sink += i;					\
	}

FAKE_FN(kprof_fake_hot_a)
FAKE_FN(kprof_fake_hot_b)
FAKE_FN(kprof_fake_read)
FAKE_FN(kprof_fake_work)
FAKE_FN(kprof_fake_main)

static const char ksyms23[] =
	"copy_user_generic_string+0x2c/0x40\0_copy_to_user+0x22/0x30\0"
	"__x64_sys_read+0x19/0x20\0do_syscall_64+0x5b/0xc0\0"
	"entry_SYSCALL_64_after_hwframe+0x6e/0xd8\0";
static const char ksyms24[] =
	"e1000_clean+0x58/0x8e0 [e1000]\0net_rx_action+0x145/0x3a0\0"
	"__do_softirq+0xc5/0x2a9\0run_ksoftirqd+0x2b/0x40\0"
	"smpboot_thread_fn+0xb8/0x150\0kthread+0xe8/0x110\0"
	"ret_from_fork+0x1f/0x30\0";

/*
 * CPU stack @id (21..25) into @st; its kernel frames, if any, in @ks
 * (@len bytes), ksyms_off 0.  Returns 0, or -1 for another ID.
 */
static int fill_cpu_stack(uint32_t id, struct kprof_stack *st, const char **ks,
			  size_t *len)
{
	void (*leaf)(void) = id == 22 ? kprof_fake_hot_b : kprof_fake_hot_a;

	if (id < 21 || id > 25)
		return -1;
	memset(st, 0, sizeof(*st));
	*ks = NULL;
	*len = 0;
	st->id = id;
	st->tgid = getpid();
	fake_comm(st->comm, "fake-app");
	switch (id) {
	case 23:
		*ks = ksyms23;
		*len = sizeof(ksyms23) - 1;
		st->nr_kernel = 5;
		/* fallthrough */
	case 25:
		leaf = kprof_fake_read;
		if (id == 25)
			st->ksyms_off = KPROF_KSYMS_MISSING;
		/* fallthrough */
	case 21:
	case 22:
		st->nr_user = 3;
		st->user_ips[0] = (uintptr_t)leaf + 1;
		st->user_ips[1] = (uintptr_t)kprof_fake_work + 2;
		st->user_ips[2] = (uintptr_t)kprof_fake_main + 2;
		return 0;
	case 24:
		st->tgid = 0;
		memcpy(st->comm, "ksoftirqd/1\0\0\0\0", 16);
		*ks = ksyms24;
		*len = sizeof(ksyms24) - 1;
		st->nr_kernel = 7;
		return 0;
	}
	return -1;
}

static void fill_cpu_row(struct kprof_cpu_row *r, uint32_t stack_id,
			 uint32_t tgid, const char *comm, uint64_t samples)
{
	if (!r->birth) {
		memset(r, 0, sizeof(*r));
		r->stack_id = stack_id;
		r->tgid = tgid;
		fake_comm(r->comm, comm);
		r->birth = 1;
	}
	r->samples += samples;
}

static void fill_stack7(struct kprof_stack *st)
{
	memset(st, 0, sizeof(*st));
	st->id = 7;
	st->tgid = getpid();		/* this very process: symbolizable */
	st->nr_kernel = 3;
	st->ksyms_off = 0;
	st->nr_user = 3;
	st->user_ips[0] = (uintptr_t)getpid;
	st->user_ips[1] = (uintptr_t)nanosleep + 1;	/* a return address */
	st->user_ips[2] = 0x1000;			/* nothing mapped */
	fake_comm(st->comm, "fake-client");
}

static int api11(void)
{
	return env_num("KPROF_FAKE_API11", 0) != 0;
}

static int old_api(void)
{
	return api11() || env_num("KPROF_FAKE_OLD", 0);
}

/* API 1.9 and later: START and STOP act for the caller's session. */
static int sessions(void)
{
	return !api11() && !env_num("KPROF_FAKE_OLD", 0);
}

/* One interval's requests added to every TCP row. */
static void fill_rows(struct kprof_tcp_row *rows, uint32_t nr_rows)
{
	static unsigned int intervals;
	unsigned int loss = env_num("KPROF_FAKE_LOSSY", 0) ? intervals++ % 4 : 0;
	uint32_t i;

	/* KPROF_FAKE_LOSSY=1: slower with more retransmits, and back */
	fill_row(&rows[0], 0, AF_INET, "10.0.4.12", 443, KPROF_ROLE_CLIENT,
		 100, 1000000 * (1 + loss));		/* total ~150 ms */
	rows[0].retransmits += 3 * loss;
	fill_row(&rows[1], 7, AF_INET6, "2001:db8::1", 8080,
		 KPROF_ROLE_SERVER, 10, 30000000 * (1 + loss));	/* ~450 ms */
	rows[1].resets_sent += loss;
	fill_row(&rows[2], 12, AF_INET6, "::ffff:127.0.0.1", 80,
		 KPROF_ROLE_CLIENT, 5, 2000 * (1 + loss));	/* ~15 us */
	rows[2].retransmits += loss;
	fill_row(&rows[3], 99, AF_INET, "192.168.1.1", 5432,
		 KPROF_ROLE_CLIENT, 1, 5);		/* 5 ns */
	/* TCP health (API 3.2) per interval, on two endpoints */
	rows[0].retransmits += 3;
	rows[0].retransmits_rto += 1;
	rows[0].resets_received += 1;
	rows[0].after_retransmit += 2;
	rows[3].retransmits += 10;
	rows[3].resets_sent += 2;
	/* the client's connects to 10.0.4.12:443 (API 4.0) */
	if (connect_rows()) {
		fill_row(&rows[NR_ROWS], 0, AF_INET, "10.0.4.12", 443,
			 KPROF_ROLE_CONNECT, 4, 300000);	/* 300-525 us */
		rows[NR_ROWS].connects_refused += 1;
		rows[NR_ROWS].connects_timedout += 2;
	}
	for (i = NR_ROWS + connect_rows(); i < nr_rows; i++) {
		char a[16];

		snprintf(a, sizeof(a), "10.1.%u.%u", i >> 8 & 255, i & 255);
		fill_row(&rows[i], 0, AF_INET, a, 1024 + (i >> 16),
			 KPROF_ROLE_CLIENT, 2, 20000 + i);
	}
}

static void publish(void)
{
	struct kprof_mmap_header *h = (void *)region;
	struct kprof_tcp_row *rows = (void *)(region + ROWS_OFF);
	uint32_t nr_rows = NR_ROWS + extra_rows();
	uint64_t crows_off = ROWS_OFF + nr_rows * sizeof(*rows);
	uint64_t stacks_off = crows_off + NR_CPU_ROWS * sizeof(struct kprof_cpu_row);
	uint64_t strings_off = stacks_off + NR_STACKS_MAX * sizeof(struct kprof_stack);
	struct kprof_cpu_row *crows = (void *)(region + crows_off);
	struct kprof_stack *stacks = (void *)(region + stacks_off);
	int tcp = (running | held) & KPROF_RUN_TCP;
	int cpu = (running | held) & KPROF_RUN_CPU;
	static uint64_t start;
	uint64_t end = now_ns();
	uint32_t len = 0, id, pid = getpid();
	const char *ks;
	size_t kl;

	__atomic_store_n(&h->generation, generation + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	generation += 2;
	h->magic = KPROF_MMAP_MAGIC;
	h->header_size = sizeof(*h);
	h->api_major = old_api() ? 1 : KPROF_API_MAJOR;
	h->api_minor = api11() ? 1 : KPROF_API_MINOR;
	h->mmap_size = MAP_SIZE;
	if (!start)
		start = end - 1000000;
	h->interval_start_ns = start;	/* cumulative: since "the load" */
	h->interval_end_ns = end;
	h->tcp_rows_off = ROWS_OFF;
	h->tcp_row_size = sizeof(*rows);
	if (tcp)
		h->nr_tcp_rows = nr_rows;
	h->stacks_off = stacks_off;
	h->stack_size = sizeof(struct kprof_stack);
	h->nr_stacks = 0;
	h->strings_off = strings_off;
	h->strings_cap = 1024;
	h->hist_buckets = KPROF_HIST_BUCKETS;
	h->hist_sub_bits = KPROF_HIST_SUB_BITS;
	/* every counter cumulative, as the rows are (API 2.0) */
	h->requests += tcp ? 100 + 10 + 5 + 1 : 0;
	h->abandoned += tcp ? 2 : 0;
	h->drops_rows += tcp ? 3 : 0;
	h->drops_stacks += env_num("KPROF_FAKE_DROPS_STACKS", 0);
	if (tcp)
		fill_rows(rows, nr_rows);
	if (h->nr_tcp_rows) {
		/* 12 and 99 are not in the mapping */
		fill_stack7(&stacks[h->nr_stacks++]);
		memcpy(region + strings_off, ksyms, sizeof(ksyms) - 1);
		len = sizeof(ksyms) - 1;
	}

	h->cpu_rows_off = api11() ? 0 : crows_off;
	h->cpu_row_size = api11() ? 0 : sizeof(struct kprof_cpu_row);
	h->sample_hz = cpu ? config.sample_hz : 0;
	h->stack_resets = 0;
	/* the fake runs at the threshold set last, or another reader's */
	h->threshold_ns = env_num("KPROF_FAKE_THRESHOLD", config.threshold_ns);
	if (cpu) {
		fill_cpu_row(&crows[0], 21, pid, "fake-app", 60);
		fill_cpu_row(&crows[1], 22, pid, "fake app", 20);
		fill_cpu_row(&crows[2], 23, pid, "fake-app", 10);
		fill_cpu_row(&crows[3], 24, 0, "ksoftirqd/1", 6);
		fill_cpu_row(&crows[4], 25, pid, "fake-app", 2);
		fill_cpu_row(&crows[5], 0, pid, "fake-app", 2);
		h->nr_cpu_rows = NR_CPU_ROWS;
		h->samples += 150;
		h->samples_idle += 50;
		h->drops_samples += 1;
	}
	if (h->nr_cpu_rows) {
		for (id = 21; id <= 25; id++) {
			struct kprof_stack *st = &stacks[h->nr_stacks++];

			fill_cpu_stack(id, st, &ks, &kl);
			if (!ks)
				continue;
			memcpy(region + strings_off + len, ks, kl);
			st->ksyms_off = len;
			len += kl;
		}
	}
	h->strings_len = len;
	if (snapshots == env_num("KPROF_FAKE_CORRUPT", 0))
		h->strings_len = h->strings_cap + 1;
	if (snapshots == env_num("KPROF_FAKE_CORRUPT_CPU", 0))
		h->cpu_row_size = 8;
	__atomic_store_n(&h->generation, generation, __ATOMIC_RELEASE);
}

/* KPROF_FAKE_ODD: the write "finishes" while the reader waits. */
static int odd_pending;

int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts,
	  const sigset_t *mask)
{
	static int (*real)(struct pollfd *, nfds_t, const struct timespec *,
			   const sigset_t *);

	if (odd_pending && region) {
		struct kprof_mmap_header *h = (void *)region;

		odd_pending = 0;
		__atomic_store_n(&h->generation, generation, __ATOMIC_RELEASE);
		fake_log("generation %llu even again",
			 (unsigned long long)generation);
	}
	if (!real)
		real = (int (*)(struct pollfd *, nfds_t, const struct timespec *,
				const sigset_t *))dlsym(RTLD_NEXT, "ppoll");
	return real(fds, n, ts, mask);
}

/*
 * KPROF_FAKE_WAITS=1: log every waitpid(), so that a test can count how
 * often a reader looked for its child's exit (a poll shows as many).
 */
pid_t waitpid(pid_t pid, int *status, int options)
{
	static pid_t (*real)(pid_t, int *, int);

	if (env_num("KPROF_FAKE_WAITS", 0))
		fake_log("waitpid");
	if (!real)
		real = (pid_t (*)(pid_t, int *, int))dlsym(RTLD_NEXT, "waitpid");
	return real(pid, status, options);
}

/* --- ioctls ---------------------------------------------------------------- */

/* sample_hz 0 on SET_CONFIG keeps the rate (99 until first set). */
static void cfg_hz_keep(struct kprof_config *cfg)
{
	cfg->sample_hz = config.sample_hz;
}

static int fail(int err)
{
	errno = err;
	return -1;
}

static void ports(char *buf, size_t len, const uint16_t *p, unsigned int n)
{
	size_t used = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < n && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%u", i ? "," : "",
				 p[i]);
}

static int get_stack(struct kprof_stack_query *q)
{
	static const char k12[] = "tcp_recvmsg+0x0/0x1e0\0inet_recvmsg+0x5a/0x120\0";
	uint32_t id = q->id;
	const char *ks;
	size_t kl;

	fake_log("GET_STACK id=%u", id);
	if (q->size != sizeof(*q))
		return fail(EINVAL);
	memset(&q->stack, 0, sizeof(*q) - offsetof(struct kprof_stack_query, stack));
	if (id == 7) {
		fill_stack7(&q->stack);
		memcpy(q->ksyms, ksyms, sizeof(ksyms));
		return 0;
	}
	if (!fill_cpu_stack(id, &q->stack, &ks, &kl)) {
		if (ks)
			memcpy(q->ksyms, ks, kl);
		/* GET_STACK resolves what the export could not */
		if (id == 25) {
			q->stack.ksyms_off = 0;
			q->stack.nr_kernel = 1;
			memcpy(q->ksyms, "vfs_read+0x9d/0x1a0", 20);
		}
		return 0;
	}
	if (id == 12) {
		q->stack.id = 12;
		q->stack.nr_kernel = 2;
		memcpy(q->ksyms, k12, sizeof(k12));
		memcpy(q->stack.comm, "kworker/0:1", 11);
		return 0;
	}
	return fail(ENOENT);
}

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real)(int, unsigned long, ...);
	struct kprof_info *info;
	struct kprof_config *cfg;
	struct kprof_ctl *ctl;
	struct kprof_snapshot *snap;
	char rp[128], lp[128];
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd < 0 || fd != fake_fd) {
		if (!real)
			real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
		return real(fd, req, arg);
	}

	switch (req) {
	case KPROF_IOC_GET_INFO:
		info = arg;
		fake_log("GET_INFO");
		memset(info, 0, sizeof(*info));
		/* an old module: API 1.0 or 1.1, refused by this reader */
		info->api_major = old_api() ? 1 : KPROF_API_MAJOR;
		info->nr_cpu_ids = 2;
		info->nr_online_cpus = 2;
		snprintf(info->version, sizeof(info->version), "0.0.0-fake");
		if (env_num("KPROF_FAKE_OLD", 0)) {
			info->size = KPROF_INFO_SIZE_VER0;
			return 0;
		}
		info->size = sizeof(*info);
		info->api_minor = api11() ? 1 : KPROF_API_MINOR;
		info->features = env_num("KPROF_FAKE_FEATURES",
					 KPROF_FEAT_TCP_LATENCY |
					 KPROF_FEAT_USER_STACKS |
					 KPROF_FEAT_KSYMS |
					 (api11() ? 0 : KPROF_FEAT_CPU_SAMPLING));
		info->attach = KPROF_ATTACH_TCP_SENDMSG |
			       KPROF_ATTACH_TCP_CLEANUP_RBUF |
			       KPROF_ATTACH_TCP_DESTROY_SOCK;
		info->running = running | held;
		if (sessions()) {
			info->sessions = 1 + !!running;
			info->holders_tcp = !!(running & KPROF_RUN_TCP) +
					    !!(held & KPROF_RUN_TCP);
			info->holders_cpu = !!(running & KPROF_RUN_CPU) +
					    !!(held & KPROF_RUN_CPU);
		}
		info->mmap_size = MAP_SIZE;
		info->tcp_rows_max = 1024;
		info->stacks_max = 1024;
		info->inflight_max = 4096;
		return 0;
	case KPROF_IOC_SET_CONFIG:
		cfg = arg;
		if (cfg->size != sizeof(*cfg))
			return fail(EINVAL);
		ports(rp, sizeof(rp), cfg->rports, cfg->nr_rports);
		ports(lp, sizeof(lp), cfg->lports, cfg->nr_lports);
		fake_log("SET_CONFIG tgid=%u roles=%u families=%u threshold_ns=%llu rports=%s lports=%s sample_hz=%u",
		     cfg->tgid, cfg->roles, cfg->families,
		     (unsigned long long)cfg->threshold_ns, rp, lp,
		     cfg->sample_hz);
		if (cfg->nr_rports > KPROF_MAX_PORTS ||
		    cfg->nr_lports > KPROF_MAX_PORTS || cfg->roles & ~6 ||
		    cfg->families & ~3 || cfg->threshold_ns > 100000000000ULL ||
		    cfg->sample_hz > KPROF_SAMPLE_HZ_MAX ||
		    (api11() && cfg->sample_hz))	/* reserved in 1.1 */
			return fail(EINVAL);
		if (!cfg->sample_hz)
			cfg_hz_keep(cfg);
		config = *cfg;
		return 0;
	case KPROF_IOC_GET_CONFIG:
		fake_log("GET_CONFIG");
		cfg = arg;
		*cfg = config;
		/* Someone else's configuration. */
		cfg->tgid = 4242;
		cfg->sample_hz = api11() ? 0 : 49;
		return 0;
	case KPROF_IOC_START:
	case KPROF_IOC_STOP:
		ctl = arg;
		fake_log("%s what=%u", req == KPROF_IOC_START ? "START" : "STOP",
		     ctl->what);
		if (req == KPROF_IOC_START && env_num("KPROF_FAKE_START_ERRNO", 0))
			return fail(env_num("KPROF_FAKE_START_ERRNO", 0));
		if (!ctl->what || ctl->what & ~(api11() ? KPROF_RUN_TCP :
						KPROF_RUN_ALL))
			return fail(EINVAL);
		if (!sessions() && req == KPROF_IOC_START)
			running |= ctl->what;
		else if (!sessions())
			running &= ~ctl->what;
		else if (req == KPROF_IOC_START)
			held |= ctl->what;
		else
			held &= ~ctl->what;
		return 0;
	case KPROF_IOC_SNAPSHOT:
		snap = arg;
		snapshots++;
		publish();
		snap->generation = generation;
		/* Another reader's snapshot lands before we copy ours. */
		if (snapshots == env_num("KPROF_FAKE_STEAL", 0))
			publish();
		if (snapshots == env_num("KPROF_FAKE_ODD", 0)) {
			__atomic_store_n(&((struct kprof_mmap_header *)region)->generation,
					 generation + 1, __ATOMIC_RELEASE);
			odd_pending = 1;
		}
		fake_log("SNAPSHOT %u gen=%llu", snapshots,
		     (unsigned long long)snap->generation);
		return 0;
	case KPROF_IOC_GET_STACK:
		return get_stack(arg);
	}
	fake_log("ioctl 0x%lx", req);
	return fail(ENOTTY);
}
