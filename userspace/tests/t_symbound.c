// SPDX-License-Identifier: GPL-2.0
/*
 * Tests: symbolizing what another process controls is bounded work, done
 * in a helper without privilege.  Each case is an attack that worked on
 * the reader when it parsed ELF files itself: a forged vDSO header, a
 * library whose symbol table is huge, a lookup that takes too long.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "symbolize.h"
#include "symhelper.h"
#include "unit.h"

/* [vdso]'s range in /proc/self/maps; 0, or -1. */
static int vdso_range(uint64_t *start, uint64_t *end)
{
	FILE *f = fopen("/proc/self/maps", "re");
	unsigned long long s, e;
	char line[512];
	int ret = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") &&
		    sscanf(line, "%llx-%llx", &s, &e) == 2) {
			*start = s;
			*end = e;
			ret = 0;
			break;
		}
	fclose(f);
	return ret;
}

static void reap(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}


/* The vDSO of a process is symbolized from its mapping, as "[vdso]". */
static void test_vdso(void)
{
	struct kp_sym_res res;
	struct kp_sym *sym;
	uint64_t start, end, a;
	int found, named = 0;

	if (!EXPECT(!vdso_range(&start, &end), "no [vdso] in our maps"))
		return;
	sym = kp_sym_new();
	if (!EXPECT(sym, "kp_sym_new"))
		return;
	found = kp_sym_lookup(sym, getpid(), start + 0x10, 0, &res);
	EXPECT(found >= 0 && !strcmp(res.module, "[vdso]") &&
	       res.mod_off == 0x10, "found %d '%s' in '%s'+0x%llx", found,
	       res.func, res.module, (unsigned long long)res.mod_off);
	/* Its functions, after the headers. */
	for (a = start + 0x400; a < end && !named; a += 0x40)
		named = kp_sym_lookup(sym, getpid(), a, 0, &res) == 1 &&
			!strncmp(res.func, "__vdso_", 7);
	EXPECT(named, "no __vdso_ function found in [vdso]");
	kp_sym_free(sym);
}

#define FORGED_MIB	256

/*
 * Rewrite a program header of our vDSO into a FORGED_MIB MiB segment that
 * lies in anonymous memory of ours: never touched, so it costs this
 * process nothing, but a reader that sizes its copy of the image from the
 * headers reads (and keeps) all of it.
 */
