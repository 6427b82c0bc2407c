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

#include <libkmod.h>

#include "cost.h"
#include "dev.h"
#include "kprof.h"
#include "names.h"
#include "session.h"
#include "status.h"
#include "status_print.h"
#include "units.h"
#include "util.h"

#define MODNAME		KP_MODNAME
#define MAX_PARAMS	64

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
		kp_mod_holders(who, sizeof(who));
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

	ret = kp_cmd_parse(&kp_cmd_load, &o, argc, argv, 1);
	if (ret >= 0)
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
	if (kp_mod_loaded(mod)) {
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
	if (!kp_mod_loaded(mod)) {
		kp_err("unload: %s is not loaded", MODNAME);
		goto out;
	}
	err = kmod_module_remove_module(mod, 0);
	if (err == -EBUSY || err == -EAGAIN) {
		kp_mod_holders(who, sizeof(who));
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
	struct kp_status s;
	int json, ret;

	ret = kp_cmd_parse(&kp_cmd_status, &so, argc, argv, 0);
	if (ret >= 0)
		return ret;
	json = so.json;
	ctx = kmod_open("status");
	if (!ctx)
		return KP_EXIT_FAIL;
	ret = kp_status_gather(&s, ctx);
	kmod_unref(ctx);
	if (ret)
		return ret;
	if (json)
		kp_status_json(&s);
	else
		kp_status_text(&s);
	ret = s.loaded ? 0 : KP_EXIT_FAIL;
	kp_status_free(&s);
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
