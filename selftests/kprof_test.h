/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers for the kprofmod selftests: load the module ($KPROF_KO or
 * modprobe), drop privileges, read a sysctl, sample with the kernel's own
 * perf events as a reference.
 */
#ifndef KPROF_TEST_H
#define KPROF_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/perf_event.h>

#include <linux/kprof.h>

#define KPROF_TEST_DEV "/dev/" KPROF_DEVICE_NAME

/* The integer in /proc/sys/@name (e.g. "kernel/cap_last_cap"), or -1. */
static inline long kprof_test_sysctl(const char *name)
{
	char path[PATH_MAX];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/%s", name);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/*
 * Wait until udev, where it runs (virtme-ng starts systemd-udevd), has
 * handled every event queued so far.  Its handling of the device's "add"
 * event sets the node's mode again (0600, the default rules): on a slow
 * kernel that can come seconds after the load and undo a test's chmod.
 */
static inline void kprof_test_udev_settle(void)
{
	int rc = system("command -v udevadm >/dev/null 2>&1 && "
			"udevadm settle -t 60 >/dev/null 2>&1");

	(void)rc;
}

/*
 * The @nth (from 0) highest process ID no task has now, for a tgid
 * filter that matches nothing: below pid_max, which is 32768 where the
 * kernel is built small (BASE_SMALL), and the module takes nothing above
 * its kernel's limit.  0 if none.
 */
static inline pid_t kprof_test_unused_pid(int nth)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "re");
	long max = 32768;
	pid_t pid;

	if (f) {
		if (fscanf(f, "%ld", &max) != 1)
			max = 32768;
		fclose(f);
	}
	for (pid = max - 1; pid > 300; pid--)
		if (kill(pid, 0) && errno == ESRCH && nth-- == 0)
			return pid;
	return 0;
}

/*
 * Load kprofmod unless /dev/kprof exists: insmod $KPROF_KO, else modprobe,
 * with the module parameters in $KPROF_LOAD_PARAMS.
 */
static inline int kprof_test_load(void)
{
	const char *ko = getenv("KPROF_KO"), *par = getenv("KPROF_LOAD_PARAMS");
	char cmd[PATH_MAX + 256];

	if (access(KPROF_TEST_DEV, F_OK) == 0)
		return 0;
	if (!par)
		par = "";
	if (ko && *ko)
		snprintf(cmd, sizeof(cmd), "insmod '%s' %s", ko, par);
	else
		snprintf(cmd, sizeof(cmd), "modprobe kprofmod %s", par);
	if (system(cmd) != 0)
		return -1;
	return access(KPROF_TEST_DEV, F_OK);
}

/*
 * Unload kprofmod and load it again with @params after the suite's own
 * (KPROF_LOAD_PARAMS); every descriptor on it must be closed first.
 */
static inline int kprof_test_reload(const char *params)
{
	const char *ko = getenv("KPROF_KO"), *par = getenv("KPROF_LOAD_PARAMS");
	char cmd[768];

	if (system("rmmod kprofmod 2>/dev/null; true"))
		return -1;
	if (!par)
		par = "";
	if (ko && *ko)
		snprintf(cmd, sizeof(cmd), "insmod '%s' %s %s", ko, par, params);
	else
		snprintf(cmd, sizeof(cmd), "modprobe kprofmod %s %s", par, params);
	return system(cmd) ? -1 : 0;
}

/*
 * KPROF_EXACT_TIME=1: the guest's clock counts the instructions it runs
 * (QEMU -icount shift=0,sleep=off; check.sh's 6.1-icount VM), so no load
 * on the host can make it miss a timer or stretch an interval.  Tests
 * whose bounds are time hold them tight there only.
 */
static inline int kprof_test_exact_time(void)
{
	const char *e = getenv("KPROF_EXACT_TIME");

	return e && !strcmp(e, "1");
}

