/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * kprofmod user-space ABI: the ioctls and the read-only mmap layout of
 * /dev/kprof.  This header is shared, unchanged, by the module and by the
 * reader.
 *
 * Versioning rules
 *  - KPROF_API_MAJOR changes only when an existing field, command number or
 *    meaning changes incompatibly.  A reader refuses a module whose major
 *    differs from its own.
 *  - KPROF_API_MINOR is bumped for every other change to this header
 *    (a new command, a new trailing field, a new feature bit).
 *  - Command numbers are never reused: a retired number stays listed below
 *    as retired.
 *  - Majors so far: 1 published intervals; 2.0 cumulative counts that each
 *    reader differences; 3.0 views (see struct kprof_config): a key may
 *    have a row for each set of views, which a 2.x reader would count as
 *    one key twice; 4.0 connect rows (KPROF_ROLE_CONNECT), whose counts
 *    are of connects, which a 3.x reader would count as requests.
 *
 * Extensible structs
 *  Every struct passed through an ioctl starts with "__u32 size", set by the
 *  caller to sizeof() of the struct as it knows it; _IOC_SIZE() of the
 *  command must equal it.  The module accepts any size from the first
 *  published version of the struct (KPROF_*_SIZE_VER0) up to 4096 bytes:
 *   - input bytes past the module's own struct must be zero (else -EINVAL);
 *   - on output the module writes min(caller size, module size) bytes,
 *     zero-fills the rest of the caller's struct and stores the number of
 *     bytes it filled in "size", so a newer reader can tell which trailing
 *     fields an older module did not know.
 *  Reserved fields must be zero on input and are zero on output.
 *
 * Errors common to all commands
 *  -ENOTTY  unknown command
 *  -EFAULT  bad user pointer
 *  -EINVAL  bad size, non-zero reserved or unknown trailing bytes
 *  -EPERM   caller has neither CAP_PERFMON (where the kernel has it) nor
 *           CAP_SYS_ADMIN
 */
#ifndef _UAPI_LINUX_KPROF_H
#define _UAPI_LINUX_KPROF_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

#define KPROF_DEVICE_NAME	"kprof"

#define KPROF_API_MAJOR		4
#define KPROF_API_MINOR		2

#define KPROF_IOC_MAGIC		0xB8

#define KPROF_VERSION_LEN	32

/*
 * Feature bits reported in kprof_info.features.  KPROF_FEAT_HW_CYCLES is
 * decided at load by creating one cycles event: when set, sampling asks
 * for cycles on every CPU and falls back to cpu-clock on a CPU where that
 * event cannot be created (the bit does not tell which CPUs did); when
 * clear, every CPU samples on cpu-clock.  KPROF_FEAT_TCP_FTRACE: the
 * hooks hit on every request (tcp_sendmsg, tcp_sendpage and the receive
 * cleanup) attach through an ftrace_ops of the module's own rather than
 * kprobes; decided at load, and cleared for good if attaching or
 * detaching that way ever fails (the hooks are then kprobes, as on
 * kernels without it; if ftrace disabled itself, TCP tracing cannot
 * start again until reboot).
 */
#define KPROF_FEAT_TCP_LATENCY	_BITULL(0)	/* TCP request latency */
#define KPROF_FEAT_USER_STACKS	_BITULL(1)	/* user frame-pointer walks */
#define KPROF_FEAT_KSYMS	_BITULL(2)	/* kernel frames as symbol+off */
#define KPROF_FEAT_CPU_SAMPLING	_BITULL(3)	/* perf-event stack sampling */
#define KPROF_FEAT_HW_CYCLES	_BITULL(4)	/* a cycles PMU, probed at load */
#define KPROF_FEAT_CGROUP	_BITULL(5)	/* kprof_config.cgroup_id (API 1.3) */
#define KPROF_FEAT_GUARD	_BITULL(6)	/* overhead guard (API 1.4) */
#define KPROF_FEAT_TCP_FTRACE	_BITULL(7)	/* hot TCP hooks on ftrace (API 3.1) */
#define KPROF_FEAT_TCP_HEALTH	_BITULL(8)	/* TCP health counters (API 3.2) */
#define KPROF_FEAT_TCP_CONNECT	_BITULL(9)	/* connect rows (API 4.0) */

/* Active attach points, kprof_info.attach. */
#define KPROF_ATTACH_TCP_SENDMSG	_BITUL(0)
#define KPROF_ATTACH_TCP_CLEANUP_RBUF	_BITUL(1)
#define KPROF_ATTACH___TCP_CLEANUP_RBUF	_BITUL(2)
#define KPROF_ATTACH_TCP_RECVMSG_RET	_BITUL(3)	/* return probe */
#define KPROF_ATTACH_TCP_DESTROY_SOCK	_BITUL(4)
#define KPROF_ATTACH_TCP_CLOSE		_BITUL(5)
#define KPROF_ATTACH_TCP_CONNECT	_BITUL(6)	/* marks clients */
#define KPROF_ATTACH_TCP_SENDPAGE	_BITUL(7)	/* before v6.5 (API 1.6) */
#define KPROF_ATTACH_TCP_DISCONNECT	_BITUL(8)	/* API 1.7 */
/* tracepoints, for the health counters of struct kprof_tcp_row (API 3.2) */
#define KPROF_ATTACH_TP_RETRANSMIT	_BITUL(9)	/* tcp:tcp_retransmit_skb */
#define KPROF_ATTACH_TP_SEND_RESET	_BITUL(10)	/* tcp:tcp_send_reset */
#define KPROF_ATTACH_TP_RECEIVE_RESET	_BITUL(11)	/* tcp:tcp_receive_reset */
/* API 3.3: tcp:tcp_destroy_sock, besides the kprobe of bit 4 */
#define KPROF_ATTACH_TP_DESTROY_SOCK	_BITUL(12)
/* API 4.0: sock:inet_sock_set_state, for the connect rows */
#define KPROF_ATTACH_TP_SET_STATE	_BITUL(13)
/*
 * API 4.2: kprobes standing in for the tracepoints of bits 9-11 and 13 on
 * kernels that lack them (before 4.15 and 4.16), with their meaning: a
 * return of __tcp_retransmit_skb(); tcp_send_active_reset() and
 * tcp_v4/v6_send_reset(); tcp_reset(); tcp_set_state()
 */
