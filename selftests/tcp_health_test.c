// SPDX-License-Identifier: GPL-2.0
/*
 * TCP health per endpoint (API 3.2): retransmitted segments against the
 * kernel's own TcpRetransSegs, over a veth pair into a network namespace
 * with netem dropping 5% of the packets each way; resets received on a
 * client whose server closes with SO_LINGER 0, and sent on the server's
 * rows by that close (API 3.3); a clean endpoint at zero.
 */
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/sockios.h>

#include "kselftest_harness.h"
#include "tcp_test.h"

#define NS	"kprofhealth"
#define ADDR_C	"10.211.0.1"	/* the client, in the test's namespace */
#define ADDR_S	"10.211.0.2"	/* the server, in NS */
#define BULK	(16 * 1024)	/* a request */
#define NREQ	60
#define NREQ_MAX	600

/* Tcp RetransSegs of the current network namespace, or -1. */
static long long retrans_segs(void)
{
	char line[2048], hdr[2048] = "";
	long long v = -1;
	FILE *f = fopen("/proc/self/net/snmp", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *h, *l, *hs, *ls, *ht, *lt;

		if (strncmp(line, "Tcp:", 4))
			continue;
		if (!hdr[0]) {
			snprintf(hdr, sizeof(hdr), "%s", line);
			continue;
		}
		for (h = strtok_r(hdr, " \n", &hs), l = strtok_r(line, " \n", &ls);
		     h && l; h = strtok_r(NULL, " \n", &hs),
		     l = strtok_r(NULL, " \n", &ls)) {
			ht = h;
			lt = l;
			if (!strcmp(ht, "RetransSegs"))
				v = atoll(lt);
		}
		break;
	}
	fclose(f);
	return v;
}

static int sh(const char *cmd)
{
	int ret = system(cmd);

	return WIFEXITED(ret) ? WEXITSTATUS(ret) : -1;
}

static void net_down(void)
{
	sh("ip link del kph0 >/dev/null 2>&1; ip netns del " NS
	   " >/dev/null 2>&1");
}

static int net_up(void)
{
	net_down();
	return sh("ip netns add " NS " && "
		  "ip link add kph0 type veth peer name kph1 netns " NS " && "
		  "ip addr add " ADDR_C "/24 dev kph0 && ip link set kph0 up && "
		  "ip -n " NS " addr add " ADDR_S "/24 dev kph1 && "
		  "ip -n " NS " link set kph1 up && "
		  "ip -n " NS " link set lo up");
}

static int loss(int on)
{
	if (on)
		return sh("tc qdisc add dev kph0 root netem loss 5% && "
			  "ip netns exec " NS
			  " tc qdisc add dev kph1 root netem loss 5%");
	return sh("tc qdisc del dev kph0 root; ip netns exec " NS
		  " tc qdisc del dev kph1 root");
}

/* Wait until everything @fd sent is acknowledged. */
static int drained(int fd)
{
	int i, q = 1;

	for (i = 0; i < 30000 && q; i++) {
		if (ioctl(fd, SIOCOUTQ, &q))
			return -1;
		if (q)
			usleep(1000);
	}
	return q ? -1 : 0;
}

struct sums {
	uint64_t count, retx, rto, rst_sent, rst_recv, after;
	uint64_t sum_ns, max_ns, refused, timedout, failed;
};

/* The cumulative rows of (@raddr, @rport, @role) in the module's mapping. */
static void sum_rows(struct export *e, const char *raddr, uint16_t rport,
		     int role, struct sums *s)
{
	const struct kprof_mmap_header *h = e->cur;
	struct in_addr a;
	uint32_t i;

	inet_pton(AF_INET, raddr, &a);
	memset(s, 0, sizeof(*s));
	for (i = 0; i < h->nr_tcp_rows; i++) {
		const struct kprof_tcp_row *r = (const void *)((char *)e->cur +
			h->tcp_rows_off + (size_t)i * h->tcp_row_size);

		if (r->family != AF_INET || r->role != role ||
		    (rport && r->rport != rport) || memcmp(r->raddr, &a, 4))
			continue;
		s->count += r->count;
		s->retx += r->retransmits;
		s->rto += r->retransmits_rto;
		s->rst_sent += r->resets_sent;
		s->rst_recv += r->resets_received;
		s->after += r->after_retransmit;
		s->sum_ns += r->sum_ns;
		if (r->count && r->max_ns > s->max_ns)
			s->max_ns = r->max_ns;
		if (h->tcp_row_size < KPROF_TCP_ROW_SIZE_VER2)
			continue;
		s->refused += r->connects_refused;
		s->timedout += r->connects_timedout;
		s->failed += r->connects_failed;
	}
}

