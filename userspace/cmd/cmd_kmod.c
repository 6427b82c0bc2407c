// SPDX-License-Identifier: GPL-2.0
/*
 * kprof load, unload, status: the module's life through libkmod, with
 * modprobe's semantics (the installed module, its dependencies and the
 * options in /etc/modprobe.d), and what it is doing now.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <json-c/json.h>
#include <libkmod.h>

#include "cost.h"
#include "dev.h"
#include "kprof.h"
#include "names.h"
#include "report_json.h"
#include "session.h"
#include "units.h"
#include "util.h"

#define MODNAME		"kprofmod"
#define MAX_PARAMS	64
#define MAX_HOLDERS	16

/* --- libkmod ---------------------------------------------------------- */

static struct kmod_ctx *kmod_open(const char *cmd)
{
	struct kmod_ctx *ctx = kmod_new(NULL, NULL);

	if (!ctx)
		kp_err("%s: cannot initialise libkmod", cmd);
	else
		kmod_load_resources(ctx);
	return ctx;
}

/* The module as modprobe would find it, or NULL (printed). */
static struct kmod_module *kmod_lookup(struct kmod_ctx *ctx, const char *cmd)
{
	struct kmod_module *mod = NULL;
	struct kmod_list *list = NULL;
	int err;

	err = kmod_module_new_from_lookup(ctx, MODNAME, &list);
	if (err < 0) {
		kp_err("%s: looking up %s: %s", cmd, MODNAME, strerror(-err));
		return NULL;
	}
	if (list)
		mod = kmod_module_get_module(list);
	kmod_module_unref_list(list);
	if (!mod)
		kp_err("%s: %s not found in the module tree: install it (DKMS or `make install-module`, see README) or use --ko PATH",
		       cmd, MODNAME);
	return mod;
}

/* 1 if @mod is loaded (live or coming), 0 if not. */
static int kmod_loaded(struct kmod_module *mod)
{
	return kmod_module_get_initstate(mod) >= 0;
}

/* --- who holds the device --------------------------------------------- */

/* Does /proc/PID/fd or /proc/PID/maps refer to the device? */
static int pid_holds(const char *pid, const char *dev)
{
	char path[600], link[300], line[600];
	struct dirent *e;
	int found = 0;
	ssize_t n;
	FILE *f;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	d = opendir(path);
	while (d && !found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd/%s", pid, e->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = '\0';
			found = !strcmp(link, dev);
		}
	}
	if (d)
		closedir(d);
	snprintf(path, sizeof(path), "/proc/%s/maps", pid);
	f = found ? NULL : fopen(path, "re");
	while (f && !found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		n = strlen(line);
		found = (size_t)n > strlen(dev) &&
			!strcmp(line + n - strlen(dev), dev);
	}
	if (f)
		fclose(f);
	return found;
}

/*
 * "pid 123 (kprof), pid 456 (sh)": the processes that have the device
 * open or mapped, as far as /proc shows them to us.  Empty if none.
 */
static void holders(char *buf, size_t len)
{
	const char *dev = kprof_dev_path();
	char path[300], comm[64];
	struct dirent *e;
	size_t used = 0;
	int n = 0;
	DIR *d;
	FILE *f;

	buf[0] = '\0';
	d = opendir("/proc");
	while (d && (e = readdir(d)) && n < MAX_HOLDERS) {
		if (!isdigit((unsigned char)e->d_name[0]) ||
		    (pid_t)atoi(e->d_name) == getpid() ||
		    !pid_holds(e->d_name, dev))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		f = fopen(path, "re");
		if (!f || !fgets(comm, sizeof(comm), f))
			strcpy(comm, "?\n");
		if (f)
			fclose(f);
		comm[strcspn(comm, "\n")] = '\0';
		kp_text_sanitize(comm);
		used += snprintf(buf + used, used < len ? len - used : 0,
				 "%spid %s (%s)", n ? ", " : "", e->d_name,
				 comm);
		n++;
	}
	if (d)
		closedir(d);
}

/* --- load --------------------------------------------------------------- */

/* Is @name among @mod's parameters?  Fills @names with them for errors. */
static int has_param(struct kmod_module *mod, const char *name, size_t nlen,
		     char *names, size_t len)
{
	struct kmod_list *info = NULL, *l;
	size_t used = 0;
	int found = 0;

	names[0] = '\0';
	if (kmod_module_get_info(mod, &info) < 0)
		return 1;	/* cannot tell: let the kernel decide */
	kmod_list_foreach(l, info) {
		const char *key = kmod_module_info_get_key(l);
		const char *val = kmod_module_info_get_value(l);
		size_t plen;

		if (strcmp(key, "parm") || !val)
			continue;
		plen = strcspn(val, ":");
		if (plen == nlen && !strncmp(val, name, nlen))
			found = 1;
		used += snprintf(names + used, used < len ? len - used : 0,
				 "%s%.*s", used ? ", " : "", (int)plen, val);
	}
	kmod_module_info_free_list(info);
	return found;
}

