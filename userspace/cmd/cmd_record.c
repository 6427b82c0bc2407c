// SPDX-License-Identifier: GPL-2.0
/*
 * kprof record: sample CPU stacks (and trace TCP latency) for a while,
 * add the intervals up here, and write one file: folded stacks, pprof
 * profiles or JSON.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "folded.h"
#include "kprof.h"
#include "measure.h"
#include "outfile.h"
#include "pprof.h"
#include "rec.h"
#include "record_json.h"
#include "session.h"
#include "stack.h"
#include "symbolize.h"
#include "units.h"
#include "util.h"

#define MIN_DURATION_NS	(KP_NSEC_PER_SEC / 100)
#define MAX_DURATION_NS	(86400 * KP_NSEC_PER_SEC)
/* Snapshots this often, so that no per-CPU table fills up. */

#define LATENCY_SUFFIX	".latency.pb.gz"

enum rec_format {
	FMT_FOLDED,
	FMT_PPROF,
	FMT_JSON,
};

static const char *const format_names[] = {
	[FMT_FOLDED] = "folded",
	[FMT_PPROF] = "pprof",
	[FMT_JSON] = "json",
};

struct rec_opts {
	uint64_t duration_ns;
	const char *out;
	enum rec_format format;
	struct kp_out_opts file;
	struct kp_sess_opts sess;
};

struct record {
	struct rec_opts o;
	struct kp_measure m;
	struct kp_out out;
	struct kp_out lat;	/* pprof: FILE.latency.pb.gz */
	char *lat_path;
	int64_t time_nanos;	/* start, wall clock */
	int progress;		/* stderr is a terminal */
};

static int record_format(const char *cmd, const struct kp_opt *row,
			 const char *arg, void *base)
{
	struct rec_opts *o = base;
	unsigned int i;

	(void)row;
	for (i = 0; i < 3; i++)
		if (!strcmp(arg, format_names[i]))
			break;
	if (i == 3) {
		kp_err("%s: --format '%s': use folded, pprof or json", cmd, arg);
		return -1;
	}
	o->format = i;
	return 0;
}

