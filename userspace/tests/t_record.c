// SPDX-License-Identifier: GPL-2.0
/*
 * Tests: a recording (intervals added up, stacks resolved), its folded
 * and pprof output, the maps parser and the hash index.
 */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <zlib.h>

#include "folded.h"
#include "htab.h"
#include "maps.h"
#include "pprof.h"
#include "profile.pb-c.h"
#include "rec.h"
#include "unit.h"

/* In t_symbolize.c: functions of this binary with known names. */
int kp_test_target_fn(int x);
int kp_test_caller_fn(int x);

static uint64_t addr_of(const void *fn)
{
	return (uint64_t)(uintptr_t)fn;
}

/* --- a hand-made interval ------------------------------------------- */

static const char t_ksyms[] =
	"do_work+0x10/0x80 [kmod]\0__x64_sys_ioctl+0x5/0x20\0"
	"schedule+0x3/0x60\0";

#define T_STACKS	3

/*
 * Stack 5: user only, kp_test_target_fn <- kp_test_caller_fn.
 * Stack 6: 2 kernel frames, then the same user frames.
 * Stack 8: kernel only (a kernel thread).
 * CPU rows: (5, self, "app;x y") 30, (6, self) 10, (8, 0) 5, (0, self) 1,
 * (5, 77, "app;x y") 4 (another process of the same name), (5, 99,
 * "other") 7.  (Frames are symbolized in the stack's process, here ours.)
 * TCP rows: stack 6 to 10.0.4.12:443 client, stack 0 to [::1]:80 server.
 */
static void make_snap(struct kp_snapshot *snap, uint32_t resets)
{
	static struct kprof_stack stacks[T_STACKS];
	static struct kprof_cpu_row cpu[6];
	static struct kprof_tcp_row tcp[2];
	static char strings[sizeof(t_ksyms)];
	pid_t self = getpid();
	unsigned int i;

	memset(snap, 0, sizeof(*snap));
	memset(stacks, 0, sizeof(stacks));
	memset(cpu, 0, sizeof(cpu));
	memset(tcp, 0, sizeof(tcp));
	memcpy(strings, t_ksyms, sizeof(t_ksyms));
	for (i = 0; i < 2; i++) {
		stacks[i].id = 5 + i;
		stacks[i].tgid = self;
		stacks[i].nr_user = 2;
		stacks[i].user_ips[0] = addr_of(kp_test_target_fn) + 1;
		stacks[i].user_ips[1] = addr_of(kp_test_caller_fn) + 2;
		memcpy(stacks[i].comm, "unit", 4);
	}
	stacks[1].nr_kernel = 2;
	stacks[1].ksyms_off = 0;
	stacks[2].id = 8;
	stacks[2].nr_kernel = 1;
	stacks[2].ksyms_off = sizeof("do_work+0x10/0x80 [kmod]") +
			      sizeof("__x64_sys_ioctl+0x5/0x20");
	memcpy(stacks[2].comm, "kworker/0:0", 11);

	cpu[0] = (struct kprof_cpu_row){ 5, self, 30, "app;x y", 0, 0, { 0 } };
	cpu[1] = (struct kprof_cpu_row){ 6, self, 10, "app;x y", 0, 0, { 0 } };
	cpu[2] = (struct kprof_cpu_row){ 8, 0, 5, "kworker/0:0", 0, 0, { 0 } };
	cpu[3] = (struct kprof_cpu_row){ 0, self, 1, "app;x y", 0, 0, { 0 } };
	cpu[4] = (struct kprof_cpu_row){ 5, 77, 4, "app;x y", 0, 0, { 0 } };
	cpu[5] = (struct kprof_cpu_row){ 5, 99, 7, "other", 0, 0, { 0 } };

	tcp[0].stack_id = 6;
	tcp[0].family = AF_INET;
	tcp[0].rport = 443;
	memcpy(tcp[0].raddr, "\x0a\x00\x04\x0c", 4);
	tcp[0].role = KPROF_ROLE_CLIENT;
	tcp[0].count = 3;
	tcp[0].sum_ns = 3000;
	tcp[0].min_ns = 500;
	tcp[0].max_ns = 1500;
	tcp[0].hist[100] = 3;
	tcp[1].family = AF_INET6;
	tcp[1].rport = 80;
	tcp[1].raddr[15] = 1;
	tcp[1].role = KPROF_ROLE_SERVER;
	tcp[1].count = 1;
	tcp[1].sum_ns = 7;
	tcp[1].min_ns = tcp[1].max_ns = 7;
	tcp[1].hist[7] = 1;

	snap->start_ns = 1000;
	snap->end_ns = 2000;
	snap->samples = 100;
	snap->samples_idle = 43;
	snap->drops_samples = 2;
	snap->sample_hz = 100;
	snap->stack_resets = resets;
	snap->requests = 4;
	snap->nr_rows = 2;
	snap->rows = tcp;
	snap->nr_cpu_rows = 6;
	snap->cpu_rows = cpu;
	snap->nr_stacks = T_STACKS;
	snap->stacks = stacks;
	snap->strings = strings;
	snap->strings_len = sizeof(t_ksyms) - 1;
}

