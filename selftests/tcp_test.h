/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loopback request/response workloads and a minimal reader of the export
 * for the TCP latency selftests.
 */
#ifndef KPROF_TCP_TEST_H
#define KPROF_TCP_TEST_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>

#include "kprof_test.h"

#define REQ_LEN	16

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static inline void sleep_ns(uint64_t ns)
{
	struct timespec ts = { ns / 1000000000ull, ns % 1000000000ull };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * Receives go through syscall(), which keeps the frame pointer, instead
 * of libc's recv(), which does not: stacks walked in the kernel then
 * reach the test's own functions.
 */
static inline int read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = syscall(SYS_recvfrom, fd, (char *)buf + got,
				    len - got, 0, NULL, NULL);

		if (n <= 0)
			return -1;
		got += n;
	}
	return 0;
}

/* A server answering every REQ_LEN-byte request after delay_ns. */
struct server {
	int family;
	int lfd;
	uint16_t port;
	uint64_t delay_ns;
	int respond;		/* 0: read requests, never answer */
	pthread_t thread;
};

static void *server_conn(void *arg)
{
	struct server *s = arg;
	char buf[REQ_LEN];
	int fd;

	while ((fd = accept(s->lfd, NULL, NULL)) >= 0) {
		while (read_full(fd, buf, sizeof(buf)) == 0) {
			if (!s->respond)
				continue;
			sleep_ns(s->delay_ns);
			if (send(fd, buf, sizeof(buf), MSG_NOSIGNAL) !=
			    sizeof(buf))
				break;
		}
		close(fd);
	}
	return NULL;
}

/*
 * A listening socket bound to the loopback address of @family on a port
 * of the kernel's choosing, stored in *@port; the socket, or -1.  An
 * explicit bind: the listener's port is locked, as servers do.
 */
static inline int loopback_listen(int family, int backlog, uint16_t *port)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t len;
	int one = 1, fd;

	fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (family == AF_INET) {
		struct sockaddr_in *a = (void *)&ss;

		a->sin_family = AF_INET;
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		len = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (void *)&ss;

		a->sin6_family = AF_INET6;
		a->sin6_addr = in6addr_loopback;
		len = sizeof(*a);
	}
	if (bind(fd, (void *)&ss, len) || listen(fd, backlog) ||
	    getsockname(fd, (void *)&ss, &len)) {
		close(fd);
		return -1;
	}
	*port = ntohs(family == AF_INET ?
		      ((struct sockaddr_in *)&ss)->sin_port :
		      ((struct sockaddr_in6 *)&ss)->sin6_port);
	return fd;
}

static inline int server_start(struct server *s, int family,
			       uint64_t delay_ns)
{
	s->family = family;
	s->delay_ns = delay_ns;
	s->lfd = loopback_listen(family, 64, &s->port);
	if (s->lfd < 0)
		return -1;
	return pthread_create(&s->thread, NULL, server_conn, s);
}

static inline void server_stop(struct server *s)
{
	shutdown(s->lfd, SHUT_RDWR);
	close(s->lfd);
	pthread_join(s->thread, NULL);
}

