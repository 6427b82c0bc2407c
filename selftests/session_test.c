// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions (API 1.9): every open file of /dev/kprof is one; what runs is
 * what the open sessions hold.  A session's release (the last close, at
 * exit or on SIGKILL) stops what it held unless another session holds it
 * too; STOP stops only what the caller's session holds; the sessions are
 * listed with their opener.  Without the capability, a descriptor passed
 * over a socket does nothing.
 */
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "tcp_test.h"
#include "cpu_spin.h"

#define MS	1000000ull

/* KPROF_IOC_GET_SESSIONS into a new buffer (free it), or NULL. */
static struct kprof_sessions *get_sessions(int fd)
{
	struct kprof_sessions *ss = calloc(1, sizeof(*ss));

	if (!ss)
		return NULL;
	if (kprof_get_sessions(fd, ss)) {
		free(ss);
		return NULL;
	}
	return ss;
}

/* The session opened by @tgid in @ss, or NULL. */
static const struct kprof_session_info *
session_of(const struct kprof_sessions *ss, pid_t tgid)
{
	unsigned int i;

	for (i = 0; i < ss->nr_listed && i < KPROF_SESSIONS_MAX; i++)
		if (ss->s[i].tgid == (uint32_t)tgid)
			return &ss->s[i];
	return NULL;
}

static int open_dev(void)
{
	return open(KPROF_TEST_DEV, O_RDONLY | O_CLOEXEC);
}

/*
 * A child that opens its own session, starts @what at 99 Hz, says so on
 * @ready and waits to be killed (or for @go, then exits).  Its pid.
 */
