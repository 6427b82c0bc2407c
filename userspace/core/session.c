// SPDX-License-Identifier: GPL-2.0
/* kprof reader: a measuring session, see session.h. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/magic.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "dev.h"
#include "opts.h"
#include "session.h"
#include "units.h"
#include "util.h"

#define MAX_THRESHOLD_NS	(100 * KP_NSEC_PER_SEC)

void kp_sess_opts_init(struct kp_sess_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->cfg.size = sizeof(o->cfg);
	o->cfg.threshold_ns = KP_DEFAULT_THRESHOLD_NS;
	o->cfg.sample_hz = KP_DEFAULT_SAMPLE_HZ;
	o->want = KPROF_RUN_TCP | KPROF_RUN_CPU;
}

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

static int parse_pid(const char *cmd, const char *arg,
		     struct kprof_config *cfg)
{
	const char *why;
	uint64_t v;

	why = kp_parse_uint(arg, 1, INT_MAX, &v);
	if (why) {
		kp_err("%s: -p '%s': %s (a process ID)", cmd, arg, why);
		return -1;
	}
	if (kill((pid_t)v, 0) && errno == ESRCH) {
		kp_err("%s: -p %s: no such process", cmd, arg);
		return -1;
	}
	cfg->tgid = tgid_of((pid_t)v);
	return 0;
}

static int parse_roles(const char *cmd, const char *arg,
		       struct kprof_config *cfg)
{
	if (!strcmp(arg, "client"))
		cfg->roles = 1U << KPROF_ROLE_CLIENT;
	else if (!strcmp(arg, "server"))
		cfg->roles = 1U << KPROF_ROLE_SERVER;
	else {
		kp_err("%s: --role '%s': use client or server", cmd, arg);
		return -1;
	}
	return 0;
}

/*
 * A cgroup v2 directory, absolute or relative to /sys/fs/cgroup: its
 * inode number is the cgroup's ID.
 */
static int parse_cgroup(const char *cmd, const char *arg,
			struct kprof_config *cfg)
{
	char path[PATH_MAX];
	struct statfs sfs;
	struct stat st;

	if (!*arg) {
		kp_err("%s: --cgroup needs a cgroup v2 directory", cmd);
		return -1;
	}
	if (arg[0] == '/' || arg[0] == '.')
		snprintf(path, sizeof(path), "%s", arg);
	else
		snprintf(path, sizeof(path), "/sys/fs/cgroup/%s", arg);
	if (stat(path, &st) || statfs(path, &sfs)) {
		kp_err("%s: --cgroup %s: %s", cmd, path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode) || sfs.f_type != CGROUP2_SUPER_MAGIC) {
		kp_err("%s: --cgroup %s: not a cgroup v2 directory", cmd, path);
		return -1;
	}
	cfg->cgroup_id = st.st_ino;
	return 0;
}

static int parse_port_opt(const char *cmd, const char *name, const char *arg,
			  uint16_t *ports, uint16_t *nr)
{
	unsigned int n = *nr;
	const char *why;

	why = kp_parse_ports(arg, ports, &n, KPROF_MAX_PORTS);
	if (why) {
		kp_err("%s: %s '%s': %s (at most %u ports, 1..65535)", cmd,
		       name, arg, why, KPROF_MAX_PORTS);
		return -1;
	}
	*nr = n;
	return 0;
}

int kp_sess_opt(const char *cmd, int c, const char *arg,
		struct kp_sess_opts *o)
{
	const char *why;
	uint64_t v;
	int bad = 0;

