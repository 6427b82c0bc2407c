/* SPDX-License-Identifier: GPL-2.0 */
/* kprof reader: endpoints printed the way ss(8) prints them. */
#ifndef KPROF_READER_ADDR_H
#define KPROF_READER_ADDR_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/kprof.h>

/* "[" INET6_ADDRSTRLEN "/120]:65535", and room for "family 65535". */
#define KP_ADDR_LEN	(INET6_ADDRSTRLEN + 16)

/*
 * The address alone: "10.0.4.12", "2001:db8::1", "::ffff:127.0.0.1".
 * @raddr is in network order, IPv4 in its first 4 bytes.  A @family with
 * KPROF_RADDR_PREFIX gives the network, "10.0.4.0/24", "2001:db8::/64",
 * "::ffff:10.0.4.0/120"; with KPROF_RADDR_HASH the hash as
 * "h:" and 16 hex digits.  An unknown family gives "family N" and -1;
 * otherwise returns 0.
 */
int kp_addr_host(char *buf, size_t len, unsigned int family,
		 const uint8_t raddr[16]);

/*
 * Address and port (host order) as ss prints them: "10.0.4.12:443",
 * "[::1]:8080", "[::ffff:127.0.0.1]:80", "[2001:db8::/64]:80",
 * "h:0123456789abcdef:443".  Same return as kp_addr_host().
 */
int kp_addr_format(char *buf, size_t len, unsigned int family,
		   const uint8_t raddr[16], unsigned int port);

/* "ipv4", "ipv6" (KPROF_RADDR_* flags ignored) or NULL. */
const char *kp_family_name(unsigned int family);

#endif
