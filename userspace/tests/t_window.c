// SPDX-License-Identifier: GPL-2.0
/*
 * Tests: a reader's windows over cumulative counts (window.c) against a
 * simulated module whose keys grow, go idle, are evicted and come back.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "hist.h"
#include "row.h"
#include "window.h"
#include "unit.h"

#define KEYS	24

/* The simulated module: cumulative rows, some of them evicted. */
struct sim {
	struct kprof_tcp_row rows[KEYS];
	struct kprof_cpu_row cpu[KEYS];
	int live[KEYS], clive[KEYS];
	uint64_t requests, samples, seq;
	/* what happened since the reader's last read, per key */
	uint64_t want_count[KEYS], want_sum[KEYS], want_min[KEYS],
		 want_max[KEYS], want_samples[KEYS];
};

static void sim_request(struct sim *s, unsigned int k, uint64_t v)
{
	struct kprof_tcp_row *r = &s->rows[k];

	if (!s->live[k]) {
		memset(r, 0, sizeof(*r));
		r->stack_id = k % 5;
		r->family = 2;
		r->rport = 1000 + k;
		r->raddr[0] = 10;
		r->raddr[3] = k;
		r->role = 1 + k % 2;
		r->min_ns = UINT64_MAX;
		r->birth = s->seq;
		s->live[k] = 1;
	}
	r->count++;
	r->sum_ns += v;
	r->min_ns = v < r->min_ns ? v : r->min_ns;
	r->max_ns = v > r->max_ns ? v : r->max_ns;
	r->hist[kp_hist_index(v)]++;
	s->requests++;
	if (!s->want_count[k]++ || v < s->want_min[k])
		s->want_min[k] = v;
	if (v > s->want_max[k])
		s->want_max[k] = v;
	s->want_sum[k] += v;
}

static void sim_sample(struct sim *s, unsigned int k)
{
	if (!s->clive[k]) {
		memset(&s->cpu[k], 0, sizeof(s->cpu[k]));
		s->cpu[k].stack_id = k;
		s->cpu[k].tgid = 100 + k % 3;
		s->cpu[k].birth = s->seq;
		s->clive[k] = 1;
	}
	s->cpu[k].samples++;
	s->samples++;
	s->want_samples[k]++;
}

/* The region as a reader copies it: live rows in a shuffled order. */
static void sim_copy(struct sim *s, struct kp_snapshot *cum)
{
	unsigned int k, n = 0, c = 0;

	memset(cum, 0, sizeof(*cum));
	cum->rows = calloc(KEYS, sizeof(*cum->rows));
	cum->cpu_rows = calloc(KEYS, sizeof(*cum->cpu_rows));
	cum->stacks = calloc(1, sizeof(*cum->stacks));
	cum->strings = calloc(1, 1);
	for (k = 0; k < KEYS; k++) {
		unsigned int i = (k * 7 + s->seq) % KEYS;

		if (s->live[i])
			cum->rows[n++] = s->rows[i];
		if (s->clive[i])
			cum->cpu_rows[c++] = s->cpu[i];
	}
	cum->nr_rows = n;
	cum->nr_cpu_rows = c;
	cum->requests = s->requests;
	cum->samples = s->samples;
	cum->end_ns = s->seq * 1000;
}

static const struct kprof_tcp_row *find_row(const struct kp_snapshot *w,
					    unsigned int k)
{
	uint32_t i;

	for (i = 0; i < w->nr_rows; i++)
		if (w->rows[i].rport == 1000 + k)
			return &w->rows[i];
	return NULL;
}

static const struct kprof_cpu_row *find_cpu(const struct kp_snapshot *w,
					    unsigned int k)
{
	uint32_t i;

	for (i = 0; i < w->nr_cpu_rows; i++)
		if (w->cpu_rows[i].stack_id == k)
			return &w->cpu_rows[i];
	return NULL;
}

/*
 * Many reads; between them random requests and samples, and evictions
 * of keys the reader has read since their last change (the module's
 * rule).  Every window must hold exactly what happened in it.
 */
