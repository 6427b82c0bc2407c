// SPDX-License-Identifier: GPL-2.0
/* Tests: the Prometheus exposition of top's running totals. */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "hist.h"
#include "prom.h"
#include "unit.h"

/* A row of @n requests of @ns each (min and max too). */
static void row(struct kprof_tcp_row *r, uint32_t stack, int family,
		const char *addr, unsigned int port, unsigned int role,
		unsigned int n, uint64_t ns)
{
	memset(r, 0, sizeof(*r));
	r->stack_id = stack;
	r->family = family;
	r->rport = port;
	r->role = role;
	inet_pton(family, addr, r->raddr);
	r->count += n;
	r->sum_ns += n * ns;
	r->min_ns = ns;
	r->max_ns = ns;
	r->hist[kp_hist_index(ns)] += n;
}

/* Add @n requests of @ns each to @r. */
static void more(struct kprof_tcp_row *r, unsigned int n, uint64_t ns)
{
	r->count += n;
	r->sum_ns += n * ns;
	r->hist[kp_hist_index(ns)] += n;
}

/* kp_prom_write() into a string (free it). */
static char *render(const struct kp_prom *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int ret;

	if (!f)
		abort();
	ret = kp_prom_write(p, f);
	EXPECT(!ret, "write: %d", ret);
	EXPECT(!ferror(f), "stream error");
	fclose(f);
	return buf;
}

static void init(struct kp_prom *p, uint32_t max)
{
	kp_prom_init(p, max);
	p->version = "0.1.0";
	p->module_version = "0.1.0";
	p->api_major = 1;
	p->api_minor = 2;
}

static const char want_small[] =
	"# HELP kprof_info Versions of the kprof reader and of kprofmod; always 1.\n"
	"# TYPE kprof_info gauge\n"
	"kprof_info{version=\"0.1.0\",module_version=\"0.1.0\",api=\"1.2\"} 1\n"
	"# HELP kprof_intervals_total Intervals measured since the reader started.\n"
	"# TYPE kprof_intervals_total counter\n"
	"kprof_intervals_total 1\n"
	"# HELP kprof_tcp_requests_total TCP requests completed (a response arrived).\n"
	"# TYPE kprof_tcp_requests_total counter\n"
	"kprof_tcp_requests_total 6\n"
	"# HELP kprof_tcp_abandoned_requests_total TCP requests whose socket closed before a response.\n"
	"# TYPE kprof_tcp_abandoned_requests_total counter\n"
	"kprof_tcp_abandoned_requests_total 1\n"
	"# HELP kprof_cpu_samples_total CPU stack samples, by whether the CPU was idle.\n"
	"# TYPE kprof_cpu_samples_total counter\n"
	"kprof_cpu_samples_total{state=\"busy\"} 70\n"
	"kprof_cpu_samples_total{state=\"idle\"} 30\n"
	"# HELP kprof_drops_total Events lost because a kprofmod table was full, by table.\n"
	"# TYPE kprof_drops_total counter\n"
	"kprof_drops_total{kind=\"inflight\"} 1\n"
	"kprof_drops_total{kind=\"rows\"} 2\n"
	"kprof_drops_total{kind=\"stacks\"} 3\n"
	"kprof_drops_total{kind=\"export\"} 4\n"
	"kprof_drops_total{kind=\"samples\"} 5\n"
	"# HELP kprof_tcp_endpoint_series Endpoint series of kprof_tcp_request_duration_seconds and kprof_tcp_connect_duration_seconds, the other series apart.\n"
	"# TYPE kprof_tcp_endpoint_series gauge\n"
	"kprof_tcp_endpoint_series 3\n"
	"# HELP kprof_tcp_endpoint_series_max Endpoint series kept before new endpoints go to the other series.\n"
	"# TYPE kprof_tcp_endpoint_series_max gauge\n"
	"kprof_tcp_endpoint_series_max 500\n"
	"# HELP kprof_tcp_folded_rows_total TCP rows added to an other series: their endpoint came past the cap.\n"
	"# TYPE kprof_tcp_folded_rows_total counter\n"
	"kprof_tcp_folded_rows_total 0\n"
	"# HELP kprof_tcp_request_duration_seconds TCP request latency, first send to first response data, per remote endpoint and role.\n"
	"# TYPE kprof_tcp_request_duration_seconds histogram\n"
