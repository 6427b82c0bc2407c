// SPDX-License-Identifier: GPL-2.0
/*
 * TCP request -> response latency: exact counts, percentiles against the
 * client's own measurement, IPv4 and IPv6, roles, intervals, thresholds,
 * filters, reset, start/stop, abandoned requests and the in-flight table.
 */
#include <dlfcn.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <stddef.h>
#include <linux/magic.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "tcp_test.h"

#define MS	1000000ull

FIXTURE(tcp) {
	int fd;
	struct export ex;
};

FIXTURE_SETUP(tcp)
{
	struct kprof_config cfg = { .threshold_ns = 100 * MS * 1000 };

	ASSERT_EQ(0, kprof_test_load());
	self->fd = open(KPROF_TEST_DEV, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, export_map(self->fd, &self->ex));
	kprof_control(self->fd, KPROF_IOC_STOP, KPROF_RUN_TCP);
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_RESET,
				   KPROF_RESET_STACKS));
	/* no stack walks unless a test asks: threshold 100 s */
	ASSERT_EQ(0, kprof_set_config(self->fd, &cfg));
}

FIXTURE_TEARDOWN(tcp)
{
	kprof_control(self->fd, KPROF_IOC_STOP, KPROF_RUN_TCP);
	export_unmap(&self->ex);
	close(self->fd);
}

/* Run @n requests against a server delaying @delay; client latencies out. */
static int run_requests(int family, uint64_t delay, int n, uint16_t *port,
			uint64_t *lat)
{
	struct server s = { .respond = 1 };
	int fd, i;

	if (server_start(&s, family, delay))
		return -1;
	*port = s.port;
	fd = client_connect(family, s.port);
	if (fd < 0)
		return -1;
	for (i = 0; i < n; i++) {
		lat[i] = client_request(fd);
		if (!lat[i])
			break;
	}
	close(fd);
	server_stop(&s);
	return i == n ? 0 : -1;
}

/*
 * What the client's clock adds to the module's measurement of a request:
 * the system call's entry before tcp_sendmsg() and its exit after the
 * receive, on the instruction-count clock (kprof_test_exact_time()),
 * where nothing else can stretch it: 1% of the value plus 50 us.
 */
static uint64_t client_slack(uint64_t c)
{
	return c / 100 + 50000;
}

/*
 * p50, p95 and p99 of the module's histogram against the client's own
 * sorted latencies, by nearest rank k.  The module times each request
 * from inside the client's, so the client's k-th value is at or above
 * the start of the module's bucket of rank k, on any clock.  The other
 * way holds only where time is exact: on a real-time clock under
 * emulation any request can be stretched without bound on the client's
 * side alone (its vCPU not run by a busy host between the receive and
 * the clock read: 424 us on a loaded CI host, 2 ms for two of twenty
 * requests beside a build), so there the client's k-th value must be
 * below the end of that bucket plus client_slack().  A bucket is 1/8 of
 * its lower bound wide: the histogram's promise of 6.25% is this bound.
 */
static void check_pcts(struct __test_metadata *_metadata, const uint64_t *hist,
		       const uint64_t *sorted, int n)
{
	static const double pcts[] = { 50, 95, 99 };
	uint64_t rank, c, lo, hi;
	unsigned int i, b;

	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		rank = pct_rank(pcts[i], n);
		c = sorted[rank - 1];
		b = hist_rank_bucket(hist, rank);
		lo = hist_lower(b);
		hi = hist_lower(b + 1);
		TH_LOG("p%.0f (rank %llu of %d): client %llu ns, module bucket %u [%llu, %llu) ns, client - end %lld ns",
		       pcts[i], (unsigned long long)rank, n,
		       (unsigned long long)c, b, (unsigned long long)lo,
		       (unsigned long long)hi, (long long)(c - hi));
		EXPECT_LE(lo, c);
		if (kprof_test_exact_time())
			EXPECT_LT(c, hi + client_slack(c));
	}
}

static void check_delay(struct __test_metadata *_metadata, int fd,
			struct export *ex, int family)
{
	static const uint64_t delays[] = { 2 * MS, 20 * MS };
	static const int counts[] = { 60, 20 };
	uint64_t lat[60], hist[KPROF_HIST_BUCKETS];
	uint16_t port[2];
	int k;

	ASSERT_EQ(0, kprof_control(fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, kp_snapshot(fd));
	for (k = 0; k < 2; k++) {
		ASSERT_EQ(0, run_requests(family, delays[k], counts[k],
					  &port[k], lat));
		ASSERT_EQ(0, kp_snapshot(fd));
		memset(hist, 0, sizeof(hist));
		/* exact: N requests, N counted, all client side */
		EXPECT_EQ(counts[k], rows_count(ex, port[k], KPROF_ROLE_CLIENT,
						hist));
		EXPECT_EQ(0, rows_count(ex, port[k], KPROF_ROLE_SERVER, NULL));
		qsort(lat, counts[k], sizeof(lat[0]), cmp_u64);
		TH_LOG("port %u: delay %llu ns", port[k],
		       (unsigned long long)delays[k]);
		EXPECT_LE(delays[k], lat[0]);
		check_pcts(_metadata, hist, lat, counts[k]);
	}
	ASSERT_EQ(0, kprof_control(fd, KPROF_IOC_STOP, KPROF_RUN_TCP));
}

TEST_F(tcp, ipv4_counts_and_percentiles)
{
	check_delay(_metadata, self->fd, &self->ex, AF_INET);
}

TEST_F(tcp, ipv6_counts_and_percentiles)
{
	check_delay(_metadata, self->fd, &self->ex, AF_INET6);
}

/*
 * Requests sent with sendfile(): before v6.5 they reach TCP through
 * tcp_sendpage(), not tcp_sendmsg(), and must be counted all the same.
 */
TEST_F(tcp, sendfile_requests_counted)
{
	struct server s = { .respond = 1 };
	char buf[REQ_LEN] = "kprof sendfile";
	int mfd, fd, i, n = 20;

	mfd = syscall(SYS_memfd_create, "kprof-req", 0);
	ASSERT_LE(0, mfd);
	ASSERT_EQ(sizeof(buf), write(mfd, buf, sizeof(buf)));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	ASSERT_EQ(0, server_start(&s, AF_INET, 2 * MS));
	fd = client_connect(AF_INET, s.port);
	ASSERT_LE(0, fd);
	for (i = 0; i < n; i++) {
		off_t off = 0;

		ASSERT_EQ(sizeof(buf), sendfile(fd, mfd, &off, sizeof(buf)));
		ASSERT_EQ(0, read_full(fd, buf, sizeof(buf)));
	}
	close(fd);
	server_stop(&s);
	close(mfd);
	ASSERT_EQ(0, kp_snapshot(self->fd));
	EXPECT_EQ(n, rows_count(&self->ex, s.port, KPROF_ROLE_CLIENT, NULL));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_STOP, KPROF_RUN_TCP));
}

TEST_F(tcp, rows_carry_the_endpoint)
{
	uint64_t lat[5];
	uint16_t port;
	uint32_t i;
	int found = 0;

	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	ASSERT_EQ(0, run_requests(AF_INET6, 0, 5, &port, lat));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	for (i = 0; i < self->ex.hdr->nr_tcp_rows; i++) {
		struct kprof_tcp_row *r = &self->ex.rows[i];

		if (r->rport != port || r->role != KPROF_ROLE_CLIENT)
			continue;
		found = 1;
		EXPECT_EQ(AF_INET6, r->family);
		EXPECT_EQ(0, memcmp(r->raddr, &in6addr_loopback, 16));
		EXPECT_EQ(0, r->stack_id);
		EXPECT_LE(r->min_ns, r->max_ns);
		EXPECT_LE(r->min_ns * 5, r->sum_ns);
		EXPECT_GE(r->max_ns * 5, r->sum_ns);
	}
	EXPECT_TRUE(found);
	EXPECT_LT(self->ex.hdr->interval_start_ns,
		  self->ex.hdr->interval_end_ns);
	EXPECT_EQ(0, self->ex.hdr->generation & 1);
}

struct snapper {
	int fd;
	struct export *ex;
	volatile int stop;
	uint16_t port;
	uint64_t total;
	volatile int snaps;
};

static void *snap_loop(void *arg)
{
	struct snapper *sn = arg;

	while (!sn->stop) {
		sleep_ns(100 * MS);
		if (kp_snapshot(sn->fd))
			break;
		sn->total += rows_count(sn->ex, sn->port, KPROF_ROLE_CLIENT,
					NULL);
		sn->snaps++;
	}
	return NULL;
}

