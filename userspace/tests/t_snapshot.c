// SPDX-License-Identifier: GPL-2.0
/* Tests: the snapshot parser on well-formed and corrupted mappings. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "snapshot.h"
#include "synth.h"
#include "unit.h"

static const struct synth_layout std_layout = {
	.nr_rows = 5, .nr_cpu_rows = 4, .nr_stacks = 3,
};

static void check_copy(struct synth *s, const struct kp_snapshot *snap)
{
	const struct kprof_stack *st;
	unsigned int i;

	EXPECT(snap->generation == 2, "generation %llu",
	       (unsigned long long)snap->generation);
	EXPECT(snap->start_ns == 1000000000 && snap->end_ns == 2000000000,
	       "interval");
	EXPECT(snap->requests == 1234 && snap->abandoned == 5, "counters");
	EXPECT(snap->drops_inflight == 1 && snap->drops_rows == 2 &&
	       snap->drops_stacks == 3 && snap->drops_export == 4, "drops");
	EXPECT(snap->nr_rows == s->h->nr_tcp_rows, "nr_rows %u", snap->nr_rows);
	for (i = 0; i < snap->nr_rows && i < s->h->nr_tcp_rows; i++)
		EXPECT(!memcmp(&snap->rows[i], synth_row(s, i),
			       sizeof(snap->rows[i])), "row %u copied", i);
	EXPECT(snap->nr_cpu_rows == s->h->nr_cpu_rows, "nr_cpu_rows %u",
	       snap->nr_cpu_rows);
	for (i = 0; i < snap->nr_cpu_rows && i < s->h->nr_cpu_rows; i++)
		EXPECT(!memcmp(&snap->cpu_rows[i], synth_cpu_row(s, i),
			       sizeof(snap->cpu_rows[i])), "cpu row %u copied", i);
	EXPECT(snap->samples == 1000 && snap->samples_idle == 400 &&
	       snap->drops_samples == 6 && snap->sample_hz == 99 &&
	       snap->stack_resets == 1, "sample counters");
	EXPECT(kp_snapshot_busy(snap) == 600, "busy samples");
	EXPECT(snap->nr_stacks == s->h->nr_stacks, "nr_stacks %u",
	       snap->nr_stacks);
	for (i = 1; i < snap->nr_stacks; i++)
		EXPECT(snap->stacks[i - 1].id < snap->stacks[i].id,
		       "stacks sorted by ID");
	EXPECT(snap->strings_len == s->h->strings_len &&
	       snap->strings[snap->strings_len] == '\0', "strings");
	st = kp_snapshot_stack(snap, 7);
	EXPECT(st && st->nr_kernel == 3, "stack 7 found");
	if (st) {
		EXPECT(!strcmp(kp_stack_ksym(st, snap->strings, 0),
			       "tcp_sendmsg+0x0/0x50"), "ksym 0");
		EXPECT(!strcmp(kp_stack_ksym(st, snap->strings, 2),
			       "sock_sendmsg+0x5e/0x70"), "ksym 2");
		EXPECT(st->user_ips[1] == 0x402000, "user ips");
	}
	st = kp_snapshot_stack(snap, 3);
	EXPECT(st && !strcmp(kp_stack_ksym(st, snap->strings, 0),
			     "tcp_recvmsg+0x0/0x1e0"), "stack 3");
	EXPECT(kp_snapshot_stack(snap, 11), "stack 11, no kernel frames");
	EXPECT(!kp_snapshot_stack(snap, 99), "no stack 99");
	EXPECT(!kp_snapshot_stack(snap, 0), "no stack 0");
}

/* kp_map_copy(): the mapping byte for byte, or -EAGAIN mid-write. */
static void test_map_copy(void)
{
	struct kp_map map;
	struct synth s;
	char *dst;

	synth_build(&s, &std_layout);
	map.base = s.buf;
	map.size = s.size;
	dst = calloc(1, s.size);
	EXPECT(dst, "calloc");
	if (dst) {
		EXPECT(kp_map_copy(&map, dst, 1) == 0, "even generation");
		EXPECT(!memcmp(dst, s.buf, s.size), "copied as it is");
		s.h->generation = 3;
		EXPECT(kp_map_copy(&map, dst, 3) == -EAGAIN, "odd generation");
		free(dst);
	}
	synth_free(&s);
}