#define KPROF_ATTACH_KP_RETRANSMIT	_BITUL(14)
#define KPROF_ATTACH_KP_SEND_RESET	_BITUL(15)
#define KPROF_ATTACH_KP_RECEIVE_RESET	_BITUL(16)
#define KPROF_ATTACH_KP_SET_STATE	_BITUL(17)

/* What runs, kprof_info.running and kprof_ctl.what. */
#define KPROF_RUN_TCP		_BITUL(0)
#define KPROF_RUN_CPU		_BITUL(1)	/* since API 1.2 */
#define KPROF_RUN_ALL		(KPROF_RUN_TCP | KPROF_RUN_CPU)

/**
 * struct kprof_info - KPROF_IOC_GET_INFO
 * @size:		in: caller's sizeof; out: bytes the module filled
 * @api_major:		KPROF_API_MAJOR of the module
 * @api_minor:		KPROF_API_MINOR of the module
 * @nr_cpu_ids:		number of possible CPU ids (array bound per CPU)
 * @nr_online_cpus:	CPUs online when the call was made
 * @features:		KPROF_FEAT_* bits the module supports
 * @version:		module version string, NUL terminated
 * (since API 1.1)
 * @attach:		KPROF_ATTACH_* points in use
 * @running:		KPROF_RUN_* currently started
 * @mmap_size:		bytes to mmap() at offset 0 (see "mmap layout")
 * @tcp_rows_max:	export capacity in TCP rows (module parameter)
 * @stacks_max:		stack table capacity (module parameter)
 * @inflight_max:	in-flight socket table capacity (module parameter)
 * @endpoints:		since API 1.5: KPROF_ENDPOINTS_*, how remote addresses
 *			are stored (the "endpoints" module parameter); 0
 *			(full) from older modules.  Must be zero on input.
 * (since API 1.9)
 * @sessions:		open files of /dev/kprof, the caller's included
 *			(see "Sessions" at KPROF_IOC_START)
 * @holders_tcp:	sessions that started KPROF_RUN_TCP and hold it
 * @holders_cpu:	sessions that started KPROF_RUN_CPU and hold it
 * @reserved1:		zero
 */
struct kprof_info {
	__u32 size;
	__u32 api_major;
	__u32 api_minor;
	__u32 nr_cpu_ids;
	__u32 nr_online_cpus;
	__u32 reserved0;
	__u64 features;
	char version[KPROF_VERSION_LEN];
	__u32 attach;
	__u32 running;
	__u64 mmap_size;
	__u32 tcp_rows_max;
	__u32 stacks_max;
	__u32 inflight_max;
	__u32 endpoints;
	__u32 sessions;
	__u32 holders_tcp;
	__u32 holders_cpu;
	__u32 reserved1;
};

#define KPROF_INFO_SIZE_VER0	64

/*
 * Endpoint privacy, kprof_info.endpoints: chosen at load, applied where a
 * completed request's endpoint is built, before anything is stored.
 *  FULL    the remote address as is.
 *  PREFIX  only the remote network: IPv4 /24, IPv6 /64 (an IPv4-mapped
 *          IPv6 address /120, the IPv4 /24); kprof_tcp_row.family carries
 *          KPROF_RADDR_PREFIX.
 *  HASH    no address at all: raddr[0..7] hold a 64-bit SipHash of the
 *          family and address under a key drawn at load (the same endpoint
 *          gives the same value until the module is unloaded, another
 *          value after the next load), raddr[8..15] are zero;
 *          kprof_tcp_row.family carries KPROF_RADDR_HASH.
 * Remote ports are kept in every mode.
 */
#define KPROF_ENDPOINTS_FULL	0
#define KPROF_ENDPOINTS_PREFIX	1
#define KPROF_ENDPOINTS_HASH	2

/* Flags in kprof_tcp_row.family above the address family (API 1.5). */
#define KPROF_RADDR_PREFIX	0x4000	/* raddr is a masked network */
#define KPROF_RADDR_HASH	0x8000	/* raddr is a keyed hash */
#define KPROF_RADDR_FLAGS	(KPROF_RADDR_PREFIX | KPROF_RADDR_HASH)

/**
 * struct kprof_ctl - KPROF_IOC_START, KPROF_IOC_STOP, KPROF_IOC_RESET
 * @size:	caller's sizeof
 * @what:	START/STOP: KPROF_RUN_* bits; RESET: KPROF_RESET_* bits
 * @reserved:	zero
 *
 * Sessions (since API 1.9): every open file of /dev/kprof is a session,
 * and START and STOP act for the caller's.  What runs is what the open
 * sessions hold: a START makes the session hold @what (starting what
 * does not run yet), a STOP drops what the session holds of @what and
 * stops only what no session holds any more; what other sessions hold
 * keeps running.  The file's release (its last close: at exit, on a
 * crash or a kill too) drops everything the session holds.  Before 1.9,
 * START and STOP acted on the module as a whole and what ran went on
 * running after the reader was gone.
 *
 * START and STOP are idempotent; START of something the kernel cannot do
 * is -EOPNOTSUPP.  START is all or nothing: when it fails, what this call
 * started is stopped again and what ran before it keeps running.
 * RESET: KPROF_RESET_STACKS forgets every stack ID and every row of the
 * mapping; since API 2.0 it needs nothing running and no other session
 * open (-EBUSY otherwise), as stack IDs are every reader's.  Since 2.0 a
 * reader starts a window by reading (see KPROF_IOC_SNAPSHOT), and
 * KPROF_RESET_INTERVAL, which dropped counts for every reader, is retired.
 * Other bits: -EINVAL.
 */
