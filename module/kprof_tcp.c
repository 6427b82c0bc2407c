// SPDX-License-Identifier: GPL-2.0
/*
 * TCP request -> response latency, from ftrace_ops and kprobes.
 *
 * Per socket, the first tcp_sendmsg() after the last completed response
 * starts a request; the first receive cleanup with copied > 0 after that
 * completes it, exactly once.  Only socket addresses, ports, timestamps and
 * stacks are read: never message data.
 *
 * The in-flight state must be global (send and receive may run on
 * different CPUs): a preallocated open-addressing table keyed by the
 * socket pointer, claimed with cmpxchg and freed when the socket is
 * destroyed, so reused socket memory never meets an old timestamp.  A
 * request still in flight when the socket is closed counts as abandoned;
 * a tracked socket keeps its slot from the close to its destruction, so
 * that what the kernel still does for it (the reset a close sends, the
 * retransmits of the data left behind) counts on its endpoint's row.
 * Completed requests go to the per-CPU interval tables (kprof_agg.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#define KPROF_UNIT KPROF_UNIT_TCP

#include <linux/atomic.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>
#include <net/sock.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>

#include "kprof_agg.h"
#include "kprof_config.h"
#include "kprof_guard.h"
#include "kprof_stack.h"
#include "kprof_tcp.h"
#include "compat/kprof_compat_cgroup.h"
#include "compat/kprof_compat_ftrace.h"
#include "compat/kprof_compat_kprobes.h"
#include "compat/kprof_compat_mm.h"
#include "compat/kprof_compat_rcu.h"

#define KPROF_SK_FREE		0UL
#define KPROF_SK_TOMB		1UL
/* a dead slot being reclaimed: passed over like TOMB, never claimed */
#define KPROF_SK_RECLAIM	2UL
/* low bit of a socket's address: its slot is being set up, not yet seen */
#define KPROF_SK_CLAIM		1UL
#define KPROF_FLIGHT_PROBES	32
#define KPROF_FLIGHT_TRIES	4
#define KPROF_FLIGHT_SPIN	10000

struct kprof_flight {
	unsigned long sk;	/* KPROF_SK_FREE, KPROF_SK_TOMB or a socket */
	u64 start_ns;		/* 0: no request in flight */
	u32 copied_seq;		/* the socket's copied_seq at the start */
	u8 role;		/* KPROF_ROLE_CLIENT once seen connecting */
	u8 views;		/* the views the request passed at its start */
	u8 tracked;		/* KPROF_FL_*: is the socket wanted? */
	u8 retx;		/* retransmitted while the request is in flight */
	u32 vgen;		/* kprof_run_config.gen of that check */
	u32 row;		/* kprof_agg_tcp_add()'s hint, or KPROF_CONN_* */
};

/*
 * While a timed connect is under way, kprof_flight.row holds its start in
 * units of 2^KPROF_CONN_SHIFT ns, modulo 2^31, with KPROF_CONN_BIT set
 * (never U32_MAX, "no hint").  No request can complete before the socket
 * is established, so the hint is not needed until then, and a hint never
 * has that bit (a table is far smaller).  A flight stays 32 bytes.
 */
#define KPROF_CONN_BIT		BIT(31)
#define KPROF_CONN_SHIFT	8

/* kprof_flight.tracked */
#define KPROF_FL_UNTRACKED	0
#define KPROF_FL_TRACKED	1	/* a request the configuration wanted */
#define KPROF_FL_CLOSED		2	/* tracked, then closed: until destroyed */

static struct kprof_flight *kprof_flights;
static atomic_t kprof_nr_flights = ATOMIC_INIT(0);
/* flights of closed sockets (KPROF_FL_CLOSED) */
static atomic_t kprof_nr_closed = ATOMIC_INIT(0);
/* slots that are TOMB or RECLAIM */
static atomic_t kprof_nr_dead = ATOMIC_INIT(0);

/*
 * True while TCP tracing runs: set by the start once the hooks are
 * registered, cleared by the stop before it unregisters them.
 */
static bool kprof_running;
static u32 kprof_attached;
/*
 * the tracepoints, and the kprobes standing in for missing ones,
 * registered while TCP tracing runs (KPROF_ATTACH_TP_*, KPROF_ATTACH_KP_*)
 */
static u32 kprof_tp_armed;

/* ---- the in-flight table ---- */

static u32 kprof_flight_slot(const struct sock *sk)
{
	return hash_ptr(sk, 32) % kprof_inflight_max;
}

static __always_inline struct kprof_flight *
kprof_flight_find(const struct sock *sk)
{
	u32 slot = kprof_flight_slot(sk), i;

	for (i = 0; i < KPROF_FLIGHT_PROBES && i < kprof_inflight_max; i++) {
		/* pairs with the publication in kprof_flight_get() */
		unsigned long cur = smp_load_acquire(&kprof_flights[slot].sk);

		if (cur == (unsigned long)sk)
			return &kprof_flights[slot];
		if (cur == KPROF_SK_FREE)
			return NULL;
		if (++slot == kprof_inflight_max)
			slot = 0;
	}
	return NULL;
}

/* The @i-th slot of the probe sequence that starts at @home. */
static struct kprof_flight *kprof_flight_at(u32 home, u32 i)
{
	return &kprof_flights[(home + i) % kprof_inflight_max];
}

/* Wait (bounded) while @f is claimed as @claim; its word then. */
static unsigned long kprof_flight_wait(struct kprof_flight *f,
				       unsigned long claim)
{
	unsigned long cur;
	unsigned int spin;

	for (spin = 0; spin < KPROF_FLIGHT_SPIN; spin++) {
		/* pairs with the publishing store: its fields are set up */
		cur = smp_load_acquire(&f->sk);
		if (cur != claim)
			return cur;
		cpu_relax();
	}
	return claim;
}

/*
 * Dead slots at the end of a probe sequence become free again, from
 * @slot backwards: a lookup stops at the first free slot, so without
 * this every socket ever closed would lengthen the lookups of untracked
 * sockets until STOP.  A dead slot can go only when the next one is
 * free, and in three steps, so that no lookup ever meets a hole before
 * a live slot and no insert lands behind one:
 *
 *  1. the next slot is free; the dead slot becomes RECLAIM (lookups pass
 *     over it as over a dead one, inserters do not take it);
 *  2. the next slot is still free, else it was just claimed: back to
 *     TOMB, and stop;
 *  3. RECLAIM becomes free.
 *
 * An inserter claims a slot, then searches its sequence again, back from
 * its slot to the home slot, and gives its claim up if it meets a free or
 * RECLAIM slot.  Its claim (a full barrier) comes before that search;
 * step 1 (a full barrier) comes before step 2's read: of the two, one
 * sees the other, so either the inserter gives up or the slot just before
 * its claim goes back to TOMB.  That slot then stays in use while the
 * claim does, so the one before it cannot be freed either, and so on
 * back: searching backwards, a slot seen in use stays in use (searching
 * forwards, a slot already passed could be freed and the next refilled
 * before it is read).
 */
static void kprof_flight_reclaim(u32 slot)
{
	u32 i, next;

	for (i = 0; i < KPROF_FLIGHT_PROBES && i < kprof_inflight_max; i++) {
		struct kprof_flight *f = &kprof_flights[slot];

		next = slot + 1 == kprof_inflight_max ? 0 : slot + 1;
		if (READ_ONCE(kprof_flights[next].sk) != KPROF_SK_FREE ||
		    cmpxchg(&f->sk, KPROF_SK_TOMB, KPROF_SK_RECLAIM) !=
		    KPROF_SK_TOMB)
			return;
		if (READ_ONCE(kprof_flights[next].sk) != KPROF_SK_FREE) {
			WRITE_ONCE(f->sk, KPROF_SK_TOMB);
			return;
		}
		WRITE_ONCE(f->sk, KPROF_SK_FREE);
		atomic_dec(&kprof_nr_dead);
		slot = slot ? slot - 1 : kprof_inflight_max - 1;
	}
}

