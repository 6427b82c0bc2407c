// SPDX-License-Identifier: GPL-2.0
/* Tests: endpoints formatted as ss(8) prints them. */
#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>

#include "addr.h"
#include "unit.h"

static void raddr_of(unsigned int family, const char *text, uint8_t raddr[16])
{
	memset(raddr, 0xee, 16);	/* bytes past an IPv4 address: ignored */
	EXPECT(inet_pton(family & ~KPROF_RADDR_FLAGS, text, raddr) == 1,
	       "inet_pton(%s)", text);
}

static void check(unsigned int family, const char *addr, unsigned int port,
		  const char *want_ep, const char *want_host)
{
	char buf[KP_ADDR_LEN];
	uint8_t raddr[16];

	raddr_of(family, addr, raddr);
	EXPECT(!kp_addr_format(buf, sizeof(buf), family, raddr, port) &&
	       !strcmp(buf, want_ep), "format %s port %u: '%s', want '%s'",
	       addr, port, buf, want_ep);
	EXPECT(!kp_addr_host(buf, sizeof(buf), family, raddr) &&
	       !strcmp(buf, want_host), "host %s: '%s', want '%s'", addr, buf,
	       want_host);
}

static void test_ipv4(void)
{
	check(AF_INET, "10.0.4.12", 443, "10.0.4.12:443", "10.0.4.12");
	check(AF_INET, "127.0.0.1", 80, "127.0.0.1:80", "127.0.0.1");
	check(AF_INET, "0.0.0.0", 0, "0.0.0.0:0", "0.0.0.0");
	check(AF_INET, "255.255.255.255", 65535, "255.255.255.255:65535",
	      "255.255.255.255");
}

static void test_ipv6(void)
{
	check(AF_INET6, "::1", 8080, "[::1]:8080", "::1");
	check(AF_INET6, "2001:db8::1", 443, "[2001:db8::1]:443", "2001:db8::1");
	check(AF_INET6, "fe80::1:2:3:4", 22, "[fe80::1:2:3:4]:22",
	      "fe80::1:2:3:4");
	check(AF_INET6, "2001:db8:1234:5678:9abc:def0:1234:5678", 65535,
	      "[2001:db8:1234:5678:9abc:def0:1234:5678]:65535",
	      "2001:db8:1234:5678:9abc:def0:1234:5678");
	check(AF_INET6, "::", 1, "[::]:1", "::");
}

static void test_v4_mapped(void)
{
	check(AF_INET6, "::ffff:127.0.0.1", 80, "[::ffff:127.0.0.1]:80",
	      "::ffff:127.0.0.1");
	check(AF_INET6, "::ffff:10.0.4.12", 443, "[::ffff:10.0.4.12]:443",
	      "::ffff:10.0.4.12");
}

static void test_longest(void)
{
	char buf[KP_ADDR_LEN];
	uint8_t raddr[16];

	raddr_of(AF_INET6, "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255", raddr);
	kp_addr_format(buf, sizeof(buf), AF_INET6, raddr, 65535);
	EXPECT(!strcmp(buf, "[ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]:65535"),
	       "longest endpoint: '%s'", buf);
	/* ::ffff:255.255.255.255 is the longest IPv4-mapped form. */
	raddr_of(AF_INET6, "::ffff:255.255.255.255", raddr);
	kp_addr_format(buf, sizeof(buf), AF_INET6, raddr, 65535);
	EXPECT(!strcmp(buf, "[::ffff:255.255.255.255]:65535"), "'%s'", buf);
}

static void test_unknown_family(void)
{
	uint8_t raddr[16] = { 1, 2, 3, 4 };
	char buf[KP_ADDR_LEN];

	EXPECT(kp_addr_format(buf, sizeof(buf), 99, raddr, 80) == -1 &&
	       !strcmp(buf, "family 99"), "'%s'", buf);
	EXPECT(kp_addr_host(buf, sizeof(buf), 0, raddr) == -1 &&
	       !strcmp(buf, "family 0"), "'%s'", buf);
	EXPECT(!strcmp(kp_family_name(AF_INET), "ipv4"), "ipv4");
	EXPECT(!strcmp(kp_family_name(AF_INET6), "ipv6"), "ipv6");
	EXPECT(!kp_family_name(AF_UNIX), "unix: none");
}

static void test_prefix(void)
{
	check(AF_INET | KPROF_RADDR_PREFIX, "10.0.4.0", 443, "10.0.4.0/24:443",
	      "10.0.4.0/24");
	check(AF_INET6 | KPROF_RADDR_PREFIX, "2001:db8:1:2::", 80,
	      "[2001:db8:1:2::/64]:80", "2001:db8:1:2::/64");
	check(AF_INET6 | KPROF_RADDR_PREFIX, "::ffff:127.0.0.0", 80,
	      "[::ffff:127.0.0.0/120]:80", "::ffff:127.0.0.0/120");
	EXPECT(!strcmp(kp_family_name(AF_INET | KPROF_RADDR_PREFIX), "ipv4"),
	       "prefix: ipv4");
}

static void test_hash(void)
{
	uint8_t raddr[16] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef };
	char buf[KP_ADDR_LEN];

	EXPECT(!kp_addr_format(buf, sizeof(buf), AF_INET | KPROF_RADDR_HASH,
			       raddr, 443) &&
	       !strcmp(buf, "h:0123456789abcdef:443"), "'%s'", buf);
	/* no brackets: the hash of an IPv6 address is no IPv6 address */
	EXPECT(!kp_addr_format(buf, sizeof(buf), AF_INET6 | KPROF_RADDR_HASH,
			       raddr, 80) &&
	       !strcmp(buf, "h:0123456789abcdef:80"), "'%s'", buf);
	EXPECT(!kp_addr_host(buf, sizeof(buf), AF_INET6 | KPROF_RADDR_HASH,
			     raddr) && !strcmp(buf, "h:0123456789abcdef"),
	       "'%s'", buf);
	EXPECT(!strcmp(kp_family_name(AF_INET6 | KPROF_RADDR_HASH), "ipv6"),
	       "hash: ipv6");
	/* both flags, or a flag on an unknown family: not an endpoint */
	EXPECT(kp_addr_host(buf, sizeof(buf), AF_INET | KPROF_RADDR_FLAGS,
			    raddr) == -1, "both flags: '%s'", buf);
	EXPECT(kp_addr_host(buf, sizeof(buf), 99 | KPROF_RADDR_HASH,
			    raddr) == -1, "family 99 hashed: '%s'", buf);
}

static void test_longest_prefix(void)
{
	char buf[KP_ADDR_LEN];
	uint8_t raddr[16];

	raddr_of(AF_INET6, "ffff:ffff:ffff:ffff::", raddr);
	memset(raddr + 8, 0xff, 8);	/* not masked: still fits */
	kp_addr_format(buf, sizeof(buf), AF_INET6 | KPROF_RADDR_PREFIX, raddr,
		       65535);
	EXPECT(!strcmp(buf, "[ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/64]:65535"),
	       "'%s'", buf);
}

const struct kp_test t_addr[] = {
	{ "addr: prefix-masked networks", test_prefix },
	{ "addr: keyed hashes as h:", test_hash },
	{ "addr: longest network fits", test_longest_prefix },
	{ "addr: IPv4 as ss prints it", test_ipv4 },
	{ "addr: IPv6 in brackets", test_ipv6 },
	{ "addr: IPv4-mapped IPv6", test_v4_mapped },
	{ "addr: longest endpoints fit", test_longest },
	{ "addr: unknown family", test_unknown_family },
	{ NULL, NULL },
};