static inline int client_connect(int family, uint16_t port)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t len;
	int fd, one = 1;

	fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (family == AF_INET) {
		struct sockaddr_in *a = (void *)&ss;

		a->sin_family = AF_INET;
		a->sin_port = htons(port);
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		len = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (void *)&ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(port);
		a->sin6_addr = in6addr_loopback;
		len = sizeof(*a);
	}
	if (connect(fd, (void *)&ss, len)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* One request/response; returns the client-side latency or 0 on error. */
static __attribute__((noinline, unused)) uint64_t client_request(int fd)
{
	char buf[REQ_LEN] = "kprof request";
	uint64_t t0 = now_ns();

	if (send(fd, buf, sizeof(buf), MSG_NOSIGNAL) != sizeof(buf))
		return 0;
	if (read_full(fd, buf, sizeof(buf)))
		return 0;
	return now_ns() - t0;
}

/* ---- the module's side ---- */

static inline int kp_ctl(int fd, unsigned long cmd, unsigned int what)
{
	struct kprof_ctl c = { .size = sizeof(c), .what = what };

	return ioctl(fd, cmd, &c) ? -errno : 0;
}

static inline int kp_config(int fd, const struct kprof_config *cfg)
{
	struct kprof_config c = *cfg;

	c.size = sizeof(c);
	return ioctl(fd, KPROF_IOC_SET_CONFIG, &c) ? -errno : 0;
}

/*
 * Trace every request (threshold 0) and sample CPUs at @hz, in a session
 * of its own: the descriptor, which holds what it started until it is
 * closed (the release stops it), or -errno.
 */
static inline int kp_start_all(unsigned int hz)
{
	struct kprof_config c = { .threshold_ns = 0, .sample_hz = hz };
	int fd = open(KPROF_TEST_DEV, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = kp_config(fd, &c);
	if (!ret)
		ret = kp_ctl(fd, KPROF_IOC_START, KPROF_RUN_ALL);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

/*
 * Try to unload kprofmod while a session holds the device: 0 when refused
 * as in use (EWOULDBLOCK), -1 when it unloaded, else the refusal's errno.
 */
static inline int kp_unload_refused(void)
{
	if (!syscall(SYS_delete_module, "kprofmod", O_NONBLOCK))
		return -1;
	return errno == EWOULDBLOCK ? 0 : errno;
}

static inline int kp_snapshot(int fd)
{
	struct kprof_snapshot s = { .size = sizeof(s) };

	return ioctl(fd, KPROF_IOC_SNAPSHOT, &s) ? -errno : 0;
}

static inline int kp_stats(int fd, struct kprof_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	return ioctl(fd, KPROF_IOC_GET_STATS, st) ? -errno : 0;
}

struct export {
	void *map;
	size_t size;
	struct kprof_mmap_header *hdr;
	struct kprof_tcp_row *rows;
};

static inline int export_map(int fd, struct export *e)
{
	struct kprof_info info = { .size = sizeof(info) };

	if (ioctl(fd, KPROF_IOC_GET_INFO, &info))
		return -1;
	e->size = info.mmap_size;
	e->map = mmap(NULL, e->size, PROT_READ, MAP_SHARED, fd, 0);
	if (e->map == MAP_FAILED)
		return -1;
	e->hdr = e->map;
	e->rows = (void *)((char *)e->map + e->hdr->tcp_rows_off);
	return 0;
}

static inline void export_unmap(struct export *e)
{
	munmap(e->map, e->size);
}

/* What the rows matching (rport, role) hold: see rows_sum(). */
struct rows_sum {
	uint64_t count;		/* their requests */
	uint64_t zero;		/* ... counted under stack ID 0 */
	uint64_t walked;	/* ... counted under a stack */
	uint32_t stack_id;	/* one of their stacks, or 0 */
};

/*
 * Sum the rows matching (rport, role), 0 matching anything, into @sum,
 * and their histograms into @hist unless NULL; returns sum->count.
 */
static inline uint64_t rows_sum(const struct export *e, uint16_t rport,
				int role, uint64_t *hist, struct rows_sum *sum)
{
	uint32_t i, b;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < e->hdr->nr_tcp_rows; i++) {
		const struct kprof_tcp_row *r = &e->rows[i];

		if ((rport && r->rport != rport) || (role && r->role != role))
			continue;
		sum->count += r->count;
		if (r->stack_id) {
			sum->walked += r->count;
			sum->stack_id = r->stack_id;
		} else {
			sum->zero += r->count;
		}
		for (b = 0; hist && b < KPROF_HIST_BUCKETS; b++)
			hist[b] += r->hist[b];
	}
	return sum->count;
}

/* Sum of the counts of rows matching (rport, role); 0 matches anything. */
static inline uint64_t rows_count(const struct export *e, uint16_t rport,
				  int role, uint64_t *hist)
{
	struct rows_sum sum;

	return rows_sum(e, rport, role, hist, &sum);
}

/*
 * Bucket @i's lower bound, from the uapi header's definition of lower(i);
 * the tests never use the module's index formula, so that a bug in it
 * cannot hide behind a copy of itself.
 */
static inline uint64_t hist_lower(unsigned int i)
{
	if (i < (1U << KPROF_HIST_SUB_BITS))
		return i;
	return ((1ull << KPROF_HIST_SUB_BITS) +
		(i & ((1U << KPROF_HIST_SUB_BITS) - 1))) <<
	       (i / (1U << KPROF_HIST_SUB_BITS) - 1);
}

/* The bucket holding @v, by search over hist_lower(). */
static inline unsigned int hist_bucket_of(uint64_t v)
{
	unsigned int b = 0;

	while (b + 1 < KPROF_HIST_BUCKETS && hist_lower(b + 1) <= v)
		b++;
	return b;
}

/* Nearest rank (1-based) of percentile @p among @n values. */
static inline uint64_t pct_rank(double p, uint64_t n)
{
	uint64_t rank = (uint64_t)(p / 100.0 * n + 0.999999);

	return rank < 1 ? 1 : rank > n ? n : rank;
}

/* The bucket holding the @rank-th smallest value of @hist. */
static inline unsigned int hist_rank_bucket(const uint64_t *hist,
					    uint64_t rank)
{
	uint64_t seen = 0;
	unsigned int b;

	for (b = 0; b < KPROF_HIST_BUCKETS - 1; b++) {
		seen += hist[b];
		if (seen >= rank)
			break;
	}
	return b;
}

/* Percentile of a histogram: the midpoint of the bucket holding it. */
static inline double hist_pct(const uint64_t *hist, double p)
{
	uint64_t total = 0;
	unsigned int b;

	for (b = 0; b < KPROF_HIST_BUCKETS; b++)
		total += hist[b];
	if (!total)
		return 0;
	b = hist_rank_bucket(hist, pct_rank(p, total));
	if (b + 1 >= KPROF_HIST_BUCKETS)
		return (double)hist_lower(b);
	return (hist_lower(b) + hist_lower(b + 1)) / 2.0;
}

static inline int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The stack @id in the export, or NULL. */
static inline const struct kprof_stack *find_stack(const struct export *e,
						   uint32_t id)
{
	const struct kprof_stack *st = (const void *)((const char *)e->map +
						      e->hdr->stacks_off);
	uint32_t i;

	for (i = 0; i < e->hdr->nr_stacks; i++)
		if (st[i].id == id)
			return &st[i];
	return NULL;
}

/* Kernel frame @k's name of stack @st (k < nr_kernel). */
static inline const char *stack_ksym(const struct export *e,
				     const struct kprof_stack *st, uint32_t k)
{
	const char *s = (const char *)e->map + e->hdr->strings_off +
			st->ksyms_off;

	while (k--)
		s += strlen(s) + 1;
	return s;
}

/* Client threads doing request/response against one server until told. */
struct load {
	struct server srv;
	pthread_t thr[2];
	volatile int stop;
	uint64_t done;
};

static inline void *load_client(void *arg)
{
	struct load *l = arg;
	int fd = client_connect(AF_INET, l->srv.port);

	if (fd < 0)
		return NULL;
	while (!l->stop)
		if (client_request(fd))
			__atomic_add_fetch(&l->done, 1, __ATOMIC_RELAXED);
	close(fd);
	return NULL;
}

/* @delay_ns: the server's think time; 0 saturates loopback. */
static inline int load_start(struct load *l, uint64_t delay_ns)
{
	int i;

	memset(l, 0, sizeof(*l));
	l->srv.respond = 1;
	if (server_start(&l->srv, AF_INET, delay_ns))
		return -1;
	for (i = 0; i < 2; i++)
		if (pthread_create(&l->thr[i], NULL, load_client, l))
			return -1;
	return 0;
}

static inline void load_stop(struct load *l)
{
	int i;

	l->stop = 1;
	for (i = 0; i < 2; i++)
		pthread_join(l->thr[i], NULL);
	server_stop(&l->srv);
}

#endif