/*
 * The slot of @sk, claimed if it has none; NULL when its probe sequence
 * is full or stays contended.  Task context only (sends and connects):
 * waiting for another CPU's claim is bounded and short.
 *
 * Two CPUs may insert one socket at once (two threads' first sends on
 * it, a MSG_FASTOPEN send and the connect inside it).  A slot is claimed
 * as sk | KPROF_SK_CLAIM, which lookups pass over, cleared, and published
 * as sk only after the whole sequence was searched once more.  A claimer
 * that then meets the socket published elsewhere, or claimed earlier in
 * the sequence, gives its claim up; one that meets a claim later in the
 * sequence waits for it to be published (and uses it) or given up.  Of
 * two claims, the cmpxchg of each comes before its second search, so at
 * least one claimer sees the other: one slot wins.  The second search
 * also gives the claim up on a hole before it (kprof_flight_reclaim()).
 */
static struct kprof_flight *kprof_flight_get(const struct sock *sk)
{
	unsigned long want = (unsigned long)sk, claim = want | KPROF_SK_CLAIM;
	u32 home = kprof_flight_slot(sk), i, mine, tries;
	u32 n = min_t(u32, KPROF_FLIGHT_PROBES, kprof_inflight_max);
	struct kprof_flight *f, *g;
	unsigned long cur, seen;
	bool hit;

	for (tries = 0; tries < KPROF_FLIGHT_TRIES; tries++) {
		/* the socket's slot, or the first free or dead one */
		mine = n;
		seen = KPROF_SK_FREE;
		for (i = 0; i < n; i++) {
			g = kprof_flight_at(home, i);
			cur = READ_ONCE(g->sk);
			/* another CPU is setting it up: wait, search again */
			if (cur == claim)
				cur = kprof_flight_wait(g, claim);
			if (cur == want)
				return g;
			if (READ_ONCE(g->sk) != cur)
				break;
			if ((cur == KPROF_SK_FREE || cur == KPROF_SK_TOMB) &&
			    mine == n) {
				mine = i;
				seen = cur;
			}
			if (cur == KPROF_SK_FREE)
				break;
		}
		if (i < n && cur != KPROF_SK_FREE)
			continue;
		if (mine == n)
			return NULL;
		f = kprof_flight_at(home, mine);
		if (cmpxchg(&f->sk, seen, claim) != seen)
			continue;
		if (seen == KPROF_SK_TOMB)
			atomic_dec(&kprof_nr_dead);

		/*
		 * Search again: back from mine to the home slot, then on to
		 * the first free slot.  Anyone else on the same socket?  And
		 * is the sequence before mine unbroken?  A slot is freed
		 * only while the slot after it is free (see
		 * kprof_flight_reclaim()), and mine is taken: going back,
		 * each slot seen in use stays in use until mine goes.
		 */
		hit = false;
		for (i = mine; i-- > 0 && !hit;) {
			g = kprof_flight_at(home, i);
			/* a slot we may return: pairs with its publication */
			cur = smp_load_acquire(&g->sk);
			hit = cur == KPROF_SK_FREE || cur == KPROF_SK_RECLAIM ||
			      cur == want || cur == claim;
		}
		for (i = mine + 1; i < n && !hit; i++) {
			g = kprof_flight_at(home, i);
			/* as above */
			cur = smp_load_acquire(&g->sk);
			if (cur == KPROF_SK_FREE)
				break;
			if (cur == claim)
				cur = kprof_flight_wait(g, claim);
			hit = cur == want || cur == claim;
		}
		if (hit) {
			/*
			 * Theirs wins, or a hole opened before mine: give
			 * mine up (a dead slot is safe).
			 */
			atomic_inc(&kprof_nr_dead);
			/* ordered after everything done with the slot */
			smp_store_release(&f->sk, KPROF_SK_TOMB);
			kprof_flight_reclaim((home + mine) % kprof_inflight_max);
			if (cur == want)
				return g;
			continue;
		}

		/* set up, then publish: no lookup sees a stale time or role */
		WRITE_ONCE(f->start_ns, 0);
		WRITE_ONCE(f->copied_seq, 0);
		WRITE_ONCE(f->role, 0);
		WRITE_ONCE(f->tracked, KPROF_FL_UNTRACKED);
		WRITE_ONCE(f->retx, 0);
		WRITE_ONCE(f->row, U32_MAX);
		/* pairs with the acquires of the lookups and claimers */
		smp_store_release(&f->sk, want);
		atomic_inc(&kprof_nr_flights);
		return f;
	}
	return NULL;
}

/*
 * @f's tracked from @from to @to, counting the slots of closed sockets;
 * false when it was not @from.  Sends, connects, closes and the socket's
 * destruction may meet on one slot (a disconnect is a close, concurrent
 * with the socket's other threads), so every change is one exchange.
 */
static bool kprof_flight_mark(struct kprof_flight *f, u8 from, u8 to)
{
	if (cmpxchg(&f->tracked, from, to) != from)
		return false;
	if (to == KPROF_FL_CLOSED)
		atomic_inc(&kprof_nr_closed);
	else if (from == KPROF_FL_CLOSED)
		atomic_dec(&kprof_nr_closed);
	return true;
}

/* @f tracked from now, whatever it was: off the requests' path. */
static noinline void kprof_flight_track(struct kprof_flight *f)
{
	if (!kprof_flight_mark(f, KPROF_FL_UNTRACKED, KPROF_FL_TRACKED))
		kprof_flight_mark(f, KPROF_FL_CLOSED, KPROF_FL_TRACKED);
}

/*
 * Forget a socket; a request in flight counts as abandoned (@count: the
 * caller may write this CPU's tables).
 */
static bool kprof_flight_put(const struct sock *sk, bool count)
{
	u32 slot = kprof_flight_slot(sk), i;
	bool was = false;

	for (i = 0; i < KPROF_FLIGHT_PROBES && i < kprof_inflight_max; i++) {
		struct kprof_flight *f = &kprof_flights[slot];
		unsigned long cur = READ_ONCE(f->sk);

		if (cur == KPROF_SK_FREE)
			return was;
		if (cur == (unsigned long)sk) {
			was = xchg(&f->start_ns, 0);
			if (was && count)
				kprof_agg_count(KPROF_CNT_ABANDONED);
			kprof_flight_mark(f, KPROF_FL_CLOSED,
					  KPROF_FL_UNTRACKED);
			/* counted first: a claim of the slot counts it down */
			atomic_inc(&kprof_nr_dead);
			if (cmpxchg(&f->sk, cur, KPROF_SK_TOMB) == cur) {
				atomic_dec(&kprof_nr_flights);
				kprof_flight_reclaim(slot);
			} else {
				atomic_dec(&kprof_nr_dead);
			}
		}
		if (++slot == kprof_inflight_max)
			slot = 0;
	}
	return was;
}

u32 kprof_tcp_inflight_dead(void)
{
	return max(atomic_read(&kprof_nr_dead), 0);
}

/*
 * The application is done with @sk: tcp_close(), or tcp_disconnect()
 * (connect(AF_UNSPEC), which may reuse the socket; a close with
 * SO_LINGER 0 calls both; a listener's child that was never accepted
 * is disconnected in softirq).  A request in flight counts as abandoned.
 * An untracked socket's slot goes now; a tracked one's stays until the
 * socket is destroyed (or connects again), so that what the kernel still
 * does for it counts: the reset the close itself may send, the
 * retransmits of the data the application left behind.
 */
static void kprof_flight_close(const struct sock *sk)
{
	struct kprof_flight *f = kprof_flight_find(sk);

	if (!f)
		return;
	if (READ_ONCE(f->tracked) == KPROF_FL_UNTRACKED) {
		kprof_flight_put(sk, true);
		return;
	}
	if (xchg(&f->start_ns, 0))
		kprof_agg_count(KPROF_CNT_ABANDONED);
	kprof_flight_mark(f, KPROF_FL_TRACKED, KPROF_FL_CLOSED);
}

/*
 * Open sockets in the table (closed ones wait for their destruction);
 * the two counts are read apart, so a close in between may show as one
 * socket fewer.
 */
u32 kprof_tcp_inflight(void)
{
	return max(atomic_read(&kprof_nr_flights) -
		   atomic_read(&kprof_nr_closed), 0);
}

/* Slots of sockets closed but not yet destroyed. */
u32 kprof_tcp_inflight_closed(void)
{
	return max(atomic_read(&kprof_nr_closed), 0);
}

/* ---- what a socket is ---- */

/*
 * A socket seen in tcp_connect() is a client.  Others were either opened
 * passively or connected before tracing started: a passively opened
 * socket is a copy of its listener, so it keeps the listener's backlog
 * and, when the listener was bound to a port, SOCK_BINDPORT_LOCK.
 */