static uint64_t forge_vdso(void *arg)
{
	size_t big = (size_t)FORGED_MIB << 20;
	uint64_t start, end;
	Elf64_Ehdr *eh;
	Elf64_Phdr *ph;
	void *anon;
	int i;

	(void)arg;
	if (vdso_range(&start, &end))
		return 0;
	anon = mmap(NULL, big, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (anon == MAP_FAILED)
		return 0;
	/* From here on this process must not call into its vDSO. */
	if (mprotect((void *)(uintptr_t)start, end - start,
		     PROT_READ | PROT_WRITE))
		return 0;
	eh = (Elf64_Ehdr *)(uintptr_t)start;
	ph = (Elf64_Phdr *)(uintptr_t)(start + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type != PT_LOAD)
			break;
	if (i == eh->e_phnum)
		return 0;
	ph[i].p_type = PT_LOAD;
	ph[i].p_offset = 0;
	ph[i].p_vaddr = (uint64_t)(uintptr_t)anon - start;
	ph[i].p_paddr = ph[i].p_vaddr;
	ph[i].p_filesz = big;
	ph[i].p_memsz = big;
	ph[i].p_align = 4096;
	return start + 0x800;
}

static void test_vdso_forged(void)
{
	struct kp_sym_res res;
	uint64_t addr;
	long grew;
	pid_t pid;
	int found;

	pid = kp_test_child(forge_vdso, NULL, &addr);
	if (!EXPECT(pid > 0, "could not forge a child's vDSO"))
		return;
	found = kp_test_sym_reader(pid, addr, 120, &res, &grew);
	kp_test_diag("forged vDSO: found %d in '%s', reader's peak RSS +%ld KiB",
		     found, res.module, grew);
	EXPECT(found != -2, "the reader failed");
	EXPECT(grew >= 0 && grew < 32 * 1024,
	       "the reader's peak RSS grew by %ld KiB on a forged header",
	       grew);
	reap(pid);
}

/* --- a library with a huge symbol table ---------------------------------- */

#define HUGE_SYMS	(6u << 20)	/* more than the reader looks through */

/*
 * Point @lib's .dynsym section header (not the dynamic segment the loader
 * uses) at @nsyms zero symbols in a hole at the end of the file.  0, or -1.
 */
static int grow_dynsym(const char *lib, unsigned int nsyms)
{
	int fd = open(lib, O_RDWR | O_CLOEXEC), ret = -1;
	Elf64_Shdr sh;
	Elf64_Ehdr eh;
	struct stat st;
	off_t at;
	int i;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64)
		goto out;
	at = (st.st_size + 4095) & ~(off_t)4095;
	for (i = 0; i < eh.e_shnum; i++) {
		off_t o = eh.e_shoff + (off_t)i * eh.e_shentsize;

		if (pread(fd, &sh, sizeof(sh), o) != sizeof(sh))
			goto out;
		if (sh.sh_type != SHT_DYNSYM)
			continue;
		sh.sh_offset = at;
		sh.sh_size = (uint64_t)nsyms * sizeof(Elf64_Sym);
		if (pwrite(fd, &sh, sizeof(sh), o) == sizeof(sh) &&
		    !ftruncate(fd, at + sh.sh_size))
			ret = 0;
		break;
	}
out:
	close(fd);
	return ret;
}

static uint64_t load_lib(void *lib)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);

	return h ? (uint64_t)(uintptr_t)dlsym(h, "zlibVersion") : 0;
}

/*
 * A child that loaded a copy of zlib whose .dynsym claims HUGE_SYMS
 * symbols; its pid (*addr: zlibVersion there), or -1.  @dir is removed
 * by the caller.
 */
static pid_t huge_symtab_child(char *dir, uint64_t *addr)
{
	static char lib[96];
	Dl_info info;

	if (!dladdr((void *)zlibVersion, &info) || !info.dli_fname ||
	    !mkdtemp(dir))
		return -1;
	snprintf(lib, sizeof(lib), "%s/libkph.so", dir);
	if (kp_test_copy_file(info.dli_fname, lib) || grow_dynsym(lib, HUGE_SYMS))
		return -1;
	return kp_test_child(load_lib, lib, addr);
}

/*
 * The reader does not walk a symbol table larger than it can afford, and
 * nothing it maps or reads for one grows the reader itself.
 */
static void test_huge_symtab(void)
{
	char d[] = "/tmp/kprof-t-symb.XXXXXX";
	struct kp_sym_res res;
	uint64_t addr;
	long grew;
	pid_t pid;
	int found;

	pid = huge_symtab_child(d, &addr);
	if (!EXPECT(pid > 0, "setup"))
		goto out;
	found = kp_test_sym_reader(pid, addr, 120, &res, &grew);
	kp_test_diag("%u symbols: found %d '%s' in '%s', reader's peak RSS +%ld KiB",
		     HUGE_SYMS, found, res.func, res.module, grew);
	EXPECT(found == 0 && !strcmp(res.module, "libkph.so"),
	       "module only: %d '%s' in '%s'", found, res.func, res.module);
	EXPECT(grew >= 0 && grew < 32 * 1024,
	       "the reader's peak RSS grew by %ld KiB", grew);
	reap(pid);
out:
	kp_test_rmtree(d);
}

/* --- the helper ----------------------------------------------------------- */

