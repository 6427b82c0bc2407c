// SPDX-License-Identifier: GPL-2.0
/* kprof reader: a recording, see rec.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "maps.h"
#include "rec.h"
#include "row.h"
#include "util.h"

struct kp_rproc {
	uint32_t tgid;
	struct kp_maps maps;
	uint64_t used;		/* kp_rec.proc_clock at last use */
	uint64_t read_tick;
};

static void rstack_free(struct kp_rstack *rs)
{
	unsigned int i;

	if (!rs)
		return;
	for (i = 0; i < rs->nr; i++) {
		free(rs->f[i].text);
		free(rs->f[i].func);
	}
	free(rs->f);
	free(rs);
}

/* A stack of one pseudo frame. */
static struct kp_rstack *rstack_pseudo(uint32_t id, const char *what)
{
	struct kp_rstack *rs = calloc(1, sizeof(*rs));

	if (!rs)
		return NULL;
	rs->id = id;
	rs->f = calloc(1, sizeof(*rs->f));
	if (!rs->f) {
		free(rs);
		return NULL;
	}
	rs->nr = 1;
	rs->f[0].kind = KP_RF_PSEUDO;
	rs->f[0].map = -1;
	rs->f[0].text = strdup(what);
	rs->f[0].func = strdup(what);
	if (!rs->f[0].text || !rs->f[0].func) {
		rstack_free(rs);
		return NULL;
	}
	return rs;
}

static int add_stack(struct kp_rec *rec, struct kp_rstack *rs)
{
	uint64_t key = (uint64_t)rs->resets << 32 | rs->id;

	if (KP_GROW(rec->stacks, rec->nr_stacks, rec->cap_stacks) ||
	    kp_htab_add(&rec->stack_idx, kp_hash(&key, sizeof(key), 0),
			rec->nr_stacks)) {
		rstack_free(rs);
		return -ENOMEM;
	}
	rec->stacks[rec->nr_stacks++] = rs;
	return 0;
}

int kp_rec_init(struct kp_rec *rec, struct kp_stacks *cache,
		struct kp_sym *sym, uint32_t tgid)
{
	struct kp_rstack *full, *below;

	memset(rec, 0, sizeof(*rec));
	rec->cache = cache;
	rec->sym = sym;
	rec->tgid = tgid;
	/* Indexes 0 and 1, never looked up by ID. */
	full = rstack_pseudo(0, KP_RF_TABLE_FULL);
	below = rstack_pseudo(0, KP_RF_BELOW_THRESHOLD);
	if (!full || !below) {
		rstack_free(full);
		rstack_free(below);
		return -ENOMEM;
	}
	if (KP_GROW(rec->stacks, rec->nr_stacks, rec->cap_stacks)) {
		rstack_free(full);
		rstack_free(below);
		return -ENOMEM;
	}
	rec->stacks[rec->nr_stacks++] = full;
	rec->stacks[rec->nr_stacks++] = below;
	return 0;
}

void kp_rec_fini(struct kp_rec *rec)
{
	size_t i;

	for (i = 0; i < rec->nr_stacks; i++)
		rstack_free(rec->stacks[i]);
	free(rec->stacks);
	for (i = 0; i < rec->nr_maps; i++) {
		free(rec->maps[i].path);
		free(rec->maps[i].build_id);
	}
	free(rec->maps);
	for (i = 0; i < rec->nr_procs; i++)
		kp_maps_free(&rec->procs[i].maps);
	free(rec->procs);
	free(rec->cpu);
	free(rec->tcp);
	kp_htab_free(&rec->stack_idx);
	kp_htab_free(&rec->cpu_idx);
	kp_htab_free(&rec->tcp_idx);
	kp_htab_free(&rec->map_idx);
	kp_series_fini(&rec->series);
	memset(rec, 0, sizeof(*rec));
}

/* --- processes and mappings ----------------------------------------- */

static struct kp_rproc *proc_get(struct kp_rec *rec, uint32_t tgid)
{
	struct kp_rproc *p, *victim = NULL;
	size_t i;

	/* Few processes: a linear scan. */
	rec->proc_clock++;
	for (i = 0; i < rec->nr_procs; i++) {
		p = &rec->procs[i];
		if (p->tgid == tgid) {
			p->used = rec->proc_clock;
			return p;
		}
		if (!victim || p->used < victim->used)
			victim = p;
	}
	if (rec->nr_procs < KP_REC_PROCS) {
		if (KP_GROW(rec->procs, rec->nr_procs, rec->cap_procs))
			return NULL;
		victim = &rec->procs[rec->nr_procs++];
	} else {
		kp_maps_free(&victim->maps);
	}
	p = victim;
	memset(p, 0, sizeof(*p));
	p->tgid = tgid;
	p->used = rec->proc_clock;
	p->read_tick = rec->tick;
	kp_maps_read(tgid, &p->maps);	/* a process gone has none */
	return p;
}