/* Is every argument name=value, with a plain name and a value? */
static int params_syntax(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		size_t nlen = eq ? (size_t)(eq - a) : 0;
		size_t j;

		for (j = 0; j < nlen; j++)
			if (!isalnum((unsigned char)a[j]) && a[j] != '_')
				break;
		if (!eq || !nlen || j < nlen || !eq[1] ||
		    strpbrk(eq + 1, " \t\n\"")) {
			kp_err("load: '%s' is not a parameter: use name=value",
			       a);
			return KP_EXIT_USAGE;
		}
	}
	return 0;
}

/*
 * Who may have changed @st's contents (a file) or entries (a directory):
 * root only, or NULL.  A sticky directory's entries are its owner's and
 * each entry owner's: its being writable by all is fine.
 */
static const char *unsafe_owner(const struct stat *st)
{
	if (st->st_uid != 0)
		return "belongs to a user other than root";
	if (S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX))
		return NULL;
	if (st->st_mode & S_IWOTH)
		return "is writable by others";
	if ((st->st_mode & S_IWGRP) && st->st_gid != 0)
		return "is writable by a group other than root";
	return NULL;
}

/*
 * Open the --ko file once: a regular ELF file that only root can have
 * written, in directories only root can change, up to /.  The module is
 * inserted from this descriptor (finit_module), not from @path again.
 * The descriptor, or -1 (printed).
 */
static int open_ko(const char *path)
{
	char magic[4], *real, *slash;
	const char *why;
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		kp_err("load: --ko %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		kp_err("load: --ko %s: not a regular file", path);
		goto fail;
	}
	if (pread(fd, magic, 4, 0) != 4 || memcmp(magic, "\177ELF", 4)) {
		kp_err("load: --ko %s: not a kernel module (no ELF header)",
		       path);
		goto fail;
	}
	why = unsafe_owner(&st);
	if (why) {
		kp_err("load: refusing --ko %s: the file %s", path, why);
		goto fail;
	}
	real = realpath(path, NULL);
	if (!real) {
		kp_err("load: --ko %s: %s", path, strerror(errno));
		goto fail;
	}
	/* every directory from the file's up to / */
	while ((slash = strrchr(real, '/'))) {
		if (slash == real)
			slash[1] = '\0';
		else
			*slash = '\0';
		if (stat(real, &st)) {
			kp_err("load: --ko %s: %s: %s", path, real,
			       strerror(errno));
			free(real);
			goto fail;
		}
		why = unsafe_owner(&st);
		if (why) {
			kp_err("load: refusing --ko %s: directory %s %s", path,
			       real, why);
			free(real);
			goto fail;
		}
		if (slash == real)
			break;
	}
	free(real);
	return fd;
fail:
	close(fd);
	return -1;
}

/*
 * Check the name=value arguments (syntax checked) against @mod's parameters and join them
 * into one option string.  Returns 0, or KP_EXIT_USAGE (printed).
 */
static int load_options(struct kmod_module *mod, int argc, char **argv,
			char *opts, size_t len)
{
	char names[512];
	size_t used = 0;
	int i;

	opts[0] = '\0';
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		size_t nlen = strchr(a, '=') - a;

		if (!has_param(mod, a, nlen, names, sizeof(names))) {
			kp_err("load: %s has no parameter '%.*s' (it takes: %s)",
			       kmod_module_get_name(mod), (int)nlen, a,
			       names[0] ? names : "none");
			return KP_EXIT_USAGE;
		}
		if (used + strlen(a) + 2 > len) {
			kp_err("load: parameters too long");
			return KP_EXIT_USAGE;
		}
		used += sprintf(opts + used, "%s%s", used ? " " : "", a);
	}
	return 0;
}

/* /dev/kmsg positioned at its end, to show what a failed load logs. */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/*
 * The module's own errors logged since kmsg_open(), as "  kernel: ...":
 * records "PRIO,SEQ,TIME,FLAGS;TEXT" at level err or worse.
 */
static void kmsg_show(int fd)
{
	char rec[1024], *msg;
	ssize_t n;

	while (fd >= 0 && (n = read(fd, rec, sizeof(rec) - 1)) > 0) {
		rec[n] = '\0';
		msg = strchr(rec, ';');
		if (!msg || (atoi(rec) & 7) > 3 ||
		    strncmp(msg + 1, MODNAME ":", strlen(MODNAME ":")))
			continue;
		msg[1 + strcspn(msg + 1, "\n")] = '\0';
		fprintf(stderr, "  kernel: %s\n", msg + 1);
	}
}

