// SPDX-License-Identifier: GPL-2.0
/* Tests: options from rows (parse_opts): parsing, messages, help, list. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parse_opts.h"
#include "session.h"
#include "util.h"
#include "unit.h"

struct inner {
	uint64_t n;
};

struct t_opts {
	int flag;
	uint64_t count;
	uint64_t ns;
	const char *file;
	unsigned int pick;
	int called;
	struct inner in;
};

static int t_call(const char *cmd, const struct kp_opt *row, const char *arg,
		  void *base)
{
	struct t_opts *o = base;

	if (!strcmp(arg, "bad")) {
		kp_err("%s: --call: bad (%d)", cmd, row->val);
		return -1;
	}
	o->called = row->val;
	return 0;
}

static const struct kp_opt t_shared[] = {
	{ .name = "inner", .arg = "N", .kind = KP_OPT_KIND_UINT, .min = 1,
	  .max = 9, .off = offsetof(struct inner, n), .help = "shared help" },
	{ .name = "hidden", .kind = KP_OPT_KIND_FLAG, .help = "" },
	KP_OPT_END,
};

static const struct kp_opt t_rows[] = {
	{ .name = "flag", .letter = 'f', .kind = KP_OPT_KIND_FLAG,
	  .off = offsetof(struct t_opts, flag), .help = "a flag" },
	{ .name = "count", .letter = 'n', .arg = "COUNT",
	  .kind = KP_OPT_KIND_UINT, .min = 1, .max = 100,
	  .hint = "(1..100)", .off = offsetof(struct t_opts, count),
	  .help = "first line\nsecond line" },
	{ .name = "seconds", .arg = "SECONDS", .kind = KP_OPT_KIND_SECONDS,
	  .min = 10000000, .max = 2000000000ULL,
	  .off = offsetof(struct t_opts, ns), .help = "a time" },
	{ .name = "a-rather-long-option-name", .arg = "FILE",
	  .kind = KP_OPT_KIND_STRING, .hint = "an empty file name",
	  .off = offsetof(struct t_opts, file), .help = "a file" },
	{ .name = "pick", .arg = "WHICH", .choices = "one|two|three",
	  .kind = KP_OPT_KIND_CHOICE, .hint = "use one, two or three",
	  .off = offsetof(struct t_opts, pick) },
	{ .name = "call", .arg = "X", .kind = KP_OPT_KIND_CALL,
	  .call = t_call, .val = 42, .left = "  --call X, --call=X",
	  .help = "calls" },
	{ .ref = &t_shared[0], .off = offsetof(struct t_opts, in) },
	{ .ref = &t_shared[1], .off = offsetof(struct t_opts, in),
	  .help = "now shown" },
	KP_OPT_END,
};

/* Parse @args (space-separated) into *@o; the return, *@err the stderr. */
static int run(const char *args, struct t_opts *o, char *err, size_t len)
{
	char buf[512], *argv[32], *tok, *save = NULL;
	int argc = 0, saved, ret;
	FILE *tmp = tmpfile();
	size_t n;

	memset(o, 0, sizeof(*o));
	snprintf(buf, sizeof(buf), "%s", args);
	argv[argc++] = "t";
	for (tok = strtok_r(buf, " ", &save); tok && argc < 31;
	     tok = strtok_r(NULL, " ", &save))
		argv[argc++] = strcmp(tok, "''") ? tok : "";
	argv[argc] = NULL;
	fflush(stderr);
	saved = dup(2);
	dup2(fileno(tmp), 2);
	ret = kp_opts_parse("t", t_rows, o, argc, argv);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(err, 1, len - 1, tmp);
	err[n] = 0;
	if (n && err[n - 1] == '\n')
		err[n - 1] = 0;
	fclose(tmp);
	return ret;
}

static void test_values(void)
{
	struct t_opts o;
	char err[256];
	int ret;

	ret = run("-f -n 7 --seconds 0.5 --a-rather-long-option-name x --pick three --call y --inner 3 rest -n 1",
		  &o, err, sizeof(err));
	EXPECT(ret == KP_OPTS_RUN && !*err, "ret %d, '%s'", ret, err);
	EXPECT(o.flag == 1 && o.count == 7 && o.ns == 500000000, "%d %llu %llu",
	       o.flag, (unsigned long long)o.count, (unsigned long long)o.ns);
	EXPECT(o.file && !strcmp(o.file, "x") && o.pick == 2 && o.called == 42 &&
	       o.in.n == 3, "file %s pick %u called %d inner %llu",
	       o.file ? o.file : "(null)", o.pick, o.called,
	       (unsigned long long)o.in.n);
	EXPECT(optind == 14, "optind %d: stops at the first argument", optind);
	ret = run("-fn5 --count=6 --flag", &o, err, sizeof(err));
	EXPECT(ret == KP_OPTS_RUN && o.count == 6 && o.flag, "ret %d", ret);
	EXPECT(run("-f -h -n 0", &o, err, sizeof(err)) == KP_OPTS_HELP,
	       "-h asks for the help");
	EXPECT(run("--help", &o, err, sizeof(err)) == KP_OPTS_HELP,
	       "--help asks for the help");
}

