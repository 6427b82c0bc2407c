/* SPDX-License-Identifier: GPL-2.0 */
/*
 * abtest's verdict: paired runs of a command without and with tracing,
 * and whether the difference is more than chance and noise.
 */
#ifndef KPROF_ABTEST_H
#define KPROF_ABTEST_H

/* Two-sided sign-test level below which a difference is not chance. */
#define KP_AB_SIGNIFICANCE	0.05

struct kp_ab_result {
	unsigned int rounds;
	double *a, *b;		/* seconds, per round */
	double *slow;		/* B / A - 1, per round */
	double a_med, b_med, a_noise;
	double slow_med, slow_q1, slow_q3, slow_min, slow_max;
	unsigned int b_slower, a_slower;
	double p;
	int within_noise;
};

/*
 * From @r's rounds (a[], b[], and slow[] to fill): medians, the detached
 * runs' noise, the slowdown's quartiles and range, the sign test and the
 * verdict.
 */
void kp_ab_analyse(struct kp_ab_result *r);

#endif
