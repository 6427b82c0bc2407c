// SPDX-License-Identifier: GPL-2.0
/* Tests: user-space symbolization and the stack cache, on this process. */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../snapshot.h"
#include "../stack.h"
#include "../symbolize.h"
#include "synth.h"
#include "unit.h"

/* Functions with known names to find again. */
__attribute__((noinline, used)) int kp_test_target_fn(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 3 + 1;
}

__attribute__((noinline, used)) int kp_test_caller_fn(int x)
{
	__asm__ volatile("" ::: "memory");
	return kp_test_target_fn(x) + 2;
}

static uint64_t addr_of(const void *fn)
{
	return (uint64_t)(uintptr_t)fn;
}

static int starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* A child that is gone (reaped) by the time this returns. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	if (!pid)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

static void test_self(void)
{
	struct kp_sym *sym = kp_sym_new();
	char buf[KP_SYM_LEN];
	int ret;

	EXPECT(sym, "kp_sym_new");
	if (!sym)
		return;
	ret = kp_sym_user(sym, getpid(), addr_of(kp_test_target_fn) + 4, 0,
			  buf, sizeof(buf));
	EXPECT(!ret && starts_with(buf, "kp_test_target_fn+0x4 (unit"),
	       "got '%s'", buf);
	/* A return address one past the start is looked up at the start. */
	ret = kp_sym_user(sym, getpid(), addr_of(kp_test_caller_fn) + 1, 1,
			  buf, sizeof(buf));
	EXPECT(!ret && starts_with(buf, "kp_test_caller_fn+0x1 (unit"),
	       "got '%s'", buf);
	ret = kp_sym_user(sym, getpid(), addr_of(getpid), 0, buf, sizeof(buf));
	EXPECT(!ret && strstr(buf, "getpid+0x0 (libc.so.6)"), "got '%s'", buf);
	kp_sym_free(sym);
}

static void test_unknown(void)
{
	struct kp_sym *sym = kp_sym_new();
	char buf[KP_SYM_LEN];

	EXPECT(sym, "kp_sym_new");
	if (!sym)
		return;
	EXPECT(kp_sym_user(sym, getpid(), 0x10, 0, buf, sizeof(buf)) &&
	       !strcmp(buf, KP_SYM_UNKNOWN), "unmapped: '%s'", buf);
	EXPECT(kp_sym_user(sym, getpid(), 0, 1, buf, sizeof(buf)) &&
	       !strcmp(buf, KP_SYM_UNKNOWN), "ip 0: '%s'", buf);
	EXPECT(kp_sym_user(sym, dead_pid(), addr_of(kp_test_target_fn), 0, buf,
			   sizeof(buf)) && !strcmp(buf, KP_SYM_UNKNOWN),
	       "dead process: '%s'", buf);
	EXPECT(kp_sym_user(sym, 0, addr_of(kp_test_target_fn), 0, buf,
			   sizeof(buf)) && !strcmp(buf, KP_SYM_UNKNOWN),
	       "tgid 0: '%s'", buf);
	EXPECT(kp_sym_user(sym, -5, addr_of(kp_test_target_fn), 0, buf,
			   sizeof(buf)) && !strcmp(buf, KP_SYM_UNKNOWN),
	       "negative tgid: '%s'", buf);
	EXPECT(kp_sym_user(NULL, getpid(), addr_of(kp_test_target_fn), 0, buf,
			   sizeof(buf)) && !strcmp(buf, KP_SYM_UNKNOWN),
	       "no symbolizer: '%s'", buf);
	/* A tiny buffer is truncated, not overrun. */
	kp_sym_user(sym, getpid(), addr_of(kp_test_target_fn), 0, buf, 5);
	EXPECT(strlen(buf) == 4, "truncated to '%s'", buf);
	kp_sym_free(sym);
}

static void test_process_exits(void)
{
	struct kp_sym *sym = kp_sym_new();
	char buf[KP_SYM_LEN];
	pid_t pid;
	int ret;

	if (!EXPECT(sym, "kp_sym_new"))
		return;
	pid = fork();
	if (!pid) {
		pause();
		_exit(0);
	}
	/* Same binary, same layout after fork. */
	ret = kp_sym_user(sym, pid, addr_of(kp_test_target_fn), 0, buf,
			  sizeof(buf));
	EXPECT(!ret && starts_with(buf, "kp_test_target_fn+0x0 (unit"),
	       "live child: '%s'", buf);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	kp_sym_tick(sym);
	/* A miss re-reads the maps once, finds the process gone. */
	ret = kp_sym_user(sym, pid, 0x10, 0, buf, sizeof(buf));
	EXPECT(ret && !strcmp(buf, KP_SYM_UNKNOWN), "gone: '%s'", buf);
	ret = kp_sym_user(sym, pid, addr_of(kp_test_target_fn), 0, buf,
			  sizeof(buf));
	EXPECT(ret && !strcmp(buf, KP_SYM_UNKNOWN), "gone, cached: '%s'", buf);
	kp_sym_free(sym);
}

