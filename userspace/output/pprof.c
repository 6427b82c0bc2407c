// SPDX-License-Identifier: GPL-2.0
/* kprof reader: pprof profiles, see pprof.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "addr.h"
#include "row.h"
#include "pprof.h"
#include "profile.pb-c.h"
#include "units.h"
#include "util.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;

#define KERNEL_MAPPING	"[kernel.kallsyms]"
#define NR_LABELS	2

struct loc_key {
	uint8_t kind;
	uint32_t tgid;
	uint64_t addr;
	const char *text;	/* kernel and pseudo frames */
};

struct fn_key {
	uint8_t kind;
	int64_t name;
	int64_t file;		/* user: the mapping's file */
};

struct samp {
	uint64_t *locs;
	size_t nr;
	int64_t value[2];
	Label label[NR_LABELS];	/* pointed to only in emit(): smp moves */
};

struct pb {
	const struct kp_rec *rec;
	int oom;

	char **str;
	size_t nstr, capstr;
	struct kp_htab str_idx;

	Function *fn;
	struct fn_key *fnk;
	size_t nfn, capfn, capfnk;
	struct kp_htab fn_idx;

	Location *loc;
	struct loc_key *lock;
	uint64_t *loc_fn;
	size_t nloc, caploc, caplock, caplocfn;
	struct kp_htab loc_idx;

	Mapping *map;
	size_t nmap, capmap;
	uint64_t *map_of;	/* rec->maps[i] -> mapping ID, 0: none yet */
	uint64_t kernel_map;

	struct samp *smp;
	size_t nsmp, capsmp;
};

#define GROW(pb, arr, cap, n)						\
	(KP_GROW(arr, n, cap) ?						\
	 ((pb)->oom = 1, -1) : 0)

/* --- strings ----------------------------------------------------------- */

struct str_ctx {
	const struct pb *pb;
	const char *s;
};

static bool str_eq(const void *ctx, uint32_t idx)
{
	const struct str_ctx *c = ctx;

	return !strcmp(c->pb->str[idx], c->s);
}

/* Index of @s in the string table, added if new; 0 ("") when out of memory. */
static int64_t str(struct pb *pb, const char *s)
{
	struct str_ctx c = { pb, s ? s : "" };
	uint64_t h = kp_hash(c.s, strlen(c.s), 0);
	int64_t i;
	char *d;

	i = kp_htab_find(&pb->str_idx, h, str_eq, &c);
	if (i >= 0)
		return i;
	if (GROW(pb, pb->str, pb->capstr, pb->nstr))
		return 0;
	d = strdup(c.s);
	if (!d || kp_htab_add(&pb->str_idx, h, pb->nstr)) {
		free(d);
		pb->oom = 1;
		return 0;
	}
	pb->str[pb->nstr] = d;
	return pb->nstr++;
}

/* --- mappings, functions, locations ------------------------------------ */

static uint64_t kernel_mapping(struct pb *pb)
{
	Mapping *m;

	if (pb->kernel_map)
		return pb->kernel_map;
	if (GROW(pb, pb->map, pb->capmap, pb->nmap))
		return 0;
	m = &pb->map[pb->nmap];
	perftools__profiles__mapping__init(m);
	m->id = pb->nmap + 1;
	m->filename = str(pb, KERNEL_MAPPING);
	m->has_functions = 1;
	pb->nmap++;
	pb->kernel_map = m->id;
	return m->id;
}

static uint64_t user_mapping(struct pb *pb, int32_t idx)
{
	const struct kp_rmap *r;
	Mapping *m;

	if (idx < 0)
		return 0;
	if (pb->map_of[idx])
		return pb->map_of[idx];
	if (GROW(pb, pb->map, pb->capmap, pb->nmap))
		return 0;
	r = &pb->rec->maps[idx];
	m = &pb->map[pb->nmap];
	perftools__profiles__mapping__init(m);
	m->id = pb->nmap + 1;
	m->memory_start = r->start;
	m->memory_limit = r->end;
	m->file_offset = r->offset;
	m->filename = str(pb, r->path);
	m->build_id = r->build_id ? str(pb, r->build_id) : 0;
	m->has_functions = r->all_funcs;
	pb->nmap++;
	pb->map_of[idx] = m->id;
	return m->id;
}

struct fn_ctx {
	const struct pb *pb;
	struct fn_key k;
};

static bool fn_ctx_eq(const void *ctx, uint32_t idx)
{
	const struct fn_ctx *c = ctx;
	const struct fn_key *k = &c->pb->fnk[idx];

	return k->kind == c->k.kind && k->name == c->k.name &&
	       k->file == c->k.file;
}

