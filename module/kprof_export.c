// SPDX-License-Identifier: GPL-2.0
/*
 * The export region: one vmalloc'ed, read-only mmap()able area holding
 * cumulative rows, laid out as documented in uapi/linux/kprof.h.
 *
 * A snapshot closes the open interval (kprof_agg) and adds the CPUs' rows
 * to the region's rows, which only ever grow from the key's birth on;
 * then it lists every stack the rows name (kernel frames resolved to
 * strings here, once per stack, never in a handler) and publishes with a
 * seqcount-style generation.  Every reader differences its own
 * consecutive copies, so no reader's snapshot takes anything from
 * another's.  A row that has not changed since every reader last read it
 * may be evicted to make room; a reader sees the key vanish, and a later
 * row of the same key has a new birth.  Snapshots are serialised by the
 * caller.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#define KPROF_UNIT KPROF_UNIT_EXPORT

#include <linux/bitmap.h>
#include <linux/fs.h>
#include <linux/jhash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

#include "kprof_agg.h"
#include "kprof_config.h"
#include "kprof_export.h"
#include "kprof_stack.h"
#include "compat/kprof_compat_mm.h"

static void *kprof_region;
static u64 kprof_region_size;
static u32 kprof_export_stacks_cap;

/* Merge index: key -> export row + 1, open addressing at <= 50% load. */
static u32 *kprof_merge_idx;
static struct kprof_tcp_key *kprof_merge_keys;
static u32 kprof_merge_cap;
/* The same for CPU rows, keyed by (stack ID, tgid). */
static u32 *kprof_cmerge_idx;
static u32 kprof_cmerge_cap;
static unsigned long *kprof_stack_seen;

/* The snapshot that last added to each row (not exported). */
static u64 *kprof_tcp_touched;
static u64 *kprof_cpu_touched;

static u64 kprof_nr_snapshots;
static u64 kprof_drops_export_total;
static u64 kprof_drops_samples_export;

struct kprof_merge {
	struct kprof_mmap_header *hdr;
	struct kprof_tcp_row *rows;
	u32 nr;
	u64 drops;
	struct kprof_cpu_row *crows;
	u32 nr_crows;
	u64 cdrops;
	u64 seq;	/* this snapshot's number: births and touches */
};

static struct kprof_mmap_header *kprof_hdr(void)
{
	return kprof_region;
}

u64 kprof_export_size(void)
{
	return kprof_region_size;
}

u64 kprof_export_drops(void)
{
	return kprof_drops_export_total;
}

u64 kprof_export_sample_drops(void)
{
	return kprof_drops_samples_export;
}

u64 kprof_export_snapshots(void)
{
	return kprof_nr_snapshots;
}

/* The generation published last (even: the caller serialises writers). */
u64 kprof_export_generation(void)
{
	return kprof_hdr()->generation;
}

