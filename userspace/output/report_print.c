// SPDX-License-Identifier: GPL-2.0
/*
 * kprof reader: the text and JSON forms of `kprof report`, see
 * report_print.h.  The JSON fields are documented in docs/report-json.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <json-c/json.h>

#include "addr.h"
#include "cost.h"
#include "names.h"
#include "report_json.h"
#include "report_print.h"
#include "units.h"
#include "util.h"

#define REPORT_SCHEMA	1
#define TEXT_FRAMES	3

int kp_report_analyze(struct kp_report *r)
{
	r->basis = kp_cpu_basis(r->rec);
	r->cpu = kp_rec_cpu_sorted(r->rec);
	if (!r->cpu || kp_hot_funcs(r->rec, &r->funcs, &r->nr_funcs) ||
	    kp_endpoints(r->rec, &r->eps, &r->nr_eps))
		return -ENOMEM;
	return 0;
}

void kp_report_free(struct kp_report *r)
{
	kp_endpoints_free(r->eps, r->nr_eps);
	free(r->funcs);
	free(r->cpu);
	r->eps = NULL;
	r->funcs = NULL;
	r->cpu = NULL;
}

static uint64_t window_ns(const struct kp_rec *rec)
{
	return rec->end_ns > rec->start_ns ? rec->end_ns - rec->start_ns : 0;
}

static size_t shown(size_t n, uint64_t top)
{
	return n < top ? n : top;
}

/* @e's remote endpoint as ss(8) prints it, into @buf (KP_ADDR_LEN). */
static const char *ep_name(char *buf, size_t len, const struct kp_endpoint *e)
{
	kp_addr_format(buf, len, e->sum.family, e->sum.raddr, e->sum.rport);
	return buf;
}

/* How many endpoints a text section shows; says so when there are none. */
static size_t text_eps_shown(const struct kp_report *r)
{
	if (!r->nr_eps)
		printf("  (no requests)\n");
	return shown(r->nr_eps, r->top);
}

static const char *kind_name(unsigned int kind)
{
	switch (kind) {
	case KP_RF_KERNEL:
		return "kernel";
	case KP_RF_USER:
		return "user";
	}
	return "pseudo";
}

/* --- text -------------------------------------------------------------- */

/* "1.43x", "∞" (printed 2 bytes wider than it shows: see pad). */
static const char *fmt_ceiling(char *buf, size_t len, double c, int *pad)
{
	*pad = isinf(c) ? 2 : 0;
	if (isinf(c))
		snprintf(buf, len, "\u221e");
	else
		snprintf(buf, len, "%.2fx", c);
	return buf;
}

/* "spin_hot_a <- spin_75_25 <- main": from the first user frame if
 * @user_first and there is one, else from the leaf. */
static const char *fmt_funcs(char *buf, size_t len,
			     const struct kp_rstack *rs, int user_first)
{
	unsigned int i = 0, n = 0;
	size_t used = 0;

	if (user_first) {
		while (i < rs->nr && rs->f[i].kind != KP_RF_USER)
			i++;
		if (i == rs->nr)
			i = 0;
	}
	buf[0] = '\0';
	for (; i < rs->nr && n < TEXT_FRAMES && used < len; i++, n++)
		used += snprintf(buf + used, len - used, "%s%s",
				 n ? " <- " : "", rs->f[i].func);
	if (!rs->nr)
		snprintf(buf, len, "(no frames)");
	return buf;
}

/* "comm[tgid]"; "-" for a stack that could not be read. */
static void proc_name(char *buf, size_t len, const char *comm, uint32_t tgid)
{
	if (!comm[0] && !tgid)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%s[%u]", comm, tgid);
}

static void text_header(const struct kp_report *r)
{
	char d[KP_DURATION_LEN];

	printf("kprof report: %s window, %" PRIu64 " interval%s%s; kprofmod %.*s (API %u.%u), %u CPUs online\n",
	       kp_fmt_duration(d, sizeof(d), window_ns(r->rec)),
	       r->rec->intervals, r->rec->intervals == 1 ? "" : "s",
	       r->stopped ? ", stopped early" : "", KPROF_VERSION_LEN,
	       r->info.version, r->info.api_major, r->info.api_minor,
	       r->info.nr_online_cpus);
}

