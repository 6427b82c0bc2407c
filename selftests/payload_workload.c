// SPDX-License-Identifier: GPL-2.0
/*
 * Request/response traffic whose payload is a card-number-like marker,
 * for privacy.sh: one echo server on 127.0.0.1 and one on ::1, a client
 * thread for each, every request and response carrying the marker as
 * text and in two binary forms, on the stack of the threads that send and
 * receive it.
 *
 *   payload_workload [-d SECONDS] [-o DUMP]
 *
 * A third client, on an IPv4 server of its own, enters every recvfrom() with its
 * frame pointer register aimed at its previous response, as code built
 * without frame pointers does when rbp holds a pointer to received data:
 * bytes 0-7 of that response point up the stack, as a saved frame pointer
 * would, and bytes 8-15 are FRAME_MARKER, a user-space-sized value where a
 * careless walker reads a return address.
 *
 * With -o it is also the consumer of /dev/kprof: it sets the threshold to
 * 0 (every request walks its stacks), starts everything and, every 200
 * ms, closes an interval and appends the whole mapped region to DUMP.
 * Prints "ipv4 PORT REQUESTS", "ipv6 PORT REQUESTS" and "trap PORT
 * REQUESTS" on exit.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/syscall.h>

#include "tcp_test.h"

#define MSG_LEN		64
#define MARKER		"4111-1111-1111-1111"
/* 0x0000314b4d594150 as a little-endian u64: below TASK_SIZE, unmapped */
#define FRAME_MARKER	"PAYMK1"
#define NR_PEERS	3

struct peer {
	int family;
	int lfd;
	uint16_t port;
	uint64_t deadline;
	bool trap;		/* the frame pointer trap's own server */
	long done;
	pthread_t srv, cli;
};

/* The marker, on the caller's stack: text, BCD, and the number as u64. */
static void fill(char *buf)
{
	static const uint8_t bcd[8] = {
		0x41, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11
	};
	uint64_t num = 4111111111111111ull;

	memset(buf, 0, MSG_LEN);
	memcpy(buf, MARKER, sizeof(MARKER) - 1);
	memcpy(buf + 24, bcd, sizeof(bcd));
	memcpy(buf + 32, &num, sizeof(num));
	memcpy(buf + 40, MARKER, sizeof(MARKER) - 1);
}

static __attribute__((noinline)) void payload_echo(int fd)
{
	char buf[MSG_LEN];

	while (read_full(fd, buf, sizeof(buf)) == 0)
		if (send(fd, buf, sizeof(buf), MSG_NOSIGNAL) != sizeof(buf))
			break;
}

static void *server_main(void *arg)
{
	struct peer *p = arg;
	int fd;

	while ((fd = accept(p->lfd, NULL, NULL)) >= 0) {
		payload_echo(fd);
		close(fd);
	}
	return NULL;
}

static __attribute__((noinline)) void payload_client(struct peer *p)
{
	char buf[MSG_LEN];
	int fd = client_connect(p->family, p->port);

	if (fd < 0)
		return;
	while (now_ns() < p->deadline) {
		fill(buf);
		if (send(fd, buf, sizeof(buf), MSG_NOSIGNAL) != sizeof(buf) ||
		    read_full(fd, buf, sizeof(buf)))
			break;
		p->done++;
	}
	close(fd);
}

/*
 * recvfrom(fd, buf, len, 0, NULL, NULL) entered with rbp = @fp.  Below the
 * red zone, so that nothing the compiler keeps there is overwritten.
 */
static long recv_with_fp(int fd, void *buf, size_t len, const void *fp)
{
	register long r10 asm("r10") = 0;
	register long r8 asm("r8") = 0;
	register long r9 asm("r9") = 0;
	long ret;

	asm volatile("sub $128, %%rsp\n\t"
		     "push %%rbp\n\t"
		     "mov %[fp], %%rbp\n\t"
		     "syscall\n\t"
		     "pop %%rbp\n\t"
		     "add $128, %%rsp"
		     : "=a"(ret)
		     : "0"((long)SYS_recvfrom), "D"((long)fd), "S"(buf),
		       "d"(len), "r"(r10), "r"(r8), "r"(r9), [fp] "r"(fp)
		     : "rcx", "r11", "memory");
	return ret;
}