int kprof_export_init(void)
{
	struct kprof_mmap_header *hdr;
	u64 off_rows, off_crows, off_stacks, off_strings, size;

	kprof_export_stacks_cap = min(kprof_stacks_max, kprof_tcp_rows_max +
				      kprof_sample_rows_max);
	off_rows = ALIGN(sizeof(*hdr), 64);
	off_crows = off_rows + (u64)kprof_tcp_rows_max *
			       sizeof(struct kprof_tcp_row);
	off_stacks = off_crows + (u64)kprof_sample_rows_max *
				 sizeof(struct kprof_cpu_row);
	off_strings = off_stacks + (u64)kprof_export_stacks_cap *
				   sizeof(struct kprof_stack);
	size = PAGE_ALIGN(off_strings + (u64)kprof_strings_kb * 1024);

	kprof_merge_cap = roundup_pow_of_two(2 * kprof_tcp_rows_max);
	kprof_cmerge_cap = roundup_pow_of_two(2 * kprof_sample_rows_max);
	kprof_cmerge_idx = vzalloc(array_size(kprof_cmerge_cap, sizeof(u32)));
	kprof_region = vmalloc_user(size);
	kprof_merge_idx = vzalloc(array_size(kprof_merge_cap, sizeof(u32)));
	kprof_merge_keys = vmalloc(array_size(kprof_tcp_rows_max,
					      sizeof(*kprof_merge_keys)));
	kprof_stack_seen = vzalloc(BITS_TO_LONGS(kprof_stacks_max) *
				   sizeof(long));
	kprof_tcp_touched = vmalloc(array_size(kprof_tcp_rows_max, sizeof(u64)));
	kprof_cpu_touched = vmalloc(array_size(kprof_sample_rows_max,
					       sizeof(u64)));
	if (!kprof_region || !kprof_merge_idx || !kprof_merge_keys ||
	    !kprof_cmerge_idx || !kprof_stack_seen || !kprof_tcp_touched ||
	    !kprof_cpu_touched) {
		kprof_export_exit();
		return -ENOMEM;
	}
	kprof_region_size = size;

	hdr = kprof_hdr();
	hdr->magic = KPROF_MMAP_MAGIC;
	hdr->header_size = sizeof(*hdr);
	hdr->api_major = KPROF_API_MAJOR;
	hdr->api_minor = KPROF_API_MINOR;
	hdr->mmap_size = size;
	hdr->tcp_rows_off = off_rows;
	hdr->tcp_row_size = sizeof(struct kprof_tcp_row);
	hdr->cpu_rows_off = off_crows;
	hdr->cpu_row_size = sizeof(struct kprof_cpu_row);
	hdr->stacks_off = off_stacks;
	hdr->stack_size = sizeof(struct kprof_stack);
	hdr->strings_off = off_strings;
	hdr->strings_cap = size - off_strings;
	hdr->hist_buckets = KPROF_HIST_BUCKETS;
	hdr->hist_sub_bits = KPROF_HIST_SUB_BITS;
	hdr->interval_start_ns = ktime_get_ns();
	hdr->interval_end_ns = hdr->interval_start_ns;
	return 0;
}

void kprof_export_exit(void)
{
	vfree(kprof_region);
	vfree(kprof_merge_idx);
	vfree(kprof_merge_keys);
	vfree(kprof_cmerge_idx);
	vfree(kprof_stack_seen);
	vfree(kprof_tcp_touched);
	vfree(kprof_cpu_touched);
	kprof_tcp_touched = NULL;
	kprof_cpu_touched = NULL;
	kprof_cmerge_idx = NULL;
	kprof_region = NULL;
	kprof_merge_idx = NULL;
	kprof_merge_keys = NULL;
	kprof_stack_seen = NULL;
}

/*
 * Every page is mapped at mmap() time, and one zapped later (by
 * MADV_DONTNEED) is not mapped again: touching it is SIGBUS, in private
 * mappings too.  Without vm_ops, kernels before v4.19 took a private
 * mapping of a device for anonymous memory and filled it with zeros.
 */
static kprof_vm_fault_t kprof_export_fault(struct vm_fault *vmf)
{
	return VM_FAULT_SIGBUS;
}

static const struct vm_operations_struct kprof_export_vm_ops = {
	.fault = kprof_export_fault,
};

int kprof_export_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (vma->vm_pgoff)
		return -EINVAL;
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	if (vma->vm_end - vma->vm_start > kprof_region_size)
		return -EINVAL;
	kprof_vm_flags_clear(vma, VM_MAYWRITE);
	kprof_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY);
	vma->vm_ops = &kprof_export_vm_ops;
	return remap_vmalloc_range(vma, kprof_region, 0);
}

