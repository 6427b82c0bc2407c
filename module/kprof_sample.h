/* SPDX-License-Identifier: GPL-2.0 */
/* kprof_sample.c: CPU stack sampling with per-CPU perf events. */
#define KPROF_HEADER_UNIT KPROF_UNIT_SAMPLE
#include "kprof_layer.h"

#ifndef _KPROF_SAMPLE_H
#define _KPROF_SAMPLE_H

#include <linux/types.h>

struct pt_regs;

void kprof_sample_init(void);
void kprof_sample_exit(void);
int kprof_sample_start(void);
void kprof_sample_stop(void);
bool kprof_sample_running(void);
bool kprof_sample_cpu_unsampled(unsigned int cpu);
bool kprof_sample_hw(void);
u32 kprof_sample_hz(void);
int kprof_sample_set_hz(u32 hz);
u32 kprof_sample_cpu_hz(unsigned int cpu);
void kprof_sample_set_shift(unsigned int cpu, unsigned int shift);

/*
 * kprof_nmi_test.c, part of the sampler in test builds only: cpu-clock
 * samples taken in NMI.
 */
#ifdef KPROF_TEST_NMI
void kprof_sample_regs(struct pt_regs *regs);
bool kprof_nmi_test_sample(struct pt_regs *regs);
int kprof_nmi_test_init(void);
void kprof_nmi_test_exit(void);
#else
static inline bool kprof_nmi_test_sample(struct pt_regs *regs)
{
	return false;
}

static inline int kprof_nmi_test_init(void)
{
	return 0;
}

static inline void kprof_nmi_test_exit(void)
{
}
#endif

#endif /* _KPROF_SAMPLE_H */