/* "Key:\tvalue" of /proc/@pid/status into @buf; 0, or -1. */
static int status_field(pid_t pid, const char *key, char *buf, size_t len)
{
	size_t klen = strlen(key);
	char path[64], line[256];
	int ret = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			snprintf(buf, len, "%s", line + klen + 1 +
				 strspn(line + klen + 1, " \t"));
			buf[strcspn(buf, "\n")] = '\0';
			ret = 0;
			break;
		}
	fclose(f);
	return ret;
}

/*
 * ELF files are parsed in a helper process: no capability, no new
 * privileges, a seccomp filter, another user when the reader is root, and
 * an address-space limit.
 */
static void test_helper_sandbox(void)
{
	struct kp_sym *sym = kp_sym_new();
	char v[256], limits[64], line[256];
	struct kp_sym_res res;
	pid_t helper;
	FILE *f;

	if (!EXPECT(sym, "kp_sym_new"))
		return;
	kp_sym_lookup(sym, getpid(), (uint64_t)(uintptr_t)getpid, 0, &res);
	EXPECT(strstr(res.func, "getpid"), "lookup: '%s'", res.func);
	helper = kp_sym_helper_pid(sym);
	if (!EXPECT(helper > 0 && helper != getpid(), "helper %d", helper))
		goto out;
	EXPECT(!status_field(helper, "CapEff", v, sizeof(v)) &&
	       !strcmp(v, "0000000000000000"), "CapEff %s", v);
	EXPECT(!status_field(helper, "CapPrm", v, sizeof(v)) &&
	       !strcmp(v, "0000000000000000"), "CapPrm %s", v);
	EXPECT(!status_field(helper, "NoNewPrivs", v, sizeof(v)) &&
	       !strcmp(v, "1"), "NoNewPrivs %s", v);
	EXPECT(!status_field(helper, "Seccomp", v, sizeof(v)) &&
	       !strcmp(v, "2"), "Seccomp %s", v);
	if (!geteuid())
		EXPECT(!status_field(helper, "Uid", v, sizeof(v)) &&
		       !strncmp(v, "65534\t65534\t65534\t65534", 23),
		       "Uid %s", v);
	snprintf(limits, sizeof(limits), "/proc/%d/limits", (int)helper);
	f = fopen(limits, "re");
	v[0] = '\0';
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Max address space", 17))
			snprintf(v, sizeof(v), "%.200s", line + 17);
	if (f)
		fclose(f);
	EXPECT(v[0] && !strstr(v, "unlimited"), "address space:%s", v);
	/* The helper ends with the symbolizer. */
	kp_sym_free(sym);
	sym = NULL;
	EXPECT(kill(helper, 0) && errno == ESRCH, "helper %d still there",
	       helper);
out:
	kp_sym_free(sym);
}

/*
 * A sandboxed helper ends by _exit() with the status it gives, in every
 * build: a sanitizer's runtime queries sigaltstack() before a noreturn
 * call, and the filter must let that query through.
 */
static void test_helper_exit_status(void)
{
	int sv[2], status = -1;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		EXPECT(0, "socketpair");
		return;
	}
	pid = fork();
	if (!pid) {
		close(sv[0]);
		if (kp_symh_sandbox(sv[1], getppid()) < 0)
			_exit(2);
		_exit(0);
	}
	close(sv[1]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	close(sv[0]);
	EXPECT(pid > 0 && WIFEXITED(status) && !WEXITSTATUS(status),
	       "sandboxed helper's _exit(0) ended with status 0x%x", status);
}

