// SPDX-License-Identifier: GPL-2.0
/* kprof reader: user-space symbolization with libdwfl, see symbolize.h. */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize.h"
#include "maps.h"
#include "util.h"

/*
 * Processes with a Dwfl at once; the least recently used goes first.  A
 * Dwfl keeps the files of the modules it looked into open (two
 * descriptors each, as of elfutils 0.188).
 */
#define KP_SYM_PROCS	32

struct kp_proc {
	pid_t tgid;		/* 0: free slot */
	Dwfl *dwfl;		/* NULL: process unreadable (gone) */
	uint64_t used;		/* kp_sym.clock at last use */
	uint64_t read_tick;	/* kp_sym.tick when /proc was last read */
};

struct kp_sym {
	struct kp_proc procs[KP_SYM_PROCS];
	uint64_t clock;
	uint64_t tick;
};

/*
 * The process whose modules are being looked up: find_elf below opens the
 * file a mapping maps, of that process.
 */
static pid_t kp_sym_cur_pid;

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
 * @fd is a regular file with @dev and @ino: the file that is mapped.
 * Closes @fd and returns -1 if not.
 */
static int check_mapped(int fd, dev_t dev, ino_t ino)
{
	struct stat st;

	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
			st.st_dev != dev || st.st_ino != ino)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The file a mapping of the process maps, whatever its path names now:
 * /proc/PID/map_files/START-END opens the mapped file itself (a deleted
 * one too); without the capability that needs, the path under
 * /proc/PID/root, not following a last symlink, not blocking.  Either is
 * accepted only as a regular file with the device and inode of the
 * mapping.  Another process's path is never opened in the reader's own
 * namespace.
 */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *name,
		    Dwarf_Addr base, char **file_name, Elf **elfp)
{
	unsigned long start, end;
	char path[PATH_MAX];
	dev_t dev;
	ino_t ino;
	int fd;

	if (name[0] != '/')	/* [vdso]: read from the process */
		return dwfl_linux_proc_find_elf(mod, userdata, name, base,
						file_name, elfp);
	if (kp_sym_cur_pid <= 0 ||
	    maps_find(kp_sym_cur_pid, name, &start, &end, &dev, &ino))
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/map_files/%lx-%lx",
		 kp_sym_cur_pid, start, end);
	fd = check_mapped(open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY |
				     O_CLOEXEC), dev, ino);
	if (fd < 0 &&
	    snprintf(path, sizeof(path), "/proc/%d/root%s", kp_sym_cur_pid,
		     name) < (int)sizeof(path))
		fd = check_mapped(open(path, O_RDONLY | O_NOFOLLOW |
					     O_NONBLOCK | O_NOCTTY |
					     O_CLOEXEC), dev, ino);
	if (fd < 0)
		return -1;
	*file_name = strdup(path);
	if (!*file_name) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Separate debug information by build ID under root's KP_DEBUG_DIR only:
 * never the file named by the binary's .gnu_debuglink or one beside it
 * (in a directory its owner controls, where a FIFO blocked the reader).
 * Opened without blocking, accepted only as a regular file.  With
 * KPROF_DEBUGINFOD=1, debuginfod after that (elfutils' build-ID search,
 * KP_DEBUG_DIR its only directory).
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata,
			  const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	const char *dbg = getenv("KPROF_DEBUGINFOD");
	char path[sizeof(KP_DEBUG_DIR "/.build-id/") + 2 * 64 + 8];
	const unsigned char *bits;
	GElf_Addr vaddr;
	struct stat st;
	size_t len;
	int n, i, fd;

	n = dwfl_module_build_id(mod, &bits, &vaddr);
	if (n >= 2 && n <= 64) {
		len = snprintf(path, sizeof(path), KP_DEBUG_DIR "/.build-id/%02x/",
			       bits[0]);
		for (i = 1; i < n; i++)
			len += snprintf(path + len, sizeof(path) - len, "%02x",
					bits[i]);
		snprintf(path + len, sizeof(path) - len, ".debug");
		fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
			close(fd);
			fd = -1;
		}
		if (fd >= 0) {
			*debuginfo_file_name = strdup(path);
			if (*debuginfo_file_name)
				return fd;
			close(fd);
		}
	}
	if (dbg && !strcmp(dbg, "1"))
		return dwfl_build_id_find_debuginfo(mod, userdata, modname,
						    base, file_name,
						    debuglink_file,
						    debuglink_crc,
						    debuginfo_file_name);
	return -1;
}

static char kp_debug_dir[] = KP_DEBUG_DIR;
static char *kp_debug_path = kp_debug_dir;

static const Dwfl_Callbacks kp_dwfl_callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = find_debuginfo,
	.debuginfo_path = &kp_debug_path,
};

/*
 * A profiler must not stall on network look-ups of debug info: debuginfod
 * (DEBUGINFOD_URLS) only when asked for with KPROF_DEBUGINFOD=1.  The
 * open module files need more descriptors than the usual soft limit of
 * 1024 may leave: raise it to the hard limit, as perf does.
 */
struct kp_sym *kp_sym_new(void)
{
	const char *dbg = getenv("KPROF_DEBUGINFOD");
	struct rlimit rl;

