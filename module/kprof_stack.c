// SPDX-License-Identifier: GPL-2.0
/*
 * Stack capture and the stack table.
 *
 * Capture runs in probe or sampling context (preemption off, possibly
 * hardirq or NMI): the kernel stack through the unwinder from the probe's
 * or the interrupted registers, the user stack by walking frame pointers
 * of the interrupted thread with fault-free user copies, into a per-CPU
 * scratch buffer.  The table deduplicates: an identical stack (same tgid,
 * same frames, compared in full) always gets the same ID, different stacks
 * never share one.  It is preallocated, lock-free for inserts and bounded;
 * a full table or a contended slot is a drop, never a wait.
 *
 * IDs are slot index + 1 and stay valid until kprof_stacks_reset(), which
 * the caller may only do while nothing captures.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#define KPROF_UNIT KPROF_UNIT_STACK

#include <linux/atomic.h>
#include <linux/hardirq.h>
#include <linux/module.h>	/* before kallsyms.h, which uses it on 4.14 */
#include <linux/kallsyms.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/ptrace.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "kprof_config.h"
#include "kprof_stack.h"
#include "compat/kprof_compat_mm.h"
#include "compat/kprof_compat_stack.h"
#include "compat/kprof_compat_uaccess.h"

#define KPROF_STACK_EMPTY	0
#define KPROF_STACK_BUSY	1
#define KPROF_STACK_READY	2
#define KPROF_STACK_STATE_MASK	3
#define KPROF_STACK_PROBES	64
#define KPROF_STACK_SPIN	10000

/*
 * Raw kernel trace, where the unwinder cannot start at registers, before
 * the probe or interrupt machinery frames are cut off.
 */
#define KPROF_RAW_KERNEL_FRAMES	(KPROF_MAX_KERNEL_FRAMES + 24)

/*
 * The cache of kernel traces (kprof_ktrace_find()): a trace started at
 * @ip, frame k's (0 < k < @nr) return address @off[k] bytes above the
 * starting stack pointer, none more than @reach bytes above it, recorded
 * under module generation @gen.  A trace of a system call (@depth 0)
 * holds its last frame's at @top_off bytes below the registers current
 * entered the kernel with instead; any other trace holds only where its
 * starting stack pointer was @depth bytes below them.
 */
#define KPROF_KTRACE_WAYS	4

struct kprof_ktrace {
	unsigned long ip;
	unsigned int gen;
	u16 nr;
	u16 top_off;
	u16 depth;
	u16 reach;
	u16 off[KPROF_MAX_KERNEL_FRAMES];
	unsigned long ips[KPROF_MAX_KERNEL_FRAMES];
};

/*
 * The user walk's cache of verified call sites (kprof_user_ret_ok()): a
 * return address found to follow a call instruction, in the address
 * space @mm_id at page-table generation @mm_gen.  Direct-mapped.
 */
#define KPROF_CALLSITES		64

struct kprof_callsite {
	unsigned long ret;
	u64 mm_id;
	u64 mm_gen;
};

struct kprof_stack_scratch {
	struct kprof_callsite callsite[KPROF_CALLSITES];
	unsigned long raw[KPROF_RAW_KERNEL_FRAMES];
	unsigned long ips[KPROF_MAX_KERNEL_FRAMES + KPROF_MAX_USER_FRAMES];
	unsigned long slot[KPROF_MAX_KERNEL_FRAMES];
	unsigned long frame[2];		/* kprof_walk_user()'s first frame */
	struct kprof_ktrace ktrace[KPROF_KTRACE_WAYS];
	unsigned int ktrace_next;
};

/*
 * One scratch buffer per CPU and context level that can interrupt the
 * one below it: task, softirq, hardirq, NMI, as perf's
 * get_recursion_context() keeps them.  A capture takes its level's
 * buffer; one that finds it taken (a second capture of the same level
 * nested in the first) is a drop, never a mix of two stacks.  That
 * happens: since v5.8 a kernel int3, and so an int3-based kprobe, runs
 * as NMI (irqentry_nmi_enter()), and a real NMI sample can come during
 * its capture.  From alloc_percpu(), not the modules' static per-CPU
 * area.
 */
