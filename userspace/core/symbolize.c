// SPDX-License-Identifier: GPL-2.0
/* kprof reader: user-space symbolization with libdwfl, see symbolize.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/openat2.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "maps.h"
#include "symbolize.h"
#include "symhelper.h"
#include "util.h"

/* Processes whose lookups ran out of time, given up on for good. */
#define KP_SYM_GAVE_UP	64

/* Default CPU time a lookup may take the helper, in ms. */
#define KP_SYM_TIMEOUT_MS	5000

/*
 * Its wall-clock time may be this many times as long: a helper that a
 * busy machine does not run is not doing the work it is charged for.
 */
#define KP_SYM_WALL_FACTOR	4

/* How often a waiting lookup looks at the helper, in ms. */
#define KP_SYM_POLL_MS		50

struct kp_sym {
	pid_t helper;		/* 0: none running */
	int sock;		/* to the helper */
	int timeout_ms;
	uint64_t tick;
	pid_t gave_up[KP_SYM_GAVE_UP];
	unsigned int next_gave_up;
	int warned;		/* that the helper did not start */
	int warned_gave_up;	/* that a process was given up on */
	void (*helper_main)(int sock, pid_t reader);	/* tests only */
};

/* Where separate debug files are looked for: root's directory only. */
#define KP_DEBUG_DIR	"/usr/lib/debug"

/*
 * An executable mapping of @name (also as "@name (deleted)") in @pid:
 * its range, device and inode.  0, or -1.
 */
static int maps_find(pid_t pid, const char *name, unsigned long *start,
		     unsigned long *end, dev_t *dev, ino_t *ino)
{
	size_t i, nlen = strlen(name);
	struct kp_maps m;
	int ret = -1;

	if (kp_maps_read(pid, &m))
		return -1;
	for (i = 0; i < m.n; i++) {
		const char *file = m.v[i].path;

		if (strncmp(file, name, nlen) ||
		    (file[nlen] && strcmp(file + nlen, " (deleted)")))
			continue;
		*start = m.v[i].start;
		*end = m.v[i].end;
		*dev = m.v[i].dev;
		*ino = m.v[i].ino;
		ret = 0;
		break;
	}
	kp_maps_free(&m);
	return ret;
}

/*
 * @fd is a regular file of at most KP_SYM_MAX_IMAGE bytes (with @dev and
 * @ino unless @ino is 0).  Closes @fd and returns -1 if not.
 */
static int check_file(int fd, dev_t dev, ino_t ino)
{
	struct stat st;

	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
			(unsigned long long)st.st_size > KP_SYM_MAX_IMAGE ||
			(ino && (st.st_dev != dev || st.st_ino != ino)))) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * @name inside @pid's root directory, resolved there and through no
 * symbolic link at all (openat2(), Linux 5.6): -1 where the kernel cannot
 * do that, rather than a resolution an unprivileged user could steer.
 */
static int open_in_root(pid_t pid, const char *name)
{
	struct open_how how = {
		.flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
			 O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS,
	};
	char path[64];
	int root, fd;

	snprintf(path, sizeof(path), "/proc/%d/root", pid);
	root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return -1;
	fd = syscall(SYS_openat2, root, name, &how, sizeof(how));
	close(root);
	return fd;
}

/*
 * The file a mapping of @pid maps, whatever its path names now:
 * /proc/PID/map_files/START-END opens the mapped file itself (a deleted
 * one too); without the capability that needs, the path inside
 * /proc/PID/root, through no symlink, not blocking.  Either is
 * accepted only as a regular file with the device and inode of the
 * mapping.  Another process's path is never opened in the reader's own
 * namespace.
 */
static int open_mapped(pid_t pid, const char *name)
{
	unsigned long start, end;
	char path[PATH_MAX];
	dev_t dev;
	ino_t ino;
	int fd;

	if (name[0] != '/' || maps_find(pid, name, &start, &end, &dev, &ino))
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/map_files/%lx-%lx", pid,
		 start, end);
	fd = check_file(open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY |
				   O_CLOEXEC), dev, ino);
	if (fd < 0)
		fd = check_file(open_in_root(pid, name), dev, ino);
	return fd;
}