	if (!dbg || strcmp(dbg, "1"))
		unsetenv("DEBUGINFOD_URLS");
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	return calloc(1, sizeof(struct kp_sym));
}

static void proc_drop(struct kp_proc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	memset(p, 0, sizeof(*p));
}

void kp_sym_free(struct kp_sym *sym)
{
	unsigned int i;

	if (!sym)
		return;
	for (i = 0; i < KP_SYM_PROCS; i++)
		proc_drop(&sym->procs[i]);
	free(sym);
}

void kp_sym_tick(struct kp_sym *sym)
{
	sym->tick++;
}

/* (Re)build @p's module list from /proc/PID/maps; dwfl NULL if gone. */
static void proc_read(struct kp_sym *sym, struct kp_proc *p)
{
	p->read_tick = sym->tick;
	if (!p->dwfl) {
		p->dwfl = dwfl_begin(&kp_dwfl_callbacks);
		if (!p->dwfl)
			return;
	}
	dwfl_report_begin(p->dwfl);
	if (dwfl_linux_proc_report(p->dwfl, p->tgid) != 0 ||
	    dwfl_report_end(p->dwfl, NULL, NULL) != 0) {
		dwfl_end(p->dwfl);
		p->dwfl = NULL;
	}
}

static struct kp_proc *proc_get(struct kp_sym *sym, pid_t tgid)
{
	struct kp_proc *p, *victim = &sym->procs[0];
	unsigned int i;

	sym->clock++;
	for (i = 0; i < KP_SYM_PROCS; i++) {
		p = &sym->procs[i];
		if (p->tgid == tgid) {
			p->used = sym->clock;
			return p;
		}
		if (!p->tgid || (victim->tgid && p->used < victim->used))
			victim = p;
	}
	proc_drop(victim);
	victim->tgid = tgid;
	victim->used = sym->clock;
	proc_read(sym, victim);
	return victim;
}

static const char *module_basename(const char *name, char *buf, size_t len)
{
	const char *slash;

	if (!name)
		return "?";
	if (!strncmp(name, "[vdso", 5))
		return "[vdso]";
	slash = strrchr(name, '/');
	snprintf(buf, len, "%s", slash ? slash + 1 : name);
	return buf;
}

/* Look @addr up in @p; 1: function found, 0: module only, -1: nothing. */
static int lookup(struct kp_proc *p, uint64_t addr, uint64_t ip,
		  struct kp_sym_res *res)
{
	const char *fn, *modname;
	Dwarf_Addr start;
	Dwfl_Module *mod;
	GElf_Off off;
	GElf_Sym es;

	if (!p->dwfl)
		return -1;
	mod = dwfl_addrmodule(p->dwfl, addr);
	if (!mod)
		return -1;
	modname = module_basename(dwfl_module_info(mod, NULL, &start, NULL,
						   NULL, NULL, NULL, NULL),
				  res->module, sizeof(res->module));
	if (modname != res->module)
		snprintf(res->module, sizeof(res->module), "%s", modname);
	res->mod_off = ip - (uint64_t)start;
	fn = dwfl_module_addrinfo(mod, addr, &off, &es, NULL, NULL, NULL);
	if (fn && *fn) {
		snprintf(res->func, sizeof(res->func), "%s", fn);
		/* Offset of @ip itself, not of the ip - 1 looked up. */
		res->func_off = (uint64_t)off + (ip - addr);
		return 1;
	}
	return 0;
}

int kp_sym_lookup(struct kp_sym *sym, pid_t tgid, uint64_t ip, int ret_addr,
		  struct kp_sym_res *res)
{
	uint64_t addr = ret_addr && ip ? ip - 1 : ip;
	struct kp_proc *p;
	int found;

	memset(res, 0, sizeof(*res));
	if (!sym || tgid <= 0 || !ip)
		return -1;
	kp_sym_cur_pid = tgid;
	p = proc_get(sym, tgid);
	found = lookup(p, addr, ip, res);
	if (found < 0 && p->read_tick != sym->tick) {
		/* A mapping added since we read the maps (dlopen)? */
		proc_read(sym, p);
		found = lookup(p, addr, ip, res);
	}
	kp_sym_cur_pid = 0;
	if (found < 0)
		memset(res, 0, sizeof(*res));
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
	const unsigned char *bits;
	GElf_Addr vaddr;
	Dwfl_Module *mod;
	struct kp_proc *p;
	Dwarf_Addr bias;
	size_t used = 0;
	int n, i;

	if (len)
		buf[0] = '\0';
	if (!sym || tgid <= 0 || !len)
		return -1;
	kp_sym_cur_pid = tgid;
	p = proc_get(sym, tgid);
	mod = p->dwfl ? dwfl_addrmodule(p->dwfl, addr) : NULL;
	/* The build ID is read from the file: have it opened. */
	if (mod)
		dwfl_module_getelf(mod, &bias);
	n = mod ? dwfl_module_build_id(mod, &bits, &vaddr) : -1;
	kp_sym_cur_pid = 0;
	if (n <= 0 || (size_t)n * 2 + 1 > len)
		return -1;
	for (i = 0; i < n; i++)
		used += snprintf(buf + used, len - used, "%02x", bits[i]);
	return 0;
}
