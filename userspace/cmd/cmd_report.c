// SPDX-License-Identifier: GPL-2.0
/*
 * kprof report: measure for a window, then one write-up of it: hot
 * functions and stacks with their Amdahl ceilings, remote endpoints by
 * total wait with percentiles, the slowest stacks per endpoint, and the
 * module's health.  As text, or as one JSON object (docs/report-json.md).
 * The intervals are added up by rec.c as they come; the arithmetic is
 * analysis.c's, the output report_print.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cost.h"
#include "dev.h"
#include "kprof.h"
#include "measure.h"
#include "opts.h"
#include "rec.h"
#include "report_print.h"
#include "session.h"
#include "stack.h"
#include "symbolize.h"
#include "units.h"
#include "util.h"

#define DEFAULT_DURATION_NS	(10 * KP_NSEC_PER_SEC)
#define MIN_DURATION_NS	(KP_NSEC_PER_SEC / 100)
#define MAX_DURATION_NS	(86400 * KP_NSEC_PER_SEC)
#define DEFAULT_TOP	10
#define MAX_TOP		100000

struct report_opts {
	uint64_t duration_ns;
	uint64_t top;
	int json;
	int no_color;
	struct kp_sess_opts sess;
};

struct report {
	struct report_opts o;
	struct kp_measure m;
	struct kp_report out;
	int progress;		/* stderr is a terminal */
};