static pid_t holder_start(unsigned int what, int *ready, int *go)
{
	int r[2], g[2];
	pid_t pid;
	char c;

	if (pipe(r) || pipe(g))
		return -1;
	pid = fork();
	if (pid == 0) {
		struct kprof_config cfg = { .sample_hz = 99,
					    .threshold_ns = 100000 * MS };
		int fd;

		/* the name the session keeps is the opener's at open */
		prctl(PR_SET_NAME, "kp-holder");
		fd = open_dev();
		close(r[0]);
		close(g[1]);
		c = fd >= 0 && !kprof_set_config(fd, &cfg) &&
		    !kprof_control(fd, KPROF_IOC_START, what) ? 'y' : 'n';
		if (write(r[1], &c, 1) != 1)
			_exit(1);
		/* until killed, or told to go */
		while (read(g[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(r[1]);
	close(g[0]);
	*ready = r[0];
	*go = g[1];
	return pid;
}

/* The holder's word: 1 when it started what it was asked, else 0. */
static int holder_ready(int ready)
{
	char c = 0;

	return read(ready, &c, 1) == 1 && c == 'y';
}

/* Requests and samples counted, to tell whether anything still runs. */
struct counted {
	uint64_t requests, samples;
};

static int counted(int fd, struct counted *c)
{
	struct kprof_stats st;

	if (kprof_get_stats(fd, &st))
		return -1;
	c->requests = st.requests;
	c->samples = st.samples + st.samples_idle;
	return 0;
}

/* 50 loopback requests and 200 ms of CPU: what would be counted */
static int work(void)
{
	struct server srv = { .respond = 1 };
	uint8_t buf[REQ_LEN] = { 0 };
	int i, fd, ret = -1;

	if (server_start(&srv, AF_INET, 0))
		return -1;
	fd = client_connect(AF_INET, srv.port);
	if (fd < 0)
		goto out;
	for (i = 0; i < 50; i++)
		if (write(fd, buf, sizeof(buf)) != sizeof(buf) ||
		    read_full(fd, buf, sizeof(buf)))
			break;
	close(fd);
	spin_75_25(0.2);
	ret = i == 50 ? 0 : -1;
out:
	server_stop(&srv);
	return ret;
}

/* What the module counted of work(): requests and samples, into @d. */
static int counted_of_work(int fd, struct counted *d)
{
	struct counted a, b;

	if (counted(fd, &a) || work() || counted(fd, &b))
		return -1;
	d->requests = b.requests - a.requests;
	d->samples = b.samples - a.samples;
	return 0;
}

/* What runs, how many sessions hold each, and how many are open. */
static void expect_held(struct __test_metadata *_metadata, int fd,
			unsigned int running, unsigned int tcp,
			unsigned int cpu, unsigned int sessions, int step)
{
	struct kprof_info info;

	ASSERT_EQ(0, kprof_get_info(fd, &info));
	EXPECT_EQ(running, info.running) TH_LOG("step %d", step);
	EXPECT_EQ(tcp, info.holders_tcp) TH_LOG("step %d", step);
	EXPECT_EQ(cpu, info.holders_cpu) TH_LOG("step %d", step);
	EXPECT_EQ(sessions, info.sessions) TH_LOG("step %d", step);
}

FIXTURE(session) {
	int fd;
};

/*
 * Every test starts with nothing running and nothing held: the test
 * programs before this one closed their sessions, and that alone must
 * have stopped whatever they started.
 */
FIXTURE_SETUP(session)
{
	struct kprof_info info;

	ASSERT_EQ(0, kprof_test_load());
	self->fd = open_dev();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, kprof_get_info(self->fd, &info));
	if (info.api_major != KPROF_API_MAJOR)
		SKIP(return, "module API %u.%u: not this test's",
		     info.api_major, info.api_minor);
	ASSERT_EQ(0, info.running);
	ASSERT_EQ(0, info.holders_tcp);
	ASSERT_EQ(0, info.holders_cpu);
}

FIXTURE_TEARDOWN(session)
{
	close(self->fd);
}

/*
 * SIGKILL of a process that started tracing and sampling: its release
 * stops both, nothing is counted any more, and its session is gone from
 * the list.  While it lived, the list named it.
 */
TEST_F(session, kill_stops_what_it_held)
{
	const struct kprof_session_info *si;
	struct kprof_sessions *ss;
	struct counted d;
	int ready, go, st;
	pid_t pid;

	pid = holder_start(KPROF_RUN_ALL, &ready, &go);
	ASSERT_LT(0, pid);
	ASSERT_EQ(1, holder_ready(ready));
	expect_held(_metadata, self->fd, KPROF_RUN_ALL, 1, 1, 2, 1);
	ss = get_sessions(self->fd);
	ASSERT_NE(NULL, ss);
	EXPECT_EQ(2, ss->nr);
	EXPECT_EQ(2, ss->nr_listed);
	si = session_of(ss, pid);
	ASSERT_NE(NULL, si);
	EXPECT_EQ(KPROF_RUN_ALL, si->held);
	EXPECT_STREQ("kp-holder", si->comm);
	EXPECT_EQ(0, si->self);
	EXPECT_LT(0, si->started_ns);
	EXPECT_LE(si->opened_ns, si->started_ns);
	EXPECT_GE(now_ns(), si->started_ns);
	si = session_of(ss, getpid());
	ASSERT_NE(NULL, si);
	EXPECT_EQ(1, si->self);
	EXPECT_EQ(0, si->held);
	EXPECT_EQ(0, si->started_ns);
	free(ss);
	/* it counts while the holder lives */
	ASSERT_EQ(0, counted_of_work(self->fd, &d));
	EXPECT_LT(0, d.requests);
	EXPECT_LT(0, d.samples);

	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFSIGNALED(st));
	close(ready);
	close(go);
	/* the release ran in its exit, before the parent could reap it */
	expect_held(_metadata, self->fd, 0, 0, 0, 1, 2);
	ss = get_sessions(self->fd);
	ASSERT_NE(NULL, ss);
	EXPECT_EQ(1, ss->nr);
	EXPECT_EQ(NULL, session_of(ss, pid));
	free(ss);
	ASSERT_EQ(0, counted_of_work(self->fd, &d));
	EXPECT_EQ(0, d.requests);
	EXPECT_EQ(0, d.samples);
}

/*
 * STOP stops only what the caller's session holds: another process's
 * STOP, or a session that holds nothing of it, leaves it running.
 */
TEST_F(session, stop_leaves_other_sessions_running)
{
	int ready, go, st, b = open_dev();
	pid_t pid, other;

	ASSERT_LE(0, b);
	pid = holder_start(KPROF_RUN_ALL, &ready, &go);
	ASSERT_LT(0, pid);
	ASSERT_EQ(1, holder_ready(ready));

	/* a second session of this process: holds TCP, stops everything */
	ASSERT_EQ(0, kprof_control(b, KPROF_IOC_START, KPROF_RUN_TCP));
	expect_held(_metadata, self->fd, KPROF_RUN_ALL, 2, 1, 3, 3);
	ASSERT_EQ(0, kprof_control(b, KPROF_IOC_STOP, KPROF_RUN_ALL));
	/* idempotent */
	ASSERT_EQ(0, kprof_control(b, KPROF_IOC_STOP, KPROF_RUN_ALL));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_STOP, KPROF_RUN_ALL));
	expect_held(_metadata, self->fd, KPROF_RUN_ALL, 1, 1, 3, 4);

	/* another privileged process, its own session: STOP all */
	other = fork();
	if (other == 0) {
		int fd = open_dev();

		_exit(fd >= 0 &&
		      !kprof_control(fd, KPROF_IOC_STOP, KPROF_RUN_ALL) ? 0 : 1);
	}
	ASSERT_EQ(other, waitpid(other, &st, 0));
	ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	expect_held(_metadata, self->fd, KPROF_RUN_ALL, 1, 1, 3, 5);

	/* the holder exits on its own: the same as a kill */
	ASSERT_EQ(1, write(go, "x", 1));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st));
	expect_held(_metadata, self->fd, 0, 0, 0, 2, 6);
	close(ready);
	close(go);
	close(b);
}