/* Intervals closed at 10 Hz under traffic lose and double nothing. */
TEST_F(tcp, snapshots_at_10hz_sum_exactly)
{
	struct server s = { .respond = 1 };
	struct snapper sn = { .fd = self->fd, .ex = &self->ex };
	pthread_t t;
	int fd, n = 0;

	ASSERT_EQ(0, server_start(&s, AF_INET, 0));
	sn.port = s.port;
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	ASSERT_EQ(0, pthread_create(&t, NULL, snap_loop, &sn));
	fd = client_connect(AF_INET, s.port);
	ASSERT_LE(0, fd);
	/* requests back to back until ten intervals have closed */
	while (sn.snaps < 10 || n < 400) {
		ASSERT_NE(0, client_request(fd));
		n++;
	}
	close(fd);
	sn.stop = 1;
	pthread_join(t, NULL);
	ASSERT_EQ(0, kp_snapshot(self->fd));
	sn.total += rows_count(&self->ex, s.port, KPROF_ROLE_CLIENT, NULL);
	server_stop(&s);
	TH_LOG("%d requests over %d snapshots", n, sn.snaps);
	EXPECT_LE(10, sn.snaps);
	EXPECT_EQ(n, sn.total);
}

/*
 * The function the threshold test's stack must show: built with frame
 * pointers and exported (-rdynamic) so dladdr() names it.  The receive is
 * a raw syscall() so no frame-pointer-less libc code sits between it and
 * the kernel: the first return address the walk reads is the one into
 * slow_client_loop().
 */
__attribute__((noinline)) uint64_t slow_request(int fd)
{
	char buf[REQ_LEN] = "kprof request";
	uint64_t t0 = now_ns();
	size_t got = 0;

	if (send(fd, buf, sizeof(buf), MSG_NOSIGNAL) != sizeof(buf))
		return 0;
	while (got < sizeof(buf)) {
		long n = syscall(SYS_recvfrom, fd, buf + got, sizeof(buf) - got,
				 0, NULL, NULL);

		if (n <= 0)
			return 0;
		got += n;
	}
	return now_ns() - t0;
}

__attribute__((noinline)) uint64_t slow_client_loop(int fd, int n)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < n; i++)
		sum += slow_request(fd);
	return sum;
}

static int stack_has_symbol(int fd, uint32_t id, const char *name)
{
	struct kprof_stack_query q;
	unsigned int i;
	int ret = kprof_get_stack(fd, id, &q);

	if (ret)
		return ret;
	for (i = 0; i < q.stack.nr_user; i++) {
		Dl_info di;

		if (dladdr((void *)(uintptr_t)q.stack.user_ips[i], &di) &&
		    di.dli_sname && !strcmp(di.dli_sname, name))
			return 1;
	}
	return 0;
}

TEST_F(tcp, threshold_splits_stack_ids)
{
	struct kprof_config cfg = { .threshold_ns = 5 * MS };
	struct server fast = { .respond = 1 }, slow = { .respond = 1 };
	static struct kprof_stack_query q[32];
	uint32_t ids[32], nids, j;
	struct kprof_tcp_row *r;
	int fd1, fd2, slow_rows = 0;
	uint32_t i;

	ASSERT_EQ(0, kprof_set_config(self->fd, &cfg));
	ASSERT_EQ(0, server_start(&fast, AF_INET, 0));
	ASSERT_EQ(0, server_start(&slow, AF_INET, 20 * MS));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	fd1 = client_connect(AF_INET, fast.port);
	fd2 = client_connect(AF_INET, slow.port);
	ASSERT_LE(0, fd1);
	ASSERT_LE(0, fd2);
	ASSERT_NE(0, slow_client_loop(fd2, 5));
	/* fast requests, most well below 5 ms even under emulation */
	for (i = 0; i < 20; i++)
		ASSERT_NE(0, client_request(fd1));
	close(fd1);
	close(fd2);
	ASSERT_EQ(0, kp_snapshot(self->fd));
	for (i = 0; i < self->ex.hdr->nr_tcp_rows; i++) {
		r = &self->ex.rows[i];
		if (r->role != KPROF_ROLE_CLIENT)
			continue;
		if (r->rport == slow.port) {
			EXPECT_NE(0, r->stack_id);
			EXPECT_EQ(1, stack_has_symbol(self->fd, r->stack_id,
						      "slow_client_loop"));
			slow_rows++;
		}
		if (r->rport == fast.port && r->stack_id == 0)
			EXPECT_LT(r->max_ns, cfg.threshold_ns);
		if (r->rport == fast.port && r->stack_id)
			EXPECT_GE(r->min_ns, cfg.threshold_ns);
	}
	EXPECT_LE(1, slow_rows);
	EXPECT_EQ(5, rows_count(&self->ex, slow.port, KPROF_ROLE_CLIENT, NULL));

	/*
	 * Deduplication: 25 more slow requests down the same code path
	 * reuse the stacks (a handful of variants at most), and no two IDs
	 * hold the same stack.
	 */
	fd2 = client_connect(AF_INET, slow.port);
	ASSERT_LE(0, fd2);
	ASSERT_NE(0, slow_client_loop(fd2, 25));
	close(fd2);
	ASSERT_EQ(0, kp_snapshot(self->fd));
	nids = 0;
	for (i = 0; i < self->ex.hdr->nr_tcp_rows && nids < 32; i++) {
		r = &self->ex.rows[i];
		if (r->rport == slow.port && r->stack_id)
			ids[nids++] = r->stack_id;
	}
	EXPECT_LE(1, nids);
	EXPECT_GE(5, nids);
	for (i = 0; i < nids; i++) {
		ASSERT_EQ(0, kprof_get_stack(self->fd, ids[i], &q[i]));
		for (j = 0; j < i; j++) {
			EXPECT_NE(ids[j], ids[i]);
			EXPECT_NE(0, memcmp(&q[j].stack.tgid, &q[i].stack.tgid,
					    sizeof(q[i].stack) -
					    offsetof(struct kprof_stack, tgid)) ||
				     memcmp(q[j].ksyms, q[i].ksyms,
					    sizeof(q[i].ksyms)));
		}
	}
	server_stop(&fast);
	server_stop(&slow);
}

/*
 * A request's kernel stack starts in the probed receive function, has
 * none of the probe's own frames above it (handler, kprobe or ftrace
 * dispatch, exception entry) and reaches the system call.
 */
TEST_F(tcp, stack_starts_in_probed_function)
{
	static const char * const machinery[] = {
		"kprof", "kprobe", "ftrace", "int3", "exc_", "perf_",
	};
	struct kprof_config cfg = { .threshold_ns = 0 };
	struct server srv = { .respond = 1 };
	static struct kprof_stack_query q;
	struct kprof_tcp_row *r;
	int fd, stacks = 0;
	unsigned int k, m;
	uint32_t i;

	ASSERT_EQ(0, kprof_set_config(self->fd, &cfg));
	ASSERT_EQ(0, server_start(&srv, AF_INET, 0));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	fd = client_connect(AF_INET, srv.port);
	ASSERT_LE(0, fd);
	for (i = 0; i < 5; i++)
		ASSERT_NE(0, client_request(fd));
	close(fd);
	ASSERT_EQ(0, kp_snapshot(self->fd));
	for (i = 0; i < self->ex.hdr->nr_tcp_rows; i++) {
		const char *s;
		int syscall = 0;

		r = &self->ex.rows[i];
		if (r->rport != srv.port || r->role != KPROF_ROLE_CLIENT ||
		    !r->stack_id)
			continue;
		ASSERT_EQ(0, kprof_get_stack(self->fd, r->stack_id, &q));
		ASSERT_NE(KPROF_KSYMS_MISSING, q.stack.ksyms_off);
		ASSERT_LT(0, q.stack.nr_kernel);
		s = q.ksyms + q.stack.ksyms_off;
		TH_LOG("stack %u: %u kernel frames, first %s", q.id,
		       q.stack.nr_kernel, s);
		EXPECT_TRUE(!strncmp(s, "tcp_cleanup_rbuf+", 17) ||
			    !strncmp(s, "__tcp_cleanup_rbuf+", 19));
		for (k = 0; k < q.stack.nr_kernel; k++) {
			for (m = 0; m < sizeof(machinery) / sizeof(*machinery);
			     m++)
				EXPECT_FALSE(!!strstr(s, machinery[m])) {
					TH_LOG("frame %u: %s", k, s);
				}
			syscall |= !!strstr(s, "do_syscall_64");
			s += strlen(s) + 1;
		}
		EXPECT_EQ(1, syscall);
		stacks++;
	}
	EXPECT_LE(1, stacks);
	server_stop(&srv);
}

