/* SPDX-License-Identifier: GPL-2.0 */
/* kprofmod compat: compiler annotations. */
#ifndef _KPROF_COMPAT_COMPILER_H
#define _KPROF_COMPAT_COMPILER_H

#include <linux/compiler.h>
#include "kprof_compat_version.h"

/* v5.8: data_race() marks a read that may race on purpose, for KCSAN. */
#if KPROF_KERNEL_BEFORE(5, 8, 0)
/* before, there is no KCSAN to tell: the expression as is */
#define data_race(expr)	(expr)
#endif

#endif /* _KPROF_COMPAT_COMPILER_H */