struct fixture {
	struct kp_sym *sym;
	struct kp_stacks cache;
	struct kp_rec rec;
};

static int fixture_init(struct fixture *fx, uint32_t tgid)
{
	fx->sym = kp_sym_new();
	if (!EXPECT(fx->sym, "kp_sym_new"))
		return -1;
	kp_stacks_init(&fx->cache, -1, fx->sym);
	if (!EXPECT(!kp_rec_init(&fx->rec, &fx->cache, fx->sym, tgid),
		    "kp_rec_init")) {
		kp_sym_free(fx->sym);
		return -1;
	}
	return 0;
}

static void fixture_fini(struct fixture *fx)
{
	kp_rec_fini(&fx->rec);
	kp_stacks_fini(&fx->cache);
	kp_sym_free(fx->sym);
}

/* The folded output of @rec in a new string. */
static char *folded(const struct kp_rec *rec)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int ret;

	if (!f)
		return NULL;
	ret = kp_folded_write(f, rec);
	fclose(f);
	EXPECT(!ret, "kp_folded_write: %d", ret);
	return buf;
}

/* --- folded ------------------------------------------------------------ */

static void test_folded_name(void)
{
	char buf[32];

	EXPECT(!strcmp(kp_folded_name(buf, sizeof(buf), "a;b c\td\ne\r"),
		       "a:b_c_d_e_"), "%s", buf);
	EXPECT(!strcmp(kp_folded_name(buf, sizeof(buf), ""), "[unknown]"),
	       "%s", buf);
	EXPECT(!strcmp(kp_folded_name(buf, sizeof(buf), NULL), "[unknown]"),
	       "%s", buf);
	EXPECT(!strcmp(kp_folded_name(buf, sizeof(buf), "x\001\177y"), "x??y"),
	       "%s", buf);
	EXPECT(!strcmp(kp_folded_name(buf, sizeof(buf),
				      "operator new(unsigned long)"),
		       "operator_new(unsigned_long)"), "%s", buf);
	EXPECT(!strcmp(kp_folded_name(buf, 4, "abcdef"), "abc"), "%s", buf);
	EXPECT(!strcmp(kp_folded_name(buf, sizeof(buf), "caf\xc3\xa9"),
		       "caf\xc3\xa9"), "UTF-8 kept: %s", buf);
}

/* The strict check the command-line tests also apply. */
static int folded_line_ok(const char *line)
{
	static const char re[] = "^[^; \t]+(;[^; \t]+)* [1-9][0-9]*$";
	regex_t rx;
	int ok;

	if (regcomp(&rx, re, REG_EXTENDED | REG_NOSUB))
		return 0;
	ok = !regexec(&rx, line, 0, NULL, 0);
	regfree(&rx);
	return ok;
}

