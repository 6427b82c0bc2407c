// SPDX-License-Identifier: GPL-2.0
/*
 * The module's limits, each filled on purpose, and what kprofmod(4) says
 * happens then: a full stack table counts under stack ID 0, exactly; a
 * user stack is cut at KPROF_MAX_USER_FRAMES; kernel frame strings that
 * do not fit the string area are marked missing; a full per-CPU sample
 * table loses samples that drops_samples counts, so that the interval's
 * samples add up exactly; a 32-bit process gets no user frames; and the
 * remote address of an IPv4 client of a dual-stack server is masked as
 * IPv4, not kept whole in an IPv6 /64.
 */
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "tcp_test.h"

#define MS	1000000ull

/* A request from @depth frames of recursion, each a distinct stack. */
static __attribute__((noinline)) uint64_t deep(int depth, int fd)
{
	uint64_t r;

	if (depth <= 1)
		r = client_request(fd);
	else
		r = deep(depth - 1, fd);
	/* no tail call: each level keeps its frame */
	__asm__ volatile("" : "+r"(r));
	return r;
}

/* The same from another call site: another set of distinct stacks. */
static __attribute__((noinline)) uint64_t deep_b(int depth, int fd)
{
	uint64_t r = deep(depth, fd);

	__asm__ volatile("" : "+r"(r));
	return r;
}

/* And from a third: a third set. */
static __attribute__((noinline)) uint64_t deep_c(int depth, int fd)
{
	uint64_t r = deep_b(depth, fd);

	__asm__ volatile("" : "+r"(r));
	return r;
}

/* Trace @port's client side only, every request walked. */
static int trace_port(int fd, uint16_t port)
{
	struct kprof_config cfg = {
		.roles = 1 << KPROF_ROLE_CLIENT,
		.nr_rports = 1,
		.rports = { port },
	};

	return kprof_set_config(fd, &cfg);
}

struct setup {
	int fd;
	struct export ex;
	struct server srv;
	int c;
};

/* Reload with @params, map, serve, connect, trace that port. */
static int setup(struct setup *t, const char *params)
{
	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->c = -1;
	t->srv.respond = 1;
	if (kprof_test_reload(params))
		return -1;
	t->fd = open(KPROF_TEST_DEV, O_RDONLY | O_CLOEXEC);
	if (t->fd < 0 || export_map(t->fd, &t->ex))
		return -1;
	if (server_start(&t->srv, AF_INET, 0))
		return -1;
	t->c = client_connect(AF_INET, t->srv.port);
	if (t->c < 0 || trace_port(t->fd, t->srv.port) ||
	    kprof_control(t->fd, KPROF_IOC_START, KPROF_RUN_TCP) ||
	    kp_snapshot(t->fd))
		return -1;
	return 0;
}

static void teardown(struct setup *t)
{
	if (t->fd >= 0)
		kprof_control(t->fd, KPROF_IOC_STOP,
			      KPROF_RUN_TCP | KPROF_RUN_CPU);
	if (t->c >= 0)
		close(t->c);
	server_stop(&t->srv);
	export_unmap(&t->ex);
	if (t->fd >= 0)
		close(t->fd);
	kprof_test_reload("");
}

/*
 * 24 requests with 24 distinct stacks into a table of 16: 16 stored, the
 * other 8 counted under stack ID 0, and drops_stacks says 8.  Nothing is
 * lost: every request is counted.
 */
