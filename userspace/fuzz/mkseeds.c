// SPDX-License-Identifier: GPL-2.0
/*
 * Writes the fuzzers' binary seeds into corpus/snapshot and corpus/stack
 * (run from userspace/fuzz; `make fuzz-seeds`): well-formed mappings of
 * several layouts, from the unit tests' synthetic mapping and one packed
 * by hand, and GET_STACK replies.  The text seeds are committed as they
 * are.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth.h"

static void put(const char *path, uint8_t flag, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || (flag != 0xff && fputc(flag, f) == EOF) ||
	    fwrite(p, 1, n, f) != n || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* The smallest mapping with a row of each kind and two stacks. */
static void packed(void)
{
	static const char ksyms[] = "do_sys_poll+0x1a/0x2c0\0tcp_sendmsg+0x3/0x50 [x]";
	size_t hs = sizeof(struct kprof_mmap_header);
	size_t rows = hs, crows = rows + sizeof(struct kprof_tcp_row);
	size_t stacks = crows + sizeof(struct kprof_cpu_row);
	size_t strings = stacks + 2 * sizeof(struct kprof_stack);
	size_t size = strings + sizeof(ksyms);
	char *buf = calloc(1, size);
	struct kprof_mmap_header *h = (void *)buf;
	struct kprof_tcp_row *r = (void *)(buf + rows);
	struct kprof_cpu_row *c = (void *)(buf + crows);
	struct kprof_stack *st = (void *)(buf + stacks);

	h->magic = KPROF_MMAP_MAGIC;
	h->header_size = hs;
	h->api_major = KPROF_API_MAJOR;
	h->api_minor = KPROF_API_MINOR;
	h->generation = 4;
	h->mmap_size = size;
	h->tcp_rows_off = rows;
	h->tcp_row_size = sizeof(*r);
	h->nr_tcp_rows = 1;
	h->cpu_rows_off = crows;
	h->cpu_row_size = sizeof(*c);
	h->nr_cpu_rows = 1;
	h->stacks_off = stacks;
	h->stack_size = sizeof(*st);
	h->nr_stacks = 2;
	h->strings_off = strings;
	h->strings_len = sizeof(ksyms);
	h->strings_cap = sizeof(ksyms);
	h->hist_buckets = KPROF_HIST_BUCKETS;
	h->hist_sub_bits = KPROF_HIST_SUB_BITS;
	h->requests = 1;
	h->samples = 3;
	h->samples_idle = 1;
	h->sample_hz = 99;
	r->stack_id = 2;
	r->family = 2;
	r->rport = 80;
	r->role = KPROF_ROLE_CLIENT;
	r->count = 1;
	r->sum_ns = r->min_ns = r->max_ns = 1000;
	r->hist[70] = 1;
	c->stack_id = 1;
	c->tgid = 1;
	c->samples = 2;
	memcpy(c->comm, "init", 4);
	st[0].id = 2;
	st[0].nr_kernel = 1;
	st[0].ksyms_off = 23;
	st[1].id = 1;
	st[1].nr_kernel = 1;
	st[1].nr_user = 2;
	st[1].user_ips[0] = 0x401000;
	st[1].user_ips[1] = 0x401234;
	memcpy(st[1].comm, "init", 4);
	memcpy(buf + strings, ksyms, sizeof(ksyms));
	put("corpus/snapshot/packed", 3, buf, size);
	put("corpus/snapshot/packed-raw", 0, buf, size);
	free(buf);
}

int main(void)
{
	static const struct synth_layout layouts[] = {
		{ 0 },
		{ .nr_rows = 2, .nr_cpu_rows = 2, .nr_stacks = 3 },
		{ .header_extra = 40, .row_extra = 8, .stack_extra = 16,
		  .cpu_row_extra = 8, .nr_rows = 1, .nr_cpu_rows = 1,
		  .nr_stacks = 2 },
	};
	struct kprof_stack_query q;
	char path[64];
	unsigned int i;

	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		struct synth s;

		synth_build(&s, &layouts[i]);
		snprintf(path, sizeof(path), "corpus/snapshot/synth-%u", i);
		put(path, i ? 1 : 0, s.buf, s.size);
		synth_free(&s);
	}
	packed();

	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.id = 7;
	q.stack.id = 7;
	q.stack.nr_kernel = 2;
	q.stack.nr_user = 1;
	q.stack.user_ips[0] = 0x7f0000001000;
	strcpy(q.ksyms, "schedule+0x5/0x90");
	strcpy(q.ksyms + 18, "tcp_recvmsg+0x10/0x300 [kernel]");
	put("corpus/stack/two-frames", 0xff, &q, sizeof(q));
	q.stack.nr_kernel = 0;
	q.stack.ksyms_off = KPROF_KSYMS_MISSING;
	put("corpus/stack/ksyms-missing", 0xff, &q, 64);
	return 0;
}
