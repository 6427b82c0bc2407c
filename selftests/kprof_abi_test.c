// SPDX-License-Identifier: GPL-2.0
/*
 * The /dev/kprof ABI contract: KPROF_IOC_GET_INFO contents, extensible
 * struct rules and every documented error.
 */
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <stddef.h>
#include <stdint.h>

#include "kselftest_harness.h"
#include "kprof_test.h"

/* A GET_INFO command number for a struct of @sz bytes. */
#define GET_INFO_SZ(sz) \
	_IOC(_IOC_READ | _IOC_WRITE, KPROF_IOC_MAGIC, 0x01, (sz))

FIXTURE(dev) {
	int fd;
};

FIXTURE_SETUP(dev)
{
	ASSERT_EQ(0, kprof_test_load()) TH_LOG("cannot load kprofmod");
	self->fd = open(KPROF_TEST_DEV, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open: %s", strerror(errno));
}

FIXTURE_TEARDOWN(dev)
{
	close(self->fd);
}

static int info_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

TEST_F(dev, device_mode_is_0600_root)
{
	struct stat st;

	ASSERT_EQ(0, stat(KPROF_TEST_DEV, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0600, st.st_mode & 07777);
	EXPECT_EQ(0, st.st_uid);
	EXPECT_EQ(0, st.st_gid);
}

#define ALL_FEATURES	(KPROF_FEAT_TCP_LATENCY | KPROF_FEAT_USER_STACKS | \
			 KPROF_FEAT_KSYMS | KPROF_FEAT_CPU_SAMPLING | \
			 KPROF_FEAT_CGROUP | KPROF_FEAT_GUARD | \
			 KPROF_FEAT_TCP_HEALTH | KPROF_FEAT_TCP_CONNECT)

TEST_F(dev, get_info_contents)
{
	struct kprof_info info = { .size = sizeof(info) };

	ASSERT_EQ(0, info_ioctl(self->fd, KPROF_IOC_GET_INFO, &info));
	EXPECT_EQ(sizeof(info), info.size);
	EXPECT_EQ(KPROF_API_MAJOR, info.api_major);
	EXPECT_EQ(KPROF_API_MINOR, info.api_minor);
	EXPECT_EQ((unsigned int)sysconf(_SC_NPROCESSORS_CONF), info.nr_cpu_ids);
	EXPECT_EQ((unsigned int)sysconf(_SC_NPROCESSORS_ONLN),
		  info.nr_online_cpus);
	EXPECT_EQ(0, info.reserved0);
	EXPECT_GE(KPROF_ENDPOINTS_HASH, info.endpoints);
	EXPECT_TRUE(info.features & KPROF_FEAT_TCP_LATENCY);
	EXPECT_TRUE(info.attach & KPROF_ATTACH_TCP_SENDMSG);
	EXPECT_TRUE(info.attach & (KPROF_ATTACH_TCP_CLEANUP_RBUF |
				   KPROF_ATTACH___TCP_CLEANUP_RBUF |
				   KPROF_ATTACH_TCP_RECVMSG_RET));
	/* a socket's end: the kprobe, and the tracepoint where there is one */
	EXPECT_TRUE(info.attach & KPROF_ATTACH_TCP_DESTROY_SOCK);
	/* the tcp: tracepoints came together (4.15) */
	if (info.attach & (KPROF_ATTACH_TP_RETRANSMIT |
			   KPROF_ATTACH_TP_SEND_RESET |
			   KPROF_ATTACH_TP_RECEIVE_RESET))
		EXPECT_TRUE(info.attach & KPROF_ATTACH_TP_DESTROY_SOCK);
	/* a kprobe stands in only where its tracepoint is missing (API 4.2) */
	EXPECT_FALSE((info.attach & KPROF_ATTACH_KP_RETRANSMIT) &&
		     (info.attach & KPROF_ATTACH_TP_RETRANSMIT));
	EXPECT_FALSE((info.attach & KPROF_ATTACH_KP_SEND_RESET) &&
		     (info.attach & KPROF_ATTACH_TP_SEND_RESET));
	EXPECT_FALSE((info.attach & KPROF_ATTACH_KP_RECEIVE_RESET) &&
		     (info.attach & KPROF_ATTACH_TP_RECEIVE_RESET));
	EXPECT_FALSE((info.attach & KPROF_ATTACH_KP_SET_STATE) &&
		     (info.attach & KPROF_ATTACH_TP_SET_STATE));
	EXPECT_EQ(!!(info.features & KPROF_FEAT_TCP_HEALTH),
		  !!(info.attach & (KPROF_ATTACH_TP_RETRANSMIT |
				    KPROF_ATTACH_TP_SEND_RESET |
				    KPROF_ATTACH_TP_RECEIVE_RESET |
				    KPROF_ATTACH_KP_RETRANSMIT |
				    KPROF_ATTACH_KP_SEND_RESET |
				    KPROF_ATTACH_KP_RECEIVE_RESET)));
	/* connect rows: one tracepoint (API 4.0), or its stand-in (4.2) */
	EXPECT_EQ(!!(info.features & KPROF_FEAT_TCP_CONNECT),
		  !!(info.attach & (KPROF_ATTACH_TP_SET_STATE |
				    KPROF_ATTACH_KP_SET_STATE)));
	EXPECT_EQ(0, info.running);
	EXPECT_LT(0, info.mmap_size);
	EXPECT_EQ(0, info.mmap_size % sysconf(_SC_PAGESIZE));
	ASSERT_TRUE(memchr(info.version, '\0', sizeof(info.version)) != NULL);
	EXPECT_LT(0, strlen(info.version));
}

/*
 * Every feature docs/testing.md promises on every supported kernel (none is
 * absent by version): the tests of a missing one would only skip.
 * Cycles depend on the machine, not the kernel.
 */
TEST_F(dev, every_feature_present)
{
	struct kprof_info info = { .size = sizeof(info) };

	ASSERT_EQ(0, info_ioctl(self->fd, KPROF_IOC_GET_INFO, &info));
	TH_LOG("features 0x%llx", (unsigned long long)info.features);
	/* these two depend on the machine and the kernel (sessions.sh) */
	EXPECT_TRUE((info.features & ~(uint64_t)(KPROF_FEAT_HW_CYCLES |
						 KPROF_FEAT_TCP_FTRACE)) ==
		    ALL_FEATURES);
}

TEST_F(dev, get_info_version_matches_modinfo)
{
	struct kprof_info info = { .size = sizeof(info) };
	char buf[64] = "";
	FILE *f;

	ASSERT_EQ(0, info_ioctl(self->fd, KPROF_IOC_GET_INFO, &info));
	f = fopen("/sys/module/kprofmod/version", "r");
	ASSERT_TRUE(f != NULL);
	ASSERT_TRUE(fgets(buf, sizeof(buf), f) != NULL);
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	EXPECT_STREQ(buf, info.version);
}

/*
 * A newer reader's bigger struct: accepted (its tail must be zero, see
 * below), the kernel's own part filled in, and the tail written with
 * zeros.  That the kernel writes the tail shows only where it cannot: a
 * tail on a read-only page of zeros passes the input check and makes the
 * write fail with EFAULT.  A kernel that left the tail alone would return
 * 0 there, and one that copied out more than its own struct would leave
 * something other than zeros in the writable case.
 */
TEST_F(dev, larger_struct_zero_tail_accepted)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct big {
		struct kprof_info info;
		uint8_t future[64];
	} *big;
	uint8_t *m;

	m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(m != MAP_FAILED);
	/* the kernel's part ends where the second page begins */
	big = (struct big *)(m + pg - sizeof(struct kprof_info));
	memset(m + pg - sizeof(struct kprof_info), 0xff,
	       sizeof(struct kprof_info));
	big->info.size = sizeof(*big);
	big->info.reserved0 = 0;
	big->info.endpoints = 0;
	big->info.reserved1 = 0;
	ASSERT_EQ(0, info_ioctl(self->fd, GET_INFO_SZ(sizeof(*big)), big));
	EXPECT_EQ(sizeof(struct kprof_info), big->info.size);
	EXPECT_EQ(KPROF_API_MAJOR, big->info.api_major);
	for (size_t i = 0; i < sizeof(big->future); i++)
		ASSERT_EQ(0, big->future[i]);

	/* the tail read-only: checked (zeros), then written: EFAULT */
	big->info.size = sizeof(*big);
	ASSERT_EQ(0, mprotect(m + pg, pg, PROT_READ));
	EXPECT_EQ(EFAULT, info_ioctl(self->fd, GET_INFO_SZ(sizeof(*big)), big));
	munmap(m, 2 * pg);
}

