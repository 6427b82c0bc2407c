// SPDX-License-Identifier: GPL-2.0
/* kprof stacks: the frames of stack IDs, kernel and symbolized user. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dev.h"
#include "kprof.h"
#include "opts.h"
#include "stack.h"
#include "stacks_print.h"
#include "symbolize.h"
#include "util.h"

struct stacks_opts {
	int json;
};

static const struct kp_opt stacks_opts[] = {
	{ .name = "json", .kind = KP_OPT_KIND_FLAG,
	  .off = offsetof(struct stacks_opts, json), .left = "  --json",
	  .help = "one JSON object per stack and line" },
	KP_OPT_END,
};

static int stacks_run(int argc, char **argv)
{
	struct kprof_info info;
	struct kp_stack_info *si;
	struct kp_stacks cache;
	struct kp_sym *sym;
	uint32_t *ids;
	struct stacks_opts o = { 0 };
	int json, fd, ret, first = 1;
	const char *why;
	uint64_t v;
	int i, n;

	ret = kp_cmd_parse(&kp_cmd_stacks, &o, argc, argv, 1);
	if (ret >= 0)
		return ret;
	ret = 0;
	json = o.json;
	n = argc - optind;
	if (n < 1) {
		kp_err("stacks: missing stack ID (see `kprof stacks --help`)");
		return KP_EXIT_USAGE;
	}
	ids = calloc(n, sizeof(*ids));
	if (!ids) {
		kp_err("out of memory");
		return KP_EXIT_FAIL;
	}
	for (i = 0; i < n; i++) {
		why = kp_parse_uint(argv[optind + i], 1, UINT32_MAX, &v);
		if (why) {
			kp_err("stacks: bad stack ID '%s': %s (IDs are positive integers)",
			       argv[optind + i], why);
			free(ids);
			return KP_EXIT_USAGE;
		}
		ids[i] = v;
	}

	fd = kprof_dev_open(&info);
	if (fd < 0) {
		free(ids);
		return KP_EXIT_FAIL;
	}
	sym = kp_sym_new();
	if (!sym) {
		kp_err("out of memory");
		close(fd);
		free(ids);
		return KP_EXIT_FAIL;
	}
	kp_stacks_init(&cache, fd, sym);
	for (i = 0; i < n; i++) {
		si = kp_stacks_get(&cache, ids[i], NULL);
		if (!si) {
			kp_err("out of memory");
			ret = KP_EXIT_FAIL;
			break;
		}
		if (si->err) {
			fflush(stdout);
			if (si->err == -ENOENT)
				kp_err("no stack ID %u", ids[i]);
			else if (si->err == -EBADMSG)
				kp_err("stack ID %u: bad answer from kprofmod: %s",
				       ids[i], si->why);
			else
				kprof_dev_perror("KPROF_IOC_GET_STACK", -si->err);
			ret = KP_EXIT_FAIL;
			continue;
		}
		if (json) {
			kp_stack_print_json(&cache, si);
		} else {
			if (!first)
				printf("\n");
			kp_stack_print_text(&cache, si);
		}
		first = 0;
	}
	kp_stacks_fini(&cache);
	kp_sym_free(sym);
	close(fd);
	free(ids);
	if (fflush(stdout) || ferror(stdout)) {
		kp_err("writing output: %s", strerror(errno));
		ret = KP_EXIT_FAIL;
	}
	return ret;
}

const struct kp_cmd kp_cmd_stacks = {
	.name = "stacks",
	.summary = "print the kernel and user frames of stack IDs",
	.usage = "kprof stacks [--json] ID...\n",
	.opts = stacks_opts,
	.opts_col = 11,
	.help =	 "\n"
		 "Stack IDs are those `kprof top` shows.  Kernel frames come resolved\n"
		 "from kprofmod; user frames (leaf first) are symbolized here, [unknown]\n"
		 "when the process or its mapping is gone.\n",
	.run = stacks_run,
};