/* Receive one REQ_LEN response with system call @how (see below). */
static int recv_via(int fd, char *buf, unsigned int how)
{
	struct iovec iov = { .iov_base = buf, .iov_len = REQ_LEN };
	struct mmsghdr mm = { .msg_hdr = { .msg_iov = &iov,
					   .msg_iovlen = 1 } };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	switch (how) {
	case 0:
		n = recv(fd, buf, REQ_LEN, MSG_WAITALL);
		break;
	case 1:
		n = read(fd, buf, REQ_LEN);
		break;
	case 2:
		n = recvmsg(fd, &mh, MSG_WAITALL);
		break;
	case 3:
		n = readv(fd, &iov, 1);
		break;
	default:
		n = recvmmsg(fd, &mm, 1, MSG_WAITALL, NULL) == 1 ?
		    (ssize_t)mm.msg_len : -1;
		break;
	}
	/* the rest, if any, through the test's usual receive */
	if (n <= 0 || n > REQ_LEN)
		return -1;
	return n < REQ_LEN ? read_full(fd, buf + n, REQ_LEN - n) : 0;
}

/*
 * The same probed function reached through five system calls, in an
 * irregular order, on one CPU (so through one CPU's cache of kernel
 * traces, which holds fewer): every request's kernel stack names the
 * system call it really came through, as often as the client made it
 * (less any request whose stack was dropped or shed, which is counted).
 * A cached trace handed out for the wrong path shows as a wrong count.
 */
TEST_F(tcp, kernel_stack_names_each_requests_syscall)
{
	/*
	 * Frames only one of the paths has, on any kernel here: the
	 * __x64_sys_ wrappers of the older ones tail-call (no frame); before
	 * 4.17's wrappers, recv and read were SyS_recvfrom and SyS_read.
	 */
	static const char * const sys[5][4] = {
		{ "recv", "__sys_recvfrom+", "__x64_sys_recvfrom+",
		  "SyS_recvfrom+" },
		{ "read", "ksys_read+", "__x64_sys_read+", "SyS_read+" },
		{ "recvmsg", "__sys_recvmsg+", "__x64_sys_recvmsg+" },
		{ "readv", "do_readv+", "__x64_sys_readv+" },
		{ "recvmmsg", "do_recvmmsg+", "__sys_recvmmsg+",
		  "__x64_sys_recvmmsg+" },
	};
	static const unsigned int order[] = {
		0, 1, 0, 2, 3, 0, 4, 1, 1, 0, 2, 4, 4, 3, 0, 1, 2, 0, 4, 1,
		3, 0, 2, 1, 0, 4, 0, 1, 2, 0,
	};
	struct kprof_config cfg = { .threshold_ns = 0 };
	struct server srv = { .respond = 1 };
	uint64_t made[5] = { 0 }, seen[5] = { 0 };
	static struct kprof_stack_query q;
	cpu_set_t one, old;
	struct kprof_tcp_row *r;
	char buf[REQ_LEN];
	unsigned long long total = 0, stacked = 0, unstacked = 0;
	unsigned int k, c, m, paths;
	int fd;
	uint32_t i;

#ifndef __x86_64__
	SKIP(return, "x86-64 system call names");
#endif
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(old), &old));
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	ASSERT_EQ(0, kprof_set_config(self->fd, &cfg));
	ASSERT_EQ(0, server_start(&srv, AF_INET, 0));
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	fd = client_connect(AF_INET, srv.port);
	ASSERT_LE(0, fd);
	for (k = 0; k < 3 * sizeof(order) / sizeof(*order); k++) {
		c = order[k % (sizeof(order) / sizeof(*order))];
		memset(buf, 'q', sizeof(buf));
		ASSERT_EQ(sizeof(buf), send(fd, buf, sizeof(buf),
					    MSG_NOSIGNAL));
		ASSERT_EQ(0, recv_via(fd, buf, c));
		made[c]++;
	}
	close(fd);
	sched_setaffinity(0, sizeof(old), &old);
	ASSERT_EQ(0, kp_snapshot(self->fd));
	for (i = 0; i < self->ex.hdr->nr_tcp_rows; i++) {
		const char *s;

		r = &self->ex.rows[i];
		if (r->rport != srv.port || r->role != KPROF_ROLE_CLIENT)
			continue;
		if (!r->stack_id) {
			/* dropped or shed by the overhead guard */
			unstacked += r->count;
			continue;
		}
		ASSERT_EQ(0, kprof_get_stack(self->fd, r->stack_id, &q));
		ASSERT_NE(KPROF_KSYMS_MISSING, q.stack.ksyms_off);
		paths = 0;
		s = q.ksyms + q.stack.ksyms_off;
		for (k = 0; k < q.stack.nr_kernel; k++) {
			for (c = 0; c < 5; c++)
				for (m = 1; m < 4 && sys[c][m]; m++)
					if (!strncmp(s, sys[c][m],
						     strlen(sys[c][m])))
						paths |= 1U << c;
			s += strlen(s) + 1;
		}
		for (c = 0; c < 5; c++)
			if (paths == 1U << c)
				seen[c] += r->count;
		EXPECT_EQ(1, __builtin_popcount(paths)) {
			s = q.ksyms + q.stack.ksyms_off;
			for (k = 0; k < q.stack.nr_kernel; k++) {
				TH_LOG("stack %u frame %u: %s", q.id, k, s);
				s += strlen(s) + 1;
			}
		}
	}
	/* exact, less the requests that went without a stack */
	for (c = 0; c < 5; c++) {
		unsigned long long m = made[c], n = seen[c];
		const char *name = sys[c][0];

		EXPECT_LE(n, m) {
			TH_LOG("%s: %llu requests, %llu stacks", name, m, n);
		}
		total += m;
		stacked += n;
	}
	EXPECT_EQ(total, stacked + unstacked);
	if (unstacked)
		TH_LOG("%llu of %llu requests without a stack", unstacked,
		       total);
	server_stop(&srv);
}

/*
 * A row's per-CPU slot is used again two intervals later (each CPU has
 * two tables, one per interval parity): one connection, pinned to one
 * CPU, makes requests of 3 and 30 ms, then nothing, then of 0 and 60 ms,
 * whose range of buckets takes in the first ones'.  The last interval's
 * row must hold its own requests only: the buckets sum to the count and
 * lie between the min's and the max's.
 */
TEST_F(tcp, reused_row_starts_clean)
{
	static const uint64_t delays[] = { 3 * MS, 30 * MS, 0, 60 * MS };
	struct server s = { .respond = 1 };
	cpu_set_t one, old;
	uint64_t sum = 0;
	unsigned int b, lo, hi;
	const struct kprof_tcp_row *r = NULL;
	uint32_t i;
	int fd, k;

	ASSERT_EQ(0, sched_getaffinity(0, sizeof(old), &old));
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	ASSERT_EQ(0, server_start(&s, AF_INET, 0));
	fd = client_connect(AF_INET, s.port);
	ASSERT_LE(0, fd);
	for (k = 0; k < 4; k++) {
		s.delay_ns = delays[k];
		ASSERT_NE(0, client_request(fd));
		if (k == 1) {		/* wide, then an empty interval */
			ASSERT_EQ(0, kp_snapshot(self->fd));
			EXPECT_EQ(2, rows_count(&self->ex, s.port,
						KPROF_ROLE_CLIENT, NULL));
			ASSERT_EQ(0, kp_snapshot(self->fd));
		}
	}
	close(fd);
	server_stop(&s);
	ASSERT_EQ(0, kp_snapshot(self->fd));
	sched_setaffinity(0, sizeof(old), &old);
	for (i = 0; i < self->ex.hdr->nr_tcp_rows; i++)
		if (self->ex.rows[i].rport == s.port &&
		    self->ex.rows[i].role == KPROF_ROLE_CLIENT)
			r = &self->ex.rows[i];
	ASSERT_NE(NULL, r);
	EXPECT_EQ(2, r->count);
	lo = hist_bucket_of(r->min_ns);
	hi = hist_bucket_of(r->max_ns);
	TH_LOG("last interval: min %llu ns, max %llu ns, buckets %u..%u",
	       (unsigned long long)r->min_ns, (unsigned long long)r->max_ns,
	       lo, hi);
	for (b = 0; b < KPROF_HIST_BUCKETS; b++) {
		sum += r->hist[b];
		if (r->hist[b] && (b < lo || b > hi))
			TH_LOG("bucket %u holds %u, outside %u..%u", b,
			       r->hist[b], lo, hi);
		EXPECT_TRUE(!r->hist[b] || (b >= lo && b <= hi));
	}
	EXPECT_EQ(r->count, sum);
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_STOP, KPROF_RUN_TCP));
}

