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

#include <json-c/json.h>

#include "dev.h"
#include "kprof.h"
#include "opts.h"
#include "stack.h"
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

static void print_text(struct kp_stacks *c, struct kp_stack_info *si)
{
	unsigned int i;

	if (si->tgid)
		printf("stack %u: %s[%u], %u kernel and %u user frames\n",
		       si->id, si->comm, si->tgid, si->nr_kernel, si->nr_user);
	else
		printf("stack %u: %s, %u kernel frames\n", si->id, si->comm,
		       si->nr_kernel);
	for (i = 0; i < si->nr_kernel; i++)
		printf("  %-18s %s\n", "[kernel]", si->kernel[i]);
	for (i = 0; i < si->nr_user; i++)
		printf("  0x%016" PRIx64 " %s\n", si->user_ips[i],
		       kp_stack_user(c, si, i));
}

static void print_json(struct kp_stacks *c, struct kp_stack_info *si)
{
	json_object *o = json_object_new_object(), *k, *u, *f;
	char ip[24];
	unsigned int i;

	json_object_object_add(o, "id", json_object_new_uint64(si->id));
	json_object_object_add(o, "tgid", json_object_new_uint64(si->tgid));
	json_object_object_add(o, "comm", json_object_new_string(si->comm));
	k = json_object_new_array();
	for (i = 0; i < si->nr_kernel; i++)
		json_object_array_add(k, json_object_new_string(si->kernel[i]));
	json_object_object_add(o, "kernel", k);
	u = json_object_new_array();
	for (i = 0; i < si->nr_user; i++) {
		f = json_object_new_object();
		snprintf(ip, sizeof(ip), "0x%" PRIx64, si->user_ips[i]);
		json_object_object_add(f, "ip", json_object_new_string(ip));
		json_object_object_add(f, "symbol",
				       json_object_new_string(kp_stack_user(c, si, i)));
		json_object_array_add(u, f);
	}
	json_object_object_add(o, "user", u);
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
}

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

	ret = kp_opts_parse("stacks", stacks_opts, &o, argc, argv);
	if (ret == KP_OPTS_HELP) {
		kp_cmd_usage(&kp_cmd_stacks, stdout);
		return 0;
	}
	if (ret != KP_OPTS_RUN)
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
			print_json(&cache, si);
		} else {
			if (!first)
				printf("\n");
			print_text(&cache, si);
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