static uint64_t health_missed(int fd)
{
	struct kprof_stats st;

	return kprof_get_stats(fd, &st) ? ~0ull : st.health_missed;
}

FIXTURE(health) {
	int fd;
	struct export ex;
};

FIXTURE_SETUP(health)
{
	struct kprof_config cfg = { .threshold_ns = 100ull * 1000000000 };
	struct kprof_info info;

	ASSERT_EQ(0, kprof_test_load());
	self->fd = open(KPROF_TEST_DEV, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, kprof_get_info(self->fd, &info));
	if (!(info.features & KPROF_FEAT_TCP_HEALTH))
		SKIP(return, "no TCP tracepoints on this kernel");
	ASSERT_EQ(0, export_map(self->fd, &self->ex));
	kprof_control(self->fd, KPROF_IOC_STOP, KPROF_RUN_TCP);
	ASSERT_EQ(0, kprof_set_config(self->fd, &cfg));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
}

FIXTURE_TEARDOWN(health)
{
	kprof_control(self->fd, KPROF_IOC_STOP, KPROF_RUN_TCP);
	export_unmap(&self->ex);
	close(self->fd);
}

/* In a child: enter NS and listen on ADDR_S:@port; exits on failure. */
static int ns_listen(uint16_t port, int backlog)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port) };
	int nsfd, lfd, one = 1;

	nsfd = open("/run/netns/" NS, O_RDONLY | O_CLOEXEC);
	if (nsfd < 0 || setns(nsfd, CLONE_NEWNET))
		_exit(1);
	inet_pton(AF_INET, ADDR_S, &a.sin_addr);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (void *)&a, sizeof(a)) || listen(lfd, backlog))
		_exit(2);
	return lfd;
}

/*
 * The server, in NS: answers each BULK-byte request with BULK bytes; at
 * the client's one-byte "done" (which acknowledges every answer) it waits
 * for its own answers' acknowledgements, reports its namespace's
 * RetransSegs before and after on @out, and exits.
 */
static void server(int ready, int go, int out, uint16_t port)
{
	static char buf[BULK];
	long long v[2];
	int lfd, fd;
	char c;

	lfd = ns_listen(port, 4);
	if (write(ready, "r", 1) != 1)
		_exit(3);
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		_exit(4);
	/* one exchange without loss, then the baseline */
	if (read_full(fd, buf, BULK) || send(fd, buf, BULK, 0) != BULK)
		_exit(5);
	if (read(go, &c, 1) != 1)
		_exit(6);
	v[0] = retrans_segs();
	if (write(ready, "b", 1) != 1)
		_exit(7);
	for (;;) {
		if (read_full(fd, buf, 1))
			_exit(8);
		if (buf[0] == 'd')
			break;
		if (read_full(fd, buf + 1, BULK - 1) ||
		    send(fd, buf, BULK, 0) != BULK)
			_exit(9);
	}
	if (drained(fd))
		_exit(10);
	v[1] = retrans_segs();
	if (write(out, v, sizeof(v)) != sizeof(v))
		_exit(11);
	/* stay until the test has read the module's counts */
	if (read(go, &c, 1) < 0)
		_exit(12);
	close(fd);
	_exit(0);
}