TEST_F(dev, larger_struct_nonzero_tail_einval)
{
	struct {
		struct kprof_info info;
		uint8_t future[64];
	} big;

	memset(&big, 0, sizeof(big));
	big.info.size = sizeof(big);
	big.future[63] = 1;
	EXPECT_EQ(EINVAL, info_ioctl(self->fd, GET_INFO_SZ(sizeof(big)), &big));
}

/* The oldest published size is accepted. */
TEST_F(dev, ver0_size_accepted)
{
	uint8_t buf[KPROF_INFO_SIZE_VER0] = { 0 };
	uint32_t size = KPROF_INFO_SIZE_VER0;

	memcpy(buf, &size, sizeof(size));
	EXPECT_EQ(0, info_ioctl(self->fd, GET_INFO_SZ(size), buf));
	memcpy(&size, buf, sizeof(size));
	EXPECT_EQ(KPROF_INFO_SIZE_VER0, size);
}

TEST_F(dev, size_too_small_einval)
{
	struct kprof_info info = { .size = KPROF_INFO_SIZE_VER0 - 8 };

	EXPECT_EQ(EINVAL, info_ioctl(self->fd, GET_INFO_SZ(info.size), &info));
	info.size = 0;
	EXPECT_EQ(EINVAL, info_ioctl(self->fd, GET_INFO_SZ(0), &info));
}