/*
 * Eight sessions in one process start overlapping sets and close in
 * another order: after every step, what runs is what the open sessions
 * hold, and the holders are counted right.
 */
TEST_F(session, eight_sessions_hold_and_release)
{
	static const unsigned int order[8] = { 3, 0, 6, 1, 7, 4, 2, 5 };
	unsigned int held[8], want, tcp, cpu, i, k;
	unsigned int seed = 22;
	struct kprof_info info;
	int fd[8];

	for (i = 0; i < 8; i++) {
		fd[i] = open_dev();
		ASSERT_LE(0, fd[i]);
		held[i] = rand_r(&seed) % 4;	/* none, TCP, CPU or both */
		if (held[i])
			ASSERT_EQ(0, kprof_control(fd[i], KPROF_IOC_START,
						   held[i]));
	}
	ASSERT_EQ(0, kprof_get_info(self->fd, &info));
	EXPECT_EQ(9, info.sessions);
	for (k = 0; k <= 8; k++) {
		want = tcp = cpu = 0;
		for (i = 0; i < 8; i++) {
			if (fd[i] < 0)
				continue;
			want |= held[i];
			tcp += !!(held[i] & KPROF_RUN_TCP);
			cpu += !!(held[i] & KPROF_RUN_CPU);
		}
		expect_held(_metadata, self->fd, want, tcp, cpu, 9 - k, 100 + k);
		if (k < 8) {
			close(fd[order[k]]);
			fd[order[k]] = -1;
		}
	}
}

/*
 * Eight readers snapshot at once, each in its own session: a snapshot
 * that began after a call did serves that call too (group commit), so
 * they wait for fewer grace periods than they make calls; and every call
 * returns a generation published by a snapshot that began after it did.
 */
TEST_F(session, snapshots_at_once_share_grace_periods)
{
	enum { READERS = 8, CALLS = 25 };
	const struct kprof_mmap_header *h;
	struct kprof_info info;
	uint64_t g0, taken;
	int i, status;
	pid_t pid[READERS];

	ASSERT_EQ(0, kprof_get_info(self->fd, &info));
	h = mmap(NULL, info.mmap_size, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, h);
	g0 = __atomic_load_n(&h->generation, __ATOMIC_ACQUIRE);
	for (i = 0; i < READERS; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (pid[i] == 0) {
			const struct kprof_mmap_header *m = MAP_FAILED;
			int fd = open_dev(), n, late = 0;

			/* the mapping is not inherited (VM_DONTCOPY) */
			if (fd >= 0)
				m = mmap(NULL, info.mmap_size, PROT_READ,
					 MAP_SHARED, fd, 0);
			if (m == MAP_FAILED)
				_exit(2);
			for (n = 0; n < CALLS; n++) {
				struct kprof_snapshot sn;
				uint64_t before;

				before = __atomic_load_n(&m->generation,
							 __ATOMIC_ACQUIRE);
				if (kprof_take_snapshot(fd, &sn))
					_exit(2);
				/* odd before: that snapshot cannot serve us */
				late += (sn.generation & 1) ||
					sn.generation < before + 2 + (before & 1);
			}
			_exit(late ? 1 : 0);
		}
	}
	for (i = 0; i < READERS; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			TH_LOG("reader %d: status 0x%x (exit 1: a generation from before its call)",
			       i, status);
		}
	}
	taken = (__atomic_load_n(&h->generation, __ATOMIC_ACQUIRE) - g0) / 2;
	TH_LOG("%d calls, %llu snapshots taken", READERS * CALLS,
	       (unsigned long long)taken);
	EXPECT_GE(READERS * CALLS * 3 / 4, taken);
	EXPECT_LE(CALLS, taken);
	munmap((void *)h, info.mmap_size);
}

/*
 * Readers with filters of their own (a view each) come and go at 100 Hz
 * beside one that holds tracing: each one's START and close change the
 * configuration, and installing one waits for no grace period.  When it
 * waited for two, a session took 28 to 32 ms under emulation (100 took
 * 2.8 to 3.2 s); without, 0.03 to 0.08 ms (3.6 ms on the debug kernel):
 * 100 must take under a second.
 */
