/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A synthetic, well-formed /dev/kprof mapping for tests: a header, rows,
 * stacks and strings, with room for record sizes larger than ours.
 */
#ifndef KPROF_READER_TESTS_SYNTH_H
#define KPROF_READER_TESTS_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include <linux/kprof.h>

struct synth {
	char *buf;
	size_t size;
	struct kprof_mmap_header *h;
};

struct synth_layout {
	unsigned int header_extra;	/* bytes past our header */
	unsigned int row_extra;		/* bytes past our row */
	unsigned int stack_extra;	/* bytes past our stack */
	unsigned int cpu_row_extra;	/* bytes past our CPU row */
	unsigned int nr_rows;
	unsigned int nr_cpu_rows;	/* laid out after the TCP rows */
	unsigned int nr_stacks;		/* at most 3 */
};

/* Lay out and fill the mapping; generation 2. */
void synth_build(struct synth *s, const struct synth_layout *l);
void synth_free(struct synth *s);

struct kprof_tcp_row *synth_row(struct synth *s, unsigned int i);
struct kprof_cpu_row *synth_cpu_row(struct synth *s, unsigned int i);
struct kprof_stack *synth_stack(struct synth *s, unsigned int i);

#endif