static void test_folded(void)
{
	static const char *const want[] = {
		"app:x_y;[stack_table_full] 2",
		"app:x_y;kp_test_caller_fn;kp_test_target_fn 68",
		"app:x_y;kp_test_caller_fn;kp_test_target_fn;__x64_sys_ioctl_[k];do_work_[k] 20",
		"kworker/0:0;schedule_[k] 10",
		"other;kp_test_caller_fn;kp_test_target_fn 14",
	};
	struct kp_snapshot snap;
	struct fixture fx;
	char *out, *line, *save = NULL;
	unsigned int n = 0;
	uint64_t total = 0;

	if (fixture_init(&fx, 0))
		return;
	make_snap(&snap, 0);
	EXPECT(!kp_rec_add(&fx.rec, &snap, 1, 1), "add 1");
	EXPECT(!kp_rec_add(&fx.rec, &snap, 1, 1), "add 2");
	EXPECT(fx.rec.intervals == 2 && fx.rec.samples == 200 &&
	       fx.rec.samples_idle == 86 && kp_rec_busy(&fx.rec) == 114 &&
	       fx.rec.drops_samples == 4 && fx.rec.sample_hz == 100,
	       "counters");
	EXPECT(kp_rec_cpu_samples(&fx.rec) == 114, "%llu",
	       (unsigned long long)kp_rec_cpu_samples(&fx.rec));
	/* (5, self), (6, self), (8, 0), (0, self), (5, 77), (5, 99) */
	EXPECT(fx.rec.nr_cpu == 6, "nr_cpu %zu", fx.rec.nr_cpu);
	out = folded(&fx.rec);
	if (!EXPECT(out, "no output"))
		goto done;
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save), n++) {
		EXPECT(folded_line_ok(line), "bad line '%s'", line);
		EXPECT(n < 5 && !strcmp(line, want[n]), "line %u: '%s'", n,
		       line);
		total += strtoull(strrchr(line, ' ') + 1, NULL, 10);
	}
	EXPECT(n == 5, "%u lines", n);
	EXPECT(total == kp_rec_cpu_samples(&fx.rec), "total %llu",
	       (unsigned long long)total);
	free(out);
done:
	fixture_fini(&fx);
}

/* -p 77 keeps only that process's rows. */
static void test_pid_filter(void)
{
	struct kp_snapshot snap;
	struct fixture fx;
	char *out;

	if (fixture_init(&fx, 77))
		return;
	make_snap(&snap, 0);
	EXPECT(!kp_rec_add(&fx.rec, &snap, 1, 0), "add");
	EXPECT(fx.rec.nr_cpu == 1 && fx.rec.cpu[0].samples == 4 &&
	       fx.rec.nr_tcp == 0, "only pid 77, no TCP");
	out = folded(&fx.rec);
	EXPECT(out && !strcmp(out, "app:x_y;kp_test_caller_fn;kp_test_target_fn 4\n"),
	       "'%s'", out ? out : "(null)");
	free(out);
	fixture_fini(&fx);
}

static void test_tcp_merge(void)
{
	struct kp_snapshot snap;
	struct kp_rtcp **v;
	struct fixture fx;

	if (fixture_init(&fx, 0))
		return;
	make_snap(&snap, 0);
	kp_rec_add(&fx.rec, &snap, 0, 1);
	snap.rows[0].min_ns = 100;
	snap.rows[0].max_ns = 900;
	kp_rec_add(&fx.rec, &snap, 0, 1);
	EXPECT(fx.rec.nr_tcp == 2 && fx.rec.requests == 8 && !fx.rec.nr_cpu,
	       "rows %zu", fx.rec.nr_tcp);
	v = kp_rec_tcp_sorted(&fx.rec);
	if (v && fx.rec.nr_tcp == 2) {
		EXPECT(v[0]->row.count == 6 && v[0]->row.sum_ns == 6000 &&
		       v[0]->row.min_ns == 100 && v[0]->row.max_ns == 1500 &&
		       v[0]->row.hist[100] == 6, "merged row");
		EXPECT(fx.rec.stacks[v[0]->stack]->id == 6, "stack 6");
		EXPECT(fx.rec.stacks[v[1]->stack]->id == 0 &&
		       !strcmp(fx.rec.stacks[v[1]->stack]->f[0].func,
			       KP_RF_BELOW_THRESHOLD), "below threshold");
	}
	free(v);
	fixture_fini(&fx);
}

