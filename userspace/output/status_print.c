// SPDX-License-Identifier: GPL-2.0
/* kprof status as text or one JSON object (see kprof-status(1)). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include <json-c/json.h>

#include "cost.h"
#include "names.h"
#include "report_json.h"
#include "status_print.h"
#include "units.h"
#include "util.h"

static uint64_t cpu_cost_ns(const struct kprof_cpu_cost *c)
{
	uint64_t ns = 0;
	unsigned int k;

	for (k = 0; k < KPROF_COST_NR; k++)
		ns += c->cost_ns[k];
	return ns;
}

static json_object *status_json_overhead(const struct kp_status *s)
{
	const struct kprof_stats *st = &s->st;
	json_object *o = json_object_new_object(), *a;
	uint64_t calls, ns = kp_cost_total(st, &calls);
	unsigned int i;

	json_object_object_add(o, "handler_ns", kp_json_u64(ns));
	json_object_object_add(o, "handler_calls", kp_json_u64(calls));
	json_object_object_add(o, "kinds",
			       kp_json_cost(st->cost_ns, st->cost_calls));
	json_object_object_add(o, "guard", kp_json_guard(NULL, st));
	a = json_object_new_array();
	for (i = 0; i < s->nr_cpus; i++) {
		const struct kprof_cpu_cost *c = &s->cpus[i];
		json_object *x = json_object_new_object();

		json_object_object_add(x, "cpu", kp_json_u64(c->cpu));
		json_object_object_add(x, "online",
				       json_object_new_boolean(c->online));
		json_object_object_add(x, "level", kp_json_u64(c->level));
		json_object_object_add(x, "load_ppm", kp_json_u64(c->load_ppm));
		json_object_object_add(x, "sample_hz", kp_json_u64(c->sample_hz));
		json_object_object_add(x, "unsampled",
				       json_object_new_boolean(c->unsampled));
		json_object_object_add(x, "handler_ns",
				       kp_json_u64(cpu_cost_ns(c)));
		json_object_array_add(a, x);
	}
	json_object_object_add(o, "cpus", a);
	return o;
}

/* How long ago CLOCK_MONOTONIC @t was, when the status was taken. */
static uint64_t status_age(const struct kp_status *s, uint64_t t)
{
	return s->now_ns > t ? s->now_ns - t : 0;
}

static json_object *status_json_sessions(const struct kp_status *s)
{
	const struct kprof_sessions *ss = s->sessions;
	json_object *a = json_object_new_array();
	unsigned int i;

	for (i = 0; i < ss->nr_listed; i++) {
		const struct kprof_session_info *x = &ss->s[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "pid", json_object_new_int64(x->tgid));
		json_object_object_add(o, "comm", json_object_new_string(x->comm));
		json_object_object_add(o, "running",
				       kp_json_bits(x->held, &kp_run_names));
		json_object_object_add(o, "open_ns",
				       kp_json_u64(status_age(s, x->opened_ns)));
		json_object_object_add(o, "running_ns",
				       kp_json_u64(x->started_ns ?
						   status_age(s, x->started_ns) : 0));
		json_object_object_add(o, "self",
				       json_object_new_boolean(x->self));
		json_object_array_add(a, o);
	}
	return a;
}

/* The sessions other than this command's own, one line each. */
static void status_text_sessions(const struct kp_status *s)
{
	const struct kprof_sessions *ss = s->sessions;
	char dur[KP_DURATION_LEN];
	unsigned int i;

	printf("  sessions:   %u besides this one\n", ss->nr ? ss->nr - 1 : 0);
	for (i = 0; i < ss->nr_listed; i++) {
		const struct kprof_session_info *x = &ss->s[i];

		if (x->self)
			continue;
		if (x->tgid)
			printf("    pid %-8u %-16s ", x->tgid, x->comm);
		else
			printf("    %-12s %-16s ", "(other ns)", x->comm);
		if (x->held) {
			kp_print_bits(stdout, x->held, &kp_run_names);
			printf(" for %s\n", kp_fmt_duration(dur, sizeof(dur),
				status_age(s, x->started_ns)));
		} else {
			printf("nothing running, open for %s\n",
			       kp_fmt_duration(dur, sizeof(dur),
					       status_age(s, x->opened_ns)));
		}
	}
	if (ss->nr > ss->nr_listed)
		printf("    and %u more\n", ss->nr - ss->nr_listed);
}

/* "full", "prefix", "hash", or the number of a mode this reader does not know. */
static json_object *endpoints_json(uint32_t mode)
{
	const char *name = kp_endpoints_name(mode);

	return name ? json_object_new_string(name) : json_object_new_int64(mode);
}

static json_object *status_json_params(const struct kp_status *s)
{
	json_object *o = json_object_new_object();
	unsigned int i;

	for (i = 0; i < s->nr_params; i++)
		json_object_object_add(o, s->params[i].name,
				       json_object_new_string(s->params[i].value));
	return o;
}