static void test_windows_exact(void)
{
	static struct sim s;
	struct kp_window w = { 0 };
	int changed[KEYS] = { 0 }, cchanged[KEYS] = { 0 };
	unsigned int read, k, bad = 0, checked = 0;
	uint64_t total = 0, seen = 0;
	struct kp_snapshot cum, win;

	memset(&s, 0, sizeof(s));
	s.seq = 1;
	sim_copy(&s, &cum);
	EXPECT(kp_window_next(&w, &cum, &win) == 1, "first read: a baseline");
	for (read = 0; read < 400; read++) {
		unsigned int n = kp_test_rand() % 50;

		s.seq++;
		/* evict what the reader has seen unchanged */
		for (k = 0; k < KEYS; k++) {
			if (s.live[k] && !changed[k] && kp_test_rand() % 3 == 0)
				s.live[k] = 0;
			if (s.clive[k] && !cchanged[k] && kp_test_rand() % 3 == 0)
				s.clive[k] = 0;
		}
		memset(changed, 0, sizeof(changed));
		memset(cchanged, 0, sizeof(cchanged));
		while (n--) {
			k = kp_test_rand() % KEYS;
			/* values 0 .. ~2^30, spread over many buckets */
			sim_request(&s, k, kp_test_rand() >> (34 + kp_test_rand() % 30));
			changed[k] = 1;
			total++;
			if (kp_test_rand() % 2) {
				sim_sample(&s, k);
				cchanged[k] = 1;
			}
		}
		sim_copy(&s, &cum);
		if (kp_window_next(&w, &cum, &win)) {
			bad++;
			break;
		}
		seen += win.requests;
		for (k = 0; k < KEYS; k++) {
			const struct kprof_tcp_row *r = find_row(&win, k);
			const struct kprof_cpu_row *c = find_cpu(&win, k);
			uint64_t c_want = s.want_count[k];

			checked++;
			if (!c_want != !r ||
			    (r && (r->count != c_want ||
				   r->sum_ns != s.want_sum[k] ||
				   kp_hist_total(r->hist, KP_HIST_BUCKETS) != c_want ||
				   r->min_ns > s.want_min[k] ||
				   r->max_ns < s.want_max[k] ||
				   kp_hist_index(r->min_ns) != kp_hist_index(s.want_min[k]) ||
				   kp_hist_index(r->max_ns) != kp_hist_index(s.want_max[k])))) {
				if (bad++ < 3)
					kp_test_diag("read %u key %u: want %llu requests, got %llu",
					     read, k, (unsigned long long)c_want,
					     r ? (unsigned long long)r->count : 0ULL);
			}
			if (!s.want_samples[k] != !c ||
			    (c && c->samples != s.want_samples[k])) {
				if (bad++ < 3)
					kp_test_diag("read %u key %u: want %llu samples",
					     read, k,
					     (unsigned long long)s.want_samples[k]);
			}
		}
		memset(s.want_count, 0, sizeof(s.want_count));
		memset(s.want_sum, 0, sizeof(s.want_sum));
		memset(s.want_min, 0, sizeof(s.want_min));
		memset(s.want_max, 0, sizeof(s.want_max));
		memset(s.want_samples, 0, sizeof(s.want_samples));
		kp_snapshot_free(&win);
	}
	kp_window_reset(&w);
	EXPECT(!bad, "%u of %u key windows wrong", bad, checked);
	EXPECT(seen == total, "windows' requests %llu, made %llu",
	       (unsigned long long)seen, (unsigned long long)total);
}