/* After KPROF_RESET_STACKS an ID may name another stack. */
static void test_stack_resets(void)
{
	struct kp_snapshot snap;
	struct fixture fx;
	char *out;

	if (fixture_init(&fx, 99))
		return;
	make_snap(&snap, 0);
	kp_rec_add(&fx.rec, &snap, 1, 0);
	make_snap(&snap, 1);
	snap.stacks[0].nr_kernel = 1;	/* stack 5 is now another one */
	snap.stacks[0].ksyms_off = 0;
	kp_rec_add(&fx.rec, &snap, 1, 0);
	out = folded(&fx.rec);
	EXPECT(out && !strcmp(out, "other;kp_test_caller_fn;kp_test_target_fn 7\n"
			      "other;kp_test_caller_fn;kp_test_target_fn;do_work_[k] 7\n"),
	       "'%s'", out ? out : "(null)");
	free(out);
	fixture_fini(&fx);
}

/* --- pprof ---------------------------------------------------------------- */

typedef Perftools__Profiles__Profile Profile;

/* Write @kind, gunzip, unpack. */
static Profile *pprof_roundtrip(const struct kp_rec *rec,
				enum kp_pprof_kind kind)
{
	struct kp_pprof_meta meta = { 1700000000000000000LL, 100, "a note" };
	unsigned char out[1 << 16];
	char *buf = NULL;
	size_t len = 0;
	z_stream zs;
	Profile *p = NULL;
	FILE *f;
	int ret;

	f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	ret = kp_pprof_write(f, rec, kind, &meta);
	fclose(f);
	EXPECT(!ret, "kp_pprof_write: %d", ret);
	EXPECT(len > 18 && (unsigned char)buf[0] == 0x1f &&
	       (unsigned char)buf[1] == 0x8b, "gzip magic");
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 15 + 16) != Z_OK)
		goto out;
	zs.next_in = (unsigned char *)buf;
	zs.avail_in = len;
	zs.next_out = out;
	zs.avail_out = sizeof(out);
	ret = inflate(&zs, Z_FINISH);
	EXPECT(ret == Z_STREAM_END, "inflate: %d", ret);
	if (ret == Z_STREAM_END)
		p = perftools__profiles__profile__unpack(NULL, zs.total_out,
							 out);
	inflateEnd(&zs);
	EXPECT(p, "unpack");
out:
	free(buf);
	return p;
}

static const char *pstr(const Profile *p, int64_t i)
{
	return i >= 0 && (size_t)i < p->n_string_table ? p->string_table[i] :
							 "(bad index)";
}

static const Perftools__Profiles__Location *loc(const Profile *p, uint64_t id)
{
	return id && id <= p->n_location && p->location[id - 1]->id == id ?
	       p->location[id - 1] : NULL;
}

static const char *loc_func(const Profile *p, uint64_t id)
{
	const Perftools__Profiles__Location *l = loc(p, id);
	uint64_t f;

	if (!l || l->n_line != 1)
		return NULL;
	f = l->line[0]->function_id;
	if (!f || f > p->n_function || p->function[f - 1]->id != f)
		return NULL;
	return pstr(p, p->function[f - 1]->name);
}

/* IDs 1..n in order, references valid, string_table[0] "". */
static void check_profile(const Profile *p)
{
	size_t i, j;

	EXPECT(p->n_string_table && !strcmp(p->string_table[0], ""),
	       "string_table[0]");
	for (i = 0; i < p->n_mapping; i++)
		EXPECT(p->mapping[i]->id == i + 1, "mapping %zu id", i);
	for (i = 0; i < p->n_function; i++)
		EXPECT(p->function[i]->id == i + 1, "function %zu id", i);
	for (i = 0; i < p->n_location; i++) {
		EXPECT(p->location[i]->id == i + 1, "location %zu id", i);
		EXPECT(p->location[i]->mapping_id <= p->n_mapping,
		       "location %zu mapping", i);
	}
	for (i = 0; i < p->n_sample; i++) {
		EXPECT(p->sample[i]->n_value == p->n_sample_type,
		       "sample %zu values", i);
		for (j = 0; j < p->sample[i]->n_location_id; j++)
			EXPECT(loc(p, p->sample[i]->location_id[j]),
			       "sample %zu location %zu", i, j);
	}
}