static void load_perror(struct kmod_module *mod, const char *how, int err)
{
	const char *name = kmod_module_get_name(mod);
	char who[512];

	switch (err) {
	case EEXIST:
		kp_err("load: %s is already loaded (`kprof status` shows it; `kprof unload` first to reload)",
		       name);
		break;
	case EPERM:
	case EACCES:
		kp_err("load: permission denied: loading modules needs root (CAP_SYS_MODULE)");
		break;
	case EINVAL:
	case ERANGE:
		kp_err("load: %s refused its parameters (%s): see `modinfo %s` for the ranges and the kernel log for which",
		       name, strerror(err), name);
		break;
	case ENOEXEC:
		kp_err("load: %s: not a module for this kernel (%s): rebuild it against this kernel's headers",
		       how, strerror(err));
		break;
	case EBUSY:
		holders(who, sizeof(who));
		kp_err("load: %s is busy%s%s", name, who[0] ? ": held by " : "",
		       who);
		break;
	default:
		kp_err("load: %s: %s", how, strerror(err));
	}
}

struct load_opts {
	const char *ko;
};

static int load_ko(const char *cmd, const struct kp_opt *row,
		   const char *arg, void *base)
{
	struct load_opts *o = base;

	(void)row;
	if (!*arg) {
		kp_err("%s: --ko needs a module file", cmd);
		return -1;
	}
	o->ko = arg;
	return 0;
}

static const struct kp_opt load_opts[] = {
	{ .name = "ko", .arg = "PATH", .kind = KP_OPT_KIND_CALL,
	  .call = load_ko, .left = "  --ko PATH",
	  .help = "insert this module file instead of the installed one" },
	KP_OPT_END,
};

static int load_run(int argc, char **argv)
{
	struct kmod_module *mod = NULL;
	struct load_opts o = { 0 };
	struct kmod_ctx *ctx;
	const char *ko;
	char options[4096];
	int err, ret, kmsg = -1, ko_fd = -1;

	ret = kp_opts_parse("load", load_opts, &o, argc, argv);
	if (ret == KP_OPTS_HELP) {
		kp_cmd_usage(&kp_cmd_load, stdout);
		return 0;
	}
	if (ret != KP_OPTS_RUN)
		return ret;
	ko = o.ko;

	if (params_syntax(argc - optind, argv + optind))
		return KP_EXIT_USAGE;
	if (ko) {
		ko_fd = open_ko(ko);
		if (ko_fd < 0)
			return KP_EXIT_FAIL;
	}
	ctx = kmod_open("load");
	if (!ctx) {
		if (ko_fd >= 0)
			close(ko_fd);
		return KP_EXIT_FAIL;
	}
	ret = KP_EXIT_FAIL;
	if (ko) {
		/* the name and parameters; the file is inserted by ko_fd */
		err = kmod_module_new_from_path(ctx, ko, &mod);
		if (err < 0) {
			kp_err("load: --ko %s: not a kernel module (%s)", ko,
			       strerror(-err));
			goto out;
		}
		if (strcmp(kmod_module_get_name(mod), MODNAME)) {
			kp_err("load: --ko %s is module '%s', not %s", ko,
			       kmod_module_get_name(mod), MODNAME);
			goto out;
		}
	} else {
		mod = kmod_lookup(ctx, "load");
		if (!mod)
			goto out;
		if (!kmod_module_get_path(mod)) {
			kp_err("load: %s not found in /lib/modules/`uname -r`: install it (DKMS or `make install-module`, see README) or use --ko PATH",
			       MODNAME);
			goto out;
		}
	}
	ret = load_options(mod, argc - optind, argv + optind, options,
			   sizeof(options));
	if (ret)
		goto out;
	ret = KP_EXIT_FAIL;
	if (kmod_loaded(mod)) {
		load_perror(mod, "", EEXIST);
		goto out;
	}
	kmsg = kmsg_open();
	if (ko)
		err = syscall(SYS_finit_module, ko_fd, options, 0) ? -errno : 0;
	else
		err = kmod_module_probe_insert_module(mod,
						      KMOD_PROBE_FAIL_ON_LOADED,
						      options, NULL, NULL, NULL);
	if (err) {
		load_perror(mod, ko ? ko : kmod_module_get_path(mod),
			    err < 0 ? -err : EPERM);
		kmsg_show(kmsg);
		goto out;
	}
	printf("%s loaded from %s%s%s\n", MODNAME,
	       ko ? ko : kmod_module_get_path(mod), options[0] ? " with " : "",
	       options);
	ret = 0;
out:
	if (kmsg >= 0)
		close(kmsg);
	kmod_module_unref(mod);
	kmod_unref(ctx);
	if (ko_fd >= 0)
		close(ko_fd);
	return ret;
}

