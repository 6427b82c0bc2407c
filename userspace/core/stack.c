// SPDX-License-Identifier: GPL-2.0
/* kprof reader: stacks by ID, see stack.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev.h"
#include "stack.h"
#include "util.h"

/* Attempts at symbolizing a user frame that came out "[unknown]". */
#define KP_SYM_TRIES	3

void kp_stacks_init(struct kp_stacks *c, int fd, struct kp_sym *sym)
{
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->sym = sym;
}

static void info_free(struct kp_stack_info *si)
{
	unsigned int i;

	for (i = 0; i < KPROF_MAX_KERNEL_FRAMES; i++)
		free(si->kernel[i]);
	for (i = 0; i < KPROF_MAX_USER_FRAMES; i++) {
		free(si->user[i]);
		free(si->user_func[i]);
	}
	free(si->why);
	free(si);
}

void kp_stacks_fini(struct kp_stacks *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		info_free(c->v[i]);
	free(c->v);
	c->v = NULL;
	c->n = c->cap = 0;
}

int kp_stack_query(int fd, uint32_t id, struct kprof_stack_query *q,
		   char *err, size_t errlen)
{
	int ret = kprof_get_stack(fd, id, q);

	if (ret)
		return ret;
	if (q->size < KPROF_STACK_QUERY_SIZE_VER0) {
		snprintf(err, errlen, "KPROF_IOC_GET_STACK filled only %u bytes",
			 q->size);
		return -EBADMSG;
	}
	if (q->stack.id != id) {
		snprintf(err, errlen, "KPROF_IOC_GET_STACK for ID %u answered ID %u",
			 id, q->stack.id);
		return -EBADMSG;
	}
	return kp_stack_check(&q->stack, q->ksyms, sizeof(q->ksyms), err,
			      errlen);
}

/* Fill @si from a checked @st whose kernel frames are in @strings. */
static int info_fill(struct kp_stack_info *si, const struct kprof_stack *st,
		     const char *strings)
{
	unsigned int i;

	si->tgid = st->tgid;
	snprintf(si->comm, sizeof(si->comm), "%.*s", (int)sizeof(st->comm),
		 st->comm);
	/* a task names itself: nothing it chose reaches a terminal raw */
	kp_text_sanitize(si->comm);
	si->nr_kernel = st->nr_kernel;
	si->nr_user = st->nr_user;
	si->ksyms_missing = !st->nr_kernel &&
			    st->ksyms_off == KPROF_KSYMS_MISSING;
	for (i = 0; i < st->nr_kernel; i++) {
		si->kernel[i] = strdup(kp_stack_ksym(st, strings, i));
		if (!si->kernel[i])
			return -ENOMEM;
		kp_text_sanitize(si->kernel[i]);
	}
	memcpy(si->user_ips, st->user_ips, sizeof(si->user_ips));
	return 0;
}

static struct kp_stack_info *info_load(struct kp_stacks *c, uint32_t id,
				       const struct kp_snapshot *snap)
{
	const struct kprof_stack *st = snap ? kp_snapshot_stack(snap, id) : NULL;
	struct kprof_stack_query *q = NULL;
	struct kp_stack_info *si;
	char why[KP_SNAP_ERR_LEN] = "";
	int ret;

	si = calloc(1, sizeof(*si));
	if (!si)
		return NULL;
	si->id = id;
	if (st) {
		ret = info_fill(si, st, snap->strings);
	} else {
		q = malloc(sizeof(*q));
		if (!q) {
			ret = -ENOMEM;
			goto out;
		}
		ret = kp_stack_query(c->fd, id, q, why, sizeof(why));
		if (!ret)
			ret = info_fill(si, &q->stack, q->ksyms);
	}
out:
	free(q);
	if (ret == -ENOMEM) {
		info_free(si);
		return NULL;
	}
	si->err = ret;
	if (ret == -EBADMSG) {
		si->why = strdup(why);
		if (!si->why) {
			info_free(si);
			return NULL;
		}
	}
	return si;
}

struct kp_stack_info *kp_stacks_get(struct kp_stacks *c, uint32_t id,
				    const struct kp_snapshot *snap)
{
	struct kp_stack_info *si;
	size_t lo, hi, mid;

	if (snap && snap->stack_resets != c->stack_resets) {
		kp_stacks_fini(c);
		c->stack_resets = snap->stack_resets;
	}
	lo = 0;
	hi = c->n;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c->v[mid]->id == id)
			return c->v[mid];
		if (c->v[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (KP_GROW(c->v, c->n, c->cap))
		return NULL;
	si = info_load(c, id, snap);
	if (!si)
		return NULL;
	memmove(&c->v[lo + 1], &c->v[lo], (c->n - lo) * sizeof(*c->v));
	c->v[lo] = si;
	c->n++;
	return si;
}

const char *kp_stack_user(struct kp_stacks *c, struct kp_stack_info *si,
			  unsigned int i)
{
	struct kp_sym_res res;
	char buf[KP_SYM_LEN + 160];
	char *text, *func = NULL;
	int found;

	if (i >= si->nr_user)
		return KP_SYM_UNKNOWN;
	if (si->user[i] && (si->user_tries[i] >= KP_SYM_TRIES ||
			    si->user_func[i]))
		return si->user[i];
	/* Leaf frame: the interrupted ip; the others: return addresses. */
	found = kp_sym_lookup(c->sym, si->tgid, si->user_ips[i], i > 0, &res);
	si->user_tries[i]++;
	if (found < 0 && si->user[i])
		return si->user[i];
	kp_sym_format(&res, found, buf, sizeof(buf));
	text = strdup(buf);
	if (found > 0)
		func = strdup(res.func);
	if (!text || (found > 0 && !func)) {
		free(text);
		free(func);
		return si->user[i] ? si->user[i] : KP_SYM_UNKNOWN;
	}
	free(si->user[i]);
	free(si->user_func[i]);
	si->user[i] = text;
	si->user_func[i] = func;
	return text;
}

const char *kp_stack_user_func(struct kp_stacks *c, struct kp_stack_info *si,
			       unsigned int i)
{
	if (i >= si->nr_user)
		return NULL;
	kp_stack_user(c, si, i);
	return si->user_func[i];
}

unsigned int kp_stack_leaf(struct kp_stacks *c, struct kp_stack_info *si,
			   const char **out, unsigned int max)
{
	unsigned int i, n = 0;

	if (si->err)
		return 0;
	if (si->ksyms_missing && n < max)
		out[n++] = KP_KSYMS_MISSING_TEXT;
	for (i = 0; i < si->nr_kernel && n < max; i++)
		out[n++] = si->kernel[i];
	for (i = 0; i < si->nr_user && n < max; i++)
		out[n++] = kp_stack_user(c, si, i);
	return n;
}

unsigned int kp_stack_top(struct kp_stacks *c, struct kp_stack_info *si,
			  const char **out, unsigned int max)
{
	unsigned int i, n = 0;

	if (si->err)
		return 0;
	if (si->nr_user) {
		for (i = 0; i < si->nr_user && n < max; i++)
			out[n++] = kp_stack_user(c, si, i);
	} else {
		for (i = 0; i < si->nr_kernel && n < max; i++)
			out[n++] = si->kernel[i];
	}
	return n;
}
