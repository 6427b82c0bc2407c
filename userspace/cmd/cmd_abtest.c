// SPDX-License-Identifier: GPL-2.0
/*
 * kprof abtest: what does tracing cost this command?  Runs it with
 * kprofmod detached (A) and attached (B), alternately, and compares the
 * paired runs: the median slowdown, its spread, and whether it stands out
 * of the noise.
 *
 * Attached means what `kprof top` does: tracing and sampling started with
 * the given options, and a snapshot read once a second.  Each round runs
 * A and B back to back, in alternating order (AB, BA, ...), so slow drift
 * of the machine hits both alike.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <math.h>
#include <pwd.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "abtest.h"
#include "abtest_json.h"
#include "dev.h"
#include "kprof.h"
#include "opts.h"
#include "session.h"
#include "snapshot.h"
#include "stats.h"
#include "units.h"
#include "util.h"

#define DEFAULT_ROUNDS	10
#define MAX_ROUNDS	1000
#define MAX_WARMUP	100

struct ab_opts {
	uint64_t rounds;
	uint64_t warmup;
	int json;
	int verbose;
	char **argv;		/* the command */
	const char *user;	/* --user, or NULL */
	/* whom the command runs as: set by ab_user() */
	int as_other;		/* not as kprof's own user */
	uid_t uid;
	gid_t gid;
	char *name, *home, *shell;
	struct kp_sess_opts sess;
};

