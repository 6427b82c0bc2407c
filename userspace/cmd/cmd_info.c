// SPDX-License-Identifier: GPL-2.0
/* kprof info: the loaded module's version, API and capabilities. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "dev.h"
#include "kprof.h"
#include "names.h"
#include "util.h"

/* kprof_info as of API 1.1: attach points, running, mapping, capacities. */
#define INFO_SIZE_1_1	(offsetof(struct kprof_info, endpoints) + \
			 sizeof(((struct kprof_info *)0)->endpoints))

/* "  LABEL name name 0x..." */
static void print_bits(const char *label, uint64_t v,
		       const struct kp_bitnames *n)
{
	printf("  %s", label);
	kp_print_bits(stdout, v, n);
	printf("\n");
}

static int info_run(int argc, char **argv)
{
	struct kprof_info info;
	const char *name;
	int fd, ret;

	ret = kp_no_options(&kp_cmd_info, argc, argv);
	if (ret >= 0)
		return ret;

	fd = kprof_dev_open(&info);
	if (fd < 0)
		return KP_EXIT_FAIL;
	close(fd);

	printf("kprofmod %.*s\n", KPROF_VERSION_LEN, info.version);
	printf("  api:       %u.%u (kprof speaks %u.%u)\n", info.api_major,
	       info.api_minor, KPROF_API_MAJOR, KPROF_API_MINOR);
	printf("  cpus:      %u possible, %u online\n", info.nr_cpu_ids,
	       info.nr_online_cpus);
	print_bits("features: ", info.features, &kp_feature_names);
	if (info.size < INFO_SIZE_1_1)
		return 0;
	print_bits("attach:   ", info.attach, &kp_attach_names);
	print_bits("running:  ", info.running, &kp_run_names);
	printf("  capacity:  %u TCP rows, %u stacks, %u requests in flight\n",
	       info.tcp_rows_max, info.stacks_max, info.inflight_max);
	printf("  mapping:   %llu KiB\n",
	       (unsigned long long)info.mmap_size / 1024);
	/* 0 (full) from a module older than API 1.5: right for it too */
	name = kp_endpoints_name(info.endpoints);
	if (name)
		printf("  endpoints: %s\n", name);
	else
		printf("  endpoints: unknown (%u)\n", info.endpoints);
	return 0;
}

const struct kp_cmd kp_cmd_info = {
	.name = "info",
	.summary = "show the loaded module's version, API and features",
	.usage = "kprof info\n",
	.run = info_run,
};