#define B(le, n) "kprof_tcp_request_duration_seconds_bucket{raddr=\"10.0.4.12\",rport=\"443\",role=\"client\",le=\"" le "\"} " #n "\n"
	B("0.0001", 1) B("0.00025", 3) B("0.0005", 3) B("0.001", 3)
	B("0.0025", 3) B("0.005", 4) B("0.01", 4) B("0.025", 4) B("0.05", 4)
	B("0.1", 4) B("0.25", 4) B("0.5", 4) B("1", 4) B("2.5", 4) B("5", 4)
	B("10", 4) B("+Inf", 5)
#undef B
	"kprof_tcp_request_duration_seconds_sum{raddr=\"10.0.4.12\",rport=\"443\",role=\"client\"} 20.0032993\n"
	"kprof_tcp_request_duration_seconds_count{raddr=\"10.0.4.12\",rport=\"443\",role=\"client\"} 5\n"
#define B(le, n) "kprof_tcp_request_duration_seconds_bucket{raddr=\"2001:db8::1\",rport=\"8080\",role=\"server\",le=\"" le "\"} " #n "\n"
	B("0.0001", 0) B("0.00025", 0) B("0.0005", 0) B("0.001", 0)
	B("0.0025", 0) B("0.005", 0) B("0.01", 0) B("0.025", 0) B("0.05", 0)
	B("0.1", 0) B("0.25", 0) B("0.5", 0) B("1", 0) B("2.5", 1) B("5", 1)
	B("10", 1) B("+Inf", 1)
#undef B
	"kprof_tcp_request_duration_seconds_sum{raddr=\"2001:db8::1\",rport=\"8080\",role=\"server\"} 1\n"
	"kprof_tcp_request_duration_seconds_count{raddr=\"2001:db8::1\",rport=\"8080\",role=\"server\"} 1\n"
#define C "{raddr=\"10.0.4.12\",rport=\"443\",role=\"client\""
#define S "{raddr=\"2001:db8::1\",rport=\"8080\",role=\"server\""
	"# HELP kprof_tcp_retransmits_total TCP segments retransmitted to the endpoint, as TcpRetransSegs counts them.\n"
	"# TYPE kprof_tcp_retransmits_total counter\n"
	"kprof_tcp_retransmits_total" C "} 3\n"
	"kprof_tcp_retransmits_total" S "} 0\n"
	"# HELP kprof_tcp_rto_retransmits_total Of the retransmitted segments, those sent in loss recovery after a retransmission timeout.\n"
	"# TYPE kprof_tcp_rto_retransmits_total counter\n"
	"kprof_tcp_rto_retransmits_total" C "} 1\n"
	"kprof_tcp_rto_retransmits_total" S "} 0\n"
	"# HELP kprof_tcp_resets_total TCP resets on connections with the endpoint, sent or received.\n"
	"# TYPE kprof_tcp_resets_total counter\n"
	"kprof_tcp_resets_total" C ",direction=\"sent\"} 0\n"
	"kprof_tcp_resets_total" C ",direction=\"received\"} 2\n"
	"kprof_tcp_resets_total" S ",direction=\"sent\"} 4\n"
	"kprof_tcp_resets_total" S ",direction=\"received\"} 0\n"
	"# HELP kprof_tcp_requests_after_retransmit_total TCP requests that completed after a retransmission on their socket.\n"
	"# TYPE kprof_tcp_requests_after_retransmit_total counter\n"
	"kprof_tcp_requests_after_retransmit_total" C "} 1\n"
	"kprof_tcp_requests_after_retransmit_total" S "} 0\n"
	"# HELP kprof_tcp_connect_duration_seconds TCP connect latency, SYN sent to established, per remote endpoint.\n"
	"# TYPE kprof_tcp_connect_duration_seconds histogram\n"