TEST_F(health, retransmits_match_the_kernels_count)
{
	int ready[2], go[2], out[2], fd, i, st, nreq;
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct sums c0, cm, c1, s0, s1;
	static char buf[BULK];
	long long mine[2], theirs[2];
	uint64_t missed0, missed1;
	uint16_t port = 47011, cport;
	socklen_t len = sizeof(a);
	pid_t pid;
	char ch;

	if (net_up())
		SKIP(return, "no veth pair into a network namespace (ip)");
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(out));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		server(ready[1], go[0], out[1], port);
	ASSERT_EQ(1, read(ready[0], &ch, 1));

	a.sin_port = htons(port);
	inet_pton(AF_INET, ADDR_S, &a.sin_addr);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_EQ(0, connect(fd, (void *)&a, sizeof(a)));
	ASSERT_EQ(0, getsockname(fd, (void *)&a, &len));
	cport = ntohs(a.sin_port);
	ASSERT_EQ(BULK, send(fd, buf, BULK, 0));
	ASSERT_EQ(0, read_full(fd, buf, BULK));
	ASSERT_EQ(0, drained(fd));

	if (loss(1)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		net_down();
		SKIP(return, "no netem qdisc (tc, sch_netem)");
	}
	ASSERT_EQ(0, kp_snapshot(self->fd));
	sum_rows(&self->ex, ADDR_S, port, KPROF_ROLE_CLIENT, &c0);
	sum_rows(&self->ex, ADDR_C, cport, KPROF_ROLE_SERVER, &s0);
	missed0 = health_missed(self->fd);
	mine[0] = retrans_segs();
	ASSERT_LE(0, mine[0]);
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(1, read(ready[0], &ch, 1));

	/*
	 * NREQ requests, then more until the client has retransmitted at
	 * least once: its requests go as one 16 KiB packet each on the veth
	 * pair, so 60 of them all pass a 5% loss one run in twenty
	 * (0.95^60); by NREQ_MAX none retransmitted is 0.95^600, 4e-14.
	 */
	for (i = 0; i < NREQ || (i < NREQ_MAX && retrans_segs() == mine[0]);
	     i++) {
		buf[0] = 'q';
		ASSERT_EQ(BULK, send(fd, buf, BULK, 0));
		ASSERT_EQ(0, read_full(fd, buf, BULK));
	}
	nreq = i;
	/*
	 * The requests' own retransmits: "done" below is a request that
	 * gets no answer, so one of its retransmits marks nothing.
	 */
	ASSERT_EQ(0, kp_snapshot(self->fd));
	sum_rows(&self->ex, ADDR_S, port, KPROF_ROLE_CLIENT, &cm);
	ASSERT_EQ(1, send(fd, "d", 1, 0));
	ASSERT_EQ(0, drained(fd));
	ASSERT_EQ(sizeof(theirs), read(out[0], theirs, sizeof(theirs)));
	mine[1] = retrans_segs();
	ASSERT_EQ(0, kp_snapshot(self->fd));
	sum_rows(&self->ex, ADDR_S, port, KPROF_ROLE_CLIENT, &c1);
	sum_rows(&self->ex, ADDR_C, cport, KPROF_ROLE_SERVER, &s1);
	missed1 = health_missed(self->fd);

	ASSERT_EQ(1, write(go[1], "e", 1));
	close(fd);
	waitpid(pid, &st, 0);
	loss(0);
	net_down();
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));

	TH_LOG("%d requests; client: %llu retransmitted (kernel %lld; %llu before \"done\"), %llu after RTO; server: %llu (kernel %lld); %llu requests after a retransmission; missed %llu",
	       nreq, (unsigned long long)(c1.retx - c0.retx),
	       mine[1] - mine[0],
	       (unsigned long long)(cm.retx - c0.retx),
	       (unsigned long long)(c1.rto - c0.rto),
	       (unsigned long long)(s1.retx - s0.retx), theirs[1] - theirs[0],
	       (unsigned long long)(c1.after - c0.after),
	       (unsigned long long)(missed1 - missed0));
	/*
	 * The client never goes without: the requests above went on until
	 * it had retransmitted.  The server retransmits only its lost
	 * answers, 60 or more packets where the veth pair keeps GSO (16 KiB
	 * each): none lost, one run in twenty (7.2 once had 0, the kernel's
	 * count too).  Its count is checked exactly.
	 */
	EXPECT_LT(0, mine[1] - mine[0]);
	/* exact, but for events that came while a handler ran (counted) */
	EXPECT_LE(c1.retx - c0.retx, mine[1] - mine[0]);
	EXPECT_LE(mine[1] - mine[0] - (c1.retx - c0.retx), missed1 - missed0);
	EXPECT_LE(s1.retx - s0.retx, theirs[1] - theirs[0]);
	EXPECT_LE(theirs[1] - theirs[0] - (s1.retx - s0.retx),
		  missed1 - missed0);
	EXPECT_LE(c1.rto - c0.rto, c1.retx - c0.retx);
	EXPECT_LE(c1.after - c0.after, c1.count - c0.count);
	/* a request retransmitted while in flight completes after it */
	if (cm.retx > c0.retx && missed1 == missed0)
		EXPECT_LT(0, cm.after - c0.after);
	EXPECT_EQ(0, c1.rst_recv - c0.rst_recv);
	EXPECT_EQ(0, s1.rst_recv - s0.rst_recv);
}

