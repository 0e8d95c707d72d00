// SPDX-License-Identifier: GPL-2.0
/*
 * record --probes: kprobes on the kernel's placement code, so the trace
 * carries what a sched trace cannot show — each select_task_rq_fair()
 * call's wake_flags (WF_SYNC) and the wakee's se.avg, the CPU it
 * returned, the task_h_load() values wake_affine_weight() compared, the
 * group find_idlest_group() picked, and setsid() creating an autogroup.
 * analyze replays each wakeup at that select_task_rq_fair() with them
 * (docs/report-schema.md, `probes`).
 *
 * Struct offsets come from the running kernel's BTF (/sys/kernel/btf/vmlinux,
 * read with libbpf), arguments from $argN (4.20+), so no debug info or
 * compiler is needed.  The events are created in the "sr" system, enabled
 * in our instance only, and removed at teardown.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "record.h"

/* Offsets, in bytes, of what the probes read. */
struct offs {
	unsigned int pid, load_avg, util_avg;	/* in task_struct */
	unsigned int span_weight;		/* in sched_domain */
	unsigned int cpumask;			/* in sched_group */
	int wake_flags_arg;			/* select_task_rq_fair()'s wake_flags: $argN */
	/* task_struct.se.cfs_rq, cfs_rq.rq, rq.cfs.avg: the root cfs_rq of a task's CPU */
	bool has_rq_path;
	unsigned int se_cfs_rq, cfs_rq_rq, rq_load, rq_util;
	/* task_struct.wakee_flips and .wakee_flip_decay_ts (record_wakee(), wake_wide()) */
	bool has_flips;
	unsigned int flips, flip_ts;
	/*
	 * SIS_UTIL's budget (6.0+): rq.sd, then sched_domain.parent @llc_hops
	 * times to the LLC's domain, its .shared->nr_idle_scan and span_weight;
	 * beside it .shared->has_idle_cores (CONFIG_SCHED_SMT), the hint
	 * select_idle_sibling() reads and only idle entries and failed core
	 * scans write.
	 */
	bool has_llc_scan, llc_scan_in_btf, has_idle_cores;
	unsigned int rq_sd, sd_parent, sd_shared, nr_idle_scan, idle_cores;
	int llc_hops;
	struct rec_rq_avgs rq_avgs;	/* every CPU's rq.cfs.avg: the rqs probes */
};

/* Byte offset of member @name of struct @type, searching anonymous members too. */
static long member_off(const struct btf *btf, int id, const char *name)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;

	while (t && (btf_is_typedef(t) || btf_is_mod(t)))
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_composite(t))
		return -ENOENT;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);
		long bit = btf_member_bit_offset(t, i), inner;

		if (n && !strcmp(n, name))
			return bit % 8 ? -EINVAL : bit / 8;
		if ((!n || !*n) && (inner = member_off(btf, m->type, name)) >= 0)
			return bit / 8 + inner;
	}
	return -ENOENT;
}

/* The type id of member @name of struct @type (to descend into it). */
static int member_type(const struct btf *btf, int id, const char *name)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;

	if (!t || !btf_is_composite(t))
		return -ENOENT;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);

		if (n && !strcmp(n, name))
			return (int)m->type;
	}
	return -ENOENT;
}

/* offsetof(@type, a.b.c) for a dotted @path. */
static long path_off(const struct btf *btf, const char *type, const char *path)
{
	int id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
	char buf[128], *tok, *save = NULL;
	long total = 0;

	if (id < 0)
		return -ENOENT;
	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok; tok = strtok_r(NULL, ".", &save)) {
		long off = member_off(btf, id, tok);

		if (off < 0)
			return off;
		total += off;
		id = member_type(btf, id, tok);
		if (id < 0 && strtok_r(NULL, ".", &save))
			return -ENOENT;
	}
	return total;
}

