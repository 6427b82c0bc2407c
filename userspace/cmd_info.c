// SPDX-License-Identifier: GPL-2.0
/* kprof info: the loaded module's version, API and capabilities. */
#include <stdio.h>
#include <unistd.h>

#include "dev.h"
#include "kprof.h"
#include "util.h"

static int info_run(int argc, char **argv)
{
	struct kprof_info info;
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
	printf("  features:  %s\n", info.features ? "" : "none");
	return 0;
}

const struct kp_cmd kp_cmd_info = {
	.name = "info",
	.summary = "show the loaded module's version, API and features",
	.usage = "kprof info\n",
	.run = info_run,
};