struct kprof_ctl {
	__u32 size;
	__u32 what;
	__u64 reserved;
};

#define KPROF_CTL_SIZE_VER0	16

/* _BITUL(0): KPROF_RESET_INTERVAL until API 2.0, retired */
#define KPROF_RESET_STACKS	_BITUL(1)

/* Roles: who opened the connection. */
#define KPROF_ROLE_CLIENT	1	/* connect(): we wait on the peer */
#define KPROF_ROLE_SERVER	2	/* accept(): the peer waits on us */
/*
 * Since API 4.0, rows of role KPROF_ROLE_CONNECT time connects, not
 * requests (see struct kprof_tcp_row); a reader that does not know the
 * role skips its rows.  It is not a role of struct kprof_config: a
 * client's connects are timed when KPROF_ROLE_CLIENT is traced.
 */
#define KPROF_ROLE_CONNECT	3	/* connect(): SYN sent to established */

#define KPROF_MAX_PORTS		16

/**
 * struct kprof_config - KPROF_IOC_SET_CONFIG, KPROF_IOC_GET_CONFIG
 * @size:		caller's sizeof
 * @roles:		KPROF_ROLE_* bit mask ((1 << role)) to trace, 0 = all
 * @families:		bit 0 IPv4, bit 1 IPv6, 0 = both
 * @tgid:		only this process, 0 = all
 * @threshold_ns:	walk stacks for requests at least this slow, 0 =
 *			always; faster ones land under stack ID 0 (1 ms
 *			until the first SET_CONFIG)
 * @nr_rports:		number of valid @rports, 0 = any remote port
 * @nr_lports:		number of valid @lports, 0 = any local port
 * @rports:		remote ports (host order)
 * @lports:		local ports (host order)
 * @sample_hz:		CPU sampling frequency, 1..10000 (0 on SET: keep);
 *			since API 1.2, default 99
 * @reserved3:		zero
 * @cgroup_id:		since API 1.3, with KPROF_FEAT_CGROUP: only tasks
 *			in this cgroup v2 or below it, 0 = all.  The number
 *			is the inode number of the cgroup's directory on
 *			cgroup2 (st_ino from stat(2)).  It decides which
 *			requests are tracked (by the task that sends) and
 *			which CPU samples are counted: samples of other
 *			tasks, the idle task included, are not counted at
 *			all.  A removed cgroup matches nothing.
 * @reserved:		zero
 *
 * Since API 2.0 the configuration is the session's: SET replaces the
 * caller's, and what runs is the configurations of the sessions holding
 * something (see KPROF_IOC_START), widened into one so that each lets
 * through at least what it asked for: the union of @roles, @families,
 * @rports and @lports (0, "all", wins; more than KPROF_MAX_PORTS ports
 * become any port), @tgid and @cgroup_id only when all name the same
 * (else 0), the lowest @threshold_ns and the highest @sample_hz; a
 * holder that set none asks for the defaults.  While no session holds
 * anything, the caller's runs.  GET returns what runs.
 * A session's configuration goes with it.  Rows carry the remote port,
 * role and family, so a reader can keep its own exactly.  The filters
 * rows do not carry (@tgid, @cgroup_id, @lports) make the session a view
 * (API 3.0): each of up to KPROF_MAX_VIEWS sessions holding something
 * with one of them set gets a view number (see struct kprof_snapshot),
 * and every TCP request tracked is marked, in its row's @views, with the
 * views whose filters it passed when it started, every CPU sample with
 * the views whose process and cgroup its task is in.  A session beyond
 * KPROF_MAX_VIEWS gets one as soon as one is free.
 *
 * SET replaces the whole configuration atomically; it may be called while
 * running.  A request already in flight keeps the decision made when it
 * started.  Errors: -EINVAL for unknown role or family bits, counts above
 * KPROF_MAX_PORTS, port 0 in a list, threshold above 100 s, sample_hz
 * above 10000; -EOPNOTSUPP for a cgroup_id without KPROF_FEAT_CGROUP.
 * A new sample_hz applies to running sampling at once.  A SET that fails
 * changes nothing, except in one case: when sampling runs and can be
 * restarted neither at the new sample_hz nor at the old one, it is left
 * stopped (the old configuration stays) and, since API 1.9, no session
 * holds it any more (a START starts it again).
 */
struct kprof_config {
	__u32 size;
	__u8 roles;
	__u8 families;
	__u16 reserved0;
	__u32 tgid;
	__u32 reserved1;
	__u64 threshold_ns;
	__u16 nr_rports;
	__u16 nr_lports;
	__u32 reserved2;
	__u16 rports[KPROF_MAX_PORTS];
	__u16 lports[KPROF_MAX_PORTS];
	__u32 sample_hz;
	__u32 reserved3;
	__u64 cgroup_id;
	__u64 reserved[2];
};

#define KPROF_CONFIG_SIZE_VER0	128

#define KPROF_SAMPLE_HZ_MAX	10000

#define KPROF_FAMILY_INET	_BITUL(0)
#define KPROF_FAMILY_INET6	_BITUL(1)