struct map_key {
	const struct kp_rec *rec;
	uint32_t tgid;
	uint64_t start;
};

static bool map_eq(const void *ctx, uint32_t idx)
{
	const struct map_key *k = ctx;
	const struct kp_rmap *m = &k->rec->maps[idx];

	return m->tgid == k->tgid && m->start == k->start;
}

/*
 * The mapping of @addr in process @tgid, added to the recording when
 * first used.  Returns its index, or -1 when @addr is in none (or memory
 * ran out: the frame just goes without a mapping).
 */
static int32_t place(struct kp_rec *rec, uint32_t tgid, uint64_t addr,
		     int has_func)
{
	const struct kp_maps_entry *e;
	struct kp_rproc *p;
	struct map_key key;
	struct kp_rmap *m;
	char bid[KP_BUILD_ID_LEN];
	uint64_t h;
	int64_t i;

	if (!tgid || !addr)
		return -1;
	p = proc_get(rec, tgid);
	if (!p)
		return -1;
	e = kp_maps_find(&p->maps, addr);
	if (!e && p->read_tick != rec->tick) {
		/* Mapped since we read the maps (dlopen, JIT)? */
		kp_maps_free(&p->maps);
		kp_maps_read(tgid, &p->maps);
		p->read_tick = rec->tick;
		e = kp_maps_find(&p->maps, addr);
	}
	if (!e)
		return -1;
	key.rec = rec;
	key.tgid = tgid;
	key.start = e->start;
	h = kp_hash(&key.start, sizeof(key.start), kp_hash(&tgid, 4, 0));
	i = kp_htab_find(&rec->map_idx, h, map_eq, &key);
	if (i < 0) {
		if (KP_GROW(rec->maps, rec->nr_maps, rec->cap_maps))
			return -1;
		m = &rec->maps[rec->nr_maps];
		memset(m, 0, sizeof(*m));
		m->tgid = tgid;
		m->start = e->start;
		m->end = e->end;
		m->offset = e->offset;
		m->all_funcs = 1;
		m->path = strdup(e->path);
		if (!kp_sym_build_id(rec->sym, tgid, addr, bid, sizeof(bid)))
			m->build_id = strdup(bid);
		if (!m->path ||
		    kp_htab_add(&rec->map_idx, h, rec->nr_maps)) {
			free(m->path);
			free(m->build_id);
			return -1;
		}
		i = rec->nr_maps++;
	}
	if (!has_func)
		rec->maps[i].all_funcs = 0;
	return i;
}

/* --- stacks ----------------------------------------------------------- */

/* "sym+0x1a/0x40 [mod]" -> "sym"; an address without symbol stays. */
/*
 * A user frame with no symbol: "[MODULE]" when its mapping is known (the
 * text reads "[unknown] (MODULE+0xoff)"), as perf's flame graphs show
 * it, else "[unknown]".
 */
static char *unknown_func(const char *text)
{
	static const char pfx[] = KP_SYM_UNKNOWN " (";
	const char *mod, *plus;
	char *out;

	if (!text || strncmp(text, pfx, sizeof(pfx) - 1))
		return strdup(KP_SYM_UNKNOWN);
	mod = text + sizeof(pfx) - 1;
	plus = strrchr(mod, '+');
	if (!plus || plus == mod)
		return strdup(KP_SYM_UNKNOWN);
	if (asprintf(&out, "[%.*s]", (int)(plus - mod), mod) < 0)
		return NULL;
	return out;
}

static char *kernel_func(const char *text)
{
	size_t n = strcspn(text, "+ ");

	return strndup(text, n ? n : strlen(text));
}

static int fill_frames(struct kp_rec *rec, struct kp_rstack *rs,
		       struct kp_stack_info *si)
{
	unsigned int i, n = 0;
	struct kp_rframe *f;
	const char *func;

	rs->nr = !!si->ksyms_missing + si->nr_kernel + si->nr_user;
	rs->f = calloc(rs->nr ? rs->nr : 1, sizeof(*rs->f));
	if (!rs->f)
		return -ENOMEM;
	if (si->ksyms_missing) {
		f = &rs->f[n++];
		f->kind = KP_RF_KERNEL;
		f->ksyms_missing = 1;
		f->map = -1;
		f->text = strdup(KP_KSYMS_MISSING_TEXT);
		f->func = strdup(KP_KSYMS_MISSING_TEXT);
		if (!f->text || !f->func)
			return -ENOMEM;
	}
	for (i = 0; i < si->nr_kernel; i++) {
		f = &rs->f[n++];
		f->kind = KP_RF_KERNEL;
		f->map = -1;
		f->text = strdup(si->kernel[i]);
		f->func = kernel_func(si->kernel[i]);
		if (!f->text || !f->func)
			return -ENOMEM;
	}
	for (i = 0; i < si->nr_user; i++) {
		f = &rs->f[n++];
		f->kind = KP_RF_USER;
		f->text = strdup(kp_stack_user(rec->cache, si, i));
		func = kp_stack_user_func(rec->cache, si, i);
		f->has_func = func != NULL;
		f->func = func ? strdup(func) : unknown_func(f->text);
		if (!f->text || !f->func)
			return -ENOMEM;
		/* Return addresses: the call instruction, as symbolized. */
		f->addr = i && si->user_ips[i] ? si->user_ips[i] - 1 :
						  si->user_ips[i];
		f->map = place(rec, si->tgid, f->addr, f->has_func);
	}
	return 0;
}

