/* SPDX-License-Identifier: GPL-2.0 */
/* kprof reader: endpoints printed the way ss(8) prints them. */
#ifndef KPROF_READER_ADDR_H
#define KPROF_READER_ADDR_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

/* "[" INET6_ADDRSTRLEN "]:65535", and room for "family 65535". */
#define KP_ADDR_LEN	(INET6_ADDRSTRLEN + 8)

/*
 * The address alone: "10.0.4.12", "2001:db8::1", "::ffff:127.0.0.1".
 * @raddr is in network order, IPv4 in its first 4 bytes.  An unknown
 * family gives "family N" and -1; otherwise returns 0.
 */
int kp_addr_host(char *buf, size_t len, unsigned int family,
		 const uint8_t raddr[16]);

/*
 * Address and port (host order) as ss prints them: "10.0.4.12:443",
 * "[::1]:8080", "[::ffff:127.0.0.1]:80".  Same return as kp_addr_host().
 */
int kp_addr_format(char *buf, size_t len, unsigned int family,
		   const uint8_t raddr[16], unsigned int port);

/* "ipv4", "ipv6" or NULL. */
const char *kp_family_name(unsigned int family);

#endif
