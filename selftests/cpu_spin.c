// SPDX-License-Identifier: GPL-2.0
/*
 * A CPU-bound program for the sampling tests, see cpu_spin.h.  Built with
 * frame pointers.
 *
 *   cpu_spin SECONDS
 */
#include <stdio.h>
#include <stdlib.h>

#include "cpu_spin.h"

int main(int argc, char **argv)
{
	double secs = argc == 2 ? atof(argv[1]) : 0;

	if (secs <= 0) {
		fprintf(stderr, "usage: cpu_spin SECONDS\n");
		return 2;
	}
	spin_75_25(secs);
	return 0;
}
