/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof reader: its layers, bottom up.  A layer uses the ones below it
 * and never one above; the Makefile builds each directory's files with
 * the include paths of its own layer and those below, so an include that
 * reaches up does not build, and with KP_LAYER set to the layer's number
 * for what an include path cannot stop (below).
 *
 *   1 util/      helpers that know nothing of kprofmod: errors, units,
 *                option values, hash tables, statistics, safe output files
 *   2 lib/       the ABI client: opening /dev/kprof, version negotiation,
 *                the typed ioctls, the mapped snapshot
 *   3 core/      the model: sessions and intervals, histograms, endpoints,
 *                stacks and symbols, process maps, recordings, a measured
 *                window, the module's status
 *   4 analysis/  what the numbers say: findings, the module's own cost,
 *                abtest's verdict
 *   5 output/    renderers: every JSON (json-c, no other layer's), the
 *                report's, status's and stacks' text, Prometheus text,
 *                pprof (protobuf-c, zlib), folded stacks
 *   6 cmd/       main() and the commands: options, the loop, which output
 *
 * Tests (tests/, fuzz/) see every layer.
 */
#ifndef KPROF_READER_LAYERS_H
#define KPROF_READER_LAYERS_H

#define KP_LAYER_UTIL		1
#define KP_LAYER_LIB		2
#define KP_LAYER_CORE		3
#define KP_LAYER_ANALYSIS	4
#define KP_LAYER_OUTPUT		5
#define KP_LAYER_CMD		6

#ifndef KP_LAYER
#error "build through the Makefile: it sets each layer's KP_LAYER"
#endif

/* ioctl() is lib/'s, the one client of /dev/kprof (util/ asks a tty its size). */
#if KP_LAYER > KP_LAYER_LIB
#pragma GCC poison ioctl
#endif

/* JSON is built in output/ alone: json-c is for no other layer. */
#if KP_LAYER != KP_LAYER_OUTPUT
#pragma GCC poison json_object
#endif

#endif
