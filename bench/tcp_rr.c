// SPDX-License-Identifier: GPL-2.0
/*
 * TCP request/response ping-pong over loopback for `make bench`: CONNS
 * connections, each with its own client and server thread, every client
 * sending REQS 16-byte requests back to back and waiting for each echo.
 * Prints the wall time per round trip (all connections together), and
 * the round trips done.  The client and server threads of connection i
 * both run on CPU i modulo the CPUs: a round trip is two context switches
 * on one CPU, not two wake-ups across CPUs, whose cost under CPU
 * emulation varies far more than the probes' cost.
 *
 * With -s, one thread plays both ends of one connection: it sends the
 * request, reads it on the server's socket, sends the echo and reads it
 * on the client's.  Loopback delivers each send before send() returns,
 * so no read waits and nothing is scheduled: every round trip runs the
 * same kernel path, whatever the probes cost.
 *
 * With -l (and -s), each round trip has a connection of its own: connect,
 * accept, the request and its echo, and both ends closed (the server's
 * first, so the TIME_WAIT is the server's and the client's ports are
 * free again): a connection's whole lifecycle, for the cost of the hooks
 * on connects, state changes and closes.
 *
 * With -i (and -s), it also reads the CPUs' idle time (the tick's NO_HZ
 * accounting in /proc/timer_list, root only) before and after the round
 * trips and prints it: under an instruction-count clock that skips idle
 * time, a round trip that waits for a retransmission timer is its
 * elapsed time less that idle time.
 *
 * Before the clock starts, every mode with round trips stirs the slab
 * caches a round trip allocates from (stir_slabs()).
 *
 * With -w SECONDS, no round trips: it sleeps that long and prints the
 * instructions the CPUs ran meanwhile per second, on that clock (the
 * elapsed time less the idle time): what runs on an idle machine, a
 * tracer's periodic work included.
 *
 *   tcp_rr [-c CONNS] [-n REQS] [-s [-l] [-i]]
 *   tcp_rr -w SECONDS
 *
 * Output: "ns_per_rt NS rts N", with -i followed by " idle_ns NS";
 * with -w "busy_ns_per_s NS"
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <sched.h>
#include <stdlib.h>

#include "tcp_test.h"

#define MAX_CONNS 64

struct conn {
	struct server srv;
	pthread_t thread;
	long reqs;
	long done;
};

static pthread_barrier_t start_line;

static void pin(pthread_t t, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(t, sizeof(set), &set);
}

/* Named, so that stacks walked at the probes reach the workload. */
__attribute__((noinline)) void rr_client_loop(struct conn *c)
{
	int fd = client_connect(AF_INET, c->srv.port);

	pthread_barrier_wait(&start_line);
	if (fd < 0)
		return;
	while (c->done < c->reqs && client_request(fd))
		c->done++;
	close(fd);
}

/*
 * A connection over loopback, both ends in this thread: the client's
 * socket in *@cfd, the server's in *@sfd; 0, or -1 with neither open.
 */
static int loopback_pair(int *cfd, int *sfd)
{
	uint16_t port;
	int lfd = loopback_listen(AF_INET, 1, &port);

	if (lfd < 0)
		return -1;
	*cfd = client_connect(AF_INET, port);
	*sfd = *cfd < 0 ? -1 : accept(lfd, NULL, NULL);
	close(lfd);
	if (*sfd < 0) {
		if (*cfd >= 0)
			close(*cfd);
		return -1;
	}
	return 0;
}

/* -s: both ends in this thread; the round trips done, or -1 */
__attribute__((noinline)) long rr_single_loop(long reqs)
{
	char buf[REQ_LEN] = "kprof request";
	long done = 0;
	int cfd, sfd;

	if (loopback_pair(&cfd, &sfd))
		return -1;
	while (done < reqs &&
	       send(cfd, buf, sizeof(buf), MSG_NOSIGNAL) == sizeof(buf) &&
	       !read_full(sfd, buf, sizeof(buf)) &&
	       send(sfd, buf, sizeof(buf), MSG_NOSIGNAL) == sizeof(buf) &&
	       !read_full(cfd, buf, sizeof(buf)))
		done++;
	close(cfd);
	close(sfd);
	return done;
}

