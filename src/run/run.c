// SPDX-License-Identifier: GPL-2.0
/* One streaming pass: ingest -> state -> replay -> analyses. */
#define _GNU_SOURCE		/* vasprintf */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "policy.h"
#include "run.h"
#include "run-priv.h"

/* kernel/sched/sched.h, 5.11 - 6.18 (3aef1551e942; before, WF_SYNC was 0x01) */
#define SR_WF_EXEC	0x02
#define SR_WF_FORK	0x04
#define SR_WF_TTWU	0x08
#define SR_WF_SYNC	0x10

void sr_run_warn(struct sr_run *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	/* the last slot is kept for the count of the ones that did not fit */
	if (r->nr_warnings >= SR_MAX_WARNINGS - 1) {
		r->nr_warnings_dropped++;
		return;
	}
	va_start(ap, fmt);
	n = vasprintf(&r->warnings[r->nr_warnings], fmt, ap);
	va_end(ap);
	if (n < 0)
		r->nr_warnings_dropped++;	/* out of memory: counted, not lost */
	else
		r->nr_warnings++;
}

/* One warning for all that did not fit. */
static void warn_dropped(struct sr_run *r)
{
	if (!r->nr_warnings_dropped ||
	    asprintf(&r->warnings[r->nr_warnings], "%d further warnings not shown",
		     r->nr_warnings_dropped) < 0)
		return;
	r->nr_warnings++;
	r->nr_warnings_dropped = 0;
}

/* --time, --pid, --comm, --cpu: whether the analyses see this placement. */
static bool seen(const struct sr_run *r, uint64_t ts, int pid, int cpu)
{
	const struct sr_task *t;

	if (!r->filtered)
		return true;
	t = sr_state_task(&r->state, pid);
	return sr_filter_pass(&r->opts.an.filter, ts, pid, t ? t->comm : NULL, cpu);
}

/* Set once: seen() runs at every placement, wakeup and run of a task. */
static bool any_filter(const struct sr_filter *f)
{
	return f->pid || f->comm[0] || f->has_cpus || f->has_start || f->has_end;
}

static int hook_placement(void *data, const struct sr_wake_ctx *ctx, struct sr_brief *dec,
			  struct sr_ref *ref)
{
	struct sr_run *r = data;
	struct sr_decision *d = r->scratch;
	int ret = 0;

	if (r->has_ref && r->ref_index < 0 && !sr_policy_decide_quiet(&r->ref, ctx, d))
		sr_policy_ref(&r->ref, ctx, d, ref);
	for (int i = 0; i < r->nr_policies; i++) {
		dec[i] = (struct sr_brief){ .cpu = -1, .alt_cpu = -1 };
		/* A model refusing its input is not fatal: that answer is missing. */
		if (sr_policy_decide_quiet(&r->policy[i], ctx, d))
			continue;
		if (i == r->ref_index)
			sr_policy_ref(&r->ref, ctx, d, ref);
		if (d->cpu < 0 || d->cpu >= r->info->nr_cpus) {
			dec[i].decided_by = (uint8_t)d->decided_by;	/* e.g. not_fair_class */
			continue;
		}
		dec[i] = (struct sr_brief){
			.cpu = (int16_t)d->cpu, .alt_cpu = (int16_t)d->alt_cpu,
			.decided_by = (uint8_t)d->decided_by, .determined = d->determined,
			.cpu_idle = !ctx->rq[d->cpu].curr_pid && !ctx->rq[d->cpu].nr_running,
			.sync_assumed = d->sync_assumed,
			.depends = (uint32_t)d->depends,
		};
	}
	if (!seen(r, ctx->ts, ctx->p->pid, -1))
		return 0;
	for (int i = 0; !ret && i < r->nr_hooked[SR_RUN_PLACEMENT]; i++) {
		struct sr_analysis *a = r->hooked[SR_RUN_PLACEMENT][i];

		ret = a->ops->placement(a, ctx, dec);
	}
	return ret;
}

