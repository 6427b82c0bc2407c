/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof reader: CPU samples in the folded ("collapsed") stack format that
 * flamegraph.pl, inferno and speedscope read: one line per stack,
 *
 *   comm;root-frame;...;leaf-frame COUNT
 *
 * root first, the process name as the root, kernel frames suffixed
 * "_[k]", user frames as function names ("[unknown]" when not
 * symbolized), COUNT the samples.  Lines are sorted (byte order) and
 * identical ones added up: processes of the same name share lines.
 */
#ifndef KPROF_READER_FOLDED_H
#define KPROF_READER_FOLDED_H

#include <stdio.h>

#include "rec.h"

/*
 * @name made safe for a folded line, into @buf (@len > 0; cut to fit):
 * ';' becomes ':', white space '_', other control characters '?'; an
 * empty name becomes "[unknown]".  Returns @buf.
 */
char *kp_folded_name(char *buf, size_t len, const char *name);

/* Write the recording's CPU rows to @f.  0, or -ENOMEM / -EIO. */
int kp_folded_write(FILE *f, const struct kp_rec *rec);

#endif
