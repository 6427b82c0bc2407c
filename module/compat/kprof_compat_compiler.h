/* SPDX-License-Identifier: GPL-2.0 */
/* kprofmod compat: compiler annotations. */
#ifndef _KPROF_COMPAT_COMPILER_H
#define _KPROF_COMPAT_COMPILER_H

#include <linux/compiler.h>

/*
 * data_race() marks a read that may race on purpose, for KCSAN: upstream
 * commit c48981eeb0d5 ("include/linux/compiler.h: Introduce
 * data_race(expr) macro"), v5.8.  A macro, so the preprocessor is the
 * trial compile: the fallback is for 4.14, 4.19 and 5.4.
 */
#ifndef data_race
/* without it there is no KCSAN to tell: the expression as is */
#define data_race(expr)	(expr)
#endif

#endif /* _KPROF_COMPAT_COMPILER_H */