/* A section title: after an empty line, bold on a colour terminal. */
static void title(const struct kp_report *r)
{
	printf("\n%s", r->color ? KP_C_BOLD : "");
}

static void title_end(const struct kp_report *r)
{
	printf("%s\n", r->color ? KP_C_OFF : "");
}

static void text_funcs(const struct kp_report *r)
{
	char c1[16], c2[16];
	size_t i;
	int p1, p2;

	title(r);
	printf("Hot functions: share of %" PRIu64 " %s CPU samples (%" PRIu64
	       " total, %" PRIu64 " idle, %u Hz)\n", r->basis,
	       r->rec->tgid ? "process" : "busy", r->rec->samples,
	       r->rec->samples_idle, r->rec->sample_hz);
	title_end(r);
	printf("  SELF: the function is the leaf frame; TOTAL: it is anywhere in the stack.\n"
	       "  CEILING: Amdahl's limit on the whole speed-up if that code took no time,\n"
	       "  1/(1 - share).\n");
	printf("  %6s  %7s  %6s  %7s  %8s  %-6s  %s\n", "SELF%", "CEILING",
	       "TOTAL%", "CEILING", "SAMPLES", "KIND", "FUNCTION");
	if (!r->nr_funcs)
		printf("  (no samples)\n");
	for (i = 0; i < shown(r->nr_funcs, r->top); i++) {
		const struct kp_func *f = &r->funcs[i];
		double s = kp_share(f->self, r->basis);
		double t = kp_share(f->total, r->basis);

		fmt_ceiling(c1, sizeof(c1), kp_amdahl(s), &p1);
		fmt_ceiling(c2, sizeof(c2), kp_amdahl(t), &p2);
		printf("  %5.1f%%  %*s  %5.1f%%  %*s  %8" PRIu64 "  %-6s  %s\n",
		       100 * s, 7 + p1, c1, 100 * t, 7 + p2, c2, f->self,
		       kind_name(f->kind), f->name);
	}
	if (r->nr_funcs > r->top)
		printf("  (%zu more functions)\n", r->nr_funcs - r->top);
}

static void text_stacks(const struct kp_report *r)
{
	char c[16], proc[40], id[16], fr[TEXT_FRAMES * (KP_SYM_LEN + 4)];
	size_t i;
	int pad;

	title(r);
	printf("Hot stacks: share of the same samples per stack and process");
	title_end(r);
	printf("  %6s  %7s  %8s  %6s  %-20s  %s\n", "%", "CEILING", "SAMPLES",
	       "STACK", "PROCESS", "FRAMES (LEAF FIRST)");
	if (!r->rec->nr_cpu)
		printf("  (no samples)\n");
	for (i = 0; i < shown(r->rec->nr_cpu, r->top); i++) {
		const struct kp_rcpu *cr = r->cpu[i];
		const struct kp_rstack *rs = r->rec->stacks[cr->stack];
		double s = kp_share(cr->samples, r->basis);

		fmt_ceiling(c, sizeof(c), kp_amdahl(s), &pad);
		proc_name(proc, sizeof(proc), cr->comm, cr->tgid);
		if (rs->id)
			snprintf(id, sizeof(id), "%u", rs->id);
		else
			snprintf(id, sizeof(id), "-");
		printf("  %5.1f%%  %*s  %8" PRIu64 "  %6s  %-20s  %s\n", 100 * s,
		       7 + pad, c, cr->samples, id, proc,
		       fmt_funcs(fr, sizeof(fr), rs, 0));
	}
	if (r->rec->nr_cpu > r->top)
		printf("  (%zu more stacks)\n", r->rec->nr_cpu - r->top);
}