TEST(stack_table_full_counts_under_zero)
{
	struct kprof_stats a, b;
	struct rows_sum sum;
	struct setup t;
	int d;

	ASSERT_EQ(0, setup(&t, "stacks=16"));
	ASSERT_EQ(0, kprof_get_stats(t.fd, &a));
	EXPECT_EQ(0, a.stacks);
	for (d = 1; d <= 24; d++)
		ASSERT_NE(0, deep(d, t.c));
	ASSERT_EQ(0, kp_snapshot(t.fd));
	ASSERT_EQ(0, kprof_get_stats(t.fd, &b));
	rows_sum(&t.ex, t.srv.port, KPROF_ROLE_CLIENT, NULL, &sum);
	TH_LOG("%u stacks stored; %llu requests with a stack, %llu under 0, %llu stack drops",
	       b.stacks, (unsigned long long)sum.walked, (unsigned long long)sum.zero,
	       (unsigned long long)(b.drops_stacks - a.drops_stacks));
	EXPECT_EQ(16, b.stacks);
	EXPECT_EQ(16, sum.walked);
	EXPECT_EQ(8, sum.zero);
	EXPECT_EQ(8, b.drops_stacks - a.drops_stacks);
	EXPECT_EQ(16, t.ex.hdr->nr_stacks);
	teardown(&t);
}

/*
 * A request from 60 frames deep: its stack holds the 32 leaf-most user
 * frames, and no more than 32 kernel frames.
 */
TEST(user_frames_cut_at_32)
{
	const struct kprof_stack *st;
	struct rows_sum sum;
	struct setup t;
	uint32_t id;

	ASSERT_EQ(0, setup(&t, ""));
	ASSERT_NE(0, deep(60, t.c));
	ASSERT_EQ(0, kp_snapshot(t.fd));
	rows_sum(&t.ex, t.srv.port, KPROF_ROLE_CLIENT, NULL, &sum);
	EXPECT_EQ(1, sum.walked);
	id = sum.stack_id;
	st = find_stack(&t.ex, id);
	ASSERT_NE(NULL, st);
	TH_LOG("stack %u: %u kernel, %u user frames", id, st->nr_kernel,
	       st->nr_user);
	EXPECT_EQ(KPROF_MAX_USER_FRAMES, st->nr_user);
	EXPECT_LT(0, st->nr_kernel);
	EXPECT_GE(KPROF_MAX_KERNEL_FRAMES, st->nr_kernel);
	/* the leaf-most: the recursion's return addresses, all alike */
	EXPECT_EQ(st->user_ips[20], st->user_ips[31]);
	teardown(&t);
}

/*
 * 72 stacks whose kernel frame strings need more than the 4 KiB string
 * area (strings_kb=4): those that fit are whole, the others are marked
 * KPROF_KSYMS_MISSING with no kernel frames; every stack is exported.
 * (A small 4.14 kernel's 48 stacks took 7824 bytes of the 7936 the area
 * holds: each stack's strings are about 160 bytes there.)
 */
TEST(string_area_full_marks_missing)
{
	const struct kprof_stack *st;
	uint32_t i, missing = 0, whole = 0, end = 0;
	struct setup t;
	int d;

	ASSERT_EQ(0, setup(&t, "strings_kb=4"));
	for (d = 1; d <= 24; d++) {
		ASSERT_NE(0, deep(d, t.c));
		ASSERT_NE(0, deep_b(d, t.c));
		ASSERT_NE(0, deep_c(d, t.c));
	}
	ASSERT_EQ(0, kp_snapshot(t.fd));
	st = (const void *)((const char *)t.ex.map + t.ex.hdr->stacks_off);
	for (i = 0; i < t.ex.hdr->nr_stacks; i++) {
		if (st[i].ksyms_off == KPROF_KSYMS_MISSING) {
			missing++;
			EXPECT_EQ(0, st[i].nr_kernel);
			continue;
		}
		whole++;
		EXPECT_LT(0, st[i].nr_kernel);
		EXPECT_EQ(end, st[i].ksyms_off);	/* packed, in order */
		end = stack_ksym(&t.ex, &st[i], st[i].nr_kernel) -
		      ((const char *)t.ex.map + t.ex.hdr->strings_off);
	}
	TH_LOG("%u stacks: %u with kernel frames, %u missing; strings %u of %u bytes",
	       t.ex.hdr->nr_stacks, whole, missing, t.ex.hdr->strings_len,
	       t.ex.hdr->strings_cap);
	EXPECT_EQ(72, t.ex.hdr->nr_stacks);
	EXPECT_LT(0, whole);
	EXPECT_LT(0, missing);
	EXPECT_EQ(end, t.ex.hdr->strings_len);
	EXPECT_GE(t.ex.hdr->strings_cap, t.ex.hdr->strings_len);
	teardown(&t);
}

