/* SPDX-License-Identifier: GPL-2.0 */
/* kprofmod internal declarations shared between the module's files. */
#ifndef _KPROF_H
#define _KPROF_H

#include <linux/types.h>

/* Set by Kbuild from PACKAGE_VERSION in dkms.conf. */
#ifndef KPROF_MODULE_VERSION
#error "KPROF_MODULE_VERSION is not defined: build through Kbuild"
#endif

/* kprof_dev.c: the /dev/kprof misc device and its ioctl dispatch. */
int kprof_dev_init(void);
void kprof_dev_exit(void);

#endif /* _KPROF_H */