static void text_endpoints(const struct kp_report *r)
{
	char ep[KP_ADDR_LEN], d[5][KP_DURATION_LEN];
	uint64_t win = window_ns(r->rec);
	size_t i, n;

	title(r);
	printf("Remote endpoints: by total wait (%" PRIu64 " requests, %" PRIu64
	       " abandoned)", r->rec->requests, r->rec->abandoned);
	title_end(r);
	printf("  WINDOW%%: total wait / window length; over 100%% when requests overlap.\n");
	printf("  %-24s  %-7s  %8s  %8s  %7s  %8s  %8s  %8s  %8s\n", "ENDPOINT",
	       "ROLE", "COUNT", "TOTAL", "WINDOW%", "P50", "P95", "P99", "MAX");
	n = text_eps_shown(r);
	for (i = 0; i < n; i++) {
		const struct kp_endpoint *e = &r->eps[i];

		ep_name(ep, sizeof(ep), e);
		printf("  %-24s  %-7s  %8" PRIu64 "  %8s  %6.1f%%  %8s  %8s  %8s  %8s\n",
		       ep, kp_role_name(e->sum.role), (uint64_t)e->sum.count,
		       kp_fmt_duration(d[0], sizeof(d[0]), e->sum.sum_ns),
		       100 * kp_window_share(e->sum.sum_ns, win),
		       kp_fmt_duration(d[1], sizeof(d[1]), e->p50),
		       kp_fmt_duration(d[2], sizeof(d[2]), e->p95),
		       kp_fmt_duration(d[3], sizeof(d[3]), e->p99),
		       kp_fmt_duration(d[4], sizeof(d[4]), e->sum.max_ns));
	}
	if (r->nr_eps > r->top)
		printf("  (%zu more endpoints)\n", r->nr_eps - r->top);
}

/*
 * The endpoints whose p99 rose and fell with their errors, interval by
 * interval (kp_together()), in the order of the endpoints table.
 */
static void text_together(const struct kp_report *r)
{
	char ep[KP_ADDR_LEN];
	size_t i, tested = 0, shown = 0;

	for (i = 0; i < r->nr_eps; i++)
		tested += r->eps[i].tog.tested;
	printf("  Latency and errors moving together: each interval's p99 against its errors,\n"
	       "  rank-correlated (Spearman; permutation test, p < %g; endpoints with errors\n"
	       "  and requests in at least %d intervals: %zu)\n",
	       KP_TOGETHER_ALPHA, KP_TOGETHER_MIN_POINTS, tested);
	for (i = 0; i < r->nr_eps; i++) {
		const struct kp_together *t = &r->eps[i].tog;

		if (!t->together)
			continue;
		if (shown++ >= r->top)
			continue;
		ep_name(ep, sizeof(ep), &r->eps[i]);
		printf("    %-24s  %-7s  rho %.2f (p %.4f) over %u intervals with requests, %u with errors",
		       ep, kp_role_name(r->eps[i].sum.role), t->rho, t->p,
		       t->points, t->with_errors);
		if (t->span > 1)
			printf(" (each %u intervals merged)", t->span);
		printf("\n");
	}
	if (!shown)
		printf("    none\n");
	else if (shown > r->top)
		printf("    (%" PRIu64 " more endpoints)\n",
		       (uint64_t)shown - r->top);
}

/*
 * Endpoints with retransmits or resets (API 3.2), in the order of the
 * endpoints table; the share of requests that waited for a
 * retransmission says how much of the latency the loss may explain.
 */
