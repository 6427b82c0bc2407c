/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hash that places a TCP row (kprof_agg.c), in a header of its own
 * so that the reader's host tests run it on keys shaped as real traffic
 * shapes them (userspace/tests/t_rowhash.c).  Plain C on u8..u64 and
 * memcpy() only.
 *
 * NH (UMAC's hash, as Adiantum uses it) over the key's seven 32-bit
 * lanes and a zero one: two keys collide with a chance of 2^-32 whatever
 * their structure.  Then MurmurHash3's 64-bit finalizer, whose upper
 * half every bit of the sum moves.  About thirty instructions, where
 * jhash() took about a hundred on every request.  A multiply of whole
 * 64-bit words with no finalizer, tried first, lost the top bits of a
 * word whenever the seeded other factor was even, and put sequential
 * ports in arithmetic progressions: some seeds dropped most of 50,000
 * keys of three addresses (the host test fails it).
 */
#ifndef _KPROF_ROW_H
#define _KPROF_ROW_H

#define KPROF_ROW_SEEDS	8

/* The module inlines it into every caller: a call is a third of its cost. */
#ifndef KPROF_ROW_INLINE
#define KPROF_ROW_INLINE	inline
#endif

/*
 * The upper 32 bits of the hash of a key's fields under @k (seeds drawn
 * at load, k[7] odd).  Each field of struct kprof_tcp_key is in one
 * lane: a field added there is one to add here.
 */
static KPROF_ROW_INLINE u32 kprof_row_hash(const u32 *k, u32 stack_id,
					   u16 family, u16 rport,
					   const u8 *raddr, u8 role, u8 views)
{
	u32 m2, m3, m4, m5;
	u64 h;

	memcpy(&m2, &raddr[0], sizeof(m2));	/* one load each */
	memcpy(&m3, &raddr[4], sizeof(m3));
	memcpy(&m4, &raddr[8], sizeof(m4));
	memcpy(&m5, &raddr[12], sizeof(m5));
	h = (u64)(u32)(stack_id + k[0]) *
	    (u32)(family + ((u32)rport << 16) + k[1]);
	h += (u64)(u32)(m2 + k[2]) * (u32)(m3 + k[3]);
	h += (u64)(u32)(m4 + k[4]) * (u32)(m5 + k[5]);
	h += (u64)(u32)(role + ((u32)views << 8) + k[6]) * k[7];
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h >> 32;
}

#endif /* _KPROF_ROW_H */