/*
 * A listener on 127.0.0.1 (*@lfd, its port in *@port), a client connected
 * to it (*@c) and the server's side (*@s); 0, or -1 with nothing open.
 */
static int loopback_pair(int *lfd, int *c, int *s, uint16_t *port)
{
	*lfd = loopback_listen(AF_INET, 1, port);
	if (*lfd < 0)
		return -1;
	*c = client_connect(AF_INET, *port);
	*s = *c < 0 ? -1 : accept(*lfd, NULL, NULL);
	if (*s >= 0)
		return 0;
	if (*c >= 0)
		close(*c);
	close(*lfd);
	return -1;
}

/* Wait until @fd has data, then receive one REQ_LEN message: one recvmsg
 * that does not wait inside TCP, so one receive cleanup. */
static int recv_ready(int fd, char *buf)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, 10000) != 1)
		return -1;
	return recv(fd, buf, REQ_LEN, MSG_WAITALL) == REQ_LEN ? 0 : -1;
}

/*
 * A receive reaches the handler once: where tcp_cleanup_rbuf() calls
 * __tcp_cleanup_rbuf() out of line, only one of the two is probed.  40
 * round trips on one loopback connection, each side receiving only once
 * its data is there (a receive that waits inside TCP cleans up once more
 * before it sleeps): 80 receives, 80 handler calls; both probes hit
 * would make it 160.
 */
TEST_F(tcp, one_handler_call_per_receive)
{
	struct kprof_info info = { .size = sizeof(info) };
	struct kprof_stats a, b;
	char buf[REQ_LEN] = "kprof one call";
	int lfd, c, s, i;
	uint64_t calls;
	uint16_t port;

	ASSERT_EQ(0, kprof_get_info(self->fd, &info));
	ASSERT_EQ(0, loopback_pair(&lfd, &c, &s, &port));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, kprof_get_stats(self->fd, &a));
	for (i = 0; i < 40; i++) {
		ASSERT_EQ(REQ_LEN, send(c, buf, REQ_LEN, 0));
		ASSERT_EQ(0, recv_ready(s, buf));
		ASSERT_EQ(REQ_LEN, send(s, buf, REQ_LEN, 0));
		ASSERT_EQ(0, recv_ready(c, buf));
	}
	ASSERT_EQ(0, kprof_get_stats(self->fd, &b));
	close(c);
	close(s);
	close(lfd);
	calls = b.cost_calls[KPROF_COST_RECV] - a.cost_calls[KPROF_COST_RECV];
	TH_LOG("attach 0x%x: %llu receive handler calls for 80 receives",
	       info.attach, (unsigned long long)calls);
	/* a few more from other TCP traffic in the machine at most */
	EXPECT_LE(80, calls);
	EXPECT_GT(100, calls);
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_STOP, KPROF_RUN_TCP));
}

/*
 * A request completes when the application reads the response, not at a
 * receive cleanup that copied none of it: setsockopt(TCP_QUICKACK, 1)
 * with an ACK pending calls tcp_cleanup_rbuf(sk, 1).  The client delays
 * its ACKs (TCP_QUICKACK 0); the server sends the response's first byte
 * at once and the rest 200 ms later; the client asks for a quick ACK as
 * soon as the first byte is there and reads the response at the end.
 */
TEST_F(tcp, quickack_does_not_complete)
{
	uint64_t hist[KPROF_HIST_BUCKETS] = { 0 };
	char buf[REQ_LEN] = "kprof quickack";
	struct pollfd p;
	int lfd, c, s, zero = 0, one = 1;
	uint16_t port;
	double p50;

	ASSERT_EQ(0, loopback_pair(&lfd, &c, &s, &port));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	ASSERT_EQ(0, setsockopt(c, IPPROTO_TCP, TCP_QUICKACK, &zero,
				sizeof(zero)));
	ASSERT_EQ(REQ_LEN, send(c, buf, REQ_LEN, 0));
	ASSERT_EQ(0, recv_ready(s, buf));
	ASSERT_EQ(1, send(s, buf, 1, 0));
	p = (struct pollfd){ .fd = c, .events = POLLIN };
	ASSERT_EQ(1, poll(&p, 1, 10000));
	ASSERT_EQ(0, setsockopt(c, IPPROTO_TCP, TCP_QUICKACK, &one,
				sizeof(one)));
	sleep_ns(200 * MS);
	ASSERT_EQ(REQ_LEN - 1, send(s, buf + 1, REQ_LEN - 1, 0));
	ASSERT_EQ(REQ_LEN, recv(c, buf, REQ_LEN, MSG_WAITALL));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	close(c);
	close(s);
	close(lfd);
	EXPECT_EQ(1, rows_count(&self->ex, port, KPROF_ROLE_CLIENT, hist));
	p50 = hist_pct(hist, 50);
	TH_LOG("request answered after 200 ms timed at %.0f ns", p50);
	EXPECT_LT(190.0 * MS, p50);
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_STOP, KPROF_RUN_TCP));
}

/*
 * connect(AF_UNSPEC) disconnects a socket without closing it
 * (tcp_disconnect()): a request in flight then is abandoned, and the
 * socket's next connection starts clean, with no start time or role
 * carried over to the next endpoint.
 */
TEST_F(tcp, disconnect_starts_clean)
{
	uint64_t hist[KPROF_HIST_BUCKETS] = { 0 };
	struct sockaddr unspec = { .sa_family = AF_UNSPEC };
	struct sockaddr_in b = { .sin_family = AF_INET };
	char buf[REQ_LEN] = "kprof disconnect";
	struct kprof_stats before, after;
	int la, lb, c, s;
	uint16_t pa = 0, pb = 0;
	double p50;

	la = loopback_listen(AF_INET, 1, &pa);
	lb = loopback_listen(AF_INET, 1, &pb);
	ASSERT_LE(0, la);
	ASSERT_LE(0, lb);
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	ASSERT_EQ(0, kprof_get_stats(self->fd, &before));
	/* a request to A that is never answered */
	c = client_connect(AF_INET, pa);
	ASSERT_LE(0, c);
	ASSERT_EQ(REQ_LEN, send(c, buf, REQ_LEN, 0));
	sleep_ns(300 * MS);
	ASSERT_EQ(0, connect(c, &unspec, sizeof(unspec)));
	/* the same socket, now a client of B, answered at once */
	b.sin_port = htons(pb);
	b.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_EQ(0, connect(c, (struct sockaddr *)&b, sizeof(b)));
	s = accept(lb, NULL, NULL);
	ASSERT_LE(0, s);
	ASSERT_EQ(REQ_LEN, send(c, buf, REQ_LEN, 0));
	ASSERT_EQ(0, recv_ready(s, buf));
	ASSERT_EQ(REQ_LEN, send(s, buf, REQ_LEN, 0));
	ASSERT_EQ(0, recv_ready(c, buf));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	ASSERT_EQ(0, kprof_get_stats(self->fd, &after));
	close(c);
	close(s);
	close(la);
	close(lb);
	EXPECT_EQ(0, rows_count(&self->ex, pa, 0, NULL));
	EXPECT_EQ(1, rows_count(&self->ex, pb, KPROF_ROLE_CLIENT, hist));
	p50 = hist_pct(hist, 50);
	TH_LOG("B's request timed at %.0f ns (A's was sent 300 ms before)",
	       p50);
	EXPECT_GT(150.0 * MS, p50);
	EXPECT_EQ(1, after.abandoned - before.abandoned);
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_STOP, KPROF_RUN_TCP));
}

/*
 * Two threads making the first send on a new socket at once claim one
 * in-flight slot, not two: a second slot for the same socket would keep
 * its start time until the close and count as an abandoned request.
 * Both threads spin on a shared flag, on two CPUs, and send at its flip;
 * the server answers the two bytes with one; every connection is one
 * request, none abandoned.
 */
struct race {
	int fd;
	int round;		/* the round the helper thread may send in */
	int done;		/* the last round it sent in */
};

static void *race_sender(void *arg)
{
	struct race *r = arg;
	int round;

	for (round = 1;; round++) {
		while (__atomic_load_n(&r->round, __ATOMIC_ACQUIRE) < round)
			;
		if (r->fd < 0)
			return NULL;
		if (send(r->fd, "b", 1, 0) != 1)
			return NULL;
		__atomic_store_n(&r->done, round, __ATOMIC_RELEASE);
	}
}

