// SPDX-License-Identifier: GPL-2.0
/*
 * Export cost for `make bench`: makes KEYS distinct TCP rows in one
 * interval of kprofmod, then times the snapshot (KPROF_IOC_SNAPSHOT) and
 * a full read of the mapped interval (every row with its histogram).
 *
 * A key is one exported TCP row (stack, remote endpoint, role).  With the
 * threshold at its maximum no stack is walked, so every row is stack 0
 * and a row is one remote endpoint and role: the tool opens one loopback
 * connection per key and sends two requests on it, the second once the
 * first is answered, so that the server side completes one request (from
 * its answer to the next request) keyed by the client's address and port;
 * the client closes without waiting for the second answer.  Connection k binds its client to
 * 127.0.0.(1 + k / PER_ADDR), port FIRST_PORT + k % PER_ADDR: each key
 * one address and port of its own (ports the kernel picks itself repeat
 * once their connection is closed, which would merge two keys into one
 * row), all below the ephemeral range the listeners take theirs from.
 * Client thread and server thread i run on CPU i, to spread the rows
 * over the per-CPU tables.
 *
 *   export_cost -k KEYS [-g]
 *
 * -g only generates the connections (someone else reads the module).
 * Output: "keys N rows R snapshot_ns S snapshot_cpu_ns C read_ns R1
 * reread_ns R2 drops D" (C: the snapshot's CPU time in this thread)
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <sched.h>
#include <stdlib.h>

#include "tcp_test.h"

#define PER_ADDR	20000
#define FIRST_PORT	10000
#define MAX_CPUS	64

struct side {
	int cpu;
	int lfd;
	uint16_t port;
	long conns;
	long first;		/* index of the first connection */
	pthread_t srv, cli;
	int failed;
};

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *server_main(void *arg)
{
	struct side *s = arg;
	char buf[REQ_LEN];
	int fd;

	pin(s->cpu);
	while ((fd = accept(s->lfd, NULL, NULL)) >= 0) {
		while (read_full(fd, buf, sizeof(buf)) == 0)
			if (send(fd, buf, sizeof(buf), MSG_NOSIGNAL) != sizeof(buf))
				break;
		close(fd);
	}
	return NULL;
}

/* Connect from @saddr:@sport to 127.0.0.1:@port. */
static int connect_from(uint32_t saddr, uint16_t sport, uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd, one = 1;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	a.sin_addr.s_addr = htonl(saddr);
	a.sin_port = htons(sport);
	if (bind(fd, (void *)&a, sizeof(a)))
		goto fail;
	a.sin_port = htons(port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (void *)&a, sizeof(a)))
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

static void *client_main(void *arg)
{
	char req[REQ_LEN] = "kprof request";
	struct side *s = arg;
	long i;

	pin(s->cpu);
	for (i = 0; i < s->conns; i++) {
		long k = s->first + i;
		int fd = connect_from(INADDR_LOOPBACK + k / PER_ADDR,
				      FIRST_PORT + k % PER_ADDR, s->port);

		/* the server's answer to the first request starts a request
		 * of its own, which the second completes: no need to wait
		 * for the second answer */
		if (fd < 0 || !client_request(fd) ||
		    send(fd, req, sizeof(req), MSG_NOSIGNAL) != sizeof(req)) {
			s->failed = 1;
			if (fd >= 0)
				close(fd);
			break;
		}
		close(fd);
	}
	return NULL;
}

static int generate(long keys)
{
	static struct side sides[MAX_CPUS];
	int n = sysconf(_SC_NPROCESSORS_ONLN), i, ret = 0;
	long first = 0;

	if (n < 1)
		n = 1;
	if (n > MAX_CPUS)
		n = MAX_CPUS;
	for (i = 0; i < n; i++) {
		struct side *s = &sides[i];

		s->cpu = i;
		s->first = first;
		s->conns = keys / n + (i < keys % n);
		first += s->conns;
		s->lfd = loopback_listen(AF_INET, 1024, &s->port);
		if (s->lfd < 0)
			return -1;
		pthread_create(&s->srv, NULL, server_main, s);
	}
	for (i = 0; i < n; i++)
		pthread_create(&sides[i].cli, NULL, client_main, &sides[i]);
	for (i = 0; i < n; i++) {
		pthread_join(sides[i].cli, NULL);
		ret |= sides[i].failed;
	}
	/* let the servers see every close before the snapshot */
	usleep(200000);
	for (i = 0; i < n; i++) {
		shutdown(sides[i].lfd, SHUT_RDWR);
		close(sides[i].lfd);
		pthread_join(sides[i].srv, NULL);
	}
	return ret ? -1 : 0;
}