/* A key with the same birth and fewer counts cannot be a delta. */
static void test_reset_counts_in_full(void)
{
	static struct sim s;
	struct kp_window w = { 0 };
	struct kp_snapshot cum, win;
	const struct kprof_tcp_row *r;

	memset(&s, 0, sizeof(s));
	s.seq = 1;
	sim_request(&s, 3, 100);
	sim_request(&s, 3, 100);
	sim_copy(&s, &cum);
	kp_window_next(&w, &cum, &win);
	/* evicted and back, at another birth, with fewer counts */
	s.live[3] = 0;
	s.seq = 5;
	sim_request(&s, 3, 7);
	sim_copy(&s, &cum);
	EXPECT(!kp_window_next(&w, &cum, &win), "second read");
	r = find_row(&win, 3);
	EXPECT(r && r->count == 1 && r->min_ns == 7 && r->max_ns == 7,
	       "a reborn key counts in full, exact min and max");
	EXPECT(win.start_ns == 1000 && win.end_ns == 5000,
	       "window from the last read to this one: %llu..%llu",
	       (unsigned long long)win.start_ns,
	       (unsigned long long)win.end_ns);
	kp_snapshot_free(&win);
	kp_window_reset(&w);
}

/*
 * Health counters (API 3.2) difference like the requests, and a row with
 * health news but no new request (or none ever) is in the window.
 */
static void test_health(void)
{
	static struct sim s;
	struct kp_window w = { 0 };
	struct kp_snapshot cum, win;
	const struct kprof_tcp_row *r;

	memset(&s, 0, sizeof(s));
	s.seq = 1;
	sim_request(&s, 2, 100);
	s.rows[2].retransmits = 4;
	sim_copy(&s, &cum);
	kp_window_next(&w, &cum, &win);
	/* no request on key 2: three more retransmits, a reset */
	s.rows[2].retransmits = 7;
	s.rows[2].retransmits_rto = 1;
	s.rows[2].resets_received = 1;
	/* key 5: retransmits alone, no request ever */
	s.rows[5].family = 2;
	s.rows[5].rport = 1005;
	s.rows[5].min_ns = UINT64_MAX;
	s.rows[5].birth = s.seq;
	s.rows[5].retransmits = 2;
	s.live[5] = 1;
	s.seq = 2;
	sim_copy(&s, &cum);
	EXPECT(!kp_window_next(&w, &cum, &win), "second read");
	r = find_row(&win, 2);
	EXPECT(r && !r->count && r->retransmits == 3 &&
	       r->retransmits_rto == 1 && r->resets_received == 1,
	       "health news without a request: its delta");
	r = find_row(&win, 5);
	EXPECT(r && !r->count && r->retransmits == 2,
	       "a row of health alone counts in full");
	kp_snapshot_free(&win);
	/* nothing new: no row */
	s.seq = 3;
	sim_copy(&s, &cum);
	EXPECT(!kp_window_next(&w, &cum, &win), "third read");
	EXPECT(!find_row(&win, 2) && !find_row(&win, 5),
	       "unchanged health: not in the window");
	kp_snapshot_free(&win);
	kp_window_reset(&w);
}

static void set_row(struct kprof_tcp_row *r, uint32_t stack, uint16_t port,
		    uint8_t role, uint64_t v, uint32_t n)
{
	memset(r, 0, sizeof(*r));
	r->stack_id = stack;
	r->family = AF_INET;
	r->rport = port;
	r->role = role;
	r->count = n;
	r->sum_ns = v * n;
	r->min_ns = r->max_ns = v;
	r->hist[kp_hist_index(v)] = n;
}

