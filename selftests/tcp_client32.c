// SPDX-License-Identifier: GPL-2.0
/*
 * Built 32-bit: N requests to 127.0.0.1:PORT, for limits_test's check
 * that a 32-bit process's stacks carry no user frames.
 *
 *   tcp_client32 PORT N
 */
#include <stdio.h>
#include <stdlib.h>

#include "tcp_test.h"

int main(int argc, char **argv)
{
	int fd, i, n = argc == 3 ? atoi(argv[2]) : 0;

	if (argc != 3 || atoi(argv[1]) <= 0 || n <= 0) {
		fprintf(stderr, "usage: tcp_client32 PORT N\n");
		return 2;
	}
	fd = client_connect(AF_INET, atoi(argv[1]));
	if (fd < 0)
		return 1;
	for (i = 0; i < n; i++)
		if (!client_request(fd))
			return 1;
	close(fd);
	return 0;
}