/* -s -l: a connection per round trip; the round trips done, or -1 */
__attribute__((noinline)) long rr_lifecycle_loop(long reqs)
{
	char buf[REQ_LEN] = "kprof request";
	uint16_t port;
	int lfd = loopback_listen(AF_INET, 16, &port), cfd, sfd;
	long done;

	if (lfd < 0)
		return -1;
	for (done = 0; done < reqs; done++) {
		cfd = client_connect(AF_INET, port);
		if (cfd < 0)
			break;
		sfd = accept(lfd, NULL, NULL);
		if (sfd < 0 ||
		    send(cfd, buf, sizeof(buf), MSG_NOSIGNAL) != sizeof(buf) ||
		    read_full(sfd, buf, sizeof(buf)) ||
		    send(sfd, buf, sizeof(buf), MSG_NOSIGNAL) != sizeof(buf) ||
		    read_full(cfd, buf, sizeof(buf))) {
			if (sfd >= 0)
				close(sfd);
			close(cfd);
			break;
		}
		close(sfd);
		close(cfd);
	}
	close(lfd);
	return done;
}

/*
 * Each request allocates an skb (skbuff_fclone_cache) and its head (a
 * kmalloc cache) and frees them when it is acknowledged, so two of each
 * are live at a time.  If the CPU's current slab of such a cache holds
 * only the last free object when the run starts, every allocation takes
 * SLUB's slow path and every free goes back to another slab
 * (___slab_alloc, __slab_free, put_cpu_partial: two of each per round
 * trip in a function trace), for the whole run: under the instruction
 * count clock, +562 instructions per round trip on Debian's 6.1.  Which
 * state a run meets depends on what the kernel allocated before it (an
 * insmod of kprofmod, with nothing registered, left one in a quarter of
 * the loads), so runs came in modes.  Allocating and freeing a few slabs'
 * worth of each cache first leaves the CPU's slab with free objects to
 * spare: 128 UDP datagrams of three sizes held in a receive queue
 * (kmalloc-512, -1k and -2k heads), then 64 segments of a TCP connection
 * whose peer reads them only after (the fclone cache).  One boot on
 * 6.1: a run in the dearer mode (21915 instructions per round trip), a
 * run after the stir 21353, and the runs after it 21351 and 21341.
 */
static void stir_slabs(void)
{
	static const int sizes[] = { 100, 400, 1000 };
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	char buf[2048] = "";
	socklen_t len = sizeof(a);
	int r, w, i, k, n, cfd, sfd;

	r = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	w = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (r >= 0 && w >= 0 && !bind(r, (void *)&a, len) &&
	    !getsockname(r, (void *)&a, &len)) {
		for (k = 0; k < 3; k++) {
			for (i = n = 0; i < 128; i++)
				n += sendto(w, buf, sizes[k], 0, (void *)&a,
					    sizeof(a)) == sizes[k];
			while (n-- > 0 &&
			       recv(r, buf, sizeof(buf), MSG_DONTWAIT) > 0)
				;
		}
	}
	if (r >= 0)
		close(r);
	if (w >= 0)
		close(w);
	if (loopback_pair(&cfd, &sfd))
		return;
	for (i = n = 0; i < 64; i++)
		n += send(cfd, buf, 16, MSG_NOSIGNAL) == 16;
	while (n > 0 && read_full(sfd, buf, 16) == 0)
		n--;
	close(sfd);
	close(cfd);
}

/* -i: the CPUs' idle time since boot in ns, or -1 when unknown */
static int64_t idle_ns(void)
{
	FILE *f = fopen("/proc/timer_list", "r");
	char line[256];
	int64_t sum = 0;
	unsigned long long v;
	int seen = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " .idle_sleeptime : %llu", &v) == 1 ||
		    sscanf(line, " .iowait_sleeptime: %llu", &v) == 1) {
			sum += v;
			seen = 1;
		}
	}
	fclose(f);
	return seen ? sum : -1;
}

