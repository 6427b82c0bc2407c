/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof reader: the executable mappings of a process, from /proc/PID/maps,
 * for the mappings of a pprof profile.
 */
#ifndef KPROF_READER_MAPS_H
#define KPROF_READER_MAPS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct kp_maps_entry {
	uint64_t start;
	uint64_t end;		/* one past the last byte */
	uint64_t offset;	/* file offset of @start */
	dev_t dev;		/* the file's device and inode */
	ino_t ino;
	char *path;		/* the file, "[vdso]", or "" when anonymous */
};

struct kp_maps {
	struct kp_maps_entry *v;	/* sorted by start */
	size_t n;
};

/*
 * Bytes of a maps file read at most: its process shapes it (up to 65530
 * mappings with names of up to 4 KiB).
 */
#define KP_MAPS_MAX_BYTES	(4u << 20)

/*
 * Parse the executable mappings of a maps file (@f, the format of
 * /proc/PID/maps) into @m, up to KP_MAPS_MAX_BYTES of it.  Malformed
 * lines are skipped.  Returns 0 or
 * -ENOMEM.
 */
int kp_maps_parse(FILE *f, struct kp_maps *m);

/* Read /proc/@pid/maps.  Returns 0, or -errno (the process is gone). */
int kp_maps_read(pid_t pid, struct kp_maps *m);

void kp_maps_free(struct kp_maps *m);

/* The entry holding @addr, or NULL. */
const struct kp_maps_entry *kp_maps_find(const struct kp_maps *m,
					 uint64_t addr);

#endif
