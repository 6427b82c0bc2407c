// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/kprof under random input: ioctls with random command numbers,
 * sizes, pointers and struct contents, and mmap() with odd lengths,
 * offsets, protections and flags.  Every call must succeed or fail with
 * an errno that uapi/linux/kprof.h and kprofmod(4) document; afterwards
 * the module must still work, unload, and the kernel log must be clean.
 *
 * The random sequence comes from one seed, printed first: KPROF_FUZZ_SEED
 * replays a run, KPROF_FUZZ_CALLS changes the number of random calls
 * (default 100000, on top of a fixed sweep of every command number).
 */
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>

#include "kselftest_harness.h"
#include "kprof_test.h"

#define NR_CMDS		11	/* KPROF_IOC_GET_INFO .. KPROF_IOC_GET_SESSIONS */
#define MAX_SIZE	((1u << _IOC_SIZEBITS) - 1)
#define BUF_PAGES	4	/* room for the largest claimable struct */
#define ALIGN_UP(x, a)	(((x) + (a) - 1) / (a) * (a))

/*
 * Diagnostics go to stderr: each test runs in a child of the harness,
 * whose buffered stdout would be lost when it exits.
 */
#define note(fmt, ...)	fprintf(stderr, "# " fmt, ##__VA_ARGS__)

/* --- a small, reproducible PRNG (xorshift64*) --- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static uint32_t rnd_below(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

static void rnd_bytes(void *p, size_t n)
{
	uint8_t *b = p;

	while (n--)
		*b++ = rnd();
}

static uint64_t seed_from_env(void)
{
	const char *s = getenv("KPROF_FUZZ_SEED");
	struct timespec ts;

	if (s && *s)
		return strtoull(s, NULL, 0);
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000007ull ^ ts.tv_nsec ^ getpid();
}

/* The 32-bit build (compat ioctl path) makes fewer calls. */
#ifndef FUZZ_CALLS
#define FUZZ_CALLS	100000
#endif

static unsigned long calls_from_env(void)
{
	const char *s = getenv("KPROF_FUZZ_CALLS");

	return s && *s ? strtoul(s, NULL, 0) : FUZZ_CALLS;
}

/* The mmap tests use 64-bit lengths and offsets. */
#define SKIP_32BIT() do {						\
		if (sizeof(long) < 8)					\
			SKIP(return, "64-bit lengths and offsets");	\
	} while (0)

/* --- the commands as the module knows them --- */

struct cmd_desc {
	unsigned int cmd;
	unsigned int ver0;
	unsigned int ksize;
	int out;		/* the module writes the struct back */
};

static const struct cmd_desc cmds[NR_CMDS] = {
	{ KPROF_IOC_GET_INFO, KPROF_INFO_SIZE_VER0, sizeof(struct kprof_info), 1 },
	{ KPROF_IOC_START, KPROF_CTL_SIZE_VER0, sizeof(struct kprof_ctl), 0 },
	{ KPROF_IOC_STOP, KPROF_CTL_SIZE_VER0, sizeof(struct kprof_ctl), 0 },
	{ KPROF_IOC_RESET, KPROF_CTL_SIZE_VER0, sizeof(struct kprof_ctl), 0 },
	{ KPROF_IOC_SET_CONFIG, KPROF_CONFIG_SIZE_VER0,
	  sizeof(struct kprof_config), 0 },
	{ KPROF_IOC_GET_CONFIG, KPROF_CONFIG_SIZE_VER0,
	  sizeof(struct kprof_config), 1 },
	{ KPROF_IOC_SNAPSHOT, KPROF_SNAPSHOT_SIZE_VER0,
	  sizeof(struct kprof_snapshot), 1 },
	{ KPROF_IOC_GET_STATS, KPROF_STATS_SIZE_VER0,
	  sizeof(struct kprof_stats), 1 },
	{ KPROF_IOC_GET_STACK, KPROF_STACK_QUERY_SIZE_VER0,
	  sizeof(struct kprof_stack_query), 1 },
	{ KPROF_IOC_GET_CPU_COST, KPROF_CPU_COST_SIZE_VER0,
	  sizeof(struct kprof_cpu_cost), 1 },
	{ KPROF_IOC_GET_SESSIONS, KPROF_SESSIONS_SIZE_VER0,
	  sizeof(struct kprof_sessions), 1 },
};

/* The command a number names, ignoring the size bits, or NULL. */
static const struct cmd_desc *cmd_lookup(unsigned int cmd)
{
	unsigned int key = cmd & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT);
	int i;

	for (i = 0; i < NR_CMDS; i++)
		if ((cmds[i].cmd & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT)) == key)
			return &cmds[i];
	return NULL;
}

/*
 * Commands the VFS answers itself, for every file, before the driver
 * sees them (fs/ioctl.c): never sent, some change the file or the
 * filesystem (FIFREEZE).  Everything else of another magic must reach
 * kprofmod and get ENOTTY.
 */
static int vfs_generic(unsigned int cmd)
{
	static const unsigned int generic[] = {
		FIOCLEX, FIONCLEX, FIONBIO, FIOASYNC, FIOQSIZE, FIONREAD,
		_IOWR('X', 119, int) /* FIFREEZE */,
		_IOWR('X', 120, int) /* FITHAW */,
		_IOWR('f', 11, char[32]) /* FS_IOC_FIEMAP */,
		_IO(0x00, 1) /* FIBMAP */, _IO(0x00, 2) /* FIGETBSZ */,
		_IOW(0x94, 9, int) /* FICLONE */,
		_IOW(0x94, 13, char[32]) /* FICLONERANGE */,
		_IOWR(0x94, 54, char[24]) /* FIDEDUPERANGE */,
		_IOR('f', 1, long), _IOW('f', 2, long),	/* FS_IOC_[GS]ETFLAGS */
		_IOR('X', 31, char[28]), _IOW('X', 32, char[28]),	/* FSGETXATTR */
	};
	unsigned int i;

	/* the sizes of the FS_IOC_* numbers vary: compare type and nr */
	for (i = 0; i < ARRAY_SIZE(generic); i++)
		if (_IOC_TYPE(cmd) == _IOC_TYPE(generic[i]) &&
		    _IOC_NR(cmd) == _IOC_NR(generic[i]))
			return 1;
	/* the old FS_IOC_RESVSP family, 'X' 40..43, 'X' 95..96 */
	if (_IOC_TYPE(cmd) == 'X')
		return 1;
	return 0;
}

