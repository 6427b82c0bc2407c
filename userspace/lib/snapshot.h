/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof reader: the read-only mapping of /dev/kprof and consistent,
 * validated copies of the interval published in it.  The parser works on
 * any buffer, so tests can feed it crafted layouts.
 */
#ifndef KPROF_READER_SNAPSHOT_H
#define KPROF_READER_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include <linux/kprof.h>

struct kp_map {
	const void *base;
	size_t size;
};

/*
 * mmap() the device read-only, info->mmap_size bytes.  On failure prints
 * one line and returns -1 (also for a module that has no mapping).
 */
int kp_map_open(int fd, const struct kprof_info *info, struct kp_map *map);
void kp_map_close(struct kp_map *map);

/*
 * A consistent copy of the whole mapping into @dst (map->size bytes), the
 * module's layout as it is, for a reader that keeps that layout (the
 * selftests): read the generation (acquire), copy, re-read it; at most
 * @tries attempts, pausing while it is odd.  Nothing is validated.
 * 0, or -EAGAIN if the generation stayed odd or kept changing.
 */
int kp_map_copy(const struct kp_map *map, void *dst, unsigned int tries);

/*
 * An interval, copied out of the mapping into memory the reader owns.
 * Records are our own struct sizes (the module's may be larger); @stacks
 * are sorted by ID; @strings has a NUL after @strings_len bytes.
 */
struct kp_snapshot {
	uint64_t generation;
	uint32_t api_major;
	uint32_t api_minor;
	uint64_t start_ns;
	uint64_t end_ns;
	uint64_t requests;
	uint64_t abandoned;
	uint64_t drops_inflight;
	uint64_t drops_rows;
	uint64_t drops_stacks;
	uint64_t drops_export;
	/* API 1.2; 0 from an older module */
	uint64_t samples;	/* CPU samples, idle included */
	uint64_t samples_idle;
	uint64_t drops_samples;
	uint32_t sample_hz;	/* 0: sampling was off */
	uint32_t stack_resets;
	uint64_t threshold_ns;	/* API 2.0: the module's, at the read */
	uint32_t nr_rows;
	uint32_t nr_cpu_rows;
	uint32_t nr_stacks;
	struct kprof_tcp_row *rows;
	struct kprof_cpu_row *cpu_rows;
	struct kprof_stack *stacks;
	char *strings;
	uint32_t strings_len;
};

#define KP_SNAP_ERR_LEN	192

/*
 * Copy the interval published in @buf (@size bytes: the whole mapping):
 * read the generation (acquire), validate the header against @size and
 * this reader's ABI, copy TCP rows, CPU rows, stacks and strings (a header
 * that ends before the API 1.2 fields, or has zeros there, has no CPU
 * rows and zero sample counters), re-read the generation
 * and retry if it changed (a bounded number of times) or was odd (a
 * writer mid-snapshot, waited out for up to two seconds); then validate
 * the stacks' strings in the copy.
 *
 * Returns 0 and fills @snap (free with kp_snapshot_free()), or a negative
 * errno with a one-line reason in @err: -EBADMSG for a corrupted or
 * incompatible layout, -EAGAIN if the generation stayed odd or kept
 * changing, -ENOMEM.
 */
int kp_snapshot_copy(const void *buf, size_t size, struct kp_snapshot *snap,
		     char *err, size_t errlen);
void kp_snapshot_free(struct kp_snapshot *snap);

/* Samples of the interval when a CPU was not idle. */
uint64_t kp_snapshot_busy(const struct kp_snapshot *snap);

/* The stack with @id in @snap, or NULL. */
const struct kprof_stack *kp_snapshot_stack(const struct kp_snapshot *snap,
					    uint32_t id);

/*
 * Check one stack record against the string area it refers to (@strings,
 * @len bytes): ID not 0, frame counts within bounds, and @nr_kernel
 * NUL-terminated strings starting at @ksyms_off inside the area.
 * Returns 0 or -EBADMSG with a reason in @err.
 */
int kp_stack_check(const struct kprof_stack *st, const char *strings,
		   size_t len, char *err, size_t errlen);

/*
 * Kernel frame @i of a stack that passed kp_stack_check() against the
 * same @strings.
 */
const char *kp_stack_ksym(const struct kprof_stack *st, const char *strings,
			  unsigned int i);

#endif