static __attribute__((noinline)) void trap_client(struct peer *p)
{
	char prev[MSG_LEN] __attribute__((aligned(16)));
	char buf[MSG_LEN];
	/* a saved frame pointer as a walker expects one: up the stack */
	uint64_t up = (uintptr_t)__builtin_frame_address(0);
	int fd = client_connect(AF_INET, p->port);
	size_t got;
	long n;

	if (fd < 0)
		return;
	memset(prev, 0, sizeof(prev));
	while (now_ns() < p->deadline) {
		memset(buf, 0, sizeof(buf));
		memcpy(buf, &up, sizeof(up));
		memcpy(buf + 8, FRAME_MARKER, sizeof(FRAME_MARKER) - 1);
		if (send(fd, buf, sizeof(buf), MSG_NOSIGNAL) != sizeof(buf))
			break;
		for (got = 0; got < sizeof(buf); got += n) {
			n = recv_with_fp(fd, buf + got, sizeof(buf) - got, prev);
			if (n <= 0)
				goto out;
		}
		memcpy(prev, buf, sizeof(prev));
		p->done++;
		/* a request a millisecond is plenty: leave the CPU to the rest */
		sleep_ns(1000000);
	}
out:
	close(fd);
}

static void *client_main(void *arg)
{
	struct peer *p = arg;

	if (p->trap)
		trap_client(p);
	else
		payload_client(p);
	return NULL;
}

static int listen_on(struct peer *p)
{
	p->lfd = loopback_listen(p->family, 8, &p->port);
	if (p->lfd < 0)
		return -1;
	return pthread_create(&p->srv, NULL, server_main, p);
}

/* The consumer of /dev/kprof (-o): a session and the file it dumps to. */
struct dumper {
	FILE *out;
	int fd;
	struct export e;
};

/*
 * Open a session, start everything and map the region, before the
 * traffic's window opens: starting TCP tracing registers the kprobes,
 * which takes time on a slow kernel (once, on PREEMPT_RT under TCG, the
 * dump of a 2 s window held no region at all).
 */
static int dump_start(struct dumper *d, const char *path)
{
	struct kprof_config cfg = { .size = sizeof(cfg) };

	d->fd = open(KPROF_TEST_DEV, O_RDONLY | O_CLOEXEC);
	d->out = fopen(path, "w");
	if (d->fd < 0 || !d->out || kprof_set_config(d->fd, &cfg) ||
	    kprof_control(d->fd, KPROF_IOC_START, KPROF_RUN_ALL) ||
	    export_map(d->fd, &d->e)) {
		perror("dump");
		return -1;
	}
	return 0;
}

/* Until @deadline, every interval's region into the dump; then stop. */
static int dump_run(struct dumper *d, uint64_t deadline)
{
	int ret = -1;

	while (now_ns() < deadline) {
		sleep_ns(200000000ull);
		if (kp_snapshot(d->fd) ||
		    fwrite(d->e.real.base, 1, d->e.size, d->out) != d->e.size)
			goto unmap;
	}
	ret = 0;
unmap:
	kprof_control(d->fd, KPROF_IOC_STOP, KPROF_RUN_ALL);
	export_unmap(&d->e);
	if (fclose(d->out))
		ret = -1;
	close(d->fd);
	return ret;
}

int main(int argc, char **argv)
{
	struct peer p[NR_PEERS] = {
		{ .family = AF_INET }, { .family = AF_INET6 },
		{ .family = AF_INET, .trap = true },
	};
	static const char * const names[] = { "ipv4", "ipv6", "trap" };
	const char *out = NULL;
	struct dumper d;
	double secs = 3;
	uint64_t deadline;
	int i, opt, ret = 0;

	while ((opt = getopt(argc, argv, "d:o:")) != -1) {
		switch (opt) {
		case 'd':
			secs = atof(optarg);
			break;
		case 'o':
			out = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-d SECONDS] [-o DUMP]\n",
				argv[0]);
			return 2;
		}
	}
	if (out && dump_start(&d, out))
		return 1;
	deadline = now_ns() + (uint64_t)(secs * 1e9);
	for (i = 0; i < NR_PEERS; i++) {
		p[i].deadline = deadline;
		if (listen_on(&p[i])) {
			perror("listen");
			return 1;
		}
	}
	for (i = 0; i < NR_PEERS; i++)
		pthread_create(&p[i].cli, NULL, client_main, &p[i]);
	if (out && dump_run(&d, deadline))
		ret = 1;
	for (i = 0; i < NR_PEERS; i++) {
		pthread_join(p[i].cli, NULL);
		shutdown(p[i].lfd, SHUT_RDWR);
		close(p[i].lfd);
		pthread_join(p[i].srv, NULL);
		printf("%s %u %ld\n", names[i], p[i].port,
		       p[i].done);
	}
	return ret;
}