/*
 * What a reader does with an interval: every row, every bucket, of the
 * module's own mapping.
 */
static uint64_t read_all(const struct export *e)
{
	const struct kprof_mmap_header *h = e->real.base;
	uint64_t sum = 0;
	uint32_t i, b;

	for (i = 0; i < h->nr_tcp_rows; i++) {
		const struct kprof_tcp_row *r = (const void *)
			((const char *)e->real.base + h->tcp_rows_off +
			 (uint64_t)i * h->tcp_row_size);

		sum += r->count + r->sum_ns + r->rport + r->raddr[3];
		for (b = 0; b < KPROF_HIST_BUCKETS; b++)
			sum += r->hist[b];
	}
	return sum;
}

static volatile uint64_t sink;

/*
 * This thread's CPU time: the snapshot waits for a grace period, and a
 * wait is not work (under an instruction-count clock the idle wait even
 * jumps the clock to the next timer).
 */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct kprof_config cfg = { .threshold_ns = 100000000000ull };
	struct kprof_snapshot snap;
	const struct kprof_mmap_header *h;
	uint64_t t0, t1, t2, t3, t4, c0, c1, d0;
	struct export e;
	long keys = 0;
	int only_gen = 0, fd, opt;

	while ((opt = getopt(argc, argv, "k:g")) != -1) {
		switch (opt) {
		case 'k':
			keys = atol(optarg);
			break;
		case 'g':
			only_gen = 1;
			break;
		default:
			fprintf(stderr, "usage: %s -k KEYS [-g]\n", argv[0]);
			return 2;
		}
	}
	if (keys < 1) {
		fprintf(stderr, "%s: give -k KEYS\n", argv[0]);
		return 2;
	}
	if (only_gen)
		return generate(keys) ? 1 : 0;

	fd = open(KPROF_TEST_DEV, O_RDWR);
	if (fd < 0 || export_map(fd, &e)) {
		perror(KPROF_TEST_DEV);
		return 1;
	}
	/*
	 * Rows live on in the mapping from one interval to the next: forget
	 * an earlier run's, so that every run adds rows of its own (a row
	 * that already exists costs less to add to).
	 */
	if (kprof_control(fd, KPROF_IOC_RESET, KPROF_RESET_STACKS)) {
		perror("kprof reset (is another reader running?)");
		return 1;
	}
	if (kprof_set_config(fd, &cfg) ||
	    kprof_control(fd, KPROF_IOC_START, KPROF_RUN_TCP) ||
	    kp_snapshot(fd)) {
		perror("kprof start");
		return 1;
	}
	h = e.real.base;
	d0 = h->drops_rows + h->drops_export + h->drops_inflight;
	if (generate(keys)) {
		fprintf(stderr, "export_cost: connections failed\n");
		return 1;
	}
	/*
	 * The call alone: kp_snapshot() would also copy the whole mapping
	 * and difference every row of it into the test library's window,
	 * which is that library's work, not the module's.
	 */
	c0 = cpu_ns();
	t0 = now_ns();
	if (kprof_take_snapshot(fd, &snap)) {
		perror("snapshot");
		return 1;
	}
	t1 = now_ns();
	c1 = cpu_ns();
	sink = read_all(&e);
	t2 = now_ns();
	sink = read_all(&e);
	t3 = now_ns();
	kprof_control(fd, KPROF_IOC_STOP, KPROF_RUN_TCP);
	/* the mapping's counts are since load: this run's */
	t4 = h->drops_rows + h->drops_export + h->drops_inflight - d0;
	printf("keys %ld rows %u snapshot_ns %llu snapshot_cpu_ns %llu read_ns %llu reread_ns %llu drops %llu\n",
	       keys, h->nr_tcp_rows, (unsigned long long)(t1 - t0),
	       (unsigned long long)(c1 - c0),
	       (unsigned long long)(t2 - t1), (unsigned long long)(t3 - t2),
	       (unsigned long long)t4);
	export_unmap(&e);
	close(fd);
	return 0;
}