#define KPROF_CTX_LEVELS	4

struct kprof_stack_pcpu {
	int busy[KPROF_CTX_LEVELS];
	struct kprof_stack_scratch sc[KPROF_CTX_LEVELS];
};

static struct kprof_stack_pcpu __percpu *kprof_scratch;

static unsigned int kprof_ctx_level(void)
{
	if (in_nmi())
		return 3;
	if (hardirq_count())
		return 2;
	if (in_serving_softirq())
		return 1;
	return 0;
}

/*
 * Bumped on every module load and unload: a cached kernel trace is used
 * only under the generation it was recorded in, so never across a change
 * of the text (and ORC data) its frames may lie in.
 */
static atomic_t kprof_ktrace_gen = ATOMIC_INIT(0);

static int kprof_ktrace_module_event(struct notifier_block *nb,
				     unsigned long action, void *data)
{
	atomic_inc(&kprof_ktrace_gen);
	return NOTIFY_DONE;
}

static struct notifier_block kprof_ktrace_nb = {
	.notifier_call = kprof_ktrace_module_event,
};

static bool kprof_ktrace_registered;

/* kprof_stack_syscall_return() at load: see kprof_ktrace_find() */
static unsigned long kprof_ktrace_syscall_ret __read_mostly;

static struct kprof_stack_entry *kprof_stacks;
static atomic_t kprof_stacks_nr = ATOMIC_INIT(0);
static u32 kprof_stack_resets;

/*
 * The stack hash's seed: a process chooses its own return addresses, and
 * with a known hash could aim many stacks at one probe sequence, whose
 * captures would then be dropped.
 */
static u64 kprof_stack_seed __read_mostly;

int kprof_stacks_init(void)
{
	int err;

	/* kprof_stack_key() builds the key as the entry's union reads it */
	BUILD_BUG_ON(IS_ENABLED(CONFIG_CPU_BIG_ENDIAN) ||
		     offsetof(struct kprof_stack_entry, key) !=
		     offsetof(struct kprof_stack_entry, tgid) ||
		     offsetof(struct kprof_stack_entry, nr_kernel) !=
		     offsetof(struct kprof_stack_entry, tgid) + 4 ||
		     offsetof(struct kprof_stack_entry, nr_user) !=
		     offsetof(struct kprof_stack_entry, tgid) + 6);
	/* struct kprof_ktrace keeps offsets in the task stack in a u16 */
	BUILD_BUG_ON(IS_ENABLED(CONFIG_UNWINDER_ORC) && THREAD_SIZE > U16_MAX);
	kprof_ktrace_syscall_ret = kprof_stack_syscall_return();
	kprof_stack_seed = get_random_u64();
	kprof_scratch = alloc_percpu(struct kprof_stack_pcpu);
	kprof_stacks = vzalloc(array_size(kprof_stacks_max,
					  sizeof(*kprof_stacks)));
	if (!kprof_scratch || !kprof_stacks) {
		kprof_stacks_exit();
		return -ENOMEM;
	}
	err = register_module_notifier(&kprof_ktrace_nb);
	if (err) {
		kprof_stacks_exit();
		return err;
	}
	kprof_ktrace_registered = true;
	return 0;
}

static void kprof_stacks_free_ksyms(void)
{
	u32 i;

	for (i = 0; i < kprof_stacks_max; i++) {
		kfree(kprof_stacks[i].ksyms);
		kprof_stacks[i].ksyms = NULL;
		kprof_stacks[i].ksyms_len = 0;
	}
}

void kprof_stacks_exit(void)
{
	if (kprof_ktrace_registered)
		unregister_module_notifier(&kprof_ktrace_nb);
	kprof_ktrace_registered = false;
	free_percpu(kprof_scratch);
	kprof_scratch = NULL;
	if (!kprof_stacks)
		return;
	kprof_stacks_free_ksyms();
	vfree(kprof_stacks);
	kprof_stacks = NULL;
}

