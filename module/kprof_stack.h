/* SPDX-License-Identifier: GPL-2.0 */
/* kprof_stack.c: stack capture and the deduplicating stack table. */
#define KPROF_HEADER_UNIT KPROF_UNIT_STACK
#include "kprof_layer.h"

#ifndef _KPROF_STACK_H
#define _KPROF_STACK_H

#include <linux/atomic.h>
#include <linux/types.h>
#include <linux/kprof.h>

struct pt_regs;

struct kprof_stack_entry {
	atomic_t state;		/* 0 empty, hash << 2 | 1 busy, | 2 ready */
	/* user frames that may leave the module, once checked */
	u16 nr_user_ok;
	bool user_checked;
	union {
		struct {
			u32 tgid;
			u16 nr_kernel;
			u16 nr_user;
		};
		u64 key;	/* the three at once (kprof_stack_key()) */
	};
	char comm[16];
	unsigned long ips[KPROF_MAX_KERNEL_FRAMES + KPROF_MAX_USER_FRAMES];
	char *ksyms;		/* resolved kernel frames, under kprof_ctl */
	u32 ksyms_len;
};

int kprof_stacks_init(void);
void kprof_stacks_exit(void);
u32 kprof_stack_capture(struct pt_regs *regs);
u32 kprof_stack_capture_irq(struct pt_regs *regs);
void kprof_stacks_reset(void);
u32 kprof_stacks_used(void);
u32 kprof_stacks_resets(void);
struct kprof_stack_entry *kprof_stack_get(u32 id);
int kprof_stack_ksyms(struct kprof_stack_entry *e);
int kprof_stack_prepare(struct kprof_stack_entry *e);
void kprof_stack_fill(struct kprof_stack_entry *e, u32 id,
		      struct kprof_stack *out);

#endif /* _KPROF_STACK_H */