/* A reader's own filters over rows another reader's made run. */
static void test_filter(void)
{
	struct kprof_config c = { .roles = 1U << KPROF_ROLE_CLIENT,
				  .nr_rports = 1, .rports = { 80 },
				  .threshold_ns = 100 };
	struct kprof_tcp_row rows[5];
	struct kp_snapshot w = { .rows = rows, .nr_rows = 5 };

	set_row(&rows[0], 5, 80, KPROF_ROLE_CLIENT, 50, 3);	/* folds */
	set_row(&rows[1], 0, 80, KPROF_ROLE_CLIENT, 20, 2);
	set_row(&rows[2], 6, 80, KPROF_ROLE_CLIENT, 150, 1);	/* stays */
	set_row(&rows[3], 0, 443, KPROF_ROLE_CLIENT, 20, 7);	/* port */
	set_row(&rows[4], 0, 80, KPROF_ROLE_SERVER, 20, 9);	/* role */
	w.threshold_ns = 100;	/* the module ran at ours: nothing folds */
	kp_window_filter(&w, &c, 0);
	EXPECT(w.nr_rows == 3 && rows[0].stack_id == 5, "%u rows", w.nr_rows);

	set_row(&rows[0], 5, 80, KPROF_ROLE_CLIENT, 50, 3);
	set_row(&rows[1], 0, 80, KPROF_ROLE_CLIENT, 20, 2);
	set_row(&rows[2], 6, 80, KPROF_ROLE_CLIENT, 150, 1);
	set_row(&rows[3], 0, 443, KPROF_ROLE_CLIENT, 20, 7);
	set_row(&rows[4], 0, 80, KPROF_ROLE_SERVER, 20, 9);
	w.nr_rows = 5;
	w.threshold_ns = 0;	/* another reader's: stacks below ours */
	kp_window_filter(&w, &c, 0);
	EXPECT(w.nr_rows == 2, "%u rows", w.nr_rows);
	EXPECT(rows[0].stack_id == 0 && rows[0].count == 5 &&
	       rows[0].sum_ns == 190 && rows[0].min_ns == 20 &&
	       rows[0].max_ns == 50 &&
	       kp_hist_total(rows[0].hist, KP_HIST_BUCKETS) == 5,
	       "folded: stack %u count %llu", rows[0].stack_id,
	       (unsigned long long)rows[0].count);
	EXPECT(rows[1].stack_id == 6 && rows[1].count == 1, "slow row kept");
}

/*
 * API 3.0 views: rows of one key apart by the views their requests
 * passed.  A reader with view 2 keeps the rows marked with it, added up
 * into one per key; a reader with none (0, KPROF_VIEW_NONE) adds up all.
 */
static void test_filter_views(void)
{
	static const uint8_t marks[4] = { 0, 1, 2, 3 };	/* views 1, 2 */
	static const uint32_t counts[4] = { 1, 2, 4, 8 };
	static const struct {
		uint8_t view;
		uint64_t count;
	} readers[] = {
		{ 0, 15 }, { 1, 10 }, { 2, 12 }, { 3, 0 },
		{ KPROF_VIEW_NONE, 15 },
	};
	struct kprof_config c = { .threshold_ns = 0 };
	struct kprof_tcp_row rows[5];
	struct kp_snapshot w = { .rows = rows };
	unsigned int i, r, n80;

	for (r = 0; r < sizeof(readers) / sizeof(readers[0]); r++) {
		for (i = 0; i < 4; i++) {
			set_row(&rows[i], 0, 80, KPROF_ROLE_CLIENT, 20,
				counts[i]);
			rows[i].views = marks[i];
		}
		set_row(&rows[4], 0, 443, KPROF_ROLE_CLIENT, 20, 16);
		rows[4].views = 2;
		w.nr_rows = 5;
		kp_window_filter(&w, &c, readers[r].view);
		n80 = 0;
		for (i = 0; i < w.nr_rows; i++) {
			EXPECT(!rows[i].views, "view %u: row %u keeps views %u",
			       readers[r].view, i, rows[i].views);
			if (rows[i].rport != 80)
				continue;
			n80++;
			EXPECT(rows[i].count == readers[r].count &&
			       kp_hist_total(rows[i].hist, KP_HIST_BUCKETS) ==
			       readers[r].count,
			       "view %u: port 80 counted %llu of %llu",
			       readers[r].view,
			       (unsigned long long)rows[i].count,
			       (unsigned long long)readers[r].count);
		}
		EXPECT(n80 == !!readers[r].count, "view %u: %u rows of port 80",
		       readers[r].view, n80);
		/* port 443's requests passed view 2 alone */
		EXPECT(w.nr_rows - n80 == (readers[r].view == 1 ||
					   readers[r].view == 3 ? 0u : 1u),
		       "view %u: %u rows", readers[r].view, w.nr_rows);
	}
}