static int hook_wakeup(void *data, const struct sr_wakeup *w)
{
	struct sr_run *r = data;
	int ret = 0;

	if (!seen(r, w->ts, w->task->v.pid, w->cpu))
		return 0;
	for (int i = 0; !ret && i < r->nr_hooked[SR_RUN_WAKEUP]; i++) {
		struct sr_analysis *a = r->hooked[SR_RUN_WAKEUP][i];

		ret = a->ops->wakeup(a, w);
	}
	return ret;
}

static int hook_run(void *data, const struct sr_task *t, int cpu, uint64_t ts)
{
	struct sr_run *r = data;
	int ret = 0;

	if (!seen(r, t->note.ts, t->v.pid, t->note.cpu))
		return 0;
	for (int i = 0; !ret && i < r->nr_hooked[SR_RUN_RUN]; i++) {
		struct sr_analysis *a = r->hooked[SR_RUN_RUN][i];

		ret = a->ops->run(a, t, cpu, ts);
	}
	return ret;
}

/* Every analysis that can end the pass has what it needs. */
static bool all_done(const struct sr_run *r)
{
	for (int i = 0; i < r->nr_an; i++)
		if (r->an[i].data && r->an[i].ops->done && !r->an[i].ops->done(&r->an[i]))
			return false;
	return true;
}

/* A positive return ends the pass early (explain has its answer). */
#define RUN_STOP	1

static int on_event(const struct sr_event *ev, void *data)
{
	struct sr_run *r = data;
	int ret = sr_state_event(&r->state, ev);

	if (!(++r->nr_events & 0xffff) && r->opts.progress)
		r->opts.progress(r->opts.progress_data, r->nr_events, ev->ts);
	/* the state follows every event; the analyses see those in --time */
	if (sr_filter_time(&r->opts.an.filter, ev->ts))
		for (int i = 0; !ret && i < r->nr_hooked[SR_RUN_EVENT]; i++) {
			struct sr_analysis *a = r->hooked[SR_RUN_EVENT][i];

			ret = a->ops->event(a, ev);
		}
	if (!ret && r->can_stop && all_done(r)) {
		r->stopped = true;
		return RUN_STOP;
	}
	return ret;
}

/* ------------------------------------------------------------ run */

/* Which analyses take each per-event callback: the pass then calls only those. */
static int hook_lists(struct sr_run *r, struct sr_err *err)
{
	size_t n = r->nr_an > 0 ? (size_t)r->nr_an : 1;
	struct sr_analysis **all = calloc(n * SR_RUN_NR_HOOKS, sizeof(*all));

	if (!all)
		return sr_err_set(err, -ENOMEM, "out of memory");
	for (int k = 0; k < SR_RUN_NR_HOOKS; k++)
		r->hooked[k] = all + (size_t)k * n;
	for (int i = 0; i < r->nr_an; i++) {
		struct sr_analysis *a = &r->an[i];
		const struct sr_analysis_ops *o = a->ops;

		if (!a->data)
			continue;
		if (o->event)
			r->hooked[SR_RUN_EVENT][r->nr_hooked[SR_RUN_EVENT]++] = a;
		if (o->placement)
			r->hooked[SR_RUN_PLACEMENT][r->nr_hooked[SR_RUN_PLACEMENT]++] = a;
		if (o->wakeup)
			r->hooked[SR_RUN_WAKEUP][r->nr_hooked[SR_RUN_WAKEUP]++] = a;
		if (o->run)
			r->hooked[SR_RUN_RUN][r->nr_hooked[SR_RUN_RUN]++] = a;
	}
	return 0;
}

static int setup_analyses(struct sr_run *r, struct sr_err *err)
{
	const struct sr_analysis_ops *const *ops = sr_analyses(&r->nr_an);

	r->view = (struct sr_view){
		.opts = &r->opts.an, .info = r->info, .topo = &r->topo, .state = &r->state,
		.policy = r->policy, .nr_policies = r->nr_policies, .policy_note = r->policy_note,
	};
	r->an = calloc(r->nr_an ? r->nr_an : 1, sizeof(*r->an));
	if (!r->an)
		return sr_err_set(err, -ENOMEM, "out of memory");
	for (int i = 0; i < r->nr_an; i++) {
		struct sr_analysis *a = &r->an[i];
		int ret;

		*a = (struct sr_analysis){ .ops = ops[i], .view = &r->view };
		ret = a->ops->init ? a->ops->init(a) : 0;
		if (ret)
			return sr_err_set(err, ret, "analysis %s: cannot start (%s)", a->ops->name,
					  strerror(-ret));
		if (a->data && a->ops->done && r->opts.an.mode == SR_MODE_EXPLAIN)
			r->can_stop = true;
	}
	return hook_lists(r, err);
}