static u8 kprof_sk_role(const struct sock *sk, const struct kprof_flight *f)
{
	u8 role = f ? READ_ONCE(f->role) : 0;

	if (role)
		return role;
	if (READ_ONCE(sk->sk_max_ack_backlog) ||
	    (sk->sk_userlocks & SOCK_BINDPORT_LOCK))
		return KPROF_ROLE_SERVER;
	return KPROF_ROLE_CLIENT;
}

static bool kprof_port_in(u16 port, const u16 *ports, u16 n)
{
	u16 i;

	for (i = 0; i < n; i++)
		if (ports[i] == port)
			return true;
	return false;
}

/* Inlined: a send's check; the connect's copy is off the hot path. */
static __always_inline bool kprof_sk_wanted(const struct kprof_run_config *rc,
					    const struct sock *sk, u8 role)
{
	const struct kprof_config *c = &rc->c;
	u8 fam;

	if (sk->sk_family == AF_INET)
		fam = KPROF_FAMILY_INET;
	else if (sk->sk_family == AF_INET6)
		fam = KPROF_FAMILY_INET6;
	else
		return false;
	if (!rc->filtered)
		return true;
	if (c->families && !(c->families & fam))
		return false;
	if (c->tgid && c->tgid != current->tgid)
		return false;
	if (c->cgroup_id && !kprof_current_in_cgroup(c->cgroup_id))
		return false;
	if (c->roles && !(c->roles & (1U << role)))
		return false;
	if (c->nr_rports &&
	    !kprof_port_in(ntohs(sk->sk_dport), c->rports, c->nr_rports))
		return false;
	if (c->nr_lports && !kprof_port_in(sk->sk_num, c->lports, c->nr_lports))
		return false;
	return true;
}

/* The views of @rc among @mask whose filters a request on @sk passes. */
static u8 notrace kprof_sk_views(const struct kprof_run_config *rc,
				 const struct sock *sk, u8 mask)
{
	u8 v = 0, i;

	for (i = 0; mask >> i; i++) {
		const struct kprof_view *w = &rc->view[i];

		if (!(mask & (1U << i)))
			continue;
		if (w->nr_lports &&
		    !kprof_port_in(sk->sk_num, w->lports, w->nr_lports))
			continue;
		if (kprof_view_has_current(w))
			v |= 1U << i;
	}
	return v;
}

/*
 * The views of the request on @sk that completes now, which found views
 * @v at its start under generation @gen: of those, the ones still the
 * same session's; of the views given since (to a session that started,
 * or changed its filters, while the request was under way), the ones
 * whose filters it passes now, at its end.  So a reader that starts
 * while a request is under way counts it when it completes in its
 * window, as a reader with no view does (see struct kprof_snapshot).
 * Not in softirq, where current is not the request's: there only the
 * start's views count.
 */
static __always_inline u8
kprof_views_at_end(const struct kprof_run_config *rc, const struct sock *sk,
		   u8 v, u32 gen)
{
	u8 fresh = 0, i;

	v &= rc->views;
	if ((s32)(gen - rc->views_since) >= 0)
		return v;	/* no view has changed hands since the start */
	for (i = 0; rc->views >> i; i++)
		if ((rc->views & (1U << i)) &&
		    (s32)(gen - rc->view[i].since) < 0)
			fresh |= 1U << i;
	v &= ~fresh;
	if (!in_serving_softirq())
		v |= kprof_sk_views(rc, sk, fresh);
	return v;
}

/* Key of KPROF_ENDPOINTS_HASH, drawn at load and never exported. */
static siphash_key_t kprof_ep_key;

/*
 * kprof_sk_endpoint() for every mode and family but the default's: a
 * function of its own, whose copy of the address (an array) would cost
 * the handlers that inline the default a stack canary.
 */
static noinline notrace void
kprof_sk_endpoint_other(const struct sock *sk, struct kprof_tcp_key *key)
{
	struct {
		struct in6_addr a;
		u32 family;
	} ep = { .family = sk->sk_family };
	u64 h;

	if (sk->sk_family == AF_INET)
		memcpy(&ep.a, &sk->sk_daddr, sizeof(sk->sk_daddr));
#if IS_ENABLED(CONFIG_IPV6)
	else
		ep.a = sk->sk_v6_daddr;
#endif

	switch (kprof_endpoints) {
	case KPROF_ENDPOINTS_PREFIX:
		key->family |= KPROF_RADDR_PREFIX;
		if (sk->sk_family == AF_INET)
			ep.a.s6_addr[3] = 0;			/* /24 */
		else if (ipv6_addr_v4mapped(&ep.a))
			ep.a.s6_addr[15] = 0;			/* its IPv4 /24 */
		else
			memset(&ep.a.s6_addr[8], 0, 8);		/* /64 */
		break;
	case KPROF_ENDPOINTS_HASH:
		key->family |= KPROF_RADDR_HASH;
		h = siphash(&ep, sizeof(ep), &kprof_ep_key);
		memzero_explicit(&ep, sizeof(ep));
		memcpy(ep.a.s6_addr, &h, sizeof(h));
		break;
	}
	memcpy(key->raddr, ep.a.s6_addr, sizeof(key->raddr));
}

/*
 * The remote endpoint of a completed request, already in the form the
 * endpoints parameter asks for: in the prefix and hash modes the full
 * address exists only in the socket and on the stack of
 * kprof_sk_endpoint_other(), never in a table.
 */
static __always_inline void
kprof_sk_endpoint(const struct sock *sk, struct kprof_tcp_key *key)
{
	key->family = sk->sk_family;
	key->rport = ntohs(sk->sk_dport);
	/* the default, on every request: the address as it is, no copy */
	if (kprof_endpoints == KPROF_ENDPOINTS_FULL &&
	    sk->sk_family == AF_INET) {
		memcpy(key->raddr, &sk->sk_daddr, sizeof(sk->sk_daddr));
		memset(&key->raddr[sizeof(sk->sk_daddr)], 0,
		       sizeof(key->raddr) - sizeof(sk->sk_daddr));
		return;
	}
	kprof_sk_endpoint_other(sk, key);
}

/*
 * ---- the handlers (preemption off; never sleep, never allocate) ----
 *
 * Every pre-handler returns 0.  Other tools' kprobes may share the
 * address: the kprobes core then walks them all (aggr_pre_handler()),
 * newest first, and a non-zero return ends that walk, so that the tools
 * registered before kprofmod would miss the call.
 */

/* Started?  Every handler asks first, before anything else. */
static bool kprof_tcp_on(void)
{
	/* pairs with the release in kprof_tcp_start(): the table is clean */
	return smp_load_acquire(&kprof_running);
}

/*
 * TCP's handlers never nest on a CPU, which lets them write their CPU's
 * tables with plain stores (kprof_agg.c, kprof_guard.c).  Among kprobes
 * the kprobes core sees to it: a kprobe that hits while another one's
 * handler runs on the CPU is missed.  Not between a kprobe and the
 * ftrace hook, nor for the ftrace hook itself: a receive in softirq
 * (tcp_read_sock()) or a socket destroyed there may interrupt a handler
 * in task context.  So every handler that writes runs between these two;
 * a call that finds another one running on its CPU is missed, as a
 * nested kprobe is.  Preemption is off.
 */
static DEFINE_PER_CPU(unsigned int, kprof_tcp_nest);

static bool kprof_tcp_enter(void)
{
	if (likely(this_cpu_inc_return(kprof_tcp_nest) == 1))
		return true;
	this_cpu_dec(kprof_tcp_nest);
	return false;
}

static void kprof_tcp_leave(void)
{
	this_cpu_dec(kprof_tcp_nest);
}

/*
 * Hook calls that found another TCP handler of kprofmod running on their
 * CPU and did nothing (a destroy does all but count its abandoned
 * request, and counts here only when it had one); with the kprobes
 * core's misses, kprof_tcp_hooks_missed().
 */
static DEFINE_PER_CPU(u64, kprof_hook_missed);

/*
 * The probes' clock.  A kprobe's int3 handler runs in NMI-like context:
 * ktime_get_ns() there takes the timekeeper's seqcount, which lockdep
 * reports as an inconsistent lock state and which would spin forever if
 * the probe hit while this CPU updates the timekeeper.  The fast
 * accessor is NMI-safe and reads the same CLOCK_MONOTONIC.
 */
