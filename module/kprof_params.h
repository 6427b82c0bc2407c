/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The numeric module parameters, each stated once: the parameter's name,
 * its variable, its default, its range (min, max), its mode in
 * /sys/module/kprofmod/parameters/ and its description.  kprof_config.h
 * and kprof_config.c define KPROF_PARAM() and include this table to make
 * the declaration, the variable, the check at load or write (with
 * "NAME=VALUE: expected a number from MIN to MAX" in the log) and the
 * description modinfo shows ("..., default DEF (MIN..MAX)"); the man page
 * (docs/kprofmod.4) states the same.
 *
 * All but budget_ppm are capacities, fixed at load: every table is
 * preallocated from them.  budget_ppm is a policy root may change while
 * loaded: read it with READ_ONCE().
 *
 * cpu_rows is the TCP rows of each CPU's interval table (its variable says
 * so); the CPU samples' are cpu_samples.
 */
#ifndef KPROF_PARAM
#error "kprofmod: define KPROF_PARAM() before including kprof_params.h"
#endif

KPROF_PARAM(cpu_rows, kprof_tcp_cpu_rows, 512, 16, 65536, 0444,
	    "TCP rows per CPU and interval");
KPROF_PARAM(tcp_rows, kprof_tcp_rows_max, 4096, 16, 1048576, 0444,
	    "TCP rows exported per interval");
KPROF_PARAM(stacks, kprof_stacks_max, 4096, 16, 1048576, 0444,
	    "stack table entries");
KPROF_PARAM(inflight, kprof_inflight_max, 65536, 64, 4194304, 0444,
	    "sockets tracked in flight");
KPROF_PARAM(strings_kb, kprof_strings_kb, 1024, 4, 65536, 0444,
	    "KiB for kernel symbol strings in the export");
KPROF_PARAM(cpu_samples, kprof_cpu_samples, 1024, 16, 65536, 0444,
	    "CPU sample rows per CPU and interval");
KPROF_PARAM(sample_rows, kprof_sample_rows_max, 4096, 16, 1048576, 0444,
	    "CPU sample rows exported per interval");
/* the overhead guard's budget, in millionths of each CPU; 0 = off */
KPROF_PARAM(budget_ppm, kprof_budget_ppm, 10000, 0, 1000000, 0644,
	    "handler time allowed per CPU in millionths, 10000 = 1%, 0 = no guard");
