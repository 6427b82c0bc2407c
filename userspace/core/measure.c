// SPDX-License-Identifier: GPL-2.0
/*
 * A window measured into a recording: what record and report share.
 */
#include <stdio.h>
#include <string.h>

#include "measure.h"
#include "symbolize.h"
#include "units.h"
#include "util.h"

/* One interval into @rec.  0, or -1 on a fatal error (printed). */
static int take(struct kp_session *s, struct kp_rec *rec)
{
	struct kp_snapshot snap;
	int ret;

	ret = kp_session_snapshot(s, &snap);
	if (ret < 0)
		return -1;
	if (ret > 0)	/* the next window covers this one's time */
		return 0;
	kp_sym_tick(rec->sym);
	ret = kp_rec_add(rec, &snap, !!(s->run & KPROF_RUN_CPU),
			 !!(s->run & KPROF_RUN_TCP));
	kp_snapshot_free(&snap);
	if (ret) {
		kp_err("out of memory");
		return -1;
	}
	return 0;
}

static void tell(kp_measure_progress_fn *progress, void *ctx,
		 uint64_t elapsed_ns, int done)
{
	if (progress)
		progress(ctx, elapsed_ns, done);
}

int kp_measure_start(struct kp_measure *m, const char *cmd,
		     const struct kp_sess_opts *o)
{
	int ret;

	memset(m, 0, sizeof(*m));
	m->sym = kp_sym_new();
	if (!m->sym) {
		kp_err("out of memory");
		return KP_EXIT_FAIL;
	}
	ret = kp_session_start(&m->s, cmd, o);
	if (ret) {
		kp_sym_free(m->sym);
		m->sym = NULL;
		return ret;
	}
	kp_stacks_init(&m->stacks, m->s.fd, m->sym);
	if (kp_rec_init(&m->rec, &m->stacks, m->sym, m->s.tgid)) {
		kp_err("out of memory");
		return kp_measure_end(m, KP_EXIT_FAIL);
	}
	return 0;
}

int kp_measure_end(struct kp_measure *m, int ret)
{
	if (!m->sym)
		return ret;
	ret = kp_session_end(&m->s, ret);
	kp_rec_fini(&m->rec);
	kp_stacks_fini(&m->stacks);
	kp_sym_free(m->sym);
	m->sym = NULL;
	return ret;
}

int kp_measure(struct kp_measure *m, uint64_t duration_ns,
	       const sigset_t *waitmask, kp_measure_progress_fn *progress,
	       void *ctx, int *stopped)
{
	uint64_t t0 = kp_now_ns(), end = t0 + duration_ns;
	uint64_t next = t0, deadline;

	*stopped = 0;
	tell(progress, ctx, 0, 0);
	for (;;) {
		next += KP_MEASURE_TICK_NS;
		deadline = next < end ? next : end;
		if (kp_wait_until(deadline, waitmask))
			*stopped = 1;
		/* Early (a signal) or not, the interval so far counts. */
		if (take(&m->s, &m->rec))
			return -1;
		tell(progress, ctx, (*stopped ? kp_now_ns() : deadline) - t0, 0);
		if (*stopped || deadline == end)
			break;
	}
	tell(progress, ctx, (*stopped ? kp_now_ns() : end) - t0, 1);
	return 0;
}

void kp_measure_line(const char *verb, uint64_t elapsed_ns, uint64_t total_ns,
		     const char *extra, int done)
{
	char a[KP_DURATION_LEN], b[KP_DURATION_LEN];

	fprintf(stderr, "\r\033[Kkprof: %s %s/%s%s", verb,
		kp_fmt_duration(a, sizeof(a), elapsed_ns),
		kp_fmt_duration(b, sizeof(b), total_ns), extra ? extra : "");
	if (done)
		fprintf(stderr, "\n");
	fflush(stderr);
	kp_err_progress(!done);
}