static u64 kprof_tcp_now(void)
{
	return ktime_get_mono_fast_ns();
}

static void notrace kprof_tcp_send(struct sock *sk)
{
	const struct kprof_run_config *rc = rcu_dereference_sched(kprof_cfg);
	struct kprof_flight *f = kprof_flight_find(sk);
	u8 role;

	if (f && READ_ONCE(f->start_ns))
		return;		/* more of the same request */
	role = kprof_sk_role(sk, f);
	if (!rc || !kprof_sk_wanted(rc, sk, role)) {
		/* a closed socket's slot, met by one not wanted (below) */
		if (f && READ_ONCE(f->tracked) == KPROF_FL_CLOSED)
			kprof_flight_mark(f, KPROF_FL_CLOSED,
					  KPROF_FL_UNTRACKED);
		return;
	}
	if (kprof_guard_skip_request())
		return;
	if (!f)
		f = kprof_flight_get(sk);
	if (!f) {
		kprof_agg_count(KPROF_CNT_DROPS_INFLIGHT);
		return;
	}
	WRITE_ONCE(f->role, role);
	WRITE_ONCE(f->views, rc->views ? kprof_sk_views(rc, sk, rc->views) : 0);
	WRITE_ONCE(f->vgen, rc->gen);
	/*
	 * Tracked from now.  A closed socket's slot means a send after a
	 * disconnect, or a new socket at the address of one whose
	 * destruction was not seen (on a kernel without tcp:tcp_destroy_sock,
	 * the kprobe's hit while another kprobe's handler ran on the CPU):
	 * tracked anew, either way, in the role the slot says (a connect
	 * sets it; the rest is kprof_sk_role()'s guess).
	 */
	if (unlikely(READ_ONCE(f->tracked) != KPROF_FL_TRACKED))
		kprof_flight_track(f);
	WRITE_ONCE(f->retx, 0);
	WRITE_ONCE(f->copied_seq, READ_ONCE(tcp_sk(sk)->copied_seq));
	/* the start publishes the rest (cmpxchg orders fully) */
	cmpxchg(&f->start_ns, 0, kprof_tcp_now() ?: 1);
}

static void kprof_tcp_connect(struct sock *sk)
{
	const struct kprof_run_config *rc = rcu_dereference_sched(kprof_cfg);
	struct kprof_flight *f = kprof_flight_get(sk);
	u32 t;

	if (!f)
		return;
	/*
	 * Connecting again after a disconnect (or the address's last socket
	 * gone unseen, as in kprof_tcp_send()): a new connection, whose
	 * requests and health start from nothing.
	 */
	if (READ_ONCE(f->tracked) == KPROF_FL_CLOSED &&
	    kprof_flight_mark(f, KPROF_FL_CLOSED, KPROF_FL_UNTRACKED)) {
		if (xchg(&f->start_ns, 0))
			kprof_agg_count(KPROF_CNT_ABANDONED);
		WRITE_ONCE(f->retx, 0);
	}
	WRITE_ONCE(f->role, KPROF_ROLE_CLIENT);
	/* no start left from an earlier connect of the socket */
	WRITE_ONCE(f->row, U32_MAX);
	/*
	 * Time the connect of a client the configuration wants, in the
	 * views of the process connecting (the SYN is sent, the local port
	 * bound).  The socket is tracked from now: the SYN's retransmits
	 * and the reset that may refuse it count on its endpoint's row.
	 * A socket restored in repair mode is established at once, with no
	 * SYN: not a connect.
	 */
	if (!rc || tcp_sk(sk)->repair ||
	    !kprof_sk_wanted(rc, sk, KPROF_ROLE_CLIENT) ||
	    kprof_guard_skip_request())
		return;
	WRITE_ONCE(f->views, rc->views ? kprof_sk_views(rc, sk, rc->views) : 0);
	WRITE_ONCE(f->vgen, rc->gen);
	if (READ_ONCE(f->tracked) != KPROF_FL_TRACKED)
		kprof_flight_track(f);
	/* only sock:inet_sock_set_state, or its stand-in, ends a connect */
	if (!(kprof_tp_armed & (KPROF_ATTACH_TP_SET_STATE |
				KPROF_ATTACH_KP_SET_STATE)))
		return;
	t = (u32)(kprof_tcp_now() >> KPROF_CONN_SHIFT) | KPROF_CONN_BIT;
	WRITE_ONCE(f->row, t == U32_MAX ? t - 1 : t);
}

/* Health events and connect ends that found a TCP handler running here. */
static DEFINE_PER_CPU(u64, kprof_health_missed);

/*
 * @sk left SYN_SENT (sock:inet_sock_set_state, kprof_tcp_tp.c): to
 * ESTABLISHED (@err 0), closed with its error @err (KPROF_CONNECT_CLOSED:
 * none), or elsewhere (KPROF_CONNECT_FORGET: the start is dropped).
 * Counted on its endpoint's row of role KPROF_ROLE_CONNECT if
 * kprof_tcp_connect() timed it.  Any context: the SYN-ACK's or the
 * reset's softirq, the SYN's retransmit timer, a close; preemption off.
 * The socket is alive and its state changing, so its slot cannot change
 * hands: the start is taken with one exchange, as a send's is.  The time
 * is modulo 2^31 units of 256 ns: a connect established after more than
 * 549 s (a SYN retried that long) counts short.
 */
void notrace kprof_tcp_connected(const struct sock *sk, int err)
{
	const struct kprof_run_config *rc;
	struct kprof_tcp_key key = { 0 };
	enum kprof_health why;
	struct kprof_flight *f;
	u32 t, d, vgen;
	u64 t0;
	u8 views;

	if (!kprof_tcp_on())
		return;
	f = kprof_flight_find(sk);
	if (!f)
		return;
	t = READ_ONCE(f->row);
	if (!(t & KPROF_CONN_BIT) || t == U32_MAX)
		return;
	views = READ_ONCE(f->views);
	vgen = READ_ONCE(f->vgen);
	if (cmpxchg(&f->row, t, U32_MAX) != t || err == KPROF_CONNECT_FORGET)
		return;
	d = ((u32)(kprof_tcp_now() >> KPROF_CONN_SHIFT) - t) &
	    (KPROF_CONN_BIT - 1);
	if (!kprof_tcp_enter()) {
		this_cpu_inc(kprof_health_missed);
		return;
	}
	t0 = kprof_guard_begin(KPROF_COST_CONNECT);
	kprof_sk_endpoint(sk, &key);
	key.role = KPROF_ROLE_CONNECT;
	rc = rcu_dereference_sched(kprof_cfg);
	if (rc && rc->views)
		key.views = kprof_views_at_end(rc, sk, views, vgen);
	if (!err) {
		kprof_agg_tcp_connect(&key, (u64)d << KPROF_CONN_SHIFT);
	} else {
		if (err == ECONNREFUSED)
			why = KPROF_HEALTH_CONNECTS_REFUSED;
		else if (err == ETIMEDOUT)
			why = KPROF_HEALTH_CONNECTS_TIMEDOUT;
		else
			why = KPROF_HEALTH_CONNECTS_FAILED;
		kprof_agg_tcp_health(&key, why, 1, U32_MAX);
	}
	kprof_guard_end(KPROF_COST_CONNECT, t0);
	kprof_tcp_leave();
}

/*
 * kprof_tcp_complete()'s key: this CPU's, as its handlers never nest
 * (kprof_tcp_enter()).  Not on the stack: a local holding an array
 * costs every request a stack canary and a realigned frame.  From
 * alloc_percpu() (kprof_tcp_init()), not the modules' static per-CPU
 * area, which every module loaded shares.
 */
static struct kprof_tcp_key __percpu *kprof_complete_keys;

static void notrace kprof_tcp_complete(struct sock *sk,
				       struct pt_regs *regs)
{
	struct kprof_tcp_key *key = this_cpu_ptr(kprof_complete_keys);
	const struct kprof_run_config *rc;
	struct kprof_flight *f;
	u64 start, now;
	u32 vgen;
	u8 views, retx;