/* A reader killed outright takes its helper with it. */
static void test_helper_dies_with_reader(void)
{
	pid_t reader, helper = -1, w;
	int p[2], i, status;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1) || pipe(p)) {
		EXPECT(0, "setup");
		return;
	}
	reader = fork();
	if (!reader) {
		struct kp_sym *sym = kp_sym_new();
		struct kp_sym_res res;

		kp_sym_lookup(sym, getpid(), (uint64_t)(uintptr_t)getpid, 0,
			      &res);
		helper = kp_sym_helper_pid(sym);
		if (write(p[1], &helper, sizeof(helper)) != sizeof(helper))
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (reader < 0 || read(p[0], &helper, sizeof(helper)) !=
	    sizeof(helper) || helper <= 0) {
		EXPECT(0, "no helper");
		reap(reader);
		goto out;
	}
	reap(reader);
	/* Orphaned, the helper is ours to reap (subreaper). */
	for (i = 0, w = 0; i < 500 && !w; i++) {
		w = waitpid(helper, &status, WNOHANG);
		if (!w)
			usleep(10000);
	}
	/* at the socket's end if idle, by its parent-death signal if busy */
	EXPECT(w == helper, "helper %d after its reader was killed: waitpid %d",
	       helper, w);
	EXPECT(w != helper || (WIFEXITED(status) && !WEXITSTATUS(status)) ||
	       (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL),
	       "helper ended with status 0x%x", status);
	if (!w)
		reap(helper);
out:
	close(p[0]);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
}

/* A helper whose work takes 50 ms of CPU before it serves anything. */
static void spinning_helper(int sock, pid_t reader)
{
	struct timespec t0, t;

	(void)sock;
	(void)reader;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000LL +
	       (t.tv_nsec - t0.tv_nsec) < 50000000LL);
}

/*
 * A lookup that runs out of time (its helper spins 50 ms of CPU, the
 * limit is 10 ms) ends the helper, not the reader: that process is given
 * up (its frames "[unknown]"), the others go on, with a new helper.
 */
static void test_timeout(void)
{
	char d[] = "/tmp/kprof-t-symb.XXXXXX";
	struct kp_sym_res res;
	struct kp_sym *sym;
	pid_t pid, first;
	uint64_t addr;
	int found;

	sym = kp_sym_new();
	pid = huge_symtab_child(d, &addr);
	if (!EXPECT(sym && pid > 0, "setup"))
		goto out;
	kp_sym_set_helper_main(sym, spinning_helper);
	kp_sym_set_timeout(sym, 10);
	found = kp_sym_lookup(sym, pid, addr, 0, &res);
	first = kp_sym_helper_pid(sym);
	EXPECT(found == -1 && !res.module[0], "10 ms: found %d in '%s'", found,
	       res.module);
	EXPECT(first <= 0, "helper %d left running after a timeout", first);
	kp_sym_set_timeout(sym, 20000);
	found = kp_sym_lookup(sym, pid, addr, 0, &res);
	EXPECT(found == -1, "given up on: found %d in '%s'", found,
	       res.module);
	found = kp_sym_lookup(sym, getpid(), (uint64_t)(uintptr_t)getpid, 0,
			      &res);
	EXPECT(found == 1 && strstr(res.func, "getpid"),
	       "another process after a timeout: %d '%s'", found, res.func);
	EXPECT(kp_sym_helper_pid(sym) > 0, "no new helper");
	/* A helper killed between lookups is replaced at the next one. */
	kill(kp_sym_helper_pid(sym), SIGKILL);
	usleep(100000);
	found = kp_sym_lookup(sym, getpid(), (uint64_t)(uintptr_t)getpid, 0,
			      &res);
	EXPECT(found == 1 && strstr(res.func, "getpid"),
	       "after the helper was killed: %d '%s'", found, res.func);
	kp_sym_tick(sym);
	found = kp_sym_lookup(sym, pid, addr, 0, &res);
	EXPECT(found == -1, "given up on, next interval: %d", found);
out:
	reap(pid);
	kp_sym_free(sym);
	kp_test_rmtree(d);
}

/*
 * The time limit is the helper's CPU time, not the clock's: a helper that
 * a busy machine does not run for a while (here: one that sleeps before it
 * serves) is not given up on.  On a debug kernel with both CPUs busy, a
 * lookup took longer than 5 s of wall-clock time, and a spinning
 * program's frames all stayed [unknown].
 */
