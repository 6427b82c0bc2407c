// SPDX-License-Identifier: GPL-2.0
/* kprof reader: opening /dev/kprof, version negotiation, error messages. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "dev.h"
#include "util.h"

const char *kprof_dev_path(void)
{
	const char *p = getenv("KPROF_DEVICE");

	return p && *p ? p : "/dev/" KPROF_DEVICE_NAME;
}

void kprof_dev_perror(const char *what, int err)
{
	const char *path = kprof_dev_path();

	switch (err) {
	case ENOENT:
	case ENODEV:
	case ENXIO:
		kp_err("kprofmod is not loaded (%s: %s): run `sudo modprobe kprofmod` or `sudo kprof load`",
		       path, strerror(err));
		break;
	case EACCES:
	case EPERM:
		kp_err("permission denied on %s (%s): run as root; kprofmod needs CAP_PERFMON or CAP_SYS_ADMIN",
		       path, what);
		break;
	default:
		kp_err("%s on %s failed: %s", what, path, strerror(err));
	}
}

int kprof_dev_try(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

#define KPROF_GET(fn, cmd, type)					\
int fn(int fd, struct type *p)						\
{									\
	memset(p, 0, sizeof(*p));					\
	p->size = sizeof(*p);						\
	return kprof_dev_try(fd, cmd, p);				\
}

KPROF_GET(kprof_get_info, KPROF_IOC_GET_INFO, kprof_info)
KPROF_GET(kprof_get_config, KPROF_IOC_GET_CONFIG, kprof_config)
KPROF_GET(kprof_get_stats, KPROF_IOC_GET_STATS, kprof_stats)
KPROF_GET(kprof_get_sessions, KPROF_IOC_GET_SESSIONS, kprof_sessions)
KPROF_GET(kprof_take_snapshot, KPROF_IOC_SNAPSHOT, kprof_snapshot)

int kprof_control(int fd, unsigned long cmd, __u32 what)
{
	struct kprof_ctl c = { .size = sizeof(c), .what = what };

	return kprof_dev_try(fd, cmd, &c);
}

int kprof_set_config(int fd, const struct kprof_config *cfg)
{
	struct kprof_config c = *cfg;

	c.size = sizeof(c);
	return kprof_dev_try(fd, KPROF_IOC_SET_CONFIG, &c);
}

int kprof_get_cpu_cost(int fd, __u32 cpu, struct kprof_cpu_cost *c)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->cpu = cpu;
	return kprof_dev_try(fd, KPROF_IOC_GET_CPU_COST, c);
}

int kprof_get_stack(int fd, __u32 id, struct kprof_stack_query *q)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->id = id;
	return kprof_dev_try(fd, KPROF_IOC_GET_STACK, q);
}

int kprof_dev_ioctl(int fd, unsigned long cmd, void *arg, const char *what)
{
	if (ioctl(fd, cmd, arg) == 0)
		return 0;
	kprof_dev_perror(what, errno);
	return -1;
}

int kprof_dev_open(struct kprof_info *info)
{
	int fd = open(kprof_dev_path(), O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		kprof_dev_perror("open", errno);
		return -1;
	}
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	if (kprof_dev_ioctl(fd, KPROF_IOC_GET_INFO, info, "KPROF_IOC_GET_INFO")) {
		close(fd);
		return -1;
	}
	if (info->api_major != KPROF_API_MAJOR) {
		kp_err("API mismatch: kprofmod %.*s speaks API %u.%u, this kprof speaks %u.%u; install matching versions",
		       KPROF_VERSION_LEN, info->version, info->api_major,
		       info->api_minor, KPROF_API_MAJOR, KPROF_API_MINOR);
		close(fd);
		return -1;
	}
	return fd;
}

int kp_stats_have_hooks_missed(const struct kprof_stats *st)
{
	return st->size >= offsetof(struct kprof_stats, hooks_missed) +
			   sizeof(st->hooks_missed);
}

int kp_stats_have_guard(const struct kprof_stats *st)
{
	return st->size >= offsetof(struct kprof_stats, shed_requests) +
			   sizeof(st->shed_requests);
}