/*
 * 400 connections, each with two threads spinning for the other: on the
 * debug kernel under emulation (both vCPUs in one host thread, which a
 * spinning vCPU holds) it took past the default 30 s once.
 */
TEST_F_TIMEOUT(tcp, first_sends_at_once_one_slot, 120)
{
	struct kprof_stats before, after;
	struct race r = { .fd = -1 };
	uint16_t port = 0;
	pthread_t t;
	char buf[2];
	int lfd, s, round;
	const int rounds = 400;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs");
	lfd = loopback_listen(AF_INET, rounds, &port);
	ASSERT_LE(0, lfd);
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	ASSERT_EQ(0, kprof_get_stats(self->fd, &before));
	ASSERT_EQ(0, pthread_create(&t, NULL, race_sender, &r));
	for (round = 1; round <= rounds; round++) {
		r.fd = client_connect(AF_INET, port);
		ASSERT_LE(0, r.fd);
		s = accept(lfd, NULL, NULL);
		ASSERT_LE(0, s);
		__atomic_store_n(&r.round, round, __ATOMIC_RELEASE);
		ASSERT_EQ(1, send(r.fd, "a", 1, 0));
		while (__atomic_load_n(&r.done, __ATOMIC_ACQUIRE) < round)
			;
		ASSERT_EQ(0, read_full(s, buf, 2));
		ASSERT_EQ(1, send(s, "c", 1, 0));
		ASSERT_EQ(0, read_full(r.fd, buf, 1));
		close(r.fd);
		close(s);
	}
	r.fd = -1;
	__atomic_store_n(&r.round, rounds + 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	close(lfd);
	ASSERT_EQ(0, kp_snapshot(self->fd));
	ASSERT_EQ(0, kprof_get_stats(self->fd, &after));
	EXPECT_EQ(rounds, rows_count(&self->ex, port, KPROF_ROLE_CLIENT, NULL));
	/* the server's one response per connection is abandoned at close */
	EXPECT_EQ(rounds, after.abandoned - before.abandoned);
	EXPECT_EQ(0, after.inflight);
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_STOP, KPROF_RUN_TCP));
}

/* The server side is a role of its own and never mixes with clients. */
TEST_F(tcp, server_role_kept_apart)
{
	struct kprof_config cfg = {
		.roles = 1 << KPROF_ROLE_SERVER,
		.threshold_ns = 100 * MS * 1000,
	};
	uint64_t lat[10];
	uint16_t port;
	uint32_t i;

	ASSERT_EQ(0, kprof_set_config(self->fd, &cfg));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	ASSERT_EQ(0, run_requests(AF_INET, 0, 10, &port, lat));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	EXPECT_EQ(0, rows_count(&self->ex, 0, KPROF_ROLE_CLIENT, NULL));
	/* the server's 10 responses: 9 answered by the next request */
	EXPECT_EQ(9, rows_count(&self->ex, 0, KPROF_ROLE_SERVER, NULL));
	for (i = 0; i < self->ex.hdr->nr_tcp_rows; i++)
		EXPECT_NE(port, self->ex.rows[i].rport);
}

TEST_F(tcp, filters)
{
	struct kprof_config cfg = { .threshold_ns = 100 * MS * 1000 };
	uint64_t lat[4];
	uint16_t p4, p6;

	/* IPv6 only */
	cfg.families = KPROF_FAMILY_INET6;
	ASSERT_EQ(0, kprof_set_config(self->fd, &cfg));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	ASSERT_EQ(0, run_requests(AF_INET, 0, 4, &p4, lat));
	ASSERT_EQ(0, run_requests(AF_INET6, 0, 4, &p6, lat));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	EXPECT_EQ(0, rows_count(&self->ex, p4, 0, NULL));
	EXPECT_EQ(4, rows_count(&self->ex, p6, KPROF_ROLE_CLIENT, NULL));

	/* another process only */
	cfg.families = 0;
	cfg.tgid = kprof_test_unused_pid(0);
	ASSERT_NE(0, cfg.tgid);
	ASSERT_EQ(0, kprof_set_config(self->fd, &cfg));
	ASSERT_EQ(0, run_requests(AF_INET, 0, 4, &p4, lat));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	EXPECT_EQ(0, self->ex.hdr->nr_tcp_rows);

	/* this process, one remote port */
	cfg.tgid = getpid();
	cfg.nr_rports = 1;
	cfg.rports[0] = 1;	/* nothing listens there */
	ASSERT_EQ(0, kprof_set_config(self->fd, &cfg));
	ASSERT_EQ(0, run_requests(AF_INET, 0, 4, &p4, lat));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	EXPECT_EQ(0, self->ex.hdr->nr_tcp_rows);
}

/*
 * @n requests from this process to a server of its own, with @cfg in
 * effect from before the connection: the server is started first, so
 * that @set can put its port into @cfg.  Counts of the interval, per
 * role: *client (rows whose remote port is the server's) and *server
 * (the server's responses: rows whose remote port is the client's).
 */
static int filtered_run(struct __test_metadata *_metadata, int fd,
			struct export *ex, struct kprof_config *cfg,
			int family, int n, void (*set)(struct kprof_config *,
						       uint16_t),
			uint64_t *client, uint64_t *server)
{
	struct server s = { .respond = 1 };
	struct sockaddr_storage me;
	socklen_t len = sizeof(me);
	uint16_t cport;
	uint32_t i;
	int c, k;

	if (server_start(&s, family, 0))
		return -1;
	set(cfg, s.port);
	if (kprof_set_config(fd, cfg) || kp_snapshot(fd))
		return -1;
	c = client_connect(family, s.port);
	if (c < 0 || getsockname(c, (struct sockaddr *)&me, &len))
		return -1;
	/* the client's own port: the server's rows have it as remote */
	cport = ntohs(family == AF_INET ? ((struct sockaddr_in *)&me)->sin_port :
		      ((struct sockaddr_in6 *)&me)->sin6_port);
	for (k = 0; k < n; k++)
		if (!client_request(c))
			return -1;
	close(c);
	server_stop(&s);
	if (kp_snapshot(fd))
		return -1;
	*client = *server = 0;
	for (i = 0; i < ex->hdr->nr_tcp_rows; i++) {
		const struct kprof_tcp_row *r = &ex->rows[i];

		if (r->role == KPROF_ROLE_CLIENT && r->rport == s.port)
			*client += r->count;
		else if (r->role == KPROF_ROLE_SERVER && r->rport == cport)
			*server += r->count;
		else
			TH_LOG("unexpected row: role %u, remote port %u, %llu requests",
			       r->role, r->rport, (unsigned long long)r->count);
	}
	return 0;
}

static void only_v4(struct kprof_config *c, uint16_t port)
{
	c->families = KPROF_FAMILY_INET;
}

static void only_v6(struct kprof_config *c, uint16_t port)
{
	c->families = KPROF_FAMILY_INET6;
}

static void only_me(struct kprof_config *c, uint16_t port)
{
	c->tgid = getpid();
}

static void only_rport(struct kprof_config *c, uint16_t port)
{
	c->nr_rports = 2;
	c->rports[0] = 1;	/* nothing there */
	c->rports[1] = port;
}

static void only_lport(struct kprof_config *c, uint16_t port)
{
	c->nr_lports = 2;
	c->lports[0] = port;
	c->lports[1] = 1;
}

static void only_clients(struct kprof_config *c, uint16_t port)
{
	c->roles = 1 << KPROF_ROLE_CLIENT;
}

static void only_servers(struct kprof_config *c, uint16_t port)
{
	c->roles = 1 << KPROF_ROLE_SERVER;
}

/*
 * The other direction of every filter: what it selects comes through,
 * exactly.  10 requests: 10 client rows, and 9 server ones (the server's
 * last response is never answered by a next request).  The local-port
 * filter sees the server's side only (the client's local port is an
 * ephemeral one).
 */
TEST_F(tcp, filters_let_the_selected_traffic_through)
{
	static const struct {
		const char *what;
		int family;
		void (*set)(struct kprof_config *, uint16_t);
		uint64_t client, server;
	} cases[] = {
		{ "IPv4 only, IPv4", AF_INET, only_v4, 10, 9 },
		{ "IPv6 only, IPv6", AF_INET6, only_v6, 10, 9 },
		{ "IPv4 only, IPv6", AF_INET6, only_v4, 0, 0 },
		{ "this process", AF_INET, only_me, 10, 9 },
		{ "remote port", AF_INET, only_rport, 10, 0 },
		{ "local port", AF_INET, only_lport, 0, 9 },
		{ "clients", AF_INET6, only_clients, 10, 0 },
		{ "servers", AF_INET6, only_servers, 0, 9 },
	};
	uint64_t client, server;
	unsigned int i;

	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct kprof_config cfg = { .threshold_ns = 100 * MS * 1000 };

		ASSERT_EQ(0, filtered_run(_metadata, self->fd, &self->ex, &cfg,
					  cases[i].family, 10, cases[i].set,
					  &client, &server));
		TH_LOG("%s: %llu client, %llu server requests", cases[i].what,
		       (unsigned long long)client, (unsigned long long)server);
		EXPECT_EQ(cases[i].client, client);
		EXPECT_EQ(cases[i].server, server);
	}
}