static void test_refresh_once_per_interval(void)
{
	struct kp_sym *sym = kp_sym_new();
	char buf[KP_SYM_LEN];
	void *lib, *fn;
	int ret;

	if (!EXPECT(sym, "kp_sym_new"))
		return;
	if (dlopen("libcrypt.so.1", RTLD_NOW | RTLD_NOLOAD)) {
		printf("#   skipped: libcrypt.so.1 already loaded\n");
		kp_sym_free(sym);
		return;
	}
	/* Read our maps before the library exists. */
	kp_sym_user(sym, getpid(), addr_of(kp_test_target_fn), 0, buf,
		    sizeof(buf));
	lib = dlopen("libcrypt.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		printf("#   skipped: no libcrypt.so.1 (%s)\n", dlerror());
		kp_sym_free(sym);
		return;
	}
	fn = dlsym(lib, "crypt");
	EXPECT(fn, "dlsym(crypt)");
	ret = kp_sym_user(sym, getpid(), addr_of(fn), 0, buf, sizeof(buf));
	EXPECT(ret && !strcmp(buf, KP_SYM_UNKNOWN),
	       "same interval, maps already read: '%s'", buf);
	kp_sym_tick(sym);
	ret = kp_sym_user(sym, getpid(), addr_of(fn), 0, buf, sizeof(buf));
	EXPECT(!ret && strstr(buf, "crypt+0x0 (libcrypt.so.1"),
	       "next interval, re-read: '%s'", buf);
	dlclose(lib);
	kp_sym_free(sym);
}

static unsigned int open_fds(void)
{
	unsigned int n = 0;
	char path[64];
	int fd;

	for (fd = 0; fd < 4096; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n += !access(path, F_OK);
	}
	return n;
}

