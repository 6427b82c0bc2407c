// SPDX-License-Identifier: GPL-2.0
/* A synthetic /dev/kprof mapping for the snapshot tests, see synth.h. */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "synth.h"
#include "unit.h"

static const char ksyms[] =
	"tcp_sendmsg+0x0/0x50\0inet_sendmsg+0x3c/0x70\0sock_sendmsg+0x5e/0x70\0"
	"tcp_recvmsg+0x0/0x1e0\0";

#define STRINGS_CAP	4096

struct kprof_tcp_row *synth_row(struct synth *s, unsigned int i)
{
	return (void *)(s->buf + s->h->tcp_rows_off + (size_t)i * s->h->tcp_row_size);
}

struct kprof_cpu_row *synth_cpu_row(struct synth *s, unsigned int i)
{
	return (void *)(s->buf + s->h->cpu_rows_off + (size_t)i * s->h->cpu_row_size);
}

struct kprof_stack *synth_stack(struct synth *s, unsigned int i)
{
	return (void *)(s->buf + s->h->stacks_off + (size_t)i * s->h->stack_size);
}

static size_t align64(size_t v)
{
	return (v + 63) & ~(size_t)63;
}

void synth_build(struct synth *s, const struct synth_layout *l)
{
	size_t hsize = sizeof(struct kprof_mmap_header) + l->header_extra;
	size_t rsize = sizeof(struct kprof_tcp_row) + l->row_extra;
	size_t ssize = sizeof(struct kprof_stack) + l->stack_extra;
	size_t csize = sizeof(struct kprof_cpu_row) + l->cpu_row_extra;
	size_t rows_off = align64(hsize);
	size_t crows_off = align64(rows_off + l->nr_rows * rsize);
	size_t stacks_off = align64(crows_off + l->nr_cpu_rows * csize);
	size_t strings_off = align64(stacks_off + l->nr_stacks * ssize);
	struct kprof_mmap_header *h;
	struct kprof_tcp_row *r;
	struct kprof_cpu_row *c;
	struct kprof_stack *st;
	unsigned int i, b;

	s->size = ((strings_off + STRINGS_CAP + 4095) & ~(size_t)4095) + 4096;
	s->buf = aligned_alloc(4096, s->size);
	memset(s->buf, 0, s->size);
	s->h = h = (void *)s->buf;
	h->magic = KPROF_MMAP_MAGIC;
	h->header_size = hsize;
	h->api_major = KPROF_API_MAJOR;
	h->api_minor = KPROF_API_MINOR;
	h->generation = 2;
	h->mmap_size = s->size;
	h->interval_start_ns = 1000000000;
	h->interval_end_ns = 2000000000;
	h->tcp_rows_off = rows_off;
	h->tcp_row_size = rsize;
	h->nr_tcp_rows = l->nr_rows;
	h->stacks_off = stacks_off;
	h->stack_size = ssize;
	h->nr_stacks = l->nr_stacks;
	h->strings_off = strings_off;
	h->strings_len = sizeof(ksyms) - 1;	/* the final "" is ours */
	h->strings_cap = STRINGS_CAP;
	h->hist_buckets = KPROF_HIST_BUCKETS;
	h->hist_sub_bits = KPROF_HIST_SUB_BITS;
	h->requests = 1234;
	h->abandoned = 5;
	h->drops_inflight = 1;
	h->drops_rows = 2;
	h->drops_stacks = 3;
	h->drops_export = 4;
	h->cpu_rows_off = crows_off;
	h->cpu_row_size = csize;
	h->nr_cpu_rows = l->nr_cpu_rows;
	h->samples = 1000;
	h->samples_idle = 400;
	h->drops_samples = 6;
	h->sample_hz = 99;
	h->stack_resets = 1;
	memcpy(s->buf + strings_off, ksyms, sizeof(ksyms) - 1);
	/* Junk in the extra record bytes must be ignored. */
	memset(s->buf + sizeof(*h), 0xa5, hsize - sizeof(*h));

	for (i = 0; i < l->nr_rows; i++) {
		r = synth_row(s, i);
		memset(r, 0, rsize);
		memset((char *)r + sizeof(*r), 0x5a, rsize - sizeof(*r));
		r->stack_id = (i % 3 == 0) ? 0 : (i % 3 == 1 ? 7 : 3);
		r->family = i % 2 ? AF_INET6 : AF_INET;
		r->rport = 8000 + i;
		if (r->family == AF_INET)
			inet_pton(AF_INET, "10.0.4.12", r->raddr);
		else
			inet_pton(AF_INET6, "2001:db8::1", r->raddr);
		r->role = i % 2 ? KPROF_ROLE_SERVER : KPROF_ROLE_CLIENT;
		r->count = 10 * (i + 1);
		for (b = 0; b < r->count; b++) {
			uint64_t v = 1000 * (b + 1) * (i + 1);

			r->hist[b % 7 + 100]++;
			r->sum_ns += v;
		}
		r->min_ns = 1000 * (i + 1);
		r->max_ns = 1000 * r->count * (i + 1);
	}
	for (i = 0; i < l->nr_cpu_rows; i++) {
		c = synth_cpu_row(s, i);
		memset((char *)c + sizeof(*c), 0x3c, csize - sizeof(*c));
		c->stack_id = (i % 3 == 0) ? 7 : (i % 3 == 1 ? 11 : 0);
		c->tgid = 4242 + i;
		c->samples = 100 + i;
		memcpy(c->comm, "worker-0123456789", 16);	/* no NUL */
	}
	for (i = 0; i < l->nr_stacks && i < 3; i++) {
		st = synth_stack(s, i);
		memset((char *)st + sizeof(*st), 0x77, ssize - sizeof(*st));
		/* Out of ID order on purpose. */
		st->id = i == 0 ? 7 : (i == 1 ? 3 : 11);
		st->tgid = 4242;
		st->nr_kernel = i == 0 ? 3 : (i == 1 ? 1 : 0);
		st->ksyms_off = i == 0 ? 0 : (i == 1 ? 67 : 0);
		st->nr_user = 2;
		st->user_ips[0] = 0x401000 + i;
		st->user_ips[1] = 0x402000 + i;
		memcpy(st->comm, "curl-with-a-long", 16);	/* no NUL */
	}
}

void synth_free(struct synth *s)
{
	free(s->buf);
	memset(s, 0, sizeof(*s));
}
