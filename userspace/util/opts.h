/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof reader: parsing option values.  Each parser returns NULL on
 * success, else a short reason for the message "kprof: CMD: OPT 'TEXT':
 * REASON".
 */
#ifndef KPROF_READER_OPTS_H
#define KPROF_READER_OPTS_H

#include <stdint.h>

/* A decimal integer in [@min, @max]: digits only, no sign or spaces. */
const char *kp_parse_uint(const char *s, uint64_t min, uint64_t max,
			  uint64_t *out);

/*
 * A comma-separated list of ports 1..65535 ("80,443"), added to the @nr
 * ports already in @ports unless already there; at most @max in all.
 */
const char *kp_parse_ports(const char *s, uint16_t *ports, unsigned int *nr,
			   unsigned int max);

#endif
