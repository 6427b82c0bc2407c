/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's layers, which the compiler enforces.  From the top:
 *
 *   main -> dev -> ctl -> {tcp, sample, export} -> {guard, agg, stack}
 *        -> config -> compat
 *
 * config (the module parameters and the configuration that runs) is the
 * one unit that the others of its group read, so it sits below them.
 * A file calls only into the layers below its own, never up and never
 * sideways: what a lower part needs from a higher one (a value, the
 * guard's work item) the higher one passes down.  Each .c defines
 * KPROF_UNIT (its unit, below) before its first include; each header of
 * a unit defines KPROF_HEADER_UNIT and includes this file first, which
 * fails the build when the header's unit is the includer's own layer
 * (another unit of it) or a higher one.  kprof_row.h, shared with the
 * reader's tests, and the compat headers include no unit header.
 *
 * The units: the layer is the high nibble.  kprof_nmi_test.c (test
 * builds only) is part of the sampler.
 */
#ifndef _KPROF_LAYER_H
#define _KPROF_LAYER_H

#define KPROF_UNIT_CONFIG	0x10
#define KPROF_UNIT_GUARD	0x20
#define KPROF_UNIT_AGG		0x21
#define KPROF_UNIT_STACK	0x22
#define KPROF_UNIT_TCP		0x30
#define KPROF_UNIT_SAMPLE	0x31
#define KPROF_UNIT_EXPORT	0x32
#define KPROF_UNIT_CTL		0x40
#define KPROF_UNIT_DEV		0x50
#define KPROF_UNIT_MAIN		0x60

#define KPROF_LAYER_OF(unit)	((unit) >> 4)

/* Set by Kbuild from PACKAGE_VERSION in dkms.conf. */
#ifndef KPROF_MODULE_VERSION
#error "KPROF_MODULE_VERSION is not defined: build through Kbuild"
#endif

#endif /* _KPROF_LAYER_H */

/* Checked at every include of a unit's header, hence outside the guard. */
#ifndef KPROF_UNIT
#error "kprofmod: define KPROF_UNIT before including the module's headers"
#endif
#ifndef KPROF_HEADER_UNIT
#error "kprofmod: only the headers of the units include this one"
#endif
#if KPROF_LAYER_OF(KPROF_HEADER_UNIT) >= KPROF_LAYER_OF(KPROF_UNIT) && \
	KPROF_HEADER_UNIT - KPROF_UNIT
#error "kprofmod: a header of the includer's own layer or a higher one"
#endif
#undef KPROF_HEADER_UNIT