/**
 * struct kprof_snapshot - KPROF_IOC_SNAPSHOT
 * @size:	caller's sizeof
 * @view:	out (API 3.0; zero on input): the caller's view, see
 *		struct kprof_config: 0 when its session is none (no process,
 *		cgroup or local-port filter, or it holds nothing: its rows
 *		are all those its other filters take), 1 to KPROF_MAX_VIEWS
 *		for view N (its requests are the rows' @views bit N - 1:
 *		exactly those that passed its filters), KPROF_VIEW_NONE when
 *		it should be one but all are taken (it sees what the
 *		widened configuration let through).  A view given to a
 *		session is its own until it goes or sets another
 *		configuration.  A request counts for the views whose
 *		filters it passed at its start; one under way when a view
 *		changed hands or filters counts for that view when it passes
 *		the new filters at its end (process and cgroup then those of
 *		the task that reads the response).  The first window after a
 *		change of view is not exact: it may hold requests and samples
 *		of the previous owner that ended in it, before the change or
 *		in a handler still running on the previous configuration
 * @reserved0:	zero
 * @generation:	out: the mmap generation now published (even)
 *
 * Closes the open interval and adds it to the mmap region, whose rows and
 * header counters are cumulative (since API 2.0): every request completed
 * before the call is in the counts published.  A reader's window is the
 * difference between two of its own copies of the region, so any number
 * of readers can read at their own pace, and another reader's snapshot
 * takes nothing from theirs: it only means that the copy a reader makes
 * may hold a later generation than the one its snapshot returned, with
 * counts at least as new.  Snapshots are serialised, each waiting for an
 * RCU grace period; a call that finds that another snapshot began after
 * it did and has ended returns that one's generation instead of taking
 * its own, so readers that ask at once share one wait.
 *
 * A row is evicted only once nothing was added to it since a snapshot
 * that every session's reader has taken and since taken another one
 * after (so it has copied the row's final counts); a reader that never
 * reads again keeps every row from going, and rows that do not fit are
 * counted in drops_export.  So a reader must copy the region after each
 * of its snapshots before it takes the next one; when a copy fails (the
 * generation kept changing), it copies again without a snapshot.  One
 * open file is one reader: threads sharing it share that duty.
 */
struct kprof_snapshot {
	__u32 size;
	__u8 view;
	__u8 reserved0[3];
	__u64 generation;
};

#define KPROF_MAX_VIEWS		8
#define KPROF_VIEW_NONE		0xff

#define KPROF_SNAPSHOT_SIZE_VER0	16

/*
 * The overhead guard (API 1.4).  Every handler of the module times one
 * call in KPROF_COST_SAMPLE_EVERY and adds that time, multiplied, to its
 * CPU's cost of its kind.  Four times a second the module adds up each
 * CPU's cost over the last second; above the budget (module parameter
 * budget_ppm, default 10000: 1% of the CPU), that CPU sheds load one
 * level at a time, waiting a second between steps:
 *   1  no stack walks: requests and samples are counted under stack ID 0
 *   2  the CPU samples at a quarter of the configured rate (at least 1 Hz)
 *   3  no new TCP requests are tracked on the CPU (counted as shed);
 *      requests already in flight still complete
 * Below half the budget over a whole second, it steps one level back,
 * again at most one step a second.  Levels are per CPU.
 */
#define KPROF_GUARD_NONE	0
#define KPROF_GUARD_NO_STACKS	1
#define KPROF_GUARD_LOW_RATE	2
#define KPROF_GUARD_NO_TCP	3

#define KPROF_COST_SENDMSG	0	/* tcp_sendmsg: a request starts */
#define KPROF_COST_RECV		1	/* receive cleanup / recvmsg return */
#define KPROF_COST_CONNECT	2	/* tcp_connect */
#define KPROF_COST_CLOSE	3	/* tcp_close / tcp_v4_destroy_sock */
#define KPROF_COST_SAMPLE	4	/* perf overflow handler */
#define KPROF_COST_NR		8	/* array size; unused kinds are 0 */

#define KPROF_COST_SAMPLE_EVERY	64

