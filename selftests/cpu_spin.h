/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CPU-bound workload of the sampling tests: three parts of its time in
 * spin_hot_a() for one in spin_hot_b().  Included once per program; the
 * functions are global so that -rdynamic lets dladdr() name them.
 */
#ifndef KPROF_CPU_SPIN_H
#define KPROF_CPU_SPIN_H

#include <stdint.h>
#include <time.h>

static volatile uint64_t spin_sink;

__attribute__((noinline)) void spin_hot_a(uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		spin_sink += i * i;
}

__attribute__((noinline)) void spin_hot_b(uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		spin_sink += i ^ (i >> 3);
}

static inline uint64_t spin_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* 3:1 between the two for @secs seconds. */
static inline void spin_75_25(double secs)
{
	uint64_t end = spin_now_ns() + (uint64_t)(secs * 1e9);

	while (spin_now_ns() < end) {
		spin_hot_a(300000);
		spin_hot_b(100000);
	}
}

#endif