	switch (c) {
	case 'p':
		bad = parse_pid(cmd, arg, &o->cfg);
		break;
	case '4':
		o->cfg.families |= KPROF_FAMILY_INET;
		break;
	case '6':
		o->cfg.families |= KPROF_FAMILY_INET6;
		break;
	case KP_OPT_RPORT:
		bad = parse_port_opt(cmd, "--rport", arg, o->cfg.rports,
				     &o->cfg.nr_rports);
		break;
	case KP_OPT_LPORT:
		bad = parse_port_opt(cmd, "--lport", arg, o->cfg.lports,
				     &o->cfg.nr_lports);
		break;
	case KP_OPT_ROLE:
		bad = parse_roles(cmd, arg, &o->cfg);
		break;
	case KP_OPT_THRESHOLD:
		why = kp_parse_duration(arg, &v);
		if (!why && v > MAX_THRESHOLD_NS)
			why = "above 100s";
		if (why) {
			kp_err("%s: --threshold '%s': %s", cmd, arg, why);
			bad = 1;
			break;
		}
		o->cfg.threshold_ns = v;
		break;
	case KP_OPT_FREQ:
		why = kp_parse_uint(arg, 1, KPROF_SAMPLE_HZ_MAX, &v);
		if (why) {
			kp_err("%s: --freq '%s': %s (samples per second and CPU, 1..%u)",
			       cmd, arg, why, KPROF_SAMPLE_HZ_MAX);
			bad = 1;
			break;
		}
		o->cfg.sample_hz = v;
		break;
	case KP_OPT_NO_CPU:
		o->want &= ~KPROF_RUN_CPU;
		break;
	case KP_OPT_NO_TCP:
		o->want &= ~KPROF_RUN_TCP;
		break;
	case KP_OPT_CGROUP:
		bad = parse_cgroup(cmd, arg, &o->cfg);
		break;
	default:
		return 1;
	}
	return bad ? KP_EXIT_USAGE : 0;
}

static int sess_row(const char *cmd, const struct kp_opt *row,
		    const char *arg, void *base)
{
	return kp_sess_opt(cmd, row->val, arg, base);
}

#define SESS_ROW(n, l, a, v, h)						\
	{ .name = (n), .letter = (l), .arg = (a), .kind = KP_OPT_KIND_CALL, \
	  .call = sess_row, .val = (v), .help = (h) }

const struct kp_opt kp_sess_rows[KP_SESS_NROWS + 1] = {
	[KP_SESS_ROW_PID] = SESS_ROW("pid", 'p', "PID", 'p',
		"only process PID"),
	[KP_SESS_ROW_RPORT] = SESS_ROW("rport", 0, "PORTS", KP_OPT_RPORT,
		"only requests to these remote ports (at most 16)"),
	[KP_SESS_ROW_LPORT] = SESS_ROW("lport", 0, "PORTS", KP_OPT_LPORT,
		"only requests on these local ports (at most 16)"),
	[KP_SESS_ROW_ROLE] = {
		.name = "role", .arg = "ROLE", .choices = "client|server",
		.kind = KP_OPT_KIND_CALL, .call = sess_row, .val = KP_OPT_ROLE,
		.help = "client: connections we opened; server: accepted",
	},
	[KP_SESS_ROW_THRESHOLD] = SESS_ROW("threshold", 0, "DURATION",
		KP_OPT_THRESHOLD,
		"walk stacks only for requests this slow\n"
		"(default 1ms; 0: all)"),
	[KP_SESS_ROW_FREQ] = SESS_ROW("freq", 0, "HZ", KP_OPT_FREQ,
		"CPU samples per second and CPU (1..10000,\n"
		"default 99)"),
	[KP_SESS_ROW_NO_CPU] = SESS_ROW("no-cpu", 0, NULL, KP_OPT_NO_CPU,
		"no CPU sampling"),
	[KP_SESS_ROW_NO_TCP] = SESS_ROW("no-tcp", 0, NULL, KP_OPT_NO_TCP,
		"no TCP tracing"),
	[KP_SESS_ROW_CGROUP] = SESS_ROW("cgroup", 0, "DIR", KP_OPT_CGROUP,
		"only tasks in this cgroup v2 directory or below\n"
		"(absolute, or relative to /sys/fs/cgroup)"),
	/* listed together, as "-4, -6" */
	[KP_SESS_ROW_INET] = {
		.letter = '4', .kind = KP_OPT_KIND_CALL, .call = sess_row,
		.val = '4', .left = "  -4, -6",
		.help = "only IPv4 / only IPv6 requests",
	},
	[KP_SESS_ROW_INET6] = {
		.letter = '6', .kind = KP_OPT_KIND_CALL, .call = sess_row,
		.val = '6', .help = "",
	},
	[KP_SESS_NROWS] = KP_OPT_END,
};

/* --- the device ------------------------------------------------------ */

static int ctl(struct kp_session *s, unsigned long cmd, unsigned int what,
	       const char *name)
{
	struct kprof_ctl c = { .size = sizeof(c), .what = what };

	return kprof_dev_ioctl(s->fd, cmd, &c, name);
}