static void starved_helper(int sock, pid_t reader)
{
	(void)sock;
	(void)reader;
	usleep(1500000);
}

static void test_starved_helper(void)
{
	struct kp_sym_res res;
	struct kp_sym *sym = kp_sym_new();
	int found;

	if (!EXPECT(sym, "kp_sym_new"))
		return;
	kp_sym_set_helper_main(sym, starved_helper);
	kp_sym_set_timeout(sym, 1000);
	found = kp_sym_lookup(sym, getpid(), (uint64_t)(uintptr_t)getpid, 0,
			      &res);
	EXPECT(found == 1 && strstr(res.func, "getpid"),
	       "helper that did not run for 1.5 s, 1 s limit (4 s on the clock): %d '%s'",
	       found, res.func);
	kp_sym_free(sym);
}

/*
 * ...but a helper that cannot run at all (stopped: by a signal from its
 * own user, nobody, or by a tracer) is given up on at once, not after
 * the wall-clock limit.
 */
static void stopped_helper(int sock, pid_t reader)
{
	(void)sock;
	(void)reader;
	raise(SIGSTOP);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void test_stopped_helper(void)
{
	struct kp_sym_res res;
	struct kp_sym *sym = kp_sym_new();
	uint64_t t0;
	int found;

	if (!EXPECT(sym, "kp_sym_new"))
		return;
	kp_sym_set_helper_main(sym, stopped_helper);
	kp_sym_set_timeout(sym, 2000);
	t0 = mono_ns();
	found = kp_sym_lookup(sym, getpid(), (uint64_t)(uintptr_t)getpid, 0,
			      &res);
	t0 = mono_ns() - t0;
	EXPECT(found == -1, "stopped helper: found %d", found);
	EXPECT(t0 < 1500000000ULL, "stopped helper given up on after %llu ms, "
	       "limit 2 s", (unsigned long long)(t0 / 1000000));
	EXPECT(kp_sym_helper_pid(sym) <= 0, "stopped helper left behind");
	kp_sym_free(sym);
}

/* --- a helper gone wrong ---------------------------------------------------- */

/*
 * A helper that floods the reader with requests for files and never
 * reads the answers (a parser that was taken over could).
 */
static void flooding_helper(int sock, pid_t reader)
{
	struct kp_symh_req req;
	struct kp_symh_msg m = { .op = KP_SYMH_NEED_DEBUG };

	(void)reader;
	if (recv(sock, &req, sizeof(req), 0) != sizeof(req))
		_exit(1);
	for (;;)
		if (send(sock, &m, sizeof(m), MSG_NOSIGNAL) != sizeof(m))
			_exit(0);
}

/* The reader never blocks on a helper that stops reading. */
static void test_flooding_helper(void)
{
	struct kp_sym_res res;
	int p[2], found = -2;
	struct pollfd pfd;
	pid_t reader;

	if (pipe(p)) {
		EXPECT(0, "pipe");
		return;
	}
	reader = fork();
	if (!reader) {
		struct kp_sym *sym = kp_sym_new();

		kp_sym_set_helper_main(sym, flooding_helper);
		kp_sym_set_timeout(sym, 3000);
		found = kp_sym_lookup(sym, getpid(), (uint64_t)(uintptr_t)getpid,
				      0, &res);
		kp_sym_free(sym);
		if (write(p[1], &found, sizeof(found)) != sizeof(found))
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	if (reader > 0 && poll(&pfd, 1, 30000) == 1 &&
	    read(p[0], &found, sizeof(found)) != sizeof(found))
		found = -2;
	EXPECT(found == -1, "lookup with a flooding helper: %d (-2: the reader "
	       "blocked for 30 s)", found);
	reap(reader);
	close(p[0]);
}

/* A process of the user the helper runs as, for it to try to signal. */
static pid_t probe_victim;

/* What the sandboxed helper tried, and errno (0: it worked). */
static void probing_helper(int sock, pid_t reader)
{
	struct kp_symh_msg a = { .op = KP_SYMH_RESULT, .found = 1 };
	struct kp_symh_req req;
	int fd, e[6];

	fd = kp_symh_sandbox(sock, reader);
	if (fd < 0 || recv(fd, &req, sizeof(req), 0) != sizeof(req))
		_exit(1);
#define TRY(i, call) do { errno = 0; e[i] = (call) < 0 ? errno : 0; } while (0)
	TRY(0, open("/etc/passwd", O_RDONLY));
	TRY(1, socket(AF_INET, SOCK_DGRAM, 0));
	TRY(2, syscall(SYS_tgkill, probe_victim, probe_victim, 0));
	TRY(3, kill(probe_victim, 0));
	TRY(4, fcntl(fd, F_SETOWN, getpid()));
	TRY(5, fcntl(fd, F_GETFL));
#undef TRY
	snprintf(a.res.func, sizeof(a.res.func), "%d %d %d %d %d %d",
		 e[0], e[1], e[2], e[3], e[4], e[5]);
	send(fd, &a, sizeof(a), MSG_NOSIGNAL);
	for (;;)
		pause();
}

/*
 * In the helper's sandbox: no open, no socket, no signal to another
 * process, fcntl() only for descriptor flags.
 */
static void test_sandbox_denies(void)
{
	struct kp_sym *sym = kp_sym_new();
	struct kp_sym_res res;
	int e[6], n;

	if (!EXPECT(sym, "kp_sym_new"))
		return;
	probe_victim = fork();
	if (!probe_victim) {
		/* as the helper will be: nobody as root, else this user */
		if (!geteuid() && (setgid(65534) || setuid(65534)))
			_exit(1);
		for (;;)
			pause();
	}
	kp_sym_set_helper_main(sym, probing_helper);
	n = kp_sym_lookup(sym, getpid(), 0x1000, 0, &res);
	if (EXPECT(n == 1 && sscanf(res.func, "%d %d %d %d %d %d", &e[0],
				    &e[1], &e[2], &e[3], &e[4], &e[5]) == 6,
		   "no answer from the sandbox: %d '%s'", n, res.func)) {
		EXPECT(e[0] == EPERM, "open: errno %d", e[0]);
		EXPECT(e[1] == EPERM, "socket: errno %d", e[1]);
		EXPECT(e[2] == EPERM, "tgkill to another process: errno %d",
		       e[2]);
		EXPECT(e[3] == EPERM, "kill of another process: errno %d",
		       e[3]);
		EXPECT(e[4] == EPERM, "fcntl F_SETOWN: errno %d", e[4]);
		EXPECT(e[5] == 0, "fcntl F_GETFL: errno %d", e[5]);
	}
	reap(probe_victim);
	kp_sym_free(sym);
}

const struct kp_test t_symbound[] = {
	{ "symbolize: the vDSO, from the process's mapping", test_vdso },
	{ "symbolize: a forged vDSO header does not grow the reader", test_vdso_forged },
	{ "symbolize: a huge symbol table is not walked", test_huge_symtab },
	{ "symbolize: ELF files are parsed in a sandboxed helper", test_helper_sandbox },
	{ "symbolize: a sandboxed helper's _exit() status is its own", test_helper_exit_status },
	{ "symbolize: the helper dies with a reader killed outright", test_helper_dies_with_reader },
	{ "symbolize: a helper that floods requests and reads nothing cannot block the reader", test_flooding_helper },
	{ "symbolize: the helper's sandbox denies open, socket, signals to others, fcntl F_SETOWN", test_sandbox_denies },
	{ "symbolize: a lookup out of time ends the helper, gives up the process", test_timeout },
	{ "symbolize: the time limit is the helper's CPU time: a starved helper is waited for", test_starved_helper },
	{ "symbolize: a stopped helper is given up on at once", test_stopped_helper },
	{ NULL, NULL },
};
