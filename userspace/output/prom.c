// SPDX-License-Identifier: GPL-2.0
/* kprof reader: Prometheus text exposition, see prom.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "addr.h"
#include "hist.h"
#include "row.h"
#include "prom.h"
#include "util.h"

#define US	((uint64_t)1000)
#define MS	((uint64_t)1000000)
#define S	((uint64_t)1000000000)

const uint64_t kp_prom_le_ns[KP_PROM_NR_LE] = {
	100 * US, 250 * US, 500 * US,
	1 * MS, 2500 * US, 5 * MS,
	10 * MS, 25 * MS, 50 * MS,
	100 * MS, 250 * MS, 500 * MS,
	1 * S, 2500 * MS, 5 * S,
	10 * S,
};

const char *const kp_prom_le_text[KP_PROM_NR_LE] = {
	"0.0001", "0.00025", "0.0005",
	"0.001", "0.0025", "0.005",
	"0.01", "0.025", "0.05",
	"0.1", "0.25", "0.5",
	"1", "2.5", "5",
	"10",
};

void kp_prom_init(struct kp_prom *p, uint32_t max_series)
{
	memset(p, 0, sizeof(*p));
	p->max_series = max_series;
}

void kp_prom_fini(struct kp_prom *p)
{
	free(p->eps);
	kp_htab_free(&p->idx);
	memset(p, 0, sizeof(*p));
}

struct ep_key {
	const struct kp_prom *p;
	const struct kp_prom_ep *k;
};

static bool ep_eq(const void *ctx, uint32_t idx)
{
	const struct ep_key *key = ctx;
	const struct kp_prom_ep *a = &key->p->eps[idx], *b = key->k;

	return a->other == b->other && a->family == b->family &&
	       a->rport == b->rport && a->role == b->role &&
	       !memcmp(a->raddr, b->raddr, sizeof(a->raddr));
}

static uint64_t ep_hash(const struct kp_prom_ep *k)
{
	uint64_t h;

	h = kp_hash(&k->other, sizeof(k->other), 0);
	h = kp_hash(&k->family, sizeof(k->family), h);
	h = kp_hash(&k->rport, sizeof(k->rport), h);
	h = kp_hash(k->raddr, sizeof(k->raddr), h);
	return kp_hash(&k->role, sizeof(k->role), h);
}

/* The series of key @k, created if new; NULL without memory. */
static struct kp_prom_ep *ep_get(struct kp_prom *p, const struct kp_prom_ep *k)
{
	struct ep_key key = { p, k };
	struct kp_prom_ep *eps;
	uint64_t h = ep_hash(k);
	int64_t i;

	i = kp_htab_find(&p->idx, h, ep_eq, &key);
	if (i >= 0)
		return &p->eps[i];
	if (KP_GROW(p->eps, p->nr_eps, p->cap_eps) ||
	    kp_htab_add(&p->idx, h, p->nr_eps))
		return NULL;
	eps = &p->eps[p->nr_eps++];
	*eps = *k;
	if (!k->other)
		p->nr_endpoints++;
	return eps;
}

static bool ep_exists(struct kp_prom *p, const struct kp_prom_ep *k)
{
	struct ep_key key = { p, k };

	return kp_htab_find(&p->idx, ep_hash(k), ep_eq, &key) >= 0;
}