static int snapshot_ioctl(struct kp_session *s, uint64_t *gen)
{
	struct kprof_snapshot snap = { .size = sizeof(snap) };

	if (kprof_dev_ioctl(s->fd, KPROF_IOC_SNAPSHOT, &snap,
			    "KPROF_IOC_SNAPSHOT"))
		return -1;
	*gen = snap.generation;
	s->view = snap.view;
	if (s->view == KPROF_VIEW_NONE && !s->view_noted) {
		s->view_noted = 1;
		kp_err("note: more than %u readers filter by process, cgroup or local port: until one of them ends, this one also counts what the others' filters let through",
		       KPROF_MAX_VIEWS);
	}
	return 0;
}

/* What of @want the module can do; notes or errors for the rest. */
static int choose_run(struct kp_session *s, unsigned int want)
{
	const struct kprof_info *i = &s->info;
	unsigned int can = 0;

	if (i->features & KPROF_FEAT_TCP_LATENCY)
		can |= KPROF_RUN_TCP;
	if (i->features & KPROF_FEAT_CPU_SAMPLING)
		can |= KPROF_RUN_CPU;
	s->run = want & can;
	if (!s->run) {
		if (want == KPROF_RUN_TCP)
			kp_err("kprofmod %.*s does not trace TCP latency (API %u.%u)",
			       KPROF_VERSION_LEN, i->version, i->api_major,
			       i->api_minor);
		else if (want == KPROF_RUN_CPU)
			kp_err("kprofmod %.*s cannot sample CPU stacks (API %u.%u)",
			       KPROF_VERSION_LEN, i->version, i->api_major,
			       i->api_minor);
		else
			kp_err("kprofmod %.*s can neither trace TCP latency nor sample CPU stacks (API %u.%u)",
			       KPROF_VERSION_LEN, i->version, i->api_major,
			       i->api_minor);
		return -1;
	}
	if (want & ~can & KPROF_RUN_CPU)
		kp_err("note: kprofmod %.*s cannot sample CPU stacks (API %u.%u): TCP latency only",
		       KPROF_VERSION_LEN, i->version, i->api_major,
		       i->api_minor);
	if (want & ~can & KPROF_RUN_TCP)
		kp_err("note: kprofmod %.*s does not trace TCP latency (API %u.%u): CPU samples only",
		       KPROF_VERSION_LEN, i->version, i->api_major,
		       i->api_minor);
	return 0;
}

/*
 * Snapshot and copy.  Returns 0 with @cum filled, 1 when the mapping
 * kept changing (printed), -1 on a fatal error (printed).
 *
 * The module evicts a row once every reader has taken a snapshot after
 * the one following the row's last change, counting on each reader to
 * copy the region between two of its snapshots.  So after a copy that
 * failed, the next read only copies: any later copy holds the counts of
 * the snapshot whose copy failed, and nothing is lost.
 */
static int read_region(struct kp_session *s, struct kp_snapshot *cum)
{
	char why[KP_SNAP_ERR_LEN];
	uint64_t gen;
	int ret;

	if (!s->copy_owed && snapshot_ioctl(s, &gen))
		return -1;
	ret = kp_snapshot_copy(s->map.base, s->map.size, cum, why,
			       sizeof(why));
	s->copy_owed = ret == -EAGAIN;
	if (ret == -EAGAIN) {
		kp_err("no window this time (the next one covers it): %s",
		       why);
		return 1;
	}
	if (ret) {
		kp_err("the module's snapshot mapping is corrupt: %s", why);
		return -1;
	}
	return 0;
}

/* A fresh baseline: windows start from this read. */
static int first_read(struct kp_session *s)
{
	struct kp_snapshot cum, none;
	int ret = 1, tries;

	kp_window_reset(&s->win);
	for (tries = 0; tries < 5; tries++) {
		ret = read_region(s, &cum);
		if (ret != 1)
			break;
	}
	if (ret)
		return -1;
	if (kp_window_next(&s->win, &cum, &none) < 0) {
		kp_err("out of memory");
		return -1;
	}
	return 0;
}