/*
 * A server that answers a connection's first request, and its second by
 * a reset: SO_LINGER 0, then close (the reset is sent inside close()).
 */
static void *rst_server(void *arg)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	struct server *s = arg;
	char buf[REQ_LEN];
	int fd;

	while ((fd = accept(s->lfd, NULL, NULL)) >= 0) {
		if (!read_full(fd, buf, sizeof(buf)) &&
		    send(fd, buf, sizeof(buf), 0) == sizeof(buf) &&
		    !read_full(fd, buf, sizeof(buf)))
			setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		close(fd);
	}
	return NULL;
}

TEST_F(health, resets_sent_and_received)
{
	struct server s = { 0 }, clean = { .respond = 1 };
	struct sums c0, c1, k0, k1, v0[3], v1[3];
	struct sockaddr_in a;
	socklen_t len;
	char buf[REQ_LEN] = "kprof";
	uint16_t cport[3];
	uint64_t sent = 0;
	int i, fd;

	s.lfd = loopback_listen(AF_INET, 8, &s.port);
	ASSERT_LE(0, s.lfd);
	ASSERT_EQ(0, pthread_create(&s.thread, NULL, rst_server, &s));
	ASSERT_EQ(0, server_start(&clean, AF_INET, 0));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	sum_rows(&self->ex, "127.0.0.1", s.port, KPROF_ROLE_CLIENT, &c0);
	sum_rows(&self->ex, "127.0.0.1", clean.port, KPROF_ROLE_CLIENT, &k0);
	for (i = 0; i < 3; i++) {
		fd = client_connect(AF_INET, s.port);
		ASSERT_LE(0, fd);
		len = sizeof(a);
		ASSERT_EQ(0, getsockname(fd, (void *)&a, &len));
		cport[i] = ntohs(a.sin_port);
		sum_rows(&self->ex, "127.0.0.1", cport[i], KPROF_ROLE_SERVER,
			 &v0[i]);
		ASSERT_EQ(sizeof(buf), send(fd, buf, sizeof(buf), 0));
		ASSERT_EQ(0, read_full(fd, buf, sizeof(buf)));
		ASSERT_EQ(sizeof(buf), send(fd, buf, sizeof(buf), 0));
		/* the reset ends the read */
		EXPECT_GE(0, recv(fd, buf, sizeof(buf), 0));
		close(fd);
	}
	fd = client_connect(AF_INET, clean.port);
	ASSERT_LE(0, fd);
	for (i = 0; i < 5; i++)
		ASSERT_NE(0, client_request(fd));
	close(fd);
	ASSERT_EQ(0, kp_snapshot(self->fd));
	sum_rows(&self->ex, "127.0.0.1", s.port, KPROF_ROLE_CLIENT, &c1);
	sum_rows(&self->ex, "127.0.0.1", clean.port, KPROF_ROLE_CLIENT, &k1);
	for (i = 0; i < 3; i++) {
		sum_rows(&self->ex, "127.0.0.1", cport[i], KPROF_ROLE_SERVER,
			 &v1[i]);
		sent += v1[i].rst_sent - v0[i].rst_sent;
	}
	server_stop(&clean);
	shutdown(s.lfd, SHUT_RDWR);
	close(s.lfd);
	pthread_join(s.thread, NULL);

	/* the client's row: the answered requests, and the resets */
	EXPECT_EQ(3, c1.rst_recv - c0.rst_recv);
	EXPECT_EQ(3, c1.count - c0.count);
	EXPECT_EQ(0, c1.retx - c0.retx);
	EXPECT_EQ(0, c1.rst_sent - c0.rst_sent);
	/* the server's rows: the resets its close() sent (API 3.3) */
	EXPECT_EQ(3, sent);
	/* and every socket's slot goes once it is destroyed */
	EXPECT_EQ(0, kp_wait_closed_destroyed(self->fd));
	/* the clean endpoint: its requests, and no trouble */
	EXPECT_EQ(5, k1.count - k0.count);
	EXPECT_EQ(0, k1.retx - k0.retx);
	EXPECT_EQ(0, k1.rst_recv - k0.rst_recv);
	EXPECT_EQ(0, k1.rst_sent - k0.rst_sent);
	EXPECT_EQ(0, k1.after - k0.after);
}