const struct kp_cmd kp_cmd_load = {
	.name = "load",
	.summary = "load kprofmod (as modprobe would) with module parameters",
	.usage = "kprof load [--ko PATH] [PARAM=VALUE...]\n",
	.opts = load_opts,
	.opts_col = 17,
	.help =
	"  PARAM=VALUE    module parameters (see `kprof status` or modinfo);\n"
	"                 without --ko, /etc/modprobe.d options apply as well\n"
	"Needs root.  Fails if kprofmod is already loaded.\n",
	.run = load_run,
};

/* --- unload ------------------------------------------------------------- */

static int unload_run(int argc, char **argv)
{
	struct kmod_module *mod = NULL;
	struct kmod_ctx *ctx;
	char who[512];
	int err, ret;

	ret = kp_no_options(&kp_cmd_unload, argc, argv);
	if (ret >= 0)
		return ret;
	ctx = kmod_open("unload");
	if (!ctx)
		return KP_EXIT_FAIL;
	ret = KP_EXIT_FAIL;
	err = kmod_module_new_from_name(ctx, MODNAME, &mod);
	if (err < 0) {
		kp_err("unload: %s", strerror(-err));
		goto out;
	}
	if (!kmod_loaded(mod)) {
		kp_err("unload: %s is not loaded", MODNAME);
		goto out;
	}
	err = kmod_module_remove_module(mod, 0);
	if (err == -EBUSY || err == -EAGAIN) {
		holders(who, sizeof(who));
		kp_err("unload: %s is in use (%d reference%s)%s%s: stop the reader first",
		       MODNAME, kmod_module_get_refcnt(mod),
		       kmod_module_get_refcnt(mod) == 1 ? "" : "s",
		       who[0] ? " by " : "", who);
		goto out;
	}
	if (err == -EPERM || err == -EACCES) {
		kp_err("unload: permission denied: unloading modules needs root (CAP_SYS_MODULE)");
		goto out;
	}
	if (err < 0) {
		kp_err("unload: %s", strerror(-err));
		goto out;
	}
	printf("%s unloaded\n", MODNAME);
	ret = 0;
out:
	kmod_module_unref(mod);
	kmod_unref(ctx);
	return ret;
}

const struct kp_cmd kp_cmd_unload = {
	.name = "unload",
	.summary = "unload kprofmod (refused while a reader uses it)",
	.usage = "kprof unload\n",
	.help = "Needs root.  Fails, naming who holds it, while /dev/kprof is open.\n",
	.run = unload_run,
};

/* --- status ------------------------------------------------------------- */

struct status {
	int loaded;
	const char *path;	/* module file, if installed */
	char version[64];
	int refcnt;
	char holders[512];
	json_object *params;	/* name -> value, as sysfs shows them */
	int dev_err;		/* errno opening or asking the device */
	int have_dev;
	struct kprof_info info;
	struct kprof_config cfg;
	struct kprof_stats st;
	struct kprof_cpu_cost *cpus;	/* the guard per CPU (API 1.4) */
	unsigned int nr_cpus;
	struct kprof_sessions *sessions;	/* API 1.9; NULL before */
	uint64_t now_ns;		/* CLOCK_MONOTONIC when asked */
};

/* The first line of @path into @buf, without its newline; 0 or -1. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -1;
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static void status_params(struct status *s)
{
	const char *dir = "/sys/module/" MODNAME "/parameters";
	char path[512], val[128];
	struct dirent **list;
	int i, n;

	s->params = json_object_new_object();
	n = scandir(dir, &list, NULL, alphasort);
	for (i = 0; i < n; i++) {
		if (list[i]->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir,
				 list[i]->d_name);
			if (!read_line(path, val, sizeof(val)))
				json_object_object_add(s->params,
					list[i]->d_name,
					json_object_new_string(val));
		}
		free(list[i]);
	}
	if (n >= 0)
		free(list);
}

/* The guard on every possible CPU; none when the module cannot tell. */
static void status_cpus(struct status *s, int fd)
{
	unsigned int cpu, n = s->info.nr_cpu_ids;

	if (!n || n > 65536)
		return;
	s->cpus = calloc(n, sizeof(*s->cpus));
	if (!s->cpus)
		return;
	for (cpu = 0; cpu < n; cpu++) {
		struct kprof_cpu_cost *c = &s->cpus[s->nr_cpus];

		if (!kprof_get_cpu_cost(fd, cpu, c))
			s->nr_cpus++;
	}
}