static void kprof_merge_row(const struct kprof_tcp_slot *s, void *arg)
{
	struct kprof_merge *m = arg;
	struct kprof_tcp_row *r;
	u32 h, idx, i, hi;

	h = jhash(&s->key, sizeof(s->key), 0) & (kprof_merge_cap - 1);
	for (;;) {
		idx = kprof_merge_idx[h];
		if (!idx)
			break;
		if (!memcmp(&kprof_merge_keys[idx - 1], &s->key,
			    sizeof(s->key)))
			goto add;
		h = (h + 1) & (kprof_merge_cap - 1);
	}
	if (m->nr == kprof_tcp_rows_max) {
		m->drops += s->count;
		return;
	}
	idx = ++m->nr;
	kprof_merge_idx[h] = idx;
	kprof_merge_keys[idx - 1] = s->key;
	r = &m->rows[idx - 1];
	memset(r, 0, sizeof(*r));
	r->stack_id = s->key.stack_id;
	r->family = s->key.family;
	r->rport = s->key.rport;
	memcpy(r->raddr, s->key.raddr, sizeof(r->raddr));
	r->role = s->key.role;
	r->views = s->key.views;
	r->min_ns = U64_MAX;
	r->birth = m->seq;
add:
	r = &m->rows[idx - 1];
	kprof_tcp_touched[idx - 1] = m->seq;
	r->count += s->count;
	r->sum_ns += s->sum_ns;
	r->retransmits += s->health[KPROF_HEALTH_RETRANSMITS];
	r->retransmits_rto += s->health[KPROF_HEALTH_RETRANSMITS_RTO];
	r->resets_sent += s->health[KPROF_HEALTH_RESETS_SENT];
	r->resets_received += s->health[KPROF_HEALTH_RESETS_RECEIVED];
	r->after_retransmit += s->health[KPROF_HEALTH_AFTER_RETRANSMIT];
	r->connects_refused += s->health[KPROF_HEALTH_CONNECTS_REFUSED];
	r->connects_timedout += s->health[KPROF_HEALTH_CONNECTS_TIMEDOUT];
	r->connects_failed += s->health[KPROF_HEALTH_CONNECTS_FAILED];
	r->min_ns = min(r->min_ns, s->min_ns);
	r->max_ns = max(r->max_ns, s->max_ns);
	/* only the buckets between the slot's min and max can be non-zero */
	hi = kprof_hist_bucket(s->max_ns);
	for (i = kprof_hist_bucket(s->min_ns); i <= hi; i++)
		r->hist[i] += s->hist[i];	/* wraps: readers difference */
}

static void kprof_merge_cpu_row(const struct kprof_cpu_slot *s, void *arg)
{
	struct kprof_merge *m = arg;
	struct kprof_cpu_row *r;
	u32 h, idx;

	h = jhash_3words(s->stack_id, s->tgid, s->views, 0) &
	    (kprof_cmerge_cap - 1);
	for (;;) {
		idx = kprof_cmerge_idx[h];
		if (!idx)
			break;
		r = &m->crows[idx - 1];
		if (r->stack_id == s->stack_id && r->tgid == s->tgid &&
		    r->views == s->views)
			goto add;
		h = (h + 1) & (kprof_cmerge_cap - 1);
	}
	if (m->nr_crows == kprof_sample_rows_max) {
		m->cdrops += s->samples;
		return;
	}
	idx = ++m->nr_crows;
	kprof_cmerge_idx[h] = idx;
	r = &m->crows[idx - 1];
	memset(r, 0, sizeof(*r));
	r->stack_id = s->stack_id;
	r->tgid = s->tgid;
	r->views = s->views;
	memcpy(r->comm, s->comm, sizeof(r->comm));
	r->birth = m->seq;
add:
	kprof_cpu_touched[idx - 1] = m->seq;
	r->samples += s->samples;
}

/* Stack ID of the i-th row of either kind. */
static u32 kprof_merge_stack_id(const struct kprof_merge *m, u32 i)
{
	return i < m->nr ? m->rows[i].stack_id : m->crows[i - m->nr].stack_id;
}