#define REC_SESS(row, ...)						\
	{ .ref = &kp_sess_rows[KP_SESS_ROW_##row],			\
	  .off = offsetof(struct rec_opts, sess), __VA_ARGS__ }

static const struct kp_opt record_opts[] = {
	{ .name = "duration", .letter = 'd', .arg = "SECONDS",
	  .kind = KP_OPT_KIND_SECONDS, .min = MIN_DURATION_NS,
	  .max = MAX_DURATION_NS, .hint = "(seconds, 0.01 to 86400)",
	  .off = offsetof(struct rec_opts, duration_ns),
	  .help = "record this long (0.01 to 86400); SIGINT or\n"
		  "SIGTERM ends it early, the file is still written" },
	{ .name = "output", .letter = 'o', .arg = "FILE",
	  .kind = KP_OPT_KIND_STRING, .hint = "an empty file name",
	  .off = offsetof(struct rec_opts, out),
	  .help = "write FILE (via a new temporary file in its\n"
		  "directory, renamed when complete)" },
	{ .ref = &kp_out_rows[KP_OUT_ROW_MODE],
	  .off = offsetof(struct rec_opts, file) },
	{ .ref = &kp_out_rows[KP_OUT_ROW_SHARED_DIR],
	  .off = offsetof(struct rec_opts, file) },
	{ .name = "format", .arg = "FORMAT", .choices = "folded|pprof|json",
	  .kind = KP_OPT_KIND_CALL, .call = record_format,
	  .help = "folded (default): flame graph input, CPU samples\n"
		  "only, \"comm;root;...;leaf COUNT\" per line;\n"
		  "pprof: gzipped profile.proto for `go tool pprof`,\n"
		  "CPU samples in FILE, TCP latency in\n"
		  "FILE" LATENCY_SUFFIX ";\n"
		  "json: one object with cpu[] and tcp[] rows" },
	REC_SESS(FREQ),
	REC_SESS(NO_CPU, .help = "no CPU sampling (pprof, json)"),
	REC_SESS(NO_TCP),
	REC_SESS(CGROUP),
	REC_SESS(PID, .help = "only process PID (its samples and requests)"),
	REC_SESS(RPORT),
	REC_SESS(LPORT),
	REC_SESS(ROLE),
	REC_SESS(INET),
	REC_SESS(INET6),
	REC_SESS(THRESHOLD),
	KP_OPT_END,
};

/* Returns -1 to run, else the exit status. */
static int record_parse(int argc, char **argv, struct rec_opts *o)
{
	int ret;

	memset(o, 0, sizeof(*o));
	o->format = FMT_FOLDED;
	o->file.mode = KP_OUT_MODE;
	kp_sess_opts_init(&o->sess);

	ret = kp_cmd_parse(&kp_cmd_record, o, argc, argv, 0);
	if (ret >= 0)
		return ret;
	if (!o->duration_ns) {
		kp_err("record: missing -d SECONDS (see `kprof record --help`)");
		return KP_EXIT_USAGE;
	}
	if (!o->out) {
		kp_err("record: missing -o FILE (see `kprof record --help`)");
		return KP_EXIT_USAGE;
	}
	if (!o->sess.want) {
		kp_err("record: --no-cpu and --no-tcp leave nothing to record");
		return KP_EXIT_USAGE;
	}
	/* Folded stacks are CPU samples: TCP tracing would be for nothing. */
	if (o->format == FMT_FOLDED) {
		if (!(o->sess.want & KPROF_RUN_CPU)) {
			kp_err("record: --format folded holds CPU samples only: --no-cpu leaves nothing to record");
			return KP_EXIT_USAGE;
		}
		o->sess.want = KPROF_RUN_CPU;
	}
	return -1;
}

/* --- progress ---------------------------------------------------------- */

static void progress(void *ctx, uint64_t elapsed_ns, int done)
{
	struct record *r = ctx;
	char extra[64] = "";
	int n = 0;

	if (!r->progress)
		return;
	if (r->m.s.run & KPROF_RUN_CPU)
		n = snprintf(extra, sizeof(extra), ", %" PRIu64 " samples",
			     kp_rec_busy(&r->m.rec));
	if (r->m.s.run & KPROF_RUN_TCP)
		snprintf(extra + n, sizeof(extra) - n, ", %" PRIu64 " requests",
			 r->m.rec.requests);
	kp_measure_line(done ? "recorded" : "recording", elapsed_ns,
			r->o.duration_ns, extra, done);
}

/* --- writers --------------------------------------------------------- */

static int write_folded(FILE *f, void *ctx)
{
	struct record *r = ctx;

	return kp_folded_write(f, &r->m.rec);
}

static uint32_t sample_hz(const struct record *r)
{
	return r->m.rec.sample_hz ? r->m.rec.sample_hz : r->o.sess.cfg.sample_hz;
}

static int write_pprof(FILE *f, struct record *r, enum kp_pprof_kind kind)
{
	struct kp_pprof_meta meta = {
		.time_nanos = r->time_nanos,
		.sample_hz = sample_hz(r),
	};
	char comment[160];
	int ret;

	if (kind == KP_PPROF_CPU)
		snprintf(comment, sizeof(comment),
			 "kprof %s: CPU samples at %u Hz per CPU; %" PRIu64
			 " idle samples not shown, %" PRIu64 " samples dropped",
			 KPROF_VERSION, meta.sample_hz, r->m.rec.samples_idle,
			 r->m.rec.drops_samples);
	else
		snprintf(comment, sizeof(comment),
			 "kprof %s: TCP request latency; %" PRIu64
			 " requests abandoned",
			 KPROF_VERSION, r->m.rec.abandoned);
	meta.comment = comment;
	ret = kp_pprof_write(f, &r->m.rec, kind, &meta);
	return ret;
}

static int write_pprof_cpu(FILE *f, void *ctx)
{
	return write_pprof(f, ctx, KP_PPROF_CPU);
}

static int write_pprof_latency(FILE *f, void *ctx)
{
	return write_pprof(f, ctx, KP_PPROF_LATENCY);
}

static int write_json(FILE *f, void *ctx)
{
	struct record *r = ctx;

	return kp_rec_json_write(f, &r->m.rec);
}

static int write_outputs(struct record *r)
{
	switch (r->o.format) {
	case FMT_FOLDED:
		return kp_out_commit(&r->out, write_folded, r);
	case FMT_JSON:
		return kp_out_commit(&r->out, write_json, r);
	case FMT_PPROF:
		if (kp_out_commit(&r->out, write_pprof_cpu, r))
			return -1;
		if (r->lat.path && kp_out_commit(&r->lat, write_pprof_latency, r))
			return -1;
		return 0;
	}
	return -1;
}

/* --- recording --------------------------------------------------------- */

/*
 * Create the latency file of a pprof recording of TCP latency (FILE was
 * created before anything started: a path that cannot be written fails
 * early).
 */
static int open_latency(struct record *r)
{
	if (r->o.format == FMT_PPROF && r->m.s.run & KPROF_RUN_TCP) {
		if (asprintf(&r->lat_path, "%s" LATENCY_SUFFIX, r->o.out) < 0) {
			r->lat_path = NULL;
			kp_err("out of memory");
			return -1;
		}
		if (kp_out_open(&r->lat, r->lat_path, &r->o.file))
			return -1;
	}
	return 0;
}

static int record_run(int argc, char **argv)
{
	struct timespec ts;
	sigset_t waitmask;
	struct record r;
	int ret, stopped;

	memset(&r, 0, sizeof(r));
	kp_out_init(&r.out);
	kp_out_init(&r.lat);
	ret = record_parse(argc, argv, &r.o);
	if (ret >= 0)
		return ret;
	r.progress = isatty(STDERR_FILENO);

	kp_signals_setup(&waitmask);
	if (kp_out_open(&r.out, r.o.out, &r.o.file))
		return KP_EXIT_FAIL;
	ret = kp_measure_start(&r.m, "record", &r.o.sess);
	if (ret) {
		kp_out_close(&r.out);
		return ret;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	r.time_nanos = (int64_t)ts.tv_sec * KP_NSEC_PER_SEC + ts.tv_nsec;
	ret = KP_EXIT_FAIL;
	if (open_latency(&r))
		goto out;
	if (kp_measure(&r.m, r.o.duration_ns, &waitmask, progress, &r,
		       &stopped))
		goto out;
	/* Stop measuring first: writing may take a while. */
	ret = kp_session_end(&r.m.s, 0);
	if (ret)
		goto out;
	if (r.m.rec.drops_stacks)
		kp_err("%" PRIu64 " sample%s and request%s kept no stack (the "
		       "stack table was full, or captures collided): see "
		       "`kprof status` and kprofmod(4) on stacks=",
		       r.m.rec.drops_stacks, r.m.rec.drops_stacks == 1 ? "" : "s",
		       r.m.rec.drops_stacks == 1 ? "" : "s");
	if (write_outputs(&r))
		ret = KP_EXIT_FAIL;
out:
	kp_err_progress(0);
	ret = kp_measure_end(&r.m, ret);
	kp_out_close(&r.out);
	kp_out_close(&r.lat);
	free(r.lat_path);
	return ret;
}

const struct kp_cmd kp_cmd_record = {
	.name = "record",
	.summary = "sample CPU stacks and TCP latency for a while into a file",
	.usage = "kprof record -d SECONDS -o FILE [--format folded|pprof|json]\n"
		 "                    [--file-mode MODE] [--shared-dir]\n"
		 "                    [--freq HZ] [--no-cpu] [--no-tcp] [-p PID] [--cgroup DIR]\n"
		 "                    [--rport PORT[,PORT...]] [--lport PORT[,PORT...]]\n"
		 "                    [--role client|server] [-4|-6] [--threshold DURATION]\n",
	.opts = record_opts,
	.help =	 "\n"
		 "The module's tables are read once a second and added up here; stacks are\n"
		 "symbolized when first seen, while their processes run.  On a terminal a\n"
		 "progress line shows on stderr.  What record started is stopped at the end.\n",
	.run = record_run,
};
