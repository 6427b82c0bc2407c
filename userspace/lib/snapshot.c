// SPDX-License-Identifier: GPL-2.0
/* kprof reader: the mapping and its validated copies, see snapshot.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "dev.h"
#include "snapshot.h"
#include "util.h"

/* Header fields this reader uses: those of API 1.1, up to @drops_export. */
#define HDR_NEED	(offsetof(struct kprof_mmap_header, drops_export) + \
			 sizeof(((struct kprof_mmap_header *)0)->drops_export))

/*
 * The API 1.2 fields, cpu_rows_off to stack_resets: a header ending before
 * them comes from an older module and has no CPU rows (as one with zeros
 * there).
 */
#define HDR_CPU_END	(offsetof(struct kprof_mmap_header, stack_resets) + \
			 sizeof(((struct kprof_mmap_header *)0)->stack_resets))

/*
 * Attempts at a consistent copy, and the pause between two.  While the
 * generation is odd a writer is mid-snapshot: a process in the module's
 * ioctl that the scheduler may have put aside for a while on a busy
 * machine, but that always finishes.  So an odd generation is waited
 * out, pausing longer each time, for up to COPY_ODD_MS in all.
 */
#define COPY_TRIES	50
#define COPY_PAUSE_NS	200000
#define COPY_PAUSE_MAX_NS 20000000
#define COPY_ODD_MS	2000

#define INFO_NEED	(offsetof(struct kprof_info, mmap_size) + \
			 sizeof(((struct kprof_info *)0)->mmap_size))

int kp_map_open(int fd, const struct kprof_info *info, struct kp_map *map)
{
	void *p;

	map->base = NULL;
	map->size = 0;
	if (info->size < INFO_NEED || !info->mmap_size) {
		kp_err("kprofmod %.*s (API %u.%u) publishes no data mapping: TCP latency needs API %u.1 or later",
		       KPROF_VERSION_LEN, info->version, info->api_major,
		       info->api_minor, KPROF_API_MAJOR);
		return -1;
	}
	if (info->mmap_size < HDR_NEED || info->mmap_size > SIZE_MAX / 2) {
		kp_err("kprofmod reports an implausible mapping size of %llu bytes",
		       (unsigned long long)info->mmap_size);
		return -1;
	}
	p = mmap(NULL, info->mmap_size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		kprof_dev_perror("mmap", errno);
		return -1;
	}
	map->base = p;
	map->size = info->mmap_size;
	return 0;
}

void kp_map_close(struct kp_map *map)
{
	if (map->base)
		munmap((void *)map->base, map->size);
	map->base = NULL;
	map->size = 0;
}

static int __attribute__((format(printf, 3, 4)))
bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EBADMSG;
}

struct region {
	const char *name;
	uint64_t off;
	uint64_t len;
};

/*
 * @nr records of @size bytes at @off: inside [header, mapping end)
 * without overflow.
 */
static int check_region(struct region *r, const char *name, uint64_t off,
			uint64_t nr, uint64_t size, uint64_t hdr_size,
			uint64_t map_size, char *err, size_t errlen)
{
	uint64_t len, end;

	r->name = name;
	r->off = off;
	if (__builtin_mul_overflow(nr, size, &len) ||
	    __builtin_add_overflow(off, len, &end))
		return bad(err, errlen,
			   "%s: offset %" PRIu64 " + %" PRIu64 " x %" PRIu64 " bytes overflows",
			   name, off, nr, size);
	r->len = len;
	if (!len)
		return 0;
	if (off < hdr_size)
		return bad(err, errlen,
			   "%s at offset %" PRIu64 " overlap the %" PRIu64 "-byte header",
			   name, off, hdr_size);
	if (end > map_size)
		return bad(err, errlen,
			   "%s end at %" PRIu64 ", past the %" PRIu64 "-byte mapping",
			   name, end, map_size);
	return 0;
}

static int check_overlap(const struct region *a, const struct region *b,
			 char *err, size_t errlen)
{
	if (!a->len || !b->len)
		return 0;
	if (a->off < b->off + b->len && b->off < a->off + a->len)
		return bad(err, errlen,
			   "%s [%" PRIu64 ", +%" PRIu64 ") overlap %s [%" PRIu64 ", +%" PRIu64 ")",
			   a->name, a->off, a->len, b->name, b->off, b->len);
	return 0;
}