/* The open sessions (API 1.9), their command names made printable. */
static void status_sessions(struct status *s, int fd)
{
	struct kprof_sessions *ss = calloc(1, sizeof(*ss));
	unsigned int i;

	if (!ss)
		return;
	if (kprof_get_sessions(fd, ss) ||
	    ss->nr_listed > KPROF_SESSIONS_MAX) {
		free(ss);
		return;
	}
	for (i = 0; i < ss->nr_listed; i++) {
		ss->s[i].comm[sizeof(ss->s[i].comm) - 1] = '\0';
		kp_text_sanitize(ss->s[i].comm);
	}
	s->now_ns = kp_now_ns();
	s->sessions = ss;
}

static void status_device(struct status *s)
{
	int fd = open(kprof_dev_path(), O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		s->dev_err = errno;
		return;
	}
	s->dev_err = -kprof_get_info(fd, &s->info);
	if (!s->dev_err)
		s->dev_err = -kprof_get_config(fd, &s->cfg);
	if (!s->dev_err)
		s->dev_err = -kprof_get_stats(fd, &s->st);
	s->have_dev = !s->dev_err;
	if (s->have_dev && kp_stats_have_guard(&s->st))
		status_cpus(s, fd);
	if (s->have_dev)
		status_sessions(s, fd);
	close(fd);
}

/* Returns 0, or KP_EXIT_FAIL when libkmod is unusable (printed). */
static int status_gather(struct status *s, struct kmod_ctx *ctx)
{
	struct kmod_module *mod = NULL;
	struct kmod_list *list = NULL;

	memset(s, 0, sizeof(*s));
	if (kmod_module_new_from_lookup(ctx, MODNAME, &list) >= 0 && list)
		mod = kmod_module_get_module(list);
	kmod_module_unref_list(list);
	if (!mod && kmod_module_new_from_name(ctx, MODNAME, &mod) < 0) {
		kp_err("status: libkmod cannot name %s", MODNAME);
		return KP_EXIT_FAIL;
	}
	s->path = kmod_module_get_path(mod);
	if (s->path)
		s->path = strdup(s->path);
	s->loaded = kmod_loaded(mod);
	if (s->loaded) {
		s->refcnt = kmod_module_get_refcnt(mod);
		read_line("/sys/module/" MODNAME "/version", s->version,
			  sizeof(s->version));
		holders(s->holders, sizeof(s->holders));
		status_params(s);
		status_device(s);
	}
	kmod_module_unref(mod);
	return 0;
}

static void status_free(struct status *s)
{
	free((char *)s->path);
	free(s->cpus);
	free(s->sessions);
	json_object_put(s->params);
}

static uint64_t cpu_cost_ns(const struct kprof_cpu_cost *c)
{
	uint64_t ns = 0;
	unsigned int k;

	for (k = 0; k < KPROF_COST_NR; k++)
		ns += c->cost_ns[k];
	return ns;
}

static json_object *status_json_overhead(const struct status *s)
{
	const struct kprof_stats *st = &s->st;
	json_object *o = json_object_new_object(), *a;
	uint64_t calls, ns = kp_cost_total(st, &calls);
	unsigned int i;

	json_object_object_add(o, "handler_ns", kp_json_u64(ns));
	json_object_object_add(o, "handler_calls", kp_json_u64(calls));
	json_object_object_add(o, "kinds",
			       kp_json_cost(st->cost_ns, st->cost_calls));
	json_object_object_add(o, "guard", kp_json_guard(NULL, st));
	a = json_object_new_array();
	for (i = 0; i < s->nr_cpus; i++) {
		const struct kprof_cpu_cost *c = &s->cpus[i];
		json_object *x = json_object_new_object();

		json_object_object_add(x, "cpu", kp_json_u64(c->cpu));
		json_object_object_add(x, "online",
				       json_object_new_boolean(c->online));
		json_object_object_add(x, "level", kp_json_u64(c->level));
		json_object_object_add(x, "load_ppm", kp_json_u64(c->load_ppm));
		json_object_object_add(x, "sample_hz", kp_json_u64(c->sample_hz));
		json_object_object_add(x, "unsampled",
				       json_object_new_boolean(c->unsampled));
		json_object_object_add(x, "handler_ns",
				       kp_json_u64(cpu_cost_ns(c)));
		json_object_array_add(a, x);
	}
	json_object_object_add(o, "cpus", a);
	return o;
}

