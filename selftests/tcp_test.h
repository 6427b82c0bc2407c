/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loopback request/response workloads and a reader of the export for the
 * TCP latency selftests.  The device is reached through the reader's
 * lib/ (dev.h, snapshot.h), the one client of /dev/kprof, linked into
 * every program that includes this header.
 */
#ifndef KPROF_TCP_TEST_H
#define KPROF_TCP_TEST_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>

#include "kprof_test.h"
#include "dev.h"
#include "snapshot.h"

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
	ret = kprof_set_config(fd, &c);
	if (!ret)
		ret = kprof_control(fd, KPROF_IOC_START, KPROF_RUN_ALL);
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

/*
 * A reader of the export, as the tests see it.  Since API 2.0 the module
 * publishes cumulative counts and each reader differences its own
 * copies; @map is that reader's last window, laid out like the module's
 * mapping (same offsets): rows, CPU rows and counters differenced, the
 * stacks its rows name.  kp_snapshot() on any descriptor refreshes every
 * mapped export, as a snapshot published an interval for everyone before
 * 2.0; the first window starts at export_map().  @real is the module's
 * own read-only mapping, copied whole by lib's kp_map_copy().
 */
struct export {
	void *map;			/* the window */
	size_t size;
	struct kprof_mmap_header *hdr;	/* in @map */
	struct kprof_tcp_row *rows;	/* in @map */
	struct kp_map real;		/* the module's mapping */
	void *last;			/* copy of @real at the last read */
	void *cur;
};

#define KP_EXPORTS_MAX	8
static struct export *kp_exports[KP_EXPORTS_MAX];

/* attempts at a consistent copy of the mapping: see kp_map_copy() */
#define KP_COPY_TRIES	1000

#define KP_TCP_KEY_LEN	offsetof(struct kprof_tcp_row, reserved0)

/* @e->map = @e->cur - @e->last, key by key; see struct export. */
static inline void export_window(struct export *e)
{
	const struct kprof_mmap_header *c = e->cur, *l = e->last;
	struct kprof_mmap_header *w = e->map;
	const char *cb = e->cur, *lb = e->last;
	char *wb = e->map;
	uint32_t i, j, n = 0, b;

	memcpy(w, c, c->header_size);
	w->interval_start_ns = l->interval_end_ns;
#define KP_SUB(f) (w->f = c->f - l->f)
	KP_SUB(requests);
	KP_SUB(abandoned);
	KP_SUB(drops_inflight);
	KP_SUB(drops_rows);
	KP_SUB(drops_stacks);
	KP_SUB(drops_export);
	KP_SUB(samples);
	KP_SUB(samples_idle);
	KP_SUB(drops_samples);
#undef KP_SUB
	for (i = 0; i < c->nr_tcp_rows; i++) {
		const struct kprof_tcp_row *cr = (const void *)(cb +
			c->tcp_rows_off + (size_t)i * c->tcp_row_size);
		struct kprof_tcp_row *wr = (void *)(wb + c->tcp_rows_off +
					(size_t)n * c->tcp_row_size);
		const struct kprof_tcp_row *lr = NULL;

		for (j = 0; j < l->nr_tcp_rows && !lr; j++) {
			lr = (const void *)(lb + l->tcp_rows_off +
					    (size_t)j * l->tcp_row_size);
			if (memcmp(lr, cr, KP_TCP_KEY_LEN) ||
			    lr->birth != cr->birth)
				lr = NULL;
		}
		memcpy(wr, cr, c->tcp_row_size);
		if (lr && wr->count != lr->count) {
			unsigned int lo = KPROF_HIST_BUCKETS, hi = 0;

			wr->count -= lr->count;
			wr->sum_ns -= lr->sum_ns;
			for (b = 0; b < KPROF_HIST_BUCKETS; b++) {
				wr->hist[b] -= lr->hist[b];
				if (wr->hist[b] && lo == KPROF_HIST_BUCKETS)
					lo = b;
				if (wr->hist[b])
					hi = b;
			}
			/*
			 * The window's min and max: its lowest and highest
			 * buckets' bounds, within the row's since its birth
			 * (the reader's rule, with the uapi header's bounds).
			 */
			if (lo < KPROF_HIST_BUCKETS &&
			    kprof_hist_lower(lo) > wr->min_ns)
				wr->min_ns = kprof_hist_lower(lo);
			if (hi < KPROF_HIST_BUCKETS - 1 &&
			    kprof_hist_lower(hi + 1) - 1 < wr->max_ns)
				wr->max_ns = kprof_hist_lower(hi + 1) - 1;
		} else if (lr) {
			wr->count = 0;
		}
		n += !!wr->count;
	}
	w->nr_tcp_rows = n;
	for (i = n = 0; i < c->nr_cpu_rows; i++) {
		const struct kprof_cpu_row *cr = (const void *)(cb +
			c->cpu_rows_off + (size_t)i * c->cpu_row_size);
		struct kprof_cpu_row *wr = (void *)(wb + c->cpu_rows_off +
					(size_t)n * c->cpu_row_size);

		memcpy(wr, cr, c->cpu_row_size);
		for (j = 0; j < l->nr_cpu_rows; j++) {
			const struct kprof_cpu_row *lr = (const void *)(lb +
				l->cpu_rows_off + (size_t)j * l->cpu_row_size);

			if (lr->stack_id == cr->stack_id &&
			    lr->tgid == cr->tgid && lr->views == cr->views &&
			    lr->birth == cr->birth) {
				wr->samples -= lr->samples;
				break;
			}
		}
		n += !!wr->samples;
	}
	w->nr_cpu_rows = n;
	/* the stacks the window's rows name; the strings as they are */
	for (i = n = 0; i < c->nr_stacks; i++) {
		const struct kprof_stack *st = (const void *)(cb +
			c->stacks_off + (size_t)i * c->stack_size);
		int named = 0;

		for (j = 0; j < w->nr_tcp_rows && !named; j++)
			named = ((const struct kprof_tcp_row *)(wb +
				c->tcp_rows_off + (size_t)j *
				c->tcp_row_size))->stack_id == st->id;
		for (j = 0; j < w->nr_cpu_rows && !named; j++)
			named = ((const struct kprof_cpu_row *)(wb +
				c->cpu_rows_off + (size_t)j *
				c->cpu_row_size))->stack_id == st->id;
		if (named)
			memcpy(wb + c->stacks_off + (size_t)n++ * c->stack_size,
			       st, c->stack_size);
	}
	w->nr_stacks = n;
	memcpy(wb + c->strings_off, cb + c->strings_off, c->strings_len);
	/* the next window starts here */
	memcpy(e->last, e->cur, e->size);
}