TEST_F(session, sessions_with_views_come_and_go_at_100_hz)
{
	enum { SESSIONS = 100 };
	struct kprof_config cfg = { .tgid = getpid() };
	struct kprof_info info;
	uint64_t t0, ns;
	int i, fd;

	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	t0 = now_ns();
	for (i = 0; i < SESSIONS; i++) {
		fd = open_dev();
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, kprof_set_config(fd, &cfg));
		ASSERT_EQ(0, kprof_control(fd, KPROF_IOC_START, KPROF_RUN_TCP));
		close(fd);
	}
	ns = now_ns() - t0;
	TH_LOG("%d sessions with a view: %.3f ms each", SESSIONS,
	       ns / 1e6 / SESSIONS);
	EXPECT_GT(1000 * MS, ns);
	/* every one of them gone, its view with it */
	ASSERT_EQ(0, kprof_get_info(self->fd, &info));
	EXPECT_EQ(1, info.sessions);
	EXPECT_EQ(1, info.holders_tcp);
}

/*
 * A descriptor shared with a child (fork): the file's release comes
 * with its last close, so what it started runs until the child is gone
 * too.
 */
TEST_F(session, shared_file_released_by_its_last_holder)
{
	int fd = open_dev(), p[2], st;
	pid_t pid;
	char c;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, kprof_control(fd, KPROF_IOC_START, KPROF_RUN_TCP));
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		while (read(p[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	ASSERT_LT(0, pid);
	close(p[0]);
	close(fd);
	expect_held(_metadata, self->fd, KPROF_RUN_TCP, 1, 0, 2, 8);
	close(p[1]);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	expect_held(_metadata, self->fd, 0, 0, 0, 1, 9);
}

/*
 * A privileged reader passes its descriptor over a socket to a process
 * without capabilities: that process can neither read the sessions nor
 * stop, start, reset or reconfigure anything through it.
 */
TEST_F(session, passed_descriptor_without_capability_does_nothing)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = "f", .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	int sv[2], st, fd = open_dev();
	pid_t pid;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kprof_control(fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	pid = fork();
	if (pid == 0) {
		struct kprof_config cfg = { .size = sizeof(cfg) };
		struct kprof_ctl ctl = { .size = sizeof(ctl) };
		struct kprof_sessions *ss = calloc(1, sizeof(*ss));
		int got, bad = 0;
		char b;

		close(sv[0]);
		if (!ss || kprof_test_drop_caps())
			_exit(10);
		iov.iov_base = &b;
		if (recvmsg(sv[1], &msg, 0) != 1)
			_exit(11);
		cm = CMSG_FIRSTHDR(&msg);
		if (!cm || cm->cmsg_type != SCM_RIGHTS)
			_exit(12);
		memcpy(&got, CMSG_DATA(cm), sizeof(got));
		ss->size = sizeof(*ss);
		bad |= !ioctl(got, KPROF_IOC_GET_SESSIONS, ss) || errno != EPERM;
		ctl.what = KPROF_RUN_ALL;
		bad |= !ioctl(got, KPROF_IOC_STOP, &ctl) || errno != EPERM;
		bad |= !ioctl(got, KPROF_IOC_START, &ctl) || errno != EPERM;
		ctl.what = KPROF_RESET_STACKS;
		bad |= !ioctl(got, KPROF_IOC_RESET, &ctl) || errno != EPERM;
		bad |= !ioctl(got, KPROF_IOC_SET_CONFIG, &cfg) || errno != EPERM;
		bad |= mmap(NULL, 4096, PROT_READ, MAP_SHARED, got, 0) !=
		       MAP_FAILED || errno != EPERM;
		/* and its close, while the sender still has it, stops nothing */
		close(got);
		_exit(bad ? 13 : 0);
	}
	ASSERT_LT(0, pid);
	close(sv[1]);
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(fd));
	ASSERT_EQ(1, sendmsg(sv[0], &msg, 0));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	close(sv[0]);
	expect_held(_metadata, self->fd, KPROF_RUN_TCP, 1, 0, 2, 10);
	close(fd);
	expect_held(_metadata, self->fd, 0, 0, 0, 1, 11);
}

/*
 * A rate change that can restart sampling at neither rate leaves it
 * stopped: then no session holds it any more (what runs is what the
 * sessions hold), and a START starts it again.  The failure is real:
 * kprof_peer makes every CPU's sampling event fail.  Since API 2.0 the
 * rate is the highest any session holding something asked for: the
 * session asking for 250 Hz holds tracing.
 */
TEST_F(session, sampling_lost_by_a_rate_change_is_held_by_none)
{
	struct kprof_config cfg = { .threshold_ns = 100000 * MS,
				    .sample_hz = 250 };
	const struct kprof_session_info *si;
	struct kprof_sessions *ss;
	int ready, go, st, ret;
	pid_t pid;

	ASSERT_EQ(0, kprof_test_peer_load())
		TH_LOG("KPROF_PEER_KO: make peer-module");
	pid = holder_start(KPROF_RUN_ALL, &ready, &go);
	ASSERT_LT(0, pid);
	ASSERT_EQ(1, holder_ready(ready));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, kprof_test_write_file(KPROF_TEST_PEER_FAIL, "-2"));
	ret = kprof_set_config(self->fd, &cfg);
	EXPECT_EQ(0, kprof_test_write_file(KPROF_TEST_PEER_FAIL, "-1"));
	EXPECT_NE(0, ret);
	expect_held(_metadata, self->fd, KPROF_RUN_TCP, 2, 0, 2, 1);
	ss = get_sessions(self->fd);
	ASSERT_NE(NULL, ss);
	si = session_of(ss, pid);
	ASSERT_NE(NULL, si);
	EXPECT_EQ(KPROF_RUN_TCP, si->held);
	free(ss);
	/* a START starts it again, held by the session that asked */
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_CPU));
	expect_held(_metadata, self->fd, KPROF_RUN_ALL, 2, 1, 2, 2);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	expect_held(_metadata, self->fd, KPROF_RUN_ALL, 1, 1, 1, 3);
	close(ready);
	close(go);
	EXPECT_EQ(0, system("rmmod kprof_peer"));
}