/*
 * 40 busy processes sampled at 999 Hz into per-CPU sample tables of 16
 * rows (cpu_samples=16): samples are lost, and in every interval the
 * samples taken are exactly the idle ones, the rows' and the lost ones.
 * On the debug kernel, with both vCPUs in one host thread, starting,
 * reaping and unloading around the 2 s it measures ran past the
 * harness's default 30 s: it has 120.
 */
FIXTURE(slow) {};
FIXTURE_SETUP(slow) {}
FIXTURE_TEARDOWN(slow) {}

TEST_F_TIMEOUT(slow, samples_add_up_with_a_full_table, 120)
{
	enum { NPROC = 40, INTERVALS = 4 };
	const struct kprof_cpu_row *r;
	uint64_t lost = 0, sum;
	pid_t pid[NPROC];
	struct setup t;
	int i, k;
	uint32_t j;

	ASSERT_EQ(0, setup(&t, "cpu_samples=16"));
	for (i = 0; i < NPROC; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (!pid[i]) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			/*
			 * The test itself must not wait behind 40 of them
			 * (on the debug kernel it ran past the harness's
			 * 30 s): they take the CPU only when it sleeps.
			 */
			if (setpriority(PRIO_PROCESS, 0, 19))
				_exit(1);
			for (;;)
				__asm__ volatile("" ::: "memory");
		}
	}
	{
		struct kprof_config cfg = { .sample_hz = 999 };

		ASSERT_EQ(0, kprof_set_config(t.fd, &cfg));
	}
	ASSERT_EQ(0, kprof_control(t.fd, KPROF_IOC_START, KPROF_RUN_CPU));
	ASSERT_EQ(0, kp_snapshot(t.fd));
	for (k = 0; k < INTERVALS; k++) {
		sleep_ns(500 * MS);
		ASSERT_EQ(0, kp_snapshot(t.fd));
		r = (const void *)((const char *)t.ex.map +
				   t.ex.hdr->cpu_rows_off);
		sum = 0;
		for (j = 0; j < t.ex.hdr->nr_cpu_rows; j++)
			sum += r[j].samples;
		TH_LOG("interval %d: %llu samples = %llu idle + %llu in %u rows + %llu lost",
		       k, (unsigned long long)t.ex.hdr->samples,
		       (unsigned long long)t.ex.hdr->samples_idle,
		       (unsigned long long)sum, t.ex.hdr->nr_cpu_rows,
		       (unsigned long long)t.ex.hdr->drops_samples);
		EXPECT_EQ(t.ex.hdr->samples, t.ex.hdr->samples_idle + sum +
			  t.ex.hdr->drops_samples);
		lost += t.ex.hdr->drops_samples;
	}
	for (i = 0; i < NPROC; i++) {
		kill(pid[i], SIGKILL);
		waitpid(pid[i], NULL, 0);
	}
	EXPECT_LT(0, lost);
	teardown(&t);
}

/*
 * A 32-bit process's requests have kernel frames and no user frames:
 * the walker reads 64-bit frames only.
 */