/* Which argument of select_task_rq_fair() is wake_flags: the third from 5.11, else none. */
static int wake_flags_arg(const struct btf *btf)
{
	int id = btf__find_by_name_kind(btf, "select_task_rq_fair", BTF_KIND_FUNC);
	const struct btf_type *fn = id > 0 ? btf__type_by_id(btf, id) : NULL;
	const struct btf_type *proto = fn ? btf__type_by_id(btf, fn->type) : NULL;
	const struct btf_param *p;

	if (!proto || !btf_is_func_proto(proto))
		return -ENOENT;
	p = btf_params(proto);
	for (int i = 0; i < btf_vlen(proto); i++) {
		const char *n = btf__name_by_offset(btf, p[i].name_off);

		if (n && !strcmp(n, "wake_flags"))
			return i == 2 ? 3 : -EOPNOTSUPP;	/* before 5.11 the third is sd_flag */
	}
	return -ENOENT;
}

/*
 * cpu_load() of a task's CPU: task->se.cfs_rq->rq->cfs.avg (cfs_rq.rq exists
 * with CONFIG_FAIR_GROUP_SCHED, which every distribution kernel has).
 */
static void rq_path(const struct btf *btf, struct offs *o)
{
	long v[4] = {
		path_off(btf, "task_struct", "se.cfs_rq"), path_off(btf, "cfs_rq", "rq"),
		path_off(btf, "rq", "cfs.avg.load_avg"), path_off(btf, "rq", "cfs.avg.util_avg"),
	};

	o->has_rq_path = v[0] >= 0 && v[1] >= 0 && v[2] >= 0 && v[3] >= 0;
	if (!o->has_rq_path)
		return;
	o->se_cfs_rq = (unsigned int)v[0];
	o->cfs_rq_rq = (unsigned int)v[1];
	o->rq_load = (unsigned int)v[2];
	o->rq_util = (unsigned int)v[3];
}

static void rq_avgs_path(const struct btf *btf, struct rec_rq_avgs *a)
{
	static const char *const field[4] = {
		"cfs.avg.load_avg", "cfs.avg.util_avg", "cfs.avg.util_est", "cfs.avg.runnable_avg",
	};

	a->ok = true;
	for (int i = 0; i < 4; i++) {
		long off = path_off(btf, "rq", field[i]);

		a->ok = a->ok && off >= 0;
		a->off[i] = off >= 0 ? (unsigned int)off : 0;
	}
}

/* The counters wake_wide() compares: inherited at fork, so unknown to a trace. */
static void flips_path(const struct btf *btf, struct offs *o)
{
	long f = path_off(btf, "task_struct", "wakee_flips");
	long ts = path_off(btf, "task_struct", "wakee_flip_decay_ts");

	o->has_flips = f >= 0 && ts >= 0;
	o->flips = o->has_flips ? (unsigned int)f : 0;
	o->flip_ts = o->has_flips ? (unsigned int)ts : 0;
}

/*
 * How many sched_domain.parent hops lead from a CPU's lowest domain to its
 * LLC's (sd_llc: the highest with SD_SHARE_LLC, SD_SHARE_PKG_RESOURCES
 * before 6.10), as debugfs lists CPU 0's attached domains; -1 unknown.
 */
static int llc_hops(void)
{
	int hops = -1;

	for (int d = 0; d < 16; d++) {
		char path[96], flags[512];
		size_t n;
		FILE *f;

		snprintf(path, sizeof(path), "/sys/kernel/debug/sched/domains/cpu0/domain%d/flags", d);
		f = fopen(path, "r");
		if (!f)
			break;
		n = fread(flags, 1, sizeof(flags) - 1, f);
		fclose(f);
		flags[n] = '\0';
		if (strstr(flags, "SD_SHARE_LLC") || strstr(flags, "SD_SHARE_PKG_RESOURCES"))
			hops = d;
	}
	return hops;
}

