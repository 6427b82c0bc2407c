/* SPDX-License-Identifier: GPL-2.0 */
/* kprof reader: subcommand table. */
#ifndef KPROF_READER_KPROF_H
#define KPROF_READER_KPROF_H

#include <stdio.h>

#include "parse_opts.h"

struct kp_cmd {
	const char *name;
	const char *summary;
	const char *usage;	/* options, one per line, after "usage:" */
	/* optional: its options as rows (parse_opts.h), listed first */
	const struct kp_opt *opts;
	unsigned int opts_col;	/* where their help starts; 0: column 27 */
	const char *help;	/* optional: option list (without @opts) and notes */
	int (*run)(int argc, char **argv);
};

/* Parse the options of a subcommand that takes only --help. */
/*
 * @cmd's options (its rows) from @argv into @o; --help prints its usage.
 * With @args 0, an argument after the options is a usage error; else the
 * arguments from optind on are the command's.  -1 to run, else the exit
 * status.
 */
int kp_cmd_parse(const struct kp_cmd *cmd, void *o, int argc, char **argv,
		 int args);
/* kp_cmd_parse() for a command without options or arguments */
int kp_no_options(const struct kp_cmd *cmd, int argc, char **argv);
void kp_cmd_usage(const struct kp_cmd *cmd, FILE *out);

extern const struct kp_cmd kp_cmd_info;
extern const struct kp_cmd kp_cmd_top;
extern const struct kp_cmd kp_cmd_stacks;
extern const struct kp_cmd kp_cmd_record;
extern const struct kp_cmd kp_cmd_load;
extern const struct kp_cmd kp_cmd_unload;
extern const struct kp_cmd kp_cmd_status;
extern const struct kp_cmd kp_cmd_abtest;
extern const struct kp_cmd kp_cmd_report;

#endif