static inline int export_map(int fd, struct export *e)
{
	struct kprof_info info;
	int i;

	memset(e, 0, sizeof(*e));
	if (kprof_get_info(fd, &info) || kp_map_open(fd, &info, &e->real))
		return -1;
	e->size = e->real.size;
	e->map = calloc(1, e->size);
	e->last = calloc(1, e->size);
	e->cur = calloc(1, e->size);
	for (i = 0; i < KP_EXPORTS_MAX && kp_exports[i]; i++)
		;
	if (!e->map || !e->last || !e->cur || i == KP_EXPORTS_MAX ||
	    kp_map_copy(&e->real, e->last, KP_COPY_TRIES)) {
		kp_map_close(&e->real);
		free(e->map);
		free(e->last);
		free(e->cur);
		return -1;
	}
	memcpy(e->map, e->last, e->size);
	e->hdr = e->map;
	e->hdr->nr_tcp_rows = e->hdr->nr_cpu_rows = e->hdr->nr_stacks = 0;
	e->rows = (void *)((char *)e->map + e->hdr->tcp_rows_off);
	kp_exports[i] = e;
	return 0;
}

static inline void export_unmap(struct export *e)
{
	int i;

	for (i = 0; i < KP_EXPORTS_MAX; i++)
		if (kp_exports[i] == e)
			kp_exports[i] = NULL;
	kp_map_close(&e->real);
	free(e->map);
	free(e->last);
	free(e->cur);
}

/* Snapshot, then every mapped export's window: see struct export. */
static inline int kp_snapshot(int fd)
{
	struct kprof_snapshot s;
	int i, ret;

	ret = kprof_take_snapshot(fd, &s);
	if (ret)
		return ret;
	for (i = 0; i < KP_EXPORTS_MAX; i++) {
		if (!kp_exports[i])
			continue;
		if (kp_map_copy(&kp_exports[i]->real, kp_exports[i]->cur,
				KP_COPY_TRIES))
			return -EAGAIN;
		export_window(kp_exports[i]);
	}
	return 0;
}

/* What the rows matching (rport, role) hold: see rows_sum(). */
struct rows_sum {
	uint64_t count;		/* their requests */
	uint64_t zero;		/* ... counted under stack ID 0 */
	uint64_t walked;	/* ... counted under a stack */
	uint32_t stack_id;	/* one of their stacks, or 0 */
};

/*
 * Sum the rows matching (rport, role), 0 matching any role of requests
 * (not the connect rows of API 4.0), into @sum, and their histograms into
 * @hist unless NULL; returns sum->count.
 */
static inline uint64_t rows_sum(const struct export *e, uint16_t rport,
				int role, uint64_t *hist, struct rows_sum *sum)
{
	uint32_t i, b;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < e->hdr->nr_tcp_rows; i++) {
		const struct kprof_tcp_row *r = &e->rows[i];

		if ((rport && r->rport != rport) ||
		    (role ? r->role != role : r->role == KPROF_ROLE_CONNECT))
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

/* Does the module time connects, on rows of their own (API 4.0)? */
static inline int connects_timed(int fd)
{
	struct kprof_info info;

	return !kprof_get_info(fd, &info) &&
	       (info.features & KPROF_FEAT_TCP_CONNECT);
}

/* Sum of the counts of rows matching (rport, role), as rows_sum(). */
static inline uint64_t rows_count(const struct export *e, uint16_t rport,
				  int role, uint64_t *hist)
{
	struct rows_sum sum;

	return rows_sum(e, rport, role, hist, &sum);
}

/*
 * The tests take bucket bounds from the uapi header's kprof_hist_lower()
 * and never use its kprof_hist_bucket(), the module's formula: the bucket
 * of a value is found by search, so that a bug in the formula cannot hide
 * behind a copy of itself (the reader's unit tests check both against a
 * table of their own).
 */
#define hist_lower(i)	kprof_hist_lower(i)

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

/*
 * Wait until no closed socket's slot waits for the socket's destruction
 * (kprof_stats.inflight_closed, API 3.3): 0, or -1 after 10 s.
 */
static inline int kp_wait_closed_destroyed(int fd)
{
	struct kprof_stats st;
	int i;

	for (i = 0; i < 1000; i++) {
		if (kprof_get_stats(fd, &st))
			return -1;
		if (!st.inflight_closed)
			return 0;
		usleep(10000);
	}
	return -1;
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
	return kp_stack_ksym(st, (const char *)e->map + e->hdr->strings_off,
			     k);
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