const struct sr_analysis *sr_run_analysis(const struct sr_run *r,
					  const struct sr_analysis_ops *ops)
{
	for (int i = 0; i < r->nr_an; i++)
		if (r->an[i].ops == ops && r->an[i].data)
			return &r->an[i];
	return NULL;
}

/* What the reader chose or assumed about the file. */
static void warn_trace(struct sr_run *r)
{
	const struct sr_trace_info *info = r->info;

	if (info->buffer[0] && !info->buffer_given)
		sr_run_warn(r, "the top-level buffer holds no sched event: analysed buffer '%s'%s%s",
			    info->buffer, info->buffers_note[0] ? "; these also hold some: " : "",
			    info->buffers_note);
	else if (info->buffers_note[0] && !info->buffer_given)
		sr_run_warn(r, "analysed the top-level buffer; buffers %s hold sched events too "
			    "(choose one with --buffer NAME)", info->buffers_note);
	if (info->clock_assumed_ns && info->clock[0])
		sr_run_warn(r, "trace clock '%s' is not one schedreplay knows: its timestamps are "
			    "taken as nanoseconds", info->clock);
	else if (info->clock_assumed_ns)
		sr_run_warn(r, "the trace does not say its clock: its timestamps are taken as "
			    "nanoseconds (trace-cmd's default clock, local, counts them)");
}

/*
 * The snapshot's command line names scheduler patches the reference does
 * not reproduce: unknown ones, or a sched_vcpu_pack the recorded kernel's
 * model could not take (a kernel other than 6.18+).
 */
static bool patches_unmodelled(const struct sr_run *r)
{
	int pack = sr_machine_vcpu_pack(&r->machine);

	return sr_machine_unmodelled_patches(&r->machine) ||
	       (pack >= 0 && r->ref.knobs.vcpu_pack != pack);
}

/*
 * The snapshot `schedreplay record -o TRACE` saved beside the trace
 * (TRACE.machine/), when the caller asks for it and gave no topology: the
 * machine that recorded the trace, which batch finds the same way.
 */
static void topology_beside(struct sr_run *r)
{
	struct stat st;

	if (!r->opts.topology_beside || r->opts.topology || !r->opts.path ||
	    snprintf(r->found_topology, sizeof(r->found_topology), "%s.machine",
		     r->opts.path) >= (int)sizeof(r->found_topology))
		return;
	if (!stat(r->found_topology, &st) && S_ISDIR(st.st_mode))
		r->opts.topology = r->found_topology;
	else
		r->opts.topology_beside = false;
}

int sr_run_init(struct sr_run *r, const struct sr_run_opts *o, const struct sr_trace_info *info,
		struct sr_err *err)
{
	struct sr_state_cfg cfg;
	bool probes;
	int ret;