#define AB_SESS(row, ...)						\
	{ .ref = &kp_sess_rows[KP_SESS_ROW_##row],			\
	  .off = offsetof(struct ab_opts, sess), __VA_ARGS__ }

static const struct kp_opt ab_opts[] = {
	{ .name = "rounds", .arg = "N", .kind = KP_OPT_KIND_UINT, .min = 3,
	  .max = MAX_ROUNDS, .hint = "(3.." KP_STR(MAX_ROUNDS) ")",
	  .off = offsetof(struct ab_opts, rounds),
	  .help = "paired runs to compare (3..1000, default 10)" },
	{ .name = "warmup", .arg = "N", .kind = KP_OPT_KIND_UINT, .min = 0,
	  .max = MAX_WARMUP, .hint = "(0.." KP_STR(MAX_WARMUP) ")",
	  .off = offsetof(struct ab_opts, warmup),
	  .help = "unmeasured rounds first (0..100, default 1)" },
	{ .name = "json", .kind = KP_OPT_KIND_FLAG,
	  .off = offsetof(struct ab_opts, json),
	  .help = "one JSON object with every run's time" },
	{ .name = "verbose", .letter = 'v', .kind = KP_OPT_KIND_FLAG,
	  .off = offsetof(struct ab_opts, verbose),
	  .help = "keep COMMAND's output (default: /dev/null)" },
	{ .name = "user", .arg = "USER", .kind = KP_OPT_KIND_STRING,
	  .hint = "an empty user name", .off = offsetof(struct ab_opts, user),
	  .help = "run COMMAND as USER (default: under sudo, the\n"
		  "user who ran sudo; else kprof's own user, which\n"
		  "is root: COMMAND then runs as root, with kprof's\n"
		  "environment)" },
	/* listed together in the help, after these rows */
	AB_SESS(FREQ, .help = ""),
	AB_SESS(NO_CPU, .help = ""),
	AB_SESS(NO_TCP, .help = ""),
	AB_SESS(THRESHOLD, .help = ""),
	AB_SESS(PID, .help = ""),
	AB_SESS(CGROUP, .help = ""),
	AB_SESS(RPORT, .help = ""),
	AB_SESS(LPORT, .help = ""),
	AB_SESS(ROLE, .help = ""),
	AB_SESS(INET, .help = ""),
	AB_SESS(INET6, .help = ""),
	KP_OPT_END,
};

/*
 * Whom COMMAND runs as: --user USER (a name or a number), else, under
 * sudo, the user who ran sudo (SUDO_UID), else kprof's own user.  A
 * command that runs as root because kprof does would run with root's
 * power whatever the operator meant.  Returns -1, or KP_EXIT_USAGE
 * (printed).
 */
static int ab_user(struct ab_opts *o)
{
	const char *sudo = getenv("SUDO_UID");
	struct passwd *pw = NULL;
	unsigned long v;
	char *end;

	errno = 0;
	if (o->user) {
		pw = getpwnam(o->user);
		if (!pw) {
			v = strtoul(o->user, &end, 10);
			if (*o->user >= '0' && *o->user <= '9' && !*end &&
			    v <= UINT32_MAX - 1)
				pw = getpwuid((uid_t)v);
		}
		if (!pw) {
			kp_err("abtest: --user '%s': no such user", o->user);
			return KP_EXIT_USAGE;
		}
	} else if (sudo && getuid() == 0) {
		v = strtoul(sudo, &end, 10);
		if (*sudo && !*end)
			pw = getpwuid((uid_t)v);
	}
	if (!pw || pw->pw_uid == geteuid())
		return -1;
	if (geteuid() != 0) {
		kp_err("abtest: running COMMAND as %s needs root", pw->pw_name);
		return KP_EXIT_USAGE;
	}
	o->as_other = 1;
	o->uid = pw->pw_uid;
	o->gid = pw->pw_gid;
	o->name = strdup(pw->pw_name);
	o->home = strdup(pw->pw_dir);
	o->shell = strdup(pw->pw_shell);
	if (!o->name || !o->home || !o->shell) {
		kp_err("out of memory");
		return KP_EXIT_FAIL;
	}
	return -1;
}

/* In the child: become the user COMMAND runs as.  0, or -1. */
static int ab_become(const struct ab_opts *o)
{
	if (!o->as_other)
		return 0;
	if (initgroups(o->name, o->gid) || setgid(o->gid) || setuid(o->uid))
		return -1;
	setenv("HOME", o->home, 1);
	setenv("USER", o->name, 1);
	setenv("LOGNAME", o->name, 1);
	setenv("SHELL", o->shell, 1);
	return 0;
}

/* Returns -1 to run, else the exit status. */
static int ab_parse(int argc, char **argv, struct ab_opts *o)
{
	int ret;

	memset(o, 0, sizeof(*o));
	o->rounds = DEFAULT_ROUNDS;
	o->warmup = 1;
	kp_sess_opts_init(&o->sess);

	ret = kp_cmd_parse(&kp_cmd_abtest, o, argc, argv, 1);
	if (ret >= 0)
		return ret;
	if (optind >= argc) {
		kp_err("abtest: missing COMMAND (kprof abtest [OPTIONS] -- COMMAND [ARGS])");
		return KP_EXIT_USAGE;
	}
	o->argv = argv + optind;
	return ab_user(o);
}

/*
 * Wait for a child to change state, at most until @deadline (kp_now_ns()
 * time), in sigtimedwait() on @chld, SIGCHLD blocked by the caller: the
 * command's end is seen when it happens, not at the next tick of a poll.
 * A signal with a handler (SIGINT, SIGTERM) ends the wait early too.
 */
static void wait_chld(const sigset_t *chld, uint64_t deadline)
{
	uint64_t now = kp_now_ns(), left;
	struct timespec ts;

	left = deadline > now ? deadline - now : 0;
	ts.tv_sec = left / KP_NSEC_PER_SEC;
	ts.tv_nsec = left % KP_NSEC_PER_SEC;
	sigtimedwait(chld, NULL, &ts);
}

/*
 * Run the command once; its wall-clock time in @ns.  With @s, take a
 * snapshot once a second while it runs.  Returns 0, or KP_EXIT_FAIL
 * (printed) if it could not run or did not exit 0.
 */
static int run_once(const struct ab_opts *o, struct kp_session *s,
		    uint64_t *ns)
{
	uint64_t start, next_snap;
	struct kp_snapshot snap;
	sigset_t chld, old;
	int status, fd, ret;
	pid_t pid, w;

	fflush(NULL);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	start = kp_now_ns();
	pid = fork();
	if (pid < 0) {
		kp_err("abtest: fork: %s", strerror(errno));
		sigprocmask(SIG_SETMASK, &old, NULL);
		return KP_EXIT_FAIL;
	}
	if (!pid) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (!o->verbose) {
			fd = open("/dev/null", O_RDWR);
			if (fd >= 0) {
				dup2(fd, STDOUT_FILENO);
				dup2(fd, STDERR_FILENO);
			}
		}
		if (ab_become(o)) {
			dprintf(STDERR_FILENO, "kprof: abtest: cannot run as %s: %s\n",
				o->name, strerror(errno));
			_exit(127);
		}
		execvp(o->argv[0], o->argv);
		_exit(127);
	}
	next_snap = start + KP_NSEC_PER_SEC;
	ret = 0;
	for (;;) {
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			kp_err("abtest: waitpid: %s", strerror(errno));
			ret = KP_EXIT_FAIL;
			break;
		}
		if (kp_stop) {
			kill(pid, SIGTERM);
			waitpid(pid, NULL, 0);
			kp_err("abtest: stopped");
			ret = KP_EXIT_FAIL;
			break;
		}
		/* detached, the once-a-second deadline only bounds the wait */
		if (kp_now_ns() >= next_snap) {
			if (s) {
				if (kp_session_snapshot(s, &snap) < 0) {
					kill(pid, SIGKILL);
					waitpid(pid, NULL, 0);
					ret = KP_EXIT_FAIL;
					break;
				}
				kp_snapshot_free(&snap);
			}
			next_snap += KP_NSEC_PER_SEC;
		}
		wait_chld(&chld, next_snap);
	}
	*ns = kp_now_ns() - start;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (ret)
		return ret;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		kp_err("abtest: cannot run '%s'", o->argv[0]);
		return KP_EXIT_FAIL;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		if (WIFSIGNALED(status))
			kp_err("abtest: '%s' was killed by signal %d", o->argv[0],
			       WTERMSIG(status));
		else
			kp_err("abtest: '%s' exited with status %d: abtest needs a command that succeeds (-v shows its output)",
			       o->argv[0], WEXITSTATUS(status));
		return KP_EXIT_FAIL;
	}
	return 0;
}

