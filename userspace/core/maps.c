// SPDX-License-Identifier: GPL-2.0
/* kprof reader: executable mappings of a process, see maps.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "maps.h"
#include "util.h"

void kp_maps_free(struct kp_maps *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct kp_maps_entry *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * "start-end perms offset dev inode   path": the path starts after the
 * inode and its padding and runs to the end of the line (it may hold
 * spaces; the kernel escapes newlines in it).
 */
static int parse_line(char *line, struct kp_maps_entry *e)
{
	unsigned long long start, end, off, ino;
	unsigned int major, minor;
	char perms[8];
	size_t len;
	int n = 0;
	char *p;

	e->path = NULL;
	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu%n", &start, &end,
		   perms, &off, &major, &minor, &ino, &n) != 7 || !n)
		return -1;
	if (start >= end || strlen(perms) < 3 || perms[2] != 'x')
		return -1;
	p = line + n;
	while (*p == ' ' || *p == '\t')
		p++;
	len = strlen(p);
	while (len && (p[len - 1] == '\n' || p[len - 1] == '\r'))
		p[--len] = '\0';
	e->start = start;
	e->end = end;
	e->offset = off;
	e->dev = makedev(major, minor);
	e->ino = (ino_t)ino;
	e->path = strdup(p);
	return e->path ? 0 : -ENOMEM;
}

int kp_maps_parse(FILE *f, struct kp_maps *m)
{
	struct kp_maps_entry e;
	size_t cap = 0, linecap = 0, bytes = 0;
	char *line = NULL;
	int ret = 0;
	ssize_t n;

	m->v = NULL;
	m->n = 0;
	while ((n = getline(&line, &linecap, f)) > 0) {
		bytes += n;
		if (bytes > KP_MAPS_MAX_BYTES)
			break;
		ret = parse_line(line, &e);
		if (ret == -ENOMEM)
			break;
		ret = 0;
		if (e.path == NULL)
			continue;
		if (KP_GROW(m->v, m->n, cap)) {
			free(e.path);
			ret = -ENOMEM;
			break;
		}
		m->v[m->n++] = e;
		e.path = NULL;
	}
	free(line);
	if (ret) {
		kp_maps_free(m);
		return ret;
	}
	if (m->n)
		qsort(m->v, m->n, sizeof(*m->v), cmp_entry);
	return 0;
}

int kp_maps_read(pid_t pid, struct kp_maps *m)
{
	char path[64];
	FILE *f;
	int ret;

	m->v = NULL;
	m->n = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	ret = kp_maps_parse(f, m);
	fclose(f);
	return ret;
}

const struct kp_maps_entry *kp_maps_find(const struct kp_maps *m,
					 uint64_t addr)
{
	size_t lo = 0, hi = m->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (addr < m->v[mid].start)
			hi = mid;
		else if (addr >= m->v[mid].end)
			lo = mid + 1;
		else
			return &m->v[mid];
	}
	return NULL;
}
