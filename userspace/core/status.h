/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's status: loaded or not, installed where, held by whom, its
 * parameters, and (with the device) what it runs, its sessions, tables,
 * counters and cost per CPU.  What `kprof status` shows.
 */
#ifndef KPROF_STATUS_H
#define KPROF_STATUS_H

#include <stdint.h>

#include <libkmod.h>

#include "dev.h"

#define KP_MODNAME		"kprofmod"
#define KP_MAX_HOLDERS		16
#define KP_STATUS_PARAMS	64

struct kp_status_param {
	char name[256];
	char value[128];
};

struct kp_status {
	int loaded;
	const char *path;	/* module file, if installed */
	char version[64];
	int refcnt;
	char holders[512];
	struct kp_status_param params[KP_STATUS_PARAMS];	/* as sysfs shows them */
	unsigned int nr_params;
	int dev_err;		/* errno opening or asking the device */
	int have_dev;
	struct kprof_info info;
	struct kprof_config cfg;
	struct kprof_stats st;
	struct kprof_cpu_cost *cpus;	/* the guard per CPU (API 1.4) */
	unsigned int nr_cpus;
	struct kprof_sessions *sessions;	/* API 1.9; NULL before */
	uint64_t now_ns;		/* CLOCK_MONOTONIC when asked */
};

/* 1 if @mod is loaded (live or coming), 0 if not. */
int kp_mod_loaded(struct kmod_module *mod);

/*
 * "pid 123 (kprof), pid 456 (sh)": the processes that have the device
 * open or mapped, as far as /proc shows them to us.  Empty if none.
 */
void kp_mod_holders(char *buf, size_t len);

/* Returns 0, or KP_EXIT_FAIL when libkmod is unusable (printed). */
int kp_status_gather(struct kp_status *s, struct kmod_ctx *ctx);
void kp_status_free(struct kp_status *s);

#endif
