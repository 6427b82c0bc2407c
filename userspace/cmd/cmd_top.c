// SPDX-License-Identifier: GPL-2.0
/*
 * kprof top: every interval, the hottest CPU stacks per process and TCP
 * request latency per (stack, endpoint, role), as tables or one JSON
 * object per interval.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "addr.h"
#include "dev.h"
#include "kprof.h"
#include "opts.h"
#include "outfile.h"
#include "prom.h"
#include "row.h"
#include "session.h"
#include "snapshot.h"
#include "stack.h"
#include "top_json.h"
#include "symbolize.h"
#include "units.h"
#include "util.h"

#define DEFAULT_TOP	10
#define MAX_TOP		100000

#define MIN_INTERVAL_NS	(KP_NSEC_PER_SEC / 100)
#define MAX_INTERVAL_NS	(3600 * KP_NSEC_PER_SEC)

struct top_opts {
	uint64_t interval_ns;
	uint64_t count;		/* intervals to print, 0: until stopped */
	uint64_t top;		/* hot stacks and TCP rows shown */
	int json;
	int no_color;
	int no_clear;
	int quiet;		/* no table or JSON */
	const char *prom;	/* --prometheus FILE, or NULL */
	struct kp_out_opts file;	/* its mode and directory check */
	uint64_t prom_series;
	int prom_series_set;
	unsigned int sort;	/* index in SORT_KEYS */
	struct kp_sess_opts sess;
};

/* --sort: TCP rows by ... (the order of enum top_sort) */
#define SORT_KEYS	"total|count|p99|retx|rst|cfail"
enum top_sort { SORT_TOTAL, SORT_COUNT, SORT_P99, SORT_RETX, SORT_RST,
		SORT_CFAIL };

struct top {
	struct top_opts o;
	struct kp_session s;
	struct kp_sym *sym;
	struct kp_stacks stacks;
	struct kp_out prom_out;
	struct kp_prom prom;
	char module_version[KPROF_VERSION_LEN + 1];
	int tty;
	int color;
	unsigned int cols;	/* terminal width, 0: unknown */
};

static int top_prom_series(const char *cmd, const struct kp_opt *row,
			   const char *arg, void *base)
{
	struct top_opts *o = base;
	const char *why;

	(void)row;
	why = kp_parse_uint(arg, 0, KP_PROM_MAX_SERIES, &o->prom_series);
	if (why) {
		kp_err("%s: --prometheus-max-series '%s': %s (endpoint series, 0..%u)",
		       cmd, arg, why, KP_PROM_MAX_SERIES);
		return -1;
	}
	o->prom_series_set = 1;
	return 0;
}

