// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim for the reader tests: makes KPROF_IOC_GET_INFO report
 * API major $KPROF_FAKE_API_MAJOR, so the reader's mismatch path can be
 * tested against the real module.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/ioctl.h>

#include <linux/kprof.h>

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real)(int, unsigned long, ...);
	const char *major = getenv("KPROF_FAKE_API_MAJOR");
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real)
		real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	ret = real(fd, req, arg);
	if (ret == 0 && req == KPROF_IOC_GET_INFO && major)
		((struct kprof_info *)arg)->api_major = atoi(major);
	return ret;
}
