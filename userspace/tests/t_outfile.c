// SPDX-License-Identifier: GPL-2.0
/*
 * Output files: what another user plants in the directory is never
 * opened, the file gets a private mode unless one is asked for, and a
 * directory that others can write or that another user owns is refused
 * unless allowed.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "unit.h"

#define VICTIM_TEXT	"root's own file\n"

static int put_text(FILE *f, void *ctx)
{
	return fputs(ctx, f) < 0 ? -5 : 0;
}

static char *tmpdir(mode_t mode)
{
	char *d = strdup("/tmp/kprof-t-outfile.XXXXXX");

	if (!d || !mkdtemp(d)) {
		free(d);
		return NULL;
	}
	chmod(d, mode);
	return d;
}

static char *path_in(const char *d, const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", d, name) < 0)
		return NULL;
	return p;
}

static int file_is(const char *path, const char *text)
{
	char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return !strcmp(buf, text);
}

/* Entries of @d other than . and .. */
static int entries(const char *d)
{
	struct dirent *e;
	DIR *dir = opendir(d);
	int n = 0;

	if (!dir)
		return -1;
	while ((e = readdir(dir)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(dir);
	return n;
}

/* write @path through kp_out with @opts: 0, or -1 where it failed */
static int write_file(const char *path, const struct kp_out_opts *opts,
		      const char *text)
{
	struct kp_out o;
	int ret;

	if (kp_out_open(&o, path, opts))
		return -1;
	ret = kp_out_commit(&o, put_text, (void *)text);
	kp_out_close(&o);
	return ret;
}

/*
 * A symlink planted where the old code created FILE.tmp, and FILE itself
 * a symlink: the file they point at (another directory's, mode 0600) is
 * neither truncated nor written.
 */
static void test_planted_symlinks(void)
{
	char *d = tmpdir(0700), *v = tmpdir(0700);
	char *victim = path_in(v, "victim"), *out = path_in(d, "out.prom");
	char *tmp = path_in(d, "out.prom.tmp");
	struct kp_out_opts opts = { .mode = 0600, .shared_dir = false };
	FILE *f;

	if (!d || !v || !victim || !out || !tmp) {
		EXPECT(0, "setup");
		goto out;
	}
	f = fopen(victim, "w");
	EXPECT(f && fputs(VICTIM_TEXT, f) >= 0, "victim");
	if (f)
		fclose(f);
	chmod(victim, 0600);
	EXPECT(!symlink(victim, tmp), "plant %s", tmp);
	EXPECT(!write_file(out, &opts, "ours\n"), "write beside a planted FILE.tmp");
	EXPECT(file_is(victim, VICTIM_TEXT), "the victim is untouched");
	EXPECT(file_is(out, "ours\n"), "FILE holds what was written");

	/* FILE itself a symlink to the victim: replaced, not followed */
	unlink(out);
	EXPECT(!symlink(victim, out), "plant %s", out);
	EXPECT(!write_file(out, &opts, "again\n"), "write over a symlink");
	EXPECT(file_is(victim, VICTIM_TEXT), "the victim is still untouched");
	EXPECT(file_is(out, "again\n"), "FILE is ours now");
out:
	if (d)
		kp_test_rmtree(d);
	if (v)
		kp_test_rmtree(v);
	free(d);
	free(v);
	free(victim);
	free(out);
	free(tmp);
}

/* 0600 by default whatever the umask; an asked-for mode exactly */
static void test_modes(void)
{
	char *d = tmpdir(0700), *out = d ? path_in(d, "f") : NULL;
	struct kp_out_opts opts = { .mode = KP_OUT_MODE, .shared_dir = false };
	mode_t old = umask(0);
	struct stat st;

	if (!out) {
		EXPECT(0, "setup");
		goto out;
	}
	EXPECT(!write_file(out, &opts, "x\n"), "write, umask 0");
	EXPECT(!stat(out, &st) && (st.st_mode & 07777) == 0600,
	       "default mode %04o, want 0600", st.st_mode & 07777);
	EXPECT(!write_file(out, NULL, "x\n"), "write, no options");
	EXPECT(!stat(out, &st) && (st.st_mode & 07777) == 0600,
	       "mode without options %04o, want 0600", st.st_mode & 07777);
	umask(077);
	opts.mode = 0644;
	EXPECT(!write_file(out, &opts, "x\n"), "write, mode 0644, umask 077");
	EXPECT(!stat(out, &st) && (st.st_mode & 07777) == 0644,
	       "mode %04o, want 0644", st.st_mode & 07777);
	EXPECT(entries(d) == 1, "only FILE is left: %d entries", entries(d));
out:
	umask(old);
	if (d)
		kp_test_rmtree(d);
	free(d);
	free(out);
}

/* a directory that others can write is refused unless allowed */
static void test_shared_dirs(void)
{
	static const struct {
		mode_t mode;
		int ok;
	} cases[] = {
		{ 0700, 1 }, { 0755, 1 }, { 0775, 0 }, { 0777, 0 },
		{ 01777, 0 }, { 0757, 0 },
	};
	struct kp_out_opts opts = { .mode = 0600, .shared_dir = false };
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *d = tmpdir(cases[i].mode), *out = d ? path_in(d, "f") : NULL;

		if (!out) {
			EXPECT(0, "setup");
			free(d);
			continue;
		}
		opts.shared_dir = false;
		EXPECT((write_file(out, &opts, "x\n") == 0) == cases[i].ok,
		       "directory mode %04o: want %s", cases[i].mode,
		       cases[i].ok ? "written" : "refused");
		if (!cases[i].ok)
			EXPECT(entries(d) == 0, "refused: nothing created in %04o",
			       cases[i].mode);
		opts.shared_dir = true;
		EXPECT(!write_file(out, &opts, "x\n"),
		       "directory mode %04o with shared_dir: written", cases[i].mode);
		kp_test_rmtree(d);
		free(d);
		free(out);
	}
}

/* a directory owned by another user (root only: chown) is refused */
static void test_other_owner(void)
{
	struct kp_out_opts opts = { .mode = 0600, .shared_dir = false };
	char *d, *out;

	if (geteuid() != 0) {
		kp_test_diag("not root: the other-owner case is not run");
		return;
	}
	d = tmpdir(0755);
	out = d ? path_in(d, "f") : NULL;
	if (!out || chown(d, 65534, 65534)) {
		EXPECT(0, "setup");
		goto out;
	}
	EXPECT(write_file(out, &opts, "x\n") == -1, "owned by 65534: refused");
	opts.shared_dir = true;
	EXPECT(!write_file(out, &opts, "x\n"), "with shared_dir: written");
out:
	if (d)
		kp_test_rmtree(d);
	free(d);
	free(out);
}

/* a directory as FILE, and a missing directory: refused, nothing made */
static void test_bad_paths(void)
{
	struct kp_out_opts opts = { .mode = 0600, .shared_dir = false };
	char *d = tmpdir(0700), *sub = d ? path_in(d, "sub") : NULL;
	char *missing = d ? path_in(d, "no/f") : NULL;
	struct kp_out o;

	if (!sub || !missing || mkdir(sub, 0700)) {
		EXPECT(0, "setup");
		goto out;
	}
	EXPECT(kp_out_open(&o, sub, &opts) == -1, "a directory as FILE");
	EXPECT(kp_out_open(&o, missing, &opts) == -1, "a missing directory");
	EXPECT(entries(d) == 1, "nothing created: %d entries", entries(d));
out:
	if (d)
		kp_test_rmtree(d);
	free(d);
	free(sub);
	free(missing);
}

/* opened and closed without a commit: no temporary is left */
static void test_close_uncommitted(void)
{
	struct kp_out_opts opts = { .mode = 0600, .shared_dir = false };
	char *d = tmpdir(0700), *out = d ? path_in(d, "f") : NULL;
	struct kp_out o;

	if (!out) {
		EXPECT(0, "setup");
		goto out;
	}
	EXPECT(!kp_out_open(&o, out, &opts), "open");
	EXPECT(entries(d) == 1, "the temporary exists");
	kp_out_close(&o);
	EXPECT(entries(d) == 0, "gone after the close: %d entries", entries(d));
out:
	if (d)
		kp_test_rmtree(d);
	free(d);
	free(out);
}

static void test_parse_mode(void)
{
	mode_t m = 0;

	EXPECT(!kp_out_parse_mode("0644", &m) && m == 0644, "0644");
	EXPECT(!kp_out_parse_mode("600", &m) && m == 0600, "600");
	EXPECT(!kp_out_parse_mode("0", &m) && m == 0, "0");
	EXPECT(kp_out_parse_mode("", &m), "empty");
	EXPECT(kp_out_parse_mode("0648", &m), "not octal");
	EXPECT(kp_out_parse_mode("4755", &m), "set-uid bit");
	EXPECT(kp_out_parse_mode("-1", &m), "negative");
	EXPECT(kp_out_parse_mode("rw", &m), "symbolic");
}

const struct kp_test t_outfile[] = {
	{ "outfile: planted symlinks are neither followed nor written", test_planted_symlinks },
	{ "outfile: mode 0600 by default, an asked-for mode exactly", test_modes },
	{ "outfile: a directory others can write is refused unless allowed", test_shared_dirs },
	{ "outfile: a directory another user owns is refused unless allowed", test_other_owner },
	{ "outfile: a directory as FILE or a missing directory is refused", test_bad_paths },
	{ "outfile: no temporary left after a close without commit", test_close_uncommitted },
	{ "outfile: --file-mode values", test_parse_mode },
	{ NULL, NULL },
};
