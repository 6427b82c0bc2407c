// SPDX-License-Identifier: GPL-2.0
/* kprof reader: options from rows, see parse_opts.h. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"
#include "parse_opts.h"
#include "units.h"
#include "util.h"

/* The help's second column, unless the caller says. */
#define HELP_COL	27
/* getopt_long() values of long-only rows: row index + OPT_BASE. */
#define OPT_BASE	0x100

size_t kp_opts_count(const struct kp_opt *rows)
{
	size_t n = 0;

	while (rows[n].name || rows[n].letter || rows[n].ref)
		n++;
	return n;
}

/* The row that says how to parse @r (a shared one, or @r), at *@off. */
static const struct kp_opt *resolve(const struct kp_opt *r, size_t *off)
{
	if (r->ref) {
		*off = r->off + r->ref->off;
		return r->ref;
	}
	*off = r->off;
	return r;
}

static const char *row_help(const struct kp_opt *r)
{
	if (r->ref && !r->help)
		return r->ref->help;
	return r->help;
}

/* "-x" if it has a letter, else "--name": as the messages name it. */
static void opt_name(char *buf, size_t len, const struct kp_opt *p)
{
	if (p->letter)
		snprintf(buf, len, "-%c", p->letter);
	else
		snprintf(buf, len, "--%s", p->name);
}

static int choice_of(const char *choices, const char *arg, unsigned int *i)
{
	size_t len = strlen(arg);
	const char *c = choices, *bar;

	for (*i = 0; c; (*i)++) {
		bar = strchr(c, '|');
		if ((bar ? (size_t)(bar - c) : strlen(c)) == len &&
		    !strncmp(c, arg, len) && len)
			return 0;
		c = bar ? bar + 1 : NULL;
	}
	return -1;
}

static int one(const char *cmd, const struct kp_opt *r, const char *arg,
	       char *base)
{
	const struct kp_opt *p;
	const char *why = NULL;
	char name[64];
	unsigned int i;
	uint64_t v;
	size_t off;

	p = resolve(r, &off);
	opt_name(name, sizeof(name), p);
	switch (p->kind) {
	case KP_OPT_KIND_FLAG:
		*(int *)(base + off) = 1;
		return 0;
	case KP_OPT_KIND_CALL:
		return p->call(cmd, p, arg, base + (r->ref ? r->off : 0)) ?
			KP_EXIT_USAGE : 0;
	case KP_OPT_KIND_STRING:
		if (!*arg) {
			kp_err("%s: %s '': %s", cmd, name, p->hint);
			return KP_EXIT_USAGE;
		}
		*(const char **)(base + off) = arg;
		return 0;
	case KP_OPT_KIND_CHOICE:
		if (choice_of(p->choices, arg, &i)) {
			kp_err("%s: %s '%s': %s", cmd, name, arg, p->hint);
			return KP_EXIT_USAGE;
		}
		*(unsigned int *)(base + off) = i;
		return 0;
	case KP_OPT_KIND_UINT:
		why = kp_parse_uint(arg, p->min, p->max, &v);
		break;
	case KP_OPT_KIND_SECONDS:
		why = kp_parse_seconds(arg, &v);
		if (!why && (v < p->min || v > p->max))
			why = "out of range";
		break;
	}
	if (why) {
		kp_err("%s: %s '%s': %s%s%s", cmd, name, arg, why,
		       p->hint ? " " : "", p->hint ? p->hint : "");
		return KP_EXIT_USAGE;
	}
	*(uint64_t *)(base + off) = v;
	return 0;
}