static void text_ep_health(const struct kp_report *r)
{
	char ep[KP_ADDR_LEN];
	size_t i, n = 0, shown = 0;

	for (i = 0; i < r->nr_eps; i++)
		n += kp_row_has_health(&r->eps[i].sum);
	title(r);
	printf("Endpoint health: retransmits, resets and failed connects (%zu of %zu endpoints had some)",
	       n, r->nr_eps);
	title_end(r);
	if (!n)
		return;
	printf("  %-24s  %-7s  %8s  %8s  %8s  %8s  %s\n", "ENDPOINT", "ROLE",
	       "RETX", "RTO", "RST-SENT", "RST-RECV",
	       "REQUESTS AFTER A RETRANSMIT");
	for (i = 0; i < r->nr_eps && shown < r->top; i++) {
		const struct kprof_tcp_row *e = &r->eps[i].sum;

		if (!kp_row_has_health(e))
			continue;
		shown++;
		ep_name(ep, sizeof(ep), &r->eps[i]);
		/* a connect row (API 4.0): its connects' outcomes */
		if (e->role == KPROF_ROLE_CONNECT) {
			printf("  %-24s  %-7s  connects: %" PRIu64
			       " established, %" PRIu64 " refused, %" PRIu64
			       " timed out, %" PRIu64 " failed otherwise\n",
			       ep, kp_role_name(e->role), (uint64_t)e->count,
			       (uint64_t)e->connects_refused,
			       (uint64_t)e->connects_timedout,
			       (uint64_t)e->connects_failed);
			continue;
		}
		printf("  %-24s  %-7s  %8" PRIu64 "  %8" PRIu64 "  %8" PRIu64
		       "  %8" PRIu64 "  %" PRIu64 " of %" PRIu64,
		       ep, kp_role_name(e->role), (uint64_t)e->retransmits,
		       (uint64_t)e->retransmits_rto, (uint64_t)e->resets_sent,
		       (uint64_t)e->resets_received,
		       (uint64_t)e->after_retransmit, (uint64_t)e->count);
		if (e->count)
			printf(" (%.1f%%)", 100.0 * e->after_retransmit /
			       e->count);
		printf("\n");
	}
	if (n > shown)
		printf("  (%zu more endpoints)\n", n - shown);
	text_together(r);
}

static void text_slow(const struct kp_report *r)
{
	char ep[KP_ADDR_LEN], d[3][KP_DURATION_LEN], proc[40];
	char fr[TEXT_FRAMES * (KP_SYM_LEN + 4)];
	size_t i, j, n;

	title(r);
	printf("Slowest stacks per endpoint: requests of %s or more (faster ones have no stack)",
	       kp_fmt_duration(d[0], sizeof(d[0]), r->threshold_ns));
	title_end(r);
	n = text_eps_shown(r);
	for (i = 0; i < n; i++) {
		const struct kp_endpoint *e = &r->eps[i];

		ep_name(ep, sizeof(ep), e);
		printf("  %s %s: %" PRIu64 " of %" PRIu64 " requests past the threshold\n",
		       ep, kp_role_name(e->sum.role),
		       (uint64_t)e->sum.count - e->below, (uint64_t)e->sum.count);
		if (!e->nr_slow)
			continue;
		printf("    %8s  %8s  %8s  %6s  %-20s  %s\n", "COUNT", "P99",
		       "MAX", "STACK", "PROCESS", "FRAMES");
		for (j = 0; j < shown(e->nr_slow, r->top); j++) {
			const struct kp_rtcp *t = &r->rec->tcp[e->slow[j]];
			const struct kp_rstack *rs = r->rec->stacks[t->stack];

			proc_name(proc, sizeof(proc), rs->comm, rs->tgid);
			printf("    %8" PRIu64 "  %8s  %8s  %6u  %-20s  %s\n",
			       (uint64_t)t->row.count,
			       kp_fmt_duration(d[1], sizeof(d[1]),
					       kp_row_percentile(&t->row, 99)),
			       kp_fmt_duration(d[2], sizeof(d[2]), t->row.max_ns),
			       rs->id, proc, fmt_funcs(fr, sizeof(fr), rs, 1));
		}
		if (e->nr_slow > r->top)
			printf("    (%zu more stacks)\n", e->nr_slow - r->top);
	}
}

static void text_bits(const char *label, uint64_t v,
		      const struct kp_bitnames *names)
{
	printf("  %-14s", label);
	kp_print_bits(stdout, v, names);
	printf("\n");
}

/* Handler time over the window, as a share of the CPUs' time in it. */
static uint64_t overhead_ppm(const struct kp_report *r, uint64_t ns)
{
	uint64_t cpus = r->info.nr_online_cpus ? r->info.nr_online_cpus : 1;
	double all = (double)window_ns(r->rec) * (double)cpus;

	return all > 0 ? (uint64_t)((double)ns * 1e6 / all + 0.5) : 0;
}