static void accept_layout(const struct synth_layout *l)
{
	char err[KP_SNAP_ERR_LEN] = "";
	struct kp_snapshot snap;
	struct synth s;
	int ret;

	synth_build(&s, l);
	ret = kp_snapshot_copy(s.buf, s.size, &snap, err, sizeof(err));
	EXPECT(ret == 0, "rejected: %d %s", ret, err);
	if (!ret) {
		check_copy(&s, &snap);
		kp_snapshot_free(&snap);
	}
	synth_free(&s);
}

static void test_accept(void)
{
	accept_layout(&std_layout);
}

static void test_accept_larger_records(void)
{
	const struct synth_layout l = {
		.header_extra = 40, .row_extra = 24, .stack_extra = 8,
		.cpu_row_extra = 16, .nr_rows = 5, .nr_cpu_rows = 7,
		.nr_stacks = 3,
	};

	accept_layout(&l);
}

/*
 * A module before API 3.2: rows without the health counters, whose bytes
 * past the row read as 0 whatever follows it in the mapping.
 */
static void test_accept_rows_before_health(void)
{
	char err[KP_SNAP_ERR_LEN] = "";
	struct kp_snapshot snap;
	struct kprof_tcp_row *r;
	struct synth s;
	int ret;

	synth_build(&s, &std_layout);
	r = synth_row(&s, 0);
	r->retransmits = 5;
	r->resets_received = 6;
	r->after_retransmit = 7;
	s.h->tcp_row_size = KPROF_TCP_ROW_SIZE_VER0;
	s.h->nr_tcp_rows = 1;
	ret = kp_snapshot_copy(s.buf, s.size, &snap, err, sizeof(err));
	EXPECT(!ret, "rejected: %s", err);
	if (!ret) {
		EXPECT(snap.nr_rows == 1, "nr_rows %u", snap.nr_rows);
		EXPECT(!memcmp(&snap.rows[0], r, KPROF_TCP_ROW_SIZE_VER0),
		       "the row's first bytes copied");
		EXPECT(!snap.rows[0].retransmits &&
		       !snap.rows[0].resets_received &&
		       !snap.rows[0].after_retransmit,
		       "health past the row reads 0");
		kp_snapshot_free(&snap);
	}
	synth_free(&s);
}

static void test_accept_empty(void)
{
	char err[KP_SNAP_ERR_LEN] = "";
	const struct synth_layout l = { 0 };
	struct kp_snapshot snap;
	struct synth s;
	int ret;

	synth_build(&s, &l);
	s.h->strings_len = 0;
	s.h->tcp_rows_off = s.h->stacks_off = s.h->cpu_rows_off = 0; /* unused */
	ret = kp_snapshot_copy(s.buf, s.size, &snap, err, sizeof(err));
	EXPECT(!ret, "rejected: %s", err);
	if (!ret) {
		EXPECT(!snap.nr_rows && !snap.nr_stacks && !snap.strings_len &&
		       !snap.nr_cpu_rows, "empty");
		EXPECT(!kp_snapshot_stack(&snap, 1), "no stacks");
		kp_snapshot_free(&snap);
	}
	synth_free(&s);
}

static void test_accept_header_minimum(void)
{
	char err[KP_SNAP_ERR_LEN] = "";
	struct kp_snapshot snap;
	struct synth s;
	int ret;

	/*
	 * The API 1.1 fields, up to drops_export, are all top needs; what
	 * follows in the buffer is not the header's and must be ignored.
	 */
	synth_build(&s, &std_layout);
	s.h->header_size = offsetof(struct kprof_mmap_header, drops_export) + 8;
	ret = kp_snapshot_copy(s.buf, s.size, &snap, err, sizeof(err));
	EXPECT(!ret, "rejected: %s", err);
	if (!ret) {
		EXPECT(snap.nr_rows == 5 && !snap.nr_cpu_rows, "no CPU rows");
		EXPECT(!snap.samples && !snap.samples_idle &&
		       !snap.drops_samples && !snap.sample_hz &&
		       !snap.stack_resets, "no sample counters");
		kp_snapshot_free(&snap);
	}
	synth_free(&s);
}