#define B(le, n) "kprof_tcp_connect_duration_seconds_bucket{raddr=\"10.0.4.12\",rport=\"443\",le=\"" le "\"} " #n "\n"
	B("0.0001", 0) B("0.00025", 0) B("0.0005", 1) B("0.001", 1)
	B("0.0025", 1) B("0.005", 1) B("0.01", 1) B("0.025", 1) B("0.05", 1)
	B("0.1", 1) B("0.25", 1) B("0.5", 1) B("1", 1) B("2.5", 1) B("5", 1)
	B("10", 1) B("+Inf", 1)
#undef B
	"kprof_tcp_connect_duration_seconds_sum{raddr=\"10.0.4.12\",rport=\"443\"} 0.0003\n"
	"kprof_tcp_connect_duration_seconds_count{raddr=\"10.0.4.12\",rport=\"443\"} 1\n"
	"# HELP kprof_tcp_connect_failures_total TCP connects to the endpoint that failed, by cause: refused by a reset, timed out after the SYN's retransmissions, or any other end.\n"
	"# TYPE kprof_tcp_connect_failures_total counter\n"
	"kprof_tcp_connect_failures_total{raddr=\"10.0.4.12\",rport=\"443\",cause=\"refused\"} 2\n"
	"kprof_tcp_connect_failures_total{raddr=\"10.0.4.12\",rport=\"443\",cause=\"timedout\"} 1\n"
	"kprof_tcp_connect_failures_total{raddr=\"10.0.4.12\",rport=\"443\",cause=\"other\"} 0\n";
#undef C
#undef S

/*
 * Exact text: 50us (le 100us), 99us (its module bucket reaches 106495ns:
 * counted from le 250us on), 150us, 3ms, 20s (only +Inf); on IPv6 1s,
 * whose module bucket [939524096, 1006632960) ns is counted from le 2.5.
 * Two stacks of one endpoint are one series.
 */
static void test_small(void)
{
	struct kp_snapshot snap;
	struct kprof_tcp_row rows[4];
	struct kp_prom p;
	char *text;

	init(&p, KP_PROM_DEFAULT_SERIES);
	row(&rows[0], 7, AF_INET, "10.0.4.12", 443, KPROF_ROLE_CLIENT, 1, 50000);
	more(&rows[0], 1, 99000);
	more(&rows[0], 1, 3000000);
	row(&rows[1], 0, AF_INET, "10.0.4.12", 443, KPROF_ROLE_CLIENT, 1, 150300);
	more(&rows[1], 1, 20 * 1000000000ULL);
	row(&rows[2], 9, AF_INET6, "2001:db8::1", 8080, KPROF_ROLE_SERVER, 1,
	    1000000000);
	/* health (API 3.2), on the rows of stack 0 as the module puts it */
	rows[1].retransmits = 3;
	rows[1].retransmits_rto = 1;
	rows[1].resets_received = 2;
	rows[1].after_retransmit = 1;
	rows[2].resets_sent = 4;
	/* connects (API 4.0): their own histogram and failures, no role */
	row(&rows[3], 0, AF_INET, "10.0.4.12", 443, KPROF_ROLE_CONNECT, 1,
	    300000);
	rows[3].connects_refused = 2;
	rows[3].connects_timedout = 1;
	memset(&snap, 0, sizeof(snap));
	snap.rows = rows;
	snap.nr_rows = 4;
	snap.requests = 6;
	snap.abandoned = 1;
	snap.samples = 100;
	snap.samples_idle = 30;
	snap.drops_inflight = 1;
	snap.drops_rows = 2;
	snap.drops_stacks = 3;
	snap.drops_export = 4;
	snap.drops_samples = 5;
	EXPECT(!kp_prom_add(&p, &snap, 1, 1), "add");
	text = render(&p);
	if (!EXPECT(!strcmp(text, want_small), "text differs")) {
		size_t i = 0;

		while (text[i] && text[i] == want_small[i])
			i++;
		kp_test_diag("first difference at %zu: got \"%.80s\"", i,
			     text + i);
	}
	free(text);

	/* What is not measured stays 0; stack drops count either way. */
	kp_prom_fini(&p);
	init(&p, KP_PROM_DEFAULT_SERIES);
	EXPECT(!kp_prom_add(&p, &snap, 0, 0), "add");
	EXPECT(p.requests == 0 && p.samples_busy == 0 && p.drops_rows == 0 &&
	       p.drops_samples == 0 && p.drops_stacks == 3 && p.nr_eps == 0 &&
	       p.intervals == 1, "only stack drops and the interval counted");
	kp_prom_fini(&p);
}