static void test_many_processes(void)
{
	struct kp_sym *sym = kp_sym_new();
	unsigned int i, fds0, fds1;
	char buf[KP_SYM_LEN];
	pid_t kids[48];

	if (!EXPECT(sym, "kp_sym_new"))
		return;
	fds0 = open_fds();
	/* More processes than the cache holds: evictions, no leaks. */
	for (i = 0; i < 48; i++) {
		kids[i] = fork();
		if (!kids[i]) {
			pause();
			_exit(0);
		}
		EXPECT(!kp_sym_user(sym, kids[i], addr_of(kp_test_target_fn),
				    0, buf, sizeof(buf)), "child %u: '%s'", i, buf);
		kp_sym_user(sym, dead_pid(), 0x1000, 0, buf, sizeof(buf));
		EXPECT(!strcmp(buf, KP_SYM_UNKNOWN), "dead: '%s'", buf);
	}
	fds1 = open_fds();
	printf("#   %u descriptors open for 48 processes (%u before)\n", fds1,
	       fds0);
	EXPECT(fds1 <= fds0 + 2 * 32 + 8, "%u descriptors: evictions leak", fds1);
	for (i = 0; i < 48; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	kp_sym_free(sym);
	EXPECT(open_fds() == fds0, "descriptors left open: %u, %u before",
	       open_fds(), fds0);
}

/* --- the stack cache ------------------------------------------------------ */

static void test_stack_cache(void)
{
	char err[KP_SNAP_ERR_LEN] = "";
	const struct synth_layout l = { .nr_rows = 3, .nr_stacks = 3 };
	struct kp_stack_info *si, *again;
	struct kprof_stack *st;
	struct kp_snapshot snap;
	struct kp_stacks cache;
	struct kp_sym *sym;
	const char *fr[3];
	struct synth s;
	unsigned int n;

	sym = kp_sym_new();
	if (!EXPECT(sym, "kp_sym_new"))
		return;
	synth_build(&s, &l);
	st = synth_stack(&s, 0);		/* ID 7: this process */
	st->tgid = getpid();
	st->user_ips[0] = addr_of(kp_test_target_fn) + 4;
	st->user_ips[1] = addr_of(kp_test_caller_fn) + 9;
	st = synth_stack(&s, 1);		/* ID 3: a gone process */
	st->tgid = dead_pid();
	st = synth_stack(&s, 2);		/* ID 11: kernel only */
	st->nr_user = 0;
	st->tgid = 0;
	st->nr_kernel = 2;
	st->ksyms_off = 21;
	if (!EXPECT(!kp_snapshot_copy(s.buf, s.size, &snap, err, sizeof(err)),
		    "copy: %s", err)) {
		synth_free(&s);
		kp_sym_free(sym);
		return;
	}
	kp_stacks_init(&cache, -1, sym);

	si = kp_stacks_get(&cache, 7, &snap);
	EXPECT(si && !si->err, "stack 7 from the snapshot");
	if (si && !si->err) {
		EXPECT(!strcmp(si->comm, "curl-with-a-long"), "comm '%s'", si->comm);
		EXPECT(si->nr_kernel == 3 &&
		       !strcmp(si->kernel[1], "inet_sendmsg+0x3c/0x70"),
		       "kernel frames");
		n = kp_stack_top(&cache, si, fr, 3);
		EXPECT(n == 2, "%u top frames", n);
		EXPECT(n >= 1 && starts_with(fr[0], "kp_test_target_fn+0x4 (unit"),
		       "leaf: '%s'", n >= 1 ? fr[0] : "");
		EXPECT(n >= 2 && starts_with(fr[1], "kp_test_caller_fn+0x9 (unit"),
		       "caller: '%s'", n >= 2 ? fr[1] : "");
	}
	si = kp_stacks_get(&cache, 3, &snap);
	EXPECT(si && !si->err, "stack 3");
	if (si && !si->err) {
		n = kp_stack_top(&cache, si, fr, 3);
		EXPECT(n == 2 && !strcmp(fr[0], KP_SYM_UNKNOWN) &&
		       !strcmp(fr[1], KP_SYM_UNKNOWN), "gone process: unknown");
	}
	si = kp_stacks_get(&cache, 11, &snap);
	EXPECT(si && !si->err, "stack 11");
	if (si && !si->err) {
		n = kp_stack_top(&cache, si, fr, 3);
		EXPECT(n == 2 && !strcmp(fr[0], "inet_sendmsg+0x3c/0x70"),
		       "kernel-only stack shows kernel frames");
	}
	/* Not in the snapshot: asks the module (fd -1 here), once. */
	si = kp_stacks_get(&cache, 99, &snap);
	EXPECT(si && si->err == -EBADF, "stack 99: err %d", si ? si->err : 0);
	again = kp_stacks_get(&cache, 99, NULL);
	EXPECT(again == si, "stack 99 cached");
	again = kp_stacks_get(&cache, 7, NULL);
	EXPECT(again && !again->err && again->id == 7, "stack 7 cached");
	EXPECT(cache.n == 4, "%zu cached", cache.n);
	for (n = 1; n < cache.n; n++)
		EXPECT(cache.v[n - 1]->id < cache.v[n]->id, "cache sorted");

	kp_stacks_fini(&cache);
	kp_snapshot_free(&snap);
	synth_free(&s);
	kp_sym_free(sym);
}

static void test_stack_check(void)
{
	static const char strs[] = "a+0x0/0x1\0b+0x1/0x2\0";
	struct kprof_stack st = { .id = 5, .nr_kernel = 2 };
	char err[KP_SNAP_ERR_LEN];

	EXPECT(!kp_stack_check(&st, strs, sizeof(strs) - 1, err, sizeof(err)),
	       "good: %s", err);
	EXPECT(!strcmp(kp_stack_ksym(&st, strs, 1), "b+0x1/0x2"), "frame 1");
	EXPECT(kp_stack_check(&st, strs, sizeof(strs) - 2, err, sizeof(err)) ==
	       -EBADMSG, "unterminated");
	st.ksyms_off = 10;
	EXPECT(kp_stack_check(&st, strs, sizeof(strs) - 1, err, sizeof(err)) ==
	       -EBADMSG, "second string has no successor");
	st.nr_kernel = 1;
	EXPECT(!kp_stack_check(&st, strs, sizeof(strs) - 1, err, sizeof(err)),
	       "one frame at 10");
	st.nr_kernel = 0;
	st.ksyms_off = 0xffffffff;
	EXPECT(!kp_stack_check(&st, strs, sizeof(strs) - 1, err, sizeof(err)),
	       "no kernel frames: offset unused");
	EXPECT(!kp_stack_check(&st, NULL, 0, err, sizeof(err)), "no strings");
}

const struct kp_test t_symbolize[] = {
	{ "symbolize: functions of this process and libc", test_self },
	{ "symbolize: unmapped, ip 0, dead and invalid processes are [unknown]", test_unknown },
	{ "symbolize: a process exiting between intervals", test_process_exits },
	{ "symbolize: maps re-read on a miss at most once per interval", test_refresh_once_per_interval },
	{ "symbolize: more processes than the cache holds", test_many_processes },
	{ "stack: cache from a snapshot, then the module, once per ID", test_stack_cache },
	{ "stack: kp_stack_check on a query's strings", test_stack_check },
	{ NULL, NULL },
};
