/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KPROF_STACKS_PRINT_H
#define KPROF_STACKS_PRINT_H

#include "stack.h"

/* @si's frames on stdout: a header line, then a frame a line. */
void kp_stack_print_text(struct kp_stacks *c, struct kp_stack_info *si);

/* @si as one JSON object on a line: id, tgid, comm, kernel, user. */
void kp_stack_print_json(struct kp_stacks *c, struct kp_stack_info *si);

#endif