void kprof_stacks_reset(void)
{
	kprof_stacks_free_ksyms();
	memset(kprof_stacks, 0, array_size(kprof_stacks_max,
					   sizeof(*kprof_stacks)));
	atomic_set(&kprof_stacks_nr, 0);
	kprof_stack_resets++;
}

u32 kprof_stacks_resets(void)
{
	return kprof_stack_resets;
}

u32 kprof_stacks_used(void)
{
	return atomic_read(&kprof_stacks_nr);
}

/*
 * Cut the probe machinery off the top of a kernel trace: keep frames from
 * the first one inside the probed function.  Without a match keep all.
 */
static unsigned int kprof_trim_kernel(const unsigned long *raw, unsigned int n,
				      unsigned long probe_addr,
				      unsigned long *out)
{
	unsigned int i, start = 0;

	for (i = 0; i < n; i++) {
		if (raw[i] - probe_addr < 32) {
			start = i;
			break;
		}
	}
	n = min_t(unsigned int, n - start, KPROF_MAX_KERNEL_FRAMES);
	memcpy(out, raw + start, n * sizeof(*out));
	return n;
}

/*
 * Can @ret be a return address, that is, does a call instruction end just
 * before it?  x86-64: a call rel32 (E8, 5 bytes), or an indirect call FF /2
 * whose ModRM, SIB and displacement end exactly at @ret (prefixes such as
 * REX come before the FF and do not matter).  The bytes are read as one
 * word, in a walk's kprof_user_words_begin() section: an address that is
 * not mapped readable is not one.  A word of received data is as good as
 * never a user address that is mapped and follows a call.
 */
static __always_inline u8 kprof_code_byte(unsigned long code, unsigned int i)
{
	return code >> ((8 * i) & 63);	/* no shift check either */
}

static __always_inline bool kprof_user_call_site(unsigned long ret)
{
	unsigned long code;	/* little-endian: byte 7 ends at @ret */
	unsigned int k, len;
	u8 modrm, mod, rm;

	/*
	 * Bytes by shifting, not from an array: this runs with user access
	 * open, where a bounds check's call (UBSAN) must not be made.
	 */
	if (ret < sizeof(code) || !kprof_user_word(ret - sizeof(code), &code))
		return false;
	if (kprof_code_byte(code, 3) == 0xe8)
		return true;
	for (k = 2; k <= 7; k++) {
		if (kprof_code_byte(code, 8 - k) != 0xff)
			continue;
		modrm = kprof_code_byte(code, 9 - k);
		if (((modrm >> 3) & 7) != 2)
			continue;
		mod = modrm >> 6;
		rm = modrm & 7;
		len = 2;
		if (mod != 3 && rm == 4) {
			len++;					/* SIB */
			if (mod == 0 && k >= 3 &&
			    (kprof_code_byte(code, 10 - k) & 7) == 5)
				len += 4;			/* disp32 */
		}
		if (mod == 0 && rm == 5)
			len += 4;				/* rip+disp32 */
		else if (mod == 1)
			len += 1;
		else if (mod == 2)
			len += 4;
		if (len == k)
			return true;
	}
	return false;
}

/*
 * kprof_user_call_site(@ret), through the cache of this CPU and context
 * level: a hot path returns to the same few call sites sample after
 * sample, and decoding one costs up to 90 instructions (an indirect
 * call), the cache lookup 10.  A verdict is reused only in the same
 * address space (@id, never reused) at the same page-table generation
 * (@gen, which every TLB flush of the address space moves on, before
 * the flush): unmapping or remapping the page it was read from, or
 * changing its protection, retires it.  What a verdict cannot see:
 * code rewritten in place (a JIT, a write to the file behind the
 * mapping or through another mapping of it, ptrace), and a read through
 * a TLB entry whose flush this CPU has not taken yet (it cannot while
 * the handler runs), recorded under the generation that flush began.
 * Either way the address is one that did follow a call instruction in
 * this address space, which a walk without the cache could have read at
 * that moment too; and a frame of a live process leaves the module only
 * inside an executable mapping (kprof_stack_user_check()).  Only "can be
 * a return address" is cached.
 */
