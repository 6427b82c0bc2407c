// SPDX-License-Identifier: GPL-2.0
/*
 * kprof reader: the symbolizer's helper process, see symhelper.h.  Only
 * this file calls into libdwfl for another process's files.
 */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "maps.h"
#include "symhelper.h"

/*
 * Processes with a Dwfl at once; the least recently used goes first.  A
 * Dwfl keeps the files of the modules it looked into open (two
 * descriptors each, as of elfutils 0.188).
 */
#define KP_SYM_PROCS	32

/* The user the helper runs as when the reader is root. */
#define KP_SYM_NOBODY	65534

struct kp_proc {
	pid_t tgid;		/* 0: free slot */
	Dwfl *dwfl;		/* NULL: process unreadable (gone) */
	uint64_t used;		/* at last use, of kp_clock */
	uint64_t read_tick;	/* the reader's tick when maps were read */
};

static struct kp_proc kp_procs[KP_SYM_PROCS];
static uint64_t kp_clock;
static const struct kp_symh_req *kp_req;	/* being answered */
static int kp_sock = -1;

/* Ask the reader for a file; its descriptor, or -1. */
static int need(struct kp_symh_msg *m)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct kp_symh_reply r;
	struct iovec iov = { .iov_base = &r, .iov_len = sizeof(r) };
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;
	ssize_t n;
	int fd = -1;

	if (send(kp_sock, m, sizeof(*m), MSG_NOSIGNAL) != sizeof(*m))
		_exit(1);
	do
		n = recvmsg(kp_sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n != sizeof(r))
		_exit(1);
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET &&
		    c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
	if (r.err && fd >= 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* need(), with the file's name for elfutils in *@out (a copy of @name). */
static int need_named(struct kp_symh_msg *m, const char *name, char **out)
{
	int fd = need(m);

	if (fd < 0)
		return -1;
	*out = strdup(name);
	if (!*out) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The file of a module: the mapped file, or a copy of the vDSO. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *name,
		    Dwarf_Addr base, char **file_name, Elf **elfp)
{
	struct kp_symh_msg m = { 0 };

	(void)mod;
	(void)userdata;
	(void)base;
	(void)elfp;
	if (name[0] == '/' && strlen(name) < sizeof(m.name)) {
		m.op = KP_SYMH_NEED_FILE;
		strcpy(m.name, name);
	} else if (!strcmp(name, "[vdso]")) {
		m.op = KP_SYMH_NEED_VDSO;
	} else {
		return -1;
	}
	return need_named(&m, name, file_name);
}

/* Separate debug information: by build ID, from the reader. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata,
			  const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	struct kp_symh_msg m = { .op = KP_SYMH_NEED_DEBUG };
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n;

	(void)userdata;
	(void)modname;
	(void)base;
	(void)file_name;
	(void)debuglink_file;
	(void)debuglink_crc;
	n = dwfl_module_build_id(mod, &bits, &vaddr);
	if (n < 2 || n > (int)sizeof(m.bid))
		return -1;
	m.bid_len = n;
	memcpy(m.bid, bits, n);
	return need_named(&m, "[debug]", debuginfo_file_name);
}

static char *kp_no_debug_path;

static const Dwfl_Callbacks kp_dwfl_callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = find_debuginfo,
	.debuginfo_path = &kp_no_debug_path,
};

static void proc_drop(struct kp_proc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	memset(p, 0, sizeof(*p));
}

/* The vDSO, which libdwfl reports only with the process's auxv. */
static int report_vdso(Dwfl *dwfl, FILE *f)
{
	struct kp_maps maps;
	size_t i;

	rewind(f);
	if (kp_maps_parse(f, &maps))
		return -1;
	for (i = 0; i < maps.n; i++)
		if (!strcmp(maps.v[i].path, "[vdso]")) {
			dwfl_report_module(dwfl, "[vdso]", maps.v[i].start,
					   maps.v[i].end);
			break;
		}
	kp_maps_free(&maps);
	return 0;
}

/* (Re)build @p's module list from the maps the reader sends. */
static void proc_read(struct kp_proc *p)
{
	struct kp_symh_msg m = { .op = KP_SYMH_NEED_MAPS };
	FILE *f = NULL;
	int fd, ok;

	p->read_tick = kp_req->tick;
	fd = need(&m);
	if (fd >= 0) {
		f = fdopen(fd, "r");
		if (!f)
			close(fd);
	}
	if (f && !p->dwfl)
		p->dwfl = dwfl_begin(&kp_dwfl_callbacks);
	if (!f || !p->dwfl) {
		if (f)
			fclose(f);
		if (p->dwfl)
			dwfl_end(p->dwfl);
		p->dwfl = NULL;
		return;
	}
	dwfl_report_begin(p->dwfl);
	ok = !dwfl_linux_proc_maps_report(p->dwfl, f) &&
	     !report_vdso(p->dwfl, f) &&
	     !dwfl_report_end(p->dwfl, NULL, NULL);
	fclose(f);
	if (!ok) {
		dwfl_end(p->dwfl);
		p->dwfl = NULL;
	}
}

static struct kp_proc *proc_get(pid_t tgid)
{
	struct kp_proc *p, *victim = &kp_procs[0];
	unsigned int i;

	kp_clock++;
	for (i = 0; i < KP_SYM_PROCS; i++) {
		p = &kp_procs[i];
		if (p->tgid == tgid) {
			p->used = kp_clock;
			return p;
		}
		if (!p->tgid || (victim->tgid && p->used < victim->used))
			victim = p;
	}
	proc_drop(victim);
	victim->tgid = tgid;
	victim->used = kp_clock;
	proc_read(victim);
	return victim;
}

static void module_basename(const char *name, char *buf, size_t len)
{
	const char *slash = name ? strrchr(name, '/') : NULL;

	snprintf(buf, len, "%s", !name ? "?" : slash ? slash + 1 : name);
}

/* Look @addr up in @p; 1: function found, 0: module only, -1: nothing. */
static int lookup(struct kp_proc *p, uint64_t addr, uint64_t ip,
		  struct kp_sym_res *res)
{
	const char *fn;
	Dwarf_Addr start;
	Dwfl_Module *mod;
	GElf_Off off;
	GElf_Sym es;
	int nsyms;

	if (!p->dwfl)
		return -1;
	mod = dwfl_addrmodule(p->dwfl, addr);
	if (!mod)
		return -1;
	module_basename(dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL,
					 NULL, NULL),
			res->module, sizeof(res->module));
	res->mod_off = ip - (uint64_t)start;
	/* libdwfl searches every symbol of a module for each address. */
	nsyms = dwfl_module_getsymtab(mod);
	if (nsyms < 0 || (unsigned int)nsyms > KP_SYM_MAX_SYMS)
		return 0;
	fn = dwfl_module_addrinfo(mod, addr, &off, &es, NULL, NULL, NULL);
	if (fn && *fn) {
		snprintf(res->func, sizeof(res->func), "%s", fn);
		/* Offset of @ip itself, not of the ip - 1 looked up. */
		res->func_off = (uint64_t)off + (ip - addr);
		return 1;
	}
	return 0;
}