static void test_pprof_cpu(void)
{
	const Perftools__Profiles__Mapping *km;
	struct kp_snapshot snap;
	struct fixture fx;
	uint64_t total = 0, hot = 0, pid = 0;
	Profile *p;
	size_t i, j;
	int self_map = 0;

	if (fixture_init(&fx, 0))
		return;
	make_snap(&snap, 0);
	kp_rec_add(&fx.rec, &snap, 1, 1);
	p = pprof_roundtrip(&fx.rec, KP_PPROF_CPU);
	if (!p)
		goto done;
	check_profile(p);
	EXPECT(p->n_sample_type == 2 &&
	       !strcmp(pstr(p, p->sample_type[0]->type), "samples") &&
	       !strcmp(pstr(p, p->sample_type[0]->unit), "count") &&
	       !strcmp(pstr(p, p->sample_type[1]->type), "cpu") &&
	       !strcmp(pstr(p, p->sample_type[1]->unit), "nanoseconds"),
	       "sample types");
	EXPECT(p->period_type && !strcmp(pstr(p, p->period_type->type), "cpu") &&
	       p->period == 10000000, "period %lld", (long long)p->period);
	EXPECT(p->time_nanos == 1700000000000000000LL &&
	       p->duration_nanos == 1000, "times");
	EXPECT(p->n_comment == 1 && !strcmp(pstr(p, p->comment[0]), "a note"),
	       "comment");
	EXPECT(p->n_sample == 6, "%zu samples", p->n_sample);
	for (i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];

		total += s->value[0];
		EXPECT(s->value[1] == s->value[0] * 10000000, "cpu ns");
		EXPECT(s->n_label == 2 &&
		       !strcmp(pstr(p, s->label[0]->key), "comm") &&
		       !strcmp(pstr(p, s->label[1]->key), "pid"), "labels");
		if (s->n_location_id && loc_func(p, s->location_id[0]) &&
		    !strcmp(loc_func(p, s->location_id[0]), "kp_test_target_fn")) {
			hot += s->value[0];
			if (s->label[1]->num == getpid())
				pid = s->label[1]->num;
		}
	}
	EXPECT(total == kp_rec_cpu_samples(&fx.rec), "total %llu",
	       (unsigned long long)total);
	EXPECT(hot == 41 && pid == (uint64_t)getpid(), "hot %llu",
	       (unsigned long long)hot);
	/* The kernel's mapping is last; ours has a build ID and functions. */
	km = p->n_mapping ? p->mapping[p->n_mapping - 1] : NULL;
	EXPECT(km && !strcmp(pstr(p, km->filename), "[kernel.kallsyms]") &&
	       km->has_functions, "kernel mapping");
	for (i = 0; i + 1 < p->n_mapping; i++) {
		const Perftools__Profiles__Mapping *m = p->mapping[i];

		if (m->memory_start <= addr_of(kp_test_target_fn) &&
		    addr_of(kp_test_target_fn) < m->memory_limit) {
			self_map = 1;
			EXPECT(m->has_functions && m->build_id &&
			       strlen(pstr(p, m->build_id)) == 40,
			       "build ID '%s'", pstr(p, m->build_id));
			EXPECT(strstr(pstr(p, m->filename), "unit"),
			       "file %s", pstr(p, m->filename));
		}
	}
	EXPECT(self_map, "no mapping for this binary");
	/* Kernel locations: address 0 in the kernel mapping. */
	for (i = 0, j = 0; i < p->n_location; i++)
		if (p->location[i]->mapping_id == km->id) {
			EXPECT(!p->location[i]->address, "kernel address");
			j++;
		}
	EXPECT(j == 3, "%zu kernel locations", j);
	perftools__profiles__profile__free_unpacked(p, NULL);
