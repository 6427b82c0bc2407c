// SPDX-License-Identifier: GPL-2.0
/*
 * kprof top: TCP request latency per (stack, endpoint, role), one table
 * (or one JSON object) per interval.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "addr.h"
#include "dev.h"
#include "hist.h"
#include "kprof.h"
#include "opts.h"
#include "snapshot.h"
#include "stack.h"
#include "symbolize.h"
#include "units.h"
#include "util.h"

#define TOP_FRAMES	3

#define MIN_INTERVAL_NS	(KP_NSEC_PER_SEC / 100)
#define MAX_INTERVAL_NS	(3600 * KP_NSEC_PER_SEC)
#define MAX_THRESHOLD_NS	(100 * KP_NSEC_PER_SEC)
/* kprofmod's own default: walking every request's stack costs. */
#define DEFAULT_THRESHOLD_NS	(KP_NSEC_PER_SEC / 1000)

struct top_opts {
	uint64_t interval_ns;
	uint64_t count;		/* intervals to print, 0: until stopped */
	int json;
	int no_color;
	int no_clear;
	struct kprof_config cfg;
};

struct top {
	struct top_opts o;
	int fd;
	struct kprof_info info;
	struct kp_map map;
	struct kp_sym *sym;
	struct kp_stacks stacks;
	int tty;
	int color;
	unsigned int cols;	/* terminal width, 0: unknown */
};

static volatile sig_atomic_t top_stop;

static void on_signal(int sig)
{
	(void)sig;
	top_stop = 1;
}

enum {
	OPT_JSON = 0x100,
	OPT_RPORT,
	OPT_LPORT,
	OPT_ROLE,
	OPT_THRESHOLD,
	OPT_NO_COLOR,
};