static void answer_lookup(struct kp_symh_msg *a)
{
	struct kp_proc *p = proc_get(kp_req->tgid);

	a->found = lookup(p, kp_req->addr, kp_req->ip, &a->res);
	if (a->found < 0 && p->read_tick != kp_req->tick) {
		/* A mapping added since we read the maps (dlopen)? */
		proc_read(p);
		a->found = lookup(p, kp_req->addr, kp_req->ip, &a->res);
	}
}

static void answer_build_id(struct kp_symh_msg *a)
{
	struct kp_proc *p = proc_get(kp_req->tgid);
	const unsigned char *bits;
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	GElf_Addr vaddr;
	int n;

	a->found = -1;
	mod = p->dwfl ? dwfl_addrmodule(p->dwfl, kp_req->addr) : NULL;
	if (!mod)
		return;
	/* The build ID is read from the file: have it opened. */
	dwfl_module_getelf(mod, &bias);
	n = dwfl_module_build_id(mod, &bits, &vaddr);
	if (n <= 0 || n > (int)sizeof(a->bid))
		return;
	memcpy(a->bid, bits, n);
	a->bid_len = n;
	a->found = 1;
}

/*
 * Only what parsing files the reader passed, and answering, needs.  Two
 * calls take a path the filter cannot see: newfstatat(), which is how
 * glibc's fstat() reaches the kernel (it may stat a path this user can
 * reach; it opens nothing), and none other.  Signals go only to itself
 * (abort()); fcntl() only reads or sets descriptor flags (fdopen()).
 */
static int seccomp_install(void)
{
	static const int allow[] = {
		SCMP_SYS(read), SCMP_SYS(pread64), SCMP_SYS(readv),
		SCMP_SYS(write), SCMP_SYS(writev), SCMP_SYS(lseek),
		SCMP_SYS(close), SCMP_SYS(fstat),
		SCMP_SYS(mmap), SCMP_SYS(munmap), SCMP_SYS(mremap),
		SCMP_SYS(mprotect), SCMP_SYS(madvise), SCMP_SYS(brk),
		SCMP_SYS(recvmsg), SCMP_SYS(sendmsg), SCMP_SYS(sendto),
		SCMP_SYS(recvfrom), SCMP_SYS(futex), SCMP_SYS(getpid),
		SCMP_SYS(gettid), SCMP_SYS(rt_sigprocmask),
		SCMP_SYS(rt_sigreturn), SCMP_SYS(clock_gettime),
		SCMP_SYS(getrandom), SCMP_SYS(sched_yield),
		SCMP_SYS(exit), SCMP_SYS(exit_group),
	};
	static const int fcntl_cmds[] = { F_GETFD, F_SETFD, F_GETFL };
	scmp_filter_ctx ctx;
	unsigned int i;
	int ret = 0;

	/*
	 * A kernel built without CONFIG_SECCOMP (some debug and embedded
	 * configs) cannot filter: the helper then relies on its user, its
	 * capabilities and no_new_privs alone, rather than not symbolizing.
	 */
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0 && errno == EINVAL)
		return 0;
	ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	if (!ctx)
		return -1;
	for (i = 0; i < sizeof(allow) / sizeof(allow[0]) && !ret; i++)
		ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, allow[i], 0);
	for (i = 0; i < sizeof(fcntl_cmds) / sizeof(fcntl_cmds[0]) && !ret;
	     i++)
		ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(fcntl), 1,
				       SCMP_A1(SCMP_CMP_EQ, fcntl_cmds[i], 0));
	if (!ret)
		ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1,
				       SCMP_A0(SCMP_CMP_EQ, getpid(), 0));
	/*
	 * sigaltstack() to read the signal stack only: sanitizer runtimes
	 * (ASan's __asan_handle_no_return) query it before every noreturn
	 * call such as _exit(), and die with status 1 when refused.
	 */
	if (!ret)
		ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW,
				       SCMP_SYS(sigaltstack), 1,
				       SCMP_A0(SCMP_CMP_EQ, 0, 0));
	if (!ret)
		ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW,
				       SCMP_SYS(newfstatat), 1,
				       SCMP_A3(SCMP_CMP_MASKED_EQ,
					       AT_EMPTY_PATH, AT_EMPTY_PATH));
	if (!ret)
		ret = seccomp_load(ctx);
	seccomp_release(ctx);
	return ret ? -1 : 0;
}