static void bad(const char *args, const char *want)
{
	struct t_opts o;
	char err[256];
	int ret = run(args, &o, err, sizeof(err));

	EXPECT(ret == KP_EXIT_USAGE && !strcmp(err, want),
	       "'%s': %d '%s' (want '%s')", args, ret, err, want);
}

static void test_errors(void)
{
	bad("-n x", "kprof: t: -n 'x': not a number (1..100)");
	bad("--count 101", "kprof: t: -n '101': out of range (1..100)");
	bad("--seconds 3", "kprof: t: --seconds '3': out of range");
	bad("--seconds 1s", "kprof: t: --seconds '1s': not a number of seconds");
	bad("--a-rather-long-option-name ''",
	    "kprof: t: --a-rather-long-option-name '': an empty file name");
	bad("--pick four", "kprof: t: --pick 'four': use one, two or three");
	bad("--pick ''", "kprof: t: --pick '': use one, two or three");
	bad("--call bad", "kprof: t: --call: bad (42)");
	bad("--inner 0", "kprof: t: --inner '0': out of range");
	bad("-n", "kprof: t: option '-n' needs a value");
	bad("--count", "kprof: t: option '--count' needs a value");
	bad("--bogus", "kprof: t: unknown option '--bogus' (see `kprof t --help`)");
	bad("-x", "kprof: t: unknown option '-x' (see `kprof t --help`)");
	bad("--flag=1", "kprof: t: unknown option '--flag=1' (see `kprof t --help`)");
	bad("-f --list-opts",
	    "kprof: t: unknown option '--list-opts' (see `kprof t --help`)");
}

static char *render(int list, unsigned int col)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	if (list)
		kp_opts_list(f, t_rows);
	else
		kp_opts_help(f, t_rows, col);
	fclose(f);
	return text;
}

static void test_help(void)
{
	static const char want[] =
		"  -f, --flag               a flag\n"
		"  -n, --count COUNT        first line\n"
		"                           second line\n"
		"      --seconds SECONDS    a time\n"
		"      --a-rather-long-option-name FILE\n"
		"                           a file\n"
		"  --call X, --call=X       calls\n"
		"      --inner N            shared help\n"
		"      --hidden             now shown\n";
	static const char want14[] =
		"  -f, --flag  a flag\n";
	char *h = render(0, 0);

	EXPECT(h && !strcmp(h, want), "help:\n%s", h ? h : "(null)");
	free(h);
	h = render(0, 14);
	EXPECT(h && !strncmp(h, want14, strlen(want14)), "column 14:\n%s",
	       h ? h : "(null)");
	free(h);
}

static void test_list(void)
{
	static const char want[] =
		"--flag -f\t\n"
		"--count -n\tCOUNT\n"
		"--seconds\tSECONDS\n"
		"--a-rather-long-option-name\tFILE\n"
		"--pick\tone|two|three\n"
		"--call\tX\n"
		"--inner\tN\n"
		"--hidden\t\n"
		"--help -h\t\n";
	char *l = render(1, 0);

	EXPECT(l && !strcmp(l, want), "list:\n%s", l ? l : "(null)");
	free(l);
}

/* The shared session rows: each has a spelling and a way to parse. */
static void test_sess_rows(void)
{
	size_t i;

	EXPECT(kp_opts_count(kp_sess_rows) == KP_SESS_NROWS, "%zu rows",
	       kp_opts_count(kp_sess_rows));
	for (i = 0; i < KP_SESS_NROWS; i++)
		EXPECT((kp_sess_rows[i].name || kp_sess_rows[i].letter) &&
		       kp_sess_rows[i].kind == KP_OPT_KIND_CALL &&
		       kp_sess_rows[i].call, "session row %zu", i);
}

const struct kp_test t_parse_opts[] = {
	{ "parse_opts: values of every kind, stored where the rows say", test_values },
	{ "parse_opts: range, format and usage messages", test_errors },
	{ "parse_opts: the help's option list", test_help },
	{ "parse_opts: --list-opts, a line per row", test_list },
	{ "parse_opts: the session's shared rows", test_sess_rows },
	{ NULL, NULL },
};