static __always_inline bool kprof_user_ret_ok(struct kprof_callsite *cache,
					      unsigned long ret, u64 id,
					      u64 gen)
{
	struct kprof_callsite *c = &cache[(ret ^ (ret >> 6)) %
					  KPROF_CALLSITES];

	if (c->ret == ret && c->mm_id == id && c->mm_gen == gen)
		return true;
	if (!kprof_user_call_site(ret))
		return false;
	c->ret = ret;
	c->mm_id = id;
	c->mm_gen = gen;
	return true;
}

/* Can the walk go on to the frame at @fp (the stack pointer @sp)? */
static __always_inline bool kprof_user_frame_ok(unsigned long fp,
						unsigned long sp)
{
	return fp && !(fp & (sizeof(long) - 1)) && fp >= sp;
}

/*
 * The frame at @fp: its saved frame pointer into *@next, then its return
 * address into *@ret.  One bounds check for both words.
 */
static __always_inline bool kprof_user_frame_read(unsigned long fp,
						  unsigned long *next,
						  unsigned long *ret)
{
	return kprof_user_words(fp, next, ret);
}

/*
 * Walk a user stack by frame pointers, leaf first, from @regs (user mode)
 * or from the registers current entered the kernel with.  User memory is
 * read a word at a time (kprof_compat_uaccess.h) once it is known that
 * it can be read here at all: when @regs interrupted current in user
 * mode, the CPU runs on current's page tables; otherwise the first frame
 * is read with the NMI-safe copy, which checks (into @sc->frame: a local
 * whose address is taken would cost the handler a stack canary).
 */
static __always_inline unsigned int
kprof_walk_user(struct kprof_stack_scratch *sc, struct pt_regs *regs,
		unsigned long *ips, unsigned int max)
{
	unsigned long fp, next = 0, ret = 0;	/* for gcc's -Wmaybe-uninitialized */
	struct mm_struct *mm = current->mm;
	unsigned int n = 0;
	u64 id, gen;
	bool in_user;

	if (!mm || (current->flags & PF_KTHREAD))
		return 0;
	in_user = regs && user_mode(regs);
	if (!in_user)
		regs = task_pt_regs(current);
	if (!user_mode(regs) || !user_64bit_mode(regs))
		return 0;

	ips[n++] = instruction_pointer(regs);
	fp = regs->bp;
	if (n >= max || !kprof_user_frame_ok(fp, regs->sp))
		return n;
	id = kprof_mm_id(mm);
	gen = kprof_mm_gen(mm);
	if (in_user) {
		kprof_user_words_begin();
		if (!kprof_user_frame_read(fp, &next, &ret))
			goto out;
	} else {
		if (kprof_copy_from_user_nofault(sc->frame, (void __user *)fp,
						 sizeof(sc->frame)))
			return n;
		next = sc->frame[0];
		ret = sc->frame[1];
		kprof_user_words_begin();
	}
	for (;;) {
		/*
		 * The chain first: frames live at increasing addresses, and a
		 * saved frame pointer of 0 ends the chain.  Code built without
		 * frame pointers uses the register for anything, e.g. a
		 * pointer into received data, so the "return address" must
		 * also follow a call instruction; and it is exported only if
		 * it lies in an executable mapping of the process
		 * (kprof_stack_user_check()).
		 */
		if (next && next <= fp)
			break;
		if (!ret || ret >= TASK_SIZE_MAX ||
		    !kprof_user_ret_ok(sc->callsite, ret, id, gen))
			break;
		ips[n++] = ret;
		fp = next;
		if (n >= max || !kprof_user_frame_ok(fp, regs->sp) ||
		    !kprof_user_frame_read(fp, &next, &ret))
			break;
	}
out:
	kprof_user_words_end();
	return n;
}

