/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof reader: names of the module's bit masks (KPROF_FEAT_*,
 * KPROF_ATTACH_*, KPROF_RUN_*), for text and JSON.
 */
#ifndef KPROF_READER_NAMES_H
#define KPROF_READER_NAMES_H

#include <stdint.h>
#include <stdio.h>

struct kp_bitnames {
	const char *const *names;	/* names[i] for bit i */
	unsigned int nr;
};

extern const struct kp_bitnames kp_feature_names;
extern const struct kp_bitnames kp_attach_names;
extern const struct kp_bitnames kp_run_names;

/* The bits of @v that have no name in @n. */
uint64_t kp_bits_unnamed(uint64_t v, const struct kp_bitnames *n);

/* " name name 0x..." for the bits of @v, " none" for none. */
void kp_print_bits(FILE *out, uint64_t v, const struct kp_bitnames *n);

/* KPROF_ENDPOINTS_*: "full", "prefix", "hash", or NULL for another value. */
const char *kp_endpoints_name(uint32_t mode);

#endif