static void llc_scan_path(const struct btf *btf, struct offs *o)
{
	long v[5] = {
		path_off(btf, "rq", "sd"), path_off(btf, "sched_domain", "parent"),
		path_off(btf, "sched_domain", "shared"),
		path_off(btf, "sched_domain_shared", "nr_idle_scan"),
		path_off(btf, "sched_domain_shared", "has_idle_cores"),
	};

	o->llc_hops = llc_hops();
	o->llc_scan_in_btf = o->has_rq_path && o->span_weight && v[0] >= 0 && v[1] >= 0 &&
			     v[2] >= 0 && v[3] >= 0;
	o->has_llc_scan = o->llc_scan_in_btf && o->llc_hops >= 0;
	if (!o->has_llc_scan)
		return;
	o->rq_sd = (unsigned int)v[0];
	o->sd_parent = (unsigned int)v[1];
	o->sd_shared = (unsigned int)v[2];
	o->nr_idle_scan = (unsigned int)v[3];
	o->has_idle_cores = v[4] >= 0;
	o->idle_cores = o->has_idle_cores ? (unsigned int)v[4] : 0;
}

static int read_offsets(struct rec *r, struct offs *o)
{
	struct btf *btf = btf__load_vmlinux_btf();
	long v[5];
	int ret = 0;

	if (!btf)
		return sr_rec_fail(r, SR_EXIT_BAD_INPUT, -ENOENT, "--probes: cannot read the kernel's BTF "
				   "(/sys/kernel/btf/vmlinux; a kernel built with "
				   "CONFIG_DEBUG_INFO_BTF is needed)");
	v[0] = path_off(btf, "task_struct", "pid");
	v[1] = path_off(btf, "task_struct", "se.avg.load_avg");
	v[2] = path_off(btf, "task_struct", "se.avg.util_avg");
	v[3] = path_off(btf, "sched_domain", "span_weight");
	v[4] = path_off(btf, "sched_group", "cpumask");
	o->wake_flags_arg = wake_flags_arg(btf);
	o->span_weight = v[3] >= 0 ? (unsigned int)v[3] : 0;
	rq_path(btf, o);
	rq_avgs_path(btf, &o->rq_avgs);
	flips_path(btf, o);
	llc_scan_path(btf, o);
	btf__free(btf);
	for (int i = 0; i < 3; i++)
		if (v[i] < 0)
			ret = sr_rec_fail(r, SR_EXIT_BAD_INPUT, -ENOENT, "--probes: task_struct has no "
					  "%s in this kernel's BTF", i ? "se.avg" : "pid");
	if (!ret && o->wake_flags_arg == -EOPNOTSUPP)
		ret = sr_rec_fail(r, SR_EXIT_BAD_INPUT, -EOPNOTSUPP, "--probes: this kernel's "
				  "select_task_rq_fair() predates 5.11 (no wake_flags argument "
				  "of its own); analyze could not use the probes");
	else if (!ret && o->wake_flags_arg < 0)
		ret = sr_rec_fail(r, SR_EXIT_BAD_INPUT, -ENOENT, "--probes: select_task_rq_fair() is "
				  "not in this kernel's BTF");
	o->pid = (unsigned int)v[0];
	o->load_avg = (unsigned int)v[1];
	o->util_avg = (unsigned int)v[2];
	o->cpumask = v[4] >= 0 ? (unsigned int)v[4] : 0;
	return ret;
}

/* One probe: its event, the functions it may sit on (by kernel era), and whether it must. */
struct probe {
	const char *event;
	bool ret;
	bool required;
	const char *funcs[2];
};

static const struct probe probes[] = {
	{ "srqf", false, true, { "select_task_rq_fair" } },
	{ "srqf_ret", true, true, { "select_task_rq_fair" } },
	{ "thl", false, false, { "task_h_load" } },
	{ "thl_ret", true, false, { "task_h_load" } },
	/* renamed in 6.10 (sched/balance naming) */
	{ "fig", false, false, { "find_idlest_group", "sched_balance_find_dst_group" } },
	{ "fig_ret", true, false, { "find_idlest_group", "sched_balance_find_dst_group" } },
	{ "sag", false, false, { "sched_autogroup_create_attach" } },
};