done:
	fixture_fini(&fx);
}

static void test_pprof_latency(void)
{
	struct kp_snapshot snap;
	struct fixture fx;
	Profile *p;
	size_t i;
	int seen = 0;

	if (fixture_init(&fx, 0))
		return;
	make_snap(&snap, 0);
	kp_rec_add(&fx.rec, &snap, 1, 1);
	p = pprof_roundtrip(&fx.rec, KP_PPROF_LATENCY);
	if (!p)
		goto done;
	check_profile(p);
	EXPECT(p->n_sample_type == 2 &&
	       !strcmp(pstr(p, p->sample_type[0]->type), "requests") &&
	       !strcmp(pstr(p, p->sample_type[0]->unit), "count") &&
	       !strcmp(pstr(p, p->sample_type[1]->type), "latency") &&
	       !strcmp(pstr(p, p->sample_type[1]->unit), "nanoseconds"),
	       "sample types");
	EXPECT(p->n_sample == 2, "%zu samples", p->n_sample);
	for (i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];
		const char *ep = pstr(p, s->label[0]->str);
		const char *role = pstr(p, s->label[1]->str);

		EXPECT(s->n_label == 2 &&
		       !strcmp(pstr(p, s->label[0]->key), "endpoint") &&
		       !strcmp(pstr(p, s->label[1]->key), "role"), "labels");
		if (!strcmp(ep, "10.0.4.12:443")) {
			seen |= 1;
			EXPECT(!strcmp(role, "client") && s->value[0] == 3 &&
			       s->value[1] == 3000 && s->n_location_id == 4 &&
			       !strcmp(loc_func(p, s->location_id[0]),
				       "do_work"), "row to 10.0.4.12:443");
		} else if (!strcmp(ep, "[::1]:80")) {
			seen |= 2;
			EXPECT(!strcmp(role, "server") && s->value[0] == 1 &&
			       s->n_location_id == 1 &&
			       !strcmp(loc_func(p, s->location_id[0]),
				       KP_RF_BELOW_THRESHOLD), "row to [::1]:80");
		}
	}
	EXPECT(seen == 3, "endpoints seen %d", seen);
	perftools__profiles__profile__free_unpacked(p, NULL);
done:
	fixture_fini(&fx);
}

/*
 * More samples than the first allocation holds (the sample array grows
 * while labels are added): every sample keeps its own labels.
 */
static void test_pprof_many_samples(void)
{
	static struct kprof_cpu_row cpu[300];
	struct kp_snapshot snap;
	struct fixture fx;
	Profile *p;
	size_t i, bad = 0;

	if (fixture_init(&fx, 0))
		return;
	make_snap(&snap, 0);
	for (i = 0; i < 300; i++)
		cpu[i] = (struct kprof_cpu_row){ 5, 1000 + i, 1, "many", 0, 0, { 0 } };
	snap.cpu_rows = cpu;
	snap.nr_cpu_rows = 300;
	kp_rec_add(&fx.rec, &snap, 1, 1);
	p = pprof_roundtrip(&fx.rec, KP_PPROF_CPU);
	if (!p)
		goto done;
	check_profile(p);
	EXPECT(p->n_sample == 300, "%zu samples", p->n_sample);
	for (i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];

		if (s->n_label != 2 || strcmp(pstr(p, s->label[0]->key), "comm") ||
		    strcmp(pstr(p, s->label[0]->str), "many") ||
		    strcmp(pstr(p, s->label[1]->key), "pid") ||
		    s->label[1]->num < 1000 || s->label[1]->num >= 1300)
			bad++;
	}
	EXPECT(!bad, "%zu samples with wrong labels", bad);
	perftools__profiles__profile__free_unpacked(p, NULL);
done:
	fixture_fini(&fx);
}