	f = kprof_flight_find(sk);
	if (!f || !READ_ONCE(f->start_ns))
		return;
	/*
	 * The application has read something since the request started:
	 * copied_seq moved.  A cleanup that copied nothing of the response
	 * (TCP_QUICKACK's tcp_cleanup_rbuf(sk, 1), a MSG_PEEK) does not
	 * complete it.
	 */
	smp_rmb();	/* copied_seq was written before start_ns */
	if (READ_ONCE(tcp_sk(sk)->copied_seq) == READ_ONCE(f->copied_seq))
		return;
	/*
	 * The start's views, read while the request holds the slot: once
	 * start_ns is 0, the next request's start may overwrite them.
	 */
	views = READ_ONCE(f->views);
	vgen = READ_ONCE(f->vgen);
	retx = READ_ONCE(f->retx);
	start = xchg(&f->start_ns, 0);
	if (!start)
		return;
	/*
	 * The slot may have changed hands since the lookup (a close on
	 * another CPU, then another socket's first send): then the time
	 * is the new owner's.  Give it back.
	 */
	if (READ_ONCE(f->sk) != (unsigned long)sk) {
		cmpxchg(&f->start_ns, 0, start);
		return;
	}
	now = kprof_tcp_now();
	now = now > start ? now - start : 0;

	/*
	 * A receive in softirq is the kernel's own (kTLS and strparser,
	 * sockmap, NVMe/TCP, iSCSI through tcp_read_sock()): current is
	 * whatever task it interrupted, whose stacks say nothing of this
	 * request.  It counts, with no stack.
	 */
	memset(key, 0, sizeof(*key));
	rc = rcu_dereference_sched(kprof_cfg);
	if (rc && now >= rc->c.threshold_ns && !in_serving_softirq() &&
	    !kprof_guard_skip_stack(false)) {
		key->stack_id = kprof_stack_capture(regs);
		if (!key->stack_id)
			kprof_agg_count(KPROF_CNT_DROPS_STACKS);
	}
	kprof_sk_endpoint(sk, key);
	key->role = kprof_sk_role(sk, f);
	if (rc && rc->views)
		key->views = kprof_views_at_end(rc, sk, views, vgen);
	WRITE_ONCE(f->row, kprof_agg_tcp_add(key, now, READ_ONCE(f->row),
					     retx));
}

/*
 * @n events @what on @sk, from a tracepoint (kprof_tcp_tp.c): counted on
 * the row of stack 0 of its endpoint, role and views, for a socket that
 * is tracked (it started a request that the configuration wanted) until
 * it is destroyed.  Any context: often softirq, where current is not the
 * socket's owner, so the views are those of its last request's start.
 */

void notrace kprof_tcp_health(const struct sock *sk, enum kprof_health what,
			      u32 n)
{
	const struct kprof_run_config *rc;
	struct kprof_tcp_key key = { 0 };
	struct kprof_flight *f;
	u32 vgen;
	u8 views;

	if (!kprof_tcp_on())
		return;
	if (!kprof_tcp_enter()) {
		/* one instruction on x86: safe against any nesting */
		if (what != KPROF_HEALTH_RETRANSMITS_RTO)
			this_cpu_add(kprof_health_missed, n);
		return;
	}
	f = kprof_flight_find(sk);
	if (!f || READ_ONCE(f->tracked) == KPROF_FL_UNTRACKED)
		goto out;
	views = READ_ONCE(f->views);
	vgen = READ_ONCE(f->vgen);
	/* the slot changed hands since the lookup: not this socket's */
	if (READ_ONCE(f->sk) != (unsigned long)sk)
		goto out;
	if (what == KPROF_HEALTH_RETRANSMITS && READ_ONCE(f->start_ns))
		WRITE_ONCE(f->retx, 1);
	kprof_sk_endpoint(sk, &key);
	key.role = kprof_sk_role(sk, f);
	rc = rcu_dereference_sched(kprof_cfg);
	if (rc && rc->views)
		key.views = kprof_views_at_end(rc, sk, views, vgen);
	kprof_agg_tcp_health(&key, what, n, U32_MAX);
out:
	kprof_tcp_leave();
}

/* Since the load, all CPUs. */
u64 kprof_tcp_health_missed(void)
{
	unsigned int cpu;
	u64 n = 0;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(per_cpu(kprof_health_missed, cpu));
	return n;
}

/*
 * What each hook does, from the probed function's registers at its entry
 * (a kprobe's, or the ones an ftrace trampoline saved).
 */
static __always_inline void kprof_on_send(struct pt_regs *regs)
{
	u64 t0 = kprof_guard_begin(KPROF_COST_SENDMSG);

	kprof_tcp_send((struct sock *)kprof_probe_arg(regs, 0));
	kprof_guard_end(KPROF_COST_SENDMSG, t0);
}

static void kprof_on_connect(struct pt_regs *regs)
{
	u64 t0 = kprof_guard_begin(KPROF_COST_CONNECT);

	kprof_tcp_connect((struct sock *)kprof_probe_arg(regs, 0));
	kprof_guard_end(KPROF_COST_CONNECT, t0);
}

static __always_inline void kprof_on_cleanup_rbuf(struct pt_regs *regs)
{
	u64 t0 = kprof_guard_begin(KPROF_COST_RECV);

	if ((int)kprof_probe_arg(regs, 1) > 0)
		kprof_tcp_complete((struct sock *)kprof_probe_arg(regs, 0),
				   regs);
	kprof_guard_end(KPROF_COST_RECV, t0);
}

static void kprof_on_close(struct pt_regs *regs)
{
	u64 t0 = kprof_guard_begin(KPROF_COST_CLOSE);

	kprof_flight_close((struct sock *)kprof_probe_arg(regs, 0));
	kprof_guard_end(KPROF_COST_CLOSE, t0);
}

/* Every hook: @fn, when tracing runs and no other handler does here. */
static __always_inline int kprof_hook(void (*fn)(struct pt_regs *regs),
				      struct pt_regs *regs)
{
	if (!kprof_tcp_on())
		return 0;
	if (likely(kprof_tcp_enter())) {
		fn(regs);
		kprof_tcp_leave();
	} else {
		this_cpu_inc(kprof_hook_missed);
	}
	return 0;
}

static int kprof_pre_sendmsg(struct kprobe *p, struct pt_regs *regs)
{
	return kprof_hook(kprof_on_send, regs);
}

static int kprof_pre_connect(struct kprobe *p, struct pt_regs *regs)
{
	return kprof_hook(kprof_on_connect, regs);
}

static int kprof_pre_cleanup_rbuf(struct kprobe *p, struct pt_regs *regs)
{
	return kprof_hook(kprof_on_cleanup_rbuf, regs);
}

static int kprof_pre_close(struct kprobe *p, struct pt_regs *regs)
{
	return kprof_hook(kprof_on_close, regs);
}

/*
 * The end of @sk's slot: from the kprobe on tcp_v4_destroy_sock() and
 * from the tracepoint tcp:tcp_destroy_sock inside it, where the kernel
 * has it (kprof_tcp_tp.c; the second call finds nothing).  The kprobe
 * alone can miss an end: the kprobes core drops a hit while another
 * kprobe's handler runs on the CPU, as a destruction in softirq does
 * that interrupts a kprobe on ftrace (their handlers run with interrupts
 * on).  The tracepoint is never missed.  Also when another handler of
 * kprofmod runs on this CPU (interrupting the hot hooks' handler), the
 * slot goes: else it would meet the next socket at that address.  The
 * table's operations hold against any interleaving; only the per-CPU
 * counts may not be written then (a request still in flight, of a
 * socket destroyed without a close, goes uncounted, and hooks_missed
 * says so).
 */
void notrace kprof_tcp_destroyed(const struct sock *sk)
{
	u64 t0;

	if (!kprof_tcp_on())
		return;
	if (!kprof_tcp_enter()) {
		/* its abandoned request, not counted (the other call finds none) */
		if (kprof_flight_put(sk, false))
			this_cpu_inc(kprof_hook_missed);
		return;
	}
	t0 = kprof_guard_begin(KPROF_COST_CLOSE);
	kprof_flight_put(sk, true);
	kprof_guard_end(KPROF_COST_CLOSE, t0);
	kprof_tcp_leave();
}

static int kprof_pre_destroy(struct kprobe *p, struct pt_regs *regs)
{
	kprof_tcp_destroyed((struct sock *)kprof_probe_arg(regs, 0));
	return 0;
}

static int kprof_recvmsg_entry(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	if (!kprof_tcp_on())
		return 1;	/* no return handler for this call */
	*(struct sock **)ri->data = (struct sock *)kprof_probe_arg(regs, 0);
	return 0;
}

