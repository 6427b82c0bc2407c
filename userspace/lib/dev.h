/* SPDX-License-Identifier: GPL-2.0 */
/* kprof reader: access to /dev/kprof. */
#ifndef KPROF_READER_DEV_H
#define KPROF_READER_DEV_H

#include <linux/kprof.h>

/* Device path: $KPROF_DEVICE if set, else /dev/kprof. */
const char *kprof_dev_path(void);

/*
 * Open the device and check the module's API major against ours.  On
 * failure prints one line to stderr and returns -1.
 */
int kprof_dev_open(struct kprof_info *info);

/*
 * One line on stderr for @err (an errno) from @what on the device, with
 * the hint for the usual causes (module not loaded, no permission).
 */
void kprof_dev_perror(const char *what, int err);

/* ioctl wrapper that reports failures as one line; returns 0 or -1. */
int kprof_dev_ioctl(int fd, unsigned long cmd, void *arg, const char *what);

/*
 * The device's one client: nothing outside lib/ calls ioctl() (the build
 * poisons it elsewhere).  These leave nothing printed and return 0 or
 * -errno; each sets the struct's size, so the module sees this reader's
 * ABI version.
 */
int kprof_dev_try(int fd, unsigned long cmd, void *arg);
int kprof_get_info(int fd, struct kprof_info *info);
int kprof_get_config(int fd, struct kprof_config *cfg);
int kprof_get_stats(int fd, struct kprof_stats *st);
int kprof_get_cpu_cost(int fd, __u32 cpu, struct kprof_cpu_cost *c);
int kprof_get_sessions(int fd, struct kprof_sessions *ss);
int kprof_get_stack(int fd, __u32 id, struct kprof_stack_query *q);

/*
 * What changes the module's state for the descriptor's session (see
 * KPROF_IOC_START in the uapi header): KPROF_IOC_START, KPROF_IOC_STOP or
 * KPROF_IOC_RESET with @what; KPROF_IOC_SET_CONFIG with a copy of @cfg;
 * KPROF_IOC_SNAPSHOT, which publishes the counts in the mapping and fills
 * @s (the generation and this descriptor's view).  0 or -errno, nothing
 * printed, as above.
 */
int kprof_control(int fd, unsigned long cmd, __u32 what);
int kprof_set_config(int fd, const struct kprof_config *cfg);
int kprof_take_snapshot(int fd, struct kprof_snapshot *s);

/* Did the module fill the guard's fields of @st (API 1.4 or later)? */
int kp_stats_have_guard(const struct kprof_stats *st);
/* Does @st (a GET_STATS reply) have hooks_missed (API 4.1)? */
int kp_stats_have_hooks_missed(const struct kprof_stats *st);

#endif