/*
 * API 2.0: each session's configuration is its own; what runs is the
 * holders' widened into one (ports and roles joined, the lowest
 * threshold, the highest rate), a session holding nothing changes
 * nothing, and a session's configuration leaves with it.
 */
TEST_F(session, configurations_widen_and_leave_with_their_session)
{
	struct kprof_config mine = { .threshold_ns = 5 * MS, .sample_hz = 49,
				     .roles = 1U << KPROF_ROLE_CLIENT,
				     .nr_rports = 1, .rports = { 443 } };
	struct kprof_config other = mine, got;
	int fd2 = open_dev(), fd3, st;
	int ready, go;
	pid_t pid;

	ASSERT_LE(0, fd2);
	/* the holder's: threshold 100 s, 99 Hz, every port and role */
	pid = holder_start(KPROF_RUN_TCP, &ready, &go);
	ASSERT_LT(0, pid);
	ASSERT_EQ(1, holder_ready(ready));

	/* held by nobody else: mine changes nothing yet */
	ASSERT_EQ(0, kprof_set_config(self->fd, &mine));
	ASSERT_EQ(0, kprof_get_config(self->fd, &got));
	EXPECT_EQ(100000 * MS, got.threshold_ns);
	EXPECT_EQ(99, got.sample_hz);

	/* holding: the lower threshold runs; ports and roles stay all */
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, kprof_get_config(self->fd, &got));
	EXPECT_EQ(5 * MS, got.threshold_ns);
	EXPECT_EQ(99, got.sample_hz);
	EXPECT_EQ(0, got.nr_rports);
	EXPECT_EQ(0, got.roles);

	/* the holder gone: mine alone runs */
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	close(ready);
	close(go);
	ASSERT_EQ(0, kprof_get_config(self->fd, &got));
	EXPECT_EQ(5 * MS, got.threshold_ns);
	EXPECT_EQ(1, got.nr_rports);
	EXPECT_EQ(443, got.rports[0]);
	EXPECT_EQ(1U << KPROF_ROLE_CLIENT, got.roles);

	/* a second holder: ports joined, the higher rate, roles joined */
	other.rports[0] = 8443;
	other.threshold_ns = 50 * MS;
	other.roles = 1U << KPROF_ROLE_SERVER;
	ASSERT_EQ(0, kprof_set_config(fd2, &other));
	ASSERT_EQ(0, kprof_control(fd2, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, kprof_get_config(self->fd, &got));
	EXPECT_EQ(5 * MS, got.threshold_ns);
	EXPECT_EQ(2, got.nr_rports);
	EXPECT_EQ((1U << KPROF_ROLE_CLIENT) | (1U << KPROF_ROLE_SERVER),
		  got.roles);

	/* mine leaves with my session: the other's runs */
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_STOP, KPROF_RUN_TCP));
	ASSERT_EQ(0, kprof_get_config(fd2, &got));
	EXPECT_EQ(50 * MS, got.threshold_ns);
	EXPECT_EQ(1, got.nr_rports);
	EXPECT_EQ(8443, got.rports[0]);

	/* a holder that set nothing asks for the defaults: every port, 1 ms */
	fd3 = open_dev();
	ASSERT_LE(0, fd3);
	ASSERT_EQ(0, kprof_control(fd3, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, kprof_get_config(fd2, &got));
	EXPECT_EQ(1 * MS, got.threshold_ns);
	EXPECT_EQ(0, got.nr_rports);
	close(fd3);
	close(fd2);
}

/* A snapshot through @fd: the caller's view (API 3.0), or -1. */
static int snapshot_view(int fd)
{
	struct kprof_snapshot sn;

	if (kprof_take_snapshot(fd, &sn))
		return -1;
	return sn.view;
}

