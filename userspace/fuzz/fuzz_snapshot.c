// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the reader's copy of the /dev/kprof mapping.
 *
 * Input: one flag byte, then the mapping.  Flag bit 0 sets the header's
 * mmap_size to the mapping's length, bit 1 its magic, API major and
 * histogram constants, so that mutations get past the first checks; the
 * generation is always made even (an odd one only makes the copy wait).
 * The mapping lives in a buffer of exactly its length: ASan catches any
 * read past it.  A layout that kp_snapshot_copy() accepts must then be
 * safe to use: every stack's kernel frames are walked, the rows looked
 * up, every row's statistics and JSON computed, and the interval
 * recorded, analysed and written as folded stacks and pprof profiles.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "folded.h"
#include "pprof.h"
#include "rec.h"
#include "report_json.h"
#include "snapshot.h"
#include "stack.h"
#include "symbolize.h"

static struct kp_sym *sym;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* the reader's messages; libFuzzer and the sanitizers keep fd 2 */
	stderr = fopen("/dev/null", "w");
	sym = kp_sym_new();
	return sym ? 0 : -1;
}

static void write_all(const struct kp_rec *rec)
{
	struct kp_pprof_meta meta = { .sample_hz = 99, .comment = "fuzz" };
	struct kp_endpoint *ep;
	struct kp_func *funcs;
	size_t len = 0, nr;
	char *out = NULL;
	FILE *f;

	f = open_memstream(&out, &len);
	if (f) {
		kp_folded_write(f, rec);
		kp_pprof_write(f, rec, KP_PPROF_CPU, &meta);
		kp_pprof_write(f, rec, KP_PPROF_LATENCY, &meta);
		fclose(f);
	}
	free(out);
	if (!kp_hot_funcs(rec, &funcs, &nr))
		free(funcs);
	if (!kp_endpoints(rec, &ep, &nr))
		kp_endpoints_free(ep, nr);
}

static void use(const struct kp_snapshot *snap)
{
	struct kp_stacks cache;
	struct kp_snapshot own;
	struct kp_row_stats rs;
	struct kp_rec rec;
	size_t total = 0;
	unsigned int i, j;

	for (i = 0; i < snap->nr_stacks; i++) {
		const struct kprof_stack *st = &snap->stacks[i];

		if (kp_stack_check(st, snap->strings, snap->strings_len, NULL, 0))
			abort();	/* accepted, yet fails its own check */
		if (i && st->id < snap->stacks[i - 1].id)
			abort();	/* not sorted */
		for (j = 0; j < st->nr_kernel; j++)
			total += strlen(kp_stack_ksym(st, snap->strings, j));
	}
	if (snap->strings[snap->strings_len])
		abort();
	for (i = 0; i < snap->nr_rows; i++) {
		kp_snapshot_stack(snap, snap->rows[i].stack_id);
		kp_row_stats(&snap->rows[i], &rs);
		json_object_put(kp_json_tcp_row(&snap->rows[i]));
	}
	for (i = 0; i < snap->nr_cpu_rows; i++)
		kp_snapshot_stack(snap, snap->cpu_rows[i].stack_id);
	(void)kp_snapshot_busy(snap);

	/*
	 * The recording, as `kprof record` makes it.  Process IDs go to 0:
	 * real ones would symbolize whatever process has that number.
	 */
	own = *snap;
	for (i = 0; i < own.nr_stacks; i++)
		own.stacks[i].tgid = 0;
	for (i = 0; i < own.nr_cpu_rows; i++)
		own.cpu_rows[i].tgid = 0;
	kp_stacks_init(&cache, -1, sym);
	if (!kp_rec_init(&rec, &cache, sym, 0)) {
		rec.keep_series = 1;
		if (!kp_rec_add(&rec, &own, 1, 1))
			write_all(&rec);
		kp_rec_fini(&rec);
	}
	kp_stacks_fini(&cache);
	(void)total;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kprof_mmap_header *h;
	struct kp_snapshot snap;
	char err[KP_SNAP_ERR_LEN];
	uint8_t flags;
	char *buf;
	int ret;

	if (!size)
		return 0;
	flags = data[0];
	data++;
	size--;
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	h = (struct kprof_mmap_header *)buf;
	if (size >= sizeof(*h)) {
		h->generation &= ~1ULL;
		if (flags & 1)
			h->mmap_size = size;
		if (flags & 2) {
			h->magic = KPROF_MMAP_MAGIC;
			h->api_major = KPROF_API_MAJOR;
			h->hist_buckets = KPROF_HIST_BUCKETS;
			h->hist_sub_bits = KPROF_HIST_SUB_BITS;
		}
	} else if (size >= 24) {
		h->generation &= ~1ULL;
	}
	ret = kp_snapshot_copy(buf, size, &snap, err, sizeof(err));
	if (!ret) {
		use(&snap);
		kp_snapshot_free(&snap);
	} else if (ret != -EBADMSG && ret != -ENOMEM) {
		abort();	/* -EAGAIN cannot happen: nothing changes it */
	} else if (!memchr(err, '\0', sizeof(err)) || !err[0]) {
		abort();	/* a rejection says why */
	}
	free(buf);
	return 0;
}
