/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof reader: the symbolizer's helper process and its protocol.
 *
 * The reader runs with privilege and symbolizes files that any process
 * maps; libelf and libdwfl parse them.  That parsing runs in a helper
 * forked by the reader: it holds no capability (and is user nobody when
 * the reader is root), runs with no_new_privs under a seccomp filter that
 * allows no open, socket or exec, has an address-space limit, and opens
 * nothing itself.  It asks the reader for every file over a socket pair:
 * the maps of a process, a mapped file, the bytes of a vDSO, a debug file
 * by build ID; the reader opens each with the checks in symbolize.c and
 * passes the descriptor.  A parser bug or a hostile file can then crash
 * the helper, make it lie about names (which the reader sanitizes), or
 * make it slow (the reader ends it): never more.
 *
 * One request at a time, each a SOCK_SEQPACKET message of the fixed
 * structures below; a reply to a KP_SYMH_NEED_* carries its descriptor,
 * if any, as SCM_RIGHTS.
 */
#ifndef KPROF_READER_SYMHELPER_H
#define KPROF_READER_SYMHELPER_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "symbolize.h"

/*
 * Bounds on what a process can make the reader do.  Files (and vDSO
 * images) larger than KP_SYM_MAX_IMAGE are not parsed; modules with more
 * symbols than KP_SYM_MAX_SYMS are not searched (their frames stay
 * "[unknown] (module+off)"); a process's maps are read up to
 * KP_MAPS_MAX_BYTES (maps.h).  The helper's address space may grow by
 * KP_SYM_HELPER_AS over what it inherits.
 */
#define KP_SYM_MAX_IMAGE	(1ULL << 30)
#define KP_SYM_MAX_VDSO		(1u << 20)
#define KP_SYM_MAX_SYMS		(4u << 20)
#define KP_SYM_HELPER_AS	(3ULL << 30)

/* Reader to helper: a question. */
enum {
	KP_SYMH_LOOKUP = 1,	/* tgid, addr, ip -> KP_SYMH_RESULT */
	KP_SYMH_BUILD_ID,	/* tgid, addr -> KP_SYMH_RESULT (bid) */
};

struct kp_symh_req {
	uint32_t op;
	int32_t tgid;
	uint64_t addr;		/* looked up */
	uint64_t ip;		/* reported offsets are of this one */
	uint64_t tick;		/* the reader's interval, see kp_sym_tick() */
};

/* Helper to reader: an answer, or a file it needs on the way. */
enum {
	KP_SYMH_RESULT = 1,
	KP_SYMH_NEED_MAPS,	/* /proc/TGID/maps, as a sealed copy */
	KP_SYMH_NEED_FILE,	/* the file mapped as @name in TGID */
	KP_SYMH_NEED_VDSO,	/* a copy of TGID's vDSO */
	KP_SYMH_NEED_DEBUG,	/* a debug file with build ID @bid */
};

struct kp_symh_msg {
	uint32_t op;
	int32_t found;		/* RESULT: as kp_sym_lookup() */
	struct kp_sym_res res;	/* RESULT of a lookup */
	uint32_t bid_len;	/* RESULT of a BUILD_ID; NEED_DEBUG */
	unsigned char bid[64];
	char name[PATH_MAX];	/* NEED_FILE */
};

/* Reader to helper: what it asked for (the descriptor beside it). */
struct kp_symh_reply {
	int32_t err;		/* 0: a descriptor is attached; or -errno */
};

/*
 * Make this process, a child of @reader, the helper's sandbox: @sock
 * becomes descriptor 3 (returned), every other one is closed; see
 * symhelper.c.  -1 if a step failed.
 */
int kp_symh_sandbox(int sock, pid_t reader);

/*
 * Tests: run @fn, not kp_symh_main(), in the helpers @sym starts (it must
 * not return).
 */
void kp_sym_set_helper_main(struct kp_sym *sym,
			    void (*fn)(int sock, pid_t reader));

/*
 * Run the helper, a child of process @reader, on @sock: close every other
 * descriptor, sandbox this process, then answer requests until the reader
 * goes.  Never returns.
 */
void kp_symh_main(int sock, pid_t reader) __attribute__((noreturn));

#endif