/* Requests completed in @ex's window to @rport in @role, marked with @view. */
static uint64_t view_count(const struct export *ex, uint16_t rport, int role,
			   int view)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < ex->hdr->nr_tcp_rows; i++) {
		const struct kprof_tcp_row *r = &ex->rows[i];

		if ((rport && r->rport != rport) || r->role != role)
			continue;
		if (view && !(r->views & (1U << (view - 1))))
			continue;
		n += r->count;
	}
	return n;
}

/*
 * API 3.0 views: three readers trace at once, one filtering by process,
 * one by local port, one on nothing.  The module runs the widest (every
 * process and port), and marks each request with the views whose filters
 * it passed: the process's reader finds exactly the child's requests,
 * the local port's reader exactly the server side of its port, and the
 * third reader, which has no view, all of them.
 */
TEST_F(session, views_keep_each_readers_process_and_local_port)
{
	const uint64_t n1 = 5, n2 = 7;
	struct server s1 = { .respond = 1 }, s2 = { .respond = 1 };
	struct kprof_config by_pid = { .threshold_ns = 100000 * MS };
	struct kprof_config by_lport = by_pid, none = by_pid;
	int fd_pid = open_dev(), fd_lport = open_dev();
	int go[2], st, c, vp, vl, i;
	struct sockaddr_in me;
	socklen_t len = sizeof(me);
	struct export ex;
	uint16_t cport;
	char b = 0;
	pid_t pid;

	ASSERT_LE(0, fd_pid);
	ASSERT_LE(0, fd_lport);
	ASSERT_EQ(0, server_start(&s1, AF_INET, 0));
	ASSERT_EQ(0, server_start(&s2, AF_INET, 0));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(1);
		c = client_connect(AF_INET, s1.port);
		for (i = 0; c >= 0 && i < (int)n1; i++)
			if (!client_request(c))
				_exit(1);
		_exit(c < 0);
	}
	close(go[0]);

	by_pid.tgid = pid;
	by_lport.nr_lports = 1;
	by_lport.lports[0] = s2.port;
	ASSERT_EQ(0, kprof_set_config(fd_pid, &by_pid));
	ASSERT_EQ(0, kprof_set_config(fd_lport, &by_lport));
	ASSERT_EQ(0, kprof_set_config(self->fd, &none));
	ASSERT_EQ(0, kprof_control(fd_pid, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, kprof_control(fd_lport, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, export_map(self->fd, &ex));
	ASSERT_EQ(0, kp_snapshot(self->fd));

	/* the child's requests to s1, then ours to s2 */
	ASSERT_EQ(1, write(go[1], &b, 1));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_EQ(0, st);
	c = client_connect(AF_INET, s2.port);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, getsockname(c, (struct sockaddr *)&me, &len));
	cport = ntohs(me.sin_port);
	for (i = 0; i < (int)n2; i++)
		ASSERT_NE(0, client_request(c));
	close(c);
	server_stop(&s1);
	server_stop(&s2);
	ASSERT_EQ(0, kp_snapshot(self->fd));

	vp = snapshot_view(fd_pid);
	vl = snapshot_view(fd_lport);
	TH_LOG("views: by pid %d, by local port %d, none %d", vp, vl,
	       snapshot_view(self->fd));
	ASSERT_LE(1, vp);
	ASSERT_GE(KPROF_MAX_VIEWS, vp);
	ASSERT_LE(1, vl);
	ASSERT_GE(KPROF_MAX_VIEWS, vl);
	EXPECT_NE(vp, vl);
	EXPECT_EQ(0, snapshot_view(self->fd));

	/* the widest runs: everything, for the reader with no view */
	EXPECT_EQ(n1, view_count(&ex, s1.port, KPROF_ROLE_CLIENT, 0));
	EXPECT_EQ(n2, view_count(&ex, s2.port, KPROF_ROLE_CLIENT, 0));
	/* the child's requests, and no other client's, are the pid's */
	EXPECT_EQ(n1, view_count(&ex, 0, KPROF_ROLE_CLIENT, vp));
	EXPECT_EQ(0, view_count(&ex, 0, KPROF_ROLE_SERVER, vp));
	/* s2's server side, and no client's, is the local port's */
	EXPECT_EQ(0, view_count(&ex, 0, KPROF_ROLE_CLIENT, vl));
	EXPECT_LT(0, view_count(&ex, cport, KPROF_ROLE_SERVER, 0));
	EXPECT_EQ(view_count(&ex, cport, KPROF_ROLE_SERVER, 0),
		  view_count(&ex, 0, KPROF_ROLE_SERVER, vl));
	export_unmap(&ex);
	close(go[1]);
	close(fd_pid);
	close(fd_lport);
}

/*
 * A reader that starts while a request is under way: the request found
 * no view at its start, and the reader's view is checked at its end
 * instead, so it counts in the reader's window like every other request
 * of its process.  Before, it counted for no view.
 */
