/* SPDX-License-Identifier: GPL-2.0 */
/* kprof_ctl.c: the control operations, serialised by one mutex. */
#define KPROF_HEADER_UNIT KPROF_UNIT_CTL
#include "kprof_layer.h"

#ifndef _KPROF_CTL_H
#define _KPROF_CTL_H

#include <linux/types.h>
#include <linux/kprof.h>

struct kprof_session;

u64 kprof_ctl_features(void);
void kprof_ctl_info(struct kprof_info *info);
struct kprof_session *kprof_ctl_open(void);
void kprof_ctl_release(struct kprof_session *s);
int kprof_ctl_start(struct kprof_session *s, u32 what);
int kprof_ctl_stop(struct kprof_session *s, u32 what);
void kprof_ctl_sessions(struct kprof_session *self, struct kprof_sessions *out);
int kprof_ctl_reset(struct kprof_session *s, u32 what);
int kprof_ctl_set_config(struct kprof_session *s,
			 const struct kprof_config *cfg);
void kprof_ctl_get_config(struct kprof_config *cfg);
int kprof_ctl_snapshot(struct kprof_session *s, u64 *generation, u8 *view);
void kprof_ctl_stats(struct kprof_stats *st);
int kprof_ctl_get_stack(struct kprof_stack_query *q);
int kprof_ctl_cpu_cost(struct kprof_cpu_cost *c);
void kprof_ctl_exit(void);

#endif /* _KPROF_CTL_H */