/* A non-blocking connect to 127.0.0.1:@port, SYN_SENT or done; -1. */
static int connect_nb(uint16_t port, int syn_retries)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	if ((syn_retries &&
	     setsockopt(fd, IPPROTO_TCP, TCP_SYNCNT, &syn_retries,
			sizeof(syn_retries))) ||
	    (connect(fd, (void *)&a, sizeof(a)) && errno != EINPROGRESS)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Wait up to @ms for @fd's connect to end; its error (0: connected). */
static int connect_end_within(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	socklen_t len = sizeof(int);
	int err = -1;

	if (poll(&p, 1, ms) != 1 ||
	    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len))
		return -1;
	return err;
}

static int connect_end(int fd)
{
	return connect_end_within(fd, 60000);
}

/*
 * Connects, per endpoint and cause (API 4.0): established ones timed on
 * the endpoint's KPROF_ROLE_CONNECT row; refused ones (a port bound but
 * not listening answers the SYN with a reset); timed-out ones (a
 * listener whose accept queue is full drops SYNs: TCP_SYNCNT 1 gives up
 * after one retransmission, about 3 s); one the application closed while
 * it was connecting.  The refusing resets and the retransmitted SYNs
 * count on the clients' rows.
 */
TEST_F(health, connects_by_outcome)
{
	struct server ok = { .respond = 1 };
	struct sums a0, a1, r0, r1, rc0, rc1, f0, f1, fc0, fc1;
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	struct kprof_info info;
	int i, bound, full, filler, fd[3];
	uint16_t rport, fport;
	long long syn0, syn1;

	ASSERT_EQ(0, kprof_get_info(self->fd, &info));
	if (!(info.features & KPROF_FEAT_TCP_CONNECT))
		SKIP(return, "no sock:inet_sock_set_state on this kernel");
	ASSERT_EQ(0, server_start(&ok, AF_INET, 0));
	bound = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, bound);
	ASSERT_EQ(0, bind(bound, (void *)&sa, sizeof(sa)));
	ASSERT_EQ(0, getsockname(bound, (void *)&sa, &len));
	rport = ntohs(sa.sin_port);
	full = loopback_listen(AF_INET, 0, &fport);
	ASSERT_LE(0, full);
	/*
	 * With backlog 0 the accept queue takes one connection, through a
	 * SYN cookie where the request queue counts as full at 0 (4.19): a
	 * kernel built without SYN_COOKIES takes none there and drops every
	 * SYN already.  A filler that cannot connect goes before the
	 * counting starts.
	 */
	filler = connect_nb(fport, 0);
	ASSERT_LE(0, filler);
	if (connect_end_within(filler, 5000)) {
		close(filler);
		filler = -1;
	}

	ASSERT_EQ(0, kp_snapshot(self->fd));
	sum_rows(&self->ex, "127.0.0.1", ok.port, KPROF_ROLE_CONNECT, &a0);
	sum_rows(&self->ex, "127.0.0.1", rport, KPROF_ROLE_CONNECT, &r0);
	sum_rows(&self->ex, "127.0.0.1", rport, KPROF_ROLE_CLIENT, &rc0);
	sum_rows(&self->ex, "127.0.0.1", fport, KPROF_ROLE_CONNECT, &f0);
	sum_rows(&self->ex, "127.0.0.1", fport, KPROF_ROLE_CLIENT, &fc0);
	syn0 = retrans_segs();
	for (i = 0; i < 2; i++) {
		fd[i] = connect_nb(fport, 1);
		ASSERT_LE(0, fd[i]);
	}
	for (i = 0; i < 5; i++) {
		fd[2] = client_connect(AF_INET, ok.port);
		ASSERT_LE(0, fd[2]);
		ASSERT_NE(0, client_request(fd[2]));
		close(fd[2]);
	}
	for (i = 0; i < 3; i++) {
		fd[2] = connect_nb(rport, 0);
		ASSERT_LE(0, fd[2]);
		EXPECT_EQ(ECONNREFUSED, connect_end(fd[2]));
		close(fd[2]);
	}
	/* closed while its SYN waits for an answer */
	fd[2] = connect_nb(fport, 0);
	ASSERT_LE(0, fd[2]);
	close(fd[2]);
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(ETIMEDOUT, connect_end(fd[i]));
		close(fd[i]);
	}
	syn1 = retrans_segs();
	ASSERT_EQ(0, kp_snapshot(self->fd));
	sum_rows(&self->ex, "127.0.0.1", ok.port, KPROF_ROLE_CONNECT, &a1);
	sum_rows(&self->ex, "127.0.0.1", rport, KPROF_ROLE_CONNECT, &r1);
	sum_rows(&self->ex, "127.0.0.1", rport, KPROF_ROLE_CLIENT, &rc1);
	sum_rows(&self->ex, "127.0.0.1", fport, KPROF_ROLE_CONNECT, &f1);
	sum_rows(&self->ex, "127.0.0.1", fport, KPROF_ROLE_CLIENT, &fc1);
	if (filler >= 0)
		close(filler);
	close(full);
	close(bound);
	server_stop(&ok);
	TH_LOG("established 5: %llu in %llu ns (max %llu); refused %llu, timed out %llu, failed %llu; SYNs retransmitted %llu (kernel %lld); resets received %llu",
	       (unsigned long long)(a1.count - a0.count),
	       (unsigned long long)(a1.sum_ns - a0.sum_ns),
	       (unsigned long long)a1.max_ns,
	       (unsigned long long)(r1.refused - r0.refused),
	       (unsigned long long)(f1.timedout - f0.timedout),
	       (unsigned long long)(f1.failed - f0.failed),
	       (unsigned long long)(fc1.retx - fc0.retx), syn1 - syn0,
	       (unsigned long long)(rc1.rst_recv - rc0.rst_recv));

	EXPECT_EQ(5, a1.count - a0.count);
	EXPECT_LT(0, a1.sum_ns - a0.sum_ns);
	EXPECT_EQ(0, a1.refused + a1.timedout + a1.failed -
		     a0.refused - a0.timedout - a0.failed);
	/* the refused: on the connect row, and the resets on the client's */
	EXPECT_EQ(3, r1.refused - r0.refused);
	EXPECT_EQ(0, r1.count + r1.timedout + r1.failed -
		     r0.count - r0.timedout - r0.failed);
	EXPECT_EQ(3, rc1.rst_recv - rc0.rst_recv);
	/* the full listener's: two timed out, one closed */
	EXPECT_EQ(2, f1.timedout - f0.timedout);
	EXPECT_EQ(1, f1.failed - f0.failed);
	EXPECT_EQ(0, f1.count + f1.refused - f0.count - f0.refused);
	/*
	 * each timed-out connect retransmitted its SYN at least once (once
	 * on 6.1, twice on 7.2 with its linear SYN timeouts): as many as the
	 * kernel counted meanwhile, nothing else retransmitting here
	 */
	EXPECT_LE(2, fc1.retx - fc0.retx);
	EXPECT_EQ(syn1 - syn0, (long long)(fc1.retx - fc0.retx));
	/* no connect row's health, no request counted on a connect row */
	EXPECT_EQ(0, a1.retx + a1.rst_recv + f1.retx - a0.retx - a0.rst_recv -
		     f0.retx);
	EXPECT_EQ(0, kp_wait_closed_destroyed(self->fd));
}