/* The same for CPU rows: a view keeps its samples, one row per key. */
static void test_filter_cpu_views(void)
{
	static const struct {
		uint8_t view;
		uint32_t rows;
		uint64_t first;
	} readers[] = {
		{ 0, 2, 12 }, { 1, 1, 8 }, { 2, 2, 5 }, { KPROF_VIEW_NONE, 2, 12 },
	};
	struct kprof_config c = { .threshold_ns = 0 };
	struct kprof_cpu_row rows[4];
	struct kp_snapshot w = { .cpu_rows = rows };
	unsigned int r;

	for (r = 0; r < sizeof(readers) / sizeof(readers[0]); r++) {
		memset(rows, 0, sizeof(rows));
		rows[0] = (struct kprof_cpu_row){ .stack_id = 1, .tgid = 10,
						  .samples = 3, .views = 1 };
		rows[1] = (struct kprof_cpu_row){ .stack_id = 1, .tgid = 10,
						  .samples = 4 };
		rows[2] = (struct kprof_cpu_row){ .stack_id = 1, .tgid = 10,
						  .samples = 5, .views = 3 };
		rows[3] = (struct kprof_cpu_row){ .stack_id = 2, .tgid = 11,
						  .samples = 6, .views = 2 };
		w.nr_cpu_rows = 4;
		w.nr_rows = 0;
		kp_window_filter(&w, &c, readers[r].view);
		EXPECT(w.nr_cpu_rows == readers[r].rows &&
		       rows[0].stack_id == 1 && !rows[0].views &&
		       rows[0].samples == readers[r].first,
		       "view %u: %u rows, the first with %llu samples",
		       readers[r].view, w.nr_cpu_rows,
		       (unsigned long long)rows[0].samples);
	}
}

/* kp_row_merge(), the one sum of rows every layer uses. */
static void test_row_merge(void)
{
	static struct kprof_tcp_row d, r;

	/* a sum that starts empty takes the first row with requests */
	memset(&d, 0, sizeof(d));
	memset(&r, 0, sizeof(r));
	r.min_ns = 5;	/* not a minimum: no requests */
	r.retransmits = 3;
	kp_row_merge(&d, &r);
	EXPECT(d.count == 0 && d.retransmits == 3, "%llu %llu",
	       (unsigned long long)d.count,
	       (unsigned long long)d.retransmits);
	r.count = 2;
	r.sum_ns = 300;
	r.min_ns = 100;
	r.max_ns = 200;
	r.hist[7] = UINT32_MAX - 1;
	kp_row_merge(&d, &r);
	EXPECT(d.min_ns == 100 && d.max_ns == 200 && d.count == 2 &&
	       d.sum_ns == 300, "%llu %llu", (unsigned long long)d.min_ns,
	       (unsigned long long)d.max_ns);
	/* a row without requests lowers no minimum, whatever it carries */
	memset(&r, 0, sizeof(r));
	r.min_ns = 1;
	r.resets_received = 1;
	kp_row_merge(&d, &r);
	EXPECT(d.min_ns == 100 && d.resets_received == 1, "%llu",
	       (unsigned long long)d.min_ns);
	/* one with requests does; the histogram saturates, never wraps */
	r.count = 1;
	r.sum_ns = 50;
	r.min_ns = r.max_ns = 50;
	r.hist[7] = 5;
	kp_row_merge(&d, &r);
	EXPECT(d.min_ns == 50 && d.max_ns == 200 && d.count == 3 &&
	       d.sum_ns == 350, "%llu", (unsigned long long)d.min_ns);
	EXPECT(d.hist[7] == UINT32_MAX, "%u", d.hist[7]);
}

const struct kp_test t_window[] = {
	{ "row: one sum of rows: minimum of rows with requests, saturating histogram", test_row_merge },
	{ "window: a reader's view keeps its samples, one row per key", test_filter_cpu_views },
	{ "window: a reader's filters; stacks below its threshold folded", test_filter },
	{ "window: a reader's view keeps its requests, one row per key", test_filter_views },
	{ "window: 400 reads under eviction and rebirth, each window exact", test_windows_exact },
	{ "window: a reborn key is a counter reset, counted in full", test_reset_counts_in_full },
	{ "window: health counters difference; health alone is news", test_health },
	{ NULL, NULL },
};