/**
 * struct kprof_stats - KPROF_IOC_GET_STATS: counters since load
 * @size:		caller's sizeof
 * @inflight:		open sockets with state in the in-flight table now
 *			(since API 3.3: not those closed, @inflight_closed)
 * @requests:		requests completed
 * @abandoned:		requests in flight when their socket closed
 * @drops_inflight:	requests not tracked: in-flight table full
 * @drops_rows:		events lost: per-CPU row table full (a completed
 *			request; since API 3.2 also a retransmission or a
 *			reset, since API 4.0 an established or failed
 *			connect: one per event)
 * @drops_stacks:	stacks not stored (counted under stack ID 0
 *			instead): stack table full, an entry another
 *			context was writing, or a capture nested in one of
 *			the same context level on its CPU (an NMI during an
 *			int3 probe's capture)
 * @drops_export:	the completions (requests; a connect row's
 *			connects) of rows lost merging CPUs into the
 *			export; their health counters are not counted
 * @stacks:		stack IDs in use
 * @snapshots:		intervals closed
 * (since API 1.2)
 * @samples:		CPU samples taken (idle included)
 * @samples_idle:	of which the CPU was idle
 * @drops_samples:	samples lost: per-CPU sample table full
 * @stack_resets:	KPROF_RESET_STACKS done: IDs seen before a change
 *			of this count may now name other stacks
 * @reserved1:		zero
 * (since API 1.4, with KPROF_FEAT_GUARD: the overhead guard)
 * @cost_ns:		estimated time spent in the module's handlers, per
 *			KPROF_COST_* kind, all CPUs: one call in
 *			KPROF_COST_SAMPLE_EVERY is timed and counts that
 *			many times.  The kprobe trap itself (breakpoint or
 *			ftrace entry) is not included.
 * @cost_calls:		handler calls per KPROF_COST_* kind, exact
 * @budget_ppm:		the budget in effect (module parameter budget_ppm):
 *			handler time per CPU, in millionths of that CPU's
 *			time over the last second; 0 = guard off
 * @guard_level:	highest KPROF_GUARD_* level of any CPU now
 * @guard_cpus:		CPUs at a level above KPROF_GUARD_NONE now
 * @load_ppm:		highest handler load of any CPU over the last
 *			second, in millionths
 * @guard_steps:	times a CPU stepped up to level 1, 2, 3
 *			([0] stacks, [1] sampling rate, [2] TCP)
 * @guard_recoveries:	times a CPU stepped one level down again
 * @shed_stacks:	stack walks skipped by the guard: the request or
 *			sample is counted under stack ID 0
 * @shed_requests:	requests not tracked by the guard (level 3)
 * (since API 1.8)
 * @inflight_dead:	in-flight table slots of closed sockets not yet
 *			reclaimed (a slot is reclaimed once no live slot of
 *			its probe sequence follows it)
 * @inflight_closed:	(since API 3.3; zero before) in-flight table slots
 *			of tracked sockets closed but not yet destroyed: a
 *			slot stays until then, so that what the kernel
 *			still does for the socket (the reset its close
 *			sends, the retransmits of the data left behind)
 *			counts on its endpoint's row
 * (since API 3.2)
 * @health_missed:	TCP health events (see struct kprof_tcp_row), and
 *			since API 4.0 connect ends, not counted: they came
 *			in softirq while a TCP handler of kprofmod ran on
 *			the same CPU, whose tables it was writing; a row's
 *			count plus these is the kernel's
 * (since API 4.1)
 * @hooks_missed:	calls of the TCP hooks (send, receive, connect,
 *			close, destroy) not handled: they found another TCP
 *			handler of kprofmod running on their CPU, or the
 *			kprobes core dropped them (a hit while another
 *			kprobe's handler ran there, any tool's; a
 *			tcp_recvmsg() call while every kretprobe
 *			instance was in use).  A missed send is a
 *			request not counted, a missed receive one counted
 *			later and longer, a missed destroy an abandoned
 *			request not counted; 0 means no request went
 *			unseen this way
 */
struct kprof_stats {
	__u32 size;
	__u32 inflight;
	__u64 requests;
	__u64 abandoned;
	__u64 drops_inflight;
	__u64 drops_rows;
	__u64 drops_stacks;
	__u64 drops_export;
	__u32 stacks;
	__u32 reserved0;
	__u64 snapshots;
	__u64 samples;
	__u64 samples_idle;
	__u64 drops_samples;
	__u32 stack_resets;
	__u32 reserved1;
	__u64 cost_ns[KPROF_COST_NR];
	__u64 cost_calls[KPROF_COST_NR];
	__u32 budget_ppm;
	__u32 guard_level;
	__u32 guard_cpus;
	__u32 load_ppm;
	__u64 guard_steps[3];
	__u64 guard_recoveries;
	__u64 shed_stacks;
	__u64 shed_requests;
	__u32 inflight_dead;
	__u32 inflight_closed;
	__u64 health_missed;
	__u64 hooks_missed;
};

/*
 * API 1.1; 104 since 1.2; 296 since 1.4; 304 since 1.8; 312 since 3.2;
 * 320 since 4.1
 */
#define KPROF_STATS_SIZE_VER0	72

/**
 * struct kprof_cpu_cost - KPROF_IOC_GET_CPU_COST: the guard on one CPU
 * @size:	caller's sizeof
 * @cpu:	in: a CPU id below kprof_info.nr_cpu_ids (-EINVAL if not);
 *		-ENODEV for an id that is not a possible CPU
 * @level:	out: its KPROF_GUARD_* level now
 * @load_ppm:	out: its handler load over the last second, in millionths
 * @sample_hz:	out: the rate it samples at when sampling runs (the
 *		configured rate, or less at level 2 and above)
 * @online:	out: 1 if the CPU is online
 * @cost_ns:	out: as in struct kprof_stats, this CPU only
 * @cost_calls:	out: as in struct kprof_stats, this CPU only
 * @unsampled:	out, since API 1.8: 1 if sampling runs and the CPU is
 *		online without a perf event (its event could not be
 *		created when it came online; the kernel log says why): it
 *		is not sampled until it goes offline and online again or
 *		sampling restarts.  A CPU coming online is never refused.
 *		Zero from older modules.
 * @reserved0:	zero
 * @reserved:	zero
 */
struct kprof_cpu_cost {
	__u32 size;
	__u32 cpu;
	__u32 level;
	__u32 load_ppm;
	__u32 sample_hz;
	__u32 online;
	__u64 cost_ns[KPROF_COST_NR];
	__u64 cost_calls[KPROF_COST_NR];
	__u32 unsampled;
	__u32 reserved0;
	__u64 reserved[1];
};

#define KPROF_CPU_COST_SIZE_VER0	168

#define KPROF_SESSIONS_MAX	64

/**
 * struct kprof_session_info - one session in struct kprof_sessions
 * @tgid:	the process that opened the file, as the caller's PID
 *		namespace sees it; 0 when it cannot (another namespace) or
 *		when that process has exited (the file lives on in others)
 * @held:	KPROF_RUN_* the session started and holds
 * @opened_ns:	CLOCK_MONOTONIC when the file was opened
 * @started_ns:	CLOCK_MONOTONIC when the session last went from holding
 *		nothing to holding something; 0 while it holds nothing
 * @comm:	the opener's command name at open, NUL terminated (set by
 *		that process: untrusted text)
 * @self:	1 for the caller's own session (the file of this call)
 * @reserved:	zero
 */