/* The address space this process has now, in bytes; 0 if unknown. */
static unsigned long long vm_size(void)
{
	unsigned long long pages = 0;
	FILE *f = fopen("/proc/self/statm", "re");

	if (f) {
		if (fscanf(f, "%llu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	return pages * (unsigned long long)sysconf(_SC_PAGESIZE);
}

/*
 * Keep only @sock (as descriptor 3) and /dev/null on 0-2; limit the
 * address space; give up the reader's user and every capability; no new
 * privileges; the seccomp filter.  3, or -1 if any step failed (the
 * helper then ends).
 */
int kp_symh_sandbox(int sock, pid_t reader)
{
	struct __user_cap_header_struct ch = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct cd[2] = { { 0 } };
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
	unsigned long long as;
	struct rlimit rl;
	unsigned int i;
	int null, fd;

	/* A Ctrl-C is for the reader to handle. */
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_IGN);
	prctl(PR_SET_NAME, "kprof-sym");
	sock = fcntl(sock, F_DUPFD_CLOEXEC, 10);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (sock < 0 || null < 0)
		return -1;
	for (fd = 0; fd < 3; fd++)
		if (dup2(null, fd) != fd)
			return -1;
	if (dup2(sock, 3) != 3)
		return -1;
	if (syscall(SYS_close_range, 4, ~0U, 0)) {
		if (getrlimit(RLIMIT_NOFILE, &rl))
			return -1;
		for (fd = 4; (rlim_t)fd < rl.rlim_cur; fd++)
			close(fd);
	}
	kp_sock = 3;
	as = vm_size();
	if (!as)
		return -1;
	rl.rlim_cur = rl.rlim_max = as + KP_SYM_HELPER_AS;
	if (setrlimit(RLIMIT_AS, &rl))
		return -1;
	rl.rlim_cur = rl.rlim_max = 0;
	setrlimit(RLIMIT_CORE, &rl);
	setrlimit(RLIMIT_FSIZE, &rl);
	/*
	 * Root becomes nobody.  Only in a user namespace that does not map
	 * that user or group (EINVAL) or forbids setgroups() (EPERM there)
	 * does it stay root there, with no capability left.
	 */
	if (!geteuid() || !getuid()) {
		if (setgroups(0, NULL) && errno != EPERM)
			return -1;
		if (setresgid(KP_SYM_NOBODY, KP_SYM_NOBODY, KP_SYM_NOBODY)) {
			if (errno != EINVAL)
				return -1;
		} else if (setresuid(KP_SYM_NOBODY, KP_SYM_NOBODY,
				     KP_SYM_NOBODY) && errno != EINVAL) {
			return -1;
		}
	}
	/*
	 * Ended with the reader: set after the change of user, which clears
	 * it, and checked against a reader already gone.
	 */
	if (syscall(SYS_capset, &ch, cd) ||
	    prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != reader ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || seccomp_install())
		return -1;
	return kp_sock;
}

void kp_symh_main(int sock, pid_t reader)
{
	struct kp_symh_req req;
	struct kp_symh_msg a;
	ssize_t n;

	if (kp_symh_sandbox(sock, reader) < 0)
		_exit(1);
	for (;;) {
		do
			n = recv(kp_sock, &req, sizeof(req), 0);
		while (n < 0 && errno == EINTR);
		if (n != sizeof(req))
			_exit(0);	/* the reader is gone */
		memset(&a, 0, sizeof(a));
		a.op = KP_SYMH_RESULT;
		kp_req = &req;
		if (req.op == KP_SYMH_LOOKUP)
			answer_lookup(&a);
		else if (req.op == KP_SYMH_BUILD_ID)
			answer_build_id(&a);
		else
			a.found = -1;
		if (send(kp_sock, &a, sizeof(a), MSG_NOSIGNAL) != sizeof(a))
			_exit(0);
	}
}
