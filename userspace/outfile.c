// SPDX-License-Identifier: GPL-2.0
/* kprof reader: atomic output files, see outfile.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "util.h"

/*
 * Create PATH.tmp (o->tmp).  0, or -1 after printing one line, o->tmp
 * freed: a file that could not be created is not ours to remove.
 */
static int open_tmp(struct kp_out *o)
{
	if (!o->tmp && asprintf(&o->tmp, "%s.tmp", o->path) < 0) {
		o->tmp = NULL;
		kp_err("out of memory");
		return -1;
	}
	o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (o->fd < 0) {
		kp_err("cannot create %s: %s", o->tmp, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	return 0;
}

int kp_out_open(struct kp_out *o, const char *path)
{
	struct stat st;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->path = strdup(path);
	if (!o->path) {
		kp_err("out of memory");
		return -1;
	}
	/* The rename at the end would fail: say so before any work. */
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		kp_err("cannot write %s: %s", path, strerror(EISDIR));
		kp_out_close(o);
		return -1;
	}
	if (open_tmp(o)) {
		kp_out_close(o);
		return -1;
	}
	return 0;
}

int kp_out_reopen(struct kp_out *o)
{
	if (o->fd >= 0)
		return 0;
	return open_tmp(o);
}

int kp_out_commit(struct kp_out *o, int (*fn)(FILE *f, void *ctx), void *ctx)
{
	int ret, err = 0;
	FILE *f;

	errno = 0;

	f = fdopen(o->fd, "w");
	if (!f) {
		kp_err("writing %s: %s", o->tmp, strerror(errno));
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
		kp_err("writing %s: %s", o->tmp, strerror(err));
		unlink(o->tmp);
		return -1;
	}
	if (rename(o->tmp, o->path)) {
		kp_err("renaming %s to %s: %s", o->tmp, o->path,
		       strerror(errno));
		unlink(o->tmp);
		return -1;
	}
	free(o->tmp);
	o->tmp = NULL;		/* nothing left to remove */
	return 0;
}

void kp_out_close(struct kp_out *o)
{
	if (o->fd >= 0)
		close(o->fd);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
	o->fd = -1;
}