/*
 * Every module bucket against every le: counted under le exactly when the
 * bucket's largest value is at most le; the last bucket only under +Inf.
 */
static void test_bucket_rule(void)
{
	struct kprof_tcp_row r;
	struct kp_prom p;
	unsigned int i, j;
	uint64_t cum;

	for (i = 0; i < KP_HIST_BUCKETS; i++) {
		init(&p, 10);
		memset(&r, 0, sizeof(r));
		r.family = AF_INET;
		r.role = KPROF_ROLE_CLIENT;
		r.hist[i] = 3;
		EXPECT(!kp_prom_add_row(&p, &r), "add");
		cum = 0;
		for (j = 0; j < KP_PROM_NR_LE; j++) {
			int in = i < KP_HIST_LAST &&
				 kp_hist_upper(i) - 1 <= kp_prom_le_ns[j];

			cum += p.eps[0].slot[j];
			EXPECT(cum == (in ? 3U : 0U), "bucket %u [%" PRIu64
			       ", %" PRIu64 ") under le %s: %" PRIu64, i,
			       kp_hist_lower(i), kp_hist_upper(i),
			       kp_prom_le_text[j], cum);
		}
		EXPECT(p.eps[0].count == 3 &&
		       cum + p.eps[0].slot[KP_PROM_NR_LE] == 3, "+Inf");
		kp_prom_fini(&p);
	}
}

/* "NAME{LABELS} VALUE" lines of @text: the value of series @key. */
struct seen {
	char *key[256];
	double val[256];
	unsigned int n;
};

/*
 * Buckets cumulative in le order, +Inf equal to _count, and no series
 * smaller than in the previous text (@prev, updated).
 */
static void check_hist(const char *text, struct seen *prev)
{
	char *copy = strdup(text), *line, *save = NULL, *sp;
	double last = -1, inf = -1;
	unsigned int k;

	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		sp = strrchr(line, ' ');
		if (!EXPECT(sp, "no value: %s", line))
			break;
		*sp = '\0';
		double v = strtod(sp + 1, NULL);

		if (strstr(line, "_bucket{")) {
			if (strstr(line, "le=\"0.0001\""))
				last = -1;
			EXPECT(v >= last, "not cumulative: %s %g < %g", line, v,
			       last);
			last = v;
			if (strstr(line, "le=\"+Inf\""))
				inf = v;
		} else if (strstr(line, "_count{")) {
			EXPECT(v == inf, "%s %g, +Inf %g", line, v, inf);
		}
		for (k = 0; k < prev->n; k++)
			if (!strcmp(prev->key[k], line))
				break;
		if (k == prev->n) {
			if (!EXPECT(k < 256, "too many series"))
				break;
			prev->key[prev->n] = strdup(line);
			prev->val[prev->n++] = v;
			continue;
		}
		EXPECT(v >= prev->val[k], "%s went down: %g < %g", line, v,
		       prev->val[k]);
		prev->val[k] = v;
	}
	free(copy);
}