/* How long ago CLOCK_MONOTONIC @t was, when the status was taken. */
static uint64_t status_age(const struct status *s, uint64_t t)
{
	return s->now_ns > t ? s->now_ns - t : 0;
}

static json_object *status_json_sessions(const struct status *s)
{
	const struct kprof_sessions *ss = s->sessions;
	json_object *a = json_object_new_array();
	unsigned int i;

	for (i = 0; i < ss->nr_listed; i++) {
		const struct kprof_session_info *x = &ss->s[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "pid", json_object_new_int64(x->tgid));
		json_object_object_add(o, "comm", json_object_new_string(x->comm));
		json_object_object_add(o, "running",
				       kp_json_bits(x->held, &kp_run_names));
		json_object_object_add(o, "open_ns",
				       kp_json_u64(status_age(s, x->opened_ns)));
		json_object_object_add(o, "running_ns",
				       kp_json_u64(x->started_ns ?
						   status_age(s, x->started_ns) : 0));
		json_object_object_add(o, "self",
				       json_object_new_boolean(x->self));
		json_object_array_add(a, o);
	}
	return a;
}

/* The sessions other than this command's own, one line each. */
static void status_text_sessions(const struct status *s)
{
	const struct kprof_sessions *ss = s->sessions;
	char dur[KP_DURATION_LEN];
	unsigned int i;

	printf("  sessions:   %u besides this one\n", ss->nr ? ss->nr - 1 : 0);
	for (i = 0; i < ss->nr_listed; i++) {
		const struct kprof_session_info *x = &ss->s[i];

		if (x->self)
			continue;
		if (x->tgid)
			printf("    pid %-8u %-16s ", x->tgid, x->comm);
		else
			printf("    %-12s %-16s ", "(other ns)", x->comm);
		if (x->held) {
			kp_print_bits(stdout, x->held, &kp_run_names);
			printf(" for %s\n", kp_fmt_duration(dur, sizeof(dur),
				status_age(s, x->started_ns)));
		} else {
			printf("nothing running, open for %s\n",
			       kp_fmt_duration(dur, sizeof(dur),
					       status_age(s, x->opened_ns)));
		}
	}
	if (ss->nr > ss->nr_listed)
		printf("    and %u more\n", ss->nr - ss->nr_listed);
}

/* "full", "prefix", "hash", or the number of a mode this reader does not know. */
static json_object *endpoints_json(uint32_t mode)
{
	const char *name = kp_endpoints_name(mode);

	return name ? json_object_new_string(name) : json_object_new_int64(mode);
}

static json_object *status_json(const struct status *s)
{
	json_object *o = json_object_new_object(), *t, *d;
	const struct kprof_stats *st = &s->st;
	struct utsname u;

	uname(&u);
	json_object_object_add(o, "kernel", json_object_new_string(u.release));
	json_object_object_add(o, "loaded", json_object_new_boolean(s->loaded));
	json_object_object_add(o, "installed_path",
			       s->path ? json_object_new_string(s->path) : NULL);
	if (!s->loaded)
		return o;
	json_object_object_add(o, "version", json_object_new_string(s->version));
	json_object_object_add(o, "refcnt", json_object_new_int(s->refcnt));
	json_object_object_add(o, "held_by",
			       json_object_new_string(s->holders));
	json_object_object_add(o, "parameters", json_object_get(s->params));
	if (!s->have_dev) {
		json_object_object_add(o, "device_error",
				       json_object_new_string(strerror(s->dev_err)));
		return o;
	}
	t = json_object_new_object();
	json_object_object_add(t, "major", json_object_new_int(s->info.api_major));
	json_object_object_add(t, "minor", json_object_new_int(s->info.api_minor));
	json_object_object_add(o, "api", t);
	json_object_object_add(o, "features",
			       kp_json_bits(s->info.features, &kp_feature_names));
	json_object_object_add(o, "attach",
			       kp_json_bits(s->info.attach, &kp_attach_names));
	json_object_object_add(o, "running",
			       kp_json_bits(s->info.running, &kp_run_names));
	json_object_object_add(o, "endpoints", endpoints_json(s->info.endpoints));
	if (s->sessions)
		json_object_object_add(o, "sessions", status_json_sessions(s));

	t = json_object_new_object();
	json_object_object_add(t, "threshold_ns",
			       kp_json_u64(s->cfg.threshold_ns));
	json_object_object_add(t, "sample_hz",
			       json_object_new_int64(s->cfg.sample_hz));
	json_object_object_add(t, "tgid", json_object_new_int64(s->cfg.tgid));
	json_object_object_add(t, "cgroup_id", kp_json_u64(s->cfg.cgroup_id));
	json_object_object_add(o, "config", t);

	t = json_object_new_object();
	d = json_object_new_object();
	json_object_object_add(d, "used", json_object_new_int64(st->inflight));
	json_object_object_add(d, "dead",
			       json_object_new_int64(st->inflight_dead));
	json_object_object_add(d, "max",
			       json_object_new_int64(s->info.inflight_max));
	json_object_object_add(t, "inflight", d);
	d = json_object_new_object();
	json_object_object_add(d, "used", json_object_new_int64(st->stacks));
	json_object_object_add(d, "max",
			       json_object_new_int64(s->info.stacks_max));
	json_object_object_add(t, "stacks", d);
	json_object_object_add(o, "tables", t);

	t = json_object_new_object();
	json_object_object_add(t, "requests", kp_json_u64(st->requests));
	json_object_object_add(t, "abandoned", kp_json_u64(st->abandoned));
	json_object_object_add(t, "samples", kp_json_u64(st->samples));
	json_object_object_add(t, "samples_idle", kp_json_u64(st->samples_idle));
	json_object_object_add(t, "snapshots", kp_json_u64(st->snapshots));
	json_object_object_add(t, "stack_resets",
			       json_object_new_int64(st->stack_resets));
	json_object_object_add(o, "counters", t);

	t = json_object_new_object();
	json_object_object_add(t, "inflight", kp_json_u64(st->drops_inflight));
	json_object_object_add(t, "rows", kp_json_u64(st->drops_rows));
	json_object_object_add(t, "stacks", kp_json_u64(st->drops_stacks));
	json_object_object_add(t, "export", kp_json_u64(st->drops_export));
	json_object_object_add(t, "samples", kp_json_u64(st->drops_samples));
	json_object_object_add(o, "drops", t);

	if (kp_stats_have_guard(st))
		json_object_object_add(o, "overhead", status_json_overhead(s));
	return o;
}

