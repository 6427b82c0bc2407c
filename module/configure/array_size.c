// SPDX-License-Identifier: GPL-2.0
/* Trial compile: array_size(), see kprof_compat_mm.h. */
#include <linux/mm.h>

static size_t __maybe_unused kprof_probe(size_t a, size_t b)
{
	return array_size(a, b);
}
