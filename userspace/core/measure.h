/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A window measured into a recording: what record and report share.
 */
#ifndef KPROF_MEASURE_H
#define KPROF_MEASURE_H

#include <signal.h>
#include <stdint.h>

#include "rec.h"
#include "session.h"
#include "stack.h"
#include "symbolize.h"

/* How often a window is snapshotted, so that no table of the module fills. */
#define KP_MEASURE_TICK_NS	1000000000ull

/* Told the time measured so far; @done once at the end. */
typedef void kp_measure_progress_fn(void *ctx, uint64_t elapsed_ns, int done);

/* What a window is measured with, for record and report. */
struct kp_measure {
	struct kp_session s;
	struct kp_sym *sym;
	struct kp_stacks stacks;
	struct kp_rec rec;	/* what the window adds up to */
};

/*
 * @cmd's session with @o started, and a recording of it ready.  0, or
 * the exit status (printed) with nothing left to end.
 */
int kp_measure_start(struct kp_measure *m, const char *cmd,
		     const struct kp_sess_opts *o);

/* The session ended (see kp_session_end()) and all freed; idempotent. */
int kp_measure_end(struct kp_measure *m, int ret);

/*
 * @duration_ns of the session into the recording (the symbolizer ticked
 * once an interval): a snapshot every KP_MEASURE_TICK_NS, and one more
 * when a signal in @waitmask ends the window early (the interval so far
 * counts; *@stopped is set).  @progress may be NULL.  0, or -1 on a
 * fatal error (printed).
 */
int kp_measure(struct kp_measure *m, uint64_t duration_ns,
	       const sigset_t *waitmask, kp_measure_progress_fn *progress,
	       void *ctx, int *stopped);

/*
 * The progress line on stderr, redrawn in place: "kprof: VERB
 * ELAPSED/TOTAL" and @extra (may be NULL); @done ends the line.
 */
void kp_measure_line(const char *verb, uint64_t elapsed_ns, uint64_t total_ns,
		     const char *extra, int done);

#endif