/* Validate a copy of the header against a mapping of @size bytes. */
static int check_header(const struct kprof_mmap_header *h, uint64_t size,
			char *err, size_t errlen)
{
	struct region rows = { 0 }, crows = { 0 }, stacks = { 0 };
	struct region strings = { 0 };
	int ret;

	if (h->magic != KPROF_MMAP_MAGIC)
		return bad(err, errlen, "bad magic 0x%08x (want 0x%08x)",
			   h->magic, KPROF_MMAP_MAGIC);
	if (h->api_major != KPROF_API_MAJOR)
		return bad(err, errlen,
			   "mapping speaks API %u.%u, this kprof speaks %u.%u",
			   h->api_major, h->api_minor, KPROF_API_MAJOR,
			   KPROF_API_MINOR);
	if (h->header_size < HDR_NEED)
		return bad(err, errlen, "header_size %u is below the %zu bytes this kprof needs",
			   h->header_size, HDR_NEED);
	if (h->header_size > size)
		return bad(err, errlen, "header_size %u is larger than the %" PRIu64 "-byte mapping",
			   h->header_size, size);
	if (h->mmap_size != size)
		return bad(err, errlen, "header says mmap_size %llu, the mapping has %" PRIu64 " bytes",
			   (unsigned long long)h->mmap_size, size);
	if (h->hist_buckets != KPROF_HIST_BUCKETS ||
	    h->hist_sub_bits != KPROF_HIST_SUB_BITS)
		return bad(err, errlen,
			   "histograms of %u buckets with %u sub-bits, this kprof knows %u with %u",
			   h->hist_buckets, h->hist_sub_bits, KPROF_HIST_BUCKETS,
			   KPROF_HIST_SUB_BITS);
	/* a module before API 3.2 has rows without the health counters */
	if (h->tcp_row_size < KPROF_TCP_ROW_SIZE_VER0)
		return bad(err, errlen, "tcp_row_size %u is below the %u bytes of a row",
			   h->tcp_row_size, KPROF_TCP_ROW_SIZE_VER0);
	if (h->stack_size < sizeof(struct kprof_stack))
		return bad(err, errlen, "stack_size %u is below sizeof(struct kprof_stack) %zu",
			   h->stack_size, sizeof(struct kprof_stack));
	/* 0 with no rows: a module before API 1.2 */
	if ((h->nr_cpu_rows || h->cpu_row_size) &&
	    h->cpu_row_size < sizeof(struct kprof_cpu_row))
		return bad(err, errlen, "cpu_row_size %u is below sizeof(struct kprof_cpu_row) %zu",
			   h->cpu_row_size, sizeof(struct kprof_cpu_row));
	if (h->strings_len > h->strings_cap)
		return bad(err, errlen, "strings_len %u exceeds strings_cap %u",
			   h->strings_len, h->strings_cap);

	ret = check_region(&rows, "tcp rows", h->tcp_rows_off, h->nr_tcp_rows,
			   h->tcp_row_size, h->header_size, size, err, errlen);
	if (!ret)
		ret = check_region(&stacks, "stacks", h->stacks_off,
				   h->nr_stacks, h->stack_size, h->header_size,
				   size, err, errlen);
	if (!ret)
		ret = check_region(&strings, "strings", h->strings_off,
				   h->strings_cap, 1, h->header_size, size,
				   err, errlen);
	if (!ret)
		ret = check_region(&crows, "cpu rows", h->cpu_rows_off,
				   h->nr_cpu_rows, h->cpu_row_size,
				   h->header_size, size, err, errlen);
	if (!ret)
		ret = check_overlap(&rows, &stacks, err, errlen);
	if (!ret)
		ret = check_overlap(&rows, &strings, err, errlen);
	if (!ret)
		ret = check_overlap(&stacks, &strings, err, errlen);
	if (!ret)
		ret = check_overlap(&crows, &rows, err, errlen);
	if (!ret)
		ret = check_overlap(&crows, &stacks, err, errlen);
	if (!ret)
		ret = check_overlap(&crows, &strings, err, errlen);
	return ret;
}

int kp_stack_check(const struct kprof_stack *st, const char *strings,
		   size_t len, char *err, size_t errlen)
{
	const char *nul;
	size_t off = st->ksyms_off;
	unsigned int i;

	if (!st->id)
		return bad(err, errlen, "a stack has ID 0");
	if (st->nr_kernel > KPROF_MAX_KERNEL_FRAMES ||
	    st->nr_user > KPROF_MAX_USER_FRAMES)
		return bad(err, errlen,
			   "stack ID %u has %u kernel and %u user frames (at most %u and %u)",
			   st->id, st->nr_kernel, st->nr_user,
			   KPROF_MAX_KERNEL_FRAMES, KPROF_MAX_USER_FRAMES);
	for (i = 0; i < st->nr_kernel; i++) {
		if (off >= len)
			return bad(err, errlen,
				   "stack ID %u: kernel frame %u at string offset %zu, outside the %zu-byte string area",
				   st->id, i, off, len);
		nul = memchr(strings + off, '\0', len - off);
		if (!nul)
			return bad(err, errlen,
				   "stack ID %u: kernel frame %u is not NUL-terminated inside the string area",
				   st->id, i);
		off = nul + 1 - strings;
	}
	return 0;
}