/* --- where the argument points --- */

enum ptr_kind {
	PTR_VALID,		/* a writable buffer, random alignment */
	PTR_NULL,
	PTR_LOW,		/* a small integer */
	PTR_UNMAPPED,		/* a PROT_NONE page */
	PTR_KERNEL,		/* kernel text, direct map, or non-canonical */
	PTR_STRADDLE,		/* struct crosses into an unmapped page */
	PTR_RDONLY,		/* a read-only page */
	PTR_DEVMAP,		/* the device's own read-only mapping */
	PTR_KINDS,
};

static const char *const ptr_names[PTR_KINDS] = {
	"valid", "null", "low", "unmapped", "kernel", "straddle", "rdonly",
	"devmap",
};

struct arena {
	uint8_t *buf;		/* BUF_PAGES writable, then one unmapped page */
	uint8_t *none;		/* a PROT_NONE page */
	uint8_t *ro;		/* a read-only page holding a valid-looking struct */
	const uint8_t *dev;	/* the kprof mapping */
	size_t devlen;
	long pg;
};

static int arena_init(struct arena *a, int fd, const struct kprof_info *info)
{
	a->pg = sysconf(_SC_PAGESIZE);
	a->buf = mmap(NULL, (BUF_PAGES + 1) * a->pg, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	a->none = mmap(NULL, a->pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	a->ro = mmap(NULL, a->pg, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	a->devlen = info->mmap_size;
	a->dev = mmap(NULL, a->devlen, PROT_READ, MAP_SHARED, fd, 0);
	if (a->buf == MAP_FAILED || a->none == MAP_FAILED ||
	    a->ro == MAP_FAILED || a->dev == MAP_FAILED)
		return -1;
	if (munmap(a->buf + BUF_PAGES * a->pg, a->pg))
		return -1;
	/* looks like a kprof_info of the current size, but cannot be written */
	*(uint32_t *)a->ro = sizeof(struct kprof_info);
	return mprotect(a->ro, a->pg, PROT_READ);
}

static void arena_fini(struct arena *a)
{
	munmap(a->buf, BUF_PAGES * a->pg);
	munmap(a->none, a->pg);
	munmap(a->ro, a->pg);
	munmap((void *)a->dev, a->devlen);
}

static const uintptr_t kernel_ptrs[] = {
	(uintptr_t)0xffffffff81000000ull,	/* kernel text */
	(uintptr_t)0xffff888000000000ull,	/* direct map */
	(uintptr_t)0xfffffffffffff000ull,	/* top page */
	(uintptr_t)0x8000000000000000ull,	/* non-canonical */
	(uintptr_t)0x0000800000000000ull,	/* just past user space */
	(uintptr_t)-1,
};

/* --- struct contents --- */

/* A plausible struct for @d in @p (@size bytes, already zeroed). */
static void fill_valid(const struct cmd_desc *d, uint8_t *p, unsigned int size)
{
	unsigned int n = size < d->ksize ? size : d->ksize;
	/* room for any struct a command may have (at most 4096 bytes) */
	union {
		struct kprof_ctl ctl;
		struct kprof_config cfg;
		struct kprof_stack_query q;
		uint8_t raw[4096];
	} u;
	unsigned int i;

	memset(&u, 0, sizeof(u));
	switch (d->cmd) {
	case KPROF_IOC_START:
	case KPROF_IOC_STOP:
	case KPROF_IOC_RESET:
		/*
		 * Valid bits a quarter of the time: arming kprobes and
		 * creating perf events is slow under TCG.  RESET_STACKS
		 * while running is EBUSY.
		 */
		u.ctl.what = rnd_below(4) ? (uint32_t)rnd() : rnd_below(4);
		if (!rnd_below(16))
			u.ctl.reserved = rnd();
		break;
	case KPROF_IOC_SET_CONFIG:
		u.cfg.roles = rnd_below(8) ? rnd_below(8) & 6 : rnd();
		u.cfg.families = rnd_below(8) ? rnd_below(4) : rnd();
		u.cfg.tgid = rnd_below(4) ? 0 : (rnd_below(2) ? getpid() :
						 (uint32_t)rnd());
		u.cfg.threshold_ns = rnd_below(4) ? rnd() % 200000000000ull :
				     rnd();
		u.cfg.nr_rports = rnd_below(8) ? rnd_below(KPROF_MAX_PORTS + 1) :
				  (uint16_t)rnd();
		u.cfg.nr_lports = rnd_below(8) ? rnd_below(KPROF_MAX_PORTS + 1) :
				  (uint16_t)rnd();
		for (i = 0; i < KPROF_MAX_PORTS; i++) {
			u.cfg.rports[i] = rnd_below(32) ? 1 + rnd_below(65535) : 0;
			u.cfg.lports[i] = rnd_below(32) ? 1 + rnd_below(65535) : 0;
		}
		/* sampling rates stay low: TCG runs this */
		u.cfg.sample_hz = rnd_below(8) ? 0 : rnd_below(4) ?
				  1 + rnd_below(499) : rnd_below(20000);
		u.cfg.cgroup_id = rnd_below(8) ? 0 : rnd_below(2) ? 1 : rnd();
		if (!rnd_below(16))
			u.cfg.reserved[rnd_below(2)] = rnd();
		if (!rnd_below(16))
			u.cfg.reserved0 = rnd();
		break;
	case KPROF_IOC_SNAPSHOT:
		/* snapshots wait for a grace period: mostly refused ones */
		if (rnd_below(8))
			((struct kprof_snapshot *)&u)->generation = 1 + rnd_below(7);
		break;
	case KPROF_IOC_GET_STACK:
		u.q.id = rnd_below(2) ? rnd_below(64) : (uint32_t)rnd();
		if (rnd_below(2))
			rnd_bytes(&u.q.stack, sizeof(u.q.stack));
		break;
	default:	/* GET_*: output only, reserved fields */
		if (!rnd_below(8))
			u.raw[4 + rnd_below(d->ksize - 4)] = rnd();
		break;
	}
	memcpy(p, &u, n);
	*(uint32_t *)p = size;
}

enum fill_kind {
	FILL_ZERO,		/* size field only */
	FILL_RANDOM,		/* every byte random, size field too */
	FILL_TAIL,		/* right size, random tail */
	FILL_VALID,		/* a plausible struct */
	FILL_VALID_TAIL,	/* a plausible struct, a non-zero byte past it */
	FILL_KINDS,
};

static void fill(const struct cmd_desc *d, uint8_t *p, unsigned int size,
		 enum fill_kind k)
{
	memset(p, 0, size);
	switch (k) {
	case FILL_RANDOM:
		rnd_bytes(p, size);
		break;
	case FILL_TAIL:
		rnd_bytes(p, size);
		if (size >= 4)
			*(uint32_t *)p = size;
		break;
	case FILL_VALID:
	case FILL_VALID_TAIL:
		if (d && size >= 4)
			fill_valid(d, p, size);
		if (k == FILL_VALID_TAIL && d && size > d->ksize)
			p[d->ksize + rnd_below(size - d->ksize)] = 1 + rnd_below(255);
		break;
	default:
		if (size >= 4)
			*(uint32_t *)p = size;
		break;
	}
}

/* --- one call and its verdict --- */

struct stats {
	double secs[NR_CMDS + 1][2];	/* by command (last: others), ok */
	unsigned long n[NR_CMDS + 1][2];
	unsigned long calls;
	unsigned long ok;
	unsigned long err[134];
	unsigned long per_ptr[PTR_KINDS];
	unsigned long bad;
};

/* errno values kprofmod(4) documents for an ioctl, as root */
static int documented(int e)
{
	switch (e) {
	case ENOTTY: case EINVAL: case EFAULT: case EBUSY: case EOPNOTSUPP:
	case ENOMEM: case ENOENT:
		return 1;
	}
	return 0;
}

/*
 * Issue @cmd on @arg and check the answer against what the ABI says for
 * it; returns 0 or the unexpected errno (-1: success where it must fail).
 */
static int check_call(int fd, unsigned int cmd, void *arg, enum ptr_kind pk,
		      struct stats *st)
{
	const struct cmd_desc *d = cmd_lookup(cmd);
	int known = d && _IOC_DIR(cmd) == _IOC_DIR(d->cmd);
	int k = known ? (int)(d - cmds) : NR_CMDS;
	struct timespec t0, t1;
	int ret, e;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = ioctl(fd, cmd, arg);
	e = ret ? errno : 0;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	st->secs[k][!e] += (t1.tv_sec - t0.tv_sec) +
			   (t1.tv_nsec - t0.tv_nsec) / 1e9;
	st->n[k][!e]++;
	st->calls++;
	st->per_ptr[pk]++;
	if (!e)
		st->ok++;
	else if (e < (int)(ARRAY_SIZE(st->err)))
		st->err[e]++;

	if (ret && ret != -1)
		return -2;
	if (!known)
		return e == ENOTTY ? 0 : e ? e : -1;
	if (e && !documented(e))
		return e;
	if (e == ENOTTY)
		return e;	/* a known command must be recognised */
	/* the size field cannot be read */
	if (pk == PTR_NULL || pk == PTR_LOW || pk == PTR_UNMAPPED ||
	    pk == PTR_KERNEL)
		return e == EFAULT ? 0 : e ? e : -1;
	/* a read-only struct of a command that writes back */
	if ((pk == PTR_RDONLY || pk == PTR_DEVMAP) && d->out && !e)
		return -1;
	return 0;
}

static void *pick_ptr(struct arena *a, enum ptr_kind pk, unsigned int size,
		      uint8_t **fillp)
{
	unsigned int off;

	*fillp = NULL;
	switch (pk) {
	case PTR_VALID:
		/* anywhere the struct fits, often unaligned */
		off = rnd_below(2) ? rnd_below(64) : 0;
		if (size + off > BUF_PAGES * a->pg)
			off = 0;
		if (size > BUF_PAGES * a->pg)
			size = BUF_PAGES * a->pg;
		*fillp = a->buf + off;
		return a->buf + off;
	case PTR_NULL:
		return NULL;
	case PTR_LOW:
		return (void *)(uintptr_t)(1 + rnd_below(65535));
	case PTR_UNMAPPED:
		return a->none + rnd_below(a->pg);
	case PTR_KERNEL:
		return (void *)(kernel_ptrs[rnd_below(sizeof(kernel_ptrs) /
						      sizeof(kernel_ptrs[0]))] +
				(rnd_below(2) ? rnd_below(4096) : 0));
	case PTR_STRADDLE: {
		/* the size field readable, the struct's end past the buffer */
		unsigned int in = 4 + rnd_below(size > 4 ? size - 4 : 1);

		if (in > size)
			in = size;
		if (in > BUF_PAGES * a->pg)
			in = BUF_PAGES * a->pg;
		*fillp = a->buf + BUF_PAGES * a->pg - in;
		return *fillp;
	}
	case PTR_RDONLY:
		return a->ro;
	case PTR_DEVMAP:
		return (void *)(a->dev + rnd_below(a->pg));
	default:
		return NULL;
	}
}

/* A command number: the families the fuzzer mixes. */
static unsigned int pick_cmd(void)
{
	const struct cmd_desc *d = &cmds[rnd_below(NR_CMDS)];
	unsigned int dir = rnd_below(4), size;

	switch (rnd_below(10)) {
	case 0: case 1: case 2: case 3:	/* known, its own size */
		return d->cmd;
	case 4:				/* known, another accepted size */
		size = d->ver0 + rnd_below(4096 - d->ver0 + 1);
		return _IOC(_IOC_DIR(d->cmd), KPROF_IOC_MAGIC,
			    _IOC_NR(d->cmd), size);
	case 5:				/* known, any size */
		return _IOC(_IOC_DIR(d->cmd), KPROF_IOC_MAGIC,
			    _IOC_NR(d->cmd), rnd_below(MAX_SIZE + 1));
	case 6:				/* our magic, anything */
		return _IOC(dir, KPROF_IOC_MAGIC, rnd_below(256),
			    rnd_below(MAX_SIZE + 1));
	case 7:				/* known nr, wrong direction */
		return _IOC(dir, KPROF_IOC_MAGIC, _IOC_NR(d->cmd),
			    _IOC_SIZE(d->cmd));
	case 8:				/* another magic */
		return _IOC(dir, rnd_below(256), rnd_below(256),
			    rnd_below(MAX_SIZE + 1));
	default:			/* any 32 bits */
		return (uint32_t)rnd();
	}
}

static enum ptr_kind pick_ptr_kind(void)
{
	/* half the calls get a good buffer, so contents matter */
	return rnd_below(2) ? PTR_VALID : (enum ptr_kind)rnd_below(PTR_KINDS);
}

static int do_one(int fd, struct arena *a, unsigned int cmd, enum ptr_kind pk,
		  enum fill_kind fk, struct stats *st, FILE *log)
{
	const struct cmd_desc *d = cmd_lookup(cmd);
	unsigned int size = _IOC_SIZE(cmd);
	uint8_t *p;
	void *arg;
	int bad;

	if (_IOC_TYPE(cmd) != KPROF_IOC_MAGIC && vfs_generic(cmd))
		return 0;
	if (size < 4)
		size = 4;	/* room for the size field */
	arg = pick_ptr(a, pk, size, &p);
	if (p) {
		unsigned int avail = a->buf + BUF_PAGES * a->pg - p;

		fill(d, p, avail < size ? avail : size, fk);
		/* a struct cut by the unmapped page still claims its size */
		if (avail < size && fk != FILL_RANDOM)
			*(uint32_t *)p = size;
	}
	bad = check_call(fd, cmd, arg, pk, st);
	if (bad) {
		st->bad++;
		if (st->bad <= 20)
			fprintf(log, "# call %lu: cmd 0x%08x (dir %u magic 0x%02x nr 0x%02x size %u) ptr %s fill %d: %s\n",
				st->calls, cmd, _IOC_DIR(cmd), _IOC_TYPE(cmd),
				_IOC_NR(cmd), _IOC_SIZE(cmd), ptr_names[pk], fk,
				bad == -1 ? "succeeded, must fail" :
				bad == -2 ? "returned neither 0 nor -1" :
				strerror(bad));
	}
	return bad;
}

/* --- kernel log --- */

/* Open the kernel log positioned at its end, for kmsg_clean(). */
static int kmsg_mark(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* 1 when nothing alarming was logged since kmsg_mark(). */
static int kmsg_clean(int fd)
{
	static const char *const bad[] = {
		"WARNING:", "BUG:", "Oops", "Call Trace", "kmemleak", "KASAN",
		"UBSAN", "lockdep", "refcount_t", "general protection",
		"sleeping function", "bad page", "list_add corruption",
		"list_del corruption",
	};
	char rec[8192];
	ssize_t n;
	unsigned int i;
	int clean = 1;

	if (fd < 0)
		return 1;
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records */
		if (n <= 0)
			break;
		rec[n] = '\0';
		for (i = 0; i < ARRAY_SIZE(bad); i++)
			if (strstr(rec, bad[i])) {
				fprintf(stderr, "# kernel: %s", rec);
				clean = 0;
				break;
			}
	}
	close(fd);
	return clean;
}

/* --- fixture --- */

FIXTURE(fz) {
	int fd;
	int kmsg;
	struct kprof_info info;
	struct arena a;
};

FIXTURE_SETUP(fz)
{
	ASSERT_EQ(0, kprof_test_load()) TH_LOG("cannot load kprofmod");
	self->kmsg = kmsg_mark();
	self->fd = open(KPROF_TEST_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open: %s", strerror(errno));
	memset(&self->info, 0, sizeof(self->info));
	self->info.size = sizeof(self->info);
	ASSERT_EQ(0, ioctl(self->fd, KPROF_IOC_GET_INFO, &self->info));
	ASSERT_LT(0, self->info.mmap_size);
}

FIXTURE_TEARDOWN(fz)
{
	struct kprof_ctl stop = { .size = sizeof(stop), .what = KPROF_RUN_ALL };

	if (self->fd >= 0) {
		ioctl(self->fd, KPROF_IOC_STOP, &stop);
		close(self->fd);
	}
	EXPECT_TRUE(kmsg_clean(self->kmsg)) TH_LOG("the kernel logged a splat");
}

/* A normal session: configure, start, snapshot, read the header, stop. */
static int session_works(int fd, const struct kprof_info *info)
{
	struct kprof_config cfg = { .size = sizeof(cfg), .sample_hz = 99,
				    .threshold_ns = 1000000 };
	struct kprof_ctl ctl = { .size = sizeof(ctl), .what = KPROF_RUN_ALL };
	struct kprof_snapshot s1 = { .size = sizeof(s1) };
	struct kprof_snapshot s2 = { .size = sizeof(s2) };
	const struct kprof_mmap_header *h;
	int ok;

	if (ioctl(fd, KPROF_IOC_SET_CONFIG, &cfg) ||
	    ioctl(fd, KPROF_IOC_START, &ctl) ||
	    ioctl(fd, KPROF_IOC_SNAPSHOT, &s1) ||
	    ioctl(fd, KPROF_IOC_SNAPSHOT, &s2) ||
	    ioctl(fd, KPROF_IOC_STOP, &ctl))
		return 0;
	h = mmap(NULL, info->mmap_size, PROT_READ, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		return 0;
	ok = h->magic == KPROF_MMAP_MAGIC && h->generation == s2.generation &&
	     !(s1.generation & 1) && s2.generation == s1.generation + 2 &&
	     h->mmap_size == info->mmap_size;
	munmap((void *)h, info->mmap_size);
	return ok;
}

static void print_stats(const struct stats *st, FILE *log)
{
	unsigned int i;

	fprintf(log, "# %lu calls: %lu succeeded", st->calls, st->ok);
	for (i = 1; i < ARRAY_SIZE(st->err); i++)
		if (st->err[i])
			fprintf(log, ", %lu %s", st->err[i], strerror(i));
	fprintf(log, "\n# pointers:");
	for (i = 0; i < PTR_KINDS; i++)
		fprintf(log, " %s %lu", ptr_names[i], st->per_ptr[i]);
	fprintf(log, "\n# time in the kernel, by command nr (0: not ours), failed/succeeded:");
	for (i = 0; i <= NR_CMDS; i++)
		fprintf(log, " %u: %.1fs/%lu %.1fs/%lu",
			i < NR_CMDS ? _IOC_NR(cmds[i].cmd) : 0,
			st->secs[i][0], st->n[i][0], st->secs[i][1], st->n[i][1]);
	fprintf(log, "\n");
}

/*
 * Every number of our magic, every direction, and the sizes around each
 * boundary the module checks; then random calls.
 */
TEST_F_TIMEOUT(fz, ioctls, 900)
{
	static const unsigned int sizes[] = {
		0, 1, 3, 4, 8, 15, 16, 17, 63, 64, 65, 71, 72, 73, 103, 104,
		105, 127, 128, 129, 215, 216, 217, 2343, 2344, 2345, 4095,
		4096, 4097, 8192, MAX_SIZE,
	};
	unsigned long n = calls_from_env(), sweep;
	uint64_t seed = seed_from_env();
	struct stats st = { 0 };
	struct timespec t0, t1;
	unsigned int nr, dir, s;

	ASSERT_EQ(0, arena_init(&self->a, self->fd, &self->info));
	rng_state = seed ? seed : 1;
	note("seed %" PRIu64 " (KPROF_FUZZ_SEED=%" PRIu64 " replays), %lu random calls\n",
		       seed, seed, n);
	clock_gettime(CLOCK_MONOTONIC, &t0);

	for (nr = 0; nr < 256; nr++)
		for (dir = 0; dir < 4; dir++)
			for (s = 0; s < ARRAY_SIZE(sizes); s++)
				do_one(self->fd, &self->a,
				       _IOC(dir, KPROF_IOC_MAGIC, nr, sizes[s]),
				       PTR_VALID, rnd_below(2) ? FILL_ZERO :
				       FILL_VALID, &st, stderr);
	sweep = st.calls;
	/* the commands the VFS answers itself are drawn but not sent */
	while (st.calls - sweep < n)
		do_one(self->fd, &self->a, pick_cmd(), pick_ptr_kind(),
		       rnd_below(FILL_KINDS), &st, stderr);

	clock_gettime(CLOCK_MONOTONIC, &t1);
	print_stats(&st, stderr);
	note("%.1f s, seed %" PRIu64 "\n",
		       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
		       seed);
	arena_fini(&self->a);
	EXPECT_EQ(0, st.bad) TH_LOG("%lu calls answered outside the ABI, seed %" PRIu64,
				     st.bad, seed);
	EXPECT_LE(n, st.calls - sweep);
	/* and the module still does its job */
	EXPECT_TRUE(session_works(self->fd, &self->info));
}

/* Without CAP_PERFMON and CAP_SYS_ADMIN: only EPERM and ENOTTY. */
TEST_F(fz, ioctls_unprivileged)
{
	uint64_t seed = seed_from_env() ^ 0x5eed;
	int status;
	pid_t pid;

	ASSERT_EQ(0, arena_init(&self->a, self->fd, &self->info));
	note("seed %" PRIu64 "\n", seed);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		unsigned long i, bad = 0;

		rng_state = seed ? seed : 1;
		if (kprof_test_drop_caps())
			_exit(2);
		for (i = 0; i < 5000; i++) {
			unsigned int cmd = pick_cmd();
			const struct cmd_desc *d = cmd_lookup(cmd);
			int e;

			if (_IOC_TYPE(cmd) != KPROF_IOC_MAGIC && vfs_generic(cmd))
				continue;
			fill(d, self->a.buf, 64, rnd_below(FILL_KINDS));
			e = ioctl(self->fd, cmd, self->a.buf) ? errno : 0;
			if (d && _IOC_DIR(cmd) == _IOC_DIR(d->cmd) ?
			    e != EPERM : e != ENOTTY) {
				if (bad++ < 10)
					fprintf(stderr, "# cmd 0x%08x: %s\n",
						cmd, e ? strerror(e) : "success");
			}
		}
		_exit(bad ? 1 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	arena_fini(&self->a);
}

/* --- mmap --- */

static int map_errno(int fd, size_t len, int prot, int flags, off_t off,
		     void **out)
{
	void *p = mmap(NULL, len, prot, flags, fd, off);

	if (out)
		*out = p == MAP_FAILED ? NULL : p;
	if (p == MAP_FAILED)
		return errno;
	if (!out)
		munmap(p, len);
	return 0;
}

TEST_F(fz, mmap_lengths)
{
	size_t sz = self->info.mmap_size;
	long pg = sysconf(_SC_PAGESIZE);
	const struct kprof_mmap_header *h;
	void *p;
	int e;

	SKIP_32BIT();

	EXPECT_EQ(EINVAL, map_errno(self->fd, 0, PROT_READ, MAP_SHARED, 0, NULL));
	/* short mappings are fine: the header comes first */
	ASSERT_EQ(0, map_errno(self->fd, 1, PROT_READ, MAP_SHARED, 0, &p));
	h = p;
	EXPECT_EQ(KPROF_MMAP_MAGIC, h->magic);
	munmap(p, 1);
	ASSERT_EQ(0, map_errno(self->fd, pg - 1, PROT_READ, MAP_SHARED, 0, &p));
	h = p;
	EXPECT_EQ(KPROF_MMAP_MAGIC, h->magic);
	munmap(p, pg - 1);
	EXPECT_EQ(0, map_errno(self->fd, sz - 1, PROT_READ, MAP_SHARED, 0, NULL));
	EXPECT_EQ(0, map_errno(self->fd, sz, PROT_READ, MAP_SHARED, 0, NULL));
	/* more than the region */
	EXPECT_EQ(EINVAL, map_errno(self->fd, sz + 1, PROT_READ, MAP_SHARED, 0,
				    NULL));
	EXPECT_EQ(EINVAL, map_errno(self->fd, sz + pg, PROT_READ, MAP_SHARED, 0,
				    NULL));
	EXPECT_EQ(EINVAL, map_errno(self->fd, (size_t)(1ULL << 40), PROT_READ,
				    MAP_SHARED, 0, NULL));
	e = map_errno(self->fd, (size_t)-1 - pg, PROT_READ, MAP_SHARED, 0, NULL);
	EXPECT_TRUE(e == ENOMEM || e == EINVAL) TH_LOG("huge: %s", strerror(e));
}

TEST_F(fz, mmap_offsets)
{
	size_t sz = self->info.mmap_size;
	long pg = sysconf(_SC_PAGESIZE);
	int e;

	SKIP_32BIT();

	EXPECT_EQ(EINVAL, map_errno(self->fd, pg, PROT_READ, MAP_SHARED, pg, NULL));
	EXPECT_EQ(EINVAL, map_errno(self->fd, pg, PROT_READ, MAP_SHARED, 1, NULL));
	EXPECT_EQ(EINVAL, map_errno(self->fd, pg, PROT_READ, MAP_SHARED, 8, NULL));
	EXPECT_EQ(EINVAL, map_errno(self->fd, pg, PROT_READ, MAP_SHARED, sz, NULL));
	EXPECT_EQ(EINVAL, map_errno(self->fd, pg, PROT_READ, MAP_SHARED,
				    sz + pg, NULL));
	e = map_errno(self->fd, pg, PROT_READ, MAP_SHARED,
		      (off_t)(1ULL << 62), NULL);
	EXPECT_TRUE(e == EINVAL || e == EOVERFLOW) TH_LOG("%s", strerror(e));
	e = map_errno(self->fd, pg, PROT_READ, MAP_SHARED, -pg, NULL);
	EXPECT_TRUE(e == EINVAL || e == EOVERFLOW) TH_LOG("%s", strerror(e));
	/* and the same as a private mapping */
	EXPECT_EQ(EINVAL, map_errno(self->fd, pg, PROT_READ, MAP_PRIVATE, pg, NULL));
}

/* Nothing makes the region writable, and no write reaches it. */
TEST_F(fz, mmap_never_writable)
{
	size_t sz = self->info.mmap_size;
	struct kprof_mmap_header before;
	const struct kprof_mmap_header *sh;
	uint8_t *priv, junk[64];
	int ro, mem;
	void *p;

	ro = open(KPROF_TEST_DEV, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, ro);
	/* shared and writable: the VFS refuses for O_RDONLY, the module else */
	EXPECT_EQ(EACCES, map_errno(ro, sz, PROT_READ | PROT_WRITE, MAP_SHARED,
				    0, NULL));
	EXPECT_EQ(EPERM, map_errno(self->fd, sz, PROT_READ | PROT_WRITE,
				   MAP_SHARED, 0, NULL));
	EXPECT_EQ(EPERM, map_errno(self->fd, sz, PROT_WRITE, MAP_SHARED, 0, NULL));
	/* a private, writable copy would be a COW of the region: refused */
	EXPECT_EQ(EPERM, map_errno(self->fd, sz, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE, 0, NULL));
	EXPECT_EQ(EPERM, map_errno(ro, sz, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE, 0, NULL));
	close(ro);

	/* read-only mappings cannot be upgraded */
	ASSERT_EQ(0, map_errno(self->fd, sz, PROT_READ, MAP_SHARED, 0, &p));
	sh = p;
	EXPECT_EQ(-1, mprotect(p, sz, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	ASSERT_EQ(0, map_errno(self->fd, sz, PROT_READ, MAP_PRIVATE, 0, &p));
	priv = p;
	EXPECT_EQ(-1, mprotect(priv, sz, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(-1, mprotect(priv, sysconf(_SC_PAGESIZE), PROT_WRITE));

	/* a forced write (as a debugger does) of either mapping fails */
	memcpy(&before, sh, sizeof(before));
	memset(junk, 0xa5, sizeof(junk));
	mem = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, mem);
	EXPECT_EQ(-1, pwrite(mem, junk, sizeof(junk), (off_t)(uintptr_t)priv));
	EXPECT_EQ(-1, pwrite(mem, junk, sizeof(junk), (off_t)(uintptr_t)sh));
	close(mem);
	EXPECT_EQ(0, memcmp(&before, sh, sizeof(before)));
	EXPECT_EQ(0, memcmp(&before, priv, sizeof(before)));
	EXPECT_EQ(KPROF_MMAP_MAGIC, sh->magic);
	munmap(priv, sz);
	munmap((void *)sh, sz);
}

/* PROT_EXEC follows the mount of /dev: allowed unless it is noexec. */
TEST_F(fz, mmap_exec)
{
	size_t sz = self->info.mmap_size;
	struct statvfs vfs;
	const uint8_t *p;
	void *q;
	int e;

	ASSERT_EQ(0, statvfs(KPROF_TEST_DEV, &vfs));
	e = map_errno(self->fd, sz, PROT_READ | PROT_EXEC, MAP_SHARED, 0, &q);
	EXPECT_EQ((vfs.f_flag & ST_NOEXEC) ? EPERM : 0, e);
	if (q)
		munmap(q, sz);
	ASSERT_EQ(0, map_errno(self->fd, sz, PROT_READ, MAP_SHARED, 0, &q));
	p = q;
	e = mprotect(q, sz, PROT_READ | PROT_EXEC) ? errno : 0;
	EXPECT_EQ((vfs.f_flag & ST_NOEXEC) ? EACCES : 0, e);
	EXPECT_EQ(-1, mprotect(q, sz, PROT_READ | PROT_WRITE | PROT_EXEC));
	EXPECT_EQ(KPROF_MMAP_MAGIC, ((const struct kprof_mmap_header *)p)->magic);
	munmap(q, sz);
}

/* The mapping cannot grow; it can shrink, move, be split and inherited. */
TEST_F(fz, mremap_munmap_fork)
{
	size_t sz = self->info.mmap_size;
	long pg = sysconf(_SC_PAGESIZE);
	struct kprof_snapshot snap = { .size = sizeof(snap) };
	const struct kprof_mmap_header *h;
	uint64_t gen;
	int status;
	void *p, *q;
	pid_t pid;

	ASSERT_EQ(0, map_errno(self->fd, sz, PROT_READ, MAP_SHARED, 0, &p));
	q = mremap(p, sz, sz + pg, 0);
	EXPECT_TRUE(q == MAP_FAILED) TH_LOG("grew in place");
	if (q == MAP_FAILED)
		EXPECT_EQ(EFAULT, errno);
	q = mremap(p, sz, 2 * sz, MREMAP_MAYMOVE);
	EXPECT_TRUE(q == MAP_FAILED) TH_LOG("grew by moving");
	if (q == MAP_FAILED)
		EXPECT_EQ(EFAULT, errno);
	/* moving without growing keeps the contents */
	q = mremap(p, sz, sz, MREMAP_MAYMOVE);
	ASSERT_TRUE(q != MAP_FAILED);
	h = q;
	EXPECT_EQ(KPROF_MMAP_MAGIC, h->magic);
	if (sz > 2 * (size_t)pg) {
		/* shrink, then punch a hole: what is left stays readable */
		q = mremap(q, sz, sz - pg, 0);
		ASSERT_TRUE(q != MAP_FAILED);
		h = q;
		ASSERT_EQ(0, munmap((uint8_t *)q + pg, pg));
		EXPECT_EQ(KPROF_MMAP_MAGIC, h->magic);
		(void)((const volatile uint8_t *)q)[sz - pg - 1];
		munmap(q, sz - pg);
		ASSERT_EQ(0, map_errno(self->fd, sz, PROT_READ, MAP_SHARED, 0, &q));
		h = q;
	}

	/*
	 * A child does not inherit the mapping (VM_DONTCOPY); a snapshot it
	 * takes through the inherited descriptor shows in the parent's.
	 */
	gen = h->generation;
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(ioctl(self->fd, KPROF_IOC_SNAPSHOT, &snap) ? 1 : 0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_EQ(gen + 2, h->generation);
	munmap(q, sz);
}

/*
 * After MADV_DONTNEED the dropped pages are not mapped again: touching
 * one raises SIGBUS (kprofmod(4)), in a shared or a private mapping;
 * never zeros or someone else's memory.
 */
TEST_F(fz, madvise_dontneed)
{
	size_t sz = self->info.mmap_size;
	int flags[] = { MAP_SHARED, MAP_PRIVATE }, i, status;
	pid_t pid;

	for (i = 0; i < 2; i++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			const volatile struct kprof_mmap_header *h;
			void *p = mmap(NULL, sz, PROT_READ, flags[i],
				       self->fd, 0);

			if (p == MAP_FAILED)
				_exit(10);
			h = p;
			if (h->magic != KPROF_MMAP_MAGIC)
				_exit(11);
			if (madvise(p, sz, MADV_DONTNEED))
				_exit(12);
			/* SIGBUS here; anything read is wrong */
			_exit(h->magic == KPROF_MMAP_MAGIC ? 14 : 13);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		if (WIFSIGNALED(status))
			note("%s mapping after MADV_DONTNEED: signal %d\n",
				       i ? "private" : "shared", WTERMSIG(status));
		else
			note("%s mapping after MADV_DONTNEED: exit %d\n",
				       i ? "private" : "shared",
				       WEXITSTATUS(status));
		EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS);
	}
}

/*
 * Any madvise() advice on any part of either kind of mapping: it
 * succeeds or fails with a madvise(2) errno, and afterwards the region
 * (as a fresh mapping shows it) is unchanged, whatever the process that
 * gave the advice sees (the page, or SIGBUS for a page it dropped).
 */
TEST_F(fz, madvise_random)
{
	size_t sz = self->info.mmap_size;
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t seed = seed_from_env() ^ 0xad51ce;
	struct kprof_mmap_header before;
	unsigned int i, bad = 0, bus = 0;
	const void *ref;

	ASSERT_EQ(0, map_errno(self->fd, sz, PROT_READ, MAP_SHARED, 0,
			       (void **)&ref));
	memcpy(&before, ref, sizeof(before));
	rng_state = seed ? seed : 1;
	note("seed %" PRIu64 "\n", seed);
	for (i = 0; i < 200; i++) {
		int flags = rnd_below(2) ? MAP_SHARED : MAP_PRIVATE;
		int advice = rnd_below(4) ? rnd_below(26) : (int)rnd_below(128);
		size_t npg = sz / pg, first = rnd_below(npg);
		size_t len = pg * (1 + rnd_below(npg - first));
		int status;
		pid_t pid;

		/* never MADV_HWPOISON or MADV_SOFT_OFFLINE: root may */
		if (advice == 100 || advice == 101)
			advice = MADV_NORMAL;
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			volatile const uint8_t *p = mmap(NULL, sz, PROT_READ, flags,
							 self->fd, 0);
			int e;

			if (p == MAP_FAILED)
				_exit(10);
			e = madvise((void *)(p + first * pg), len, advice) ?
			    errno : 0;
			if (e && e != EINVAL && e != EPERM && e != EAGAIN &&
			    e != ENOMEM && e != EFAULT && e != EBUSY &&
			    e != EACCES && e != EIO)
				_exit(11);
			if (e == EFAULT && advice != 23 /* POPULATE_WRITE */)
				_exit(12);
			/* one byte of every page the advice touched */
			for (e = 0; (size_t)e < len / pg; e++)
				(void)p[(first + e) * pg];
			_exit(p[0] == 'F' ? 0 : 13);	/* magic, little end */
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS) {
			bus++;
		} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			if (bad++ < 10)
				fprintf(stderr, "# madvise(%s, +%zu pages, %zu pages, %d): status 0x%x\n",
					flags == MAP_SHARED ? "shared" : "private",
					first, (size_t)(len / pg), advice, status);
		}
		EXPECT_EQ(0, memcmp(&before, ref, sizeof(before)));
	}
	note("200 madvise() calls, %u readers got SIGBUS\n", bus);
	EXPECT_EQ(0, bad);
	munmap((void *)ref, sz);
}

/* Random lengths, offsets, protections and flags. */
TEST_F(fz, mmap_random)
{
	size_t sz = self->info.mmap_size;
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t seed = seed_from_env() ^ 0x3a9;
	static const int prots[] = { PROT_NONE, PROT_READ, PROT_WRITE,
		PROT_READ | PROT_WRITE, PROT_READ | PROT_EXEC, PROT_EXEC };
	static const int flagv[] = { MAP_SHARED, MAP_PRIVATE,
		MAP_SHARED | MAP_POPULATE, MAP_PRIVATE | MAP_POPULATE,
		MAP_SHARED | MAP_NORESERVE, MAP_SHARED_VALIDATE,
		MAP_SHARED | MAP_LOCKED, MAP_PRIVATE | MAP_32BIT };
	unsigned long i, ok = 0, bad = 0;
	struct statvfs vfs;
	int have_validate, mfd;
	void *a;

	SKIP_32BIT();

	ASSERT_EQ(0, statvfs(KPROF_TEST_DEV, &vfs));
	/* MAP_SHARED_VALIDATE is v4.15: before, an unknown mapping type */
	mfd = syscall(SYS_memfd_create, "kprof-fuzz", 0);
	ASSERT_LE(0, mfd);
	ASSERT_EQ(0, ftruncate(mfd, pg));
	a = mmap(NULL, pg, PROT_READ, MAP_SHARED_VALIDATE, mfd, 0);
	have_validate = a != MAP_FAILED;
	if (have_validate)
		munmap(a, pg);
	else
		note("no MAP_SHARED_VALIDATE here: %s\n", strerror(errno));
	close(mfd);
	rng_state = seed ? seed : 1;
	note("seed %" PRIu64 "\n", seed);
	for (i = 0; i < 2000; i++) {
		size_t len;
		off_t off;
		int prot = prots[rnd_below(6)], flags = flagv[rnd_below(8)];
		int e, want_fail;
		void *p;

		switch (rnd_below(4)) {
		case 0:
			len = rnd_below(sz + 2 * pg);
			break;
		case 1:
			len = sz - rnd_below(3) + rnd_below(3);
			break;
		case 2:
			len = (size_t)rnd() >> rnd_below(64);
			break;
		default:
			len = pg * (1 + rnd_below(8));
			break;
		}
		off = rnd_below(4) ? 0 : rnd_below(2) ? pg * rnd_below(4) :
		      (off_t)(rnd() >> rnd_below(64));
		p = mmap(NULL, len, prot, flags, self->fd, off);
		e = p == MAP_FAILED ? errno : 0;
		want_fail = !len || off || (ALIGN_UP(len, (size_t)pg) > sz) ||
			    (prot & PROT_WRITE) ||
			    ((prot & PROT_EXEC) && (vfs.f_flag & ST_NOEXEC)) ||
			    (flags == MAP_SHARED_VALIDATE && !have_validate);
		if (!e) {
			ok++;
			if (want_fail || ((prot & PROT_READ) &&
			    ((volatile const uint32_t *)p)[0] != KPROF_MMAP_MAGIC)) {
				if (bad++ < 10)
					fprintf(stderr, "# mmap(len %zu, prot %d, flags 0x%x, off %lld) succeeded\n",
						len, prot, flags, (long long)off);
			}
			munmap(p, len);
		} else if (!want_fail || (e != EINVAL && e != EPERM &&
					  e != EACCES && e != ENOMEM &&
					  e != EOVERFLOW)) {
			if (bad++ < 10)
				fprintf(stderr, "# mmap(len %zu, prot %d, flags 0x%x, off %lld): %s\n",
					len, prot, flags, (long long)off,
					strerror(e));
		}
	}
	note("%lu of 2000 random mmaps succeeded\n", ok);
	EXPECT_EQ(0, bad);
}

/*
 * Last (the harness runs a fixture's tests in order): after all of the
 * above the module works, unloads and loads again.
 */
TEST_F(fz, module_works_and_unloads)
{
	struct kprof_info info = { .size = sizeof(info) };

	ASSERT_EQ(0, ioctl(self->fd, KPROF_IOC_GET_INFO, &info));
	EXPECT_EQ(0, info.running);
	EXPECT_TRUE(session_works(self->fd, &info));
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(0, system("rmmod kprofmod"));
	EXPECT_NE(0, access("/sys/module/kprofmod", F_OK));
	EXPECT_EQ(0, kprof_test_load());
}

TEST_HARNESS_MAIN
