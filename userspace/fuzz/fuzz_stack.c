// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the reader's check of a stack record against its
 * string area, as for a KPROF_IOC_GET_STACK reply (struct
 * kprof_stack_query) and for the stacks of the mapping.  Input: the
 * reply's bytes (missing ones are zero).  A record kp_stack_check()
 * accepts must have every kernel frame inside the string area.
 */
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kprof_stack_query *q = malloc(sizeof(*q));
	char err[KP_SNAP_ERR_LEN];
	const char *end;
	unsigned int i;

	if (!q)
		return 0;
	memset(q, 0, sizeof(*q));
	memcpy(q, data, size < sizeof(*q) ? size : sizeof(*q));
	end = q->ksyms + sizeof(q->ksyms);
	if (!kp_stack_check(&q->stack, q->ksyms, sizeof(q->ksyms), err,
			    sizeof(err))) {
		for (i = 0; i < q->stack.nr_kernel; i++) {
			const char *s = kp_stack_ksym(&q->stack, q->ksyms, i);

			if (s < q->ksyms || s >= end || !memchr(s, '\0', end - s))
				abort();
		}
	} else if (!err[0]) {
		abort();
	}
	free(q);
	return 0;
}