static void text_overhead(const struct kp_report *r)
{
	const struct kprof_stats *a = &r->st_first, *b = &r->st_last;
	char d[KP_DURATION_LEN], p[32], q[32];
	uint64_t ns, calls, c0;

	if (!r->have_cost) {
		printf("  %-14s not measured by this module (API %u.%u)\n",
		       "overhead:", r->info.api_major, r->info.api_minor);
		return;
	}
	ns = kp_cost_total(b, &calls) - kp_cost_total(a, &c0);
	printf("  %-14s handlers %s in %" PRIu64 " calls, %s of the CPUs' time;"
	       " busiest CPU %s at the end\n", "overhead:",
	       kp_fmt_duration(d, sizeof(d), ns), calls - c0,
	       kp_fmt_ppm(p, sizeof(p), overhead_ppm(r, ns)),
	       kp_fmt_ppm(q, sizeof(q), b->load_ppm));
	if (b->budget_ppm)
		printf("  %-14s budget %s per CPU, level %u (%s) at the end",
		       "guard:", kp_fmt_ppm(p, sizeof(p), b->budget_ppm),
		       b->guard_level, kp_guard_level_name(b->guard_level));
	else
		printf("  %-14s off", "guard:");
	printf("; in the window: steps %" PRIu64 "/%" PRIu64 "/%" PRIu64
	       ", recoveries %" PRIu64 ", shed %" PRIu64 " stacks, %" PRIu64
	       " requests\n",
	       (uint64_t)(b->guard_steps[0] - a->guard_steps[0]),
	       (uint64_t)(b->guard_steps[1] - a->guard_steps[1]),
	       (uint64_t)(b->guard_steps[2] - a->guard_steps[2]),
	       (uint64_t)(b->guard_recoveries - a->guard_recoveries),
	       (uint64_t)(b->shed_stacks - a->shed_stacks),
	       (uint64_t)(b->shed_requests - a->shed_requests));
}

static void text_health(const struct kp_report *r)
{
	const struct kp_rec *rec = r->rec;
	char d[KP_DURATION_LEN];

	title(r);
	printf("Module health");
	title_end(r);
	printf("  %-14s inflight %" PRIu64 ", rows %" PRIu64 ", stacks %" PRIu64
	       ", export %" PRIu64 ", samples %" PRIu64 "\n", "drops:",
	       rec->drops_inflight, rec->drops_rows, rec->drops_stacks,
	       rec->drops_export, rec->drops_samples);
	printf("  %-14s %" PRIu64 " total, %" PRIu64 " idle\n", "samples:",
	       rec->samples, rec->samples_idle);
	printf("  %-14s %" PRIu64 "\n", "intervals:", rec->intervals);
	printf("  %-14s %u since load, %u in the window\n", "stack resets:",
	       r->resets_last, r->resets_last - r->resets_first);
	text_bits("attach:", r->info.attach, &kp_attach_names);
	text_bits("features:", r->info.features, &kp_feature_names);
	text_bits("measured:", r->run, &kp_run_names);
	text_bits("started:", r->started, &kp_run_names);
	printf("  %-14s %s\n", "threshold:",
	       kp_fmt_duration(d, sizeof(d), r->threshold_ns));
	printf("  %-14s %u Hz per CPU\n", "frequency:", rec->sample_hz);
	text_overhead(r);
}

void kp_report_text(const struct kp_report *r)
{
	text_header(r);
	if (r->run & KPROF_RUN_CPU) {
		text_funcs(r);
		text_stacks(r);
	}
	if (r->run & KPROF_RUN_TCP) {
		text_endpoints(r);
		text_ep_health(r);
		text_slow(r);
	}
	text_health(r);
}

/* --- JSON ---------------------------------------------------------------- */

static void add(json_object *o, const char *key, json_object *v)
{
	json_object_object_add(o, key, v);
}

/* A share and its ceiling (null when infinite). */
static void add_share(json_object *o, const char *share, const char *ceiling,
		      double p)
{
	double c = kp_amdahl(p);

	add(o, share, json_object_new_double(p));
	add(o, ceiling, isinf(c) ? NULL : json_object_new_double(c));
}

/* "frames": every frame's text, leaf first; none for pseudo frames. */
static json_object *json_frames(const struct kp_rstack *rs)
{
	json_object *a = json_object_new_array();
	unsigned int i;

	for (i = 0; i < rs->nr; i++)
		if (rs->f[i].kind != KP_RF_PSEUDO)
			json_object_array_add(a,
				json_object_new_string(rs->f[i].text));
	return a;
}