/*
 * The cgroup filter through the ABI: a cgroup ID nobody is in traces
 * nothing; the root cgroup (every task is below it) traces everything;
 * GET_CONFIG returns the ID.  The reader's --cgroup test covers a real
 * subtree.
 */
TEST_F(tcp, cgroup_filter)
{
	struct kprof_config cfg = { .threshold_ns = 100 * MS * 1000 };
	struct kprof_config got = { .size = sizeof(got) };
	struct kprof_info info = { .size = sizeof(info) };
	struct statfs sfs;
	struct stat st;
	uint64_t lat[4];
	uint16_t p4;

	ASSERT_EQ(0, kprof_get_info(self->fd, &info));
	if (!(info.features & KPROF_FEAT_CGROUP))
		SKIP(return, "module has no cgroup filter");
	if (statfs("/sys/fs/cgroup", &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC ||
	    stat("/sys/fs/cgroup", &st))
		SKIP(return, "/sys/fs/cgroup is not cgroup v2");

	cfg.cgroup_id = 0xfffffffffffull;	/* no such cgroup */
	ASSERT_EQ(0, kprof_set_config(self->fd, &cfg));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	ASSERT_EQ(0, run_requests(AF_INET, 0, 4, &p4, lat));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	EXPECT_EQ(0, self->ex.hdr->nr_tcp_rows);

	cfg.cgroup_id = st.st_ino;
	ASSERT_EQ(0, kprof_set_config(self->fd, &cfg));
	ASSERT_EQ(0, kprof_get_config(self->fd, &got));
	EXPECT_EQ(st.st_ino, got.cgroup_id);
	ASSERT_EQ(0, run_requests(AF_INET, 0, 4, &p4, lat));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	EXPECT_EQ(4, rows_count(&self->ex, p4, KPROF_ROLE_CLIENT, NULL));
}

TEST_F(tcp, bad_config_einval)
{
	struct kprof_config cfg = { .size = sizeof(cfg) };

	cfg.roles = 1;
	EXPECT_EQ(-EINVAL, kprof_set_config(self->fd, &cfg));
	cfg.roles = 0;
	cfg.families = 4;
	EXPECT_EQ(-EINVAL, kprof_set_config(self->fd, &cfg));
	cfg.families = 0;
	cfg.nr_rports = KPROF_MAX_PORTS + 1;
	EXPECT_EQ(-EINVAL, kprof_set_config(self->fd, &cfg));
	cfg.nr_rports = 1;
	cfg.rports[0] = 0;
	EXPECT_EQ(-EINVAL, kprof_set_config(self->fd, &cfg));
	cfg.nr_rports = 0;
	cfg.threshold_ns = 101ull * 1000 * MS;
	EXPECT_EQ(-EINVAL, kprof_set_config(self->fd, &cfg));
	cfg.threshold_ns = 0;
	cfg.reserved[1] = 1;
	EXPECT_EQ(-EINVAL, kprof_set_config(self->fd, &cfg));
	cfg.reserved[1] = 0;
	EXPECT_EQ(0, kprof_set_config(self->fd, &cfg));
	EXPECT_EQ(-EINVAL, kprof_control(self->fd, KPROF_IOC_START, 0));
	EXPECT_EQ(-EINVAL, kprof_control(self->fd, KPROF_IOC_START, 1u << 31));
	EXPECT_EQ(-EINVAL, kprof_control(self->fd, KPROF_IOC_RESET, 1u << 31));
}

TEST_F(tcp, start_stop_and_reset)
{
	struct kprof_stats st;
	uint64_t lat[4];
	uint16_t port;

	/* stopped: nothing counted */
	ASSERT_EQ(0, kp_snapshot(self->fd));
	ASSERT_EQ(0, run_requests(AF_INET, 0, 4, &port, lat));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	EXPECT_EQ(0, self->ex.hdr->nr_tcp_rows);

	/*
	 * running; the interval reset, which dropped counts for every
	 * reader, is retired since API 2.0
	 */
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, run_requests(AF_INET, 0, 4, &port, lat));
	EXPECT_EQ(-EINVAL, kprof_control(self->fd, KPROF_IOC_RESET, 1));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	EXPECT_EQ(4, rows_count(&self->ex, port, KPROF_ROLE_CLIENT, NULL));

	/* stacks cannot be forgotten while running */
	EXPECT_EQ(-EBUSY, kprof_control(self->fd, KPROF_IOC_RESET,
					KPROF_RESET_STACKS));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_STOP, KPROF_RUN_TCP));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_STOP, KPROF_RUN_TCP));
	EXPECT_EQ(0, kprof_control(self->fd, KPROF_IOC_RESET,
				   KPROF_RESET_STACKS));
	ASSERT_EQ(0, kprof_get_stats(self->fd, &st));
	EXPECT_EQ(0, st.stacks);
	EXPECT_EQ(0, st.inflight);
}

/* One request on @c, answered by @s once @mid has run. */
static int request_around(struct __test_metadata *_metadata, int fd, int c,
			  int s, int (*mid)(int fd, uint16_t port),
			  uint16_t port)
{
	char buf[REQ_LEN] = "kprof in flight";

	if (send(c, buf, REQ_LEN, 0) != REQ_LEN || recv_ready(s, buf))
		return -1;
	if (mid && mid(fd, port))
		return -1;
	if (send(s, buf, REQ_LEN, 0) != REQ_LEN ||
	    recv(c, buf, REQ_LEN, MSG_WAITALL) != REQ_LEN)
		return -1;
	(void)_metadata;
	return 0;
}

static int stop_start(int fd, uint16_t port)
{
	struct kprof_stats st;

	(void)port;
	if (kprof_control(fd, KPROF_IOC_STOP, KPROF_RUN_TCP) ||
	    kprof_get_stats(fd, &st))
		return -1;
	/* forgotten at STOP: nothing in flight any more */
	if (st.inflight)
		return -1;
	return kprof_control(fd, KPROF_IOC_START, KPROF_RUN_TCP);
}

/* Only @port's client side, with threshold @thr. */
static int only_port(int fd, uint16_t port, uint64_t thr)
{
	struct kprof_config cfg = {
		.threshold_ns = thr, .nr_rports = 1, .rports = { port },
	};

	return kprof_set_config(fd, &cfg);
}

/* Another port only, every request walked: while @port's is in flight. */
static int other_port_walk_all(int fd, uint16_t port)
{
	return only_port(fd, port + 1, 0);
}

/* @port again, every request walked. */
static int this_port_walk_all(int fd, uint16_t port)
{
	return only_port(fd, port, 0);
}

/*
 * What STOP, SET_CONFIG and RESET do to requests in flight and to the
 * counts, as kprofmod(4) says: STOP forgets a request in flight (counted
 * neither as completed nor abandoned); a request keeps the filters'
 * decision from its start, and the threshold is read when it completes.
 */
TEST_F(tcp, stop_config_and_reset_on_requests_in_flight)
{
	struct kprof_stats a, b;
	struct rows_sum sum;
	int lfd, c, s;
	uint16_t port;

	ASSERT_EQ(0, loopback_pair(&lfd, &c, &s, &port));
	ASSERT_EQ(0, only_port(self->fd, port, 100 * MS * 1000));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	ASSERT_EQ(0, kprof_get_stats(self->fd, &a));

	/* STOP and START again while a request is in flight */
	ASSERT_EQ(0, request_around(_metadata, self->fd, c, s, stop_start,
				    port));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	ASSERT_EQ(0, kprof_get_stats(self->fd, &b));
	EXPECT_EQ(0, rows_sum(&self->ex, port, KPROF_ROLE_CLIENT, NULL, &sum));
	EXPECT_EQ(a.requests, b.requests);
	EXPECT_EQ(a.abandoned, b.abandoned);

	/* filters changed away from it in flight: still counted, and the
	 * threshold (now 0) read at its end gives it a stack */
	ASSERT_EQ(0, request_around(_metadata, self->fd, c, s,
				    other_port_walk_all, port));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	EXPECT_EQ(1, rows_sum(&self->ex, port, KPROF_ROLE_CLIENT, NULL, &sum));
	EXPECT_NE(0, sum.stack_id);
	/* ...and the next one is not */
	ASSERT_EQ(0, request_around(_metadata, self->fd, c, s, NULL, port));
	/* not tracked at its start: not counted when the filters take
	 * its port in again before its end */
	ASSERT_EQ(0, request_around(_metadata, self->fd, c, s,
				    this_port_walk_all, port));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	EXPECT_EQ(0, rows_sum(&self->ex, port, KPROF_ROLE_CLIENT, NULL, &sum));

	close(c);
	close(s);
	close(lfd);
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_STOP, KPROF_RUN_TCP));
}