static int kprof_recvmsg_ret(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	u64 t0;

	if (!kprof_tcp_on())
		return 0;
	if (!kprof_tcp_enter()) {
		this_cpu_inc(kprof_hook_missed);
		return 0;
	}
	t0 = kprof_guard_begin(KPROF_COST_RECV);

	if ((long)regs_return_value(regs) > 0)
		kprof_tcp_complete(*(struct sock **)ri->data, NULL);
	kprof_guard_end(KPROF_COST_RECV, t0);
	kprof_tcp_leave();
	return 0;
}

static struct kprobe kprof_kp_sendmsg = {
	.symbol_name = "tcp_sendmsg",
	.pre_handler = kprof_pre_sendmsg,
};

/*
 * Before v6.5, sendfile() and splice() reach TCP through tcp_sendpage(),
 * whose first argument is the socket too; from v6.5 they go through
 * tcp_sendmsg() and the symbol is gone.
 */
static struct kprobe kprof_kp_sendpage = {
	.symbol_name = "tcp_sendpage",
	.pre_handler = kprof_pre_sendmsg,
};

/* Registered disabled: armed (patched in) only once known to be needed. */
static struct kprobe kprof_kp_cleanup = {
	.symbol_name = "tcp_cleanup_rbuf",
	.pre_handler = kprof_pre_cleanup_rbuf,
	.flags = KPROBE_FLAG_DISABLED,
};

static struct kprobe kprof_kp___cleanup = {
	.symbol_name = "__tcp_cleanup_rbuf",
	.pre_handler = kprof_pre_cleanup_rbuf,
};

static struct kprobe kprof_kp_connect = {
	.symbol_name = "tcp_connect",
	.pre_handler = kprof_pre_connect,
};

static struct kprobe kprof_kp_close = {
	.symbol_name = "tcp_close",
	.pre_handler = kprof_pre_close,
};

/* connect(AF_UNSPEC): the socket is reused without a close */
static struct kprobe kprof_kp_disconnect = {
	.symbol_name = "tcp_disconnect",
	.pre_handler = kprof_pre_close,
};

static struct kprobe kprof_kp_destroy = {
	.symbol_name = "tcp_v4_destroy_sock",
	.pre_handler = kprof_pre_destroy,
};

static struct kretprobe kprof_krp_recvmsg = {
	.kp.symbol_name = "tcp_recvmsg",
	.entry_handler = kprof_recvmsg_entry,
	.handler = kprof_recvmsg_ret,
	.data_size = sizeof(struct sock *),
	.maxactive = 64,
};

/* Attach points, registered in this order. */
static struct kprobe *const kprof_kps[] = {
	&kprof_kp_destroy,
	&kprof_kp_close,
	&kprof_kp_disconnect,
	&kprof_kp___cleanup,
	&kprof_kp_cleanup,
	&kprof_kp_connect,
	&kprof_kp_sendmsg,
	&kprof_kp_sendpage,
};

static const u32 kprof_kp_bits[] = {
	KPROF_ATTACH_TCP_DESTROY_SOCK,
	KPROF_ATTACH_TCP_CLOSE,
	KPROF_ATTACH_TCP_DISCONNECT,
	KPROF_ATTACH___TCP_CLEANUP_RBUF,
	KPROF_ATTACH_TCP_CLEANUP_RBUF,
	KPROF_ATTACH_TCP_CONNECT,
	KPROF_ATTACH_TCP_SENDMSG,
	KPROF_ATTACH_TCP_SENDPAGE,
};

/* The hooks hit on every request: a start, and its response's read. */
#define KPROF_ATTACH_HOT	(KPROF_ATTACH_TCP_SENDMSG | \
				 KPROF_ATTACH_TCP_SENDPAGE | \
				 KPROF_ATTACH_TCP_CLEANUP_RBUF | \
				 KPROF_ATTACH___TCP_CLEANUP_RBUF)
#define KPROF_ATTACH_RECV	(KPROF_ATTACH_TCP_CLEANUP_RBUF | \
				 KPROF_ATTACH___TCP_CLEANUP_RBUF)

#if KPROF_FTRACE_ATTACH
/*
 * The hot hooks through two ftrace_ops (see kprof_compat_ftrace.h), one
 * for the sends and one for the receives, so that neither callback has
 * to tell them apart: each is called straight from a trampoline of its
 * own that saves
 * only the argument registers, the stack and frame pointers and the
 * instruction pointer, where a kprobe on the same call site costs the
 * full register save and the kprobes core's dispatch.  The other hooks
 * (a connection's start and end) stay kprobes.  Another tool's ftrace_ops
 * or kprobe on the same function is called as before: the kernel then
 * calls every ops from a list, and this one takes nothing from them.
 *
 * kprof_ftr_usable: decided at load, when every hot hook that can be
 * attached here was a kprobe on ftrace, so that its address, in
 * kprof_hook_ip[], is the ftrace call site that an ops' filter takes;
 * cleared for good when attaching or detaching an ops fails.
 * kprof_ftr_armed: the hot hooks of the running start are on the ops.
 */
static bool kprof_ftr_usable;
static bool kprof_ftr_armed;
static unsigned long kprof_hook_ip[ARRAY_SIZE(kprof_kps)];

/* From now on the hot hooks are kprobes (GET_INFO reads the flag). */
static void kprof_ftr_give_up(void)
{
	WRITE_ONCE(kprof_ftr_usable, false);
}

static void notrace kprof_ftr_send(unsigned long ip, unsigned long parent_ip,
				   struct ftrace_ops *op,
				   struct ftrace_regs *fregs)
{
	preempt_disable_notrace();
	kprof_hook(kprof_on_send, kprof_ftrace_pt_regs(fregs));
	preempt_enable_notrace();
}

static void notrace kprof_ftr_recv(unsigned long ip, unsigned long parent_ip,
				   struct ftrace_ops *op,
				   struct ftrace_regs *fregs)
{
	preempt_disable_notrace();
	kprof_hook(kprof_on_cleanup_rbuf, kprof_ftrace_pt_regs(fregs));
	preempt_enable_notrace();
}

/* [0] the sends', [1] the receives' (KPROF_ATTACH_RECV) */
static struct ftrace_ops kprof_ftr_ops[2] = {
	{ .func = kprof_ftr_send },
	{ .func = kprof_ftr_recv },
};

/* kprof_ftr_ops[i] is registered */
static bool kprof_ftr_on[2];

/* Is kprof_kps[@i] a hot hook that goes through the ftrace_ops now? */
static bool kprof_kp_on_ftrace(int i)
{
	return kprof_ftr_armed && (kprof_kp_bits[i] & KPROF_ATTACH_HOT);
}

/*
 * ftrace has shut itself down (ftrace_disabled, after a bug it found):
 * it leaves the call sites as they are, so the ops' trampolines may still
 * call kprof_ftr_send() and kprof_ftr_recv() (which return at once while
 * TCP tracing is stopped).  The module stays loaded until reboot; no hook can be
 * attached through ftrace any more, kprobes on ftrace included.
 */
static void kprof_ftr_pin(const char *what, int ret)
{
	static bool pinned;

	if (pinned)
		return;
	pinned = true;
	pr_err("cannot %s the TCP ftrace hooks (%d): ftrace is disabled, module pinned\n",
	       what, ret);
	__module_get(THIS_MODULE);
	kprof_ftr_give_up();
}

/*
 * Once a module's ftrace_ops is unregistered no callback runs nor is
 * about to: ftrace_shutdown() waits for every task to leave the ops'
 * trampoline (synchronize_rcu_tasks_rude(), and synchronize_rcu_tasks()
 * on a preemptible kernel) before it frees it.  The filters stay, for
 * the next arm to replace; the unload empties them (kprof_ftr_exit()).
 */
static void kprof_ftr_disarm(void)
{
	int i, ret, err = 0;

	for (i = 0; i < ARRAY_SIZE(kprof_ftr_ops); i++) {
		if (!kprof_ftr_on[i])
			continue;
		ret = unregister_ftrace_function(&kprof_ftr_ops[i]);
		kprof_ftr_on[i] = false;
		/* -ENODEV (ftrace disabled): the others mean it was not on */
		if (ret && !err)
			err = ret;
	}
	kprof_ftr_armed = false;
	if (err)
		kprof_ftr_pin("unregister", err);
}

