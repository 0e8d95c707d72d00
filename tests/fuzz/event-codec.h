/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The event-stream fuzzer's input format, shared by the harness
 * (fuzz-events.c, the decoder) and the seed maker (mkseed.c, the encoder).
 * A 16-byte header says which machine, trace and run; then fixed 40-byte
 * records, each one struct sr_event.  Every byte string decodes to a
 * stream ingest could hand the state: enums in range, everything else
 * arbitrary (pids, CPUs, priorities, timestamps that go back, lost
 * windows, probe values), so whatever breaks is a bug of ours.
 */
#ifndef SR_FUZZ_EVENT_CODEC_H
#define SR_FUZZ_EVENT_CODEC_H

#include <stdint.h>
#include <string.h>
#include "trace.h"

#define FZ_HEADER	16
#define FZ_RECORD	40

/* Header bytes. */
enum {
	FZ_H_CPUS,		/* machine size, see fz_cpus() */
	FZ_H_TOPO,		/* topology shape */
	FZ_H_POLICY,		/* policy set */
	FZ_H_MODE,		/* bits 0-1 mode, 2 decisions, 3 root cgroup, 4 measure-only,
				 * 5 explain by number, 6 serialise the report,
				 * 6+7 thousands of CPUs (fz_cpus) */
	FZ_H_FORMATS,		/* bit per format missing: 0 waking, 1 wakeup, 2 switch, 3 probes */
	FZ_H_RELEASE,		/* kernel release */
	FZ_H_HZ,
	FZ_H_FIRST,		/* per-CPU first pid: 0 none, 1 idle, else from the pool */
	FZ_H_TARGET,		/* 4 bytes: explain --pid/--wakeup */
	FZ_H_BASE = 12,		/* 4 bytes: first timestamp, in µs */
};

/* Record bytes: little-endian fields at these offsets. */
enum {
	FZ_R_TYPE = 0,		/* u8 % SR_EV_NR */
	FZ_R_FLAGS = 1,		/* u8: 0 irq, 1-2 prev_state % 3, 3 missed, 4 missed unknown,
				 *     5 window open, 6 window closed */
	FZ_R_CPU = 2,		/* i16 */
	FZ_R_DTS = 4,		/* i32: ns since the previous record (may be negative) */
	FZ_R_COMMON = 8,	/* i32 common_pid */
	FZ_R_PID = 12,		/* i32 */
	FZ_R_NEXT = 16,		/* i32 next_pid / child_pid */
	FZ_R_PRIO = 20,		/* i16 */
	FZ_R_NEXT_PRIO = 22,	/* i16 */
	FZ_R_TARGET = 24,	/* i16 target_cpu (and orig_cpu) */
	FZ_R_DEST = 26,		/* i16 dest_cpu */
	FZ_R_COMM = 28,		/* u8: comm pool index */
	FZ_R_NEXT_COMM = 29,	/* u8 */
	FZ_R_AUX16 = 30,	/* u16: sd_weight / success / lost_open count */
	FZ_R_AUX32 = 32,	/* u32: missed count, runtime, wake_flags, h_load, cgroup id */
	FZ_R_AUX32B = 36,	/* u32: load_avg/util_avg, span, window bounds (µs back) */
};

/* Task names: plain, per-CPU kthreads, odd numbers, and names that are not text. */
static const char *const fz_comms[] = {
	"", "hackbench", "perf", "bash", "sh", "kworker/0:1", "kworker/1:2H", "ksoftirqd/1",
	"migration/3", "cpuhp/2", "rcuc/7", "idle_inject/0", "kworker/u16:2",
	"kworker/4095:0", "ksoftirqd/99999999999", "migration/-1", "kworker/:", "kworker/1",
	"a\xe3\x82\xb9\xe3\x83\xac\xe3\x83\x83\xe3\x83\x89\xe5\x90",	/* cut inside a char */
	"\xff\xfe\xfd\x80", "\x1b[31mred\x1b[0m", "\xc0\xaf\xed\xa0\x80", "tbench", "sleep",
	"stress-ng", "rcu_preempt", "swapper/0", "init", "qemu-system-x86", "X", "\x7f",
	"012345678901234", "migration/0", "migration/1",	/* self-stops: exec.c */
};

#define FZ_NR_COMMS	(sizeof(fz_comms) / sizeof(fz_comms[0]))

static inline uint32_t fz_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint16_t fz_u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline void fz_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void fz_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

/* The pool index of @comm (nearest by name), for seeds made from real traces. */
static inline uint8_t fz_comm_index(const char *comm)
{
	for (size_t i = 1; i < FZ_NR_COMMS; i++)
		if (!strcmp(comm, fz_comms[i]))
			return (uint8_t)i;
	if (!strncmp(comm, "kworker/", 8))
		return 5;
	if (!strncmp(comm, "ksoftirqd/", 10))
		return 7;
	if (!strncmp(comm, "migration/", 10))
		return 8;
	return comm[0] ? 1 : 0;
}

#endif /* SR_FUZZ_EVENT_CODEC_H */
