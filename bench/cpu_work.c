// SPDX-License-Identifier: GPL-2.0
/*
 * A fixed amount of CPU-bound work for `make bench`: THREADS threads each
 * run ITERS rounds of two small functions (3:1 in time), with frame
 * pointers, so every profiler has a stack to walk.  Prints the wall time.
 *
 *   cpu_work [-t THREADS] [-n ITERS]
 *
 * Output: "ns NS"
 */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "cpu_spin.h"

static long iters = 200;

static void *worker(void *arg)
{
	long i;

	for (i = 0; i < iters; i++) {
		spin_hot_a(300000);
		spin_hot_b(100000);
	}
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t th[64];
	int threads = 2, i, opt;
	uint64_t t0;

	while ((opt = getopt(argc, argv, "t:n:")) != -1) {
		switch (opt) {
		case 't':
			threads = atoi(optarg);
			break;
		case 'n':
			iters = atol(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-t THREADS] [-n ITERS]\n", argv[0]);
			return 2;
		}
	}
	if (threads < 1 || threads > 64 || iters < 1) {
		fprintf(stderr, "%s: 1 to 64 threads, at least one round\n", argv[0]);
		return 2;
	}
	t0 = spin_now_ns();
	for (i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	for (i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	printf("ns %llu\n", (unsigned long long)(spin_now_ns() - t0));
	return 0;
}