static uint64_t function(struct pb *pb, const struct kp_rframe *f,
			 int64_t file)
{
	struct fn_ctx c = { pb, { f->kind, str(pb, f->func), file } };
	Function *fn;
	uint64_t h;
	int64_t i;

	/* Field by field: no padding in the hash. */
	h = kp_hash(&c.k.kind, sizeof(c.k.kind), 0);
	h = kp_hash(&c.k.name, sizeof(c.k.name), h);
	h = kp_hash(&c.k.file, sizeof(c.k.file), h);

	i = kp_htab_find(&pb->fn_idx, h, fn_ctx_eq, &c);
	if (i >= 0)
		return pb->fn[i].id;
	if (GROW(pb, pb->fn, pb->capfn, pb->nfn) ||
	    GROW(pb, pb->fnk, pb->capfnk, pb->nfn) ||
	    kp_htab_add(&pb->fn_idx, h, pb->nfn)) {
		pb->oom = 1;
		return 0;
	}
	fn = &pb->fn[pb->nfn];
	perftools__profiles__function__init(fn);
	fn->id = pb->nfn + 1;
	fn->name = c.k.name;
	fn->system_name = c.k.name;
	pb->fnk[pb->nfn] = c.k;
	pb->nfn++;
	return fn->id;
}

struct loc_ctx {
	const struct pb *pb;
	const struct loc_key *k;
};

static bool loc_eq(const void *ctx, uint32_t idx)
{
	const struct loc_ctx *c = ctx;
	const struct loc_key *a = &c->pb->lock[idx], *b = c->k;

	return a->kind == b->kind && a->tgid == b->tgid && a->addr == b->addr &&
	       (a->text == b->text || (a->text && b->text &&
				       !strcmp(a->text, b->text)));
}

static uint64_t location(struct pb *pb, const struct kp_rstack *rs,
			 const struct kp_rframe *f)
{
	struct loc_key k = { f->kind, 0, 0, NULL };
	struct loc_ctx c = { pb, &k };
	uint64_t h, mapping = 0, fid;
	Location *l;
	int64_t i;

	if (f->kind == KP_RF_USER) {
		k.tgid = rs->tgid;
		k.addr = f->addr;
	} else {
		k.text = f->text;
	}
	h = kp_hash(&k.kind, 1, 0);
	h = kp_hash(&k.tgid, sizeof(k.tgid), h);
	h = kp_hash(&k.addr, sizeof(k.addr), h);
	if (k.text)
		h = kp_hash(k.text, strlen(k.text), h);
	i = kp_htab_find(&pb->loc_idx, h, loc_eq, &c);
	if (i >= 0)
		return pb->loc[i].id;

	if (f->kind == KP_RF_USER)
		mapping = user_mapping(pb, f->map);
	else if (f->kind == KP_RF_KERNEL)
		mapping = kernel_mapping(pb);
	fid = function(pb, f, f->kind == KP_RF_USER && f->map >= 0 ?
			       str(pb, pb->rec->maps[f->map].path) : 0);
	if (GROW(pb, pb->loc, pb->caploc, pb->nloc) ||
	    GROW(pb, pb->lock, pb->caplock, pb->nloc) ||
	    GROW(pb, pb->loc_fn, pb->caplocfn, pb->nloc) ||
	    kp_htab_add(&pb->loc_idx, h, pb->nloc)) {
		pb->oom = 1;
		return 0;
	}
	l = &pb->loc[pb->nloc];
	perftools__profiles__location__init(l);
	l->id = pb->nloc + 1;
	l->mapping_id = mapping;
	l->address = k.addr;
	pb->lock[pb->nloc] = k;
	/* Unsymbolized: no line, pprof may symbolize from the mapping. */
	pb->loc_fn[pb->nloc] = f->kind == KP_RF_USER && !f->has_func ? 0 : fid;
	pb->nloc++;
	return l->id;
}

/* --- samples ------------------------------------------------------------ */

static struct samp *sample(struct pb *pb, const struct kp_rstack *rs)
{
	struct samp *s;
	unsigned int i;

	if (GROW(pb, pb->smp, pb->capsmp, pb->nsmp))
		return NULL;
	s = &pb->smp[pb->nsmp];
	memset(s, 0, sizeof(*s));
	s->locs = calloc(rs->nr ? rs->nr : 1, sizeof(*s->locs));
	if (!s->locs) {
		pb->oom = 1;
		return NULL;
	}
	pb->nsmp++;
	for (i = 0; i < rs->nr; i++)
		s->locs[s->nr++] = location(pb, rs, &rs->f[i]);
	for (i = 0; i < NR_LABELS; i++)
		perftools__profiles__label__init(&s->label[i]);
	return s;
}