TEST(thirty_two_bit_process_gets_no_user_frames)
{
	char path[4096], port[8], *slash;
	const struct kprof_stack *st;
	struct rows_sum sum;
	struct setup t;
	uint32_t i, n = 0;
	ssize_t len;
	pid_t pid;
	int status;

	len = readlink("/proc/self/exe", path, sizeof(path) - 16);
	ASSERT_LT(0, len);
	path[len] = '\0';
	slash = strrchr(path, '/');
	ASSERT_NE(NULL, slash);
	strcpy(slash + 1, "tcp_client32");
	if (access(path, X_OK))
		SKIP(return, "no tcp_client32 next to the test");
	ASSERT_EQ(0, setup(&t, ""));
	/* the server answers one connection at a time: free it */
	close(t.c);
	t.c = -1;
	snprintf(port, sizeof(port), "%u", t.srv.port);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		execl(path, path, port, "5", (char *)NULL);
		_exit(127);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	ASSERT_EQ(0, kp_snapshot(t.fd));
	rows_sum(&t.ex, t.srv.port, KPROF_ROLE_CLIENT, NULL, &sum);
	EXPECT_EQ(5, sum.walked);
	EXPECT_EQ(0, sum.zero);
	for (i = 0; i < t.ex.hdr->nr_tcp_rows; i++) {
		/* the requests' rows, not the connects' (API 4.0) */
		if (t.ex.rows[i].rport != t.srv.port ||
		    t.ex.rows[i].role != KPROF_ROLE_CLIENT)
			continue;
		st = find_stack(&t.ex, t.ex.rows[i].stack_id);
		ASSERT_NE(NULL, st);
		TH_LOG("32-bit stack %u: %u kernel, %u user frames", st->id,
		       st->nr_kernel, st->nr_user);
		EXPECT_LT(0, st->nr_kernel);
		EXPECT_EQ(0, st->nr_user);
		n++;
	}
	EXPECT_LT(0, n);
	teardown(&t);
}

/* A dual-stack listener (::, IPV6_V6ONLY off); its port in *@port. */
static int dual_stack_listen(uint16_t *port)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6 };
	socklen_t len = sizeof(a);
	int fd, zero = 0;

	fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) ||
	    bind(fd, (void *)&a, sizeof(a)) || listen(fd, 4) ||
	    getsockname(fd, (void *)&a, &len)) {
		close(fd);
		return -1;
	}
	*port = ntohs(a.sin6_port);
	return fd;
}

/*
 * Three requests from an IPv4 client to a dual-stack server, traced in
 * an interval of their own; the client's port in *@cport (the server
 * side's rows are by it).
 */
static int mapped_requests(int fd, uint16_t *cport)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	char buf[REQ_LEN] = "kprof mapped";
	int lfd, c, s = -1, i, ret = -1;
	uint16_t port;
	struct kprof_config cfg = { 0 };

	lfd = dual_stack_listen(&port);
	if (lfd < 0)
		return -1;
	c = client_connect(AF_INET, port);
	if (c >= 0)
		s = accept(lfd, NULL, NULL);
	if (s < 0 || getsockname(c, (void *)&a, &len))
		goto out;
	*cport = ntohs(a.sin_port);
	cfg.nr_rports = 2;
	cfg.rports[0] = port;
	cfg.rports[1] = *cport;
	cfg.threshold_ns = 100 * MS * 1000;
	if (kprof_set_config(fd, &cfg) ||
	    kprof_control(fd, KPROF_IOC_START, KPROF_RUN_TCP) ||
	    kp_snapshot(fd))
		goto out;
	for (i = 0; i < 3; i++)
		if (send(c, buf, REQ_LEN, 0) != REQ_LEN ||
		    read_full(s, buf, REQ_LEN) ||
		    send(s, buf, REQ_LEN, 0) != REQ_LEN ||
		    read_full(c, buf, REQ_LEN))
			goto out;
	ret = kp_snapshot(fd);
out:
	if (s >= 0)
		close(s);
	if (c >= 0)
		close(c);
	close(lfd);
	return ret;
}

/*
 * Load with @params, time three requests of an IPv4 client to a
 * dual-stack server, and copy the server side's row into *@row; 0, or -1.
 */