/*
 * Closed sockets leave dead slots in the in-flight table; they are
 * reclaimed while tracing runs, not only at STOP, so lookups of untracked
 * sockets do not grow towards the 32-slot probe limit with churn.
 */
TEST_F(tcp, dead_slots_reclaimed_while_running)
{
	struct server s = { .respond = 1 };
	struct kprof_stats st;
	int fd, i, n = 300;

	ASSERT_EQ(0, server_start(&s, AF_INET, 0));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	for (i = 0; i < n; i++) {
		fd = client_connect(AF_INET, s.port);
		ASSERT_LE(0, fd);
		ASSERT_NE(0, client_request(fd));
		close(fd);
	}
	server_stop(&s);
	sleep_ns(200 * MS);
	/* closed sockets keep their slots until destroyed (API 3.3) */
	EXPECT_EQ(0, kp_wait_closed_destroyed(self->fd));
	ASSERT_EQ(0, kprof_get_stats(self->fd, &st));
	TH_LOG("%d connections closed: %u slots in flight, %u dead",
	       n, st.inflight, st.inflight_dead);
	EXPECT_EQ(0, st.inflight);
	EXPECT_GE(4, st.inflight_dead);
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_STOP, KPROF_RUN_TCP));
	ASSERT_EQ(0, kprof_get_stats(self->fd, &st));
	EXPECT_EQ(0, st.inflight_dead);
}

struct churn {
	struct server s;
	int n, done;
};

static void *churn_run(void *arg)
{
	struct churn *c = arg;
	int fd;

	for (c->done = 0; c->done < c->n; c->done++) {
		fd = client_connect(AF_INET, c->s.port);
		if (fd < 0)
			break;
		if (!client_request(fd)) {
			close(fd);
			break;
		}
		close(fd);
	}
	return NULL;
}

/*
 * Connections opened, used and closed on four threads at once, so that
 * inserts, closes and reclaims of the in-flight table meet on both CPUs:
 * every request is counted, and nothing is left in flight or dead.
 */
TEST_F(tcp, churn_on_all_cpus_counts_exactly)
{
	struct churn c[4];
	struct kprof_stats st;
	pthread_t t[4];
	int i;

	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	for (i = 0; i < 4; i++) {
		memset(&c[i], 0, sizeof(c[i]));
		c[i].s.respond = 1;
		c[i].n = 150;
		ASSERT_EQ(0, server_start(&c[i].s, AF_INET, 0));
	}
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, churn_run, &c[i]));
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		server_stop(&c[i].s);
	}
	sleep_ns(200 * MS);
	EXPECT_EQ(0, kp_wait_closed_destroyed(self->fd));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	ASSERT_EQ(0, kprof_get_stats(self->fd, &st));
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(c[i].n, c[i].done);
		EXPECT_EQ(c[i].done, rows_count(&self->ex, c[i].s.port,
						KPROF_ROLE_CLIENT, NULL));
	}
	TH_LOG("%u in flight, %u dead after 4 x 150 connections",
	       st.inflight, st.inflight_dead);
	EXPECT_EQ(0, st.inflight);
	EXPECT_GE(4, st.inflight_dead);
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_STOP, KPROF_RUN_TCP));
}

/*
 * Two clients on one CPU, their servers on another: B, SCHED_FIFO, wakes
 * on each answer and preempts A wherever A is, in its system calls too
 * (on a preemptible kernel), A's hooks included but for the stretches
 * they run with preemption off.  Every request of each is counted once,
 * or the hook call that missed it is (hooks_missed, API 4.1).
 */
struct preempt_client {
	uint16_t port;
	int cpu, fifo;
	int n;			/* requests to make; 0: until *stop */
	int *stop;
	int done, err;
};

static void *preempt_run(void *arg)
{
	struct preempt_client *c = arg;
	struct sched_param sp = { .sched_priority = 10 };
	cpu_set_t set;
	int fd;

	CPU_ZERO(&set);
	CPU_SET(c->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) ||
	    (c->fifo && sched_setscheduler(0, SCHED_FIFO, &sp))) {
		c->err = errno;
		return NULL;
	}
	fd = client_connect(AF_INET, c->port);
	if (fd < 0) {
		c->err = errno;
		return NULL;
	}
	while (c->n ? c->done < c->n :
	       !__atomic_load_n(c->stop, __ATOMIC_ACQUIRE)) {
		errno = 0;
		if (!client_request(fd)) {
			c->err = errno ?: EIO;
			break;
		}
		c->done++;
	}
	close(fd);
	return NULL;
}

TEST_F_TIMEOUT(tcp, preempted_requests_counted_exactly, 120)
{
	struct preempt_client a = { 0 }, b = { .fifo = 1 };
	struct kprof_stats before, after;
	struct server sa = { .respond = 1 }, sb = { .respond = 1 };
	uint64_t na, nb, missed;
	int stop = 0, cpu[2], n = 0, i;
	pthread_t ta, tb;
	cpu_set_t set, old;

	/* the clients on the first CPU allowed here, the servers on the next */
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(old), &old));
	for (i = 0; i < CPU_SETSIZE && n < 2; i++)
		if (CPU_ISSET(i, &old))
			cpu[n++] = i;
	if (n < 2)
		SKIP(return, "needs two CPUs");
	a.cpu = b.cpu = cpu[0];
	CPU_ZERO(&set);
	CPU_SET(cpu[1], &set);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
	ASSERT_EQ(0, server_start(&sa, AF_INET, 0));
	ASSERT_EQ(0, server_start(&sb, AF_INET, 0));
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(old), &old));
	a.port = sa.port;
	a.stop = &stop;
	b.port = sb.port;
	b.n = 2000;

	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	ASSERT_EQ(0, kprof_get_stats(self->fd, &before));
	ASSERT_EQ(0, pthread_create(&ta, NULL, preempt_run, &a));
	ASSERT_EQ(0, pthread_create(&tb, NULL, preempt_run, &b));
	pthread_join(tb, NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(ta, NULL);
	server_stop(&sa);
	server_stop(&sb);
	EXPECT_EQ(0, kp_wait_closed_destroyed(self->fd));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	ASSERT_EQ(0, kprof_get_stats(self->fd, &after));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_STOP, KPROF_RUN_TCP));
	if (b.err == EPERM)
		SKIP(return, "cannot make a thread SCHED_FIFO");
	ASSERT_EQ(0, a.err);
	ASSERT_EQ(0, b.err);
	na = rows_count(&self->ex, sa.port, KPROF_ROLE_CLIENT, NULL);
	nb = rows_count(&self->ex, sb.port, KPROF_ROLE_CLIENT, NULL);
	missed = after.hooks_missed - before.hooks_missed;
	TH_LOG("A (SCHED_OTHER) %d requests, %llu counted; B (SCHED_FIFO) %d, %llu counted; %llu hook calls missed",
	       a.done, (unsigned long long)na, b.done,
	       (unsigned long long)nb, (unsigned long long)missed);
	EXPECT_LT(0, a.done);
	EXPECT_EQ(2000, b.done);
	/* each missed call loses at most one request, none if 0 */
	EXPECT_LE(missed, (uint64_t)(a.done + b.done));
	EXPECT_LT(0, nb);
	/* a missed call loses at most the request it would have counted */
	EXPECT_LE(na, (uint64_t)a.done);
	EXPECT_LE(nb, (uint64_t)b.done);
	EXPECT_LE(a.done + b.done - na - nb, missed);
	EXPECT_EQ(0, after.inflight);
}