static void status_text_overhead(const struct status *s)
{
	const struct kprof_stats *st = &s->st;
	char dur[KP_DURATION_LEN], load[32], budget[32], rate[48];
	uint64_t calls, ns = kp_cost_total(st, &calls);
	unsigned int i;

	printf("  overhead:   handlers %s in %" PRIu64 " calls since load; "
	       "busiest CPU %s over the last second\n",
	       kp_fmt_duration(dur, sizeof(dur), ns), calls,
	       kp_fmt_ppm(load, sizeof(load), st->load_ppm));
	if (st->budget_ppm)
		printf("  guard:      budget %s per CPU, level %u (%s) on %u CPU%s",
		       kp_fmt_ppm(budget, sizeof(budget), st->budget_ppm),
		       st->guard_level, kp_guard_level_name(st->guard_level),
		       st->guard_cpus, st->guard_cpus == 1 ? "" : "s");
	else
		printf("  guard:      off (budget_ppm=0)");
	printf("; steps %" PRIu64 "/%" PRIu64 "/%" PRIu64 ", recoveries %"
	       PRIu64 "; shed %" PRIu64 " stacks, %" PRIu64 " requests\n",
	       (uint64_t)st->guard_steps[0], (uint64_t)st->guard_steps[1],
	       (uint64_t)st->guard_steps[2], (uint64_t)st->guard_recoveries,
	       (uint64_t)st->shed_stacks, (uint64_t)st->shed_requests);
	for (i = 0; i < s->nr_cpus; i++) {
		const struct kprof_cpu_cost *c = &s->cpus[i];

		if (!c->online)
			continue;
		if (c->unsampled)
			snprintf(rate, sizeof(rate),
				 "unsampled (no perf event, see dmesg)");
		else
			snprintf(rate, sizeof(rate), "sampling %u Hz",
				 c->sample_hz);
		printf("  cpu %-6u  level %u (%s), load %s, %s, handlers %s\n",
		       c->cpu, c->level, kp_guard_level_name(c->level),
		       kp_fmt_ppm(load, sizeof(load), c->load_ppm), rate,
		       kp_fmt_duration(dur, sizeof(dur), cpu_cost_ns(c)));
	}
}

