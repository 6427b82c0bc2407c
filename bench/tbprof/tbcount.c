// SPDX-License-Identifier: GPL-2.0
/*
 * tbcount: a QEMU TCG plugin that counts how often each translation
 * block of the guest kernel runs, for `make bench-profile`.  With
 * -icount every guest instruction is one nanosecond of the guest's
 * clock; this says which kernel functions those instructions were.
 *
 * The guest asks for the counts so far by creating DIR/req.NAME (DIR is
 * the plugin's "dir=" argument, a directory the guest shares with the
 * host); the plugin answers with DIR/dump.NAME, one line per translation
 * block that ran: "VADDR INSNS EXECUTIONS" (hex, decimal, decimal).  The
 * difference of two dumps is what ran between them.  Only kernel
 * addresses (the upper half) are counted.
 *
 * Written against QEMU's plugin API version 1 (QEMU 7.2, Debian 12's):
 * the declarations below are the few functions of <qemu-plugin.h> it
 * uses, which Debian does not package.  Counters are per translation, so
 * a block translated twice (another address space, flushed code) has
 * two lines; the inline add is not atomic, which a single-threaded TCG
 * (icount implies it) does not need.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_info_t;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*tb_trans_cb_t)(qemu_plugin_id_t, struct qemu_plugin_tb *);
typedef void (*udata_cb_t)(qemu_plugin_id_t, void *);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t, tb_trans_cb_t);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *,
					      enum qemu_plugin_op, void *,
					      uint64_t);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t, udata_cb_t, void *);

#define EXPORT __attribute__((visibility("default")))

EXPORT int qemu_plugin_version = 1;

struct block {
	uint64_t vaddr;
	uint64_t insns;
	uint64_t count;		/* the inline op adds 1 per execution */
};

#define CHUNK (1 << 16)
static struct block **chunks;
static size_t nr_chunks, nr_blocks;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char dir[3072] = ".";

/* Never moves: chunks are only added, so the inline op's pointer holds. */
static struct block *block_new(void)
{
	struct block **c;

	if (nr_blocks == nr_chunks * CHUNK) {
		c = realloc(chunks, (nr_chunks + 1) * sizeof(*c));
		if (!c)
			return NULL;
		chunks = c;
		chunks[nr_chunks] = calloc(CHUNK, sizeof(struct block));
		if (!chunks[nr_chunks])
			return NULL;
		nr_chunks++;
	}
	nr_blocks++;
	return &chunks[(nr_blocks - 1) / CHUNK][(nr_blocks - 1) % CHUNK];
}

static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t va = qemu_plugin_tb_vaddr(tb);
	struct block *b;

	(void)id;
	if (va < 0xffff800000000000ull)
		return;
	pthread_mutex_lock(&lock);
	b = block_new();
	if (b) {
		b->vaddr = va;
		b->insns = qemu_plugin_tb_n_insns(tb);
	}
	pthread_mutex_unlock(&lock);
	if (b)
		qemu_plugin_register_vcpu_tb_exec_inline(tb,
			QEMU_PLUGIN_INLINE_ADD_U64, &b->count, 1);
}

/* Write the counts to @path, through a temporary file and a rename. */
static void dump(const char *path)
{
	char tmp[4096];
	size_t i;
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.part", path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	pthread_mutex_lock(&lock);
	for (i = 0; i < nr_blocks; i++) {
		const struct block *b = &chunks[i / CHUNK][i % CHUNK];

		if (b->count)
			fprintf(f, "%llx %llu %llu\n",
				(unsigned long long)b->vaddr,
				(unsigned long long)b->insns,
				(unsigned long long)b->count);
	}
	pthread_mutex_unlock(&lock);
	if (fclose(f) == 0)
		rename(tmp, path);
}

/* Answer the guest's requests: DIR/req.NAME -> DIR/dump.NAME. */
static void *requests(void *arg)
{
	char req[4096], out[4096];
	struct dirent *de;
	DIR *d;

	(void)arg;
	for (;;) {
		d = opendir(dir);
		while (d && (de = readdir(d))) {
			if (strncmp(de->d_name, "req.", 4) ||
			    strchr(de->d_name, '/'))
				continue;
			snprintf(req, sizeof(req), "%s/%s", dir, de->d_name);
			snprintf(out, sizeof(out), "%s/dump.%s", dir,
				 de->d_name + 4);
			dump(out);
			unlink(req);
		}
		if (d)
			closedir(d);
		usleep(20000);
	}
	return NULL;
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	char out[4096];

	(void)id;
	(void)p;
	snprintf(out, sizeof(out), "%s/dump.exit", dir);
	dump(out);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
			       const struct qemu_info_t *info, int argc,
			       char **argv)
{
	pthread_t t;
	int i;

	(void)info;
	for (i = 0; i < argc; i++) {
		if (strncmp(argv[i], "dir=", 4) ||
		    strlen(argv[i]) >= sizeof(dir) + 4) {
			fprintf(stderr, "tbcount: unknown argument %s\n", argv[i]);
			return -1;
		}
		strcpy(dir, argv[i] + 4);
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return pthread_create(&t, NULL, requests, NULL) ? -1 : 0;
}