static void ab_print(const struct ab_opts *o, const struct kp_ab_result *r)
{
	char a[KP_DURATION_LEN], b[KP_DURATION_LEN];
	unsigned int i;

	printf("abtest: %u rounds (+%" PRIu64 " warm-up) of:", r->rounds,
	       o->warmup);
	for (i = 0; o->argv[i]; i++)
		printf(" %s", o->argv[i]);
	printf("\n");
	printf("  detached  median %s  (run-to-run noise %.2f%%)\n",
	       kp_fmt_duration(a, sizeof(a), (uint64_t)(r->a_med * 1e9)),
	       100 * r->a_noise);
	printf("  attached  median %s\n",
	       kp_fmt_duration(b, sizeof(b), (uint64_t)(r->b_med * 1e9)));
	printf("  slowdown  median %+.2f%%, quartiles %+.2f%% .. %+.2f%%, range %+.2f%% .. %+.2f%%\n",
	       100 * r->slow_med, 100 * r->slow_q1, 100 * r->slow_q3,
	       100 * r->slow_min, 100 * r->slow_max);
	printf("            attached slower in %u of %u rounds (sign test p = %.3g)\n",
	       r->b_slower, r->rounds, r->p);
	if (r->within_noise)
		printf("  verdict   within noise: no overhead this run can tell apart\n");
	else
		printf("  verdict   overhead %+.2f%% (median of paired runs)\n",
		       100 * r->slow_med);
}


/*
 * A detached run is one with nothing of what the attached runs trace
 * running: another reader's session that starts meanwhile (it holds
 * what it starts, whatever this one pauses) spoils the comparison.
 */
static int detached_idle(struct kp_session *s)
{
	struct kprof_info info;

	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	if (kprof_dev_ioctl(s->fd, KPROF_IOC_GET_INFO, &info,
			    "KPROF_IOC_GET_INFO"))
		return -1;
	if (info.running & s->run) {
		kp_err("abtest: another reader started tracing or sampling during the detached runs (`kprof status` shows it): the comparison is void");
		return -1;
	}
	return 0;
}