TEST_F(dev, size_too_large_einval)
{
	static uint8_t buf[8192];
	uint32_t size = sizeof(buf);

	memcpy(buf, &size, sizeof(size));
	EXPECT_EQ(EINVAL, info_ioctl(self->fd, GET_INFO_SZ(size), buf));
}

TEST_F(dev, size_field_disagrees_with_cmd_einval)
{
	struct kprof_info info = { .size = sizeof(info) + 8 };

	EXPECT_EQ(EINVAL, info_ioctl(self->fd, KPROF_IOC_GET_INFO, &info));
}

TEST_F(dev, reserved_nonzero_einval)
{
	struct kprof_info info = { .size = sizeof(info), .reserved0 = 1 };

	EXPECT_EQ(EINVAL, info_ioctl(self->fd, KPROF_IOC_GET_INFO, &info));
}

TEST_F(dev, endpoints_nonzero_on_input_einval)
{
	struct kprof_info info = { .size = sizeof(info), .endpoints = 1 };

	EXPECT_EQ(EINVAL, info_ioctl(self->fd, KPROF_IOC_GET_INFO, &info));
}

TEST_F(dev, unknown_commands_enotty)
{
	struct kprof_info info = { .size = sizeof(info) };

	/* unused number, other magic, wrong direction, no-arg command */
	EXPECT_EQ(ENOTTY, info_ioctl(self->fd,
		_IOWR(KPROF_IOC_MAGIC, 0x7f, struct kprof_info), &info));
	EXPECT_EQ(ENOTTY, info_ioctl(self->fd,
		_IOWR(KPROF_IOC_MAGIC + 1, 0x01, struct kprof_info), &info));
	EXPECT_EQ(ENOTTY, info_ioctl(self->fd,
		_IOW(KPROF_IOC_MAGIC, 0x01, struct kprof_info), &info));
	EXPECT_EQ(ENOTTY, info_ioctl(self->fd, _IO(KPROF_IOC_MAGIC, 0x01),
				     &info));
	EXPECT_EQ(ENOTTY, info_ioctl(self->fd, 0, &info));
	EXPECT_EQ(ENOTTY, info_ioctl(self->fd, 0xffffffffu, &info));
}