/* The result line, or why there is none: the status to exit with. */
static int report(const char *prog, long total, long want, uint64_t ns,
		  int64_t idle)
{
	if (total != want) {
		fprintf(stderr, "%s: only %ld of %ld round trips\n", prog,
			total, want);
		return 1;
	}
	printf("ns_per_rt %.1f rts %ld", (double)ns / total, total);
	if (idle >= 0)
		printf(" idle_ns %lld", (long long)idle);
	printf("\n");
	return 0;
}

static void *client_main(void *arg)
{
	rr_client_loop(arg);
	return NULL;
}

int main(int argc, char **argv)
{
	static struct conn cs[MAX_CONNS];
	long reqs = 10000, total = 0;
	int conns = 4, ncpu = sysconf(_SC_NPROCESSORS_ONLN), i, opt;
	int single = 0, lifecycle = 0, idle = 0, wait_s = 0;
	int64_t i0 = -1, i1 = -1;
	uint64_t t0, t1;

	while ((opt = getopt(argc, argv, "c:n:sliw:")) != -1) {
		switch (opt) {
		case 'c':
			conns = atoi(optarg);
			break;
		case 'n':
			reqs = atol(optarg);
			break;
		case 's':
			single = 1;
			break;
		case 'l':
			lifecycle = 1;
			break;
		case 'i':
			idle = 1;
			break;
		case 'w':
			wait_s = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-c CONNS] [-n REQS] [-s [-l] [-i]] | -w SECONDS\n",
				argv[0]);
			return 2;
		}
	}
	if (conns < 1 || conns > MAX_CONNS || reqs < 1) {
		fprintf(stderr, "%s: 1 to %d connections, at least one request\n",
			argv[0], MAX_CONNS);
		return 2;
	}
	if (wait_s > 0) {
		i0 = idle_ns();
		t0 = now_ns();
		sleep(wait_s);
		t1 = now_ns();
		i1 = idle_ns();
		if (i0 < 0 || i1 < i0) {
			fprintf(stderr, "%s: no idle time in /proc/timer_list\n",
				argv[0]);
			return 1;
		}
		printf("busy_ns_per_s %.1f\n",
		       ((double)(t1 - t0) - (double)(i1 - i0)) / wait_s);
		return 0;
	}
	if ((lifecycle || idle) && !single) {
		fprintf(stderr, "%s: -l and -i go with -s\n", argv[0]);
		return 2;
	}
	if (single) {
		/*
		 * The stir first: on a lossy link it waits for retransmission
		 * timers, idle time that is not the round trips'.
		 */
		stir_slabs();
		if (idle && (i0 = idle_ns()) < 0) {
			fprintf(stderr, "%s: no idle time in /proc/timer_list\n",
				argv[0]);
			return 1;
		}
		t0 = now_ns();
		total = lifecycle ? rr_lifecycle_loop(reqs) :
				    rr_single_loop(reqs);
		t1 = now_ns();
		if (idle)
			i1 = idle_ns();
		return report(argv[0], total, reqs, t1 - t0,
			      idle && i1 >= i0 ? i1 - i0 : -1);
	}
	stir_slabs();
	pthread_barrier_init(&start_line, NULL, conns + 1);
	for (i = 0; i < conns; i++) {
		cs[i].srv.respond = 1;
		cs[i].reqs = reqs;
		if (server_start(&cs[i].srv, AF_INET, 0)) {
			perror("server");
			return 1;
		}
		pthread_create(&cs[i].thread, NULL, client_main, &cs[i]);
		if (ncpu > 0) {
			pin(cs[i].srv.thread, i % ncpu);
			pin(cs[i].thread, i % ncpu);
		}
	}
	pthread_barrier_wait(&start_line);
	t0 = now_ns();
	for (i = 0; i < conns; i++)
		pthread_join(cs[i].thread, NULL);
	t1 = now_ns();
	for (i = 0; i < conns; i++) {
		server_stop(&cs[i].srv);
		total += cs[i].done;
	}
	return report(argv[0], total, (long)conns * reqs, t1 - t0, -1);
}