/*
 * The optional fields, by tier: 0 all; 1 without jiffies (an @symbol
 * fetch); 2 without the SIS_UTIL budget either (its chain of derefs); 3
 * without the wakee_flips fields.  A kernel that refuses one keeps the rest.
 */
#define TIER_NO_JIFFIES	1
#define TIER_NO_LLC	2
#define TIER_NO_FLIPS	3

/*
 * " flips=... flip_ts=... jiffies=..." of $arg1 (the wakee at srqf, the
 * waker at thl of current): with jiffies, the decay stamp's age is exact.
 */
static void flips_arg(const struct offs *o, int tier, char *buf, size_t n)
{
	if (!o->has_flips || tier >= TIER_NO_FLIPS) {
		buf[0] = '\0';
		return;
	}
	snprintf(buf, n, " flips=+%u($arg1):u32 flip_ts=+%u($arg1):u64%s", o->flips, o->flip_ts,
		 tier >= TIER_NO_JIFFIES ? "" : " jiffies=@jiffies_64:u64");
}

/*
 * " llc_span=... llc_scan=... llc_idle_cores=..." of $arg1's CPU: its LLC
 * domain's span_weight (analyze checks it is the LLC), sd_llc_shared->
 * nr_idle_scan, the budget select_idle_cpu() reads, and ->has_idle_cores;
 * "" without the path.
 */
static void llc_arg(const struct offs *o, char *buf, size_t n)
{
	char sd[160];
	int len;

	buf[0] = '\0';
	if (!o->has_llc_scan)
		return;
	len = snprintf(sd, sizeof(sd), "+%u(+%u(+%u($arg1)))", o->rq_sd, o->cfs_rq_rq, o->se_cfs_rq);
	for (int i = 0; i < o->llc_hops && len > 0 && (size_t)len < sizeof(sd); i++) {
		char in[160];

		memcpy(in, sd, sizeof(in));
		len = snprintf(sd, sizeof(sd), "+%u(%s)", o->sd_parent, in);
	}
	if (len <= 0 || (size_t)len >= sizeof(sd))
		return;
	len = snprintf(buf, n, " llc_span=+%u(%s):u32 llc_scan=+%u(+%u(%s)):s32", o->span_weight,
		       sd, o->nr_idle_scan, o->sd_shared, sd);
	if (o->has_idle_cores && len > 0 && (size_t)len < n)
		snprintf(buf + len, n - (size_t)len, " llc_idle_cores=+%u(+%u(%s)):s32", o->idle_cores,
			 o->sd_shared, sd);
}

/* " NAME=rq.cfs.avg.FIELD of $arg1's CPU", or "" without the path. */
static void rq_arg(const struct offs *o, const char *name, unsigned int field, char *buf,
		   size_t n)
{
	if (!o->has_rq_path) {
		buf[0] = '\0';
		return;
	}
	snprintf(buf, n, " %s=+%u(+%u(+%u($arg1))):u64", name, field, o->cfs_rq_rq,
		 o->se_cfs_rq);
}