struct kprof_session_info {
	__u32 tgid;
	__u32 held;
	__u64 opened_ns;
	__u64 started_ns;
	char comm[16];
	__u32 self;
	__u32 reserved;
};

/**
 * struct kprof_sessions - KPROF_IOC_GET_SESSIONS (API 1.9): open sessions
 * @size:	caller's sizeof
 * @nr:		out: sessions open, the caller's included
 * @nr_listed:	out: entries filled in @s: the @nr oldest, as many as
 *		the caller's struct has room for (at most KPROF_SESSIONS_MAX),
 *		in the order the files were opened
 * @reserved0:	zero
 * @s:		out
 * Everything but @size must be zero on input.
 */
struct kprof_sessions {
	__u32 size;
	__u32 nr;
	__u32 nr_listed;
	__u32 reserved0;
	struct kprof_session_info s[KPROF_SESSIONS_MAX];
};

#define KPROF_SESSIONS_SIZE_VER0	(16 + 48 * KPROF_SESSIONS_MAX)

#define KPROF_IOC_GET_INFO	_IOWR(KPROF_IOC_MAGIC, 0x01, struct kprof_info)
#define KPROF_IOC_START		_IOW(KPROF_IOC_MAGIC, 0x02, struct kprof_ctl)
#define KPROF_IOC_STOP		_IOW(KPROF_IOC_MAGIC, 0x03, struct kprof_ctl)
#define KPROF_IOC_RESET		_IOW(KPROF_IOC_MAGIC, 0x04, struct kprof_ctl)
#define KPROF_IOC_SET_CONFIG	_IOW(KPROF_IOC_MAGIC, 0x05, struct kprof_config)
#define KPROF_IOC_GET_CONFIG	_IOWR(KPROF_IOC_MAGIC, 0x06, struct kprof_config)
#define KPROF_IOC_SNAPSHOT	_IOWR(KPROF_IOC_MAGIC, 0x07, struct kprof_snapshot)
#define KPROF_IOC_GET_STATS	_IOWR(KPROF_IOC_MAGIC, 0x08, struct kprof_stats)
#define KPROF_IOC_GET_STACK	_IOWR(KPROF_IOC_MAGIC, 0x09, struct kprof_stack_query)
#define KPROF_IOC_GET_CPU_COST	_IOWR(KPROF_IOC_MAGIC, 0x0a, struct kprof_cpu_cost)
#define KPROF_IOC_GET_SESSIONS	_IOWR(KPROF_IOC_MAGIC, 0x0b, struct kprof_sessions)

/*
 * Latency histograms: log-linear over nanoseconds.  Values below
 * 2^KPROF_HIST_SUB_BITS have a bucket each; above, every power of two is
 * split into 2^KPROF_HIST_SUB_BITS equal buckets, so a bucket is at most
 * 1/8 of its lower bound wide and its midpoint is within 6.25% of any
 * value in it.  The last bucket also holds everything above 2^38 ns
 * (275 s).
 *
 *   index(v) = v                                          if v < 8
 *            = (msb(v) - 2) * 8 + ((v >> (msb(v) - 3)) & 7)  otherwise
 *   lower(i) = i                                          if i < 8
 *            = (8 + i % 8) << (i / 8 - 1)                 otherwise
 */
#define KPROF_HIST_SUB_BITS	3
#define KPROF_HIST_BUCKETS	288

/*
 * index() and lower() above, the one copy of them: the module counts
 * with the first, readers turn buckets back into nanoseconds with the
 * second.
 */
static inline __u32 kprof_hist_bucket(__u64 v)
{
	const __u32 sub = 1U << KPROF_HIST_SUB_BITS;
	__u32 msb, i;

	if (v < sub)
		return v;
	msb = 63 - __builtin_clzll(v);
	i = (msb - KPROF_HIST_SUB_BITS + 1) * sub +
	    ((v >> (msb - KPROF_HIST_SUB_BITS)) & (sub - 1));
	return i < KPROF_HIST_BUCKETS ? i : KPROF_HIST_BUCKETS - 1;
}

static inline __u64 kprof_hist_lower(__u32 i)
{
	const __u32 sub = 1U << KPROF_HIST_SUB_BITS;

	if (i < sub)
		return i;
	return (__u64)(sub + i % sub) << (i / sub - 1);
}

/*
 * mmap layout.  mmap(NULL, info.mmap_size, PROT_READ, MAP_SHARED, fd, 0)
 * maps the cumulative counts of the last snapshot (see KPROF_IOC_SNAPSHOT);
 * PROT_WRITE and offsets other than 0 are refused (-EPERM / -EINVAL), and
 * the mapping cannot grow.
 *
 *   struct kprof_mmap_header   at 0
 *   struct kprof_tcp_row[]     at header.tcp_rows_off, header.nr_tcp_rows
 *   struct kprof_stack[]       at header.stacks_off, header.nr_stacks
 *   char strings[]             at header.strings_off, header.strings_len
 *   struct kprof_cpu_row[]     at header.cpu_rows_off, header.nr_cpu_rows
 *
 * Every offset and count is bounded by mmap_size; a reader must still
 * check them, and check the record sizes it is given (records grow at the
 * end like the ioctl structs).  Consistency: @generation is odd while the
 * module writes.  A reader reads it, copies what it needs, reads it again
 * after a read barrier and retries if either value was odd or they differ.
 */
#define KPROF_MMAP_MAGIC	0x4b505246	/* "KPRF" */