/* Random intervals: every series only grows, buckets stay cumulative. */
static void test_monotonic(void)
{
	static const char *const addrs[] = { "10.0.0.1", "10.0.0.2", "::1" };
	struct kprof_tcp_row rows[4];
	struct kp_snapshot snap;
	struct seen seen = { .n = 0 };
	struct kp_prom p;
	unsigned int it, i, k;
	char *text;

	init(&p, KP_PROM_DEFAULT_SERIES);
	for (it = 0; it < 20; it++) {
		memset(&snap, 0, sizeof(snap));
		snap.rows = rows;
		snap.nr_rows = 1 + kp_test_rand() % 4;
		for (i = 0; i < snap.nr_rows; i++) {
			k = kp_test_rand() % 3;
			row(&rows[i], kp_test_rand() % 5,
			    k == 2 ? AF_INET6 : AF_INET, addrs[k], 80 + k,
			    1 + kp_test_rand() % 2, 0, 0);
			for (k = 0; k < 10; k++)
				more(&rows[i], 1 + kp_test_rand() % 3,
				     kp_test_rand() >> (24 + kp_test_rand() % 40));
			snap.requests += rows[i].count;
		}
		snap.samples = 10;
		snap.samples_idle = 4;
		EXPECT(!kp_prom_add(&p, &snap, 1, 1), "add");
		text = render(&p);
		check_hist(text, &seen);
		free(text);
	}
	EXPECT(p.nr_endpoints <= 6, "%zu endpoint series", p.nr_endpoints);
	EXPECT(seen.n > 100, "%u series lines checked", seen.n);
	for (k = 0; k < seen.n; k++)
		free(seen.key[k]);
	kp_prom_fini(&p);
}

static void test_escape(void)
{
	struct kp_prom p;
	char *buf = NULL, *text;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	kp_prom_escape(f, "a\"b\\c\nd\te");
	fclose(f);
	EXPECT(!strcmp(buf, "a\\\"b\\\\c\\nd\te"), "escaped: %s", buf);
	free(buf);

	init(&p, 1);
	p.version = "1.0\"\n\\x";
	p.module_version = "";
	text = render(&p);
	EXPECT(strstr(text, "\nkprof_info{version=\"1.0\\\"\\n\\\\x\",module_version=\"\",api=\"1.2\"} 1\n"),
	       "kprof_info: %.200s", strstr(text, "kprof_info{"));
	/* no series: the endpoints' families are HELP and TYPE alone */
	EXPECT(strstr(text, "# TYPE kprof_tcp_request_duration_seconds histogram\n# HELP "),
	       "histogram family empty");
	EXPECT(strstr(text, "# TYPE kprof_tcp_connect_failures_total counter\n")
	       + strlen("# TYPE kprof_tcp_connect_failures_total counter\n")
	       == text + strlen(text), "connect families last and empty");
	free(text);
	kp_prom_fini(&p);
}

/* IPv6 as inet_ntop writes it, v4-mapped too; IPv4 ignores bytes 4..15. */
static void test_addresses(void)
{
	struct kprof_tcp_row r;
	struct kp_prom p;
	char *text;

	init(&p, 100);
	row(&r, 1, AF_INET6, "2001:db8:0:0:0:0:0:1", 443, KPROF_ROLE_CLIENT, 1, 1000);
	kp_prom_add_row(&p, &r);
	row(&r, 1, AF_INET6, "::ffff:127.0.0.1", 80, KPROF_ROLE_SERVER, 1, 1000);
	kp_prom_add_row(&p, &r);
	row(&r, 1, AF_INET6, "fe80::1:2", 65535, KPROF_ROLE_CLIENT, 1, 1000);
	kp_prom_add_row(&p, &r);
	row(&r, 1, AF_INET, "192.168.1.1", 5432, KPROF_ROLE_CLIENT, 1, 1000);
	kp_prom_add_row(&p, &r);
	r.raddr[9] = 0xaa;		/* junk past the IPv4 address */
	r.stack_id = 2;
	kp_prom_add_row(&p, &r);
	r.role = 0;
	kp_prom_add_row(&p, &r);
	text = render(&p);
	EXPECT(strstr(text, "_count{raddr=\"2001:db8::1\",rport=\"443\",role=\"client\"} 1\n"),
	       "compressed IPv6");
	EXPECT(strstr(text, "_count{raddr=\"::ffff:127.0.0.1\",rport=\"80\",role=\"server\"} 1\n"),
	       "v4-mapped IPv6");
	EXPECT(strstr(text, "_count{raddr=\"fe80::1:2\",rport=\"65535\",role=\"client\"} 1\n"),
	       "link-local IPv6");
	EXPECT(strstr(text, "_count{raddr=\"192.168.1.1\",rport=\"5432\",role=\"client\"} 2\n"),
	       "IPv4 merged across stacks and junk bytes");
	EXPECT(strstr(text, "_count{raddr=\"192.168.1.1\",rport=\"5432\",role=\"unknown\"} 1\n"),
	       "unknown role");
	EXPECT(p.nr_endpoints == 5, "%zu series", p.nr_endpoints);
	/* IPv4 sorts before IPv6 */
	EXPECT(strstr(text, "\"192.168.1.1\"") < strstr(text, "\"2001:db8::1\""),
	       "sorted by family");
	free(text);
	kp_prom_fini(&p);
}

