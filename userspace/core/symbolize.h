/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof reader: user addresses of a process to "function+0xoff (module)"
 * with elfutils' libdwfl, run in a sandboxed helper process (symhelper.h)
 * that this side serves with the files it needs.  One Dwfl per process,
 * built from its /proc/PID/maps when first needed and rebuilt on a miss
 * at most once per interval (kp_sym_tick()).  A process or mapping that
 * is gone, a file too large, a lookup out of time or a helper that died
 * gives "[unknown]"; nothing here fails harder than that.
 */
#ifndef KPROF_READER_SYMBOLIZE_H
#define KPROF_READER_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define KP_SYM_UNKNOWN	"[unknown]"

/* Room for a symbolized frame; longer names are truncated. */
#define KP_SYM_LEN	256

struct kp_sym;

/* NULL only when out of memory. */
struct kp_sym *kp_sym_new(void);
void kp_sym_free(struct kp_sym *sym);

/* A new interval: each process may be re-read once more on a miss. */
void kp_sym_tick(struct kp_sym *sym);

/* Hex build ID: room for 64 bytes of it (GNU tools write 20). */
#define KP_BUILD_ID_LEN	129

/* What is known of one user address. */
struct kp_sym_res {
	char func[KP_SYM_LEN];	/* symbol, "" when none was found */
	uint64_t func_off;	/* of @ip from the symbol's start */
	char module[128];	/* file name of the module, "" when none */
	uint64_t mod_off;	/* of @ip from the module's load address */
};

/*
 * Look @ip up in process @tgid (@ret_addr as below).  Returns 1 if a
 * function was found, 0 for a module without a symbol for it, -1 when
 * nothing is known (@res then has empty strings).
 */
int kp_sym_lookup(struct kp_sym *sym, pid_t tgid, uint64_t ip, int ret_addr,
		  struct kp_sym_res *res);

/*
 * @res of a kp_sym_lookup() that returned @found, as kp_sym_user() shows
 * it, into @buf.
 */
void kp_sym_format(const struct kp_sym_res *res, int found, char *buf,
		   size_t len);

/*
 * The GNU build ID of the module mapped at @addr in @tgid, as lowercase
 * hex, into @buf.  Returns 0, or -1 (@buf "") if it is not known.
 */
int kp_sym_build_id(struct kp_sym *sym, pid_t tgid, uint64_t addr,
		    char *buf, size_t len);

/*
 * Symbolize @ip in process @tgid into @buf: "func+0x1a (libc.so.6)",
 * "[unknown] (app+0x1234)" for an address in a module without a symbol
 * for it, or "[unknown]".  @ret_addr: @ip is a return address (every user
 * frame but the leaf), looked up as ip - 1 so that a call at the very end
 * of a function is attributed to it.  Returns 0 if a function was found,
 * -1 otherwise.
 */
int kp_sym_user(struct kp_sym *sym, pid_t tgid, uint64_t ip, int ret_addr,
		char *buf, size_t len);

/*
 * The helper process that parses ELF files for @sym, or -1 while none
 * runs (it starts at the first lookup, again after one was ended).
 */
pid_t kp_sym_helper_pid(const struct kp_sym *sym);

/*
 * CPU time a lookup may take the helper, in ms (default
 * KP_SYM_TIMEOUT_MS, or $KPROF_SYM_TIMEOUT_MS), and four times that on
 * the clock: past either, or if the helper is stopped, it is ended and
 * the process given up on.
 */
void kp_sym_set_timeout(struct kp_sym *sym, int ms);

#endif
