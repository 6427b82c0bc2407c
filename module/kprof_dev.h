/* SPDX-License-Identifier: GPL-2.0 */
/* kprof_dev.c: the /dev/kprof misc device and its ioctl dispatch. */
#define KPROF_HEADER_UNIT KPROF_UNIT_DEV
#include "kprof_layer.h"

#ifndef _KPROF_DEV_H
#define _KPROF_DEV_H

int kprof_dev_init(void);
void kprof_dev_exit(void);

#endif /* _KPROF_DEV_H */