#define REP_SESS(row, ...)						\
	{ .ref = &kp_sess_rows[KP_SESS_ROW_##row],			\
	  .off = offsetof(struct report_opts, sess), __VA_ARGS__ }

static const struct kp_opt report_opts[] = {
	{ .name = "duration", .letter = 'd', .arg = "SECONDS",
	  .kind = KP_OPT_KIND_SECONDS, .min = MIN_DURATION_NS,
	  .max = MAX_DURATION_NS, .hint = "(seconds, 0.01 to 86400)",
	  .off = offsetof(struct report_opts, duration_ns),
	  .help = "measure this long (0.01 to 86400, default 10);\n"
		  "SIGINT or SIGTERM ends it early, the report\n"
		  "covers what was gathered" },
	{ .name = "json", .kind = KP_OPT_KIND_FLAG,
	  .off = offsetof(struct report_opts, json),
	  .help = "one JSON object (fields: docs/report-json.md)" },
	{ .name = "top", .arg = "N", .kind = KP_OPT_KIND_UINT, .min = 1,
	  .max = MAX_TOP, .hint = "(rows per list, 1.." KP_STR(MAX_TOP) ")",
	  .off = offsetof(struct report_opts, top),
	  .help = "rows per list (default 10)" },
	REP_SESS(FREQ),
	REP_SESS(NO_CPU, .help = "no CPU sampling: endpoints only"),
	REP_SESS(NO_TCP, .help = "no TCP tracing: hot code only"),
	REP_SESS(PID,
		 .help = "only process PID; shares are then of its samples"),
	REP_SESS(CGROUP),
	REP_SESS(RPORT),
	REP_SESS(LPORT),
	REP_SESS(ROLE),
	REP_SESS(INET),
	REP_SESS(INET6),
	REP_SESS(THRESHOLD),
	{ .name = "no-color", .kind = KP_OPT_KIND_FLAG,
	  .off = offsetof(struct report_opts, no_color),
	  .help = "no bold titles on a terminal" },
	KP_OPT_END,
};

/* Returns -1 to run, else the exit status. */
static int report_parse(int argc, char **argv, struct report_opts *o)
{
	int ret;

	memset(o, 0, sizeof(*o));
	o->duration_ns = DEFAULT_DURATION_NS;
	o->top = DEFAULT_TOP;
	kp_sess_opts_init(&o->sess);

	ret = kp_cmd_parse(&kp_cmd_report, o, argc, argv, 0);
	if (ret >= 0)
		return ret;
	if (!o->sess.want) {
		kp_err("report: --no-cpu and --no-tcp leave nothing to report");
		return KP_EXIT_USAGE;
	}
	return -1;
}

/* --- measuring ------------------------------------------------------- */

static void progress(void *ctx, uint64_t elapsed_ns, int done)
{
	struct report *r = ctx;

	if (r->progress)
		kp_measure_line(done ? "measured" : "measuring", elapsed_ns,
				r->o.duration_ns, NULL, done);
}

/* A snapshot a second, so that no table fills; a signal ends it early. */
static int measure(struct report *r, const sigset_t *waitmask)
{
	int stopped;

	if (kprof_get_stats(r->m.s.fd, &r->out.st_first))
		r->out.st_first.size = 0;
	if (kp_measure(&r->m, r->o.duration_ns, waitmask, progress, r,
		       &stopped))
		return -1;
	r->out.resets_first = r->m.rec.resets_first;
	r->out.resets_last = r->m.rec.resets_last;
	/* The module's own cost over the window (API 1.4). */
	r->out.have_cost = !kprof_get_stats(r->m.s.fd, &r->out.st_last) &&
			   kp_stats_have_guard(&r->out.st_first) &&
			   kp_stats_have_guard(&r->out.st_last);
	/* The attach points in use while it ran, before they are let go. */
	if (kprof_get_info(r->m.s.fd, &r->out.info))
		r->out.info = r->m.s.info;
	r->out.rec = &r->m.rec;
	r->out.run = r->m.s.run;
	r->out.started = r->m.s.started;
	r->out.color = !r->o.json && kp_use_color(r->o.no_color);
	r->out.requested_ns = r->o.duration_ns;
	r->out.threshold_ns = r->o.sess.cfg.threshold_ns;
	r->out.top = r->o.top;
	r->out.stopped = stopped;
	return 0;
}

/* --- the command --------------------------------------------------------- */

static int report_run(int argc, char **argv)
{
	sigset_t waitmask;
	struct report r;
	int ret;

	memset(&r, 0, sizeof(r));
	ret = report_parse(argc, argv, &r.o);
	if (ret >= 0)
		return ret;
	r.progress = isatty(STDERR_FILENO);
	kp_signals_setup(&waitmask);
	ret = kp_measure_start(&r.m, "report", &r.o.sess);
	if (ret)
		return ret;
	/* the per-interval points that "moving together" is computed from */
	r.m.rec.keep_series = 1;
	ret = KP_EXIT_FAIL;
	if (measure(&r, &waitmask))
		goto out;
	/* Stop measuring before writing. */
	ret = kp_session_end(&r.m.s, 0);
	if (ret)
		goto out;
	ret = KP_EXIT_FAIL;
	if (kp_report_analyze(&r.out)) {
		kp_err("out of memory");
		goto out;
	}
	errno = 0;
	if (r.o.json ? kp_report_json(&r.out) : (kp_report_text(&r.out), 0)) {
		kp_err("out of memory");
		goto out;
	}
	if (fflush(stdout) || ferror(stdout)) {
		kp_err("writing the report: %s", strerror(errno));
		goto out;
	}
	ret = 0;
out:
	kp_err_progress(0);
	ret = kp_measure_end(&r.m, ret);
	kp_report_free(&r.out);
	return ret;
}

const struct kp_cmd kp_cmd_report = {
	.name = "report",
	.summary = "measure for a while, then where the time went, with Amdahl ceilings",
	.usage = "kprof report [-d SECONDS] [--json] [--top N] [--freq HZ]\n"
		 "                    [--no-cpu] [--no-tcp] [-p PID] [--rport PORT[,PORT...]]\n"
		 "                    [--lport PORT[,PORT...]] [--role client|server] [-4|-6]\n"
		 "                    [--threshold DURATION] [--cgroup DIR] [--no-color]\n",
	.opts = report_opts,
	.help =	 "\n"
		 "Hot functions by self share (the leaf frame) with total share (anywhere in\n"
		 "the stack), and hot stacks, of the non-idle CPU samples, each with its Amdahl\n"
		 "ceiling 1/(1 - share): the speed-up of the whole if that code took no time.\n"
		 "Remote endpoints by total wait with count and p50/p95/p99, and their wait\n"
		 "as a share of the window (over 100% when requests overlap); the slowest\n"
		 "stacks per endpoint; the module's drops, attach points and settings.\n",
	.run = report_run,
};