static json_object *status_json(const struct kp_status *s)
{
	json_object *o = json_object_new_object(), *t, *d;
	const struct kprof_stats *st = &s->st;
	struct utsname u;

	uname(&u);
	json_object_object_add(o, "kernel", json_object_new_string(u.release));
	json_object_object_add(o, "loaded", json_object_new_boolean(s->loaded));
	json_object_object_add(o, "installed_path",
			       s->path ? json_object_new_string(s->path) : NULL);
	if (!s->loaded)
		return o;
	json_object_object_add(o, "version", json_object_new_string(s->version));
	json_object_object_add(o, "refcnt", json_object_new_int(s->refcnt));
	json_object_object_add(o, "held_by",
			       json_object_new_string(s->holders));
	json_object_object_add(o, "parameters", status_json_params(s));
	if (!s->have_dev) {
		json_object_object_add(o, "device_error",
				       json_object_new_string(strerror(s->dev_err)));
		return o;
	}
	t = json_object_new_object();
	json_object_object_add(t, "major", json_object_new_int(s->info.api_major));
	json_object_object_add(t, "minor", json_object_new_int(s->info.api_minor));
	json_object_object_add(o, "api", t);
	json_object_object_add(o, "features",
			       kp_json_bits(s->info.features, &kp_feature_names));
	json_object_object_add(o, "attach",
			       kp_json_bits(s->info.attach, &kp_attach_names));
	json_object_object_add(o, "running",
			       kp_json_bits(s->info.running, &kp_run_names));
	json_object_object_add(o, "endpoints", endpoints_json(s->info.endpoints));
	if (s->sessions)
		json_object_object_add(o, "sessions", status_json_sessions(s));

	t = json_object_new_object();
	json_object_object_add(t, "threshold_ns",
			       kp_json_u64(s->cfg.threshold_ns));
	json_object_object_add(t, "sample_hz",
			       json_object_new_int64(s->cfg.sample_hz));
	json_object_object_add(t, "tgid", json_object_new_int64(s->cfg.tgid));
	json_object_object_add(t, "cgroup_id", kp_json_u64(s->cfg.cgroup_id));
	json_object_object_add(o, "config", t);

	t = json_object_new_object();
	d = json_object_new_object();
	json_object_object_add(d, "used", json_object_new_int64(st->inflight));
	json_object_object_add(d, "dead",
			       json_object_new_int64(st->inflight_dead));
	json_object_object_add(d, "closed",
			       json_object_new_int64(st->inflight_closed));
	json_object_object_add(d, "max",
			       json_object_new_int64(s->info.inflight_max));
	json_object_object_add(t, "inflight", d);
	d = json_object_new_object();
	json_object_object_add(d, "used", json_object_new_int64(st->stacks));
	json_object_object_add(d, "max",
			       json_object_new_int64(s->info.stacks_max));
	json_object_object_add(t, "stacks", d);
	json_object_object_add(o, "tables", t);

	t = json_object_new_object();
	json_object_object_add(t, "requests", kp_json_u64(st->requests));
	json_object_object_add(t, "abandoned", kp_json_u64(st->abandoned));
	json_object_object_add(t, "samples", kp_json_u64(st->samples));
	json_object_object_add(t, "samples_idle", kp_json_u64(st->samples_idle));
	json_object_object_add(t, "snapshots", kp_json_u64(st->snapshots));
	json_object_object_add(t, "stack_resets",
			       json_object_new_int64(st->stack_resets));
	json_object_object_add(o, "counters", t);

	json_object_object_add(o, "drops", kp_json_drops(&(struct kp_drops) {
		.inflight = st->drops_inflight, .rows = st->drops_rows,
		.stacks = st->drops_stacks, .export = st->drops_export,
		.samples = st->drops_samples,
	}));
	json_object_object_add(o, "health_missed",
			       kp_json_u64(st->health_missed));
	/* API 4.1; null from an older module, which does not count them */
	json_object_object_add(o, "hooks_missed",
			       kp_stats_have_hooks_missed(st) ?
			       kp_json_u64(st->hooks_missed) : NULL);

	if (kp_stats_have_guard(st))
		json_object_object_add(o, "overhead", status_json_overhead(s));
	return o;
}