/*
 * Each ops' filter is set afresh: its first call resets it (freeing the
 * last arm's through RCU), the others add.  Not ftrace_free_filter(): it
 * frees the ops' hashes and leaves the ops pointing at them.  An ops
 * with no hook here (a receive through the recvmsg return probe) stays
 * off: with no filter it would be called for every function.
 */
static int kprof_ftr_arm(void)
{
	bool used[ARRAY_SIZE(kprof_ftr_ops)] = { false };
	int i, k, ret = 0;

	for (i = 0; i < ARRAY_SIZE(kprof_kps) && !ret; i++) {
		if (!(kprof_attached & kprof_kp_bits[i] & KPROF_ATTACH_HOT))
			continue;
		k = !!(kprof_kp_bits[i] & KPROF_ATTACH_RECV);
		ret = ftrace_set_filter_ip(&kprof_ftr_ops[k], kprof_hook_ip[i],
					   0, !used[k]);
		used[k] = true;
	}
	if (!ret && !used[0] && !used[1])
		ret = -ENOENT;
	for (k = 0; k < ARRAY_SIZE(kprof_ftr_ops) && !ret; k++) {
		if (!used[k])
			continue;
		ret = register_ftrace_function(&kprof_ftr_ops[k]);
		/*
		 * Since upstream commit c3b0f72e805f (v6.0; in the stable
		 * trees down to 4.9, 5.10.262 has it), a registration that
		 * finds ftrace disabled after patching fails with -ENODEV,
		 * the call sites maybe still pointing at the ops.  Before
		 * it, the registration succeeded and the unregistration
		 * fails (kprof_ftr_disarm()).
		 */
		if (ret == -ENODEV)
			kprof_ftr_pin("register", ret);
		kprof_ftr_on[k] = !ret;
	}
	if (ret) {
		/* what was registered goes: the caller falls back to kprobes */
		kprof_ftr_disarm();
		return ret;
	}
	kprof_ftr_armed = true;
	return 0;
}

/*
 * At unload, the ops unregistered: their filters' memory, by resetting
 * them to the empty filter.  Not ftrace_free_filter(), exported only
 * since upstream commit 8be9fbd5345d (v6.2; 6.1.y has it, 5.15 does not).
 */
static void kprof_ftr_exit(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(kprof_ftr_ops); i++)
		ftrace_set_filter(&kprof_ftr_ops[i], NULL, 0, 1);
}

/*
 * At load, after kprobe @i registered: usable while every hot hook so
 * far was a kprobe on ftrace, i.e. at its function's ftrace call site.
 */
static void kprof_ftr_probe(int i)
{
	if (!(kprof_kp_bits[i] & KPROF_ATTACH_HOT))
		return;
	kprof_hook_ip[i] = (unsigned long)kprof_kps[i]->addr;
	if (!(kprof_kps[i]->flags & KPROBE_FLAG_FTRACE))
		kprof_ftr_usable = false;
}

static void kprof_ftr_init(void)
{
	kprof_ftr_usable = true;
}
#else
static const bool kprof_ftr_usable;
static const bool kprof_ftr_armed;

static void kprof_ftr_give_up(void)
{
}

static bool kprof_kp_on_ftrace(int i)
{
	return false;
}

static void kprof_ftr_disarm(void)
{
}

static int kprof_ftr_arm(void)
{
	return -EOPNOTSUPP;
}

static void kprof_ftr_probe(int i)
{
}

static void kprof_ftr_init(void)
{
}

static void kprof_ftr_exit(void)
{
}
#endif

/* The hot hooks go through the ftrace_ops (KPROF_FEAT_TCP_FTRACE). */
bool kprof_tcp_ftrace(void)
{
	return READ_ONCE(kprof_ftr_usable) && kprof_tcp_start_possible();
}

u32 kprof_tcp_attach(void)
{
	return kprof_attached;
}

bool kprof_tcp_running(void)
{
	return kprof_running;
}

bool kprof_tcp_start_possible(void)
{
	return (kprof_attached & KPROF_ATTACH_TCP_SENDMSG) &&
	       (kprof_attached & (KPROF_ATTACH_TCP_CLEANUP_RBUF |
				  KPROF_ATTACH___TCP_CLEANUP_RBUF |
				  KPROF_ATTACH_TCP_RECVMSG_RET)) &&
	       (kprof_attached & (KPROF_ATTACH_TCP_DESTROY_SOCK |
				  KPROF_ATTACH_TP_DESTROY_SOCK));
}

/*
 * The kprobes core's misses on kprofmod's kprobes (a hit while another
 * kprobe's handler ran on the CPU, or a tcp_recvmsg() call with every
 * kretprobe instance in use): each kprobe's own nmissed since its last
 * registration, and those of earlier registrations, added here when a
 * registration starts afresh.  Under the caller's serialisation of
 * start, stop and the statistics (kprof_ctl_lock).
 */
static u64 kprof_kp_missed_past;

/*
 * @p's misses that lose something: not the destroy kprobe's while the
 * tracepoint tcp:tcp_destroy_sock ends the socket too (a destruction in
 * softirq that interrupts a kprobe's handler; see kprof_tcp_destroyed()).
 * That one's are taken at each stop, judged by the run's tracepoints.
 */
static unsigned long kprof_kp_misses(const struct kprobe *p)
{
	if (p == &kprof_kp_destroy &&
	    (kprof_tp_armed & KPROF_ATTACH_TP_DESTROY_SOCK))
		return 0;
	return READ_ONCE(p->nmissed);
}

/*
 * A kprobe back to what it was before its last registration, so that it
 * can be registered again: register_kprobe() refuses one that has both
 * an address (set by the last registration) and a symbol name.
 */
void kprof_kp_fresh(struct kprobe *p)
{
	const char *sym = p->symbol_name;
	kprobe_pre_handler_t pre = p->pre_handler;

	kprof_kp_missed_past += kprof_kp_misses(p);
	memset(p, 0, sizeof(*p));
	p->symbol_name = sym;
	p->pre_handler = pre;
}

void kprof_krp_fresh(struct kretprobe *rp)
{
	struct kretprobe t = {
		.kp.symbol_name = rp->kp.symbol_name,
		.entry_handler = rp->entry_handler,
		.handler = rp->handler,
		.data_size = rp->data_size,
		.maxactive = rp->maxactive,
	};

	kprof_kp_missed_past += rp->nmissed + rp->kp.nmissed;
	*rp = t;
}

/*
 * Hook calls not handled since load: kprof_hook_missed, and the kprobes
 * core's misses on kprofmod's kprobes (those registered now, and the
 * ones before, kprof_kp_missed_past).  Caller serialises it against
 * start and stop.
 */
u64 kprof_tcp_hooks_missed(void)
{
	u64 n = kprof_kp_missed_past;
	unsigned int cpu;
	int i;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(per_cpu(kprof_hook_missed, cpu));
	for (i = 0; i < ARRAY_SIZE(kprof_kps); i++)
		n += kprof_kp_misses(kprof_kps[i]);
	return n + READ_ONCE(kprof_krp_recvmsg.nmissed) +
	       READ_ONCE(kprof_krp_recvmsg.kp.nmissed) + kprof_tcp_tp_missed();
}

/*
 * Unregister every probe in @kps (@n of them) and the kretprobe if
 * @krp: one grace period for all the kprobes rather than one each.
 * Once it returns no handler runs: the kprobes core waits for a grace
 * period after taking the probes out, and a call that entered
 * tcp_recvmsg() before returns past a kretprobe instance whose handler
 * is gone (ri->rp cleared under the instance's lock in older kernels;
 * the kretprobe_holder's rp, or rethook's handler, in newer ones).
 */
static void kprof_tcp_unregister(struct kprobe **kps, int n, bool krp)
{
	if (n)
		unregister_kprobes(kps, n);
	if (krp)
		unregister_kretprobe(&kprof_krp_recvmsg);
}

/*
 * Register the kprobes among @bits that kprof_tcp_init() found
 * attachable, in the order of kprof_kps[] (the close hooks before the
 * hooks that start a request), each added to @kps (*@n of them): the
 * caller unregisters those if one fails.
 */