static void fetchargs(const struct probe *p, const struct offs *o, int tier, char *buf,
		      size_t n)
{
	char load[96], util[96], flips[128], llc[640];

	flips_arg(o, tier, flips, sizeof(flips));
	llc[0] = '\0';
	if (tier < TIER_NO_LLC)
		llc_arg(o, llc, sizeof(llc));
	if (!strcmp(p->event, "srqf")) {
		/* prev's cpu_load() as wake_affine_weight() reads it, and its LLC's budget */
		rq_arg(o, "prev_load", o->rq_load, load, sizeof(load));
		rq_arg(o, "prev_util", o->rq_util, util, sizeof(util));
		snprintf(buf, n, "pid=+%u($arg1):s32 prev_cpu=$arg2:s32 wake_flags=$arg%d:x32 "
			 "load_avg=+%u($arg1):u64 util_avg=+%u($arg1):u64%s%s%s%s", o->pid,
			 o->wake_flags_arg, o->load_avg, o->util_avg, load, util, flips, llc);
	} else if (!strcmp(p->event, "thl")) {
		/*
		 * for current (the sync test): this CPU's cpu_load() and LLC budget,
		 * its flips after record_wakee()
		 */
		rq_arg(o, "cpu_load", o->rq_load, load, sizeof(load));
		snprintf(buf, n, "pid=+%u($arg1):s32%s%s%s", o->pid, load, flips, llc);
	}
	else if (!strcmp(p->event, "srqf_ret"))
		snprintf(buf, n, "cpu=$retval:s32");
	else if (!strcmp(p->event, "sag"))
		snprintf(buf, n, "pid=+%u($arg1):s32", o->pid);
	else if (!strcmp(p->event, "thl_ret"))
		snprintf(buf, n, "h_load=$retval:u64");
	else if (!strcmp(p->event, "fig"))
		snprintf(buf, n, "pid=+%u($arg2):s32 sd_weight=+%u($arg1):u32 this_cpu=$arg3:s32",
			 o->pid, o->span_weight);
	else
		snprintf(buf, n, "group=$retval:x64 span=+%u($retval):x64", o->cpumask);
}

/*
 * Create @ev in tracefs and keep it, for the teardown and FILE's formats
 * (FILE stores only the events recorded).  On failure nothing is left: @ev
 * is removed if it was created, and freed.  0 or -errno.
 */
int sr_rec_probe_create(struct rec *r, struct tracefs_dynevent *ev, const char *event)
{
	char full[64];
	int ret;

	if (tracefs_dynevent_create(ev)) {
		ret = sr_rec_neg_errno();
		tracefs_dynevent_free(ev);
		return ret;
	}
	snprintf(full, sizeof(full), "%s/%s", REC_PROBE_SYSTEM, event);
	ret = r->nr_probes >= REC_MAX_PROBES ? -ENOSPC :
	      json_array_append_new(r->events, json_string(full)) ? -ENOMEM : 0;
	if (!ret) {
		r->probes[r->nr_probes++] = ev;
		return 0;
	}
	tracefs_dynevent_destroy(ev, true);
	tracefs_dynevent_free(ev);
	return ret;
}

/* Create @p on the first of its functions the kernel accepts; 0 or -errno. */
static int create_at(struct rec *r, const struct probe *p, const struct offs *o, int tier)
{
	char args[1536];
	int ret = -ENOENT;

	fetchargs(p, o, tier, args, sizeof(args));
	for (int i = 0; i < 2 && p->funcs[i]; i++) {
		struct tracefs_dynevent *ev = p->ret ?
			tracefs_kretprobe_alloc(REC_PROBE_SYSTEM, p->event, p->funcs[i], args, 0) :
			tracefs_kprobe_alloc(REC_PROBE_SYSTEM, p->event, p->funcs[i], args);

		if (!ev)
			return -ENOMEM;
		ret = sr_rec_probe_create(r, ev, p->event);
		if (!ret || ret == -ENOMEM || ret == -ENOSPC)
			return ret;
	}
	return ret;
}

/*
 * Create @p, dropping the optional arguments a kernel refuses (an @symbol
 * fetch, say) rather than the probe.
 */
static int create_one(struct rec *r, const struct probe *p, const struct offs *o)
{
	static const char *const dropped[] = {
		NULL, "jiffies", "jiffies and the SIS_UTIL budget",
		"jiffies, the SIS_UTIL budget and the wakee_flips fields",
	};
	bool tiers = (o->has_flips || o->has_llc_scan) &&
		     (!strcmp(p->event, "srqf") || !strcmp(p->event, "thl"));
	char *why = NULL;
	int ret = -ENOENT, tier;

	for (tier = 0; tier <= (tiers ? TIER_NO_FLIPS : 0); tier++) {
		ret = create_at(r, p, o, tier);
		if (!ret)
			break;
		if (!why)
			why = tracefs_error_last(NULL);
	}
	/* said only when a smaller probe took: else the probe's own failure is the news */
	if (!ret && tier)
		fprintf(stderr, "schedreplay: --probes: %s recorded without %s (the kernel refused "
			"them%s%s)\n", p->event, dropped[tier], why ? ": " : "", why ? why : "");
	free(why);
	return ret;
}