/* A sealed in-memory file holding @len bytes of @buf; or -1. */
static int memfd_of(const char *name, const void *buf, size_t len)
{
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	size_t done = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	while (done < len) {
		n = write(fd, (const char *)buf + done, len - done);
		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += n;
	}
	if (lseek(fd, 0, SEEK_SET) ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
		  F_SEAL_WRITE | F_SEAL_SEAL)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* /proc/@pid/maps up to KP_MAPS_MAX_BYTES bytes, whole lines; or -1. */
static int copy_maps(pid_t pid)
{
	size_t len = 0, cap = 65536;
	char path[64], *buf, *nl;
	ssize_t n = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	buf = fd >= 0 ? malloc(cap) : NULL;
	while (buf && len < KP_MAPS_MAX_BYTES) {
		if (len == cap) {
			char *more = realloc(buf, cap * 2);

			if (!more)
				break;
			buf = more;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n <= 0)
			break;
		len += n;
	}
	if (fd >= 0)
		close(fd);
	if (!buf || n < 0) {
		free(buf);
		return -1;
	}
	/* A process gone reads as empty: no module, as before. */
	nl = len ? memrchr(buf, '\n', len) : NULL;
	fd = memfd_of("kprof-maps", buf, nl ? (size_t)(nl + 1 - buf) : 0);
	free(buf);
	return fd;
}

/*
 * A copy of @pid's vDSO: the bytes of its mapping (at most
 * KP_SYM_MAX_VDSO), never an image sized from the headers it holds.
 */
static int copy_vdso(pid_t pid)
{
	struct iovec local, remote;
	const struct kp_maps_entry *e = NULL;
	struct kp_maps m;
	size_t i;
	int fd = -1;

	if (kp_maps_read(pid, &m))
		return -1;
	for (i = 0; i < m.n; i++)
		if (!strcmp(m.v[i].path, "[vdso]"))
			e = &m.v[i];
	if (e && e->end - e->start <= KP_SYM_MAX_VDSO) {
		local.iov_len = remote.iov_len = e->end - e->start;
		local.iov_base = malloc(local.iov_len);
		remote.iov_base = (void *)(uintptr_t)e->start;
		if (local.iov_base &&
		    process_vm_readv(pid, &local, 1, &remote, 1, 0) ==
		    (ssize_t)local.iov_len)
			fd = memfd_of("kprof-vdso", local.iov_base,
				      local.iov_len);
		free(local.iov_base);
	}
	kp_maps_free(&m);
	return fd;
}

/*
 * Separate debug information by build ID under root's KP_DEBUG_DIR only:
 * never the file named by the binary's .gnu_debuglink or one beside it
 * (in a directory its owner controls, where a FIFO blocked the reader).
 * Opened without blocking, accepted only as a regular file.
 */
static int open_debug(const unsigned char *bits, int n)
{
	char path[sizeof(KP_DEBUG_DIR "/.build-id/") + 2 * 64 + 8];
	size_t len;
	int i;

	if (n < 2 || n > 64)
		return -1;
	len = snprintf(path, sizeof(path), KP_DEBUG_DIR "/.build-id/%02x/",
		       bits[0]);
	for (i = 1; i < n; i++)
		len += snprintf(path + len, sizeof(path) - len, "%02x",
				bits[i]);
	snprintf(path + len, sizeof(path) - len, ".debug");
	return check_file(open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY |
				 O_CLOEXEC), 0, 0);
}

/*
 * A profiler must not stall on network look-ups of debug info: no
 * debuginfod (the helper could not reach it anyway).  The helper keeps
 * module files open: raise the soft limit on descriptors to the hard
 * one, as perf does.
 */
struct kp_sym *kp_sym_new(void)
{
	const char *t = getenv("KPROF_SYM_TIMEOUT_MS");
	struct kp_sym *sym;
	struct rlimit rl;
	char *end;
	long ms;

	unsetenv("DEBUGINFOD_URLS");
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	sym = calloc(1, sizeof(*sym));
	if (!sym)
		return NULL;
	sym->sock = -1;
	sym->timeout_ms = KP_SYM_TIMEOUT_MS;
	if (t && *t) {
		errno = 0;
		ms = strtol(t, &end, 10);
		if (!errno && !*end && ms > 0 && ms <= 3600000)
			sym->timeout_ms = ms;
	}
	return sym;
}

static void helper_stop(struct kp_sym *sym)
{
	if (sym->helper <= 0)
		return;
	close(sym->sock);
	sym->sock = -1;
	kill(sym->helper, SIGKILL);
	while (waitpid(sym->helper, NULL, 0) < 0 && errno == EINTR)
		;
	sym->helper = 0;
}

