/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KPROF_RECORD_JSON_H
#define KPROF_RECORD_JSON_H

#include <stdio.h>

#include "rec.h"

/* @rec as one JSON object on a line into @f: 0 or -errno. */
int kp_rec_json_write(FILE *f, const struct kp_rec *rec);

#endif