int kp_prom_add_row(struct kp_prom *p, const struct kprof_tcp_row *r)
{
	struct kp_prom_ep k, *ep;
	unsigned int i, j = 0;
	uint64_t n;

	memset(&k, 0, sizeof(k));
	k.family = r->family;
	k.rport = r->rport;
	k.role = r->role;
	memcpy(k.raddr, r->raddr, r->family == AF_INET ? 4 : sizeof(k.raddr));
	if (!ep_exists(p, &k) && p->nr_endpoints >= p->max_series) {
		memset(&k, 0, sizeof(k));
		k.other = 1;
		k.role = r->role;
		p->folded_rows++;
	}
	ep = ep_get(p, &k);
	if (!ep)
		return -ENOMEM;
	ep->sum_ns += r->sum_ns;
	ep->health[KP_PROM_RETX] += r->retransmits;
	ep->health[KP_PROM_RTO] += r->retransmits_rto;
	ep->health[KP_PROM_RST_SENT] += r->resets_sent;
	ep->health[KP_PROM_RST_RECV] += r->resets_received;
	ep->health[KP_PROM_AFTER_RETX] += r->after_retransmit;
	ep->health[KP_PROM_CREFUSED] += r->connects_refused;
	ep->health[KP_PROM_CTIMEDOUT] += r->connects_timedout;
	ep->health[KP_PROM_CFAILED] += r->connects_failed;
	/*
	 * Module buckets in order: the first le at or above a bucket's
	 * largest value only grows.
	 */
	for (i = 0; i < KP_HIST_BUCKETS; i++) {
		n = r->hist[i];
		if (!n)
			continue;
		while (j < KP_PROM_NR_LE &&
		       (i == KP_HIST_LAST ||
			kp_hist_upper(i) - 1 > kp_prom_le_ns[j]))
			j++;
		ep->slot[j] += n;
		ep->count += n;
	}
	return 0;
}

int kp_prom_add(struct kp_prom *p, const struct kp_snapshot *snap,
		int tcp_on, int cpu_on)
{
	uint32_t i;

	p->intervals++;
	p->drops_stacks += snap->drops_stacks;
	if (cpu_on) {
		p->samples_busy += kp_snapshot_busy(snap);
		p->samples_idle += snap->samples_idle;
		p->drops_samples += snap->drops_samples;
	}
	if (!tcp_on)
		return 0;
	p->requests += snap->requests;
	p->abandoned += snap->abandoned;
	p->drops_inflight += snap->drops_inflight;
	p->drops_rows += snap->drops_rows;
	p->drops_export += snap->drops_export;
	for (i = 0; i < snap->nr_rows; i++)
		if (kp_prom_add_row(p, &snap->rows[i]))
			return -ENOMEM;
	return 0;
}

/* --- writing --------------------------------------------------------- */