#define TOP_SESS(row, ...)						\
	{ .ref = &kp_sess_rows[KP_SESS_ROW_##row],			\
	  .off = offsetof(struct top_opts, sess), __VA_ARGS__ }

static const struct kp_opt top_opts[] = {
	{ .name = "interval", .letter = 'i', .arg = "SECONDS",
	  .kind = KP_OPT_KIND_SECONDS, .min = MIN_INTERVAL_NS,
	  .max = MAX_INTERVAL_NS, .hint = "(seconds, 0.01 to 3600)",
	  .off = offsetof(struct top_opts, interval_ns),
	  .help = "print every SECONDS (0.01 to 3600, default 1)" },
	{ .name = "count", .letter = 'n', .arg = "COUNT",
	  .kind = KP_OPT_KIND_UINT, .min = 1, .max = UINT64_MAX,
	  .hint = "(a positive integer)",
	  .off = offsetof(struct top_opts, count),
	  .help = "stop after COUNT intervals (default: never)" },
	{ .name = "json", .kind = KP_OPT_KIND_FLAG,
	  .off = offsetof(struct top_opts, json),
	  .help = "one JSON object per interval and line" },
	{ .name = "sort", .arg = "KEY", .choices = SORT_KEYS,
	  .kind = KP_OPT_KIND_CHOICE,
	  .hint = "use total, count, p99, retx, rst or cfail",
	  .off = offsetof(struct top_opts, sort),
	  .help = "TCP rows by total latency (default), requests,\n"
		  "p99, retransmitted segments, resets or failed\n"
		  "connects" },
	{ .name = "top", .arg = "N", .kind = KP_OPT_KIND_UINT, .min = 1,
	  .max = MAX_TOP, .hint = "(rows to show, 1.." KP_STR(MAX_TOP) ")",
	  .off = offsetof(struct top_opts, top),
	  .help = "hot stacks and TCP rows shown per interval\n"
		  "(default 10)" },
	TOP_SESS(FREQ),
	TOP_SESS(NO_CPU, .help = "no CPU sampling: TCP latency only"),
	TOP_SESS(NO_TCP, .help = "no TCP tracing: hot stacks only"),
	TOP_SESS(CGROUP),
	TOP_SESS(PID, .help = "only process PID (its requests and samples)"),
	TOP_SESS(RPORT),
	TOP_SESS(LPORT),
	TOP_SESS(ROLE),
	TOP_SESS(INET),
	TOP_SESS(INET6),
	TOP_SESS(THRESHOLD,
		 .help = "walk stacks only for requests this slow (500us,\n"
			 "2.5s; plain numbers are ms; default 1ms; 0: all);\n"
			 "faster ones are counted under stack -"),
	{ .name = "no-color", .kind = KP_OPT_KIND_FLAG,
	  .off = offsetof(struct top_opts, no_color),
	  .help = "no colours on a terminal" },
	{ .name = "no-clear", .letter = 'C', .kind = KP_OPT_KIND_FLAG,
	  .off = offsetof(struct top_opts, no_clear),
	  .help = "do not clear the terminal between intervals" },
	{ .name = "prometheus", .arg = "FILE", .kind = KP_OPT_KIND_STRING,
	  .hint = "an empty file name", .off = offsetof(struct top_opts, prom),
	  .help = "every interval, replace FILE (atomically: a new\n"
		  "temporary file, fsync, rename) with Prometheus\n"
		  "text format 0.0.4 for node_exporter's textfile\n"
		  "collector" },
	{ .name = "prometheus-max-series", .arg = "N",
	  .kind = KP_OPT_KIND_CALL, .call = top_prom_series,
	  .help = "latency series per endpoint and role kept in FILE\n"
		  "(0..100000, default 500); rows of further\n"
		  "endpoints go to raddr=\"other\"" },
	{ .name = "quiet", .letter = 'q', .kind = KP_OPT_KIND_FLAG,
	  .off = offsetof(struct top_opts, quiet),
	  .help = "with --prometheus: print no table or JSON" },
	{ .ref = &kp_out_rows[KP_OUT_ROW_MODE],
	  .off = offsetof(struct top_opts, file),
	  .help = "with --prometheus: FILE's permissions, octal\n"
		  "(default 0600; node_exporter reads it: 0644)" },
	{ .ref = &kp_out_rows[KP_OUT_ROW_SHARED_DIR],
	  .off = offsetof(struct top_opts, file),
	  .help = "with --prometheus: write even into a directory\n"
		  "that another user owns or that group or others\n"
		  "can write" },
	KP_OPT_END,
};

/* Returns -1 to run, else the exit status. */
static int top_parse(int argc, char **argv, struct top_opts *o)
{
	int ret;

	memset(o, 0, sizeof(*o));
	o->interval_ns = KP_NSEC_PER_SEC;
	o->top = DEFAULT_TOP;
	o->prom_series = KP_PROM_DEFAULT_SERIES;
	o->file.mode = KP_OUT_MODE;
	kp_sess_opts_init(&o->sess);

	ret = kp_cmd_parse(&kp_cmd_top, o, argc, argv, 0);
	if (ret >= 0)
		return ret;
	if (!o->sess.want) {
		kp_err("top: --no-cpu and --no-tcp leave nothing to show");
		return KP_EXIT_USAGE;
	}
	if (o->quiet && !o->prom) {
		kp_err("top: -q without --prometheus leaves nothing to write");
		return KP_EXIT_USAGE;
	}
	if (o->prom_series_set && !o->prom) {
		kp_err("top: --prometheus-max-series needs --prometheus");
		return KP_EXIT_USAGE;
	}
	if (o->file.set && !o->prom) {
		kp_err("top: --file-mode and --shared-dir need --prometheus");
		return KP_EXIT_USAGE;
	}
	return -1;
}

/* --- output -------------------------------------------------------- */

#define C_BOLD	"\033[1m"
#define C_DIM	"\033[2m"
#define C_HEAD	"\033[1;7m"
#define C_OFF	"\033[0m"

static const char *color(const struct top *t, const char *code)
{
	return t->color ? code : "";
}

/* A TCP row and what --sort orders it by, first. */
struct sorted_row {
	uint64_t key;
	const struct kprof_tcp_row *r;
};

static uint64_t sort_key(const struct kprof_tcp_row *r, unsigned int sort)
{
	struct kp_row_stats s;

	switch (sort) {
	case SORT_COUNT:
		return r->count;
	case SORT_P99:
		if (!r->count)
			return 0;
		kp_row_stats(r, &s);
		return s.p99;
	case SORT_RETX:
		return r->retransmits;
	case SORT_RST:
		return r->resets_sent + r->resets_received;
	case SORT_CFAIL:
		return kp_row_connect_failures(r);
	}
	return r->sum_ns;
}

static int cmp_row(const void *a, const void *b)
{
	const struct sorted_row *sx = a, *sy = b;
	const struct kprof_tcp_row *x = sx->r, *y = sy->r;

	if (sx->key != sy->key)
		return sx->key > sy->key ? -1 : 1;
	if (x->sum_ns != y->sum_ns)
		return x->sum_ns > y->sum_ns ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

static int cmp_cpu_row(const void *a, const void *b)
{
	const struct kprof_cpu_row *x = *(const struct kprof_cpu_row *const *)a;
	const struct kprof_cpu_row *y = *(const struct kprof_cpu_row *const *)b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->stack_id != y->stack_id)
		return x->stack_id < y->stack_id ? -1 : 1;
	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

/* Sort @v's TCP rows by @sort (then total latency, count, stack). */
static int sort_rows(struct kp_top_view *v, unsigned int sort)
{
	struct sorted_row *sr = calloc(v->nr_rows ? v->nr_rows : 1,
				       sizeof(*sr));
	uint32_t i;

	if (!sr)
		return -1;
	for (i = 0; i < v->nr_rows; i++) {
		sr[i].r = v->rows[i];
		sr[i].key = sort_key(v->rows[i], sort);
	}
	qsort(sr, v->nr_rows, sizeof(*sr), cmp_row);
	for (i = 0; i < v->nr_rows; i++)
		v->rows[i] = sr[i].r;
	free(sr);
	return 0;
}

/*
 * What one interval shows, sorted: TCP rows by total latency (--sort), CPU rows
 * by samples (of the -p process only, if given), of each the top N.
 * Only the shown rows are formatted: an interval of 100k rows costs a
 * sort, not 100k lines of output nobody reads (kprof record keeps all).
 */

static int view_build(struct top *t, const struct kp_snapshot *snap,
		      struct kp_top_view *v)
{
	uint32_t i;

	memset(v, 0, sizeof(*v));
	v->rows = calloc(snap->nr_rows ? snap->nr_rows : 1, sizeof(*v->rows));
	v->cpu = calloc(snap->nr_cpu_rows ? snap->nr_cpu_rows : 1,
			sizeof(*v->cpu));
	if (!v->rows || !v->cpu)
		return -1;
	if (t->s.run & KPROF_RUN_TCP) {
		for (i = 0; i < snap->nr_rows; i++) {
			v->rows[v->nr_rows++] = &snap->rows[i];
			if (snap->rows[i].role != KPROF_ROLE_CONNECT)
				v->rows_requests += snap->rows[i].count;
		}
	}
	if (sort_rows(v, t->o.sort))
		return -1;
	v->rows_shown = v->nr_rows < t->o.top ? v->nr_rows : t->o.top;
	if (t->s.run & KPROF_RUN_CPU) {
		for (i = 0; i < snap->nr_cpu_rows; i++) {
			if (t->s.tgid && snap->cpu_rows[i].tgid != t->s.tgid)
				continue;
			v->cpu[v->nr_cpu++] = &snap->cpu_rows[i];
			v->cpu_samples += snap->cpu_rows[i].samples;
		}
	}
	qsort(v->cpu, v->nr_cpu, sizeof(*v->cpu), cmp_cpu_row);
	v->shown = v->nr_cpu < t->o.top ? v->nr_cpu : t->o.top;
	return 0;
}

static void view_free(struct kp_top_view *v)
{
	free(v->rows);
	free(v->cpu);
}

static uint64_t interval_ns(const struct kp_snapshot *snap)
{
	return snap->end_ns > snap->start_ns ? snap->end_ns - snap->start_ns : 0;
}

static unsigned int ndigits(uint64_t v)
{
	unsigned int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* Why stack @id has no frames to show, into @buf; NULL if it has. */
static const char *stack_problem(struct kp_stack_info *si, uint32_t id,
				 char *buf, size_t len)
{
	if (!si)
		snprintf(buf, len, "stack %u: out of memory", id);
	else if (si->err == -ENOENT)
		snprintf(buf, len, "stack %u: no longer known to kprofmod", id);
	else if (si->err)
		snprintf(buf, len, "stack %u: unavailable (%s)", id,
			 si->why ? si->why : strerror(-si->err));
	else
		return NULL;
	return buf;
}

/* Append " f1 <- f2 <- f3" to @line (@len used of @size). */
static size_t append_frames(char *line, size_t size, size_t len,
			    const char **frames, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n && len < size; i++)
		len += snprintf(line + len, size - len, "%s%s",
				i ? " <- " : " ", frames[i]);
	if (!n && len < size)
		len += snprintf(line + len, size - len, " (no frames)");
	return len;
}

static void print_cut(struct top *t, char *line, const char *code)
{
	if (t->tty && t->cols && strlen(line) > t->cols)
		line[t->cols] = '\0';
	printf("%s%s%s\n", color(t, code), line, code[0] ? color(t, C_OFF) : "");
}

/* "    comm[tgid]: f1 <- f2 <- f3" under a TCP row, cut to the terminal. */
static void print_frames(struct top *t, const struct kp_snapshot *snap,
			 uint32_t id)
{
	const char *frames[KP_TOP_FRAMES];
	struct kp_stack_info *si;
	char line[KP_TOP_FRAMES * (KP_SYM_LEN + 164) + 64];
	unsigned int n;
	size_t len;

	si = kp_stacks_get(&t->stacks, id, snap);
	if (stack_problem(si, id, line + 6, sizeof(line) - 6)) {
		memset(line, ' ', 6);
	} else {
		n = kp_stack_top(&t->stacks, si, frames, KP_TOP_FRAMES);
		if (si->tgid)
			len = snprintf(line, sizeof(line), "      %s[%u]:",
				       si->comm, si->tgid);
		else
			len = snprintf(line, sizeof(line), "      %s:", si->comm);
		append_frames(line, sizeof(line), len, frames, n);
	}
	print_cut(t, line, C_DIM);
}

static void print_header(struct top *t, const struct kp_snapshot *snap)
{
	uint64_t drops = snap->drops_inflight + snap->drops_rows +
			 snap->drops_stacks + snap->drops_export;
	char when[16], ival[KP_DURATION_LEN];
	struct tm tm;
	time_t now;

	now = time(NULL);
	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	printf("%s%s  interval %s", color(t, C_BOLD), when,
	       kp_fmt_duration(ival, sizeof(ival), interval_ns(snap)));
	if (t->s.run & KPROF_RUN_TCP) {
		printf("  requests %" PRIu64 "  abandoned %" PRIu64
		       "  drops %" PRIu64, snap->requests, snap->abandoned,
		       drops);
		if (drops)
			printf(" (inflight %" PRIu64 ", rows %" PRIu64
			       ", stacks %" PRIu64 ", export %" PRIu64 ")",
			       snap->drops_inflight, snap->drops_rows,
			       snap->drops_stacks, snap->drops_export);
	}
	if (t->s.run & KPROF_RUN_CPU)
		printf("  samples %" PRIu64 " (idle %" PRIu64 ")  sample drops %" PRIu64,
		       snap->samples, snap->samples_idle, snap->drops_samples);
	/* with TCP, among the drops above */
	if (!(t->s.run & KPROF_RUN_TCP) && snap->drops_stacks)
		printf("  no stack %" PRIu64, snap->drops_stacks);
	printf("%s\n", color(t, C_OFF));
}

/* "12.5%" of the interval's busy samples, "-" when there were none. */
static const char *percent(char *buf, size_t len, uint64_t n, uint64_t busy)
{
	if (!busy)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%%", 100.0 * n / busy);
	return buf;
}

static void print_cpu(struct top *t, const struct kp_snapshot *snap,
		      const struct kp_top_view *v)
{
	char line[KP_TOP_FRAMES * (KP_SYM_LEN + 164) + 128];
	char proc[40], id[16], pct[16], comm[17];
	unsigned int wid = 5, wproc = 7, wsmp = 7, n;
	const char *frames[KP_TOP_FRAMES];
	uint64_t busy = kp_snapshot_busy(snap), rest = v->cpu_samples;
	struct kp_stack_info *si;
	size_t len;
	uint32_t i;

	for (i = 0; i < v->shown; i++) {
		kp_comm(comm, v->cpu[i]->comm);
		n = snprintf(proc, sizeof(proc), "%s[%u]", comm, v->cpu[i]->tgid);
		wproc = n > wproc ? n : wproc;
		if (ndigits(v->cpu[i]->stack_id) > wid)
			wid = ndigits(v->cpu[i]->stack_id);
		if (ndigits(v->cpu[i]->samples) > wsmp)
			wsmp = ndigits(v->cpu[i]->samples);
	}
	printf("%s%*s  %6s  %*s  %-*s  %s%s\n", color(t, C_HEAD), wsmp,
	       "SAMPLES", "%", wid, "STACK", wproc, "PROCESS",
	       "FRAMES (LEAF FIRST)", color(t, C_OFF));
	if (!v->nr_cpu)
		printf("  (no samples)\n");
	for (i = 0; i < v->shown; i++) {
		const struct kprof_cpu_row *r = v->cpu[i];

		rest -= r->samples;
		kp_comm(comm, r->comm);
		snprintf(proc, sizeof(proc), "%s[%u]", comm, r->tgid);
		if (r->stack_id)
			snprintf(id, sizeof(id), "%u", r->stack_id);
		else
			snprintf(id, sizeof(id), "-");
		len = snprintf(line, sizeof(line), "%*" PRIu64 "  %6s  %*s  %-*s ",
			       wsmp, (uint64_t)r->samples,
			       percent(pct, sizeof(pct), r->samples, busy),
			       wid, id, wproc, proc);
		if (!r->stack_id) {
			snprintf(line + len, sizeof(line) - len,
				 " (stack not stored: stack table full)");
		} else {
			si = kp_stacks_get(&t->stacks, r->stack_id, snap);
			if (!stack_problem(si, r->stack_id, line + len + 1,
					   sizeof(line) - len - 1)) {
				n = kp_stack_leaf(&t->stacks, si, frames,
						  KP_TOP_FRAMES);
				append_frames(line, sizeof(line), len, frames, n);
			} else {
				line[len] = ' ';
			}
		}
		print_cut(t, line, "");
	}
	if (v->shown < v->nr_cpu)
		printf("  (%u more stacks, %" PRIu64 " samples)\n",
		       v->nr_cpu - v->shown, rest);
}

/*
 * The connect row (API 4.0) of @r's endpoint in @snap, for a client's or
 * a connect's row; NULL if none.  A linear search: only for shown rows.
 */
static const struct kprof_tcp_row *
connect_row(const struct kp_snapshot *snap, const struct kprof_tcp_row *r)
{
	uint32_t i;

	if (r->role == KPROF_ROLE_CONNECT)
		return r;
	if (r->role != KPROF_ROLE_CLIENT)
		return NULL;
	for (i = 0; i < snap->nr_rows; i++) {
		const struct kprof_tcp_row *c = &snap->rows[i];

		if (c->role == KPROF_ROLE_CONNECT && c->family == r->family &&
		    c->rport == r->rport && c->views == r->views &&
		    !memcmp(c->raddr, r->raddr, sizeof(c->raddr)))
			return c;
	}
	return NULL;
}

static void print_tcp(struct top *t, const struct kp_snapshot *snap,
		      const struct kp_top_view *v)
{
	char ep[KP_ADDR_LEN], d[6][KP_DURATION_LEN];
	unsigned int wid = 5, wep = 8, wcnt = 5;
	uint64_t rest = v->rows_requests;
	struct kp_row_stats s;
	uint32_t i, j;

	for (i = 0; i < v->rows_shown; i++) {
		kp_addr_format(ep, sizeof(ep), v->rows[i]->family,
			       v->rows[i]->raddr, v->rows[i]->rport);
		if (strlen(ep) > wep)
			wep = strlen(ep);
		if (ndigits(v->rows[i]->stack_id) > wid)
			wid = ndigits(v->rows[i]->stack_id);
		if (ndigits(v->rows[i]->count) > wcnt)
			wcnt = ndigits(v->rows[i]->count);
	}
	printf("%s%*s  %-*s  %-7s  %*s  %7s  %7s  %7s  %7s  %7s  %7s  %5s  %4s  %8s  %5s%s\n",
	       color(t, C_HEAD), wid, "STACK", wep, "ENDPOINT", "ROLE", wcnt,
	       "COUNT", "TOTAL", "AVG", "P50", "P95", "P99", "MAX", "RETX",
	       "RST", "CONN-P99", "CFAIL", color(t, C_OFF));
	if (!v->nr_rows)
		printf("  (no requests)\n");
	for (i = 0; i < v->rows_shown; i++) {
		const struct kprof_tcp_row *r = v->rows[i], *c;
		char id[16], cp99[KP_DURATION_LEN], cfail[24];

		if (r->role != KPROF_ROLE_CONNECT)
			rest -= r->count;
		/* the endpoint's connects, beside its client rows */
		snprintf(cp99, sizeof(cp99), "-");
		snprintf(cfail, sizeof(cfail), "-");
		c = connect_row(snap, r);
		if (c && c->count) {
			kp_row_stats(c, &s);
			kp_fmt_duration(cp99, sizeof(cp99), s.p99);
		}
		if (c)
			snprintf(cfail, sizeof(cfail), "%" PRIu64,
				 kp_row_connect_failures(c));
		kp_row_stats(r, &s);
		kp_addr_format(ep, sizeof(ep), r->family, r->raddr, r->rport);
		if (r->stack_id)
			snprintf(id, sizeof(id), "%u", r->stack_id);
		else
			snprintf(id, sizeof(id), "-");
		/* a row of retransmits or resets alone has no latency */
		for (j = 0; j < 6; j++)
			snprintf(d[j], sizeof(d[j]), "-");
		if (r->count) {
			kp_fmt_duration(d[0], sizeof(d[0]), r->sum_ns);
			kp_fmt_duration(d[1], sizeof(d[1]), s.avg);
			kp_fmt_duration(d[2], sizeof(d[2]), s.p50);
			kp_fmt_duration(d[3], sizeof(d[3]), s.p95);
			kp_fmt_duration(d[4], sizeof(d[4]), s.p99);
			kp_fmt_duration(d[5], sizeof(d[5]), r->max_ns);
		}
		printf("%*s  %-*s  %-7s  %*" PRIu64 "  %7s  %7s  %7s  %7s  %7s  %7s  %5" PRIu64 "  %4" PRIu64 "  %8s  %5s\n",
		       wid, id, wep, ep, kp_role_name(r->role), wcnt,
		       (uint64_t)r->count, d[0], d[1], d[2], d[3], d[4], d[5],
		       (uint64_t)r->retransmits,
		       (uint64_t)(r->resets_sent + r->resets_received), cp99,
		       cfail);
		if (r->stack_id)
			print_frames(t, snap, r->stack_id);
	}
	if (v->rows_shown < v->nr_rows)
		printf("  (%u more rows, %" PRIu64 " requests)\n",
		       v->nr_rows - v->rows_shown, rest);
}

static void print_table(struct top *t, const struct kp_snapshot *snap,
			const struct kp_top_view *v)
{
	if (t->tty && !t->o.no_clear)
		fputs("\033[H\033[2J", stdout);
	print_header(t, snap);
	if (t->s.run & KPROF_RUN_CPU)
		print_cpu(t, snap, v);
	if (t->s.run & KPROF_RUN_CPU && t->s.run & KPROF_RUN_TCP)
		printf("\n");
	if (t->s.run & KPROF_RUN_TCP)
		print_tcp(t, snap, v);
	if (!t->tty || t->o.no_clear)
		printf("\n");
}

/* --- Prometheus --------------------------------------------------- */

static int prom_fill(FILE *f, void *ctx)
{
	return kp_prom_write(ctx, f);
}

/* Write the totals to the --prometheus file.  0, or -1 (printed). */
static int prom_commit(struct top *t)
{
	if (!t->o.prom)
		return 0;
	if (kp_out_reopen(&t->prom_out) ||
	    kp_out_commit(&t->prom_out, prom_fill, &t->prom))
		return -1;
	return 0;
}

/*
 * Close the interval, add it to the Prometheus totals and print it.
 * Returns 0, 1 when there is no window this time (the next covers it),
 * or -1 on a fatal error (printed).
 */
static int one_interval(struct top *t)
{
	struct kp_snapshot snap;
	struct kp_top_view v;
	int ret;

	ret = kp_session_snapshot(&t->s, &snap);
	if (ret)
		return ret;
	if (t->o.prom && kp_prom_add(&t->prom, &snap,
				     !!(t->s.run & KPROF_RUN_TCP),
				     !!(t->s.run & KPROF_RUN_CPU))) {
		kp_snapshot_free(&snap);
		kp_err("out of memory");
		return -1;
	}
	if (t->o.quiet) {
		kp_snapshot_free(&snap);
		return 0;
	}
	if (view_build(t, &snap, &v)) {
		view_free(&v);
		kp_snapshot_free(&snap);
		kp_err("out of memory");
		return -1;
	}
	kp_sym_tick(t->sym);
	if (t->o.json)
		kp_top_json(&snap, &v, &t->stacks, t->s.run);
	else
		print_table(t, &snap, &v);
	view_free(&v);
	kp_snapshot_free(&snap);
	return 0;
}

static void setup_output(struct top *t)
{
	t->tty = isatty(STDOUT_FILENO);
	t->color = !t->o.json && kp_use_color(t->o.no_color);
	if (t->tty)
		t->cols = kp_term_cols(STDOUT_FILENO);
}

static int top_loop(struct top *t, const sigset_t *waitmask)
{
	uint64_t deadline, printed = 0, now;
	int ret;

	deadline = kp_now_ns();
	while (!kp_stop) {
		deadline += t->o.interval_ns;
		if (kp_wait_until(deadline, waitmask))
			break;
		ret = one_interval(t);
		if (ret < 0 || prom_commit(t))
			return -1;
		if (fflush(stdout) || ferror(stdout)) {
			if (errno == EPIPE)
				return 0;	/* the reader went away */
			kp_err("writing output: %s", strerror(errno));
			return -1;
		}
		if (!ret && t->o.count && ++printed >= t->o.count)
			break;
		/* Missed a whole interval (slow output)?  Restart the beat. */
		now = kp_now_ns();
		if (now > deadline + t->o.interval_ns)
			deadline = now;
	}
	return 0;
}

static int top_run(int argc, char **argv)
{
	sigset_t waitmask;
	struct top t;
	int ret;

	memset(&t, 0, sizeof(t));
	ret = top_parse(argc, argv, &t.o);
	if (ret >= 0)
		return ret;
	setup_output(&t);

	t.sym = kp_sym_new();
	if (!t.sym) {
		kp_err("out of memory");
		return KP_EXIT_FAIL;
	}
	kp_signals_setup(&waitmask);
	/* An unwritable file fails before anything starts. */
	if (t.o.prom && kp_out_open(&t.prom_out, t.o.prom, &t.o.file)) {
		kp_sym_free(t.sym);
		return KP_EXIT_FAIL;
	}
	ret = kp_session_start(&t.s, "top", &t.o.sess);
	if (ret) {
		if (t.o.prom)
			kp_out_close(&t.prom_out);
		kp_sym_free(t.sym);
		return ret;
	}
	kp_stacks_init(&t.stacks, t.s.fd, t.sym);
	kp_prom_init(&t.prom, t.o.prom_series);
	snprintf(t.module_version, sizeof(t.module_version), "%.*s",
		 KPROF_VERSION_LEN, t.s.info.version);
	t.prom.version = KPROF_VERSION;
	t.prom.module_version = t.module_version;
	t.prom.api_major = t.s.info.api_major;
	t.prom.api_minor = t.s.info.api_minor;
	/* Counters from 0 at once, so the first interval is an increase. */
	ret = prom_commit(&t) || top_loop(&t, &waitmask) ? KP_EXIT_FAIL : 0;
	ret = kp_session_end(&t.s, ret);
	if (t.o.prom)
		kp_out_close(&t.prom_out);
	kp_prom_fini(&t.prom);
	kp_stacks_fini(&t.stacks);
	kp_sym_free(t.sym);
	return ret;
}

const struct kp_cmd kp_cmd_top = {
	.name = "top",
	.summary = "hot CPU stacks and TCP request latency, every interval",
	.usage = "kprof top [-i SECONDS] [-n COUNT] [--json] [--top N] [--freq HZ]\n"
		 "                 [--no-cpu] [--no-tcp] [-p PID] [--cgroup DIR]\n"
		 "                 [--rport PORT[,PORT...]]\n"
		 "                 [--lport PORT[,PORT...]] [--role client|server] [-4|-6]\n"
		 "                 [--threshold DURATION] [--no-color] [-C]\n"
		 "                 [--prometheus FILE [--prometheus-max-series N] [-q]\n"
		 "                  [--file-mode MODE] [--shared-dir]]\n",
	.opts = top_opts,
	.help =	 "\n"
		 "Hot stacks: the N (stack, process) pairs with the most samples, with their\n"
		 "share of the interval's non-idle samples and their 3 leaf-most frames\n"
		 "(kernel first).  TCP columns: latency total, average, 50/95/99th percentile\n"
		 "(histogram estimates within 6.25%) and maximum per stack, endpoint and role.\n"
		 "A module that cannot sample shows TCP latency only (a note says so).\n"
		 "What top started is stopped on exit (after COUNT intervals, or on\n"
		 "SIGINT/SIGTERM); what other readers run goes on, with their settings.\n"
		 "\n"
		 "The Prometheus file holds totals since top started, cumulative and\n"
		 "monotonic as counters and histograms must be: kprof_tcp_requests_total,\n"
		 "kprof_cpu_samples_total{state}, kprof_drops_total{kind},\n"
		 "kprof_intervals_total, kprof_info, and\n"
		 "kprof_tcp_request_duration_seconds{raddr,rport,role} with le from 100us to\n"
		 "10s (a request counts under le only if its whole histogram bucket is at\n"
		 "most le).  It is written once at start and after every interval, and\n"
		 "left in place on exit.  A daemon: kprof top -i 15 -q --prometheus\n"
		 "/var/lib/prometheus/node-exporter/kprof.prom (see kprof-top(1)).\n",
	.run = top_run,
};