static void cpu_samples(struct pb *pb, int64_t period)
{
	const struct kp_rec *rec = pb->rec;
	struct samp *s;
	size_t i;

	for (i = 0; i < rec->nr_cpu && !pb->oom; i++) {
		const struct kp_rcpu *c = &rec->cpu[i];

		if (!c->samples)
			continue;
		s = sample(pb, rec->stacks[c->stack]);
		if (!s)
			return;
		s->value[0] = c->samples;
		s->value[1] = c->samples * period;
		s->label[0].key = str(pb, "comm");
		s->label[0].str = str(pb, c->comm[0] ? c->comm : KP_SYM_UNKNOWN);
		s->label[1].key = str(pb, "pid");
		s->label[1].num = c->tgid;
	}
}

static void tcp_samples(struct pb *pb)
{
	const struct kp_rec *rec = pb->rec;
	char ep[KP_ADDR_LEN];
	struct samp *s;
	size_t i;

	for (i = 0; i < rec->nr_tcp && !pb->oom; i++) {
		const struct kprof_tcp_row *r = &rec->tcp[i].row;

		/* requests only: a connect row's count is of connects */
		if (!r->count || r->role == KPROF_ROLE_CONNECT)
			continue;
		s = sample(pb, rec->stacks[rec->tcp[i].stack]);
		if (!s)
			return;
		s->value[0] = r->count;
		s->value[1] = r->sum_ns;
		kp_addr_format(ep, sizeof(ep), r->family, r->raddr, r->rport);
		s->label[0].key = str(pb, "endpoint");
		s->label[0].str = str(pb, ep);
		s->label[1].key = str(pb, "role");
		s->label[1].str = str(pb, kp_role_name(r->role));
	}
}

/* --- the message, packed and compressed -------------------------------- */