int kp_session_start(struct kp_session *s, const char *cmd,
		     const struct kp_sess_opts *o)
{
	struct kprof_config cfg = o->cfg;
	unsigned int start;

	memset(s, 0, sizeof(*s));
	s->cmd = cmd;
	s->tgid = o->cfg.tgid;
	s->fd = kprof_dev_open(&s->info);
	if (s->fd < 0)
		return KP_EXIT_FAIL;
	if (kp_map_open(s->fd, &s->info, &s->map))
		goto fail_close;
	if (choose_run(s, o->want))
		goto fail_unmap;
	if (cfg.cgroup_id && !(s->info.features & KPROF_FEAT_CGROUP)) {
		kp_err("kprofmod %.*s cannot filter by cgroup on its kernel (API %u.%u)",
		       KPROF_VERSION_LEN, s->info.version, s->info.api_major,
		       s->info.api_minor);
		goto fail_unmap;
	}

	/*
	 * The configuration is this session's (API 2.0): what runs is every
	 * holder's widened into one, and this one leaves with the session.
	 * A module that cannot sample takes no sampling rate (its bytes
	 * there are reserved and must be zero).
	 */
	if (!(s->run & KPROF_RUN_CPU))
		cfg.sample_hz = 0;
	if (kprof_dev_ioctl(s->fd, KPROF_IOC_SET_CONFIG, &cfg,
			    "KPROF_IOC_SET_CONFIG"))
		goto fail_unmap;
	s->cfg = cfg;
	/*
	 * This session holds all it measures, whoever else runs it, and the
	 * module stops it when the last holder is gone (even by SIGKILL).
	 */
	s->others = s->run & s->info.running;
	start = s->run;
	if (start) {
		if (ctl(s, KPROF_IOC_START, start, "KPROF_IOC_START"))
			goto fail_unmap;
		s->started = start;
	}
	/* The first read: the first window starts here. */
	if (first_read(s)) {
		kp_session_end(s, KP_EXIT_FAIL);
		return KP_EXIT_FAIL;
	}
	return 0;

fail_unmap:
	kp_map_close(&s->map);
fail_close:
	close(s->fd);
	s->fd = -1;
	return KP_EXIT_FAIL;
}

int kp_session_snapshot(struct kp_session *s, struct kp_snapshot *snap)
{
	struct kp_snapshot cum;
	int ret;

	ret = read_region(s, &cum);
	if (ret)
		return ret;
	ret = kp_window_next(&s->win, &cum, snap);
	if (ret < 0) {
		kp_err("out of memory");
		return -1;
	}
	if (!ret)
		kp_window_filter(snap, &s->cfg, s->view);
	return ret;
}

int kp_session_pause(struct kp_session *s)
{
	if (!s->started)
		return 0;
	return ctl(s, KPROF_IOC_STOP, s->started, "KPROF_IOC_STOP");
}

int kp_session_resume(struct kp_session *s)
{
	if (!s->started)
		return 0;
	if (ctl(s, KPROF_IOC_START, s->started, "KPROF_IOC_START"))
		return -1;
	return first_read(s);
}

int kp_session_end(struct kp_session *s, int ret)
{
	struct kprof_ctl c = { .size = sizeof(c), .what = s->started };

	if (s->fd < 0)
		return ret;
	/*
	 * Clean up even after a failure; its one line said what went wrong
	 * (say, the module went away), so do not add to it.
	 */
	if (s->started) {
		if (ret)
			kprof_dev_try(s->fd, KPROF_IOC_STOP, &c);
		else if (ctl(s, KPROF_IOC_STOP, s->started, "KPROF_IOC_STOP"))
			ret = KP_EXIT_FAIL;
		s->started = 0;
	}
	kp_window_reset(&s->win);
	kp_map_close(&s->map);
	close(s->fd);
	s->fd = -1;
	return ret;
}

/* --- stop signals and time ------------------------------------------ */

volatile sig_atomic_t kp_stop;

static void on_signal(int sig)
{
	(void)sig;
	kp_stop = 1;
}

void kp_signals_setup(sigset_t *waitmask)
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

uint64_t kp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * KP_NSEC_PER_SEC + ts.tv_nsec;
}

int kp_wait_until(uint64_t deadline, const sigset_t *waitmask)
{
	struct timespec ts;
	uint64_t now;

	while (!kp_stop) {
		now = kp_now_ns();
		if (now >= deadline)
			return 0;
		ts.tv_sec = (deadline - now) / KP_NSEC_PER_SEC;
		ts.tv_nsec = (deadline - now) % KP_NSEC_PER_SEC;
		ppoll(NULL, 0, &ts, waitmask);
	}
	return -1;
}