	r->opts = *o;
	topology_beside(r);
	r->filtered = any_filter(&o->an.filter);
	r->info = info;
	ret = sr_run_setup_topology(r, err);
	if (ret)
		return ret;
	sr_topo_cache_asym(&r->topo);
	ret = sr_run_setup_policies(r, err);
	if (ret)
		return ret;
	r->scratch = malloc(sizeof(*r->scratch));
	if (!r->scratch)
		return sr_err_set(err, -ENOMEM, "out of memory");
	if (!info->has_format[SR_EV_SWITCH])
		sr_run_warn(r, "no sched_switch format: task and runqueue state cannot be rebuilt; "
			    "wakeups are classified unknown");
	if (!info->has_format[SR_EV_WAKEUP] && info->has_format[SR_EV_WAKING])
		sr_run_warn(r, "no sched_wakeup format: each wakeup's CPU is inferred from "
			    "sched_migrate_task or the switch-in (wakeups.chosen_inferred)");
	if (o->root_cgroup)
		sr_run_warn(r, "--assume-root-cgroup: every task taken to be in the root task group "
			    "(no cgroup cpu controller, autogroup off); decisions no longer depend on "
			    "cgroup shares");
	if (patches_unmodelled(r))
		sr_run_warn(r, "the recorded kernel's command line sets %s, which no mainline kernel "
			    "has: its scheduler carries patches the models do not reproduce, so no "
			    "decision is determined (depends_on: kernel_patches)",
			    r->machine.kernel_patch_params);
	warn_trace(r);
	for (int c = 0; c < info->nr_cpus; c++)
		r->nr_silent += info->cpu[c].first_pid < 0;
	if (r->nr_silent)
		sr_run_warn(r, "%d CPU(s) have no event at all: assumed idle throughout (a task "
			    "running there without any sched event would be missed)", r->nr_silent);
	probes = info->has_format[SR_EV_SELECT] && info->has_format[SR_EV_SELECT_RET];
	if (probes && r->ref.knobs.kver < SR_KV(5, 11)) {
		sr_run_warn(r, "select_task_rq_fair() probes ignored: before 5.11 its third argument "
			    "is sd_flag, not wake_flags");
		probes = false;
	}
	cfg = (struct sr_state_cfg){
		.nr_cpus = info->nr_cpus, .topo = &r->topo,
		.initial = info->cpu, .start = info->first_ts,
		.migration_cost_ns = o->an.migration_cost_ns, .hz = o->hz,
		.has_waking = info->has_format[SR_EV_WAKING],
		.infer_chosen = info->has_format[SR_EV_WAKING] && !info->has_format[SR_EV_WAKEUP] &&
				!probes,
		.root_cgroup = o->root_cgroup,
		.cgroup_weights = r->opts.cgroup_weights, .nr_cgroup_weights = o->nr_cgroup_weights,
		.cgroup_members = r->opts.cgroup_members, .nr_cgroup_members = o->nr_cgroup_members,
		.affinity = r->affinity, .nr_affinity = r->nr_affinity,
		/* 5.11+ (3aef1551e942 "sched: Add WF_TTWU, WF_EXEC wakeup flags") */
		.has_select_probe = probes, .probes_measure_only = o->probes_measure_only,
		/* 6.12 152e11f6df29 "sched/fair: Implement delayed dequeue" */
		.delayed_dequeue = r->ref.knobs.kver >= SR_KV(6, 12) &&
				   sr_machine_feature(&r->machine, "DELAY_DEQUEUE") != 0,
		.migrate_pelt_lag = r->ref.knobs.kver >= SR_KV(6, 0),
		/* 6.7 50181c0cff31 "sched/pelt: Avoid underestimation of task utilization" */
		.util_est_runnable = r->ref.knobs.kver >= SR_KV(6, 7),
		.kernel_patched = patches_unmodelled(r),
		.idle_states = sr_machine_idle_states(&r->machine),
		.ttwu_on_cpu = r->ref.knobs.kver >= SR_KV(5, 8),
		/* 6.0 28156108fecb, f3dd3f674555 (Tianchen Ding's ttwu_queue_cond() pair) */
		.ttwu_idle_wakelist = r->ref.knobs.kver >= SR_KV(6, 0),
		/* 4.17 f643ea220701 "sched/nohz: Stop NOHZ stats when decayed" */
		.blocked_unrefreshed = r->ref.knobs.kver < SR_KV(4, 17),
		/* 5.13 9c9f520a1467 "sched,fair: skip newidle_balance if a wakeup is pending" */
		.newidle_stamps_pending = r->ref.knobs.kver < SR_KV(5, 13),
		/* 4.15 calc_group_shares(): max(load.weight, load_avg) */
		.shares_by_weight = r->ref.knobs.kver < SR_KV(4, 15),
		.wf_sync = SR_WF_SYNC, .wf_fork = SR_WF_FORK, .wf_ttwu = SR_WF_TTWU,
		.wf_exec = SR_WF_EXEC,
		.nr_policies = r->nr_policies,
		.hooks = { .data = r, .placement = hook_placement, .wakeup = hook_wakeup,
			   .run = hook_run },
	};
	ret = sr_state_init(&r->state, &cfg);
	if (ret)
		return sr_err_set(err, ret, "cannot set up state (%s)", strerror(-ret));
	return setup_analyses(r, err);
}