TEST_F(dev, bad_pointers_efault)
{
	void *unmapped;

	EXPECT_EQ(EFAULT, info_ioctl(self->fd, KPROF_IOC_GET_INFO, NULL));
	unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	ASSERT_TRUE(unmapped != MAP_FAILED);
	EXPECT_EQ(EFAULT, info_ioctl(self->fd, KPROF_IOC_GET_INFO, unmapped));
	munmap(unmapped, 4096);
	/* a kernel address */
	EXPECT_EQ(EFAULT, info_ioctl(self->fd, KPROF_IOC_GET_INFO,
				     (void *)0xffffffff81000000ul));
}

/* Output that would run off the end of a mapping faults, writes nothing. */
TEST_F(dev, struct_straddling_unmapped_page_efault)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct {
		struct kprof_info info;
		uint8_t future[64];
	} *big;

	ASSERT_TRUE(p != MAP_FAILED);
	ASSERT_EQ(0, munmap(p + pg, pg));
	/* the struct header fits, its zero tail crosses into the hole */
	big = (void *)(p + pg - sizeof(struct kprof_info) - 8);
	memset(big, 0, sizeof(struct kprof_info) + 8);
	big->info.size = sizeof(*big);
	EXPECT_EQ(EFAULT, info_ioctl(self->fd, GET_INFO_SZ(sizeof(*big)), big));
	munmap(p, pg);
}