/* A listener on ADDR_S:@port in NS until @go closes; "r" on @ready. */
static void ns_listener(int ready, int go, uint16_t port)
{
	char c;

	ns_listen(port, 128);
	if (write(ready, "r", 1) != 1)
		_exit(3);
	while (read(go, &c, 1) > 0)
		;
	_exit(0);
}

#define DELAY_MS	20
#define NCONN		20

/*
 * NCONN connects to @a, each timed by the client into @took (sorted), and
 * the histogram of the endpoint's connect rows over them (snapshots on
 * @dev) into @h; the number kprofmod counted, or -1.
 */
static int64_t connect_round(int dev, struct export *ex,
			     const struct sockaddr_in *a, uint64_t *took,
			     uint64_t *h)
{
	uint64_t h0[KPROF_HIST_BUCKETS] = { 0 }, t0;
	struct rows_sum r0, r1;
	unsigned int b;
	int i, fd;

	memset(h, 0, KPROF_HIST_BUCKETS * sizeof(*h));
	if (kp_snapshot(dev))
		return -1;
	rows_sum(ex, ntohs(a->sin_port), KPROF_ROLE_CONNECT, h0, &r0);
	for (i = 0; i < NCONN; i++) {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -1;
		t0 = now_ns();
		if (connect(fd, (const void *)a, sizeof(*a))) {
			close(fd);
			return -1;
		}
		took[i] = now_ns() - t0;
		close(fd);
	}
	if (kp_snapshot(dev))
		return -1;
	rows_sum(ex, ntohs(a->sin_port), KPROF_ROLE_CONNECT, h, &r1);
	for (b = 0; b < KPROF_HIST_BUCKETS; b++)
		h[b] -= h0[b];
	qsort(took, NCONN, sizeof(took[0]), cmp_u64);
	return r1.count - r0.count;
}