/* An entry's key (tgid, nr_kernel, nr_user) as the union reads it. */
static __always_inline u64 kprof_stack_key(u32 tgid, u16 nk, u16 nu)
{
	return (u64)nu << 48 | (u64)nk << 32 | tgid;
}

static __always_inline bool kprof_stack_equal(const struct kprof_stack_entry *e,
					      u64 key, unsigned int n,
					      const unsigned long *ips)
{
	unsigned int i;

	if (e->key != key)
		return false;
	for (i = 0; i < n; i++)
		if (e->ips[i] != ips[i])
			return false;
	return true;
}

/*
 * The stack's hash, a word at a time (jhash() mixes three 32-bit words
 * per round, and cost a third of a known stack's lookup): from a random
 * seed, xor in a frame and multiply by 2^64 / phi.  A product's bit k
 * depends on every bit up to k of the factors, so the top 30 bits of the
 * last one, the ones kept, depend on every bit of every frame (as in
 * hash_64()).  Only the table's spread depends on it: an equal hash is
 * always followed by a full compare.
 */
static u32 kprof_stack_hash(const unsigned long *ips, unsigned int n,
			    u64 key)
{
	u64 h = (kprof_stack_seed ^ key) * 0x9e3779b97f4a7c15ULL;
	unsigned int i;

	for (i = 0; i < n; i++)
		h = (h ^ ips[i]) * 0x9e3779b97f4a7c15ULL;
	return h >> 34;
}

/*
 * The cache of kernel traces.  Unwinding a kernel stack with ORC costs
 * about 300 instructions a frame, and a probe sees the same few code
 * paths over and over.  A trace from @regs is the same as a cached one
 * when it starts at the same instruction and every return address the
 * cached trace read is still in its slot.  By induction from the first
 * frame, each function's frame size follows from its return address, so
 * the same addresses in the same slots are the same walk; the unwinder
 * gets no other say, because only traces of plain call frames on the
 * task stack that end at the user registers are recorded
 * (kprof_stack_trace_regs()), and a module load or unload (new text,
 * new ORC data) retires them all.
 *
 * The slots are where they were relative to @regs->sp, except one: a
 * system call's entry adds a random offset to the stack below its own
 * frame (RANDOMIZE_KSTACK_OFFSET), so the entry's return address is
 * found relative to the registers the task entered with.  That is sound
 * only for an entry that cannot nest: an exception taken in the kernel
 * during the return to user mode of the same exception runs the same
 * frames again, lower on the stack.  So the last frame is taken relative
 * to the top only when it is the system call entry's return address
 * (kprof_ktrace_syscall_ret, learnt at load); any other trace is used
 * only at the depth it was recorded at, where a nested run cannot be.
 *
 * Not covered: a function that aligns its stack beyond 8 bytes (its frame
 * size then also depends on the alignment of the stack pointer it was
 * called with), whose alignment padding still holds the return address
 * that sat there in the cached trace, and a frame in an ftrace
 * trampoline freed and reused by another ftrace_ops since.  The trace
 * handed out is then the previous one of that path; it holds kernel text
 * addresses only, never data.
 *
 * Per CPU and context level, in the level's scratch buffer (only its
 * owner touches it); a few ways, the oldest replaced.
 */
static unsigned int kprof_ktrace_find(struct kprof_stack_scratch *sc,
				      const struct pt_regs *regs,
				      unsigned int gen)
{
	unsigned long sp = regs->sp, top = (unsigned long)task_pt_regs(current);
	unsigned long base = (unsigned long)task_stack_page(current);
	const struct kprof_ktrace *t;
	unsigned int w, k, end;

	if (sp - base >= top - base)
		return 0;
	for (w = 0; w < KPROF_KTRACE_WAYS; w++) {
		t = &sc->ktrace[w];
		if (t->ip != regs->ip || t->gen != gen || !t->nr ||
		    t->reach > top - sp)
			continue;
		if (t->depth) {
			if (t->depth != top - sp)
				continue;
			end = t->nr;
		} else {
			if (READ_ONCE_NOCHECK(*(unsigned long *)(top - t->top_off)) !=
			    t->ips[t->nr - 1])
				continue;
			end = t->nr - 1;
		}
		for (k = 1; k < end; k++)
			if (READ_ONCE_NOCHECK(*(unsigned long *)(sp + t->off[k])) !=
			    t->ips[k])
				break;
		if (k < end)
			continue;
		memcpy(sc->ips, t->ips, t->nr * sizeof(*t->ips));
		return t->nr;
	}
	return 0;
}