/* One run, attached or not: toggles the session around it. */
static int run_one(const struct ab_opts *o, struct kp_session *s,
		   int attached, uint64_t *ns)
{
	if (attached && kp_session_resume(s))
		return KP_EXIT_FAIL;
	if (!attached && detached_idle(s))
		return KP_EXIT_FAIL;
	if (run_once(o, attached ? s : NULL, ns))
		return KP_EXIT_FAIL;
	if (!attached && detached_idle(s))
		return KP_EXIT_FAIL;
	if (attached && kp_session_pause(s))
		return KP_EXIT_FAIL;
	return 0;
}

static int abtest_run(int argc, char **argv)
{
	struct kp_ab_result r = { 0 };
	struct kp_session s;
	struct ab_opts o;
	uint64_t i, ns;
	sigset_t waitmask;
	int ret, side;

	ret = ab_parse(argc, argv, &o);
	if (ret >= 0)
		return ret;
	kp_signals_setup(&waitmask);
	sigprocmask(SIG_SETMASK, &waitmask, NULL);

	ret = kp_session_start(&s, "abtest", &o.sess);
	if (ret)
		return ret;
	if (s.others) {
		kp_err("abtest: kprofmod is already tracing or sampling (another reader?): abtest needs it idle to measure without it");
		return kp_session_end(&s, KP_EXIT_FAIL);
	}
	ret = KP_EXIT_FAIL;
	if (kp_session_pause(&s))
		goto out;

	r.rounds = o.rounds;
	r.a = calloc(o.rounds, sizeof(double));
	r.b = calloc(o.rounds, sizeof(double));
	r.slow = calloc(o.rounds, sizeof(double));
	if (!r.a || !r.b || !r.slow) {
		kp_err("abtest: out of memory");
		goto out;
	}
	for (i = 0; i < o.warmup; i++)
		for (side = 0; side < 2; side++)
			if (run_one(&o, &s, (int)((i + side) & 1), &ns))
				goto out;
	for (i = 0; i < o.rounds; i++) {
		for (side = 0; side < 2; side++) {
			int attached = (int)((i + side) & 1);

			if (run_one(&o, &s, attached, &ns))
				goto out;
			(attached ? r.b : r.a)[i] = (double)ns / 1e9;
		}
	}
	kp_ab_analyse(&r);
	if (o.json)
		kp_ab_json(o.argv, o.warmup, &r);
	else
		ab_print(&o, &r);
	ret = 0;
out:
	free(r.a);
	free(r.b);
	free(r.slow);
	free(o.name);
	free(o.home);
	free(o.shell);
	return kp_session_end(&s, ret);
}

const struct kp_cmd kp_cmd_abtest = {
	.name = "abtest",
	.summary = "measure what tracing costs a command: runs with and without",
	.usage = "kprof abtest [--rounds N] [--warmup N] [--json] [-v] [--user USER]\n"
		 "                    [--freq HZ]\n"
		 "                    [--no-cpu] [--no-tcp] [FILTERS] -- COMMAND [ARGS]\n",
	.opts = ab_opts,
	.help =	 "      --freq, --no-cpu, --no-tcp, --threshold, -p, --cgroup, --rport,\n"
		 "      --lport, --role, -4, -6: what \"attached\" traces, as for top\n"
		 "\n"
		 "Each round runs COMMAND detached (kprofmod loaded, nothing started) and\n"
		 "attached (tracing and sampling started, a snapshot read every second, as\n"
		 "`kprof top` does), in alternating order.  Reported: median times, the\n"
		 "median slowdown of the paired runs with its quartiles and range, and a\n"
		 "verdict.  The difference is \"within noise\" unless the attached run was\n"
		 "slower consistently (two-sided sign test, p < 0.05) and by more than the\n"
		 "detached runs' own spread (median absolute deviation).  COMMAND must exit\n"
		 "0 every time.  kprofmod must be idle when abtest starts.\n",
	.run = abtest_run,
};