static int helper_start(struct kp_sym *sym)
{
	pid_t reader = getpid(), pid;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -1;
	pid = fork();
	if (!pid) {
		close(sv[0]);
		if (sym->helper_main)
			sym->helper_main(sv[1], reader);
		kp_symh_main(sv[1], reader);
	}
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		return -1;
	}
	sym->helper = pid;
	sym->sock = sv[0];
	return 0;
}

void kp_sym_free(struct kp_sym *sym)
{
	if (!sym)
		return;
	helper_stop(sym);
	free(sym);
}

void kp_sym_tick(struct kp_sym *sym)
{
	sym->tick++;
}

pid_t kp_sym_helper_pid(const struct kp_sym *sym)
{
	return sym && sym->helper > 0 ? sym->helper : -1;
}

void kp_sym_set_helper_main(struct kp_sym *sym,
			    void (*fn)(int sock, pid_t reader))
{
	sym->helper_main = fn;
}

void kp_sym_set_timeout(struct kp_sym *sym, int ms)
{
	if (sym && ms > 0)
		sym->timeout_ms = ms;
}

static int gave_up(const struct kp_sym *sym, pid_t tgid)
{
	unsigned int i;

	for (i = 0; i < KP_SYM_GAVE_UP; i++)
		if (sym->gave_up[i] == tgid)
			return 1;
	return 0;
}

static int64_t clock_ms(clockid_t clk)
{
	struct timespec ts;

	if (clock_gettime(clk, &ts))
		return -1;
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t now_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

/* CPU time the helper has used, in ms; -1 if it cannot be read. */
static int64_t helper_cpu_ms(const struct kp_sym *sym)
{
	clockid_t clk;

	if (clock_getcpuclockid(sym->helper, &clk))
		return -1;
	return clock_ms(clk);
}

/* Is the helper stopped (by a signal or a tracer), so that it cannot run? */
static int helper_stopped(const struct kp_sym *sym)
{
	char path[32], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)sym->helper);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* "pid (comm) S ...": the comm is the helper's own, "kprof-sym" */
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && (p[2] == 'T' || p[2] == 't');
}

