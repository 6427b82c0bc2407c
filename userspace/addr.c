// SPDX-License-Identifier: GPL-2.0
/* kprof reader: endpoint formatting, see addr.h. */
#include <arpa/inet.h>
#include <stdio.h>
#include <sys/socket.h>

#include "addr.h"

_Static_assert(sizeof("[]:65535") - 1 + INET6_ADDRSTRLEN <= KP_ADDR_LEN,
	       "room for a bracketed IPv6 endpoint");

int kp_addr_host(char *buf, size_t len, unsigned int family,
		 const uint8_t raddr[16])
{
	if ((family == AF_INET || family == AF_INET6) &&
	    inet_ntop(family, raddr, buf, len))
		return 0;
	if (len)
		snprintf(buf, len, "family %u", family);
	return -1;
}

int kp_addr_format(char *buf, size_t len, unsigned int family,
		   const uint8_t raddr[16], unsigned int port)
{
	char host[INET6_ADDRSTRLEN];

	if (kp_addr_host(host, sizeof(host), family, raddr)) {
		if (len)
			snprintf(buf, len, "family %u", family);
		return -1;
	}
	if (family == AF_INET6)
		snprintf(buf, len, "[%s]:%u", host, port);
	else
		snprintf(buf, len, "%s:%u", host, port);
	return 0;
}

const char *kp_family_name(unsigned int family)
{
	switch (family) {
	case AF_INET:
		return "ipv4";
	case AF_INET6:
		return "ipv6";
	}
	return NULL;
}
