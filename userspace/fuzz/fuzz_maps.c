// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the reader's /proc/PID/maps parser.  Whatever the
 * text, the entries it keeps are executable, non-empty and sorted, and
 * when they do not overlap (they never do in a real maps file) each is
 * found again by its first and last address.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_maps m;
	int disjoint = 1;
	size_t i;
	FILE *f;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	if (!kp_maps_parse(f, &m)) {
		for (i = 0; i < m.n; i++) {
			if (m.v[i].start >= m.v[i].end || !m.v[i].path)
				abort();
			if (i && m.v[i].start < m.v[i - 1].start)
				abort();
			if (i && m.v[i].start < m.v[i - 1].end)
				disjoint = 0;
		}
		for (i = 0; disjoint && i < m.n; i++)
			if (kp_maps_find(&m, m.v[i].start) != &m.v[i] ||
			    kp_maps_find(&m, m.v[i].end - 1) != &m.v[i])
				abort();
		kp_maps_free(&m);
	}
	fclose(f);
	return 0;
}
