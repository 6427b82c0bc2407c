// SPDX-License-Identifier: GPL-2.0
/* abtest's verdict: see abtest.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "abtest.h"
#include "stats.h"

void kp_ab_analyse(struct kp_ab_result *r)
{
	unsigned int n = r->rounds, i;
	double *tmp = calloc(n, sizeof(*tmp));

	if (!tmp)
		abort();
	r->b_slower = r->a_slower = 0;
	for (i = 0; i < n; i++) {
		r->slow[i] = r->b[i] / r->a[i] - 1;
		r->b_slower += r->b[i] > r->a[i];
		r->a_slower += r->b[i] < r->a[i];
	}
	memcpy(tmp, r->a, n * sizeof(*tmp));
	r->a_med = kp_quantile(tmp, n, 0.5);
	r->a_noise = r->a_med > 0 ? kp_mad(tmp, n) / r->a_med : 0;
	memcpy(tmp, r->b, n * sizeof(*tmp));
	r->b_med = kp_quantile(tmp, n, 0.5);
	memcpy(tmp, r->slow, n * sizeof(*tmp));
	r->slow_med = kp_quantile(tmp, n, 0.5);
	r->slow_q1 = kp_quantile(tmp, n, 0.25);
	r->slow_q3 = kp_quantile(tmp, n, 0.75);
	r->slow_min = tmp[0];
	r->slow_max = tmp[n - 1];
	r->p = kp_sign_test(r->b_slower, r->a_slower);
	/*
	 * A difference is noise unless it is both consistent (sign test)
	 * and larger than the command's own run-to-run spread.
	 */
	r->within_noise = r->p >= KP_AB_SIGNIFICANCE ||
			  fabs(r->slow_med) <= r->a_noise;
	free(tmp);
}
