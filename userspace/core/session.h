/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof reader: a measuring session shared by `top` and `record`: the
 * options both take (filters, threshold, sampling frequency, what to run),
 * opening, configuring and starting the device, snapshots, and stopping
 * on exit only what the session started.  Also the stop signals.
 */
#ifndef KPROF_READER_SESSION_H
#define KPROF_READER_SESSION_H

#include <signal.h>
#include <stdint.h>

#include <linux/kprof.h>

#include "parse_opts.h"
#include "snapshot.h"
#include "window.h"

#define KP_DEFAULT_SAMPLE_HZ	99
/* kprofmod's own default: walking every request's stack costs. */
#define KP_DEFAULT_THRESHOLD_NS	1000000ULL

enum {
	KP_OPT_RPORT = 0x200,
	KP_OPT_LPORT,
	KP_OPT_ROLE,
	KP_OPT_THRESHOLD,
	KP_OPT_FREQ,
	KP_OPT_NO_CPU,
	KP_OPT_NO_TCP,
	KP_OPT_CGROUP,
};

/*
 * The session options as rows (parse_opts.h) of struct kp_sess_opts, for
 * a command's table to take with { .ref = &kp_sess_rows[KP_SESS_ROW_x],
 * .off = offsetof(struct CMD_opts, sess) }, in the order of its help and
 * with its own help where the shared one does not fit.  A command takes
 * every one of them.
 */
enum {
	KP_SESS_ROW_PID,
	KP_SESS_ROW_RPORT,
	KP_SESS_ROW_LPORT,
	KP_SESS_ROW_ROLE,
	KP_SESS_ROW_THRESHOLD,
	KP_SESS_ROW_FREQ,
	KP_SESS_ROW_NO_CPU,
	KP_SESS_ROW_NO_TCP,
	KP_SESS_ROW_CGROUP,
	KP_SESS_ROW_INET,
	KP_SESS_ROW_INET6,
	KP_SESS_NROWS
};
extern const struct kp_opt kp_sess_rows[KP_SESS_NROWS + 1];

struct kp_sess_opts {
	struct kprof_config cfg;	/* filters, threshold; sample_hz */
	unsigned int want;		/* KPROF_RUN_* asked for */
};

/* Both TCP and CPU, default threshold and frequency, no filters. */
void kp_sess_opts_init(struct kp_sess_opts *o);

/*
 * Handle getopt_long() result @c with @arg if it is a session option.
 * Returns 0 if handled, 1 if @c is not a session option, KP_EXIT_USAGE
 * after printing "kprof: CMD: ..." for a bad value.
 */
int kp_sess_opt(const char *cmd, int c, const char *arg,
		struct kp_sess_opts *o);

struct kp_session {
	const char *cmd;
	int fd;
	struct kprof_info info;
	struct kp_map map;
	unsigned int run;	/* KPROF_RUN_* measured: asked and possible */
	unsigned int started;	/* of which this session started (holds) */
	unsigned int others;	/* of @run, what ran already at the start */
	struct kprof_config cfg;	/* this session's, as set */
	uint32_t tgid;		/* -p: CPU rows of other processes ignored */
	struct kp_window win;	/* this reader's windows (API 2.0) */
	int copy_owed;		/* the last copy failed: copy, no snapshot */
	uint8_t view;		/* this session's view, as the last snapshot said */
	int view_noted;		/* said that it had none (KPROF_VIEW_NONE) */
};

/*
 * Open and map the device and see what it can do: what is asked but not
 * supported is skipped with a one-line note, unless nothing is left
 * (an error).  Then configure and start what is not running yet, and take
 * a snapshot that starts a fresh interval.  Returns 0, or KP_EXIT_FAIL
 * after printing one line (nothing is left running or changed).
 */
int kp_session_start(struct kp_session *s, const char *cmd,
		     const struct kp_sess_opts *o);

/*
 * Read: the window since this session's last read, into @snap.  Other
 * readers take nothing from it.  Returns 0, 1 when the mapping could not
 * be copied this time (printed; nothing to free; the next read copies
 * again without a snapshot, so its window covers this one's time too and
 * nothing is lost), -1 on a fatal error (printed).
 */
int kp_session_snapshot(struct kp_session *s, struct kp_snapshot *snap);

/*
 * Stop what the session started, and start it again (with a fresh
 * window: what happened meanwhile is not in the next one), for A/B runs.  Return 0, or -1 after printing one line.
 */
int kp_session_pause(struct kp_session *s);
int kp_session_resume(struct kp_session *s);

/*
 * Stop what the session started (its configuration leaves with it);
 * then unmap and close.  @ret is the exit status so far: after
 * a failure, cleaning up prints nothing more.  Returns the final status.
 */
int kp_session_end(struct kp_session *s, int ret);

/* --- stop signals and time ------------------------------------------ */

/* Set by SIGINT, SIGTERM and SIGHUP once kp_signals_setup() ran. */
extern volatile sig_atomic_t kp_stop;

/*
 * Catch the stop signals; they stay blocked except while waiting in
 * kp_wait_until() with @waitmask, so none is lost.  SIGPIPE is ignored.
 */
void kp_signals_setup(sigset_t *waitmask);

uint64_t kp_now_ns(void);

/* Sleep until CLOCK_MONOTONIC @deadline; -1 if stopped by a signal. */
int kp_wait_until(uint64_t deadline, const sigset_t *waitmask);

#endif