static void status_text_overhead(const struct kp_status *s)
{
	const struct kprof_stats *st = &s->st;
	char dur[KP_DURATION_LEN], load[32], budget[32], rate[48];
	uint64_t calls, ns = kp_cost_total(st, &calls);
	unsigned int i;

	printf("  overhead:   handlers %s in %" PRIu64 " calls since load; "
	       "busiest CPU %s over the last second\n",
	       kp_fmt_duration(dur, sizeof(dur), ns), calls,
	       kp_fmt_ppm(load, sizeof(load), st->load_ppm));
	if (st->budget_ppm)
		printf("  guard:      budget %s per CPU, level %u (%s) on %u CPU%s",
		       kp_fmt_ppm(budget, sizeof(budget), st->budget_ppm),
		       st->guard_level, kp_guard_level_name(st->guard_level),
		       st->guard_cpus, st->guard_cpus == 1 ? "" : "s");
	else
		printf("  guard:      off (budget_ppm=0)");
	printf("; steps %" PRIu64 "/%" PRIu64 "/%" PRIu64 ", recoveries %"
	       PRIu64 "; shed %" PRIu64 " stacks, %" PRIu64 " requests\n",
	       (uint64_t)st->guard_steps[0], (uint64_t)st->guard_steps[1],
	       (uint64_t)st->guard_steps[2], (uint64_t)st->guard_recoveries,
	       (uint64_t)st->shed_stacks, (uint64_t)st->shed_requests);
	for (i = 0; i < s->nr_cpus; i++) {
		const struct kprof_cpu_cost *c = &s->cpus[i];

		if (!c->online)
			continue;
		if (c->unsampled)
			snprintf(rate, sizeof(rate),
				 "unsampled (no perf event, see dmesg)");
		else
			snprintf(rate, sizeof(rate), "sampling %u Hz",
				 c->sample_hz);
		printf("  cpu %-6u  level %u (%s), load %s, %s, handlers %s\n",
		       c->cpu, c->level, kp_guard_level_name(c->level),
		       kp_fmt_ppm(load, sizeof(load), c->load_ppm), rate,
		       kp_fmt_duration(dur, sizeof(dur), cpu_cost_ns(c)));
	}
}

void kp_status_text(const struct kp_status *s)
{
	const struct kprof_stats *st = &s->st;
	char dur[KP_DURATION_LEN];
	const char *ep;
	unsigned int i;

	if (!s->loaded) {
		printf("%s: not loaded%s%s\n", KP_MODNAME,
		       s->path ? "; installed at " : " and not installed",
		       s->path ? s->path : "");
		return;
	}
	printf("%s: loaded, version %s, %d reference%s%s%s\n", KP_MODNAME,
	       s->version[0] ? s->version : "?", s->refcnt,
	       s->refcnt == 1 ? "" : "s", s->holders[0] ? ", held by " : "",
	       s->holders);
	printf("  parameters:");
	for (i = 0; i < s->nr_params; i++)
		printf(" %s=%s", s->params[i].name, s->params[i].value);
	printf("\n");
	if (!s->have_dev) {
		printf("  device:     %s: %s%s\n", kprof_dev_path(),
		       strerror(s->dev_err),
		       s->dev_err == EACCES || s->dev_err == EPERM ?
		       " (run as root for the rest)" : "");
		return;
	}
	printf("  api:        %u.%u\n", s->info.api_major, s->info.api_minor);
	printf("  features:  ");
	kp_print_bits(stdout, s->info.features, &kp_feature_names);
	printf("\n  attach:    ");
	kp_print_bits(stdout, s->info.attach, &kp_attach_names);
	printf("\n  running:   ");
	kp_print_bits(stdout, s->info.running, &kp_run_names);
	ep = kp_endpoints_name(s->info.endpoints);
	if (ep)
		printf("\n  endpoints:  %s", ep);
	else
		printf("\n  endpoints:  unknown (%u)", s->info.endpoints);
	printf("\n  config:     threshold %s, sampling %u Hz",
	       kp_fmt_duration(dur, sizeof(dur), s->cfg.threshold_ns),
	       s->cfg.sample_hz);
	if (s->cfg.tgid)
		printf(", pid %u", s->cfg.tgid);
	if (s->cfg.cgroup_id)
		printf(", cgroup %" PRIu64, (uint64_t)s->cfg.cgroup_id);
	printf("\n  tables:     in flight %u/%u (%u closed, %u dead), stacks %u/%u\n",
	       st->inflight, s->info.inflight_max, st->inflight_closed,
	       st->inflight_dead, st->stacks, s->info.stacks_max);
	printf("  counters:   requests %" PRIu64 " (abandoned %" PRIu64
	       "), samples %" PRIu64 " (idle %" PRIu64 "), intervals %" PRIu64
	       "\n", (uint64_t)st->requests, (uint64_t)st->abandoned,
	       (uint64_t)st->samples, (uint64_t)st->samples_idle,
	       (uint64_t)st->snapshots);
	printf("  drops:      in flight %" PRIu64 ", rows %" PRIu64
	       ", stacks %" PRIu64 ", export %" PRIu64 ", samples %" PRIu64
	       "\n", (uint64_t)st->drops_inflight, (uint64_t)st->drops_rows,
	       (uint64_t)st->drops_stacks, (uint64_t)st->drops_export,
	       (uint64_t)st->drops_samples);
	/* TCP health events a handler on their CPU kept out (API 3.2) */
	if (st->health_missed)
		printf("  health:     %" PRIu64 " TCP health events missed\n",
		       (uint64_t)st->health_missed);
	/* TCP hook calls that went unhandled (API 4.1) */
	if (st->hooks_missed)
		printf("  hooks:      %" PRIu64 " TCP hook calls missed (requests may be uncounted)\n",
		       (uint64_t)st->hooks_missed);
	if (s->sessions)
		status_text_sessions(s);
	if (kp_stats_have_guard(st))
		status_text_overhead(s);
}

void kp_status_json(const struct kp_status *s)
{
	json_object *o = status_json(s);

	printf("%s\n", json_object_to_json_string_ext(o,
		JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}
