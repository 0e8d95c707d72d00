// SPDX-License-Identifier: GPL-2.0
/*
 * record --probes, the rqs events: at each select_task_rq_fair() entry,
 * every CPU's root cfs_rq averages — load_avg, util_avg, util_est and
 * runnable_avg of rq->cfs.avg, what cpu_load(), cpu_util() and
 * cpu_runnable() read.  wake_affine_weight() compares the waking CPU's
 * cpu_load() with prev's, find_idlest_group() every group's sums; a
 * sched trace shows neither, and kprobe arguments cannot reach the waking
 * CPU's runqueue (no `current`, no per-CPU access before this_cpu_ptr()).
 *
 * A kprobe argument can read memory at a data symbol (@SYM+offs) and then
 * at a constant offset from that value: CPU n's runqueues is
 * __per_cpu_offset[n] + &runqueues, so "+K(@__per_cpu_offset+8n)" with
 * K = &runqueues + offsetof(struct rq, cfs.avg.X) reads CPU n's value.
 * &runqueues comes from /proc/kallsyms.  Each event holds REC_RQS_CPUS
 * CPUs (the kernel allows 128 arguments), its first CPU as an immediate
 * ("base"), so every rqs event has one layout.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "record.h"

/* The address of data symbol @name in /proc/kallsyms; 0 when unreadable or hidden. */
static unsigned long kallsyms_addr(const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], sym[256], type;
	unsigned long addr = 0, a;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx %c %255s", &a, &type, sym) == 3 && !strcmp(sym, name) &&
		    !strchr(line, '[')) {
			addr = a;
			break;
		}
	fclose(f);
	return addr;
}

/*
 * The arguments of the event for CPUs @base .. @base + REC_RQS_CPUS - 1;
 * those from @n on do not exist and read UINT32_MAX, so that every rqs
 * event has the same fields.
 */
static int rqs_args(unsigned long rq, const struct rec_rq_avgs *o, int base, int n, char *buf,
		    size_t size)
{
	static const char *const name[4] = { "load", "util", "est", "run" };
	size_t len = (size_t)snprintf(buf, size, "base=\\%d:u32", base);

	for (int i = 0; i < REC_RQS_CPUS && len < size; i++)
		for (int f = 0; f < 4 && len < size; f++) {
			/* a kernel address as a signed offset: kstrtol() parses the sign */
			long k = (long)(rq + o->off[f]);

			if (i >= n)
				len += (size_t)snprintf(buf + len, size - len,
							" %s%d=\\4294967295:u32", name[f], i);
			else
				len += (size_t)snprintf(buf + len, size - len,
							" %s%d=%s%ld(@__per_cpu_offset+%d):u32",
							name[f], i, k < 0 ? "" : "+", k, 8 * (base + i));
		}
	return len < size ? 0 : -E2BIG;
}

static int rqs_create(struct rec *r, unsigned long rq, const struct rec_rq_avgs *o, int base,
		      int n)
{
	char event[32], args[4096];
	struct tracefs_dynevent *ev;
	int ret;

	snprintf(event, sizeof(event), "rqs%d", base / REC_RQS_CPUS);
	ret = rqs_args(rq, o, base, n, args, sizeof(args));
	if (ret)
		return ret;
	ev = tracefs_kprobe_alloc(REC_PROBE_SYSTEM, event, "select_task_rq_fair", args);
	return ev ? sr_rec_probe_create(r, ev, event) : -ENOMEM;
}

void sr_rec_probes_rqs(struct rec *r, const struct rec_rq_avgs *o)
{
	int ncpu = r->nr_cpus;
	unsigned long rq = kallsyms_addr("runqueues");
	int ret = 0, made = 0;

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	ret = -EOPNOTSUPP;	/* :u32 of an unsigned long is its low half only on little-endian */
#endif
	if (!ret && !rq)
		ret = -ENOENT;
	for (int base = 0; !ret && base < ncpu && base < REC_RQS_MAX_CPUS; base += REC_RQS_CPUS) {
		int n = ncpu - base < REC_RQS_CPUS ? ncpu - base : REC_RQS_CPUS;

		ret = rqs_create(r, rq, o, base, n);
		made += !ret;
	}
	if (ret) {
		char *why = tracefs_error_last(NULL);

		fprintf(stderr, "schedreplay: --probes: every CPU's runqueue averages not recorded "
			"(%s%s%s)\n", ret == -ENOENT ? "no runqueues in /proc/kallsyms" : strerror(-ret),
			why ? ": " : "", why ? why : "");
		free(why);
		/* all or none: a partial set would leave CPUs unread */
		while (made--) {
			r->nr_probes--;
			tracefs_dynevent_destroy(r->probes[r->nr_probes], true);
			tracefs_dynevent_free(r->probes[r->nr_probes]);
			json_array_remove(r->events, json_array_size(r->events) - 1);
		}
	} else if (ncpu > REC_RQS_MAX_CPUS) {
		fprintf(stderr, "schedreplay: --probes: runqueue averages of the first %d CPUs only\n",
			REC_RQS_MAX_CPUS);
	}
	if (sr_rec_probe_note(r, "rqs", ret ? "absent" : "recorded"))
		fprintf(stderr, "schedreplay: out of memory\n");
}