static int mapped_server_row(const char *params, struct kprof_tcp_row *row)
{
	struct export ex;
	uint16_t cport;
	uint32_t i;
	int fd, ret = -1;

	if (kprof_test_reload(params))
		return -1;
	fd = open(KPROF_TEST_DEV, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (!export_map(fd, &ex)) {
		if (!mapped_requests(fd, &cport))
			for (i = 0; i < ex.hdr->nr_tcp_rows; i++)
				if (ex.rows[i].rport == cport &&
				    ex.rows[i].role == KPROF_ROLE_SERVER) {
					*row = ex.rows[i];
					ret = 0;
				}
		kprof_control(fd, KPROF_IOC_STOP, KPROF_RUN_TCP);
		export_unmap(&ex);
	}
	close(fd);
	return ret;
}

/*
 * endpoints=prefix: an IPv4 client of a dual-stack server is seen as
 * ::ffff:127.0.0.1 and kept as its IPv4 /24, ::ffff:127.0.0.0 (an IPv6
 * /64 would keep the whole IPv4 address); endpoints=hash: no byte of the
 * address is left.
 */
TEST(ipv4_mapped_clients_masked_as_ipv4)
{
	static const uint8_t net[16] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 0,
	};
	struct kprof_tcp_row r;
	int i;

	ASSERT_EQ(0, mapped_server_row("endpoints=prefix", &r));
	EXPECT_EQ(AF_INET6 | KPROF_RADDR_PREFIX, r.family);
	EXPECT_EQ(0, memcmp(r.raddr, net, sizeof(net)));
	/* a server's request: from its response to the next request */
	EXPECT_EQ(2, r.count);

	ASSERT_EQ(0, mapped_server_row("endpoints=hash", &r));
	EXPECT_EQ(AF_INET6 | KPROF_RADDR_HASH, r.family);
	for (i = 8; i < 16; i++)
		EXPECT_EQ(0, r.raddr[i]);
	EXPECT_NE(0, memcmp(r.raddr, net, 12));
	ASSERT_EQ(0, kprof_test_reload(""));
}

/*
 * Two readers with their own windows over a table of 16 rows: rows that
 * went idle are evicted only once both readers have read them after
 * their last change, so each reader counts every request once, and the
 * room they leave takes new endpoints that would not fit otherwise.
 */
struct evict_reader {
	int fd;
	struct kp_map map;		/* the module's mapping */
	void *copy;			/* lib's consistent copy of it */
	uint16_t port[32];		/* our servers */
	uint64_t birth[32], count[32];	/* as last read */
	uint64_t counted, drops_export, nr_rows;
};

static int evict_read(struct evict_reader *r, unsigned int nr_ports)
{
	const struct kprof_mmap_header *h = r->copy;
	const struct kprof_tcp_row *row;
	unsigned int i, p;

	if (kp_snapshot(r->fd) || kp_map_copy(&r->map, r->copy, KP_COPY_TRIES))
		return -1;
	r->nr_rows = h->nr_tcp_rows;
	for (i = 0; i < h->nr_tcp_rows; i++) {
		row = (const void *)((const char *)r->copy + h->tcp_rows_off +
				     (size_t)i * h->tcp_row_size);
		for (p = 0; p < nr_ports; p++) {
			if (row->rport != r->port[p] ||
			    row->role != KPROF_ROLE_CLIENT)
				continue;
			if (row->birth != r->birth[p])
				r->count[p] = 0;
			r->counted += row->count - r->count[p];
			r->count[p] = row->count;
			r->birth[p] = row->birth;
		}
	}
	r->drops_export = h->drops_export;
	return 0;
}

/*
 * One request to each of @n new servers, ports into both readers. The
 * servers keep listening until evict_servers_stop(): a port given back
 * could be handed to a later server, whose row would then be counted
 * under two ports.
 */
static int evict_requests(struct evict_reader *a, struct evict_reader *b,
			  struct server *srv, unsigned int from, unsigned int n)
{
	unsigned int i;