static int kprof_tcp_register(struct kprobe **kps, int *n, u32 bits)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(kprof_kps); i++) {
		if (!(kprof_attached & kprof_kp_bits[i] & bits))
			continue;
		kprof_kp_fresh(kprof_kps[i]);
		ret = register_kprobe(kprof_kps[i]);
		if (ret)
			return ret;
		kps[(*n)++] = kprof_kps[i];
	}
	return 0;
}

/*
 * Every hook, all or none.  The hot hooks go through the ftrace_ops
 * where they can; if attaching them fails, they are kprobes like the
 * others, now and from then on (KPROF_FEAT_TCP_FTRACE clears).  Nothing
 * of kprofmod is in the probed functions while no hook is registered.
 */
static int kprof_tcp_arm(void)
{
	struct kprobe *kps[ARRAY_SIZE(kprof_kps)];
	bool ftr = kprof_ftr_usable, krp = false;
	int n = 0, ret;

	ret = kprof_tcp_register(kps, &n, ftr ? ~KPROF_ATTACH_HOT : ~0U);
	if (!ret && (kprof_attached & KPROF_ATTACH_TCP_RECVMSG_RET)) {
		kprof_krp_fresh(&kprof_krp_recvmsg);
		ret = register_kretprobe(&kprof_krp_recvmsg);
		krp = !ret;
	}
	if (!ret && ftr) {
		ret = kprof_ftr_arm();
		if (ret) {
			pr_warn("cannot attach the TCP hooks through ftrace (%d): kprobes instead\n",
				ret);
			kprof_ftr_give_up();
			ret = kprof_tcp_register(kps, &n, KPROF_ATTACH_HOT);
		}
	}
	if (ret) {
		pr_warn("cannot register the TCP probes (%d)\n", ret);
		kprof_tcp_unregister(kps, n, krp);
	}
	return ret;
}

static void kprof_tcp_disarm(void)
{
	struct kprobe *kps[ARRAY_SIZE(kprof_kps)];
	int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(kprof_kps); i++)
		if ((kprof_attached & kprof_kp_bits[i]) &&
		    !kprof_kp_on_ftrace(i))
			kps[n++] = kprof_kps[i];
	if (kprof_ftr_armed)
		kprof_ftr_disarm();
	kprof_tcp_unregister(kps, n,
			     kprof_attached & KPROF_ATTACH_TCP_RECVMSG_RET);
}

/*
 * Caller serialises start, stop and config.  The probes are registered
 * here and unregistered by the stop: while TCP tracing is stopped no
 * probe of kprofmod is in the kernel (unless ftrace disabled itself
 * under the ftrace_ops, kprof_ftr_pin()).
 */
int kprof_tcp_start(void)
{
	int ret;

	if (!kprof_tcp_start_possible())
		return -EOPNOTSUPP;
	if (kprof_running)
		return 0;
	ret = kprof_tcp_arm();
	if (ret)
		return ret;
	kprof_tp_armed = kprof_tcp_tp_arm();
	/* a tracked socket's slot goes only at its destruction */
	if (!((kprof_attached & KPROF_ATTACH_TCP_DESTROY_SOCK) ||
	      (kprof_tp_armed & KPROF_ATTACH_TP_DESTROY_SOCK))) {
		kprof_tcp_disarm();
		kprof_tcp_tp_disarm(kprof_tp_armed);
		kprof_tp_armed = 0;
		return -EOPNOTSUPP;
	}
	/* the table was cleared at load or by the last stop */
	smp_store_release(&kprof_running, true);
	return 0;
}

void kprof_tcp_stop(void)
{
	if (!kprof_running)
		return;
	WRITE_ONCE(kprof_running, false);
	kprof_tcp_disarm();
	kprof_kp_missed_past += kprof_kp_misses(&kprof_kp_destroy);
	kprof_kp_destroy.nmissed = 0;
	kprof_tcp_tp_disarm(kprof_tp_armed);
	kprof_tp_armed = 0;
	/* nothing can see the table now: requests in flight are forgotten */
	memset(kprof_flights, 0, array_size(kprof_inflight_max,
					    sizeof(*kprof_flights)));
	atomic_set(&kprof_nr_flights, 0);
	atomic_set(&kprof_nr_closed, 0);
	atomic_set(&kprof_nr_dead, 0);
}

/*
 * Where the function holding @addr starts and how long it is, from
 * kallsyms' "name+0xoff/0xsize"; false if kallsyms cannot tell.
 */
static bool kprof_func_extent(unsigned long addr, unsigned long *start,
			      unsigned long *size)
{
	char buf[KSYM_SYMBOL_LEN];
	unsigned long off;
	const char *p;

	sprint_symbol(buf, addr);
	p = strrchr(buf, '+');
	if (!p || sscanf(p, "+%lx/%lx", &off, size) != 2 || off > addr)
		return false;
	*start = addr - off;
	return true;
}

/*
 * tcp_cleanup_rbuf() is a check around __tcp_cleanup_rbuf() (v6.0 and
 * later; sockmap's receive paths call the inner one alone).  Where it
 * calls the probed __tcp_cleanup_rbuf() out of line, every receive would
 * hit both probes and the outer one only costs: it is dropped before it
 * was ever armed.  Otherwise (older kernels; the inner one inlined, or
 * not probed) the outer one is armed now.
 */
static void kprof_arm_outer_cleanup(void)
{
	unsigned long from, size;

	if (!(kprof_attached & KPROF_ATTACH_TCP_CLEANUP_RBUF))
		return;
	if (!(kprof_attached & KPROF_ATTACH___TCP_CLEANUP_RBUF) ||
	    !kprof_func_extent((unsigned long)kprof_kp_cleanup.addr, &from,
			       &size) ||
	    !kprof_text_calls(from, size,
			      (unsigned long)kprof_kp___cleanup.addr)) {
		if (!enable_kprobe(&kprof_kp_cleanup))
			return;
		pr_info("cannot arm the probe on tcp_cleanup_rbuf\n");
	}
	unregister_kprobe(&kprof_kp_cleanup);
	kprof_attached &= ~KPROF_ATTACH_TCP_CLEANUP_RBUF;
}

int kprof_tcp_init(void)
{
	int i, ret;

	kprof_flights = vzalloc(array_size(kprof_inflight_max,
					   sizeof(*kprof_flights)));
	kprof_complete_keys = alloc_percpu(struct kprof_tcp_key);
	if (!kprof_flights || !kprof_complete_keys) {
		free_percpu(kprof_complete_keys);
		kprof_complete_keys = NULL;
		vfree(kprof_flights);
		kprof_flights = NULL;
		return -ENOMEM;
	}
	get_random_bytes(&kprof_ep_key, sizeof(kprof_ep_key));

	/*
	 * Find out what can be attached here: register each probe once,
	 * then unregister them all; TCP's start registers them again.
	 */
	kprof_ftr_init();
	for (i = 0; i < ARRAY_SIZE(kprof_kps); i++) {
		ret = register_kprobe(kprof_kps[i]);
		if (ret) {
			pr_info("cannot probe %s (%d)\n",
				kprof_kps[i]->symbol_name, ret);
			continue;
		}
		kprof_attached |= kprof_kp_bits[i];
		kprof_ftr_probe(i);
	}
	kprof_arm_outer_cleanup();
	if (!(kprof_attached & (KPROF_ATTACH_TCP_CLEANUP_RBUF |
				KPROF_ATTACH___TCP_CLEANUP_RBUF))) {
		if (!register_kretprobe(&kprof_krp_recvmsg))
			kprof_attached |= KPROF_ATTACH_TCP_RECVMSG_RET;
	}
	kprof_tcp_disarm();
	/* what load's trial registration saw counts for nothing */
	for (i = 0; i < ARRAY_SIZE(kprof_kps); i++)
		kprof_kps[i]->nmissed = 0;
	kprof_krp_recvmsg.nmissed = 0;
	kprof_krp_recvmsg.kp.nmissed = 0;
	kprof_attached |= kprof_tcp_tp_init();
	if (!kprof_tcp_start_possible())
		pr_warn("TCP latency unavailable on this kernel (attach 0x%x)\n",
			kprof_attached);
	return 0;
}

void kprof_tcp_exit(void)
{
	kprof_tcp_stop();
	kprof_ftr_exit();
	kprof_attached = 0;
	vfree(kprof_flights);
	kprof_flights = NULL;
	free_percpu(kprof_complete_keys);
	kprof_complete_keys = NULL;
	memzero_explicit(&kprof_ep_key, sizeof(kprof_ep_key));
}