int kp_opts_parse(const char *cmd, const struct kp_opt *rows, void *base,
		  int argc, char **argv)
{
	size_t n = kp_opts_count(rows), i, nl = 0, ns = 0;
	struct option *lo;
	const struct kp_opt *p;
	char *so;
	size_t off;
	int c, ret = KP_OPTS_RUN;

	/* hidden, and only as the first word: no abbreviation changes */
	if (argc > 1 && !strcmp(argv[1], "--list-opts")) {
		kp_opts_list(stdout, rows);
		return 0;
	}
	lo = calloc(n + 2, sizeof(*lo));
	so = calloc(3 * n + 4, 1);
	if (!lo || !so) {
		free(lo);
		free(so);
		kp_err("out of memory");
		return KP_EXIT_FAIL;
	}
	so[ns++] = '+';
	so[ns++] = ':';
	for (i = 0; i < n; i++) {
		p = resolve(&rows[i], &off);
		if (p->letter) {
			so[ns++] = (char)p->letter;
			if (p->arg)
				so[ns++] = ':';
		}
		if (p->name) {
			lo[nl].name = p->name;
			lo[nl].has_arg = p->arg ? required_argument : no_argument;
			lo[nl].val = p->letter ? p->letter : (int)(OPT_BASE + i);
			nl++;
		}
	}
	so[ns++] = 'h';
	lo[nl++] = (struct option){ "help", no_argument, NULL, 'h' };

	optind = 0;	/* all of getopt's state anew, as for a first call */
	opterr = 0;
	while (ret == KP_OPTS_RUN &&
	       (c = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		if (c == 'h') {
			ret = KP_OPTS_HELP;
		} else if (c == ':') {
			kp_err("%s: option '%s' needs a value", cmd,
			       argv[optind - 1]);
			ret = KP_EXIT_USAGE;
		} else {
			for (i = 0; i < n; i++) {
				p = resolve(&rows[i], &off);
				if (c >= OPT_BASE ? (size_t)c == OPT_BASE + i :
				    c == p->letter)
					break;
			}
			if (c == '?' || i == n) {
				kp_err("%s: unknown option '%s' (see `kprof %s --help`)",
				       cmd, argv[optind - 1], cmd);
				ret = KP_EXIT_USAGE;
			} else {
				ret = one(cmd, &rows[i], optarg, base);
				if (!ret)
					ret = KP_OPTS_RUN;
			}
		}
	}
	free(lo);
	free(so);
	return ret;
}

void kp_opts_help(FILE *out, const struct kp_opt *rows, unsigned int col)
{
	size_t n = kp_opts_count(rows), i, off;
	const struct kp_opt *p;
	const char *h, *nl;
	char left[128];
	int len, c = col ? (int)col : HELP_COL;

	for (i = 0; i < n; i++) {
		h = row_help(&rows[i]);
		if (!h || !*h)
			continue;
		p = resolve(&rows[i], &off);
		if (rows[i].left || p->left)
			len = snprintf(left, sizeof(left), "%s",
				       rows[i].left ? rows[i].left : p->left);
		else if (!p->name)
			len = snprintf(left, sizeof(left), "  -%c%s%s",
				       p->letter, p->arg ? " " : "",
				       p->arg ? p->arg : "");
		else
			len = snprintf(left, sizeof(left), "  %s%c%s--%s%s%s",
				       p->letter ? "-" : " ",
				       p->letter ? p->letter : ' ',
				       p->letter ? ", " : "  ", p->name,
				       p->arg ? " " : "", p->arg ? p->arg : "");
		if (len < c)
			fprintf(out, "%-*s", c, left);
		else
			fprintf(out, "%s\n%*s", left, c, "");
		for (;;) {
			nl = strchr(h, '\n');
			if (!nl) {
				fprintf(out, "%s\n", h);
				break;
			}
			fprintf(out, "%.*s\n%*s", (int)(nl - h), h, c, "");
			h = nl + 1;
		}
	}
}

void kp_opts_list(FILE *out, const struct kp_opt *rows)
{
	size_t n = kp_opts_count(rows), i, off;
	const struct kp_opt *p;
	const char *takes;

	for (i = 0; i < n; i++) {
		p = resolve(&rows[i], &off);
		takes = p->choices ? p->choices : p->arg ? p->arg : "";
		if (p->name)
			fprintf(out, "--%s%s", p->name, p->letter ? " " : "");
		if (p->letter)
			fprintf(out, "-%c", p->letter);
		fprintf(out, "\t%s\n", takes);
	}
	fprintf(out, "--help -h\t\n");
}
