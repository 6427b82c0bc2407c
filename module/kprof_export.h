/* SPDX-License-Identifier: GPL-2.0 */
/* kprof_export.c: the mmap region and interval publication. */
#define KPROF_HEADER_UNIT KPROF_UNIT_EXPORT
#include "kprof_layer.h"

#ifndef _KPROF_EXPORT_H
#define _KPROF_EXPORT_H

#include <linux/types.h>

struct file;
struct vm_area_struct;

int kprof_export_init(void);
void kprof_export_exit(void);
u64 kprof_export_size(void);
int kprof_export_mmap(struct file *file, struct vm_area_struct *vma);
int kprof_export_snapshot(u64 upto, u32 sample_hz, u64 *generation,
			  u64 *seq);
void kprof_export_clear(void);
u64 kprof_export_drops(void);
u64 kprof_export_sample_drops(void);
u64 kprof_export_snapshots(void);
u64 kprof_export_generation(void);

#endif /* _KPROF_EXPORT_H */