/*
 * Connects through a veth pair, then with netem delaying the client's
 * packets by DELAY_MS: every connect counts, and the median connect time
 * on the endpoint's connect row is the delay plus the path's own (the
 * median of the connects before the delay) within 10%.  The client's
 * own times, which add its wake-up, are logged beside.
 */
TEST_F(health, connect_latency_follows_a_delay)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	uint64_t h[KPROF_HIST_BUCKETS], took[NCONN], base, want, lo, hi;
	struct kprof_info info;
	uint16_t port = 47012;
	int ready[2], go[2], st;
	int64_t nbase, ndelay;
	unsigned int b;
	char ch, cmd[80];
	pid_t pid;

	ASSERT_EQ(0, kprof_get_info(self->fd, &info));
	if (!(info.features & KPROF_FEAT_TCP_CONNECT))
		SKIP(return, "no sock:inet_sock_set_state on this kernel");
	if (net_up())
		SKIP(return, "no veth pair into a network namespace (ip)");
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(go[1]);
		ns_listener(ready[1], go[0], port);
	}
	close(go[0]);
	ASSERT_EQ(1, read(ready[0], &ch, 1));
	a.sin_port = htons(port);
	inet_pton(AF_INET, ADDR_S, &a.sin_addr);

	/* the path's own connect time */
	nbase = connect_round(self->fd, &self->ex, &a, took, h);
	b = hist_rank_bucket(h, pct_rank(50, NCONN));
	base = (hist_lower(b) + hist_lower(b + 1)) / 2;
	TH_LOG("no delay: %lld connects, kprof's median %.3f ms, the client's %.3f ms",
	       (long long)nbase, base / 1e6,
	       took[pct_rank(50, NCONN) - 1] / 1e6);

	snprintf(cmd, sizeof(cmd), "tc qdisc add dev kph0 root netem delay %dms",
		 DELAY_MS);
	if (sh(cmd)) {
		close(go[1]);
		waitpid(pid, NULL, 0);
		net_down();
		SKIP(return, "no netem qdisc (tc, sch_netem)");
	}
	ndelay = connect_round(self->fd, &self->ex, &a, took, h);
	close(go[1]);
	waitpid(pid, &st, 0);
	sh("tc qdisc del dev kph0 root");
	net_down();
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));

	want = DELAY_MS * 1000000ull + base;
	b = hist_rank_bucket(h, pct_rank(50, NCONN));
	lo = hist_lower(b);
	hi = b + 1 < KPROF_HIST_BUCKETS ? hist_lower(b + 1) : UINT64_MAX;
	TH_LOG("delay %d ms: %lld connects, kprof's median in [%.3f, %.3f) ms, want %.3f ms; the client's median %.3f ms, fastest %.3f ms",
	       DELAY_MS, (long long)ndelay, lo / 1e6, hi / 1e6, want / 1e6,
	       took[pct_rank(50, NCONN) - 1] / 1e6, took[0] / 1e6);
	EXPECT_EQ(NCONN, nbase);
	EXPECT_EQ(NCONN, ndelay);
	EXPECT_LE(DELAY_MS * 1000000ull, took[0]);
	/* the median's bucket reaches into want +-10% */
	EXPECT_LE(lo, want + want / 10);
	EXPECT_GT(hi, want - want / 10);
}

/* A blocking connect of @fd to 127.0.0.1:@port: 0 or an errno. */
static int connect_to(int fd, uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

	return connect(fd, (void *)&a, sizeof(a)) ? errno : 0;
}