/* Send @fd (or -@err when @fd < 0) to the helper, and close it. */
static int reply(struct kp_sym *sym, int fd)
{
	struct kp_symh_reply r = { .err = fd < 0 ? -ENOENT : 0 };
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &r, .iov_len = sizeof(r) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;
	ssize_t n;

	if (fd >= 0) {
		memset(cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	/* a helper that stops reading must not block us: it is ended */
	n = sendmsg(sym->sock, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (fd >= 0)
		close(fd);
	return n == sizeof(r) ? 0 : -1;
}

/*
 * Has the lookup that began at @t0 (clock) and @cpu0 (helper's CPU time)
 * run out of time?  Out of CPU time, out of KP_SYM_WALL_FACTOR times as
 * much wall-clock time, or stopped.
 */
static int out_of_time(const struct kp_sym *sym, int64_t t0, int64_t cpu0)
{
	int64_t cpu = cpu0 >= 0 ? helper_cpu_ms(sym) : -1;

	if (now_ms() - t0 >= (int64_t)sym->timeout_ms * KP_SYM_WALL_FACTOR)
		return 1;
	if (cpu >= 0 && cpu - cpu0 >= sym->timeout_ms)
		return 1;
	return helper_stopped(sym);
}

/*
 * Ask the helper @req, serving the files it needs on the way, within
 * the time limit; its answer into @a.  0, or -1: the helper is ended,
 * and if it had the request, the process is given up on (its files made
 * the helper slow, or crash it: not again).
 */
static int ask(struct kp_sym *sym, const struct kp_symh_req *req,
	       struct kp_symh_msg *a)
{
	int64_t t0, cpu0;
	struct pollfd pfd;
	int fd, r;

	if (!sym->helper && helper_start(sym)) {
		if (!sym->warned++)
			kp_err("cannot start the symbolizer's helper: %s",
			       strerror(errno));
		return -1;
	}
	if (send(sym->sock, req, sizeof(*req), MSG_NOSIGNAL | MSG_DONTWAIT) !=
	    sizeof(*req)) {
		/* It died between requests: once more with a new one. */
		helper_stop(sym);
		if (helper_start(sym) ||
		    send(sym->sock, req, sizeof(*req),
			 MSG_NOSIGNAL | MSG_DONTWAIT) != sizeof(*req))
			goto dead;
	}
	t0 = now_ms();
	cpu0 = helper_cpu_ms(sym);
	for (;;) {
		if (out_of_time(sym, t0, cpu0))
			goto give_up;
		pfd.fd = sym->sock;
		pfd.events = POLLIN;
		r = poll(&pfd, 1, sym->timeout_ms < KP_SYM_POLL_MS ?
			 sym->timeout_ms : KP_SYM_POLL_MS);
		if (r == 0 || (r < 0 && errno == EINTR))
			continue;
		if (r > 0 && recv(sym->sock, a, sizeof(*a), 0) != sizeof(*a))
			goto give_up;
		if (r < 0)
			goto dead;
		switch (a->op) {
		case KP_SYMH_RESULT:
			return 0;
		case KP_SYMH_NEED_MAPS:
			fd = copy_maps(req->tgid);
			break;
		case KP_SYMH_NEED_FILE:
			a->name[sizeof(a->name) - 1] = '\0';
			fd = open_mapped(req->tgid, a->name);
			break;
		case KP_SYMH_NEED_VDSO:
			fd = copy_vdso(req->tgid);
			break;
		case KP_SYMH_NEED_DEBUG:
			fd = a->bid_len <= sizeof(a->bid) ?
			     open_debug(a->bid, a->bid_len) : -1;
			break;
		default:
			goto give_up;
		}
		if (reply(sym, fd))
			goto give_up;
	}
give_up:
	sym->gave_up[sym->next_gave_up++ % KP_SYM_GAVE_UP] = req->tgid;
	if (!sym->warned_gave_up) {
		sym->warned_gave_up = 1;
		kp_err("gave up symbolizing process %d: the lookup ran out "
		       "of time (%d ms of CPU, KPROF_SYM_TIMEOUT_MS) or its "
		       "helper failed; its frames stay [unknown] (later "
		       "cases are not reported)", (int)req->tgid,
		       sym->timeout_ms);
	}
dead:
	helper_stop(sym);
	return -1;
}

int kp_sym_lookup(struct kp_sym *sym, pid_t tgid, uint64_t ip, int ret_addr,
		  struct kp_sym_res *res)
{
	struct kp_symh_req req = {
		.op = KP_SYMH_LOOKUP,
		.tgid = tgid,
		.addr = ret_addr && ip ? ip - 1 : ip,
		.ip = ip,
	};
	struct kp_symh_msg a;
	int found = -1;

	memset(res, 0, sizeof(*res));
	if (!sym || tgid <= 0 || !ip || gave_up(sym, tgid))
		return -1;
	req.tick = sym->tick;
	if (!ask(sym, &req, &a) && a.found >= 0) {
		found = a.found > 0;
		*res = a.res;
		res->func[sizeof(res->func) - 1] = '\0';
		res->module[sizeof(res->module) - 1] = '\0';
		if (!found)
			res->func[0] = '\0';
	}
	/* names from files other users may have written */
	kp_text_sanitize(res->func);
	kp_text_sanitize(res->module);
	return found;
}

void kp_sym_format(const struct kp_sym_res *res, int found, char *buf,
		   size_t len)
{
	if (found > 0)
		snprintf(buf, len, "%s+0x%" PRIx64 " (%s)", res->func,
			 res->func_off, res->module);
	else if (!found)
		snprintf(buf, len, KP_SYM_UNKNOWN " (%s+0x%" PRIx64 ")",
			 res->module, res->mod_off);
	else
		snprintf(buf, len, KP_SYM_UNKNOWN);
}

int kp_sym_user(struct kp_sym *sym, pid_t tgid, uint64_t ip, int ret_addr,
		char *buf, size_t len)
{
	struct kp_sym_res res;
	int found;

	found = kp_sym_lookup(sym, tgid, ip, ret_addr, &res);
	kp_sym_format(&res, found, buf, len);
	return found == 1 ? 0 : -1;
}

int kp_sym_build_id(struct kp_sym *sym, pid_t tgid, uint64_t addr,
		    char *buf, size_t len)
{
	struct kp_symh_req req = {
		.op = KP_SYMH_BUILD_ID,
		.tgid = tgid,
		.addr = addr,
		.ip = addr,
	};
	struct kp_symh_msg a;
	size_t used = 0;
	unsigned int i;

	if (len)
		buf[0] = '\0';
	if (!sym || tgid <= 0 || !len || gave_up(sym, tgid))
		return -1;
	req.tick = sym->tick;
	if (ask(sym, &req, &a) || a.found <= 0 || !a.bid_len ||
	    a.bid_len > sizeof(a.bid) || (size_t)a.bid_len * 2 + 1 > len)
		return -1;
	for (i = 0; i < a.bid_len; i++)
		used += snprintf(buf + used, len - used, "%02x", a.bid[i]);
	return 0;
}