int sr_run_open(struct sr_run *r, const struct sr_run_opts *o, struct sr_err *err)
{
	const struct sr_trace_opts to = { .path = o->path, .buffer = o->buffer, .watch = o->watch,
					  .threads = o->threads };
	int ret;

	memset(r, 0, sizeof(*r));
	ret = sr_trace_open_opts(&r->trace, &to, err);
	if (ret)
		return ret;
	return sr_run_init(r, o, sr_trace_info(r->trace), err);
}

int sr_run_feed(struct sr_run *r, const struct sr_event *ev)
{
	return on_event(ev, r);
}

/* "CPU 3" or "CPUs 0-2,5", for a warning about several CPUs at once. */
static const char *cpus_text(const struct sr_cpumask *m, char *buf, size_t size)
{
	int n = snprintf(buf, size, "CPU%s ", sr_mask_weight(m) > 1 ? "s" : "");

	if (n < 0 || (size_t)n >= size || sr_cpulist_format(m, buf + n, size - (size_t)n))
		snprintf(buf, size, "%d CPUs", sr_mask_weight(m));
	return buf;
}

/* What the file's kernel buffer statistics say that the records alone do not. */
static void check_cpustats(struct sr_run *r)
{
	struct sr_cpumask unread, overran;
	long long handed = 0, read = 0, over = 0, dropped = 0;
	char buf[256];

	sr_mask_clear(&unread);
	sr_mask_clear(&overran);
	for (int c = 0; c < r->info->nr_cpus; c++) {
		const struct sr_cpu_ingest *ci = &r->info->cpu[c];

		if (ci->stat_read >= 0 && (long long)ci->records < ci->stat_read) {
			sr_mask_set(&unread, c);
			handed += ci->stat_read;
			read += (long long)ci->records;
		}
		if (ci->stat_overrun > 0 || ci->stat_dropped > 0) {
			sr_mask_set(&overran, c);
			over += ci->stat_overrun > 0 ? ci->stat_overrun : 0;
			dropped += ci->stat_dropped > 0 ? ci->stat_dropped : 0;
		}
	}
	if (sr_mask_weight(&unread))
		sr_run_warn(r, "%s: the kernel handed %lld events to the recorder but only %lld "
			    "could be read from the file (data corrupt or missing); numbers "
			    "involving these CPUs are incomplete",
			    cpus_text(&unread, buf, sizeof(buf)), handed, read);
	if (sr_mask_weight(&overran))
		sr_run_warn(r, "%s: the ring buffer overran (%lld) or dropped (%lld) events before "
			    "they were read", cpus_text(&overran, buf, sizeof(buf)), over, dropped);
}

/* CPUs that went offline (hotplug) meanwhile, as the state recognised them. */
static void check_offline(struct sr_run *r)
{
	for (int c = 0; c < r->info->nr_cpus; c++) {
		const struct sr_cpu_state *cs = &r->state.cpu[c];

		if (!cs->offlines)
			continue;
		sr_run_warn(r, "CPU %d was taken offline (CPU hotplug) %u time(s), %.3f s in all: "
			    "it ran its stopper (migration/%d) and recorded nothing from %.6f to "
			    "%.6f s; that time counts as unknown, not busy, and no model could "
			    "place a task there", c, cs->offlines, (double)cs->offline_ns / 1e9, c,
			    (double)cs->offline_from / 1e9, (double)cs->offline_to / 1e9);
	}
}