const char *kp_stack_ksym(const struct kprof_stack *st, const char *strings,
			  unsigned int i)
{
	const char *s = strings + st->ksyms_off;

	while (i--)
		s += strlen(s) + 1;
	return s;
}

void kp_snapshot_free(struct kp_snapshot *snap)
{
	free(snap->rows);
	free(snap->cpu_rows);
	free(snap->stacks);
	free(snap->strings);
	memset(snap, 0, sizeof(*snap));
}

uint64_t kp_snapshot_busy(const struct kp_snapshot *snap)
{
	return snap->samples > snap->samples_idle ?
	       snap->samples - snap->samples_idle : 0;
}

static int cmp_stack(const void *a, const void *b)
{
	uint32_t x = ((const struct kprof_stack *)a)->id;
	uint32_t y = ((const struct kprof_stack *)b)->id;

	return x < y ? -1 : x > y;
}

const struct kprof_stack *kp_snapshot_stack(const struct kp_snapshot *snap,
					    uint32_t id)
{
	struct kprof_stack key = { .id = id };

	if (!snap->nr_stacks)
		return NULL;
	return bsearch(&key, snap->stacks, snap->nr_stacks,
		       sizeof(*snap->stacks), cmp_stack);
}

/* Copy the regions the validated header @h describes out of @buf. */
static int copy_regions(const char *buf, const struct kprof_mmap_header *h,
			struct kp_snapshot *snap)
{
	uint32_t i;
	size_t rsz;

	/*
	 * Every element is copied over below: no zeroing, which for 10k
	 * rows of 1.2 KiB would double the cost of the copy.  The counts
	 * are 32-bit, the products cannot overflow.
	 */
	snap->rows = malloc(((size_t)h->nr_tcp_rows ?: 1) * sizeof(*snap->rows));
	snap->cpu_rows = malloc(((size_t)h->nr_cpu_rows ?: 1) *
				sizeof(*snap->cpu_rows));
	snap->stacks = malloc(((size_t)h->nr_stacks ?: 1) *
			      sizeof(*snap->stacks));
	snap->strings = malloc((size_t)h->strings_len + 1);
	if (!snap->rows || !snap->cpu_rows || !snap->stacks || !snap->strings)
		return -ENOMEM;
	rsz = h->tcp_row_size < sizeof(*snap->rows) ? h->tcp_row_size :
						       sizeof(*snap->rows);
	for (i = 0; i < h->nr_tcp_rows; i++) {
		memcpy(&snap->rows[i],
		       buf + h->tcp_rows_off + (uint64_t)i * h->tcp_row_size,
		       rsz);
		/* counters an older module does not have read as 0 */
		memset((char *)&snap->rows[i] + rsz, 0,
		       sizeof(*snap->rows) - rsz);
	}
	for (i = 0; i < h->nr_cpu_rows; i++)
		memcpy(&snap->cpu_rows[i],
		       buf + h->cpu_rows_off + (uint64_t)i * h->cpu_row_size,
		       sizeof(*snap->cpu_rows));
	for (i = 0; i < h->nr_stacks; i++)
		memcpy(&snap->stacks[i],
		       buf + h->stacks_off + (uint64_t)i * h->stack_size,
		       sizeof(*snap->stacks));
	/* an empty area's offset is not checked: no pointer from it */
	if (h->strings_len)
		memcpy(snap->strings, buf + h->strings_off, h->strings_len);
	snap->strings[h->strings_len] = '\0';
	snap->nr_rows = h->nr_tcp_rows;
	snap->nr_cpu_rows = h->nr_cpu_rows;
	snap->nr_stacks = h->nr_stacks;
	snap->strings_len = h->strings_len;
	return 0;
}

static void fill_counters(struct kp_snapshot *snap,
			  const struct kprof_mmap_header *h, uint64_t gen)
{
	snap->generation = gen;
	snap->api_major = h->api_major;
	snap->api_minor = h->api_minor;
	snap->start_ns = h->interval_start_ns;
	snap->end_ns = h->interval_end_ns;
	snap->requests = h->requests;
	snap->abandoned = h->abandoned;
	snap->drops_inflight = h->drops_inflight;
	snap->drops_rows = h->drops_rows;
	snap->drops_stacks = h->drops_stacks;
	snap->drops_export = h->drops_export;
	/* zeroed past header_size; a 1.1 module has zero (reserved) there */
	snap->samples = h->samples;
	snap->samples_idle = h->samples_idle;
	snap->drops_samples = h->drops_samples;
	snap->sample_hz = h->sample_hz;
	snap->stack_resets = h->stack_resets;
	snap->threshold_ns = h->threshold_ns;
}