TEST_F(session, a_view_counts_a_request_under_way_when_it_began)
{
	struct server s = { .respond = 1 };
	struct kprof_config mine = { .threshold_ns = 100000 * MS,
				     .tgid = getpid() };
	struct kprof_config none = { .threshold_ns = 100000 * MS };
	char buf[REQ_LEN] = "kprof request";
	int fd = open_dev(), c, v;
	struct export ex;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, server_start(&s, AF_INET, 0));
	ASSERT_EQ(0, kprof_set_config(self->fd, &none));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, export_map(self->fd, &ex));
	c = client_connect(AF_INET, s.port);
	ASSERT_LE(0, c);
	/* under way before the reader starts: no view yet */
	ASSERT_EQ(sizeof(buf), send(c, buf, sizeof(buf), MSG_NOSIGNAL));
	ASSERT_EQ(0, kprof_set_config(fd, &mine));
	ASSERT_EQ(0, kprof_control(fd, KPROF_IOC_START, KPROF_RUN_TCP));
	v = snapshot_view(fd);
	ASSERT_LE(1, v);
	ASSERT_GE(KPROF_MAX_VIEWS, v);
	ASSERT_EQ(0, kp_snapshot(self->fd));
	/* it ends in the reader's window: the response is read now */
	ASSERT_EQ(0, read_full(c, buf, sizeof(buf)));
	/* and one more, started and ended under the view */
	ASSERT_NE(0, client_request(c));
	close(c);
	server_stop(&s);
	ASSERT_EQ(0, kp_snapshot(self->fd));
	EXPECT_EQ(2, view_count(&ex, s.port, KPROF_ROLE_CLIENT, 0));
	EXPECT_EQ(2, view_count(&ex, s.port, KPROF_ROLE_CLIENT, v));
	export_unmap(&ex);
	close(fd);
}

/*
 * KPROF_MAX_VIEWS sessions filtering by process take every view: the
 * next one has none (KPROF_VIEW_NONE) and gets the first to free up,
 * while the others keep theirs.
 */
TEST_F(session, a_session_past_the_views_gets_the_first_freed)
{
	struct kprof_config cfg = { .threshold_ns = 100000 * MS };
	int fd[KPROF_MAX_VIEWS + 1], view[KPROF_MAX_VIEWS + 1], i, freed;

	for (i = 0; i <= KPROF_MAX_VIEWS; i++) {
		fd[i] = open_dev();
		ASSERT_LE(0, fd[i]);
		/* no such process: nothing counts */
		cfg.tgid = kprof_test_unused_pid(i);
		ASSERT_NE(0, cfg.tgid);
		ASSERT_EQ(0, kprof_set_config(fd[i], &cfg));
		ASSERT_EQ(0, kprof_control(fd[i], KPROF_IOC_START,
					   KPROF_RUN_TCP));
	}
	for (i = 0; i <= KPROF_MAX_VIEWS; i++)
		view[i] = snapshot_view(fd[i]);
	for (i = 0; i < KPROF_MAX_VIEWS; i++) {
		EXPECT_EQ(i + 1, view[i]);
	}
	EXPECT_EQ(KPROF_VIEW_NONE, view[KPROF_MAX_VIEWS]);

	/* one gives its session up: the ninth gets its view */
	freed = view[3];
	close(fd[3]);
	EXPECT_EQ(freed, snapshot_view(fd[KPROF_MAX_VIEWS]));
	for (i = 0; i < KPROF_MAX_VIEWS; i++)
		if (i != 3)
			EXPECT_EQ(view[i], snapshot_view(fd[i]));
	/* a session that stops holds nothing, and needs no view */
	ASSERT_EQ(0, kprof_control(fd[0], KPROF_IOC_STOP, KPROF_RUN_TCP));
	EXPECT_EQ(0, snapshot_view(fd[0]));
	/* the last ones too, when nothing is held any more */
	for (i = 1; i <= KPROF_MAX_VIEWS; i++)
		if (i != 3)
			ASSERT_EQ(0, kprof_control(fd[i], KPROF_IOC_STOP,
						   KPROF_RUN_TCP));
	EXPECT_EQ(0, snapshot_view(fd[KPROF_MAX_VIEWS]));
	for (i = 0; i <= KPROF_MAX_VIEWS; i++)
		if (i != 3)
			close(fd[i]);
}

/*
 * A START whose sampling rate cannot run (kprof_peer makes every CPU's
 * event fail) still puts the session's filters and threshold in effect:
 * only the rate is kept, and sampling, which could not restart, is held
 * by none.
 */
