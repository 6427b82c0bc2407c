// SPDX-License-Identifier: GPL-2.0
/* Tests: user-space symbolization and the stack cache, on this process. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <math.h>
#include <zlib.h>

#include "snapshot.h"
#include "stack.h"
#include "symbolize.h"
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

/* ---- files that another user controls ---- */

/* The file zlib (a stripped system library) is loaded from. */
static const char *zlib_path(void)
{
	Dl_info info;

	if (!dladdr((void *)zlibVersion, &info) || !info.dli_fname)
		return NULL;
	return info.dli_fname;
}

/* @file's .gnu_debuglink name into @buf; 0, or -1 if it has none. */
static int debuglink_of(const char *file, char *buf, size_t len)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC), ret = -1;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *elf;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && !elf_getshdrstrndx(elf, &shstrndx)) {
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *name;
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh))
				continue;
			name = elf_strptr(elf, shstrndx, sh.sh_name);
			if (!name || strcmp(name, ".gnu_debuglink"))
				continue;
			d = elf_getdata(scn, NULL);
			if (d && d->d_size && memchr(d->d_buf, 0, d->d_size)) {
				snprintf(buf, len, "%s", (const char *)d->d_buf);
				ret = 0;
			}
			break;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

struct zlib_load {
	const char *lib;
	void (*after)(const char *lib);
};

static uint64_t zlib_load(void *arg)
{
	const struct zlib_load *z = arg;
	void *h = dlopen(z->lib, RTLD_NOW | RTLD_LOCAL);
	uint64_t a = h ? (uint64_t)(uintptr_t)dlsym(h, "zlibVersion") : 0;

	if (z->after)
		z->after(z->lib);
	return a;
}

/*
 * A child that loads @lib, then runs @after (may be NULL) on @lib, and
 * reports zlibVersion's address in it; it waits to be killed.  Returns
 * its pid (*addr set), or -1.
 */
static pid_t zlib_child(const char *lib, void (*after)(const char *lib),
			uint64_t *addr)
{
	struct zlib_load z = { lib, after };

	return kp_test_child(zlib_load, &z, addr);
}

/*
 * kp_sym_lookup(@pid, @addr) in a reader process of its own, given @secs
 * seconds: elfutils retries an open() that a signal interrupts, so a
 * lookup that blocks can only be ended from outside.  The growth of that
 * reader's peak RSS, in KiB, into *@grew_kib unless NULL.  1, 0, -1 as
 * kp_sym_lookup() (@res set), or -2 when it failed or did not end in
 * time.
 */
int kp_test_sym_reader(pid_t pid, uint64_t addr, int secs,
		       struct kp_sym_res *res, long *grew_kib)
{
	int p[2], found = -2;
	struct pollfd pfd;
	long grew = -1;
	pid_t reader;