static json_object *json_funcs(const struct kp_report *r)
{
	json_object *a = json_object_new_array(), *o;
	size_t i;

	for (i = 0; i < shown(r->nr_funcs, r->top); i++) {
		const struct kp_func *f = &r->funcs[i];

		o = json_object_new_object();
		add(o, "function", json_object_new_string(f->name));
		add(o, "kind", json_object_new_string(kind_name(f->kind)));
		add(o, "self_samples", kp_json_u64(f->self));
		add_share(o, "self_share", "self_ceiling",
			  kp_share(f->self, r->basis));
		add(o, "total_samples", kp_json_u64(f->total));
		add_share(o, "total_share", "total_ceiling",
			  kp_share(f->total, r->basis));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *json_stacks(const struct kp_report *r)
{
	json_object *a = json_object_new_array(), *o;
	size_t i;

	for (i = 0; i < shown(r->rec->nr_cpu, r->top); i++) {
		const struct kp_rcpu *cr = r->cpu[i];
		const struct kp_rstack *rs = r->rec->stacks[cr->stack];

		o = kp_json_cpu_row(rs->id, cr->tgid, cr->comm, cr->samples);
		add_share(o, "share", "ceiling", kp_share(cr->samples, r->basis));
		add(o, "frames", json_frames(rs));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *json_slow(const struct kp_report *r,
			      const struct kp_endpoint *e)
{
	json_object *a = json_object_new_array(), *o;
	size_t j;

	for (j = 0; j < shown(e->nr_slow, r->top); j++) {
		const struct kp_rtcp *t = &r->rec->tcp[e->slow[j]];
		const struct kp_rstack *rs = r->rec->stacks[t->stack];

		o = json_object_new_object();
		add(o, "stack_id", kp_json_u64(rs->id));
		add(o, "tgid", kp_json_u64(rs->tgid));
		add(o, "comm", json_object_new_string(rs->comm));
		add(o, "count", kp_json_u64(t->row.count));
		add(o, "sum_ns", kp_json_u64(t->row.sum_ns));
		add(o, "p99_ns", kp_json_u64(kp_row_percentile(&t->row, 99)));
		add(o, "max_ns", kp_json_u64(t->row.max_ns));
		add(o, "frames", json_frames(rs));
		json_object_array_add(a, o);
	}
	return a;
}

/* kp_together()'s verdict: numbers that are not defined are null. */
static json_object *json_together(const struct kp_together *t)
{
	json_object *o = json_object_new_object();

	add(o, "points", kp_json_u64(t->points));
	add(o, "points_with_errors", kp_json_u64(t->with_errors));
	add(o, "intervals_per_point", kp_json_u64(t->span));
	add(o, "rho", t->tested ? json_object_new_double(t->rho) : NULL);
	add(o, "p_value", t->tested ? json_object_new_double(t->p) : NULL);
	add(o, "together", json_object_new_boolean(t->together));
	return o;
}

static json_object *json_endpoints(const struct kp_report *r)
{
	json_object *a = json_object_new_array(), *o;
	char ep[KP_ADDR_LEN];
	size_t i;

	for (i = 0; i < shown(r->nr_eps, r->top); i++) {
		const struct kp_endpoint *e = &r->eps[i];

		ep_name(ep, sizeof(ep), e);
		o = kp_json_tcp_row(&e->sum);
		json_object_object_del(o, "stack_id");
		add(o, "endpoint", json_object_new_string(ep));
		add(o, "window_share",
		    json_object_new_double(kp_window_share(e->sum.sum_ns,
							   window_ns(r->rec))));
		add(o, "below_threshold", kp_json_u64(e->below));
		add(o, "latency_errors", json_together(&e->tog));
		add(o, "slow_stacks", json_slow(r, e));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *json_overhead(const struct kp_report *r)
{
	const struct kprof_stats *a = &r->st_first, *b = &r->st_last;
	__u64 ns[KPROF_COST_NR], calls[KPROF_COST_NR];
	json_object *o = json_object_new_object();
	uint64_t total = 0, n = 0;
	unsigned int k;

	for (k = 0; k < KPROF_COST_NR; k++) {
		ns[k] = b->cost_ns[k] - a->cost_ns[k];
		calls[k] = b->cost_calls[k] - a->cost_calls[k];
		total += ns[k];
		n += calls[k];
	}
	add(o, "handler_ns", kp_json_u64(total));
	add(o, "handler_calls", kp_json_u64(n));
	add(o, "share_ppm", kp_json_u64(overhead_ppm(r, total)));
	add(o, "kinds", kp_json_cost(ns, calls));
	add(o, "guard", kp_json_guard(a, b));
	return o;
}

static json_object *json_health(const struct kp_report *r)
{
	const struct kp_rec *rec = r->rec;
	const struct kp_drops d = {
		.inflight = rec->drops_inflight, .rows = rec->drops_rows,
		.stacks = rec->drops_stacks, .export = rec->drops_export,
		.samples = rec->drops_samples,
	};
	json_object *o = json_object_new_object();

	add(o, "drops", kp_json_drops(&d));
	add(o, "samples_total", kp_json_u64(rec->samples));
	add(o, "samples_idle", kp_json_u64(rec->samples_idle));
	add(o, "intervals", kp_json_u64(rec->intervals));
	add(o, "stack_resets", kp_json_u64(r->resets_last));
	add(o, "stack_resets_in_window",
	    kp_json_u64(r->resets_last - r->resets_first));
	add(o, "attach", kp_json_bits(r->info.attach, &kp_attach_names));
	add(o, "features", kp_json_bits(r->info.features, &kp_feature_names));
	add(o, "measured", kp_json_bits(r->run, &kp_run_names));
	add(o, "started", kp_json_bits(r->started, &kp_run_names));
	add(o, "threshold_ns", kp_json_u64(r->threshold_ns));
	add(o, "sample_hz", kp_json_u64(rec->sample_hz));
	add(o, "overhead", r->have_cost ? json_overhead(r) : NULL);
	return o;
}

int kp_report_json(const struct kp_report *r)
{
	const struct kp_rec *rec = r->rec;
	json_object *o = json_object_new_object(), *x;
	char v[KPROF_VERSION_LEN + 1];
	const char *str;

	snprintf(v, sizeof(v), "%.*s", KPROF_VERSION_LEN, r->info.version);
	add(o, "schema", kp_json_u64(REPORT_SCHEMA));
	add(o, "kprof_version", json_object_new_string(KPROF_VERSION));
	x = json_object_new_object();
	add(x, "version", json_object_new_string(v));
	add(x, "api_major", kp_json_u64(r->info.api_major));
	add(x, "api_minor", kp_json_u64(r->info.api_minor));
	add(x, "cpus_online", kp_json_u64(r->info.nr_online_cpus));
	add(o, "module", x);
	x = kp_json_interval(rec->start_ns, rec->end_ns);
	add(x, "requested_ns", kp_json_u64(r->requested_ns));
	add(x, "stopped_early", json_object_new_boolean(r->stopped));
	add(o, "window", x);
	x = json_object_new_object();
	add(x, "measured", json_object_new_boolean(!!(r->run & KPROF_RUN_CPU)));
	add(x, "tgid", kp_json_u64(rec->tgid));
	add(x, "basis", json_object_new_string(rec->tgid ? "process" : "busy"));
	add(x, "basis_samples", kp_json_u64(r->basis));
	add(x, "samples_total", kp_json_u64(rec->samples));
	add(x, "samples_idle", kp_json_u64(rec->samples_idle));
	add(x, "sample_hz", kp_json_u64(rec->sample_hz));
	add(o, "cpu", x);
	add(o, "hot_functions", json_funcs(r));
	add(o, "hot_stacks", json_stacks(r));
	x = json_object_new_object();
	add(x, "measured", json_object_new_boolean(!!(r->run & KPROF_RUN_TCP)));
	add(x, "requests", kp_json_u64(rec->requests));
	add(x, "abandoned", kp_json_u64(rec->abandoned));
	add(x, "threshold_ns", kp_json_u64(r->threshold_ns));
	add(o, "tcp", x);
	add(o, "endpoints", json_endpoints(r));
	add(o, "health", json_health(r));
	str = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	if (str)
		puts(str);
	json_object_put(o);
	return str ? 0 : -1;
}
