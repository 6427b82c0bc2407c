/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof reader: output files written atomically and safely.  The reader
 * runs as root and writes where an operator points it, sometimes into a
 * directory that other users can write (a textfile-collector directory),
 * so nothing about the file is taken from the file system:
 *
 *  - the directory is opened once; every later step is relative to that
 *    descriptor, and it must be owned by root or by the caller and not
 *    writable by group or others, unless the caller allows a shared one;
 *  - the data goes to a new file with an unpredictable name, created with
 *    O_EXCL|O_NOFOLLOW (no planted file or symlink is ever opened), given
 *    its mode with fchmod() (0600 unless the caller says otherwise: the
 *    profiles hold other users' stacks and addresses), filled, flushed to
 *    disk and renamed over PATH, and the directory is then flushed too:
 *    readers see the old file or the whole new one.
 *
 * The temporary file is created when the command starts (so a path that
 * cannot be written fails before any measuring); a file written again and
 * again (top --prometheus) gets a new one after each commit.
 */
#ifndef KPROF_READER_OUTFILE_H
#define KPROF_READER_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "parse_opts.h"

/* The mode of output files unless an option sets one. */
#define KP_OUT_MODE	0600

struct kp_out_opts {
	mode_t mode;		/* the file's permission bits */
	bool shared_dir;	/* allow a directory others can write */
	bool set;		/* either given as an option */
};

/*
 * --file-mode MODE and --shared-dir as option rows (parse_opts.h) on a
 * struct kp_out_opts, for a command's table to take with
 * { .ref = &kp_out_rows[KP_OUT_ROW_x], .off = offsetof(..., file) }.
 */
enum { KP_OUT_ROW_MODE, KP_OUT_ROW_SHARED_DIR, KP_OUT_NROWS };
extern const struct kp_opt kp_out_rows[KP_OUT_NROWS];

struct kp_out {
	char *path;	/* as given */
	char *base;	/* its last component */
	char *tmp;	/* the temporary's name in the directory, or NULL */
	int dirfd;	/* the directory, -1: none */
	int fd;		/* the temporary, -1: not open */
	mode_t mode;
};

/* Initialise @o so that kp_out_close() on it is a no-op. */
void kp_out_init(struct kp_out *o);

/*
 * Check PATH's directory and create the temporary.  A PATH that is a
 * directory is refused.  0, or -1 after printing one line.
 */
int kp_out_open(struct kp_out *o, const char *path,
		const struct kp_out_opts *opts);

/*
 * Write with @fn (0 or -errno) into the temporary and rename it to PATH.
 * Returns 0, or -1 after printing one line (the temporary removed).
 */
int kp_out_commit(struct kp_out *o, int (*fn)(FILE *f, void *ctx), void *ctx);

/*
 * After kp_out_commit(), create a temporary again for the next one
 * (nothing to do if one is open).  0, or -1 after printing one line.
 */
int kp_out_reopen(struct kp_out *o);

/* Remove the temporary if still there, free what kp_out_open() took. */
void kp_out_close(struct kp_out *o);

/*
 * Parse an octal file mode for --file-mode (permission bits only, no
 * set-id or sticky bits).  NULL, or why not.
 */
const char *kp_out_parse_mode(const char *s, mode_t *mode);

#endif
