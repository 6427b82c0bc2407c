/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof reader: a recording.  Intervals are added up as they come (CPU
 * rows merged by (stack, process), TCP rows by (stack, endpoint, role)
 * with their histograms), and each stack is resolved when first seen,
 * while its process still runs: frames symbolized, and user addresses
 * placed in the process's executable mappings (/proc/PID/maps) with the
 * build IDs of their files.  The writers (folded, pprof, JSON) only read.
 */
#ifndef KPROF_READER_REC_H
#define KPROF_READER_REC_H

#include <stddef.h>
#include <stdint.h>

#include <linux/kprof.h>

#include "htab.h"
#include "series.h"
#include "snapshot.h"
#include "stack.h"
#include "symbolize.h"

enum kp_rframe_kind {
	KP_RF_KERNEL,
	KP_RF_USER,
	KP_RF_PSEUDO,		/* a note in place of frames */
};

/* Pseudo frames. */
#define KP_RF_TABLE_FULL	"[stack table full]"	/* CPU stack ID 0 */
#define KP_RF_BELOW_THRESHOLD	"[below threshold]"	/* TCP stack ID 0 */
#define KP_RF_UNKNOWN_STACK	"[unknown stack]"	/* ID not resolvable */

struct kp_rframe {
	uint8_t kind;
	/* As top and stacks show it: "func+0x1a (libc.so.6)", kernel
	 * "sym+0xoff/0xsize [mod]", or the pseudo frame itself. */
	char *text;
	/* Function: kernel symbol, user function ("[unknown]" when not
	 * symbolized), or the pseudo frame. */
	char *func;
	int has_func;		/* user: symbolized */
	int ksyms_missing;	/* kernel: KP_KSYMS_MISSING_TEXT stands in */
	uint64_t addr;		/* user: ip, or return address - 1 */
	int32_t map;		/* user: index in kp_rec.maps, -1: none */
};

struct kp_rstack {
	uint32_t id;		/* 0 for the pseudo stacks */
	uint32_t resets;	/* stack_resets the ID belongs to */
	uint32_t tgid;		/* of its user frames */
	char comm[17];		/* task name when the stack was first seen */
	unsigned int nr;
	struct kp_rframe *f;	/* leaf first: kernel frames, then user */
};

/* An executable mapping that a user frame fell into. */
struct kp_rmap {
	uint32_t tgid;
	uint64_t start;
	uint64_t end;
	uint64_t offset;
	char *path;
	char *build_id;		/* hex, NULL when unknown */
	int all_funcs;		/* every frame in it was symbolized */
};

struct kp_rcpu {
	uint32_t stack;		/* index in kp_rec.stacks */
	uint32_t tgid;
	uint64_t samples;
	char comm[17];
};

struct kp_rtcp {
	uint32_t stack;		/* index in kp_rec.stacks */
	struct kprof_tcp_row row;	/* the merged row */
};

struct kp_rproc;

struct kp_rec {
	struct kp_stacks *cache;	/* borrowed */
	struct kp_sym *sym;		/* borrowed */
	uint32_t tgid;			/* CPU rows only of this one, 0: all */

	uint64_t intervals;
	uint64_t start_ns, end_ns;
	uint64_t samples, samples_idle, drops_samples;
	uint64_t requests, abandoned;
	uint64_t drops_inflight, drops_rows, drops_stacks, drops_export;
	uint32_t sample_hz;		/* last non-zero of the intervals */
	uint32_t resets_first, resets_last;	/* stack_resets of the first and last interval */

	struct kp_rstack **stacks;	/* [0]: table full, [1]: below threshold */
	size_t nr_stacks, cap_stacks;
	struct kp_htab stack_idx;

	struct kp_rcpu *cpu;
	size_t nr_cpu, cap_cpu;
	struct kp_htab cpu_idx;

	struct kp_rtcp *tcp;
	size_t nr_tcp, cap_tcp;
	struct kp_htab tcp_idx;
	/* the TCP rows per endpoint and interval (series.h), kept only when
	 * keep_series is set (report's analysis reads them; nothing else) */
	int keep_series;
	struct kp_series_set series;

	struct kp_rmap *maps;
	size_t nr_maps, cap_maps;
	struct kp_htab map_idx;

	/* the maps of the last KP_REC_PROCS processes with user frames */
	struct kp_rproc *procs;
	size_t nr_procs, cap_procs;
	uint64_t proc_clock;		/* uses of procs, for eviction */
	uint64_t tick;			/* intervals added, for maps re-reads */
};

/*
 * Processes whose maps a recording keeps at once, however many come and
 * go in it; the least recently used is dropped (and read again if it
 * shows up again).
 */
#define KP_REC_PROCS	64

/* 0 or -ENOMEM. */
int kp_rec_init(struct kp_rec *rec, struct kp_stacks *cache,
		struct kp_sym *sym, uint32_t tgid);
void kp_rec_fini(struct kp_rec *rec);

/*
 * Add one interval: @cpu / @tcp say which rows to take.  Resolves the
 * stacks it has not seen.  0 or -ENOMEM.
 */
int kp_rec_add(struct kp_rec *rec, const struct kp_snapshot *snap, int cpu,
	       int tcp);

/* Samples that were not idle. */
uint64_t kp_rec_busy(const struct kp_rec *rec);

/* Samples in the CPU rows (of the -p process, if any). */
uint64_t kp_rec_cpu_samples(const struct kp_rec *rec);

/* The rows sorted by samples, descending (a new array to free). */
struct kp_rcpu **kp_rec_cpu_sorted(const struct kp_rec *rec);

/* The rows sorted by total latency, descending (a new array to free). */
struct kp_rtcp **kp_rec_tcp_sorted(const struct kp_rec *rec);

#endif