/* An empty recording still makes a valid profile. */
static void test_pprof_empty(void)
{
	struct fixture fx;
	Profile *p;

	if (fixture_init(&fx, 0))
		return;
	p = pprof_roundtrip(&fx.rec, KP_PPROF_CPU);
	if (p) {
		check_profile(p);
		EXPECT(!p->n_sample && p->n_sample_type == 2, "empty");
		perftools__profiles__profile__free_unpacked(p, NULL);
	}
	fixture_fini(&fx);
}

/* --- maps and the hash index --------------------------------------------- */

static void test_maps_parse(void)
{
	static char text[] =
		"55d4c0a00000-55d4c0a02000 r--p 00000000 08:01 1234   /usr/bin/app\n"
		"55d4c0a02000-55d4c0a08000 r-xp 00002000 08:01 1234   /usr/bin/app\n"
		"7f0000001000-7f0000003000 r-xp 00001000 08:01 99     /opt/my lib/libx.so (deleted)\n"
		"7f0000100000-7f0000200000 rwxp 00000000 00:00 0 \n"
		"garbage line\n"
		"7ffd1000-7ffd0000 r-xp 00000000 00:00 0 [bad]\n"
		"7fff00001000-7fff00002000 r-xp 00000000 00:00 0      [vdso]\n";
	const struct kp_maps_entry *e;
	struct kp_maps m;
	FILE *f = fmemopen(text, strlen(text), "r");

	if (!EXPECT(f, "fmemopen"))
		return;
	EXPECT(!kp_maps_parse(f, &m), "parse");
	fclose(f);
	EXPECT(m.n == 4, "%zu executable mappings", m.n);
	e = kp_maps_find(&m, 0x55d4c0a02010);
	EXPECT(e && e->offset == 0x2000 && !strcmp(e->path, "/usr/bin/app"),
	       "app text");
	EXPECT(!kp_maps_find(&m, 0x55d4c0a00010), "not executable");
	EXPECT(!kp_maps_find(&m, 0x55d4c0a08000), "end is exclusive");
	e = kp_maps_find(&m, 0x7f0000001000);
	EXPECT(e && !strcmp(e->path, "/opt/my lib/libx.so (deleted)"),
	       "path with spaces: '%s'", e ? e->path : "");
	e = kp_maps_find(&m, 0x7f0000100000);
	EXPECT(e && !strcmp(e->path, ""), "anonymous");
	e = kp_maps_find(&m, 0x7fff00001fff);
	EXPECT(e && !strcmp(e->path, "[vdso]"), "vdso");
	kp_maps_free(&m);

	EXPECT(kp_maps_read(getpid(), &m) == 0 && m.n > 0, "own maps");
	e = kp_maps_find(&m, addr_of(kp_test_target_fn));
	EXPECT(e && strstr(e->path, "unit"), "own text: %s", e ? e->path : "");
	kp_maps_free(&m);
}

/*
 * A maps file another process shapes is read up to KP_MAPS_MAX_BYTES:
 * 65530 executable mappings with 4 KiB names would otherwise cost the
 * reader 256 MiB for one process.
 */
static void test_maps_bounded(void)
{
	char name[4000], *text = NULL;
	size_t len = 0, bytes = 0;
	struct kp_maps m;
	unsigned int i;
	FILE *f = open_memstream(&text, &len);

	if (!EXPECT(f, "open_memstream"))
		return;
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	for (i = 0; i < 4096; i++)
		fprintf(f, "%llx-%llx r-xp 00000000 08:01 %u /%s\n",
			0x100000000ULL + i * 0x2000ULL,
			0x100001000ULL + i * 0x2000ULL, i + 1, name);
	fclose(f);
	f = fmemopen(text, len, "r");
	EXPECT(f && !kp_maps_parse(f, &m), "parse");
	if (f)
		fclose(f);
	for (i = 0; i < m.n; i++)
		bytes += strlen(m.v[i].path);
	EXPECT(m.n > 0 && bytes <= KP_MAPS_MAX_BYTES,
	       "%zu mappings, %zu bytes kept of %zu", m.n, bytes, len);
	kp_maps_free(&m);
	free(text);
}