/* Our events left by a run that crashed would make every create fail. */
static void remove_stale(void)
{
	struct tracefs_dynevent **old = tracefs_dynevent_get_all(TRACEFS_DYNEVENT_KPROBE |
								 TRACEFS_DYNEVENT_KRETPROBE,
								 REC_PROBE_SYSTEM);

	for (int i = 0; old && old[i]; i++)
		tracefs_dynevent_destroy(old[i], true);
	tracefs_dynevent_list_free(old);
}

int sr_rec_probe_note(struct rec *r, const char *event, const char *status)
{
	json_t *o = json_pack("{s:s, s:s}", "event", event, "status", status);

	return !o || json_array_append_new(r->probe_status, o) ? -ENOMEM : 0;
}

int sr_rec_probes_setup(struct rec *r)
{
	struct offs o = { 0 };
	int ret;

	r->probe_status = json_array();
	if (!r->probe_status)
		return sr_rec_fail(r, SR_EXIT_FAIL, -ENOMEM, "out of memory");
	if (!tracefs_file_exists(NULL, "kprobe_events"))
		return sr_rec_fail(r, SR_EXIT_BAD_INPUT, -EOPNOTSUPP, "--probes: this kernel has no "
				   "kprobe events (tracefs has no kprobe_events: CONFIG_KPROBE_EVENTS "
				   "is off)");
	ret = read_offsets(r, &o);
	if (ret)
		return ret;
	if (o.llc_scan_in_btf && !o.has_llc_scan)
		fprintf(stderr, "schedreplay: --probes: SIS_UTIL's budget not recorded: no sched "
			"domains in debugfs (/sys/kernel/debug/sched/domains) to find the LLC's\n");
	remove_stale();
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		const struct probe *p = &probes[i];

		ret = create_one(r, p, &o);
		if (ret == -EEXIST)
			return sr_rec_fail(r, SR_EXIT_BAD_INPUT, ret, "--probes: an event %s/%s already "
					   "exists and is not one of our kprobes (another tool's, an "
					   "fprobe?): remove it (echo '-:%s/%s' >> "
					   "/sys/kernel/tracing/dynamic_events) and record again",
					   REC_PROBE_SYSTEM, p->event, REC_PROBE_SYSTEM, p->event);
		if (ret && p->required)
			return sr_rec_fail(r, SR_EXIT_BAD_INPUT, ret, "--probes: cannot probe %s (%s): "
					   "a kernel with CONFIG_KPROBE_EVENTS and %s not inlined is "
					   "needed", p->funcs[0], strerror(-ret), p->funcs[0]);
		if (ret)
			fprintf(stderr, "schedreplay: --probes: no %s probe on this kernel (%s): "
				"recorded without it\n", p->event, strerror(-ret));
		if (sr_rec_probe_note(r, p->event, ret ? "absent" : "recorded"))
			return sr_rec_fail(r, SR_EXIT_FAIL, -ENOMEM, "out of memory");
	}
	if (o.rq_avgs.ok)
		sr_rec_probes_rqs(r, &o.rq_avgs);
	if (tracefs_event_enable(r->inst, REC_PROBE_SYSTEM, NULL))
		return sr_rec_fail(r, SR_EXIT_FAIL, sr_rec_neg_errno(), "--probes: cannot enable "
				   "the %s events in instance %s", REC_PROBE_SYSTEM, r->name);
	return 0;
}

void sr_rec_probes_teardown(struct rec *r)
{
	for (int i = 0; i < r->nr_probes; i++) {
		if (tracefs_dynevent_destroy(r->probes[i], true))
			fprintf(stderr, "schedreplay: cannot remove probe event %d of %s: %s\n", i,
				REC_PROBE_SYSTEM, strerror(errno));
		tracefs_dynevent_free(r->probes[i]);
	}
	r->nr_probes = 0;
}