/* An API 1.1 module: a full-size header with zeros in the 1.2 fields. */
static void test_accept_api_1_1(void)
{
	char err[KP_SNAP_ERR_LEN] = "";
	struct kp_snapshot snap;
	struct synth s;
	int ret;

	synth_build(&s, &std_layout);
	s.h->api_minor = 1;
	memset(&s.h->cpu_rows_off, 0,
	       offsetof(struct kprof_mmap_header, reserved) -
	       offsetof(struct kprof_mmap_header, cpu_rows_off));
	ret = kp_snapshot_copy(s.buf, s.size, &snap, err, sizeof(err));
	EXPECT(!ret, "rejected: %s", err);
	if (!ret) {
		EXPECT(snap.nr_rows == 5 && snap.nr_stacks == 3 &&
		       !snap.nr_cpu_rows && snap.cpu_rows, "TCP rows only");
		EXPECT(!snap.samples && !kp_snapshot_busy(&snap) &&
		       !snap.sample_hz, "no samples");
		kp_snapshot_free(&snap);
	}
	synth_free(&s);
}

/* A header cut inside the API 1.2 fields has none of them. */
static void test_accept_cut_cpu_fields(void)
{
	char err[KP_SNAP_ERR_LEN] = "";
	struct kp_snapshot snap;
	struct synth s;
	int ret;

	synth_build(&s, &std_layout);
	s.h->header_size = offsetof(struct kprof_mmap_header, samples_idle);
	ret = kp_snapshot_copy(s.buf, s.size, &snap, err, sizeof(err));
	EXPECT(!ret, "rejected: %s", err);
	if (!ret) {
		EXPECT(!snap.nr_cpu_rows && !snap.samples, "no CPU rows");
		kp_snapshot_free(&snap);
	}
	synth_free(&s);
}

/* CPU rows anywhere that does not overlap: say, after the strings. */
static void test_accept_cpu_rows_last(void)
{
	char err[KP_SNAP_ERR_LEN] = "";
	struct kp_snapshot snap;
	struct synth s;
	int ret;

	synth_build(&s, &std_layout);
	memmove(s.buf + s.size - 4 * sizeof(struct kprof_cpu_row),
		synth_cpu_row(&s, 0), 4 * sizeof(struct kprof_cpu_row));
	s.h->cpu_rows_off = s.size - 4 * sizeof(struct kprof_cpu_row);
	ret = kp_snapshot_copy(s.buf, s.size, &snap, err, sizeof(err));
	EXPECT(!ret, "rejected: %s", err);
	if (!ret) {
		check_copy(&s, &snap);
		kp_snapshot_free(&snap);
	}
	synth_free(&s);
}

/* --- corrupted layouts ------------------------------------------------ */

static void reject(const char *what, void (*corrupt)(struct synth *),
		   int want)
{
	char err[KP_SNAP_ERR_LEN] = "";
	struct kp_snapshot snap;
	struct synth s;
	int ret;

	synth_build(&s, &std_layout);
	corrupt(&s);
	memset(&snap, 0x5a, sizeof(snap));
	ret = kp_snapshot_copy(s.buf, s.size, &snap, err, sizeof(err));
	EXPECT(ret == want, "%s: got %d (%s), want %d", what, ret, err, want);
	EXPECT(err[0], "%s: no reason given", what);
	EXPECT(!snap.rows && !snap.stacks && !snap.strings,
	       "%s: memory left in the snapshot", what);
	if (!ret)
		kp_snapshot_free(&snap);
	printf("#   %s -> %s\n", what, err);
	synth_free(&s);
}