/* Record the trace in @sc->ips, @nr frames from @regs, as cacheable. */
static void kprof_ktrace_add(struct kprof_stack_scratch *sc,
			     const struct pt_regs *regs, unsigned int nr,
			     unsigned int gen)
{
	struct kprof_ktrace *t = &sc->ktrace[sc->ktrace_next++ %
					     KPROF_KTRACE_WAYS];
	unsigned long top = (unsigned long)task_pt_regs(current);
	unsigned int k, end = nr, reach = 0;

	t->depth = top - regs->sp;
	if (kprof_ktrace_syscall_ret &&
	    sc->ips[nr - 1] == kprof_ktrace_syscall_ret) {
		t->depth = 0;
		t->top_off = top - sc->slot[nr - 1];
		end = nr - 1;
	}
	for (k = 1; k < end; k++) {
		t->off[k] = sc->slot[k] - regs->sp;
		reach = max(reach, t->off[k] + (unsigned int)sizeof(long));
	}
	t->reach = reach;
	memcpy(t->ips, sc->ips, nr * sizeof(*t->ips));
	t->ip = regs->ip;
	t->gen = gen;
	t->nr = nr;
}

/*
 * The kernel frames from @regs outwards (a probe's registers, or those of
 * the context a sample interrupted), or all of them from here when @regs
 * is NULL (a return probe).  Not inlined: its unwinder call takes a
 * local's address, which would cost every capture a stack canary, where
 * most samples (user mode) do not come here.
 */
static noinline notrace unsigned int
kprof_kernel_frames(struct kprof_stack_scratch *sc, struct pt_regs *regs)
{
	enum kprof_trace_result res;
	unsigned int n, gen;

	if (regs) {
		gen = atomic_read(&kprof_ktrace_gen);
		n = kprof_ktrace_find(sc, regs, gen);
		if (n)
			return n;
		res = kprof_stack_trace_regs(regs, sc->ips, sc->slot,
					     KPROF_MAX_KERNEL_FRAMES, &n);
		if (res == KPROF_TRACE_CACHEABLE)
			kprof_ktrace_add(sc, regs, n, gen);
		if (res != KPROF_TRACE_NONE)
			return n;
	}
	n = kprof_stack_trace_save(sc->raw, ARRAY_SIZE(sc->raw));
	return kprof_trim_kernel(sc->raw, n,
				 regs ? instruction_pointer(regs) : 0, sc->ips);
}

/*
 * Capture into @sc, the buffer of context level @ctx, and insert.  Inlined
 * into both capture functions: a call of its own costs every capture a
 * frame's setup.
 */