	for (i = from; i < from + n; i++) {
		int c;

		srv[i].respond = 1;
		if (server_start(&srv[i], AF_INET, 0))
			return -1;
		c = client_connect(AF_INET, srv[i].port);
		if (c < 0 || !client_request(c)) {
			if (c >= 0)
				close(c);
			server_stop(&srv[i]);
			return -1;
		}
		close(c);
		a->port[i] = b->port[i] = srv[i].port;
	}
	return 0;
}

static void evict_servers_stop(struct server *srv, unsigned int n)
{
	while (n--)
		server_stop(&srv[n]);
}

TEST(eviction_keeps_every_readers_counts)
{
	struct kprof_config cfg = {
		.roles = 1U << KPROF_ROLE_CLIENT,
		.threshold_ns = 100ull * 1000 * MS,
	};
	struct evict_reader r[2];
	struct server srv[24];
	uint64_t drops0;
	unsigned int n;
	int i;

	memset(r, 0, sizeof(r));
	memset(srv, 0, sizeof(srv));
	ASSERT_EQ(0, kprof_test_reload("tcp_rows=16"));
	for (i = 0; i < 2; i++) {
		struct kprof_info info = { .size = sizeof(info) };

		r[i].fd = open(KPROF_TEST_DEV, O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, r[i].fd);
		ASSERT_EQ(0, kprof_get_info(r[i].fd, &info));
		ASSERT_EQ(0, kp_map_open(r[i].fd, &info, &r[i].map));
		r[i].copy = malloc(r[i].map.size);
		ASSERT_NE(NULL, r[i].copy);
	}
	ASSERT_EQ(0, kprof_set_config(r[0].fd, &cfg));
	ASSERT_EQ(0, kprof_control(r[0].fd, KPROF_IOC_START, KPROF_RUN_TCP));
	ASSERT_EQ(0, evict_read(&r[0], 0));
	ASSERT_EQ(0, evict_read(&r[1], 0));
	drops0 = r[1].drops_export;
	/*
	 * n endpoints, more than half the table: 12, or 6 where each has a
	 * second row, of its connects (API 4.0)
	 */
	n = connects_timed(r[0].fd) ? 6 : 12;

	ASSERT_EQ(0, evict_requests(&r[0], &r[1], srv, 0, n));
	ASSERT_EQ(0, evict_read(&r[0], n));
	ASSERT_EQ(0, evict_read(&r[1], n));
	/* reader 1 has not read again since: nothing may go yet */
	ASSERT_EQ(0, evict_read(&r[0], n));
	EXPECT_LE(12, r[0].nr_rows);
	/* now both have: the idle rows go */
	ASSERT_EQ(0, evict_read(&r[1], n));
	EXPECT_GT(12, r[1].nr_rows);
	EXPECT_EQ(n, r[0].counted);
	EXPECT_EQ(n, r[1].counted);

	/* n more: they fit only in the room the idle rows left */
	ASSERT_EQ(0, evict_requests(&r[0], &r[1], srv, n, n));
	ASSERT_EQ(0, evict_read(&r[0], 2 * n));
	ASSERT_EQ(0, evict_read(&r[1], 2 * n));
	EXPECT_EQ(2 * n, r[0].counted);
	EXPECT_EQ(2 * n, r[1].counted);
	EXPECT_EQ(drops0, r[1].drops_export);
	for (i = 0; i < (int)(2 * n) &&
	     (r[0].counted != 2 * n || r[1].counted != 2 * n); i++)
		TH_LOG("port %u: reader 0 count %llu birth %llu, reader 1 count %llu birth %llu",
		       r[0].port[i], (unsigned long long)r[0].count[i],
		       (unsigned long long)r[0].birth[i],
		       (unsigned long long)r[1].count[i],
		       (unsigned long long)r[1].birth[i]);

	evict_servers_stop(srv, 2 * n);
	for (i = 0; i < 2; i++) {
		kp_map_close(&r[i].map);
		free(r[i].copy);
		close(r[i].fd);
	}
	ASSERT_EQ(0, kprof_test_reload(""));
}

TEST_HARNESS_MAIN