#define REJECT(name, want, body)					\
	static void corrupt_##name(struct synth *s)			\
	{								\
		struct kprof_mmap_header *h = s->h;			\
		(void)h;						\
		body;							\
	}								\
	static void test_##name(void)					\
	{								\
		reject(#name, corrupt_##name, want);			\
	}

REJECT(bad_magic, -EBADMSG, h->magic = 0x46525042)
REJECT(zero_mapping, -EBADMSG, memset(s->buf, 0, s->size))
REJECT(api_major, -EBADMSG, h->api_major = KPROF_API_MAJOR + 1)
REJECT(odd_generation, -EAGAIN, h->generation = 3)
REJECT(short_header, -EBADMSG,
	h->header_size = offsetof(struct kprof_mmap_header, drops_export))
REJECT(header_past_end, -EBADMSG, h->header_size = s->size + 1)
REJECT(mapping_smaller_than_header, -EBADMSG, s->size = 100)
REJECT(mmap_size_larger, -EBADMSG, h->mmap_size = s->size + 4096)
REJECT(mmap_size_smaller, -EBADMSG, h->mmap_size = s->size - 1)
REJECT(mapping_shorter_than_claimed, -EBADMSG, s->size -= 4096)
REJECT(hist_buckets, -EBADMSG, h->hist_buckets = KPROF_HIST_BUCKETS - 8)
REJECT(hist_sub_bits, -EBADMSG, h->hist_sub_bits = KPROF_HIST_SUB_BITS + 1)
REJECT(short_row_size, -EBADMSG,
	h->tcp_row_size = KPROF_TCP_ROW_SIZE_VER0 - 4)
REJECT(short_stack_size, -EBADMSG,
	h->stack_size = sizeof(struct kprof_stack) - 8)
REJECT(zero_row_size, -EBADMSG, h->tcp_row_size = 0)
REJECT(rows_past_end, -EBADMSG, h->tcp_rows_off = s->size - 10)
REJECT(too_many_rows, -EBADMSG, h->nr_tcp_rows = 0xffffffff)
REJECT(rows_offset_overflow, -EBADMSG, h->tcp_rows_off = UINT64_MAX - 100)
REJECT(rows_count_size_overflow, -EBADMSG,
	h->tcp_rows_off = UINT64_MAX - 1000000;
	h->tcp_row_size = 0xffffffff; h->nr_tcp_rows = 0xffffffff)
REJECT(stacks_offset_overflow, -EBADMSG,
	h->stacks_off = UINT64_MAX - sizeof(struct kprof_stack) + 1)
REJECT(stacks_past_end, -EBADMSG, h->nr_stacks = s->size / h->stack_size)
REJECT(strings_past_end, -EBADMSG, h->strings_off = s->size - 100)
REJECT(strings_offset_overflow, -EBADMSG, h->strings_off = UINT64_MAX - 10)
REJECT(strings_len_above_cap, -EBADMSG, h->strings_len = h->strings_cap + 1)
REJECT(rows_overlap_header, -EBADMSG, h->tcp_rows_off = 64)
REJECT(rows_overlap_stacks, -EBADMSG, h->stacks_off = h->tcp_rows_off + 64)
REJECT(stacks_overlap_strings, -EBADMSG,
	h->strings_off = h->stacks_off + h->stack_size)
REJECT(unterminated_string, -EBADMSG, h->strings_len -= 1)
REJECT(unterminated_middle, -EBADMSG,
	h->strings_len = 60 /* inside the 3rd frame of stack 7 */)
REJECT(ksyms_off_outside, -EBADMSG,
	synth_stack(s, 1)->ksyms_off = h->strings_len + 5)
REJECT(ksyms_off_at_end, -EBADMSG,
	synth_stack(s, 1)->ksyms_off = h->strings_len)
REJECT(ksyms_off_huge, -EBADMSG, synth_stack(s, 1)->ksyms_off = 0xffffffff)
REJECT(frames_run_past_strings, -EBADMSG, synth_stack(s, 0)->nr_kernel = 5)
REJECT(too_many_kernel_frames, -EBADMSG,
	synth_stack(s, 2)->nr_kernel = KPROF_MAX_KERNEL_FRAMES + 1)
REJECT(too_many_user_frames, -EBADMSG,
	synth_stack(s, 2)->nr_user = KPROF_MAX_USER_FRAMES + 1)
REJECT(stack_id_zero, -EBADMSG, synth_stack(s, 1)->id = 0)
REJECT(short_cpu_row_size, -EBADMSG,
	h->cpu_row_size = sizeof(struct kprof_cpu_row) - 8)
REJECT(zero_cpu_row_size, -EBADMSG, h->cpu_row_size = 0)
REJECT(short_cpu_row_size_no_rows, -EBADMSG,
	h->nr_cpu_rows = 0; h->cpu_row_size = 4)
REJECT(cpu_rows_past_end, -EBADMSG, h->cpu_rows_off = s->size - 40)
REJECT(too_many_cpu_rows, -EBADMSG, h->nr_cpu_rows = 0xffffffff)
REJECT(cpu_rows_offset_overflow, -EBADMSG,
	h->cpu_rows_off = UINT64_MAX - 16)
REJECT(cpu_rows_count_size_overflow, -EBADMSG,
	h->cpu_rows_off = UINT64_MAX - 1000000;
	h->cpu_row_size = 0xffffffff; h->nr_cpu_rows = 0xffffffff)
REJECT(cpu_rows_size_past_end, -EBADMSG,
	h->cpu_row_size = s->size / 2)
REJECT(cpu_rows_overlap_header, -EBADMSG, h->cpu_rows_off = 8)
REJECT(cpu_rows_overlap_tcp_rows, -EBADMSG,
	h->cpu_rows_off = h->tcp_rows_off + 100)
REJECT(cpu_rows_overlap_stacks, -EBADMSG,
	h->cpu_rows_off = h->stacks_off - 8)
REJECT(cpu_rows_overlap_strings, -EBADMSG,
	h->cpu_rows_off = h->strings_off + 64)

/* --- a writer racing the reader ---------------------------------------- */

struct race {
	struct synth s;
	int stop;
	unsigned long writes;
};

/*
 * The module's protocol: generation odd, write, generation even.  Every
 * interval's rows all count generation / 2, and there are 1 + gen/2 % 4 of
 * them; a torn copy would mix two intervals.
 */
static void *writer(void *arg)
{
	struct race *r = arg;
	struct kprof_mmap_header *h = r->s.h;
	uint64_t gen = h->generation;
	unsigned int i, n, spin;

	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		__atomic_store_n(&h->generation, gen + 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		gen += 2;
		n = 1 + gen / 2 % 4;
		h->nr_tcp_rows = n;
		h->nr_cpu_rows = 5 - n;
		h->requests = gen / 2;
		h->samples = gen / 2;
		for (i = 0; i < n; i++) {
			synth_row(&r->s, i)->count = gen / 2;
			synth_row(&r->s, i)->sum_ns = gen / 2;
		}
		for (i = 0; i < 5 - n; i++)
			synth_cpu_row(&r->s, i)->samples = gen / 2;
		__atomic_store_n(&h->generation, gen, __ATOMIC_RELEASE);
		r->writes++;
		/* Irregular gaps, sometimes shorter than a copy takes. */
		for (spin = (gen * 2654435761U) % 20000; spin; spin--)
			__asm__ volatile("" ::: "memory");
	}
	return NULL;
}

static uint64_t elapsed_ms(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000 +
	       (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

static void test_race(void)
{
	const struct synth_layout l = {
		.nr_rows = 4, .nr_cpu_rows = 4, .nr_stacks = 3,
	};
	unsigned int ok = 0, again = 0, torn = 0, j;
	char err[KP_SNAP_ERR_LEN];
	struct kp_snapshot snap;
	struct race r = { 0 };
	struct timespec t0;
	pthread_t th;
	uint64_t v;
	int ret;

	synth_build(&r.s, &l);
	if (!EXPECT(!pthread_create(&th, NULL, writer, &r), "pthread_create")) {
		synth_free(&r.s);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (elapsed_ms(&t0) < 500) {
		ret = kp_snapshot_copy(r.s.buf, r.s.size, &snap, err, sizeof(err));
		if (ret == -EAGAIN) {
			again++;
			continue;
		}
		EXPECT(!ret, "copy failed: %s", err);
		if (ret)
			continue;
		ok++;
		v = snap.generation / 2;
		if (snap.generation == 2) {	/* before the first write */
			kp_snapshot_free(&snap);
			continue;
		}
		if (snap.nr_rows != 1 + v % 4 || snap.requests != v ||
		    snap.nr_cpu_rows != 4 - v % 4 || snap.samples != v)
			torn++;
		for (j = 0; j < snap.nr_rows; j++)
			if (snap.rows[j].count != v || snap.rows[j].sum_ns != v)
				torn++;
		for (j = 0; j < snap.nr_cpu_rows; j++)
			if (snap.cpu_rows[j].samples != v)
				torn++;
		kp_snapshot_free(&snap);
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	printf("#   %u consistent copies, %u gave up (-EAGAIN), %lu writes\n",
	       ok, again, r.writes);
	EXPECT(!torn, "%u torn copies accepted", torn);
	EXPECT(ok > 0, "no consistent copy at all");
	synth_free(&r.s);
}

/*
 * A writer that is descheduled mid-write: the generation stays odd for
 * far longer than a copy takes (a snapshot ioctl preempted on a busy
 * machine).  The copy waits for it rather than give the window up.
 */
struct slow_writer {
	struct synth s;
	unsigned int odd_ms;
};

static void *slow_write(void *arg)
{
	struct slow_writer *w = arg;
	struct timespec ts = { w->odd_ms / 1000, w->odd_ms % 1000 * 1000000L };
	uint64_t gen = w->s.h->generation;

	nanosleep(&ts, NULL);
	w->s.h->requests = 4321;
	__atomic_store_n(&w->s.h->generation, gen + 1, __ATOMIC_RELEASE);
	return NULL;
}

static void test_odd_generation_waits(void)
{
	struct slow_writer w = { .odd_ms = 150 };
	char err[KP_SNAP_ERR_LEN];
	struct kp_snapshot snap;
	pthread_t th;
	int ret;

	synth_build(&w.s, &std_layout);
	w.s.h->generation = 3;
	if (!EXPECT(!pthread_create(&th, NULL, slow_write, &w),
		    "pthread_create")) {
		synth_free(&w.s);
		return;
	}
	ret = kp_snapshot_copy(w.s.buf, w.s.size, &snap, err, sizeof(err));
	pthread_join(th, NULL);
	EXPECT(!ret, "copy gave up on a writer odd for %u ms: %s", w.odd_ms,
	       err);
	if (!ret) {
		EXPECT(snap.generation == 4 && snap.requests == 4321,
		       "the finished write copied");
		kp_snapshot_free(&snap);
	}
	synth_free(&w.s);
}

const struct kp_test t_snapshot[] = {
	{ "snapshot: accepts a well-formed mapping", test_accept },
	{ "snapshot: accepts larger header and records (newer module)", test_accept_larger_records },
	{ "snapshot: accepts an empty interval", test_accept_empty },
	{ "snapshot: accepts a header ending after drops_export (no CPU rows)", test_accept_header_minimum },
	{ "snapshot: accepts an API 1.1 header (zeros: no CPU rows)", test_accept_api_1_1 },
	{ "snapshot: a header cut inside the 1.2 fields has no CPU rows", test_accept_cut_cpu_fields },
	{ "snapshot: accepts CPU rows after the strings", test_accept_cpu_rows_last },
	{ "snapshot rejects: bad magic", test_bad_magic },
	{ "snapshot rejects: all-zero mapping", test_zero_mapping },
	{ "snapshot rejects: other API major", test_api_major },
	{ "snapshot rejects: odd generation (never finished)", test_odd_generation },
	{ "snapshot: waits out a writer descheduled mid-write", test_odd_generation_waits },
	{ "snapshot rejects: header_size below what we need", test_short_header },
	{ "snapshot rejects: header_size past the mapping", test_header_past_end },
	{ "snapshot rejects: mapping smaller than a header", test_mapping_smaller_than_header },
	{ "snapshot rejects: mmap_size larger than the mapping", test_mmap_size_larger },
	{ "snapshot rejects: mmap_size smaller than the mapping", test_mmap_size_smaller },
	{ "snapshot rejects: mapping shorter than mmap_size", test_mapping_shorter_than_claimed },
	{ "snapshot rejects: other hist_buckets", test_hist_buckets },
	{ "snapshot rejects: other hist_sub_bits", test_hist_sub_bits },
	{ "snapshot rejects: short tcp_row_size", test_short_row_size },
	{ "snapshot accepts rows of API 3.1, health 0", test_accept_rows_before_health },
	{ "snapshot rejects: short stack_size", test_short_stack_size },
	{ "snapshot rejects: zero tcp_row_size", test_zero_row_size },
	{ "snapshot rejects: rows offset past the end", test_rows_past_end },
	{ "snapshot rejects: row count past the end", test_too_many_rows },
	{ "snapshot rejects: rows offset + size overflows", test_rows_offset_overflow },
	{ "snapshot rejects: rows count * size + offset overflows", test_rows_count_size_overflow },
	{ "snapshot rejects: stacks offset overflows", test_stacks_offset_overflow },
	{ "snapshot rejects: stack count past the end", test_stacks_past_end },
	{ "snapshot rejects: strings past the end", test_strings_past_end },
	{ "snapshot rejects: strings offset overflows", test_strings_offset_overflow },
	{ "snapshot rejects: strings_len above strings_cap", test_strings_len_above_cap },
	{ "snapshot rejects: rows overlapping the header", test_rows_overlap_header },
	{ "snapshot rejects: rows overlapping stacks", test_rows_overlap_stacks },
	{ "snapshot rejects: stacks overlapping strings", test_stacks_overlap_strings },
	{ "snapshot rejects: unterminated last string", test_unterminated_string },
	{ "snapshot rejects: string cut inside a stack's frames", test_unterminated_middle },
	{ "snapshot rejects: ksyms_off outside the strings", test_ksyms_off_outside },
	{ "snapshot rejects: ksyms_off at the end of the strings", test_ksyms_off_at_end },
	{ "snapshot rejects: ksyms_off 0xffffffff", test_ksyms_off_huge },
	{ "snapshot rejects: kernel frames running past the strings", test_frames_run_past_strings },
	{ "snapshot rejects: too many kernel frames", test_too_many_kernel_frames },
	{ "snapshot rejects: too many user frames", test_too_many_user_frames },
	{ "snapshot rejects: stack ID 0", test_stack_id_zero },
	{ "snapshot rejects: short cpu_row_size", test_short_cpu_row_size },
	{ "snapshot rejects: zero cpu_row_size with CPU rows", test_zero_cpu_row_size },
	{ "snapshot rejects: short cpu_row_size without CPU rows", test_short_cpu_row_size_no_rows },
	{ "snapshot rejects: CPU rows offset past the end", test_cpu_rows_past_end },
	{ "snapshot rejects: CPU row count past the end", test_too_many_cpu_rows },
	{ "snapshot rejects: CPU rows offset + size overflows", test_cpu_rows_offset_overflow },
	{ "snapshot rejects: CPU rows count * size + offset overflows", test_cpu_rows_count_size_overflow },
	{ "snapshot rejects: CPU row size running past the end", test_cpu_rows_size_past_end },
	{ "snapshot rejects: CPU rows overlapping the header", test_cpu_rows_overlap_header },
	{ "snapshot rejects: CPU rows overlapping TCP rows", test_cpu_rows_overlap_tcp_rows },
	{ "snapshot rejects: CPU rows overlapping stacks", test_cpu_rows_overlap_stacks },
	{ "snapshot rejects: CPU rows overlapping strings", test_cpu_rows_overlap_strings },
	{ "snapshot: a racing writer never yields a torn copy", test_race },
	{ "snapshot: the mapping copied as it is, never mid-write", test_map_copy },
	{ NULL, NULL },
};