static __always_inline u32 kprof_stack_insert(struct kprof_stack_scratch *sc,
					      struct pt_regs *regs,
					      unsigned int ctx)
{
	struct kprof_stack_entry *e;
	unsigned int nk = 0, nu, i, spin;
	u32 hash, want, slot;
	u64 key;

	if (!regs || !user_mode(regs))
		nk = kprof_kernel_frames(sc, regs);
	nu = kprof_walk_user(sc, regs, sc->ips + nk, KPROF_MAX_USER_FRAMES);
	key = kprof_stack_key(nu ? current->tgid : 0, nk, nu);

	hash = kprof_stack_hash(sc->ips, nk + nu, key);
	/*
	 * The home slot from all 30 bits; in the state word the hash with
	 * its low bit set, never 0 (set before the slot was taken, that bit
	 * left only odd home slots in a table of a power-of-two size)
	 */
	slot = hash % kprof_stacks_max;
	want = (hash | 1) << 2;

	for (i = 0; i < KPROF_STACK_PROBES && i < kprof_stacks_max; i++) {
		u32 st;

		e = &kprof_stacks[slot];
		st = atomic_read_acquire(&e->state);
		if (st == KPROF_STACK_EMPTY) {
			st = atomic_cmpxchg(&e->state, KPROF_STACK_EMPTY,
					    want | KPROF_STACK_BUSY);
			if (st == KPROF_STACK_EMPTY) {
				e->key = key;
				strscpy(e->comm, current->comm, sizeof(e->comm));
				memcpy(e->ips, sc->ips, (nk + nu) * sizeof(*e->ips));
				atomic_set_release(&e->state,
						   want | KPROF_STACK_READY);
				atomic_inc(&kprof_stacks_nr);
				return slot + 1;
			}
		}
		if ((st & ~KPROF_STACK_STATE_MASK) == want) {
			/*
			 * Same hash being written: wait briefly, but only in
			 * task context: in softirq, hardirq or NMI the writer
			 * may be the code this handler interrupted.
			 */
			for (spin = 0; (st & KPROF_STACK_STATE_MASK) ==
			     KPROF_STACK_BUSY; spin++) {
				if (ctx || spin >= KPROF_STACK_SPIN)
					return 0;
				cpu_relax();
				st = atomic_read_acquire(&e->state);
			}
			if (kprof_stack_equal(e, key, nk + nu, sc->ips))
				return slot + 1;
		}
		if (++slot == kprof_stacks_max)
			slot = 0;
	}
	return 0;
}

/*
 * Capture the stacks of current and return their ID, or 0 (the stack is
 * dropped) when the table is full, a slot stays contended or this context
 * level's scratch buffer is taken (a nested capture).  The kernel
 * stack starts at @regs: in the probed function for a probe's registers,
 * at the interrupted instruction for a sample's; a sample of user mode
 * has user frames only.  With @regs NULL (a return probe) the kernel
 * stack is the whole trace from here.
 */
static __always_inline u32 kprof_stack_capture_at(struct pt_regs *regs,
						  unsigned int ctx)
{
	struct kprof_stack_pcpu *pc = this_cpu_ptr(kprof_scratch);
	u32 id;

	if (pc->busy[ctx])
		return 0;
	pc->busy[ctx] = 1;
	barrier();
	id = kprof_stack_insert(&pc->sc[ctx], regs, ctx);
	barrier();
	pc->busy[ctx] = 0;
	return id;
}

u32 notrace kprof_stack_capture(struct pt_regs *regs)
{
	return kprof_stack_capture_at(regs, kprof_ctx_level());
}

/*
 * kprof_stack_capture() for the perf overflow handler, which runs in
 * hardirq (cpu-clock: perf's hrtimer, started HRTIMER_MODE_REL_PINNED_HARD
 * in 6.1's kernel/events/core.c, so on PREEMPT_RT too; in the interrupt
 * on any kernel without PREEMPT_RT) or in NMI (cycles): its level without
 * the rest of kprof_ctx_level().  Were it called at another level, it
 * would share hardirq's buffer, whose busy flag makes a capture that
 * finds it taken a drop, never a mix of two stacks.
 */
u32 notrace kprof_stack_capture_irq(struct pt_regs *regs)
{
	return kprof_stack_capture_at(regs, in_nmi() ? 3 : 2);
}

struct kprof_stack_entry *kprof_stack_get(u32 id)
{
	struct kprof_stack_entry *e;

	if (!id || id > kprof_stacks_max)
		return NULL;
	e = &kprof_stacks[id - 1];
	if ((atomic_read_acquire(&e->state) & KPROF_STACK_STATE_MASK) !=
	    KPROF_STACK_READY)
		return NULL;
	return e;
}