/**
 * struct kprof_mmap_header - at offset 0 of the mapping
 * @magic:		KPROF_MMAP_MAGIC
 * @header_size:	sizeof this header as the module knows it
 * @api_major:		KPROF_API_MAJOR
 * @api_minor:		KPROF_API_MINOR
 * @generation:		odd while the module writes; bumped by 2 per snapshot
 *			(and around a KPROF_RESET_STACKS)
 * @mmap_size:		size of the whole mapping
 * @interval_start_ns:	CLOCK_MONOTONIC time the counts start (the load)
 * @interval_end_ns:	CLOCK_MONOTONIC time of the last snapshot: the
 *			counts hold what completed before it
 * @tcp_rows_off:	offset of the first struct kprof_tcp_row
 * @tcp_row_size:	sizeof(struct kprof_tcp_row)
 * @nr_tcp_rows:	rows present
 * @stacks_off:		offset of the first struct kprof_stack
 * @stack_size:		sizeof(struct kprof_stack)
 * @nr_stacks:		stacks present: every stack ID the rows name
 * @strings_off:	offset of the string area
 * @strings_len:	bytes used in it
 * @strings_cap:	bytes the string area has
 * @hist_buckets:	KPROF_HIST_BUCKETS
 * @hist_sub_bits:	KPROF_HIST_SUB_BITS
 * Since API 2.0, every counter below counts since @interval_start_ns,
 * like the rows, and a reader differences it.
 * @requests:		requests completed
 * @abandoned:		requests abandoned (socket closed)
 * @drops_inflight:	drops, as in struct kprof_stats
 * @drops_rows:		"
 * @drops_stacks:	"
 * @drops_export:	"
 * (since API 1.2)
 * @cpu_rows_off:	offset of the first struct kprof_cpu_row
 * @cpu_row_size:	sizeof(struct kprof_cpu_row)
 * @nr_cpu_rows:	rows present
 * @samples:		CPU samples, idle included
 * @samples_idle:	of which the CPU was idle
 * @drops_samples:	samples lost (per-CPU table full or merge)
 * @sample_hz:		sampling frequency at the snapshot (0: off)
 * @stack_resets:	as in struct kprof_stats, at the snapshot
 * @threshold_ns:	(API 2.0) the stack-walk threshold in effect at the
 *			snapshot: every reader's widened into one, so a
 *			reader that asked for a higher one knows that rows
 *			with stacks may hold faster requests than it wants
 * @reserved:		zero
 */
struct kprof_mmap_header {
	__u32 magic;
	__u32 header_size;
	__u32 api_major;
	__u32 api_minor;
	__u64 generation;
	__u64 mmap_size;
	__u64 interval_start_ns;
	__u64 interval_end_ns;
	__u64 tcp_rows_off;
	__u32 tcp_row_size;
	__u32 nr_tcp_rows;
	__u64 stacks_off;
	__u32 stack_size;
	__u32 nr_stacks;
	__u64 strings_off;
	__u32 strings_len;
	__u32 strings_cap;
	__u32 hist_buckets;
	__u32 hist_sub_bits;
	__u64 requests;
	__u64 abandoned;
	__u64 drops_inflight;
	__u64 drops_rows;
	__u64 drops_stacks;
	__u64 drops_export;
	__u64 cpu_rows_off;
	__u32 cpu_row_size;
	__u32 nr_cpu_rows;
	__u64 samples;
	__u64 samples_idle;
	__u64 drops_samples;
	__u32 sample_hz;
	__u32 stack_resets;
	__u64 threshold_ns;
	__u64 reserved;
};

/**
 * struct kprof_tcp_row - requests of one (stack, endpoint, role), from
 * the row's birth on: every field only grows (the histogram's buckets
 * wrap at 2^32: difference them modulo 2^32)
 * @stack_id:	0: below the threshold (no stack walked), else a stack
 * @family:	AF_INET or AF_INET6; since API 1.5 possibly or'ed with
 *		KPROF_RADDR_PREFIX or KPROF_RADDR_HASH (see
 *		KPROF_ENDPOINTS_*), never with both
 * @rport:	remote port, host order
 * @raddr:	remote address, network order (IPv4: first 4 bytes); a
 *		network or a hash as @family says
 * @role:	KPROF_ROLE_CLIENT, KPROF_ROLE_SERVER or (API 4.0) KPROF_ROLE_CONNECT
 * @views:	(API 3.0) bit N - 1 set: the requests passed view N's
 *		filters (see struct kprof_snapshot); part of the key, so an
 *		endpoint has a row for each set of views its requests passed
 * @reserved0:	zero
 * @count:	requests completed
 * @sum_ns:	sum of their latencies
 * @min_ns:	fastest since the birth
 * @max_ns:	slowest since the birth
 * @hist:	latency histogram, see KPROF_HIST_*
 * @birth:	(API 2.0) number of the snapshot that created the row: a
 *		key that was evicted and came back has a new birth, and its
 *		counts start again from zero, like a counter reset
 * Since API 3.2 (tcp_row_size at least KPROF_TCP_ROW_SIZE_VER1), the
 * endpoint's TCP health, counted on the row of stack 0 of its (endpoint,
 * role, views) for sockets kprofmod tracks (from their first wanted
 * send, or since API 4.0 their wanted connect, until their destruction
 * (since API 3.3; before, their close), from the kernel's tracepoints
 * (KPROF_ATTACH_TP_*); such a
 * row may have @count 0, and then @min_ns is U64_MAX:
 * @retransmits:	segments retransmitted, as the kernel counts them in
 *			TcpRetransSegs (tcp:tcp_retransmit_skb, sent ones)
 * @retransmits_rto:	of which in loss recovery, after a retransmission
 *			timeout (the socket's congestion state TCP_CA_Loss)
 * @resets_sent:	resets sent on the socket (tcp:tcp_send_reset)
 * @resets_received:	resets received (tcp:tcp_receive_reset)
 * @after_retransmit:	of @count, requests that completed after a
 *			retransmission on their socket while they were in
 *			flight
 * Since API 4.0 (tcp_row_size at least KPROF_TCP_ROW_SIZE_VER2, with
 * KPROF_FEAT_TCP_CONNECT), a client's connects have rows of their own, of
 * role KPROF_ROLE_CONNECT and stack 0, from sock:inet_sock_set_state: a
 * connect starts when tcp_connect() sends the SYN (the process's
 * configuration and views apply there) and ends when the socket leaves
 * SYN_SENT.  Such a row's @count, @sum_ns, @min_ns, @max_ns and @hist are
 * of the connects that reached ESTABLISHED (the time from the SYN to the
 * SYN-ACK's processing, with a resolution of 256 ns), its health
 * counters stay 0 (a connecting socket's retransmitted SYNs and the
 * reset that refuses it count on the client's row of stack 0), and the
 * connects that failed count by cause:
 * @connects_refused:	ECONNREFUSED: a reset answered the SYN, or an
 *			ICMP port unreachable did
 * @connects_timedout:	ETIMEDOUT: no answer after the SYN's
 *			retransmissions (one that got soft ICMP errors
 *			meanwhile fails with that error, below)
 * @connects_failed:	any other end: another ICMP error (EHOSTUNREACH,
 *			...), an abort (ECONNABORTED), or the application
 *			closed, shut down or disconnected the socket while
 *			it was connecting; a simultaneous open is not
 *			counted
 * Attempts are @count plus the three; 0 on the other roles' rows.
 */