static const struct option top_longopts[] = {
	{ "interval", required_argument, NULL, 'i' },
	{ "count", required_argument, NULL, 'n' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "pid", required_argument, NULL, 'p' },
	{ "rport", required_argument, NULL, OPT_RPORT },
	{ "lport", required_argument, NULL, OPT_LPORT },
	{ "role", required_argument, NULL, OPT_ROLE },
	{ "threshold", required_argument, NULL, OPT_THRESHOLD },
	{ "no-color", no_argument, NULL, OPT_NO_COLOR },
	{ "no-clear", no_argument, NULL, 'C' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The process of thread or process @pid: Tgid from /proc/PID/status. */
static pid_t tgid_of(pid_t pid)
{
	char path[64], line[128];
	pid_t tgid = pid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return pid;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid > 0 ? tgid : pid;
}

static int parse_pid(const char *arg, struct kprof_config *cfg)
{
	const char *why;
	uint64_t v;

	why = kp_parse_uint(arg, 1, INT_MAX, &v);
	if (why) {
		kp_err("top: -p '%s': %s (a process ID)", arg, why);
		return -1;
	}
	if (kill((pid_t)v, 0) && errno == ESRCH) {
		kp_err("top: -p %s: no such process", arg);
		return -1;
	}
	cfg->tgid = tgid_of((pid_t)v);
	return 0;
}

static int parse_roles(const char *arg, struct kprof_config *cfg)
{
	if (!strcmp(arg, "client"))
		cfg->roles = 1U << KPROF_ROLE_CLIENT;
	else if (!strcmp(arg, "server"))
		cfg->roles = 1U << KPROF_ROLE_SERVER;
	else {
		kp_err("top: --role '%s': use client or server", arg);
		return -1;
	}
	return 0;
}

static int parse_port_opt(const char *name, const char *arg, uint16_t *ports,
			  uint16_t *nr)
{
	unsigned int n = *nr;
	const char *why;

	why = kp_parse_ports(arg, ports, &n, KPROF_MAX_PORTS);
	if (why) {
		kp_err("top: %s '%s': %s (at most %u ports, 1..65535)", name,
		       arg, why, KPROF_MAX_PORTS);
		return -1;
	}
	*nr = n;
	return 0;
}

/* Returns -1 to run, else the exit status. */
static int top_parse(int argc, char **argv, struct top_opts *o)
{
	const char *why;
	uint64_t v;
	int c;

	memset(o, 0, sizeof(*o));
	o->interval_ns = KP_NSEC_PER_SEC;
	o->cfg.size = sizeof(o->cfg);
	o->cfg.threshold_ns = DEFAULT_THRESHOLD_NS;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:i:n:p:46Ch", top_longopts,
				NULL)) != -1) {
		switch (c) {
		case 'h':
			kp_cmd_usage(&kp_cmd_top, stdout);
			return 0;
		case 'i':
			why = kp_parse_seconds(optarg, &v);
			if (!why && (v < MIN_INTERVAL_NS || v > MAX_INTERVAL_NS))
				why = "out of range";
			if (why) {
				kp_err("top: -i '%s': %s (seconds, 0.01 to 3600)",
				       optarg, why);
				return KP_EXIT_USAGE;
			}
			o->interval_ns = v;
			break;
		case 'n':
			why = kp_parse_uint(optarg, 1, UINT64_MAX, &o->count);
			if (why) {
				kp_err("top: -n '%s': %s (a positive integer)",
				       optarg, why);
				return KP_EXIT_USAGE;
			}
			break;
		case 'p':
			if (parse_pid(optarg, &o->cfg))
				return KP_EXIT_USAGE;
			break;
		case '4':
			o->cfg.families |= KPROF_FAMILY_INET;
			break;
		case '6':
			o->cfg.families |= KPROF_FAMILY_INET6;
			break;
		case 'C':
			o->no_clear = 1;
			break;
		case OPT_JSON:
			o->json = 1;
			break;
		case OPT_NO_COLOR:
			o->no_color = 1;
			break;
		case OPT_RPORT:
			if (parse_port_opt("--rport", optarg, o->cfg.rports,
					   &o->cfg.nr_rports))
				return KP_EXIT_USAGE;
			break;
		case OPT_LPORT:
			if (parse_port_opt("--lport", optarg, o->cfg.lports,
					   &o->cfg.nr_lports))
				return KP_EXIT_USAGE;
			break;
		case OPT_ROLE:
			if (parse_roles(optarg, &o->cfg))
				return KP_EXIT_USAGE;
			break;
		case OPT_THRESHOLD:
			why = kp_parse_duration(optarg, &v);
			if (!why && v > MAX_THRESHOLD_NS)
				why = "above 100s";
			if (why) {
				kp_err("top: --threshold '%s': %s", optarg, why);
				return KP_EXIT_USAGE;
			}
			o->cfg.threshold_ns = v;
			break;
		case ':':
			kp_err("top: option '%s' needs a value",
			       argv[optind - 1]);
			return KP_EXIT_USAGE;
		default:
			kp_err("top: unknown option '%s' (see `kprof top --help`)",
			       argv[optind - 1]);
			return KP_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		kp_err("top: unexpected argument '%s'", argv[optind]);
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

static const char *role_name(unsigned int role)
{
	switch (role) {
	case KPROF_ROLE_CLIENT:
		return "client";
	case KPROF_ROLE_SERVER:
		return "server";
	}
	return "unknown";
}

struct row_stats {
	uint64_t avg, p50, p95, p99, p999;
};

static void row_stats(const struct kprof_tcp_row *r, struct row_stats *s)
{
	const uint32_t *h = r->hist;

	s->avg = r->count ? r->sum_ns / r->count : 0;
	s->p50 = kp_hist_percentile_clamped(h, KP_HIST_BUCKETS, 50, r->min_ns,
					    r->max_ns);
	s->p95 = kp_hist_percentile_clamped(h, KP_HIST_BUCKETS, 95, r->min_ns,
					    r->max_ns);
	s->p99 = kp_hist_percentile_clamped(h, KP_HIST_BUCKETS, 99, r->min_ns,
					    r->max_ns);
	s->p999 = kp_hist_percentile_clamped(h, KP_HIST_BUCKETS, 99.9,
					     r->min_ns, r->max_ns);
}

static int cmp_row(const void *a, const void *b)
{
	const struct kprof_tcp_row *x = *(const struct kprof_tcp_row *const *)a;
	const struct kprof_tcp_row *y = *(const struct kprof_tcp_row *const *)b;

	if (x->sum_ns != y->sum_ns)
		return x->sum_ns > y->sum_ns ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

/* The rows of @snap, sorted by total latency, descending. */
static const struct kprof_tcp_row **sorted_rows(const struct kp_snapshot *snap)
{
	const struct kprof_tcp_row **v;
	uint32_t i;

	v = calloc(snap->nr_rows ? snap->nr_rows : 1, sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < snap->nr_rows; i++)
		v[i] = &snap->rows[i];
	qsort(v, snap->nr_rows, sizeof(*v), cmp_row);
	return v;
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

/* "    comm[tgid]: f1 <- f2 <- f3" under a row, cut to the terminal. */
static void print_frames(struct top *t, const struct kp_snapshot *snap,
			 uint32_t id)
{
	const char *frames[TOP_FRAMES];
	struct kp_stack_info *si;
	char line[TOP_FRAMES * (KP_SYM_LEN + 4) + 64];
	unsigned int n, i;
	size_t len;

	si = kp_stacks_get(&t->stacks, id, snap);
	if (!si)
		snprintf(line, sizeof(line), "      stack %u: out of memory", id);
	else if (si->err == -ENOENT)
		snprintf(line, sizeof(line), "      stack %u: no longer known to kprofmod",
			 id);
	else if (si->err)
		snprintf(line, sizeof(line), "      stack %u: unavailable (%s)",
			 id, si->why ? si->why : strerror(-si->err));
	else {
		n = kp_stack_top(&t->stacks, si, frames, TOP_FRAMES);
		if (si->tgid)
			len = snprintf(line, sizeof(line), "      %s[%u]:",
				       si->comm, si->tgid);
		else
			len = snprintf(line, sizeof(line), "      %s:", si->comm);
		for (i = 0; i < n && len < sizeof(line); i++)
			len += snprintf(line + len, sizeof(line) - len, "%s%s",
					i ? " <- " : " ", frames[i]);
		if (!n && len < sizeof(line))
			snprintf(line + len, sizeof(line) - len, " (no frames)");
	}
	if (t->tty && t->cols && strlen(line) > t->cols)
		line[t->cols] = '\0';
	printf("%s%s%s\n", color(t, C_DIM), line, color(t, C_OFF));
}

static void print_table(struct top *t, const struct kp_snapshot *snap,
			const struct kprof_tcp_row **rows)
{
	char ep[KP_ADDR_LEN], d[6][KP_DURATION_LEN], when[16], ival[KP_DURATION_LEN];
	uint64_t drops = snap->drops_inflight + snap->drops_rows +
			 snap->drops_stacks + snap->drops_export;
	unsigned int wid = 5, wep = 8, wcnt = 5;
	struct row_stats s;
	struct tm tm;
	time_t now;
	uint32_t i;

	for (i = 0; i < snap->nr_rows; i++) {
		kp_addr_format(ep, sizeof(ep), rows[i]->family, rows[i]->raddr,
			       rows[i]->rport);
		if (strlen(ep) > wep)
			wep = strlen(ep);
		if (ndigits(rows[i]->stack_id) > wid)
			wid = ndigits(rows[i]->stack_id);
		if (ndigits(rows[i]->count) > wcnt)
			wcnt = ndigits(rows[i]->count);
	}

	if (t->tty && !t->o.no_clear)
		fputs("\033[H\033[2J", stdout);
	now = time(NULL);
	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	printf("%s%s  interval %s  requests %" PRIu64 "  abandoned %" PRIu64
	       "  drops %" PRIu64, color(t, C_BOLD), when,
	       kp_fmt_duration(ival, sizeof(ival), interval_ns(snap)),
	       snap->requests, snap->abandoned, drops);
	if (drops)
		printf(" (inflight %" PRIu64 ", rows %" PRIu64 ", stacks %" PRIu64
		       ", export %" PRIu64 ")", snap->drops_inflight,
		       snap->drops_rows, snap->drops_stacks,
		       snap->drops_export);
	printf("%s\n", color(t, C_OFF));

	printf("%s%*s  %-*s  %-6s  %*s  %7s  %7s  %7s  %7s  %7s  %7s%s\n",
	       color(t, C_HEAD), wid, "STACK", wep, "ENDPOINT", "ROLE", wcnt,
	       "COUNT", "TOTAL", "AVG", "P50", "P95", "P99", "MAX",
	       color(t, C_OFF));
	if (!snap->nr_rows)
		printf("  (no requests)\n");
	for (i = 0; i < snap->nr_rows; i++) {
		const struct kprof_tcp_row *r = rows[i];
		char id[16];

		row_stats(r, &s);
		kp_addr_format(ep, sizeof(ep), r->family, r->raddr, r->rport);
		if (r->stack_id)
			snprintf(id, sizeof(id), "%u", r->stack_id);
		else
			snprintf(id, sizeof(id), "-");
		printf("%*s  %-*s  %-6s  %*" PRIu64 "  %7s  %7s  %7s  %7s  %7s  %7s\n",
		       wid, id, wep, ep, role_name(r->role), wcnt,
		       (uint64_t)r->count,
		       kp_fmt_duration(d[0], sizeof(d[0]), r->sum_ns),
		       kp_fmt_duration(d[1], sizeof(d[1]), s.avg),
		       kp_fmt_duration(d[2], sizeof(d[2]), s.p50),
		       kp_fmt_duration(d[3], sizeof(d[3]), s.p95),
		       kp_fmt_duration(d[4], sizeof(d[4]), s.p99),
		       kp_fmt_duration(d[5], sizeof(d[5]), r->max_ns));
		if (r->stack_id)
			print_frames(t, snap, r->stack_id);
	}
	if (!t->tty || t->o.no_clear)
		printf("\n");
}

static json_object *json_u64(uint64_t v)
{
	return json_object_new_uint64(v);
}

static json_object *json_row(struct top *t, const struct kp_snapshot *snap,
			     const struct kprof_tcp_row *r)
{
	json_object *o = json_object_new_object(), *fr;
	const char *frames[TOP_FRAMES], *fam;
	struct kp_stack_info *si;
	char host[KP_ADDR_LEN];
	struct row_stats s;
	unsigned int i, n;

	row_stats(r, &s);
	fam = kp_family_name(r->family);
	if (kp_addr_host(host, sizeof(host), r->family, r->raddr))
		host[0] = '\0';
	json_object_object_add(o, "stack_id", json_u64(r->stack_id));
	json_object_object_add(o, "family",
			       json_object_new_string(fam ? fam : "unknown"));
	json_object_object_add(o, "raddr", json_object_new_string(host));
	json_object_object_add(o, "rport", json_u64(r->rport));
	json_object_object_add(o, "role",
			       json_object_new_string(role_name(r->role)));
	json_object_object_add(o, "count", json_u64(r->count));
	json_object_object_add(o, "sum_ns", json_u64(r->sum_ns));
	json_object_object_add(o, "min_ns", json_u64(r->min_ns));
	json_object_object_add(o, "max_ns", json_u64(r->max_ns));
	json_object_object_add(o, "avg_ns", json_u64(s.avg));
	json_object_object_add(o, "p50_ns", json_u64(s.p50));
	json_object_object_add(o, "p95_ns", json_u64(s.p95));
	json_object_object_add(o, "p99_ns", json_u64(s.p99));
	json_object_object_add(o, "p999_ns", json_u64(s.p999));
	if (!r->stack_id)
		return o;
	si = kp_stacks_get(&t->stacks, r->stack_id, snap);
	if (!si || si->err)
		return o;
	json_object_object_add(o, "tgid", json_u64(si->tgid));
	json_object_object_add(o, "comm", json_object_new_string(si->comm));
	fr = json_object_new_array();
	n = kp_stack_top(&t->stacks, si, frames, TOP_FRAMES);
	for (i = 0; i < n; i++)
		json_object_array_add(fr, json_object_new_string(frames[i]));
	json_object_object_add(o, "frames", fr);
	return o;
}

static void print_json(struct top *t, const struct kp_snapshot *snap,
		       const struct kprof_tcp_row **rows)
{
	json_object *o = json_object_new_object(), *iv, *drops, *tcp;
	uint32_t i;

	iv = json_object_new_object();
	json_object_object_add(iv, "start_ns", json_u64(snap->start_ns));
	json_object_object_add(iv, "end_ns", json_u64(snap->end_ns));
	json_object_object_add(iv, "duration_ns", json_u64(interval_ns(snap)));
	json_object_object_add(o, "interval", iv);
	json_object_object_add(o, "generation", json_u64(snap->generation));
	json_object_object_add(o, "requests", json_u64(snap->requests));
	json_object_object_add(o, "abandoned", json_u64(snap->abandoned));
	drops = json_object_new_object();
	json_object_object_add(drops, "inflight", json_u64(snap->drops_inflight));
	json_object_object_add(drops, "rows", json_u64(snap->drops_rows));
	json_object_object_add(drops, "stacks", json_u64(snap->drops_stacks));
	json_object_object_add(drops, "export", json_u64(snap->drops_export));
	json_object_object_add(o, "drops", drops);
	tcp = json_object_new_array();
	for (i = 0; i < snap->nr_rows; i++)
		json_object_array_add(tcp, json_row(t, snap, rows[i]));
	json_object_object_add(o, "tcp", tcp);
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
}

/* --- the device ---------------------------------------------------- */

static int ctl(struct top *t, unsigned long cmd, const char *what)
{
	struct kprof_ctl c = { .size = sizeof(c), .what = KPROF_RUN_TCP };

	return kprof_dev_ioctl(t->fd, cmd, &c, what);
}

static int snapshot(struct top *t, uint64_t *gen)
{
	struct kprof_snapshot s = { .size = sizeof(s) };

	if (kprof_dev_ioctl(t->fd, KPROF_IOC_SNAPSHOT, &s, "KPROF_IOC_SNAPSHOT"))
		return -1;
	*gen = s.generation;
	return 0;
}

/*
 * Close the interval and print it.  Returns 0, 1 to skip a lost interval,
 * or -1 on a fatal error (printed).
 */
static int one_interval(struct top *t)
{
	const struct kprof_tcp_row **rows;
	char why[KP_SNAP_ERR_LEN];
	struct kp_snapshot snap;
	uint64_t gen;
	int ret;

	if (snapshot(t, &gen))
		return -1;
	ret = kp_snapshot_copy(t->map.base, t->map.size, &snap, why, sizeof(why));
	if (ret == -EAGAIN) {
		kp_err("interval skipped: %s", why);
		return 1;
	}
	if (ret) {
		kp_err("the module's snapshot mapping is corrupt: %s", why);
		return -1;
	}
	if (snap.generation != gen) {
		kp_err("interval skipped: the mapping holds generation %" PRIu64
		       ", not %" PRIu64 " (another reader took a snapshot)",
		       snap.generation, gen);
		kp_snapshot_free(&snap);
		return 1;
	}
	rows = sorted_rows(&snap);
	if (!rows) {
		kp_snapshot_free(&snap);
		kp_err("out of memory");
		return -1;
	}
	kp_sym_tick(t->sym);
	if (t->o.json)
		print_json(t, &snap, rows);
	else
		print_table(t, &snap, rows);
	free(rows);
	kp_snapshot_free(&snap);
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * KP_NSEC_PER_SEC + ts.tv_nsec;
}

/*
 * Sleep until CLOCK_MONOTONIC @deadline with the stop signals unblocked
 * (@mask) only while waiting, so none is lost.  Returns -1 if stopped.
 */
static int wait_until(uint64_t deadline, const sigset_t *mask)
{
	struct timespec ts;
	uint64_t now;

	while (!top_stop) {
		now = now_ns();
		if (now >= deadline)
			return 0;
		ts.tv_sec = (deadline - now) / KP_NSEC_PER_SEC;
		ts.tv_nsec = (deadline - now) % KP_NSEC_PER_SEC;
		ppoll(NULL, 0, &ts, mask);
	}
	return -1;
}

static void setup_signals(sigset_t *waitmask)
{
	struct sigaction sa;
	sigset_t block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);	/* a closed pipe is an error from write */

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, waitmask);
	sigdelset(waitmask, SIGINT);
	sigdelset(waitmask, SIGTERM);
	sigdelset(waitmask, SIGHUP);
}

static void setup_output(struct top *t)
{
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");
	struct winsize ws;

	t->tty = isatty(STDOUT_FILENO);
	t->color = t->tty && !t->o.no_color && !t->o.json && !(nc && *nc) &&
		   !(term && !strcmp(term, "dumb"));
	if (t->tty && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws))
		t->cols = ws.ws_col;
}

static int top_loop(struct top *t, const sigset_t *waitmask)
{
	uint64_t gen, deadline, printed = 0, now;
	int ret;

	/* Start a fresh interval. */
	if (snapshot(t, &gen))
		return -1;
	deadline = now_ns();
	while (!top_stop) {
		deadline += t->o.interval_ns;
		if (wait_until(deadline, waitmask))
			break;
		ret = one_interval(t);
		if (ret < 0)
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
		now = now_ns();
		if (now > deadline + t->o.interval_ns)
			deadline = now;
	}
	return 0;
}

static int top_run(int argc, char **argv)
{
	struct kprof_config old = { .size = sizeof(old) };
	int ret, started = 0, restore = 0;
	sigset_t waitmask;
	struct top t;

	memset(&t, 0, sizeof(t));
	ret = top_parse(argc, argv, &t.o);
	if (ret >= 0)
		return ret;
	setup_output(&t);

	t.fd = kprof_dev_open(&t.info);
	if (t.fd < 0)
		return KP_EXIT_FAIL;
	ret = KP_EXIT_FAIL;
	if (kp_map_open(t.fd, &t.info, &t.map))
		goto out_close;
	if (!(t.info.features & KPROF_FEAT_TCP_LATENCY)) {
		kp_err("kprofmod %.*s does not trace TCP latency (API %u.%u)",
		       KPROF_VERSION_LEN, t.info.version, t.info.api_major,
		       t.info.api_minor);
		goto out_unmap;
	}
	t.sym = kp_sym_new();
	if (!t.sym) {
		kp_err("out of memory");
		goto out_unmap;
	}
	kp_stacks_init(&t.stacks, t.fd, t.sym);
	setup_signals(&waitmask);

	/*
	 * Tracing already running belongs to someone else: on exit leave it
	 * running, with the configuration it had.
	 */
	if (t.info.running & KPROF_RUN_TCP) {
		if (kprof_dev_ioctl(t.fd, KPROF_IOC_GET_CONFIG, &old,
				    "KPROF_IOC_GET_CONFIG"))
			goto out_free;
		restore = 1;
	}
	if (kprof_dev_ioctl(t.fd, KPROF_IOC_SET_CONFIG, &t.o.cfg,
			    "KPROF_IOC_SET_CONFIG"))
		goto out_free;
	if (!(t.info.running & KPROF_RUN_TCP)) {
		if (ctl(&t, KPROF_IOC_START, "KPROF_IOC_START"))
			goto out_restore;
		started = 1;
	}

	if (!top_loop(&t, &waitmask))
		ret = 0;

	/*
	 * Clean up even after a failure; its one line said what went wrong
	 * (say, the module went away), so do not add to it.
	 */
	if (started) {
		struct kprof_ctl c = { .size = sizeof(c), .what = KPROF_RUN_TCP };

		if (ret)
			ioctl(t.fd, KPROF_IOC_STOP, &c);
		else if (ctl(&t, KPROF_IOC_STOP, "KPROF_IOC_STOP"))
			ret = KP_EXIT_FAIL;
	}
out_restore:
	if (restore) {
		if (ret)
			ioctl(t.fd, KPROF_IOC_SET_CONFIG, &old);
		else if (kprof_dev_ioctl(t.fd, KPROF_IOC_SET_CONFIG, &old,
					 "KPROF_IOC_SET_CONFIG"))
			ret = KP_EXIT_FAIL;
	}
out_free:
	kp_stacks_fini(&t.stacks);
	kp_sym_free(t.sym);
out_unmap:
	kp_map_close(&t.map);
out_close:
	close(t.fd);
	return ret;
}

const struct kp_cmd kp_cmd_top = {
	.name = "top",
	.summary = "TCP request latency per stack and endpoint, every interval",
	.usage = "kprof top [-i SECONDS] [-n COUNT] [--json] [-p PID]\n"
		 "                 [--rport PORT[,PORT...]] [--lport PORT[,PORT...]]\n"
		 "                 [--role client|server] [-4|-6] [--threshold DURATION]\n"
		 "                 [--no-color] [-C]\n",
	.help =	 "  -i, --interval SECONDS   print every SECONDS (0.01 to 3600, default 1)\n"
		 "  -n, --count COUNT        stop after COUNT intervals (default: never)\n"
		 "      --json               one JSON object per interval and line\n"
		 "  -p, --pid PID            only requests of process PID\n"
		 "      --rport PORTS        only these remote ports (at most 16)\n"
		 "      --lport PORTS        only these local ports (at most 16)\n"
		 "      --role ROLE          client: connections we opened; server: accepted\n"
		 "  -4, -6                   only IPv4 / only IPv6\n"
		 "      --threshold DURATION walk stacks only for requests this slow (500us,\n"
		 "                           2.5s; plain numbers are ms; default 1ms; 0: all);\n"
		 "                           faster ones are counted under stack -\n"
		 "      --no-color           no colours on a terminal\n"
		 "  -C, --no-clear           do not clear the terminal between intervals\n"
		 "\n"
		 "Tracing started here is stopped on exit (after COUNT intervals, or on\n"
		 "SIGINT/SIGTERM).  Columns: latency total, average, 50/95/99th percentile\n"
		 "(histogram estimates within 6.25%) and maximum per stack, endpoint and role.\n",
	.run = top_run,
};
