/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KPROF_STATUS_PRINT_H
#define KPROF_STATUS_PRINT_H

#include "status.h"

/* @s on stdout, as text, or as one JSON object on a line. */
void kp_status_text(const struct kp_status *s);
void kp_status_json(const struct kp_status *s);

#endif
