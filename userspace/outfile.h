/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof reader: output files written atomically.  PATH.tmp is created
 * when the command starts (so a path that cannot be written fails before
 * any measuring), filled at the end, flushed to disk and renamed over
 * PATH: readers see the old file or the whole new one.  A file written
 * again and again (top --prometheus) creates PATH.tmp anew after each
 * commit.
 */
#ifndef KPROF_READER_OUTFILE_H
#define KPROF_READER_OUTFILE_H

#include <stdio.h>

struct kp_out {
	char *path;
	char *tmp;	/* PATH.tmp */
	int fd;		/* -1: not open */
};

/*
 * Create PATH.tmp; a PATH that is a directory is refused.  0, or -1
 * after printing one line.
 */
int kp_out_open(struct kp_out *o, const char *path);

/*
 * Write with @fn (0 or -errno) into PATH.tmp and rename it to PATH.
 * Returns 0, or -1 after printing one line (PATH.tmp removed).
 */
int kp_out_commit(struct kp_out *o, int (*fn)(FILE *f, void *ctx), void *ctx);

/*
 * After kp_out_commit(), create PATH.tmp again for the next one (nothing
 * to do if it is open).  0, or -1 after printing one line.
 */
int kp_out_reopen(struct kp_out *o);

/* Remove PATH.tmp if still there, free what kp_out_open() took. */
void kp_out_close(struct kp_out *o);

#endif