struct stack_key {
	const struct kp_rec *rec;
	uint32_t resets;
	uint32_t id;
};

static bool stack_eq(const void *ctx, uint32_t idx)
{
	const struct stack_key *k = ctx;
	const struct kp_rstack *rs = k->rec->stacks[idx];

	return rs->id == k->id && rs->resets == k->resets;
}

/* Index of stack @id of @snap in the recording, resolved if new. */
static int64_t get_stack(struct kp_rec *rec, const struct kp_snapshot *snap,
			 uint32_t id)
{
	struct stack_key k = { rec, snap->stack_resets, id };
	uint64_t key = (uint64_t)k.resets << 32 | id;
	struct kp_stack_info *si;
	struct kp_rstack *rs;
	int64_t i;

	i = kp_htab_find(&rec->stack_idx, kp_hash(&key, sizeof(key), 0),
			 stack_eq, &k);
	if (i >= 0)
		return i;
	si = kp_stacks_get(rec->cache, id, snap);
	if (!si)
		return -ENOMEM;
	if (si->err) {
		rs = rstack_pseudo(id, KP_RF_UNKNOWN_STACK);
		if (!rs)
			return -ENOMEM;
	} else {
		rs = calloc(1, sizeof(*rs));
		if (!rs)
			return -ENOMEM;
		rs->id = id;
		rs->tgid = si->tgid;
		memcpy(rs->comm, si->comm, sizeof(rs->comm));
		if (fill_frames(rec, rs, si)) {
			rstack_free(rs);
			return -ENOMEM;
		}
	}
	rs->resets = k.resets;
	if (add_stack(rec, rs))
		return -ENOMEM;
	return rec->nr_stacks - 1;
}

/*
 * A row's stack in the recording: its index, @none for a row without one
 * (stack ID 0), or -errno.
 */
static int64_t row_stack(struct kp_rec *rec, const struct kp_snapshot *snap,
			 uint32_t id, int64_t none)
{
	return id ? get_stack(rec, snap, id) : none;
}

/* --- rows ------------------------------------------------------------- */

struct cpu_key {
	const struct kp_rec *rec;
	uint32_t stack;
	uint32_t tgid;
};

static bool cpu_eq(const void *ctx, uint32_t idx)
{
	const struct cpu_key *k = ctx;
	const struct kp_rcpu *c = &k->rec->cpu[idx];

	return c->stack == k->stack && c->tgid == k->tgid;
}

static int add_cpu(struct kp_rec *rec, const struct kp_snapshot *snap,
		   const struct kprof_cpu_row *r)
{
	struct cpu_key k = { rec, 0, r->tgid };
	struct kp_rcpu *c;
	int64_t st, i;
	uint64_t h;

	st = row_stack(rec, snap, r->stack_id, 0);
	if (st < 0)
		return st;
	k.stack = st;
	h = kp_hash(&k.tgid, sizeof(k.tgid), kp_hash(&k.stack, 4, 0));
	i = kp_htab_find(&rec->cpu_idx, h, cpu_eq, &k);
	if (i < 0) {
		if (KP_GROW(rec->cpu, rec->nr_cpu, rec->cap_cpu) ||
		    kp_htab_add(&rec->cpu_idx, h, rec->nr_cpu))
			return -ENOMEM;
		c = &rec->cpu[rec->nr_cpu++];
		memset(c, 0, sizeof(*c));
		c->stack = st;
		c->tgid = r->tgid;
		kp_comm(c->comm, r->comm);
	} else {
		c = &rec->cpu[i];
	}
	c->samples += r->samples;
	if (!c->comm[0])
		kp_comm(c->comm, r->comm);
	return 0;
}

/* What identifies a TCP row besides its stack. */
struct tcp_key {
	const struct kp_rec *rec;
	uint32_t stack;
	const struct kprof_tcp_row *r;
};

static bool tcp_eq(const void *ctx, uint32_t idx)
{
	const struct tcp_key *k = ctx;
	const struct kp_rtcp *t = &k->rec->tcp[idx];

	return t->stack == k->stack && kp_row_same_endpoint(&t->row, k->r);
}