TEST_F(session, start_installs_the_config_when_the_rate_cannot_run)
{
	struct kprof_config cfg = { .threshold_ns = 2 * MS, .sample_hz = 250 };
	struct kprof_config got;
	int ready, go, st;
	pid_t pid;

	ASSERT_EQ(0, kprof_test_peer_load())
		TH_LOG("KPROF_PEER_KO: make peer-module");
	pid = holder_start(KPROF_RUN_ALL, &ready, &go);
	ASSERT_LT(0, pid);
	ASSERT_EQ(1, holder_ready(ready));
	/* not holding yet: nothing changes, nothing fails */
	ASSERT_EQ(0, kprof_set_config(self->fd, &cfg));
	ASSERT_EQ(0, kprof_test_write_file(KPROF_TEST_PEER_FAIL, "-2"));
	EXPECT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	EXPECT_EQ(0, kprof_test_write_file(KPROF_TEST_PEER_FAIL, "-1"));
	ASSERT_EQ(0, kprof_get_config(self->fd, &got));
	EXPECT_EQ(2 * MS, got.threshold_ns);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	close(ready);
	close(go);
	EXPECT_EQ(0, system("rmmod kprof_peer"));
}

/*
 * A session whose opener has exited while the file lives on in a child:
 * listed without a pid (the number may be another process's by now),
 * holding what it held until the child closes it too.
 */
TEST_F(session, opener_gone_listed_without_pid)
{
	const struct kprof_session_info *si = NULL;
	struct kprof_sessions *ss;
	unsigned int i;
	pid_t opener, heir = 0;
	int p[2], q[2], st;
	char c;

	/* the heir, orphaned by the opener, is reparented to this test */
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, pipe(q));
	opener = fork();
	if (opener == 0) {
		int fd = open_dev();

		if (fd < 0 || kprof_control(fd, KPROF_IOC_START, KPROF_RUN_TCP))
			_exit(1);
		heir = fork();
		if (heir == 0) {
			close(p[0]);
			close(q[1]);
			/* holds the file until told to go */
			while (read(q[0], &c, 1) < 0 && errno == EINTR)
				;
			_exit(0);
		}
		if (write(p[1], &heir, sizeof(heir)) != sizeof(heir))
			_exit(1);
		_exit(heir > 0 ? 0 : 1);
	}
	ASSERT_LT(0, opener);
	close(p[1]);
	close(q[0]);
	ASSERT_EQ(sizeof(heir), read(p[0], &heir, sizeof(heir)));
	ASSERT_EQ(opener, waitpid(opener, &st, 0));
	ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);

	expect_held(_metadata, self->fd, KPROF_RUN_TCP, 1, 0, 2, 1);
	ss = get_sessions(self->fd);
	ASSERT_NE(NULL, ss);
	EXPECT_EQ(NULL, session_of(ss, opener));
	for (i = 0; i < ss->nr_listed && i < KPROF_SESSIONS_MAX; i++)
		if (!ss->s[i].self)
			si = &ss->s[i];
	ASSERT_NE(NULL, si);
	EXPECT_EQ(0, si->tgid);
	EXPECT_EQ(KPROF_RUN_TCP, si->held);
	free(ss);

	close(q[1]);
	ASSERT_EQ(heir, waitpid(heir, &st, 0));
	expect_held(_metadata, self->fd, 0, 0, 0, 1, 2);
	close(p[0]);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
}

/* GET_SESSIONS: output only, the first published size accepted. */
TEST_F(session, get_sessions_abi)
{
	struct kprof_sessions *ss = calloc(1, sizeof(*ss));

	ASSERT_NE(NULL, ss);
	ss->size = sizeof(*ss);
	ss->nr = 1;
	EXPECT_EQ(-1, ioctl(self->fd, KPROF_IOC_GET_SESSIONS, ss));
	EXPECT_EQ(EINVAL, errno);
	memset(ss, 0, sizeof(*ss));
	ss->size = sizeof(*ss);
	ss->s[KPROF_SESSIONS_MAX - 1].reserved = 1;
	EXPECT_EQ(-1, ioctl(self->fd, KPROF_IOC_GET_SESSIONS, ss));
	EXPECT_EQ(EINVAL, errno);
	memset(ss, 0, sizeof(*ss));
	ss->size = KPROF_SESSIONS_SIZE_VER0;
	ASSERT_EQ(0, ioctl(self->fd, _IOC(_IOC_READ | _IOC_WRITE,
					  KPROF_IOC_MAGIC, 0x0b,
					  KPROF_SESSIONS_SIZE_VER0), ss));
	EXPECT_EQ(KPROF_SESSIONS_SIZE_VER0, ss->size);
	EXPECT_EQ(1, ss->nr);
	EXPECT_EQ(1, ss->nr_listed);
	EXPECT_EQ((uint32_t)getpid(), ss->s[0].tgid);
	EXPECT_EQ(1, ss->s[0].self);
	free(ss);
}

TEST_HARNESS_MAIN
