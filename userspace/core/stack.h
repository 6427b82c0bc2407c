/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof reader: stacks by ID, from a snapshot or KPROF_IOC_GET_STACK,
 * cached per ID (IDs are stable), with user frames symbolized on demand.
 */
#ifndef KPROF_READER_STACK_H
#define KPROF_READER_STACK_H

#include <stddef.h>
#include <stdint.h>

#include <linux/kprof.h>

#include "snapshot.h"
#include "symbolize.h"

struct kp_stack_info {
	uint32_t id;
	int err;		/* 0, or -errno: the stack could not be had */
	char *why;		/* for -EBADMSG: what was wrong with it */
	uint32_t tgid;
	char comm[17];
	unsigned int nr_kernel;
	unsigned int nr_user;
	int ksyms_missing;	/* kernel frames that did not fit the export */
	char *kernel[KPROF_MAX_KERNEL_FRAMES];
	uint64_t user_ips[KPROF_MAX_USER_FRAMES];
	/* Symbolized frames, filled by kp_stack_user(). */
	char *user[KPROF_MAX_USER_FRAMES];
	char *user_func[KPROF_MAX_USER_FRAMES];	/* NULL: no symbol */
	uint8_t user_tries[KPROF_MAX_USER_FRAMES];
};

/* Shown for the kernel frames of a KPROF_KSYMS_MISSING stack. */
#define KP_KSYMS_MISSING_TEXT	"[kernel frames missing]"

struct kp_stacks {
	int fd;
	struct kp_sym *sym;
	struct kp_stack_info **v;	/* sorted by ID */
	size_t n;
	size_t cap;
	uint32_t stack_resets;	/* of the snapshots the cache holds */
};

void kp_stacks_init(struct kp_stacks *c, int fd, struct kp_sym *sym);
void kp_stacks_fini(struct kp_stacks *c);

/*
 * KPROF_IOC_GET_STACK for @id into @q, checked: returns 0, -ENOENT for an
 * unknown ID, -EBADMSG for a malformed answer (reason in @err), or
 * another -errno from the ioctl.  Prints nothing.
 */
int kp_stack_query(int fd, uint32_t id, struct kprof_stack_query *q,
		   char *err, size_t errlen);

/*
 * Stack @id: from the cache, else from @snap (may be NULL) if it holds it,
 * else from the module (once per ID).  Failures are cached too, in ->err
 * and ->why; nothing is printed.  NULL only when out of memory.  A @snap
 * taken after a KPROF_RESET_STACKS empties the cache first: IDs seen
 * before may now name other stacks.
 */
struct kp_stack_info *kp_stacks_get(struct kp_stacks *c, uint32_t id,
				    const struct kp_snapshot *snap);

/* User frame @i of @si symbolized ("[unknown]" when that fails). */
const char *kp_stack_user(struct kp_stacks *c, struct kp_stack_info *si,
			  unsigned int i);

/* The function of user frame @i, or NULL when not symbolized. */
const char *kp_stack_user_func(struct kp_stacks *c, struct kp_stack_info *si,
			       unsigned int i);

/*
 * The leaf-most @max frames of @si as text: kernel frames first (or
 * KP_KSYMS_MISSING_TEXT in their place), then the user frames,
 * symbolized.  Returns how many were stored in @out.
 */
unsigned int kp_stack_leaf(struct kp_stacks *c, struct kp_stack_info *si,
			   const char **out, unsigned int max);

/*
 * Up to @max frames to show for @si inline: the leaf-most user frames,
 * symbolized, or the leaf-most kernel frames for a stack without user
 * frames.  Returns how many were stored in @out.
 */
unsigned int kp_stack_top(struct kp_stacks *c, struct kp_stack_info *si,
			  const char **out, unsigned int max);

#endif