/* Append the stacks the rows name, with their kernel frame strings. */
static void kprof_export_stacks(struct kprof_merge *m)
{
	struct kprof_mmap_header *hdr = m->hdr;
	struct kprof_stack *out = kprof_region + hdr->stacks_off;
	char *strings = kprof_region + hdr->strings_off;
	u32 i, nr = 0, len = 0;

	bitmap_zero(kprof_stack_seen, kprof_stacks_max);
	for (i = 0; i < m->nr + m->nr_crows; i++) {
		u32 id = kprof_merge_stack_id(m, i);
		struct kprof_stack_entry *e;
		struct kprof_stack *st;

		if (!id || test_and_set_bit(id - 1, kprof_stack_seen))
			continue;
		e = kprof_stack_get(id);
		if (!e || nr == kprof_export_stacks_cap)
			continue;
		st = &out[nr++];
		kprof_stack_fill(e, id, st);
		/* prepared by kprof_export_ksyms() before the window opened */
		if (e->ksyms && len + e->ksyms_len <= hdr->strings_cap) {
			memcpy(strings + len, e->ksyms, e->ksyms_len);
			st->ksyms_off = len;
			st->nr_kernel = e->nr_kernel;
			len += e->ksyms_len;
		} else if (e->nr_kernel) {
			st->ksyms_off = KPROF_KSYMS_MISSING;
		}
	}
	hdr->nr_stacks = nr;
	hdr->strings_len = len;
}

static void kprof_ksyms_of(u32 id)
{
	struct kprof_stack_entry *e = id ? kprof_stack_get(id) : NULL;

	if (e)
		kprof_stack_prepare(e);
}

static void kprof_ksyms_row(const struct kprof_tcp_slot *s, void *arg)
{
	kprof_ksyms_of(s->key.stack_id);
}

static void kprof_ksyms_cpu_row(const struct kprof_cpu_slot *s, void *arg)
{
	kprof_ksyms_of(s->stack_id);
}

/*
 * Check the user frames (under the process's mmap lock) and resolve (and
 * allocate) the kernel symbols of every stack the closed interval names,
 * while its generation is still even: readers wait for an odd generation,
 * so it covers only the merge and copies.
 */
static void kprof_export_ksyms(void)
{
	kprof_agg_visit_closed(kprof_ksyms_row, kprof_ksyms_cpu_row, NULL);
}

/* Index every row again, after rows moved or went. */
static void kprof_merge_rebuild(u32 nr, const struct kprof_cpu_row *crows,
				u32 nr_crows)
{
	u32 i, h;

	memset(kprof_merge_idx, 0, kprof_merge_cap * sizeof(u32));
	for (i = 0; i < nr; i++) {
		h = jhash(&kprof_merge_keys[i], sizeof(kprof_merge_keys[i]), 0);
		for (h &= kprof_merge_cap - 1; kprof_merge_idx[h];
		     h = (h + 1) & (kprof_merge_cap - 1))
			;
		kprof_merge_idx[h] = i + 1;
	}
	memset(kprof_cmerge_idx, 0, kprof_cmerge_cap * sizeof(u32));
	for (i = 0; i < nr_crows; i++) {
		h = jhash_3words(crows[i].stack_id, crows[i].tgid,
				 crows[i].views, 0);
		for (h &= kprof_cmerge_cap - 1; kprof_cmerge_idx[h];
		     h = (h + 1) & (kprof_cmerge_cap - 1))
			;
		kprof_cmerge_idx[h] = i + 1;
	}
}

/*
 * Drop the rows no reader can still need: nothing was added to them
 * after snapshot @upto, which every reader has copied since (see
 * kprof_ctl_snapshot()).  Only in a table more than half full, so that
 * the rows of a small table live on.
 */
static void kprof_export_evict(struct kprof_merge *m, u64 upto)
{
	bool moved = false;
	u32 i, n;

	if (m->nr > kprof_tcp_rows_max / 2) {
		for (i = n = 0; i < m->nr; i++) {
			if (kprof_tcp_touched[i] <= upto)
				continue;
			if (i != n) {
				m->rows[n] = m->rows[i];
				kprof_merge_keys[n] = kprof_merge_keys[i];
				kprof_tcp_touched[n] = kprof_tcp_touched[i];
			}
			n++;
		}
		moved = n != m->nr;
		m->nr = n;
	}
	if (m->nr_crows > kprof_sample_rows_max / 2) {
		for (i = n = 0; i < m->nr_crows; i++) {
			if (kprof_cpu_touched[i] <= upto)
				continue;
			if (i != n) {
				m->crows[n] = m->crows[i];
				kprof_cpu_touched[n] = kprof_cpu_touched[i];
			}
			n++;
		}
		moved |= n != m->nr_crows;
		m->nr_crows = n;
	}
	if (moved)
		kprof_merge_rebuild(m->nr, m->crows, m->nr_crows);
}

