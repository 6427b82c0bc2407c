/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof reader: a command's options as rows.  One row holds everything
 * about an option: its long name and short letter, the value it takes
 * (a metavariable, or alternatives), the kind and range of that value,
 * its help text and where it is stored.  From the rows come the
 * getopt_long() tables, the parsing with its error messages, the option
 * list of the command's help and `--list-opts` (for the bash completion).
 *
 * Error messages: "kprof: CMD: OPT 'VALUE': REASON HINT", OPT being -x for
 * an option with a short letter, else --name.
 */
#ifndef KPROF_READER_PARSE_OPTS_H
#define KPROF_READER_PARSE_OPTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum kp_opt_kind {
	KP_OPT_KIND_FLAG,	/* no value: int at @off set to 1 */
	KP_OPT_KIND_UINT,	/* uint64_t in [min, max] at @off */
	KP_OPT_KIND_SECONDS,	/* kp_parse_seconds(), ns in [min, max] */
	KP_OPT_KIND_STRING,	/* const char * at @off; empty: @hint */
	KP_OPT_KIND_CHOICE,	/* unsigned int: index in @choices */
	KP_OPT_KIND_CALL,	/* @call does it (and prints its errors) */
};

struct kp_opt {
	const char *name;	/* long name without "--", or NULL */
	int letter;		/* short option, or 0 */
	const char *arg;	/* metavariable; NULL: takes no value */
	const char *choices;	/* alternatives "a|b|c", or NULL */
	enum kp_opt_kind kind;
	uint64_t min, max;	/* UINT, SECONDS */
	/*
	 * UINT, SECONDS: appended to the reason ("(a positive integer)");
	 * STRING: the reason for an empty value; CHOICE: the reason for any
	 * other value ("use folded, pprof or json").
	 */
	const char *hint;
	size_t off;		/* where in the caller's struct */
	/* CALL: 0, else an error was printed */
	int (*call)(const char *cmd, const struct kp_opt *row,
		    const char *arg, void *base);
	int val;		/* CALL: the row's own number, for @call */
	/*
	 * The help: lines after the option column, "\n" between them;
	 * NULL or "": not in the list (e.g. said with another row).
	 */
	const char *help;
	const char *left;	/* the column, when not "-x, --name ARG" */
	/*
	 * A row of a shared set (@ref) taken at @off: its parsing, its
	 * names and value; its help unless this row has some.
	 */
	const struct kp_opt *ref;
};

/* A number's digits as a string, for a row's @hint. */
#define KP_STR_(x)	#x
#define KP_STR(x)	KP_STR_(x)

/* The end of a row table. */
#define KP_OPT_END	{ .name = NULL, .letter = 0 }

/* kp_opts_parse(): go on with the command, print its help. */
#define KP_OPTS_RUN	(-1)
#define KP_OPTS_HELP	(-2)

/*
 * Parse @argv's options (up to the first non-option) by @rows into the
 * struct at @base, the way getopt_long() does ("+:", -h and --help, and
 * --list-opts, hidden, as the first word only).  Returns KP_OPTS_RUN with optind at the first
 * argument, KP_OPTS_HELP for -h, 0 after printing --list-opts, or
 * KP_EXIT_USAGE after printing the error.
 */
int kp_opts_parse(const char *cmd, const struct kp_opt *rows, void *base,
		  int argc, char **argv);

/*
 * The option list of the help: each row's column, then its help from
 * column @col (0: 27), on a line of its own if the first does not leave
 * a space before it.
 */
void kp_opts_help(FILE *out, const struct kp_opt *rows, unsigned int col);

/*
 * --list-opts: a line per row, its spellings ("--interval -i"), a tab and
 * what it takes: the alternatives "a|b", the metavariable, or nothing;
 * last "--help -h".
 */
void kp_opts_list(FILE *out, const struct kp_opt *rows);

/* How many rows before KP_OPT_END. */
size_t kp_opts_count(const struct kp_opt *rows);

#endif