static void status_text(const struct status *s)
{
	const struct kprof_stats *st = &s->st;
	char dur[KP_DURATION_LEN];
	const char *ep;

	if (!s->loaded) {
		printf("%s: not loaded%s%s\n", MODNAME,
		       s->path ? "; installed at " : " and not installed",
		       s->path ? s->path : "");
		return;
	}
	printf("%s: loaded, version %s, %d reference%s%s%s\n", MODNAME,
	       s->version[0] ? s->version : "?", s->refcnt,
	       s->refcnt == 1 ? "" : "s", s->holders[0] ? ", held by " : "",
	       s->holders);
	printf("  parameters:");
	json_object_object_foreach(s->params, k, v)
		printf(" %s=%s", k, json_object_get_string(v));
	printf("\n");
	if (!s->have_dev) {
		printf("  device:     %s: %s%s\n", kprof_dev_path(),
		       strerror(s->dev_err),
		       s->dev_err == EACCES || s->dev_err == EPERM ?
		       " (run as root for the rest)" : "");
		return;
	}
	printf("  api:        %u.%u\n", s->info.api_major, s->info.api_minor);
	printf("  features:  ");
	kp_print_bits(stdout, s->info.features, &kp_feature_names);
	printf("\n  attach:    ");
	kp_print_bits(stdout, s->info.attach, &kp_attach_names);
	printf("\n  running:   ");
	kp_print_bits(stdout, s->info.running, &kp_run_names);
	ep = kp_endpoints_name(s->info.endpoints);
	if (ep)
		printf("\n  endpoints:  %s", ep);
	else
		printf("\n  endpoints:  unknown (%u)", s->info.endpoints);
	printf("\n  config:     threshold %s, sampling %u Hz",
	       kp_fmt_duration(dur, sizeof(dur), s->cfg.threshold_ns),
	       s->cfg.sample_hz);
	if (s->cfg.tgid)
		printf(", pid %u", s->cfg.tgid);
	if (s->cfg.cgroup_id)
		printf(", cgroup %" PRIu64, (uint64_t)s->cfg.cgroup_id);
	printf("\n  tables:     in flight %u/%u (%u dead), stacks %u/%u\n",
	       st->inflight, s->info.inflight_max, st->inflight_dead,
	       st->stacks, s->info.stacks_max);
	printf("  counters:   requests %" PRIu64 " (abandoned %" PRIu64
	       "), samples %" PRIu64 " (idle %" PRIu64 "), intervals %" PRIu64
	       "\n", (uint64_t)st->requests, (uint64_t)st->abandoned,
	       (uint64_t)st->samples, (uint64_t)st->samples_idle,
	       (uint64_t)st->snapshots);
	printf("  drops:      in flight %" PRIu64 ", rows %" PRIu64
	       ", stacks %" PRIu64 ", export %" PRIu64 ", samples %" PRIu64
	       "\n", (uint64_t)st->drops_inflight, (uint64_t)st->drops_rows,
	       (uint64_t)st->drops_stacks, (uint64_t)st->drops_export,
	       (uint64_t)st->drops_samples);
	if (s->sessions)
		status_text_sessions(s);
	if (kp_stats_have_guard(st))
		status_text_overhead(s);
}

struct status_opts {
	int json;
};

static const struct kp_opt status_opts[] = {
	{ .name = "json", .kind = KP_OPT_KIND_FLAG,
	  .off = offsetof(struct status_opts, json), .left = "  --json",
	  .help = "one JSON object instead of text" },
	KP_OPT_END,
};

static int status_run(int argc, char **argv)
{
	struct status_opts so = { 0 };
	struct kmod_ctx *ctx;
	struct status s;
	int json, ret;

	ret = kp_opts_parse("status", status_opts, &so, argc, argv);
	if (ret == KP_OPTS_HELP) {
		kp_cmd_usage(&kp_cmd_status, stdout);
		return 0;
	}
	if (ret != KP_OPTS_RUN)
		return ret;
	json = so.json;
	if (optind < argc) {
		kp_err("status: unexpected argument '%s'", argv[optind]);
		return KP_EXIT_USAGE;
	}
	ctx = kmod_open("status");
	if (!ctx)
		return KP_EXIT_FAIL;
	ret = status_gather(&s, ctx);
	kmod_unref(ctx);
	if (ret)
		return ret;
	if (json) {
		json_object *o = status_json(&s);

		printf("%s\n", json_object_to_json_string_ext(o,
			JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	} else {
		status_text(&s);
	}
	ret = s.loaded ? 0 : KP_EXIT_FAIL;
	status_free(&s);
	return ret;
}

const struct kp_cmd kp_cmd_status = {
	.name = "status",
	.summary = "is kprofmod loaded, and what is it doing",
	.usage = "kprof status [--json]\n",
	.opts = status_opts,
	.opts_col = 17,
	.help =
	"With root: what runs and the sessions holding it (pid, command, what,\n"
	"since when), configuration, tables, counters and overhead.\n"
	"Exit status 1 when the module is not loaded.  Without root, shows what\n"
	"sysfs shows: version, parameters, references.\n",
	.run = status_run,
};