void kp_prom_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '"')
			fputs("\\\"", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void family(FILE *f, const char *name, const char *type,
		   const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void counter(FILE *f, const char *name, const char *help, uint64_t v)
{
	family(f, name, "counter", help);
	fprintf(f, "%s %" PRIu64 "\n", name, v);
}

static void gauge(FILE *f, const char *name, const char *help, uint64_t v)
{
	family(f, name, "gauge", help);
	fprintf(f, "%s %" PRIu64 "\n", name, v);
}

/* Nanoseconds as exact decimal seconds: "0.1495", "12", "0". */
static void seconds(FILE *f, uint64_t ns)
{
	uint64_t frac = ns % S;
	char buf[16];
	int n;

	if (!frac) {
		fprintf(f, "%" PRIu64, ns / S);
		return;
	}
	n = snprintf(buf, sizeof(buf), "%09" PRIu64, frac);
	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = '\0';
	fprintf(f, "%" PRIu64 ".%s", ns / S, buf);
}

static int ep_cmp(const void *a, const void *b)
{
	const struct kp_prom_ep *x = *(const struct kp_prom_ep *const *)a;
	const struct kp_prom_ep *y = *(const struct kp_prom_ep *const *)b;
	int c;

	if (x->other != y->other)
		return x->other ? 1 : -1;
	if (x->family != y->family)
		return x->family < y->family ? -1 : 1;
	c = memcmp(x->raddr, y->raddr, sizeof(x->raddr));
	if (c)
		return c;
	if (x->rport != y->rport)
		return x->rport < y->rport ? -1 : 1;
	return x->role < y->role ? -1 : x->role > y->role;
}

#define HIST	"kprof_tcp_request_duration_seconds"

#define CONN_HIST	"kprof_tcp_connect_duration_seconds"

/*
 * {raddr="…",rport="…",role="…" without the closing brace; a connect
 * series (API 4.0) has no role: its metrics' names say it.
 */
static void ep_labels(FILE *f, const struct kp_prom_ep *ep)
{
	char host[KP_ADDR_LEN];

	if (ep->other) {
		fprintf(f, "{raddr=\"other\",rport=\"other\"");
	} else {
		kp_addr_host(host, sizeof(host), ep->family, ep->raddr);
		fputs("{raddr=\"", f);
		kp_prom_escape(f, host);
		fprintf(f, "\",rport=\"%u\"", ep->rport);
	}
	if (ep->role == KPROF_ROLE_CONNECT)
		return;
	fputs(",role=\"", f);
	kp_prom_escape(f, kp_role_name(ep->role));
	fputc('"', f);
}

static void write_ep(FILE *f, const char *name, const struct kp_prom_ep *ep)
{
	uint64_t cum = 0;
	unsigned int i;

	for (i = 0; i < KP_PROM_NR_LE; i++) {
		cum += ep->slot[i];
		fprintf(f, "%s_bucket", name);
		ep_labels(f, ep);
		fprintf(f, ",le=\"%s\"} %" PRIu64 "\n", kp_prom_le_text[i], cum);
	}
	cum += ep->slot[KP_PROM_NR_LE];
	fprintf(f, "%s_bucket", name);
	ep_labels(f, ep);
	fprintf(f, ",le=\"+Inf\"} %" PRIu64 "\n", cum);
	fprintf(f, "%s_sum", name);
	ep_labels(f, ep);
	fputs("} ", f);
	seconds(f, ep->sum_ns);
	fputc('\n', f);
	fprintf(f, "%s_count", name);
	ep_labels(f, ep);
	fprintf(f, "} %" PRIu64 "\n", ep->count);
}

/* A connect series' failures, by cause. */
static void write_connect_failures(FILE *f, const struct kp_prom_ep **eps,
				   size_t n)
{
	static const char *const cause[] = { "refused", "timedout", "other" };
	size_t i, k;

	family(f, "kprof_tcp_connect_failures_total", "counter",
	       "TCP connects to the endpoint that failed, by cause: refused by a reset, timed out after the SYN's retransmissions, or any other end.");
	for (i = 0; i < n; i++) {
		if (eps[i]->role != KPROF_ROLE_CONNECT)
			continue;
		for (k = 0; k < 3; k++) {
			fputs("kprof_tcp_connect_failures_total", f);
			ep_labels(f, eps[i]);
			fprintf(f, ",cause=\"%s\"} %" PRIu64 "\n", cause[k],
				eps[i]->health[KP_PROM_CREFUSED + k]);
		}
	}
}

/* The health counters, a family at a time, every endpoint in each. */
static void write_health(FILE *f, const struct kp_prom_ep **eps, size_t n)
{
	static const struct {
		const char *name, *extra, *help;
		unsigned int a, b;	/* health[] index; b: a second series */
	} fams[] = {
		{ "kprof_tcp_retransmits_total", NULL,
		  "TCP segments retransmitted to the endpoint, as TcpRetransSegs counts them.",
		  KP_PROM_RETX, KP_PROM_RETX },
		{ "kprof_tcp_rto_retransmits_total", NULL,
		  "Of the retransmitted segments, those sent in loss recovery after a retransmission timeout.",
		  KP_PROM_RTO, KP_PROM_RTO },
		{ "kprof_tcp_resets_total", "direction",
		  "TCP resets on connections with the endpoint, sent or received.",
		  KP_PROM_RST_SENT, KP_PROM_RST_RECV },
		{ "kprof_tcp_requests_after_retransmit_total", NULL,
		  "TCP requests that completed after a retransmission on their socket.",
		  KP_PROM_AFTER_RETX, KP_PROM_AFTER_RETX },
	};
	size_t i, k;

	for (k = 0; k < sizeof(fams) / sizeof(fams[0]); k++) {
		family(f, fams[k].name, "counter", fams[k].help);
		for (i = 0; i < n; i++) {
			if (eps[i]->role == KPROF_ROLE_CONNECT)
				continue;
			fputs(fams[k].name, f);
			ep_labels(f, eps[i]);
			if (!fams[k].extra) {
				fprintf(f, "} %" PRIu64 "\n",
					eps[i]->health[fams[k].a]);
				continue;
			}
			fprintf(f, ",%s=\"sent\"} %" PRIu64 "\n", fams[k].extra,
				eps[i]->health[fams[k].a]);
			fputs(fams[k].name, f);
			ep_labels(f, eps[i]);
			fprintf(f, ",%s=\"received\"} %" PRIu64 "\n",
				fams[k].extra, eps[i]->health[fams[k].b]);
		}
	}
}

int kp_prom_write(const struct kp_prom *p, FILE *f)
{
	static const char *const kinds[] = {
		"inflight", "rows", "stacks", "export", "samples",
	};
	const uint64_t drops[] = {
		p->drops_inflight, p->drops_rows, p->drops_stacks,
		p->drops_export, p->drops_samples,
	};
	const struct kp_prom_ep **eps;
	size_t i;

	eps = calloc(p->nr_eps ? p->nr_eps : 1, sizeof(*eps));
	if (!eps)
		return -ENOMEM;
	for (i = 0; i < p->nr_eps; i++)
		eps[i] = &p->eps[i];
	qsort(eps, p->nr_eps, sizeof(*eps), ep_cmp);

	family(f, "kprof_info", "gauge",
	       "Versions of the kprof reader and of kprofmod; always 1.");
	fputs("kprof_info{version=\"", f);
	kp_prom_escape(f, p->version ? p->version : "");
	fputs("\",module_version=\"", f);
	kp_prom_escape(f, p->module_version ? p->module_version : "");
	fprintf(f, "\",api=\"%u.%u\"} 1\n", p->api_major, p->api_minor);
	counter(f, "kprof_intervals_total",
		"Intervals measured since the reader started.", p->intervals);
	counter(f, "kprof_tcp_requests_total",
		"TCP requests completed (a response arrived).", p->requests);
	counter(f, "kprof_tcp_abandoned_requests_total",
		"TCP requests whose socket closed before a response.",
		p->abandoned);
	family(f, "kprof_cpu_samples_total", "counter",
	       "CPU stack samples, by whether the CPU was idle.");
	fprintf(f, "kprof_cpu_samples_total{state=\"busy\"} %" PRIu64 "\n",
		p->samples_busy);
	fprintf(f, "kprof_cpu_samples_total{state=\"idle\"} %" PRIu64 "\n",
		p->samples_idle);
	family(f, "kprof_drops_total", "counter",
	       "Events lost because a kprofmod table was full, by table.");
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		fprintf(f, "kprof_drops_total{kind=\"%s\"} %" PRIu64 "\n",
			kinds[i], drops[i]);
	gauge(f, "kprof_tcp_endpoint_series",
	      "Endpoint series of " HIST " and " CONN_HIST ", the other series apart.",
	      p->nr_endpoints);
	gauge(f, "kprof_tcp_endpoint_series_max",
	      "Endpoint series kept before new endpoints go to the other series.",
	      p->max_series);
	counter(f, "kprof_tcp_folded_rows_total",
		"TCP rows added to an other series: their endpoint came past the cap.",
		p->folded_rows);
	family(f, HIST, "histogram",
	       "TCP request latency, first send to first response data, per remote endpoint and role.");
	for (i = 0; i < p->nr_eps; i++)
		if (eps[i]->role != KPROF_ROLE_CONNECT)
			write_ep(f, HIST, eps[i]);
	write_health(f, eps, p->nr_eps);
	family(f, CONN_HIST, "histogram",
	       "TCP connect latency, SYN sent to established, per remote endpoint.");
	for (i = 0; i < p->nr_eps; i++)
		if (eps[i]->role == KPROF_ROLE_CONNECT)
			write_ep(f, CONN_HIST, eps[i]);
	write_connect_failures(f, eps, p->nr_eps);
	free(eps);
	return 0;
}