/* The memory of the process @tgid (in the initial PID namespace), or NULL. */
static struct mm_struct *kprof_tgid_mm(u32 tgid)
{
	struct task_struct *t;
	struct mm_struct *mm;

	rcu_read_lock();
	t = pid_task(find_pid_ns(tgid, &init_pid_ns), PIDTYPE_PID);
	if (t)
		get_task_struct(t);
	rcu_read_unlock();
	if (!t)
		return NULL;
	mm = get_task_mm(t);
	put_task_struct(t);
	return mm;
}

/*
 * A user frame leaves the module only if it can be a return address.  The
 * walk kept only words that follow a call instruction; it runs where the
 * process's mappings cannot be looked at (NMI, or any context with
 * preemption off).  This runs in process context, under the mmap lock,
 * once per stack: of a process that is still there, the frames up to the
 * first one outside its executable mappings are kept (the ones after it
 * came through a chain that went wrong there).  A process that is gone
 * keeps what the walk kept; a pid reused since the capture is checked
 * against the new process, where a value that is executable is a code
 * address, not data.
 */
static void kprof_stack_user_check(struct kprof_stack_entry *e)
{
	const unsigned long *ips = e->ips + e->nr_kernel;
	struct vm_area_struct *vma;
	struct mm_struct *mm;
	u16 i = e->nr_user;

	if (e->user_checked)
		return;
	mm = i ? kprof_tgid_mm(e->tgid) : NULL;
	if (mm) {
		kprof_mmap_read_lock(mm);
		for (i = 0; i < e->nr_user; i++) {
			vma = find_vma(mm, ips[i]);
			if (!vma || vma->vm_start > ips[i] ||
			    !(vma->vm_flags & VM_EXEC))
				break;
		}
		kprof_mmap_read_unlock(mm);
		mmput(mm);
	}
	e->nr_user_ok = i;
	e->user_checked = true;
}

/*
 * What exporting @e needs that sleeps or allocates: its user frames
 * checked, its kernel frames resolved.  Process context, serialised by
 * the caller.  0, or -ENOMEM (its kernel frames then go missing).
 */
int kprof_stack_prepare(struct kprof_stack_entry *e)
{
	kprof_stack_user_check(e);
	return kprof_stack_ksyms(e);
}

/*
 * The uapi record of a stack, but for its kernel frames.  Process
 * context, serialised by the caller.
 */
void kprof_stack_fill(struct kprof_stack_entry *e, u32 id,
		      struct kprof_stack *out)
{
	kprof_stack_user_check(e);
	memset(out, 0, sizeof(*out));
	out->id = id;
	out->tgid = e->tgid;
	out->nr_user = e->nr_user_ok;
	memcpy(out->user_ips, e->ips + e->nr_kernel,
	       e->nr_user_ok * sizeof(u64));
	memcpy(out->comm, e->comm, sizeof(out->comm));
}

/*
 * Resolve a stack's kernel frames to "symbol+0xoff/0xsize [module]"
 * strings, once per stack.  Process context, serialised by the caller.
 * sprint_symbol() prints the raw address of a frame it finds no symbol
 * for (e.g. JIT code): that becomes "[unknown]", so no kernel address
 * ever leaves the module.
 */
int kprof_stack_ksyms(struct kprof_stack_entry *e)
{
	char sym[KSYM_SYMBOL_LEN];
	unsigned int i;
	size_t len = 0;
	char *buf;

	if (e->ksyms || !e->nr_kernel)
		return 0;
	buf = kmalloc(e->nr_kernel * KPROF_KSYM_LEN, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < e->nr_kernel; i++) {
		ssize_t n;

		sprint_symbol(sym, e->ips[i]);
		if (!strncmp(sym, "0x", 2))
			strscpy(sym, "[unknown]", sizeof(sym));
		n = strscpy(buf + len, sym, KPROF_KSYM_LEN);
		len += (n < 0 ? KPROF_KSYM_LEN - 1 : n) + 1;
	}
	e->ksyms = buf;
	e->ksyms_len = len;
	return 0;
}