/* Trace strings that were not text (comm cut inside a character, raw bytes): said once. */
static void check_strings(struct sr_run *r)
{
	const struct sr_trace_info *info = r->info;
	bool uname = !sr_utf8_valid(info->uname), clock = !sr_utf8_valid(info->clock);

	if (!info->bad_utf8 && !uname && !clock)
		return;
	sr_run_warn(r, "strings in the trace that are not valid UTF-8 are shown with U+FFFD in "
		    "place of each invalid sequence: the task names (comm) of %llu events%s%s "
		    "(the kernel cuts comm at 15 bytes, even inside a character, and "
		    "prctl(PR_SET_NAME) takes any bytes)", (unsigned long long)info->bad_utf8,
		    uname ? ", the uname" : "", clock ? ", the clock name" : "");
}

/* The machine stalled its CPUs: say how that changed the loads the models read. */
static void check_ticks(struct sr_run *r)
{
	uint64_t late = r->state.tick_late_ns, jiffy = SR_NSEC_PER_SEC / (uint64_t)r->state.cfg.hz;

	if (late <= jiffy)
		return;
	sr_run_warn(r, "wakeups queued to another CPU arrived late (%.0fth percentile %.1f ms over "
		    "%llu): the CPUs stall, as on an overcommitted VM, and so do their ticks; a busy "
		    "CPU's load is read as of its last update seen up to %.1f ms before",
		    SR_TICK_LATE_PCT, (double)sr_hist_pct(&r->state.ipi_late, SR_TICK_LATE_PCT) / 1e6,
		    (unsigned long long)r->state.ipi_late.count, (double)late / 1e6);
}

void sr_run_end(struct sr_run *r, uint64_t end)
{
	sr_state_finish(&r->state, end);
	if (!r->stopped)	/* the kernel's counts are the whole trace's */
		check_cpustats(r);
	check_offline(r);
	check_strings(r);
	check_ticks(r);
	if (r->info->has_format[SR_EV_WAKING] && !r->info->events[SR_EV_WAKING] &&
	    r->info->events[SR_EV_WAKEUP])
		sr_run_warn(r, "sched_waking format present but no sched_waking event: every "
			    "sched_wakeup was counted unpaired");
	if (r->state.affinity_broken)
		sr_run_warn(r, "%llu task(s) ran on a CPU their affinity (the snapshot's or "
			    "--affinity) excludes: it changed during the trace (sched_setaffinity(), a "
			    "cpuset), which no event shows; each was taken to allow every CPU from then on",
			    (unsigned long long)r->state.affinity_broken);
	if (!r->state.wc.cls[SR_W_PLACED] && !r->state.wc.cls[SR_W_RUNNABLE])
		sr_run_warn(r, "no wakeup could be classified in this trace");
	if (r->info->events_no_format)
		sr_run_warn(r, "%llu records are of events whose format the file does not hold "
			    "(the recorder kept their data, not their formats): they were skipped "
			    "as unknown", (unsigned long long)r->info->events_no_format);
	warn_dropped(r);
}

int sr_run_exec(struct sr_run *r, struct sr_err *err)
{
	int ret = sr_trace_iterate(r->trace, on_event, r, err);

	if (ret == -ENOMEM)
		return sr_err_set(err, ret, "out of memory while reading the trace");
	if (ret && !(ret == RUN_STOP && r->stopped))
		return ret;
	if (r->stopped)
		sr_run_warn(r, "explain read the trace up to %" PRIu64 ".%09" PRIu64 " s (%" PRIu64
			    " events), all that its answer needs: the trace section describes that part",
			    (uint64_t)(r->info->last_ts / SR_NSEC_PER_SEC),
			    (uint64_t)(r->info->last_ts % SR_NSEC_PER_SEC),
			    r->nr_events);
	sr_run_end(r, r->info->last_ts);
	return 0;
}

void sr_run_close(struct sr_run *r)
{
	for (int i = 0; r->an && i < r->nr_an; i++)
		if (r->an[i].data && r->an[i].ops->fini)
			r->an[i].ops->fini(&r->an[i]);
	free(r->an);
	free(r->hooked[0]);
	for (int i = 0; i < r->nr_warnings; i++)
		free(r->warnings[i]);
	sr_state_fini(&r->state);
	free(r->scratch);
	sr_topo_free(&r->topo);
	free(r->affinity);
	sr_trace_close(r->trace);
	memset(r, 0, sizeof(*r));
}
