/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * kprofmod user-space ABI: the ioctls and the read-only mmap layout of
 * /dev/kprof.  This header is shared, unchanged, by the module and by the
 * reader.
 *
 * Versioning rules
 *  - KPROF_API_MAJOR changes only when an existing field, command number or
 *    meaning changes incompatibly.  A reader refuses a module whose major
 *    differs from its own.
 *  - KPROF_API_MINOR is bumped for every other change to this header
 *    (a new command, a new trailing field, a new feature bit).
 *  - Command numbers are never reused: a retired number stays listed below
 *    as retired.
 *
 * Extensible structs
 *  Every struct passed through an ioctl starts with "__u32 size", set by the
 *  caller to sizeof() of the struct as it knows it; _IOC_SIZE() of the
 *  command must equal it.  The module accepts any size from the first
 *  published version of the struct (KPROF_*_SIZE_VER0) up to 4096 bytes:
 *   - input bytes past the module's own struct must be zero (else -EINVAL);
 *   - on output the module writes min(caller size, module size) bytes,
 *     zero-fills the rest of the caller's struct and stores the number of
 *     bytes it filled in "size", so a newer reader can tell which trailing
 *     fields an older module did not know.
 *  Reserved fields must be zero on input and are zero on output.
 *
 * Errors common to all commands
 *  -ENOTTY  unknown command
 *  -EFAULT  bad user pointer
 *  -EINVAL  bad size, non-zero reserved or unknown trailing bytes
 *  -EPERM   caller has neither CAP_PERFMON (where the kernel has it) nor
 *           CAP_SYS_ADMIN
 */
#ifndef _UAPI_LINUX_KPROF_H
#define _UAPI_LINUX_KPROF_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define KPROF_DEVICE_NAME	"kprof"

#define KPROF_API_MAJOR		1
#define KPROF_API_MINOR		0

#define KPROF_IOC_MAGIC		0xB8

#define KPROF_VERSION_LEN	32

/* Feature bits reported in kprof_info.features (none defined yet). */

/**
 * struct kprof_info - KPROF_IOC_GET_INFO
 * @size:		in: caller's sizeof; out: bytes the module filled
 * @api_major:		KPROF_API_MAJOR of the module
 * @api_minor:		KPROF_API_MINOR of the module
 * @nr_cpu_ids:		number of possible CPU ids (array bound per CPU)
 * @nr_online_cpus:	CPUs online when the call was made
 * @features:		KPROF_FEAT_* bits the module supports
 * @version:		module version string, NUL terminated
 */
struct kprof_info {
	__u32 size;
	__u32 api_major;
	__u32 api_minor;
	__u32 nr_cpu_ids;
	__u32 nr_online_cpus;
	__u32 reserved0;
	__u64 features;
	char version[KPROF_VERSION_LEN];
};

#define KPROF_INFO_SIZE_VER0	64

#define KPROF_IOC_GET_INFO	_IOWR(KPROF_IOC_MAGIC, 0x01, struct kprof_info)

#endif /* _UAPI_LINUX_KPROF_H */