/* Past the cap, new endpoints go to one "other" series per role. */
static void test_cap(void)
{
	struct kprof_tcp_row r;
	struct kp_prom p;
	char addr[32];
	unsigned int i;
	char *text;

	init(&p, 2);
	for (i = 0; i < 10; i++) {
		snprintf(addr, sizeof(addr), "10.0.0.%u", i + 1);
		row(&r, 1, AF_INET, addr, 1000 + i, i % 2 ? KPROF_ROLE_SERVER :
		    KPROF_ROLE_CLIENT, 1, 2000000);
		EXPECT(!kp_prom_add_row(&p, &r), "add");
	}
	/* a known endpoint keeps its series past the cap */
	row(&r, 5, AF_INET, "10.0.0.1", 1000, KPROF_ROLE_CLIENT, 4, 2000000);
	EXPECT(!kp_prom_add_row(&p, &r), "add");
	text = render(&p);
	EXPECT(p.nr_endpoints == 2 && p.nr_eps == 4 && p.folded_rows == 8,
	       "%zu endpoints, %zu series, %" PRIu64 " folded", p.nr_endpoints,
	       p.nr_eps, p.folded_rows);
	EXPECT(strstr(text, "_count{raddr=\"10.0.0.1\",rport=\"1000\",role=\"client\"} 5\n"),
	       "first endpoint");
	EXPECT(strstr(text, "_count{raddr=\"10.0.0.2\",rport=\"1001\",role=\"server\"} 1\n"),
	       "second endpoint");
	EXPECT(!strstr(text, "10.0.0.3"), "third endpoint folded");
	EXPECT(strstr(text, "_count{raddr=\"other\",rport=\"other\",role=\"client\"} 4\n"),
	       "other client");
	EXPECT(strstr(text, "_count{raddr=\"other\",rport=\"other\",role=\"server\"} 4\n"),
	       "other server");
	EXPECT(strstr(text, "\nkprof_tcp_folded_rows_total 8\n") &&
	       strstr(text, "\nkprof_tcp_endpoint_series 2\n") &&
	       strstr(text, "\nkprof_tcp_endpoint_series_max 2\n"), "cap counters");
	EXPECT(strstr(text, "raddr=\"10.0.0.2\"") < strstr(text, "raddr=\"other\""),
	       "other series last");
	free(text);
	kp_prom_fini(&p);

	/* a cap of 0: everything in "other" */
	init(&p, 0);
	row(&r, 1, AF_INET, "10.0.0.1", 1, KPROF_ROLE_CLIENT, 1, 1);
	EXPECT(!kp_prom_add_row(&p, &r), "add");
	EXPECT(p.nr_endpoints == 0 && p.nr_eps == 1 && p.eps[0].other,
	       "cap 0");
	kp_prom_fini(&p);
}

const struct kp_test t_prom[] = {
	{ "prom: exact text of a small case", test_small },
	{ "prom: a module bucket counts under le iff its largest value <= le", test_bucket_rule },
	{ "prom: buckets cumulative, +Inf = _count, series monotonic", test_monotonic },
	{ "prom: label values escaped", test_escape },
	{ "prom: IPv4 and IPv6 endpoints, merged across stacks", test_addresses },
	{ "prom: series cap folds new endpoints into other", test_cap },
	{ NULL, NULL },
};
