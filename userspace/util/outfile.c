// SPDX-License-Identifier: GPL-2.0
/* kprof reader: atomic, safe output files, see outfile.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "util.h"

#define TMP_TRIES	16

void kp_out_init(struct kp_out *o)
{
	memset(o, 0, sizeof(*o));
	o->dirfd = -1;
	o->fd = -1;
}

/*
 * Create a new temporary in the directory: ".BASE.XXXXXXXXXXXX", random,
 * O_EXCL|O_NOFOLLOW, then given its mode.  0, or -1 after printing one
 * line.
 */
static int open_tmp(struct kp_out *o)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuv";
	unsigned char rnd[12];
	char suffix[sizeof(rnd) + 1];
	unsigned int i, try;

	for (try = 0; try < TMP_TRIES; try++) {
		if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd)) {
			kp_err("cannot create a file next to %s: no random numbers: %s",
			       o->path, strerror(errno));
			return -1;
		}
		for (i = 0; i < sizeof(rnd); i++)
			suffix[i] = digits[rnd[i] & 31];
		suffix[sizeof(rnd)] = '\0';
		free(o->tmp);
		if (asprintf(&o->tmp, ".%s.%s", o->base, suffix) < 0) {
			o->tmp = NULL;
			kp_err("out of memory");
			return -1;
		}
		o->fd = openat(o->dirfd, o->tmp,
			       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			       O_CLOEXEC, 0600);
		if (o->fd >= 0)
			break;
		if (errno != EEXIST) {
			kp_err("cannot create a file next to %s: %s", o->path,
			       strerror(errno));
			break;
		}
	}
	if (o->fd < 0) {
		if (try == TMP_TRIES)
			kp_err("cannot create a file next to %s: %d names taken",
			       o->path, TMP_TRIES);
		/* not created: not ours to remove */
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	/* the mode asked for, whatever the umask */
	if (fchmod(o->fd, o->mode)) {
		kp_err("cannot set the mode of %s: %s", o->path,
		       strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The directory: owned by root or by us, not writable by group or others
 * unless @shared.  0, or -1 after printing one line.
 */
static int check_dir(const struct kp_out *o, const char *dir, bool shared)
{
	struct stat st;

	if (fstat(o->dirfd, &st)) {
		kp_err("cannot write %s: %s: %s", o->path, dir, strerror(errno));
		return -1;
	}
	if (shared)
		return 0;
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		kp_err("refusing to write %s: directory %s belongs to user %u; pass --shared-dir to write there anyway",
		       o->path, dir, (unsigned int)st.st_uid);
		return -1;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		kp_err("refusing to write %s: directory %s is writable by %s (mode %04o); pass --shared-dir to write there anyway",
		       o->path, dir, st.st_mode & S_IWOTH ? "others" : "its group",
		       (unsigned int)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

int kp_out_open(struct kp_out *o, const char *path,
		const struct kp_out_opts *opts)
{
	const char *slash;
	char *dir;
	struct stat st;

	kp_out_init(o);
	o->mode = opts ? opts->mode & 0777 : KP_OUT_MODE;
	o->path = strdup(path);
	slash = strrchr(path, '/');
	o->base = strdup(slash ? slash + 1 : path);
	if (!slash)
		dir = strdup(".");
	else if (slash == path)
		dir = strdup("/");
	else
		dir = strndup(path, slash - path);
	if (!o->path || !o->base || !dir) {
		free(dir);
		kp_err("out of memory");
		kp_out_close(o);
		return -1;
	}
	if (!*o->base || !strcmp(o->base, ".") || !strcmp(o->base, "..")) {
		kp_err("cannot write %s: %s", path, strerror(EISDIR));
		goto fail;
	}
	o->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (o->dirfd < 0) {
		kp_err("cannot write %s: %s: %s", path, dir, strerror(errno));
		goto fail;
	}
	if (check_dir(o, dir, opts && opts->shared_dir))
		goto fail;
	/* The rename at the end would fail: say so before any work. */
	if (!fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW) &&
	    S_ISDIR(st.st_mode)) {
		kp_err("cannot write %s: %s", path, strerror(EISDIR));
		goto fail;
	}
	if (open_tmp(o))
		goto fail;
	free(dir);
	return 0;
fail:
	free(dir);
	kp_out_close(o);
	return -1;
}

int kp_out_reopen(struct kp_out *o)
{
	if (o->fd >= 0)
		return 0;
	return open_tmp(o);
}

static void remove_tmp(struct kp_out *o)
{
	if (o->tmp)
		unlinkat(o->dirfd, o->tmp, 0);
	free(o->tmp);
	o->tmp = NULL;
}

int kp_out_commit(struct kp_out *o, int (*fn)(FILE *f, void *ctx), void *ctx)
{
	int ret, err = 0;
	FILE *f;

	errno = 0;

	f = fdopen(o->fd, "w");
	if (!f) {
		kp_err("writing %s: %s", o->path, strerror(errno));
		return -1;
	}
	o->fd = -1;		/* the stream owns it now */
	ret = fn(f, ctx);
	if (ret)
		err = -ret;
	else if (fflush(f) || ferror(f))
		err = errno ? errno : EIO;
	else if (fsync(fileno(f)))
		err = errno;
	if (fclose(f) && !err)
		err = errno ? errno : EIO;
	if (err) {
		kp_err("writing %s: %s", o->path, strerror(err));
		remove_tmp(o);
		return -1;
	}
	if (renameat(o->dirfd, o->tmp, o->dirfd, o->base)) {
		kp_err("renaming to %s: %s", o->path, strerror(errno));
		remove_tmp(o);
		return -1;
	}
	free(o->tmp);
	o->tmp = NULL;		/* nothing left to remove */
	/* the rename itself on disk */
	if (fsync(o->dirfd) && errno != EINVAL) {
		kp_err("writing %s: flushing its directory: %s", o->path,
		       strerror(errno));
		return -1;
	}
	return 0;
}

void kp_out_close(struct kp_out *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->dirfd >= 0) {
		remove_tmp(o);
		close(o->dirfd);
	}
	free(o->tmp);
	free(o->base);
	free(o->path);
	kp_out_init(o);
}

const char *kp_out_parse_mode(const char *s, mode_t *mode)
{
	unsigned long v;
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return "not an octal mode";
	errno = 0;
	v = strtoul(s, &end, 8);
	if (errno || *end)
		return "not an octal mode";
	if (v > 0777)
		return "permission bits only (0 to 0777)";
	*mode = (mode_t)v;
	return NULL;
}

static int out_mode(const char *cmd, const struct kp_opt *row, const char *arg,
		    void *base)
{
	struct kp_out_opts *o = base;
	const char *why;

	(void)row;
	why = kp_out_parse_mode(arg, &o->mode);
	if (why) {
		kp_err("%s: --file-mode '%s': %s", cmd, arg, why);
		return -1;
	}
	o->set = true;
	return 0;
}

static int out_shared_dir(const char *cmd, const struct kp_opt *row,
			  const char *arg, void *base)
{
	struct kp_out_opts *o = base;

	(void)cmd;
	(void)row;
	(void)arg;
	o->shared_dir = true;
	o->set = true;
	return 0;
}

const struct kp_opt kp_out_rows[KP_OUT_NROWS] = {
	[KP_OUT_ROW_MODE] = {
		.name = "file-mode", .arg = "MODE", .kind = KP_OPT_KIND_CALL,
		.call = out_mode,
		.help = "FILE's permissions, octal (default 0600)" },
	[KP_OUT_ROW_SHARED_DIR] = {
		.name = "shared-dir", .kind = KP_OPT_KIND_CALL,
		.call = out_shared_dir,
		.help = "write even into a directory that another user\n"
			"owns or that group or others can write" },
};