/*
 * What is not a connect: a socket restored in repair mode (established
 * at once, no SYN), and a simultaneous open (a socket connected to its
 * own port).  Neither may leave a start behind: the self-connected
 * socket, disconnected and connecting again where the configuration no
 * longer wants its connects, to a port that refuses it, counts nothing
 * either (before, the simultaneous open's start stayed in the slot and
 * that refusal took it).
 */
TEST_F(health, repair_and_simultaneous_open_are_not_connects)
{
	struct kprof_config cfg = { .threshold_ns = 100ull * 1000000000,
				    .tgid = 1 };
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sums p0, p1, s0, s1, r0, r1;
	struct sockaddr_in un = { .sin_family = AF_UNSPEC };
	socklen_t len = sizeof(sa);
	struct kprof_info info;
	int fd, one = 1, bound;
	uint16_t self_port, rport, port = 47013;

	ASSERT_EQ(0, kprof_get_info(self->fd, &info));
	if (!(info.features & KPROF_FEAT_TCP_CONNECT))
		SKIP(return, "no sock:inet_sock_set_state on this kernel");
	bound = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, bound);
	ASSERT_EQ(0, bind(bound, (void *)&sa, sizeof(sa)));
	ASSERT_EQ(0, getsockname(bound, (void *)&sa, &len));
	rport = ntohs(sa.sin_port);

	ASSERT_EQ(0, kp_snapshot(self->fd));
	sum_rows(&self->ex, "127.0.0.1", port, KPROF_ROLE_CONNECT, &p0);
	sum_rows(&self->ex, "127.0.0.1", rport, KPROF_ROLE_CONNECT, &r0);

	/* repair mode: connect() establishes without a SYN */
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, fd);
	if (setsockopt(fd, IPPROTO_TCP, TCP_REPAIR, &one, sizeof(one)))
		TH_LOG("no TCP_REPAIR (%s): that part untested",
		       strerror(errno));
	else
		EXPECT_EQ(0, connect_to(fd, port));
	close(fd);

	/* a simultaneous open: bound to a port, connected to it */
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, fd);
	sa.sin_port = 0;
	ASSERT_EQ(0, bind(fd, (void *)&sa, sizeof(sa)));
	len = sizeof(sa);
	ASSERT_EQ(0, getsockname(fd, (void *)&sa, &len));
	self_port = ntohs(sa.sin_port);
	ASSERT_EQ(0, kp_snapshot(self->fd));
	sum_rows(&self->ex, "127.0.0.1", self_port, KPROF_ROLE_CONNECT, &s0);
	ASSERT_EQ(0, connect_to(fd, self_port));
	/* then disconnected, and connecting again, no longer wanted */
	ASSERT_EQ(0, connect(fd, (void *)&un, sizeof(un)));
	ASSERT_EQ(0, kprof_set_config(self->fd, &cfg));
	EXPECT_EQ(ECONNREFUSED, connect_to(fd, rport));
	close(fd);
	close(bound);

	ASSERT_EQ(0, kp_snapshot(self->fd));
	sum_rows(&self->ex, "127.0.0.1", port, KPROF_ROLE_CONNECT, &p1);
	sum_rows(&self->ex, "127.0.0.1", self_port, KPROF_ROLE_CONNECT, &s1);
	sum_rows(&self->ex, "127.0.0.1", rport, KPROF_ROLE_CONNECT, &r1);
	TH_LOG("repair: %llu connects; simultaneous open: %llu, %llu failed; unwanted reconnect: %llu refused",
	       (unsigned long long)(p1.count - p0.count),
	       (unsigned long long)(s1.count - s0.count),
	       (unsigned long long)(s1.refused + s1.timedout + s1.failed -
				    s0.refused - s0.timedout - s0.failed),
	       (unsigned long long)(r1.refused - r0.refused));
	EXPECT_EQ(0, p1.count + p1.failed - p0.count - p0.failed);
	EXPECT_EQ(0, s1.count + s1.refused + s1.timedout + s1.failed -
		     s0.count - s0.refused - s0.timedout - s0.failed);
	EXPECT_EQ(0, r1.count + r1.refused + r1.failed -
		     r0.count - r0.refused - r0.failed);
}

TEST_HARNESS_MAIN
