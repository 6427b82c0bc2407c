// SPDX-License-Identifier: GPL-2.0
/*
 * kprof: the reader for kprofmod.  Subcommands live in cmd_*.c; this file
 * only dispatches and prints help.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <linux/kprof.h>

#include "kprof.h"
#include "util.h"

#ifndef KPROF_VERSION
#error "KPROF_VERSION must be defined by the build"
#endif

static const struct kp_cmd kp_cmd_help;

static const struct kp_cmd *const kp_cmds[] = {
	&kp_cmd_info,
	&kp_cmd_top,
	&kp_cmd_record,
	&kp_cmd_report,
	&kp_cmd_stacks,
	&kp_cmd_abtest,
	&kp_cmd_status,
	&kp_cmd_load,
	&kp_cmd_unload,
	&kp_cmd_help,
};

#define KP_NCMDS (sizeof(kp_cmds) / sizeof(kp_cmds[0]))

static const struct kp_cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < KP_NCMDS; i++)
		if (!strcmp(kp_cmds[i]->name, name))
			return kp_cmds[i];
	return NULL;
}

static void usage(FILE *out)
{
	size_t i;

	fprintf(out,
		"usage: kprof [--help] [--version] COMMAND [ARGS]\n"
		"\n"
		"Where the time goes: CPU stacks and TCP request latency from kprofmod.\n"
		"\n"
		"Commands:\n");
	for (i = 0; i < KP_NCMDS; i++)
		fprintf(out, "  %-10s %s\n", kp_cmds[i]->name,
			kp_cmds[i]->summary);
	fprintf(out,
		"\n"
		"Run `kprof help COMMAND` or `kprof COMMAND --help` for a command's options.\n"
		"Exit status: 0 success, 1 failure, 2 usage error.\n");
}

void kp_cmd_usage(const struct kp_cmd *cmd, FILE *out)
{
	fprintf(out, "usage: %s%s\n", cmd->usage, cmd->summary);
	if (cmd->opts) {
		fputc('\n', out);
		kp_opts_help(out, cmd->opts, cmd->opts_col);
	}
	if (cmd->help)
		fprintf(out, "%s%s", cmd->opts ? "" : "\n", cmd->help);
}

int kp_cmd_parse(const struct kp_cmd *cmd, void *o, int argc, char **argv,
		 int args)
{
	static const struct kp_opt none[] = { KP_OPT_END };
	int ret;

	ret = kp_opts_parse(cmd->name, cmd->opts ? cmd->opts : none, o, argc,
			    argv);
	if (ret == KP_OPTS_HELP) {
		kp_cmd_usage(cmd, stdout);
		return 0;
	}
	if (ret != KP_OPTS_RUN)
		return ret;
	if (!args && optind < argc) {
		kp_err("%s: unexpected argument '%s'", cmd->name, argv[optind]);
		return KP_EXIT_USAGE;
	}
	return -1;
}

int kp_no_options(const struct kp_cmd *cmd, int argc, char **argv)
{
	return kp_cmd_parse(cmd, NULL, argc, argv, 0);
}

static int help_run(int argc, char **argv)
{
	const struct kp_cmd *cmd;

	if (argc < 2) {
		usage(stdout);
		return 0;
	}
	if (argc > 2) {
		kp_err("help: takes at most one COMMAND");
		return KP_EXIT_USAGE;
	}
	cmd = find_cmd(argv[1]);
	if (!cmd) {
		kp_err("help: unknown command '%s'", argv[1]);
		return KP_EXIT_USAGE;
	}
	kp_cmd_usage(cmd, stdout);
	return 0;
}

static const struct kp_cmd kp_cmd_help = {
	.name = "help",
	.summary = "show help for kprof or one COMMAND",
	.usage = "kprof help [COMMAND]\n",
	.run = help_run,
};

int main(int argc, char **argv)
{
	const struct kp_cmd *cmd;

	if (argc < 2) {
		kp_err("missing COMMAND (see `kprof --help`)");
		return KP_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("kprof %s (API %d.%d)\n", KPROF_VERSION, KPROF_API_MAJOR,
		       KPROF_API_MINOR);
		return 0;
	}
	if (argv[1][0] == '-') {
		kp_err("unknown option '%s' (see `kprof --help`)", argv[1]);
		return KP_EXIT_USAGE;
	}
	cmd = find_cmd(argv[1]);
	if (!cmd) {
		kp_err("unknown command '%s' (see `kprof --help`)", argv[1]);
		return KP_EXIT_USAGE;
	}
	return cmd->run(argc - 1, argv + 1);
}
