// SPDX-License-Identifier: GPL-2.0
/*
 * A CPU-bound program for the sampling tests: three parts of its time in
 * spin_hot_a() for one in spin_hot_b(), for SECONDS seconds.  Built with
 * frame pointers.
 *
 *   cpu_spin SECONDS
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

__attribute__((noinline)) void spin_hot_a(uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		sink += i * i;
}

__attribute__((noinline)) void spin_hot_b(uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		sink += i ^ (i >> 3);
}

int main(int argc, char **argv)
{
	struct timespec now, end;
	double secs = argc > 1 ? atof(argv[1]) : 0;

	if (argc != 2 || secs <= 0) {
		fprintf(stderr, "usage: cpu_spin SECONDS\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)secs;
	end.tv_nsec += (long)((secs - (time_t)secs) * 1e9);
	do {
		spin_hot_a(300000);
		spin_hot_b(100000);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec < end.tv_sec ||
		 (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	return 0;
}