	memset(res, 0, sizeof(*res));
	if (pipe(p))
		return -2;
	reader = fork();
	if (!reader) {
		struct kp_sym *sym = kp_sym_new();
		struct rusage r0, r1;

		getrusage(RUSAGE_SELF, &r0);
		found = kp_sym_lookup(sym, pid, addr, 0, res);
		getrusage(RUSAGE_SELF, &r1);
		grew = r1.ru_maxrss - r0.ru_maxrss;
		kp_sym_free(sym);
		if (write(p[1], &found, sizeof(found)) != sizeof(found) ||
		    write(p[1], &grew, sizeof(grew)) != sizeof(grew) ||
		    write(p[1], res, sizeof(*res)) != sizeof(*res))
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	if (reader > 0 && poll(&pfd, 1, secs * 1000) == 1 &&
	    read(p[0], &found, sizeof(found)) == sizeof(found) &&
	    (read(p[0], &grew, sizeof(grew)) != sizeof(grew) ||
	     read(p[0], res, sizeof(*res)) != sizeof(*res)))
		found = -2;
	if (reader > 0) {
		kill(reader, SIGKILL);
		waitpid(reader, NULL, 0);
	}
	close(p[0]);
	if (grew_kib)
		*grew_kib = found == -2 ? -1 : grew;
	return found;
}

/*
 * Debug files are not looked for beside the library (a directory its
 * owner controls) or under the name its .gnu_debuglink gives: FIFOs there
 * blocked the reader in open() for good.
 */
static void test_debug_fifo(void)
{
	char d[] = "/tmp/kprof-t-sym.XXXXXX", lib[96], link[256], f[400];
	const char *z = zlib_path();
	struct kp_sym_res res;
	uint64_t addr;
	pid_t pid;
	int found;

	if (!z || !mkdtemp(d)) {
		EXPECT(0, "setup: zlib at %s", z ? z : "?");
		return;
	}
	snprintf(lib, sizeof(lib), "%s/libkpt.so", d);
	EXPECT(!kp_test_copy_file(z, lib), "copy %s", z);
	snprintf(f, sizeof(f), "%s.debug", lib);
	EXPECT(!mkfifo(f, 0644), "fifo %s", f);
	snprintf(f, sizeof(f), "%s/.debug", d);
	mkdir(f, 0755);
	if (!debuglink_of(lib, link, sizeof(link))) {
		snprintf(f, sizeof(f), "%s/%s", d, link);
		EXPECT(!mkfifo(f, 0644), "fifo %s", f);
		snprintf(f, sizeof(f), "%s/.debug/%s", d, link);
		EXPECT(!mkfifo(f, 0644), "fifo %s", f);
	}
	pid = zlib_child(lib, NULL, &addr);
	if (pid < 0) {
		EXPECT(0, "child");
		goto out;
	}
	found = kp_test_sym_reader(pid, addr, 20, &res, NULL);
	EXPECT(found != -2, "the lookup blocked (20 s): a FIFO was opened");
	EXPECT(found == 1 && !strcmp(res.func, "zlibVersion"),
	       "found %d '%s' in '%s'", found, res.func, res.module);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
out:
	kp_test_rmtree(d);
}

static const char *secret_lib;

/* Delete the loaded library; plant "LIB (deleted)" -> another library. */
static void replace_deleted(const char *lib)
{
	char f[128];

	unlink(lib);
	snprintf(f, sizeof(f), "%s (deleted)", lib);
	if (symlink(secret_lib, f))
		_exit(1);
}

/*
 * A deleted library whose maps name, "LIB (deleted)", is now a symlink to
 * another file: the symbols come from the mapped file, never from the
 * file the link points at (libm here, a root-only file in the attack).
 */
static void test_deleted_symlink(void)
{
	char d[] = "/tmp/kprof-t-sym.XXXXXX", lib[96];
	Dl_info info;
	const char *z = zlib_path();
	struct kp_sym_res res;
	struct kp_sym *sym;
	uint64_t addr;
	pid_t pid;
	int found;

	if (!z || !dladdr((void *)cos, &info) || !info.dli_fname ||
	    !mkdtemp(d)) {
		EXPECT(0, "setup");
		return;
	}
	secret_lib = info.dli_fname;
	snprintf(lib, sizeof(lib), "%s/libkpx.so", d);
	EXPECT(!kp_test_copy_file(z, lib), "copy %s", z);
	pid = zlib_child(lib, replace_deleted, &addr);
	sym = kp_sym_new();
	if (pid < 0 || !sym) {
		EXPECT(0, "child or symbolizer");
		goto out;
	}
	found = kp_sym_lookup(sym, pid, addr, 0, &res);
	EXPECT(found == 1 && !strcmp(res.func, "zlibVersion"),
	       "found %d '%s' in '%s' (the link points at %s)", found,
	       res.func, res.module, secret_lib);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
out:
	kp_sym_free(sym);
	kp_test_rmtree(d);
}

const struct kp_test t_symbolize[] = {
	{ "symbolize: functions of this process and libc", test_self },
	{ "symbolize: unmapped, ip 0, dead and invalid processes are [unknown]", test_unknown },
	{ "symbolize: a process exiting between intervals", test_process_exits },
	{ "symbolize: maps re-read on a miss at most once per interval", test_refresh_once_per_interval },
	{ "symbolize: more processes than the cache holds", test_many_processes },
	{ "symbolize: no debug file beside a library or by its debuglink (FIFOs there)", test_debug_fifo },
	{ "symbolize: a deleted library is read from the mapping, not a planted symlink", test_deleted_symlink },
	{ "stack: cache from a snapshot, then the module, once per ID", test_stack_cache },
	{ "stack: kp_stack_check on a query's strings", test_stack_check },
	{ NULL, NULL },
};