static int add_tcp(struct kp_rec *rec, const struct kp_snapshot *snap,
		   const struct kprof_tcp_row *r)
{
	struct tcp_key k = { rec, 1, r };
	struct kp_rtcp *t;
	int64_t st, i;
	uint64_t h;

	st = row_stack(rec, snap, r->stack_id, 1);
	if (st < 0)
		return st;
	k.stack = st;
	h = kp_row_endpoint_hash(r, kp_hash(&k.stack, 4, 0));
	i = kp_htab_find(&rec->tcp_idx, h, tcp_eq, &k);
	if (i < 0) {
		if (KP_GROW(rec->tcp, rec->nr_tcp, rec->cap_tcp) ||
		    kp_htab_add(&rec->tcp_idx, h, rec->nr_tcp))
			return -ENOMEM;
		t = &rec->tcp[rec->nr_tcp++];
		t->stack = st;
		t->row = *r;
		return 0;
	}
	kp_row_merge(&rec->tcp[i].row, r);
	return 0;
}

int kp_rec_add(struct kp_rec *rec, const struct kp_snapshot *snap, int cpu,
	       int tcp)
{
	uint32_t i;
	int ret;

	rec->tick++;
	if (!rec->intervals++) {
		rec->start_ns = snap->start_ns;
		rec->resets_first = snap->stack_resets;
	}
	rec->resets_last = snap->stack_resets;
	rec->end_ns = snap->end_ns;
	rec->drops_stacks += snap->drops_stacks;
	if (cpu) {
		rec->samples += snap->samples;
		rec->samples_idle += snap->samples_idle;
		rec->drops_samples += snap->drops_samples;
		if (snap->sample_hz)
			rec->sample_hz = snap->sample_hz;
		for (i = 0; i < snap->nr_cpu_rows; i++) {
			if (rec->tgid && snap->cpu_rows[i].tgid != rec->tgid)
				continue;
			ret = add_cpu(rec, snap, &snap->cpu_rows[i]);
			if (ret)
				return ret;
		}
	}
	if (tcp) {
		rec->requests += snap->requests;
		rec->abandoned += snap->abandoned;
		rec->drops_inflight += snap->drops_inflight;
		rec->drops_rows += snap->drops_rows;
		rec->drops_export += snap->drops_export;
		for (i = 0; i < snap->nr_rows; i++) {
			ret = add_tcp(rec, snap, &snap->rows[i]);
			if (ret)
				return ret;
		}
		ret = rec->keep_series ?
		      kp_series_add(&rec->series, snap->rows, snap->nr_rows) : 0;
		if (ret)
			return ret;
	}
	return 0;
}

uint64_t kp_rec_busy(const struct kp_rec *rec)
{
	return rec->samples > rec->samples_idle ?
	       rec->samples - rec->samples_idle : 0;
}

uint64_t kp_rec_cpu_samples(const struct kp_rec *rec)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < rec->nr_cpu; i++)
		n += rec->cpu[i].samples;
	return n;
}

static int cmp_cpu(const void *a, const void *b)
{
	const struct kp_rcpu *x = *(const struct kp_rcpu *const *)a;
	const struct kp_rcpu *y = *(const struct kp_rcpu *const *)b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->stack != y->stack)
		return x->stack < y->stack ? -1 : 1;
	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

/* Pointers to the @n elements of @size bytes at @base, sorted by @cmp. */
static void **sorted_ptrs(void *base, size_t n, size_t size,
			  int (*cmp)(const void *, const void *))
{
	void **v = calloc(n ? n : 1, sizeof(*v));
	size_t i;

	if (!v)
		return NULL;
	for (i = 0; i < n; i++)
		v[i] = (char *)base + i * size;
	qsort(v, n, sizeof(*v), cmp);
	return v;
}

struct kp_rcpu **kp_rec_cpu_sorted(const struct kp_rec *rec)
{
	return (struct kp_rcpu **)sorted_ptrs(rec->cpu, rec->nr_cpu,
					      sizeof(*rec->cpu), cmp_cpu);
}

static int cmp_tcp(const void *a, const void *b)
{
	const struct kp_rtcp *x = *(const struct kp_rtcp *const *)a;
	const struct kp_rtcp *y = *(const struct kp_rtcp *const *)b;

	if (x->row.sum_ns != y->row.sum_ns)
		return x->row.sum_ns > y->row.sum_ns ? -1 : 1;
	if (x->row.count != y->row.count)
		return x->row.count > y->row.count ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

struct kp_rtcp **kp_rec_tcp_sorted(const struct kp_rec *rec)
{
	return (struct kp_rtcp **)sorted_ptrs(rec->tcp, rec->nr_tcp,
					      sizeof(*rec->tcp), cmp_tcp);
}
