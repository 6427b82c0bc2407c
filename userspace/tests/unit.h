/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof reader host tests: a minimal TAP harness.  Each t_*.c exports a
 * table of tests; a test fails if any EXPECT() in it failed.
 */
#ifndef KPROF_READER_TESTS_UNIT_H
#define KPROF_READER_TESTS_UNIT_H

#include <stdint.h>
#include <sys/types.h>

struct kp_test {
	const char *name;
	void (*fn)(void);
};

/* Failed EXPECT()s of the running test. */
extern unsigned int kp_test_fails;

/* "# ..." on stdout; at most a few per test so loops cannot flood. */
void kp_test_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define EXPECT(cond, fmt, ...)						\
	({								\
		int ok_ = !!(cond);					\
		if (!ok_) {						\
			kp_test_fails++;				\
			kp_test_diag("%s:%d: %s: " fmt, __FILE__,	\
				     __LINE__, #cond, ##__VA_ARGS__);	\
		}							\
		ok_;							\
	})

/*
 * A child that runs @setup (which returns an address to look up, or 0),
 * then waits to be killed.  Returns its pid (*@addr set), or -1.
 */
pid_t kp_test_child(uint64_t (*setup)(void *arg), void *arg, uint64_t *addr);

/*
 * kp_sym_lookup(@pid, @addr) in a reader process of its own, bounded by
 * @secs; see t_symbolize.c.
 */
struct kp_sym_res;
int kp_test_sym_reader(pid_t pid, uint64_t addr, int secs,
		       struct kp_sym_res *res, long *grew_kib);

/* Copy file @from to a new file @to (mode 0755).  0, or -1. */
int kp_test_copy_file(const char *from, const char *to);

/* rm -rf @dir, a directory a test made (a diagnostic if it stays). */
void kp_test_rmtree(const char *dir);

/* xorshift64*: reproducible pseudo-random numbers. */
uint64_t kp_test_rand(void);
double kp_test_uniform(void);	/* [0, 1) */

extern const struct kp_test t_hist[];
extern const struct kp_test t_addr[];
extern const struct kp_test t_units[];
extern const struct kp_test t_parse_opts[];
extern const struct kp_test t_snapshot[];
extern const struct kp_test t_symbolize[];
extern const struct kp_test t_record[];
extern const struct kp_test t_stats[];
extern const struct kp_test t_analysis[];
extern const struct kp_test t_prom[];
extern const struct kp_test t_outfile[];
extern const struct kp_test t_symbound[];
extern const struct kp_test t_window[];
extern const struct kp_test t_rowhash[];

#endif
