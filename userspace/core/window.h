/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof reader: a reader's own windows over kprofmod's cumulative counts
 * (API 2.0).  The module's rows only grow; a window is the difference
 * between two consecutive copies of this reader, whoever else reads.
 */
#ifndef KPROF_READER_WINDOW_H
#define KPROF_READER_WINDOW_H

#include "snapshot.h"

struct kp_window {
	struct kp_snapshot last;	/* rows and counters of the last copy */
	int have;
};

/*
 * Take @cum, a cumulative copy from kp_snapshot_copy() (consumed, even on
 * failure), as this reader's next read.  The first read is the baseline:
 * returns 1 and fills nothing.  After that returns 0 and fills @out
 * (free with kp_snapshot_free()) with what happened between the two
 * reads: rows and counters differenced key by key, only rows that
 * changed, only the stacks they name.  A key absent from the last copy,
 * or present with another birth (evicted and back: a counter reset),
 * counts in full.  A window's min and max are exact for a key born in
 * it; otherwise they are the bounds of its lowest and highest non-empty
 * buckets, narrowed by the key's min and max since its birth: within a
 * bucket (6.25%), never narrower than the truth.  -ENOMEM on failure.
 */
int kp_window_next(struct kp_window *w, struct kp_snapshot *cum,
		   struct kp_snapshot *out);

/*
 * Apply a reader's own filters to its window @w, after the fact: what
 * runs in the module is every reader's configuration widened into one
 * (API 2.0), so a row may be there for another reader.  Rows of other
 * roles, families or remote ports than @c asks for go; a row with a stack
 * whose slowest request (to a bucket) is below @c's threshold joins its
 * endpoint's row without a stack (ID 0), when the module's threshold
 * (the lowest any reader asked for) was below @c's.  Local ports, the
 * process and the cgroup are not in a row: with @view, this reader's view
 * (API 3.0, from its last snapshot), only the rows marked with it stay,
 * which hold exactly the requests that passed those filters of @c; with
 * none (0, KPROF_VIEW_NONE or a module of API 2.0) they are the
 * module's alone.  CPU rows likewise: a view keeps the samples of its
 * process and cgroup.  Rows that differ only in their views are added up.
 */
void kp_window_filter(struct kp_snapshot *w, const struct kprof_config *c,
		      uint8_t view);

/* Forget the last read: the next one is a baseline again. */
void kp_window_reset(struct kp_window *w);

#endif
