// SPDX-License-Identifier: GPL-2.0
/*
 * A request/response workload over loopback for the reader tests and
 * `make demo`: one server per delay, answering each request after that
 * delay, and one client thread per server sending requests back to back
 * until the duration ends.  Prints, per server, "port PORT delay_ms D
 * requests N" on exit.
 *
 *   tcp_workload [-6] [-d SECONDS] [-n REQUESTS] [-P PORT] DELAY_MS...
 *
 * -n stops each client after that many requests instead of a duration.
 * -P listens on PORT, PORT + 1, ... instead of ports the kernel picks, so
 * that a reader can filter on them before the workload starts.
 * SIGTERM ends the duration early, after the requests under way: a test
 * runs it until its reader has measured, then stops it and still gets
 * the ports and counts.
 */
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>

#include "tcp_test.h"

#define MAX_SERVERS 8

struct client {
	struct server srv;
	pthread_t thread;
	uint64_t deadline;
	long limit;
	long done;
	int family;
};

static volatile sig_atomic_t stopped;

static void on_term(int sig)
{
	(void)sig;
	stopped = 1;
}

/* Named so stacks past the threshold show where the waiting happens. */
__attribute__((noinline)) void workload_client_loop(struct client *c)
{
	int fd = client_connect(c->family, c->srv.port);

	if (fd < 0)
		return;
	while (!stopped && now_ns() < c->deadline &&
	       (!c->limit || c->done < c->limit)) {
		if (!client_request(fd))
			break;
		c->done++;
	}
	close(fd);
}

static void *client_main(void *arg)
{
	workload_client_loop(arg);
	return NULL;
}

/* server_start() on loopback port @port. */
static int server_start_at(struct server *s, int family, uint64_t delay_ns,
			   uint16_t port)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
				   .sin6_port = htons(port),
				   .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct sockaddr_in a4 = { .sin_family = AF_INET,
				  .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int one = 1;

	s->family = family;
	s->delay_ns = delay_ns;
	s->port = port;
	s->lfd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->lfd < 0)
		return -1;
	setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if ((family == AF_INET ? bind(s->lfd, (void *)&a4, sizeof(a4)) :
				 bind(s->lfd, (void *)&a6, sizeof(a6))) ||
	    listen(s->lfd, 64)) {
		close(s->lfd);
		return -1;
	}
	return pthread_create(&s->thread, NULL, server_conn, s);
}

int main(int argc, char **argv)
{
	static struct client cl[MAX_SERVERS];
	struct sigaction sa = { .sa_handler = on_term, .sa_flags = SA_RESTART };
	double secs = 5;
	long limit = 0;
	int family = AF_INET, n = 0, i, opt;
	long base = 0;

	while ((opt = getopt(argc, argv, "6d:n:P:")) != -1) {
		switch (opt) {
		case '6':
			family = AF_INET6;
			break;
		case 'd':
			secs = atof(optarg);
			break;
		case 'n':
			limit = atol(optarg);
			break;
		case 'P':
			base = atol(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-6] [-d SECONDS] [-n REQUESTS] [-P PORT] DELAY_MS...\n",
				argv[0]);
			return 2;
		}
	}
	if (optind == argc || argc - optind > MAX_SERVERS || secs <= 0 ||
	    base < 0 || base + argc - optind > 65536) {
		fprintf(stderr, "%s: give 1 to %d delays in ms and a positive duration\n",
			argv[0], MAX_SERVERS);
		return 2;
	}
	for (i = optind; i < argc; i++, n++) {
		struct client *c = &cl[n];

		c->srv.respond = 1;
		c->family = family;
		c->limit = limit;
		c->deadline = limit ? UINT64_MAX :
			      now_ns() + (uint64_t)(secs * 1e9);
		if (base ? server_start_at(&c->srv, family,
					   (uint64_t)(atof(argv[i]) * 1e6),
					   base + n) :
			   server_start(&c->srv, family,
					(uint64_t)(atof(argv[i]) * 1e6))) {
			perror("server");
			return 1;
		}
	}
	sigaction(SIGTERM, &sa, NULL);
	for (i = 0; i < n; i++)
		pthread_create(&cl[i].thread, NULL, client_main, &cl[i]);
	for (i = 0; i < n; i++) {
		pthread_join(cl[i].thread, NULL);
		server_stop(&cl[i].srv);
		printf("port %u delay_ms %s requests %ld\n", cl[i].srv.port,
		       argv[optind + i], cl[i].done);
	}
	return 0;
}