/*
 * Publish: add the interval closed now to the rows, after evicting what
 * no reader needs any more (@upto, as above).  *@seq is this snapshot's
 * number, the birth of the rows it creates.
 */
int kprof_export_snapshot(u64 upto, u32 sample_hz, u64 *generation,
			  u64 *seq)
{
	struct kprof_mmap_header *hdr = kprof_hdr();
	u64 counters[KPROF_CNT_NR] = { 0 }, sc[KPROF_SCNT_NR] = { 0 };
	struct kprof_merge m = {
		.hdr = hdr,
		.rows = kprof_region + hdr->tcp_rows_off,
		.nr = hdr->nr_tcp_rows,
		.crows = kprof_region + hdr->cpu_rows_off,
		.nr_crows = hdr->nr_cpu_rows,
		.seq = kprof_nr_snapshots + 1,
	};
	u64 now;

	kprof_agg_close_interval();
	now = ktime_get_ns();
	kprof_export_ksyms();

	/* odd: being written; readers retry (see the uapi header) */
	WRITE_ONCE(hdr->generation, hdr->generation + 1);
	/* order the odd generation before the contents */
	smp_wmb();

	kprof_export_evict(&m, upto);
	kprof_agg_drain_closed(kprof_merge_row, kprof_merge_cpu_row, &m,
			       counters, sc);
	hdr->nr_tcp_rows = m.nr;
	hdr->nr_cpu_rows = m.nr_crows;
	kprof_export_stacks(&m);

	hdr->interval_end_ns = now;
	hdr->requests += counters[KPROF_CNT_REQUESTS];
	hdr->abandoned += counters[KPROF_CNT_ABANDONED];
	hdr->drops_inflight += counters[KPROF_CNT_DROPS_INFLIGHT];
	hdr->drops_rows += counters[KPROF_CNT_DROPS_ROWS];
	hdr->drops_stacks += counters[KPROF_CNT_DROPS_STACKS] +
			     sc[KPROF_SCNT_DROPS_STACKS];
	hdr->drops_export += m.drops;
	hdr->samples += sc[KPROF_SCNT_SAMPLES];
	hdr->samples_idle += sc[KPROF_SCNT_IDLE];
	hdr->drops_samples += sc[KPROF_SCNT_DROPS] + m.cdrops;
	hdr->sample_hz = sample_hz;
	hdr->stack_resets = kprof_stacks_resets();
	hdr->threshold_ns = kprof_cfg_threshold();
	kprof_drops_export_total += m.drops;
	kprof_drops_samples_export += m.cdrops;
	kprof_nr_snapshots = m.seq;

	/* order the contents before the even generation */
	smp_wmb();
	WRITE_ONCE(hdr->generation, hdr->generation + 1);
	*generation = hdr->generation;
	*seq = m.seq;
	return 0;
}

/*
 * Forget every row (stack IDs are about to be reused); the counters in
 * the header go on.  Readers see every key vanish.
 */
void kprof_export_clear(void)
{
	struct kprof_mmap_header *hdr = kprof_hdr();

	WRITE_ONCE(hdr->generation, hdr->generation + 1);
	/* the odd generation before the contents, as in a snapshot */
	smp_wmb();
	hdr->nr_tcp_rows = 0;
	hdr->nr_cpu_rows = 0;
	hdr->nr_stacks = 0;
	hdr->strings_len = 0;
	kprof_merge_rebuild(0, NULL, 0);
	/* the contents before the even generation */
	smp_wmb();
	WRITE_ONCE(hdr->generation, hdr->generation + 1);
}