/* Write @v to the file @path (a sysfs or procfs knob): 0 or -errno. */
static inline int kprof_test_write_file(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, v, strlen(v)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* Drop every capability of the calling thread (uid stays 0). */
static inline int kprof_test_drop_caps(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	return syscall(SYS_capset, &hdr, data);
}

/*
 * Keep only capability @cap (effective and permitted) of the calling
 * thread, or none with @cap < 0 (uid stays 0).
 */
static inline int kprof_test_keep_cap(int cap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	if (cap >= 0) {
		data[cap / 32].effective = 1U << (cap % 32);
		data[cap / 32].permitted = 1U << (cap % 32);
	}
	return syscall(SYS_capset, &hdr, data);
}

/* kprof_peer's fault injection: perf events of a CPU (-2: all) fail */
#define KPROF_TEST_PEER_FAIL	"/sys/module/kprof_peer/parameters/fail_perf_cpu"

/* (Re)load kprof_peer from $KPROF_PEER_KO: 0, or -1. */
static inline int kprof_test_peer_load(void)
{
	const char *peer = getenv("KPROF_PEER_KO");
	char cmd[PATH_MAX + 32];

	if (!peer || access(peer, R_OK) ||
	    system("rmmod kprof_peer 2>/dev/null; true"))
		return -1;
	snprintf(cmd, sizeof(cmd), "insmod '%s'", peer);
	return system(cmd) ? -1 : 0;
}

/*
 * The kernel's own sampling, as a reference for kprofmod's: a cpu-clock
 * perf event at @hz (frequency mode, as kprofmod's) for task @pid on any
 * CPU, or for every task on CPU @cpu (@pid -1), whose samples go to a
 * ring buffer nobody consumes, sized for @secs seconds of them.  On a
 * guest whose timer interrupts come late it meets the same delays.  0,
 * or -1 with the reason in @r->err (ENODEV: CPU @cpu is offline).
 */
struct kprof_test_ref {
	int fd;
	int err;	/* errno of a failed open, else 0 */
	void *ring;
	size_t len;
};

static inline int kprof_test_ref_open(struct kprof_test_ref *r, pid_t pid,
				      int cpu, uint32_t hz, double secs)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.freq = 1,
		.sample_freq = hz,
	};
	size_t pg = sysconf(_SC_PAGESIZE), pages = 16;

	/* a sample is its 8-byte header: room for twice the rate */
	while (pages * pg < 2 * hz * secs * sizeof(struct perf_event_header))
		pages *= 2;
	r->len = (1 + pages) * pg;
	r->ring = MAP_FAILED;
	r->err = 0;
	r->fd = syscall(SYS_perf_event_open, &attr, pid, cpu, -1,
			PERF_FLAG_FD_CLOEXEC);
	if (r->fd < 0) {
		r->err = errno;
		return -1;
	}
	r->ring = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       r->fd, 0);
	if (r->ring == MAP_FAILED) {
		r->err = errno;
		close(r->fd);
		r->fd = -1;
		return -1;
	}
	return 0;
}

/*
 * The reference's samples, lost ones included, or 0 if its ring filled
 * up; then it is closed.
 */
static inline uint64_t kprof_test_ref_close(struct kprof_test_ref *r)
{
	const struct perf_event_mmap_page *mp = r->ring;
	size_t pg = sysconf(_SC_PAGESIZE), size = r->len - pg;
	const char *data = (const char *)r->ring + pg;
	uint64_t head, off = 0, n = 0;

	if (r->fd < 0)
		return 0;
	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	/* nothing consumed: full if less than a record's room is left */
	if (head + 64 > size)
		head = 0;
	while (off + sizeof(struct perf_event_header) <= head) {
		const struct perf_event_header *h = (const void *)(data + off);

		if (!h->size)
			break;
		if (h->type == PERF_RECORD_SAMPLE)
			n++;
		else if (h->type == PERF_RECORD_LOST)
			n += ((const uint64_t *)(h + 1))[1];
		off += h->size;
	}
	munmap(r->ring, r->len);
	close(r->fd);
	r->fd = -1;
	return n;
}

#endif