static int child_ioctl_errno(int fd, int drop_caps, uid_t uid)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		struct kprof_info info = { .size = sizeof(info) };

		if (uid && setuid(uid))
			_exit(100);
		if (drop_caps && kprof_test_drop_caps())
			_exit(101);
		_exit(ioctl(fd, KPROF_IOC_GET_INFO, &info) ? errno : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

TEST_F(dev, no_capabilities_eperm)
{
	EXPECT_EQ(EPERM, child_ioctl_errno(self->fd, 1, 0));
	/* an fd inherited by an unprivileged user is no way in either */
	EXPECT_EQ(EPERM, child_ioctl_errno(self->fd, 0, 65534));
	/* and the privileged parent still works */
	EXPECT_EQ(0, child_ioctl_errno(self->fd, 0, 0));
}

TEST_F(dev, unprivileged_open_eacces)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (setuid(65534))
			_exit(100);
		_exit(open(KPROF_TEST_DEV, O_RDONLY) < 0 ? errno : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(EACCES, WEXITSTATUS(status));
}

/* child_access()'s result: what was refused, each with EPERM */
#define IOCTL_EPERM	1
#define MMAP_EPERM	2

/*
 * What a child gets from /dev/kprof after giving up privileges: it keeps
 * only capability @cap (-1: none), then, with @uid, becomes that user;
 * with @reopen it opens the device itself.  It tries both the ioctl and
 * mmap, whatever the first gave; returns IOCTL_EPERM | MMAP_EPERM for
 * the steps refused with EPERM (0: both allowed), 200 + errno when open
 * fails, 100 + errno for any other error, -1 when the child did not exit.
 * The reopen is relative to /dev, opened before the fork: the test is
 * about the node's mode, not about the directories above it (in the test
 * VMs, the host's root file system).
 */
static int child_access(int fd, int cap, uid_t uid, int reopen)
{
	int status, dev = -1;
	pid_t pid;

	if (reopen) {
		dev = open("/dev", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dev < 0)
			return 200 + (errno & 31);
	}
	pid = fork();
	if (pid == 0) {
		struct kprof_info info = { .size = sizeof(info) };
		long pg = sysconf(_SC_PAGESIZE);
		int ioc_err;
		void *p;

		if (uid && setuid(uid))
			_exit(250);
		if (!uid && kprof_test_keep_cap(cap))
			_exit(251);
		if (reopen) {
			fd = openat(dev, KPROF_DEVICE_NAME, O_RDONLY);
			if (fd < 0)
				_exit(200 + (errno & 31));
		}
		ioc_err = ioctl(fd, KPROF_IOC_GET_INFO, &info) ? errno : 0;
		if (ioc_err && ioc_err != EPERM)
			_exit(100 + (ioc_err & 63));
		p = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED && errno != EPERM)
			_exit(100 + (errno & 63));
		_exit((ioc_err ? IOCTL_EPERM : 0) |
		      (p == MAP_FAILED ? MMAP_EPERM : 0));
	}
	if (dev >= 0)
		close(dev);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* CAP_PERFMON is known to the running kernel (5.8 and later). */
static int have_cap_perfmon(void)
{
	return kprof_test_sysctl("kernel/cap_last_cap") >= 38;
}

TEST_F(dev, mmap_without_capabilities_eperm)
{
	/* inherited fd, all capabilities dropped: ioctl and mmap refused */
	EXPECT_EQ(IOCTL_EPERM | MMAP_EPERM, child_access(self->fd, -1, 0, 0));
	/* inherited by an unprivileged user */
	EXPECT_EQ(IOCTL_EPERM | MMAP_EPERM, child_access(self->fd, -1, 65534, 0));
	/* the privileged parent's own fd still maps */
	EXPECT_EQ(0, child_access(self->fd, CAP_SYS_ADMIN, 0, 0));
}

TEST_F(dev, mmap_refused_even_when_everyone_may_open)
{
	struct stat st;
	int err, status;
	pid_t pid;

	/*
	 * An admin's chmod 0666 lets anyone open the device, but nobody
	 * without the capability gets at the ioctls or the mapping, where
	 * the kernel frames are.
	 */
	kprof_test_udev_settle();
	ASSERT_EQ(0, stat(KPROF_TEST_DEV, &st));
	ASSERT_EQ(0, chmod(KPROF_TEST_DEV, 0666));
	err = child_access(-1, -1, 65534, 1);
	if (err >= 200) {
		struct stat now;

		/* the module has no EACCES: what did the node look like? */
		if (stat(KPROF_TEST_DEV, &now))
			TH_LOG("open: errno %d; stat: %s", err - 200,
			       strerror(errno));
		else
			TH_LOG("open: errno %d; node mode %o, uid %u, rdev %u:%u (was %u:%u)",
			       err - 200, now.st_mode, now.st_uid,
			       major(now.st_rdev), minor(now.st_rdev),
			       major(st.st_rdev), minor(st.st_rdev));
	}
	EXPECT_EQ(0, chmod(KPROF_TEST_DEV, st.st_mode & 07777));
	EXPECT_EQ(IOCTL_EPERM | MMAP_EPERM, err);

	/* and a refused mmap alone, by root without capabilities */
	pid = fork();
	if (pid == 0) {
		void *p;

		if (kprof_test_keep_cap(-1))
			_exit(1);
		p = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED,
			 self->fd, 0);
		_exit(p == MAP_FAILED && errno == EPERM ? 0 : 2);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST_F(dev, one_capability_is_enough)
{
	EXPECT_EQ(0, child_access(self->fd, CAP_SYS_ADMIN, 0, 0));
	/* others do not count */
	EXPECT_EQ(IOCTL_EPERM | MMAP_EPERM, child_access(self->fd, CAP_NET_ADMIN, 0, 0));
	EXPECT_EQ(IOCTL_EPERM | MMAP_EPERM, child_access(self->fd, CAP_SYS_PTRACE, 0, 0));
	if (!have_cap_perfmon()) {
		TH_LOG("no CAP_PERFMON before 5.8: CAP_SYS_ADMIN only");
		return;
	}
	EXPECT_EQ(0, child_access(self->fd, 38 /* CAP_PERFMON */, 0, 0));
}

/*
 * The export mapping is not inherited: a child forked after mmap() (one
 * that then drops to an unprivileged user, say) has no such mapping, so
 * it cannot go on reading the intervals the parent's snapshots publish.
 */
TEST_F(dev, mapping_not_inherited)
{
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char vec;
	int status;
	void *p;
	pid_t pid;

	p = mmap(NULL, pg, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	pid = fork();
	if (pid == 0) {
		if (setuid(65534))
			_exit(100);
		/* mincore() fails with ENOMEM on an unmapped range */
		_exit(mincore(p, pg, &vec) ? errno : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(ENOMEM, WEXITSTATUS(status));
	/* the parent keeps its mapping */
	EXPECT_EQ(0, mincore(p, pg, &vec));
	munmap(p, pg);
}

TEST_F(dev, not_seekable_espipe)
{
	EXPECT_EQ(-1, lseek(self->fd, 0, SEEK_SET));
	EXPECT_EQ(ESPIPE, errno);
}

TEST_HARNESS_MAIN