static int gzip_write(FILE *f, const uint8_t *buf, size_t len)
{
	unsigned char out[16384];
	z_stream zs;
	int ret, flush;

	memset(&zs, 0, sizeof(zs));
	/* 15 + 16: a gzip header and trailer, as pprof files have */
	if (deflateInit2(&zs, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	zs.next_in = (Bytef *)buf;
	do {
		/* avail_in is 32-bit: feed at most 1 GiB at a time */
		if (!zs.avail_in && len) {
			zs.avail_in = len > (1U << 30) ? 1U << 30 : len;
			len -= zs.avail_in;
		}
		flush = len || zs.avail_in ? Z_NO_FLUSH : Z_FINISH;
		zs.next_out = out;
		zs.avail_out = sizeof(out);
		ret = deflate(&zs, flush);
		if (ret == Z_STREAM_ERROR) {
			deflateEnd(&zs);
			return -EIO;
		}
		if (fwrite(out, 1, sizeof(out) - zs.avail_out, f) !=
		    sizeof(out) - zs.avail_out) {
			deflateEnd(&zs);
			return -EIO;
		}
	} while (ret != Z_STREAM_END);
	deflateEnd(&zs);
	return 0;
}

static void pb_free(struct pb *pb)
{
	size_t i;

	for (i = 0; i < pb->nstr; i++)
		free(pb->str[i]);
	free(pb->str);
	for (i = 0; i < pb->nsmp; i++)
		free(pb->smp[i].locs);
	free(pb->smp);
	free(pb->fn);
	free(pb->fnk);
	free(pb->loc);
	free(pb->lock);
	free(pb->loc_fn);
	free(pb->map);
	free(pb->map_of);
	kp_htab_free(&pb->str_idx);
	kp_htab_free(&pb->fn_idx);
	kp_htab_free(&pb->loc_idx);
}

/*
 * pprof takes the first mapping for the main binary: the kernel's goes
 * last.  Fills @mp in the new order.
 */
static void renumber_mappings(struct pb *pb, Mapping **mp)
{
	uint64_t k = pb->kernel_map;
	size_t i, n = 0;

	for (i = 0; i < pb->nmap; i++)
		if (pb->map[i].id != k)
			mp[n++] = &pb->map[i];
	if (k)
		mp[n++] = &pb->map[k - 1];
	for (i = 0; i < pb->nloc; i++)
		if (k && pb->loc[i].mapping_id == k)
			pb->loc[i].mapping_id = n;
		else if (k && pb->loc[i].mapping_id > k)
			pb->loc[i].mapping_id--;
	for (i = 0; i < n; i++)
		mp[i]->id = i + 1;
}

/* Pointer arrays for the message, then pack, compress and write. */
static int emit(struct pb *pb, Profile *p, FILE *f)
{
	Sample **sp = calloc(pb->nsmp + 1, sizeof(*sp));
	Sample *smsg = calloc(pb->nsmp + 1, sizeof(*smsg));
	Label **labp = calloc(pb->nsmp * NR_LABELS + 1, sizeof(*labp));
	Location **lp = calloc(pb->nloc + 1, sizeof(*lp));
	Line *lines = calloc(pb->nloc + 1, sizeof(*lines));
	Line **linep = calloc(pb->nloc + 1, sizeof(*linep));
	Function **fp = calloc(pb->nfn + 1, sizeof(*fp));
	Mapping **mp = calloc(pb->nmap + 1, sizeof(*mp));
	uint8_t *buf = NULL;
	size_t i, len;
	int ret = -ENOMEM;

	if (!sp || !smsg || !labp || !lp || !lines || !linep || !fp || !mp)
		goto out;
	for (i = 0; i < pb->nsmp; i++) {
		Label **l = &labp[i * NR_LABELS];
		unsigned int j;

		for (j = 0; j < NR_LABELS; j++)
			l[j] = &pb->smp[i].label[j];
		perftools__profiles__sample__init(&smsg[i]);
		smsg[i].n_location_id = pb->smp[i].nr;
		smsg[i].location_id = pb->smp[i].locs;
		smsg[i].n_value = 2;
		smsg[i].value = pb->smp[i].value;
		smsg[i].n_label = NR_LABELS;
		smsg[i].label = l;
		sp[i] = &smsg[i];
	}
	for (i = 0; i < pb->nloc; i++) {
		perftools__profiles__line__init(&lines[i]);
		lines[i].function_id = pb->loc_fn[i];
		linep[i] = &lines[i];
		if (pb->loc_fn[i]) {
			pb->loc[i].n_line = 1;
			pb->loc[i].line = &linep[i];
		}
		lp[i] = &pb->loc[i];
	}
	for (i = 0; i < pb->nfn; i++)
		fp[i] = &pb->fn[i];
	renumber_mappings(pb, mp);
	p->n_sample = pb->nsmp;
	p->sample = sp;
	p->n_location = pb->nloc;
	p->location = lp;
	p->n_function = pb->nfn;
	p->function = fp;
	p->n_mapping = pb->nmap;
	p->mapping = mp;
	p->n_string_table = pb->nstr;
	p->string_table = pb->str;

	len = perftools__profiles__profile__get_packed_size(p);
	buf = malloc(len ? len : 1);
	if (!buf)
		goto out;
	perftools__profiles__profile__pack(p, buf);
	ret = gzip_write(f, buf, len);
out:
	free(buf);
	free(sp);
	free(smsg);
	free(labp);
	free(lp);
	free(lines);
	free(linep);
	free(fp);
	free(mp);
	return ret;
}

int kp_pprof_write(FILE *f, const struct kp_rec *rec, enum kp_pprof_kind kind,
		   const struct kp_pprof_meta *meta)
{
	Profile p = PERFTOOLS__PROFILES__PROFILE__INIT;
	ValueType st[2], pt = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	ValueType *stp[2] = { &st[0], &st[1] };
	int64_t comment, period = 0;
	struct pb pb;
	int ret;

	memset(&pb, 0, sizeof(pb));
	pb.rec = rec;
	pb.map_of = calloc(rec->nr_maps ? rec->nr_maps : 1,
			   sizeof(*pb.map_of));
	if (!pb.map_of)
		return -ENOMEM;
	str(&pb, "");			/* string_table[0] */
	perftools__profiles__value_type__init(&st[0]);
	perftools__profiles__value_type__init(&st[1]);
	if (kind == KP_PPROF_CPU) {
		if (meta->sample_hz)
			period = KP_NSEC_PER_SEC / meta->sample_hz;
		st[0].type = str(&pb, "samples");
		st[0].unit = str(&pb, "count");
		st[1].type = str(&pb, "cpu");
		st[1].unit = str(&pb, "nanoseconds");
		pt.type = st[1].type;
		pt.unit = st[1].unit;
		p.period = period;
		cpu_samples(&pb, period);
	} else {
		st[0].type = str(&pb, "requests");
		st[0].unit = str(&pb, "count");
		st[1].type = str(&pb, "latency");
		st[1].unit = str(&pb, "nanoseconds");
		pt.type = st[0].type;
		pt.unit = st[0].unit;
		p.period = 1;
		tcp_samples(&pb);
	}
	p.n_sample_type = 2;
	p.sample_type = stp;
	p.period_type = &pt;
	p.default_sample_type = st[1].type;
	p.time_nanos = meta->time_nanos;
	p.duration_nanos = rec->end_ns > rec->start_ns ?
			   rec->end_ns - rec->start_ns : 0;
	if (meta->comment) {
		comment = str(&pb, meta->comment);
		p.n_comment = 1;
		p.comment = &comment;
	}
	ret = pb.oom ? -ENOMEM : emit(&pb, &p, f);
	pb_free(&pb);
	return ret;
}