static void pause_ns(long ns)
{
	struct timespec ts = { 0, ns };

	nanosleep(&ts, NULL);
}

static void pause_briefly(void)
{
	pause_ns(COPY_PAUSE_NS);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Wait while the generation is odd, at most until @deadline (ms, set on
 * the first odd read).  True if it is worth reading again.
 */
static bool wait_odd(uint64_t *deadline, long *pause)
{
	uint64_t now = now_ms();

	if (!*deadline)
		*deadline = now + COPY_ODD_MS;
	else if (now >= *deadline)
		return false;
	pause_ns(*pause);
	if (*pause < COPY_PAUSE_MAX_NS)
		*pause *= 2;
	return true;
}

int kp_snapshot_copy(const void *buf, size_t size, struct kp_snapshot *snap,
		     char *err, size_t errlen)
{
	const struct kprof_mmap_header *shared = buf;
	struct kprof_mmap_header h;
	uint64_t g1 = 0, g2, deadline = 0;
	long pause = COPY_PAUSE_NS;
	unsigned int try = 0;
	bool odd = false;
	uint32_t i;
	int ret;

	memset(snap, 0, sizeof(*snap));
	if (size < HDR_NEED)
		return bad(err, errlen,
			   "a %zu-byte mapping cannot hold the %zu-byte header",
			   size, HDR_NEED);

	while (try < COPY_TRIES) {
		g1 = __atomic_load_n(&shared->generation, __ATOMIC_ACQUIRE);
		odd = g1 & 1;
		if (odd) {
			if (!wait_odd(&deadline, &pause))
				break;
			continue;
		}

		/* Validate a private copy: the mapping may change under us. */
		memset(&h, 0, sizeof(h));
		memcpy(&h, buf, size < sizeof(h) ? size : sizeof(h));
		if (h.header_size < sizeof(h) && h.header_size >= HDR_NEED)
			memset((char *)&h + h.header_size, 0,
			       sizeof(h) - h.header_size);
		/* Only whole: a header cut inside the 1.2 fields has none. */
		if (h.header_size < HDR_CPU_END)
			memset((char *)&h + HDR_NEED, 0, sizeof(h) - HDR_NEED);
		ret = check_header(&h, size, err, errlen);
		if (!ret)
			ret = copy_regions(buf, &h, snap);

		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		g2 = __atomic_load_n(&shared->generation, __ATOMIC_RELAXED);
		if (g1 != g2) {
			/* Torn: whatever we saw or copied may be garbage. */
			kp_snapshot_free(snap);
			if (++try < COPY_TRIES)
				pause_briefly();
			continue;
		}
		if (ret)
			goto fail;

		/* A consistent copy: validate what refers into the strings. */
		for (i = 0; i < snap->nr_stacks; i++) {
			ret = kp_stack_check(&snap->stacks[i], snap->strings,
					     snap->strings_len, err, errlen);
			if (ret)
				goto fail;
		}
		qsort(snap->stacks, snap->nr_stacks, sizeof(*snap->stacks),
		      cmp_stack);
		fill_counters(snap, &h, g1);
		return 0;
	}
	if (errlen) {
		if (odd)
			snprintf(err, errlen,
				 "generation %" PRIu64 " stayed odd for %u s: the module did not finish writing the interval",
				 g1, COPY_ODD_MS / 1000);
		else
			snprintf(err, errlen,
				 "the mapping kept changing while being copied (generation %" PRIu64 ")",
				 g1);
	}
	return -EAGAIN;
fail:
	kp_snapshot_free(snap);
	if (ret == -ENOMEM && errlen)
		snprintf(err, errlen, "out of memory copying the interval");
	return ret;
}

int kp_map_copy(const struct kp_map *map, void *dst, unsigned int tries)
{
	const struct kprof_mmap_header *shared = map->base;
	uint64_t g1, g2;
	unsigned int try;

	for (try = 0; try < tries; try++) {
		g1 = __atomic_load_n(&shared->generation, __ATOMIC_ACQUIRE);
		if (g1 & 1) {
			pause_briefly();
			continue;
		}
		memcpy(dst, map->base, map->size);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		g2 = __atomic_load_n(&shared->generation, __ATOMIC_RELAXED);
		if (g1 == g2)
			return 0;
	}
	return -EAGAIN;
}
