// SPDX-License-Identifier: GPL-2.0
/* kprof reader: endpoint formatting, see addr.h. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "addr.h"

_Static_assert(sizeof("[/120]:65535") - 1 + INET6_ADDRSTRLEN <= KP_ADDR_LEN,
	       "room for a bracketed IPv6 network and port");

/* The prefix length the module masked an address of @family to. */
static unsigned int prefix_len(unsigned int family, const uint8_t raddr[16])
{
	static const uint8_t v4mapped[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
	};

	if (family == AF_INET)
		return 24;
	return memcmp(raddr, v4mapped, sizeof(v4mapped)) ? 64 : 120;
}

int kp_addr_host(char *buf, size_t len, unsigned int family,
		 const uint8_t raddr[16])
{
	unsigned int af = family & ~KPROF_RADDR_FLAGS;
	char host[INET6_ADDRSTRLEN];

	if (af != AF_INET && af != AF_INET6)
		goto bad;
	switch (family & KPROF_RADDR_FLAGS) {
	case 0:
		if (inet_ntop(af, raddr, buf, len))
			return 0;
		break;
	case KPROF_RADDR_PREFIX:
		if (!inet_ntop(af, raddr, host, sizeof(host)))
			break;
		snprintf(buf, len, "%s/%u", host, prefix_len(af, raddr));
		return 0;
	case KPROF_RADDR_HASH:
		snprintf(buf, len, "h:%02x%02x%02x%02x%02x%02x%02x%02x",
			 raddr[0], raddr[1], raddr[2], raddr[3], raddr[4],
			 raddr[5], raddr[6], raddr[7]);
		return 0;
	}
bad:
	if (len)
		snprintf(buf, len, "family %u", family);
	return -1;
}

int kp_addr_format(char *buf, size_t len, unsigned int family,
		   const uint8_t raddr[16], unsigned int port)
{
	char host[KP_ADDR_LEN];

	if (kp_addr_host(host, sizeof(host), family, raddr)) {
		if (len)
			snprintf(buf, len, "family %u", family);
		return -1;
	}
	if ((family & ~KPROF_RADDR_FLAGS) == AF_INET6 &&
	    !(family & KPROF_RADDR_HASH))
		snprintf(buf, len, "[%s]:%u", host, port);
	else
		snprintf(buf, len, "%s:%u", host, port);
	return 0;
}

const char *kp_family_name(unsigned int family)
{
	switch (family & ~KPROF_RADDR_FLAGS) {
	case AF_INET:
		return "ipv4";
	case AF_INET6:
		return "ipv6";
	}
	return NULL;
}