struct kprof_tcp_row {
	__u32 stack_id;
	__u16 family;
	__u16 rport;
	__u8 raddr[16];
	__u8 role;
	__u8 views;
	__u8 reserved0[6];
	__u64 count;
	__u64 sum_ns;
	__u64 min_ns;
	__u64 max_ns;
	__u32 hist[KPROF_HIST_BUCKETS];
	__u64 birth;
	__u64 retransmits;
	__u64 retransmits_rto;
	__u64 resets_sent;
	__u64 resets_received;
	__u64 after_retransmit;
	__u64 connects_refused;
	__u64 connects_timedout;
	__u64 connects_failed;
};

#define KPROF_TCP_ROW_SIZE_VER0	1224	/* API 2.0 to 3.1 */
#define KPROF_TCP_ROW_SIZE_VER1	1264	/* API 3.2: the health counters */
#define KPROF_TCP_ROW_SIZE_VER2	1288	/* API 4.0: the connects' failures */

/**
 * struct kprof_cpu_row - CPU samples of one (stack, process)
 * @stack_id:	the sampled stack (0: the stack could not be stored)
 * @tgid:	process (tgid) of the task that was running: a kernel
 *		thread counts under its own ID, an interrupt under the task
 *		it interrupted
 * @samples:	samples since the row's birth
 * @comm:	name of the sampled thread (its comm) at the row's first
 *		sample; the threads of a process that share a stack share
 *		the row, which keeps one of their names
 * @birth:	(API 2.0) as in struct kprof_tcp_row
 * @views:	(API 3.0) as in struct kprof_tcp_row, for the task sampled: the
 *		views whose process and cgroup it is in (local ports do not
 *		apply to samples); part of the key
 * @reserved0:	zero
 */
struct kprof_cpu_row {
	__u32 stack_id;
	__u32 tgid;
	__u64 samples;
	char comm[16];
	__u64 birth;
	__u8 views;
	__u8 reserved0[7];
};

#define KPROF_MAX_KERNEL_FRAMES	32
#define KPROF_MAX_USER_FRAMES	32

/**
 * struct kprof_stack - one deduplicated stack
 * @id:		stack ID (> 0), stable until KPROF_RESET_STACKS or unload
 * @tgid:	process whose user stack this is (0 for kernel-only stacks)
 * @nr_kernel:	kernel frames, leaf first
 * @nr_user:	user frames, leaf first
 * @ksyms_off:	offset in the string area of @nr_kernel consecutive
 *		NUL-terminated "symbol+0xoff/0xsize [module]" strings;
 *		KPROF_KSYMS_MISSING (with @nr_kernel 0) when the stack has
 *		kernel frames that did not fit in the string area
 * @user_ips:	user addresses, leaf first: [0] the instruction the thread
 *		was at, then return addresses, each following a call
 *		instruction and, if the process still ran at the export,
 *		in one of its executable mappings
 * @comm:	task name when the stack was first seen, NUL-padded, not
 *		always NUL-terminated
 */
#define KPROF_KSYMS_MISSING	0xffffffffU

struct kprof_stack {
	__u32 id;
	__u32 tgid;
	__u16 nr_kernel;
	__u16 nr_user;
	__u32 ksyms_off;
	__u64 user_ips[KPROF_MAX_USER_FRAMES];
	char comm[16];
};

#define KPROF_KSYM_LEN		64

/**
 * struct kprof_stack_query - KPROF_IOC_GET_STACK: one stack by ID
 * @size:	caller's sizeof
 * @id:		in: the stack ID; -ENOENT if no such stack
 * @stack:	out: the stack; @stack.ksyms_off is an offset into @ksyms
 * @ksyms:	out: @stack.nr_kernel consecutive NUL-terminated kernel
 *		frames, "symbol+0xoff/0xsize [module]"
 */
struct kprof_stack_query {
	__u32 size;
	__u32 id;
	struct kprof_stack stack;
	char ksyms[KPROF_MAX_KERNEL_FRAMES * KPROF_KSYM_LEN];
};

#define KPROF_STACK_QUERY_SIZE_VER0	2344

#endif /* _UAPI_LINUX_KPROF_H */