/* A request in flight when its socket closes is abandoned, not latency. */
TEST_F(tcp, close_mid_request_is_abandoned)
{
	struct server s = { .respond = 0 };
	struct kprof_stats before, after;
	char buf[REQ_LEN] = "never answered";
	int fd, i;

	ASSERT_EQ(0, server_start(&s, AF_INET, 0));
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, kp_snapshot(self->fd));
	ASSERT_EQ(0, kprof_get_stats(self->fd, &before));
	for (i = 0; i < 3; i++) {
		fd = client_connect(AF_INET, s.port);
		ASSERT_LE(0, fd);
		ASSERT_EQ(sizeof(buf), send(fd, buf, sizeof(buf), 0));
		close(fd);
	}
	server_stop(&s);
	sleep_ns(200 * MS);
	ASSERT_EQ(0, kp_snapshot(self->fd));
	ASSERT_EQ(0, kprof_get_stats(self->fd, &after));
	EXPECT_EQ(3, after.abandoned - before.abandoned);
	EXPECT_EQ(3, self->ex.hdr->abandoned);
	EXPECT_EQ(0, rows_count(&self->ex, s.port, 0, NULL));
	/* every test socket is closed: nothing left in flight */
	EXPECT_EQ(0, after.inflight);
}

/* The export is read-only and only what the module published. */
TEST_F(tcp, mmap_rules)
{
	long pg = sysconf(_SC_PAGESIZE);
	void *p;
	int status;
	pid_t pid;

	int rw = open(KPROF_TEST_DEV, O_RDWR | O_CLOEXEC);

	/* writable maps: refused by the module even on a writable fd */
	ASSERT_LE(0, rw);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, pg, PROT_READ | PROT_WRITE,
				   MAP_SHARED, rw, 0));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, pg, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE, rw, 0));
	EXPECT_EQ(EPERM, errno);
	p = mmap(NULL, pg, PROT_READ, MAP_SHARED, rw, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	EXPECT_EQ(-1, mprotect(p, pg, PROT_READ | PROT_WRITE));
	munmap(p, pg);
	close(rw);
	/* and by the VFS on a read-only fd */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, pg, PROT_READ | PROT_WRITE,
				   MAP_SHARED, self->fd, 0));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, pg, PROT_READ, MAP_SHARED,
				   self->fd, pg));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, self->ex.size + pg, PROT_READ,
				   MAP_SHARED, self->fd, 0));
	EXPECT_EQ(EINVAL, errno);

	p = mmap(NULL, pg, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	EXPECT_EQ(-1, mprotect(p, pg, PROT_READ | PROT_WRITE));
	EXPECT_EQ(MAP_FAILED, mremap(p, pg, 2 * pg, MREMAP_MAYMOVE));
	EXPECT_EQ(KPROF_MMAP_MAGIC, ((struct kprof_mmap_header *)p)->magic);
	munmap(p, pg);

	/* without capabilities: no mapping */
	pid = fork();
	if (pid == 0) {
		if (kprof_test_drop_caps())
			_exit(100);
		p = mmap(NULL, pg, PROT_READ, MAP_SHARED, self->fd, 0);
		_exit(p == MAP_FAILED ? errno : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(EPERM, WEXITSTATUS(status));
}

/*
 * A session that starts or stops tracing beside another holding the same
 * configuration changes nothing that runs: it installs nothing and waits
 * for no grace period.  On the instruction clock (KPROF_EXACT_TIME) a
 * grace period takes 12 ms of guest time, a START or STOP that waits
 * for none well under 1 ms; elsewhere the times are logged only.
 */
TEST_F(tcp, start_beside_the_same_configuration_waits_for_nothing)
{
	struct kprof_config cfg = { .threshold_ns = 100 * MS * 1000 };
	uint64_t t0, t1, t2, start_max = 0, stop_max = 0;
	int fd = open(KPROF_TEST_DEV, O_RDONLY | O_CLOEXEC), i;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kprof_control(self->fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, kprof_set_config(fd, &cfg));
	for (i = 0; i < 20; i++) {
		t0 = now_ns();
		ASSERT_EQ(0, kprof_control(fd, KPROF_IOC_START, KPROF_RUN_TCP));
		t1 = now_ns();
		ASSERT_EQ(0, kprof_control(fd, KPROF_IOC_STOP, KPROF_RUN_TCP));
		t2 = now_ns();
		start_max = t1 - t0 > start_max ? t1 - t0 : start_max;
		stop_max = t2 - t1 > stop_max ? t2 - t1 : stop_max;
	}
	TH_LOG("20 STARTs and STOPs beside the same configuration: the slowest %.3f ms and %.3f ms",
	       start_max / 1e6, stop_max / 1e6);
	if (kprof_test_exact_time()) {
		EXPECT_GT(MS, start_max);
		EXPECT_GT(MS, stop_max);
	}
	close(fd);
}

/* Reload with @params after those of $KPROF_LOAD_PARAMS. */
/*
 * Tables smaller than the traffic: every lost request is counted as a
 * drop, counts plus drops are exact, and the module stays well.
 */
TEST(capacity_drops_counted)
{
	struct kprof_config cfg = {
		.roles = 1 << KPROF_ROLE_CLIENT,
		.threshold_ns = 100 * MS * 1000,
	};
	enum { NSRV = 24, NREQ = 3, NCONN = 100 };
	static struct server srv[NSRV];
	struct kprof_stats st;
	struct export ex;
	uint64_t counted = 0, before;
	int fd, i, j, conns[NCONN];

	ASSERT_EQ(0, kprof_test_reload("cpu_rows=16 tcp_rows=16 inflight=64"));
	fd = open(KPROF_TEST_DEV, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, export_map(fd, &ex));
	ASSERT_EQ(0, kprof_set_config(fd, &cfg));
	ASSERT_EQ(0, kprof_control(fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, kp_snapshot(fd));

	/* 24 endpoints into 16 rows */
	for (i = 0; i < NSRV; i++) {
		int c;

		srv[i].respond = 1;
		ASSERT_EQ(0, server_start(&srv[i], AF_INET, 0));
		c = client_connect(AF_INET, srv[i].port);
		ASSERT_LE(0, c);
		for (j = 0; j < NREQ; j++)
			ASSERT_NE(0, client_request(c));
		close(c);
	}
	ASSERT_EQ(0, kp_snapshot(fd));
	EXPECT_GE(16, ex.hdr->nr_tcp_rows);
	/* the connects (API 4.0) take rows too, and are counted as well */
	for (i = 0; i < NSRV; i++)
		counted += rows_count(&ex, srv[i].port, KPROF_ROLE_CLIENT,
				      NULL) +
			   rows_count(&ex, srv[i].port, KPROF_ROLE_CONNECT,
				      NULL);
	TH_LOG("counted %llu, row drops %llu, export drops %llu",
	       (unsigned long long)counted,
	       (unsigned long long)ex.hdr->drops_rows,
	       (unsigned long long)ex.hdr->drops_export);
	EXPECT_LT(0, ex.hdr->drops_rows + ex.hdr->drops_export);
	EXPECT_EQ(NSRV * NREQ + (connects_timed(fd) ? NSRV : 0),
		  counted + ex.hdr->drops_rows + ex.hdr->drops_export);

	/*
	 * 100 requests in flight at once into 64 slots: 36 dropped, once
	 * the closed sockets above have given theirs back
	 */
	ASSERT_EQ(0, kp_wait_closed_destroyed(fd));
	ASSERT_EQ(0, kprof_get_stats(fd, &st));
	before = st.drops_inflight;
	for (i = 0; i < NSRV; i++)
		srv[i].respond = 0;
	for (i = 0; i < NCONN; i++) {
		char buf[REQ_LEN] = "held";

		conns[i] = client_connect(AF_INET, srv[i % NSRV].port);
		ASSERT_LE(0, conns[i]);
		ASSERT_EQ(sizeof(buf), send(conns[i], buf, sizeof(buf), 0));
	}
	ASSERT_EQ(0, kprof_get_stats(fd, &st));
	TH_LOG("%u in flight, %llu not tracked", st.inflight,
	       (unsigned long long)(st.drops_inflight - before));
	EXPECT_EQ(64, st.inflight);
	EXPECT_EQ(NCONN - 64, st.drops_inflight - before);
	for (i = 0; i < NCONN; i++)
		close(conns[i]);
	for (i = 0; i < NSRV; i++)
		server_stop(&srv[i]);
	sleep_ns(200 * MS);
	ASSERT_EQ(0, kprof_get_stats(fd, &st));
	EXPECT_EQ(0, st.inflight);

	ASSERT_EQ(0, kprof_control(fd, KPROF_IOC_STOP, KPROF_RUN_TCP));
	export_unmap(&ex);
	close(fd);
	ASSERT_EQ(0, kprof_test_reload(""));
}

TEST_HARNESS_MAIN