/*
 * A recording keeps the maps of at most KP_REC_PROCS processes, however
 * many come and go in it.
 */
static void test_rec_procs_bounded(void)
{
	static struct kprof_stack stacks[200];
	static struct kprof_cpu_row cpu[200];
	struct kp_snapshot snap;
	struct fixture fx;
	unsigned int i;

	if (fixture_init(&fx, 0))
		return;
	memset(&snap, 0, sizeof(snap));
	for (i = 0; i < 200; i++) {
		memset(&stacks[i], 0, sizeof(stacks[i]));
		stacks[i].id = i + 1;
		/* processes that are gone: their maps are empty */
		stacks[i].tgid = 4000000 + i;
		stacks[i].nr_user = 1;
		stacks[i].user_ips[0] = 0x400000 + i;
		memcpy(stacks[i].comm, "gone", 4);
		cpu[i] = (struct kprof_cpu_row){ i + 1, 4000000 + i, 1, "gone", 0, 0, { 0 } };
	}
	snap.start_ns = 1;
	snap.end_ns = 2;
	snap.samples = 200;
	snap.sample_hz = 100;
	snap.nr_cpu_rows = 200;
	snap.cpu_rows = cpu;
	snap.nr_stacks = 200;
	snap.stacks = stacks;
	EXPECT(!kp_rec_add(&fx.rec, &snap, 1, 0), "add");
	EXPECT(fx.rec.nr_stacks > 0, "no stacks recorded");
	EXPECT(fx.rec.nr_procs <= KP_REC_PROCS, "%zu processes kept",
	       fx.rec.nr_procs);
	fixture_fini(&fx);
}

struct ht_ctx {
	const uint64_t *keys;
	uint64_t key;
};

static bool ht_eq(const void *ctx, uint32_t idx)
{
	const struct ht_ctx *c = ctx;

	return c->keys[idx] == c->key;
}

static void test_htab(void)
{
	static uint64_t keys[5000];
	struct kp_htab h = { 0 };
	struct ht_ctx c = { keys, 0 };
	unsigned int i, bad = 0;

	for (i = 0; i < 5000; i++) {
		keys[i] = kp_test_rand();
		/* a few hash collisions on purpose: hash only the low byte */
		if (kp_htab_add(&h, keys[i] & 0xff, i))
			bad++;
	}
	for (i = 0; i < 5000; i++) {
		c.key = keys[i];
		if (kp_htab_find(&h, keys[i] & 0xff, ht_eq, &c) != i)
			bad++;
	}
	c.key = 42;
	EXPECT(kp_htab_find(&h, 42, ht_eq, &c) == -1, "absent");
	EXPECT(!bad, "%u lookups wrong", bad);
	EXPECT(h.n == 5000 && h.cap >= 10000, "size");
	kp_htab_free(&h);
	EXPECT(kp_hash("a", 1, 0) != kp_hash("b", 1, 0), "hash");
}

const struct kp_test t_record[] = {
	{ "folded: names made safe for a line", test_folded_name },
	{ "folded: intervals added up, lines sorted, merged and strict", test_folded },
	{ "record: -p keeps one process's CPU rows", test_pid_filter },
	{ "record: TCP rows merged, histograms added", test_tcp_merge },
	{ "record: a stack ID after KPROF_RESET_STACKS is another stack", test_stack_resets },
	{ "pprof: CPU profile round trip", test_pprof_cpu },
	{ "pprof: latency profile round trip", test_pprof_latency },
	{ "pprof: an empty recording", test_pprof_empty },
	{ "pprof: 300 samples keep their labels", test_pprof_many_samples },
	{ "maps: /proc/PID/maps parsed, executable mappings found", test_maps_parse },
	{ "maps: at most KP_MAPS_MAX_BYTES of a process's maps are kept", test_maps_bounded },
	{ "record: the maps of at most KP_REC_PROCS processes are kept", test_rec_procs_bounded },
	{ "htab: inserts and lookups with colliding hashes", test_htab },
	{ NULL, NULL },
};
