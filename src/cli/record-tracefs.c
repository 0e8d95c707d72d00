// SPDX-License-Identifier: GPL-2.0
/*
 * record: the private tracefs instance — found or mounted tracefs, a clock
 * and buffer size, the sched events enabled, per-CPU loss counters read
 * before and after, and all of it undone afterwards.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include "record.h"

/* Mount tracefs where libtracefs looks first, remembering to unmount it. */
static int find_tracefs(struct rec *r)
{
	char dir[PATH_MAX];

	if (!sr_find_mount("tracefs", dir, sizeof(dir))) {
		if (mount("nodev", TRACEFS_PATH, "tracefs", 0, NULL))
			return sr_rec_fail(r, SR_EXIT_FAIL, -errno, "cannot mount tracefs on %s: %s",
				    TRACEFS_PATH, strerror(errno));
		r->mounted_tracefs = true;
	}
	if (!tracefs_tracing_dir())
		return sr_rec_fail(r, SR_EXIT_FAIL, -ENODEV, "tracefs not found");
	return 0;
}

/* Is @clock one of the words of trace_clock ("[local] global counter ...")? */
static bool clock_listed(const char *clocks, const char *clock)
{
	size_t n = strlen(clock);
	const char *p = clocks;

	while ((p = strstr(p, clock))) {
		bool start = p == clocks || p[-1] == ' ' || p[-1] == '[';
		bool end = !p[n] || p[n] == ' ' || p[n] == ']' || p[n] == '\n';

		if (start && end)
			return true;
		p += n;
	}
	return false;
}

static int check_clock(struct rec *r)
{
	char *clocks = tracefs_instance_file_read(NULL, "trace_clock", NULL);
	int ret = 0;

	if (!clocks)
		return sr_rec_fail(r, SR_EXIT_FAIL, sr_rec_neg_errno(), "cannot read trace_clock");
	if (!clock_listed(clocks, r->o->clock)) {
		clocks[strcspn(clocks, "\n")] = '\0';
		ret = sr_rec_fail(r, SR_EXIT_BAD_INPUT, -EINVAL, "unknown trace clock '%s' (this "
			   "kernel has: %s)", r->o->clock, clocks);
	}
	free(clocks);
	return ret;
}

static int create_instance(struct rec *r)
{
	if (r->o->instance)
		snprintf(r->name, sizeof(r->name), "%s", r->o->instance);
	else
		snprintf(r->name, sizeof(r->name), "schedreplay-%d", (int)getpid());
	r->inst = tracefs_instance_create(r->name);
	if (!r->inst)
		return sr_rec_fail(r, SR_EXIT_FAIL, sr_rec_neg_errno(), "cannot create tracefs instance %s: %s",
			    r->name, strerror(errno));
	if (!tracefs_instance_is_new(r->inst)) {
		/* Not ours: never configure, let alone destroy, someone else's instance. */
		tracefs_instance_free(r->inst);
		r->inst = NULL;
		return sr_rec_fail(r, SR_EXIT_FAIL, -EEXIST, "tracefs instance %s already exists "
			    "(left by a crashed run? rmdir it)", r->name);
	}
	return 0;
}

static long mem_available_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return -1;
	while (kb < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld kB", &kb) != 1)
			kb = -1;
	fclose(f);
	return kb;
}

/* 32 MiB per CPU records minutes of busy scheduling; big machines get less. */
static long default_buffer_kb(int nr_cpus)
{
	long avail = mem_available_kb(), kb = REC_DEFAULT_KB;

	if (avail > 0 && kb * nr_cpus > avail / 4)
		kb = avail / 4 / nr_cpus;
	return kb < 1024 ? 1024 : kb;
}

/*
 * The trace.dat records one page size for the top-level buffer, taken
 * from the top instance; make our instance's sub-buffers the same size.
 */
static int match_subbuf_size(struct rec *r)
{
	long long top, ours;
	char val[32];

	if (!tracefs_file_exists(r->inst, "buffer_subbuf_size_kb") ||
	    tracefs_instance_file_read_number(NULL, "buffer_subbuf_size_kb", &top) ||
	    tracefs_instance_file_read_number(r->inst, "buffer_subbuf_size_kb", &ours))
		return 0;	/* kernels before 6.8 have one size */
	if (top == ours)
		return 0;
	snprintf(val, sizeof(val), "%lld", top);
	if (tracefs_instance_file_write(r->inst, "buffer_subbuf_size_kb", val) < 0)
		return sr_rec_fail(r, SR_EXIT_FAIL, sr_rec_neg_errno(), "cannot set buffer_subbuf_size_kb");
	return 0;
}

/* What the analysis needs; sched_waking is missing before 4.3 only. */
static const struct {
	const char *name;
	bool optional;
} sched_events[] = {
	{ "sched_switch", false }, { "sched_waking", true }, { "sched_wakeup", false },
	{ "sched_wakeup_new", false }, { "sched_migrate_task", false },
	{ "sched_process_fork", false }, { "sched_process_exit", false },
	{ "sched_process_exec", false },
};

static int enable_event(struct rec *r, const char *name)
{
	char full[64];

	if (tracefs_event_file_write(r->inst, "sched", name, "enable", "1") < 0)
		return sr_rec_fail(r, SR_EXIT_FAIL, sr_rec_neg_errno(), "cannot enable sched/%s: %s", name,
			    strerror(errno));
	snprintf(full, sizeof(full), "sched/%s", name);
	return json_array_append_new(r->events, json_string(full)) ? -ENOMEM : 0;
}

static int enable_events(struct rec *r)
{
	int ret = 0;

	r->events = json_array();
	if (!r->events)
		return sr_rec_fail(r, SR_EXIT_FAIL, -ENOMEM, "out of memory");
	for (size_t i = 0; !ret && i < sizeof(sched_events) / sizeof(sched_events[0]); i++) {
		const char *name = sched_events[i].name;

		if (tracefs_event_file_exists(r->inst, "sched", name, "enable"))
			ret = enable_event(r, name);
		else if (sched_events[i].optional)
			fprintf(stderr, "schedreplay: this kernel has no sched/%s event\n", name);
		else
			ret = sr_rec_fail(r, SR_EXIT_FAIL, -ENOENT, "this kernel has no sched/%s event",
				   name);
	}
	if (ret || !r->o->stat_runtime)
		return ret;
	if (tracefs_event_file_exists(r->inst, "sched", "sched_stat_runtime", "enable"))
		return enable_event(r, "sched_stat_runtime");
	fprintf(stderr, "schedreplay: --stat-runtime: this kernel has no sched/sched_stat_runtime"
		" event\n");
	return 0;
}

static unsigned long long stat_field(const char *text, const char *key)
{
	size_t n = strlen(key);
	const char *p = text;

	/* "key: value" lines; "overrun" must not match "commit overrun". */
	while (p && *p) {
		if (!strncmp(p, key, n) && p[n] == ':')
			return strtoull(p + n + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

/* Read every CPU's stats into @st; a CPU without a buffer stays !valid. */
int sr_rec_read_stats(struct rec *r, struct cpu_stat *st)
{
	char file[64];

	for (int cpu = 0; cpu < r->nr_cpus; cpu++) {
		char *text;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
		st[cpu].valid = false;
		if (!tracefs_file_exists(r->inst, file))
			continue;
		text = tracefs_instance_file_read(r->inst, file, NULL);
		if (!text)
			return sr_rec_fail(r, SR_EXIT_FAIL, sr_rec_neg_errno(), "cannot read %s", file);
		st[cpu] = (struct cpu_stat) {
			.valid = true,
			.entries = stat_field(text, "entries"),
			.overrun = stat_field(text, "overrun"),
			.commit_overrun = stat_field(text, "commit overrun"),
			.dropped = stat_field(text, "dropped events"),
			.read = stat_field(text, "read events"),
		};
		free(text);
	}
	return 0;
}

static int setup_instance(struct rec *r)
{
	const struct rec_opts *o = r->o;
	int ret;

	if (tracefs_trace_off(r->inst) ||
	    tracefs_instance_file_write(r->inst, "trace_clock", o->clock) < 0)
		return sr_rec_fail(r, SR_EXIT_FAIL, sr_rec_neg_errno(), "cannot set up instance %s: %s",
			    r->name, strerror(errno));
	ret = match_subbuf_size(r);
	if (ret)
		return ret;
	r->buffer_kb = o->buffer_kb ? o->buffer_kb : default_buffer_kb(r->nr_cpus);
	if (tracefs_instance_set_buffer_size(r->inst, r->buffer_kb, -1))
		return sr_rec_fail(r, SR_EXIT_FAIL, sr_rec_neg_errno(), "cannot size the ring buffer to %ld KiB "
			    "x %d CPUs: %s (try a smaller -b)", r->buffer_kb, r->nr_cpus,
			    strerror(errno));
	ret = enable_events(r);
	if (!ret && o->probes)
		ret = sr_rec_probes_setup(r);
	if (ret)
		return ret;
	/* Clearing also resets the per-CPU counters; keep a baseline anyway. */
	if (tracefs_instance_file_clear(r->inst, "trace"))
		return sr_rec_fail(r, SR_EXIT_FAIL, sr_rec_neg_errno(), "cannot clear instance %s", r->name);
	return sr_rec_read_stats(r, r->base);
}

int sr_rec_setup(struct rec *r)
{
	int ret;

	r->nr_cpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (r->nr_cpus <= 0)
		return sr_rec_fail(r, SR_EXIT_FAIL, -EINVAL, "cannot count CPUs");
	r->base = calloc(r->nr_cpus, sizeof(*r->base));
	r->stat = calloc(r->nr_cpus, sizeof(*r->stat));
	if (!r->base || !r->stat)
		return sr_rec_fail(r, SR_EXIT_FAIL, -ENOMEM, "out of memory");
	ret = find_tracefs(r);
	if (!ret)
		ret = check_clock(r);
	if (!ret)
		ret = create_instance(r);
	if (!ret)
		ret = setup_instance(r);
	return ret;
}

/* Loss counters over the run: the counts after minus the counts before. */
void sr_rec_count_lost(struct rec *r)
{
	for (int cpu = 0; cpu < r->nr_cpus; cpu++) {
		struct cpu_stat *s = &r->stat[cpu];
		const struct cpu_stat *b = &r->base[cpu];

		if (!s->valid)
			continue;
		if (b->valid) {
			s->overrun -= b->overrun < s->overrun ? b->overrun : s->overrun;
			s->commit_overrun -= b->commit_overrun < s->commit_overrun ?
					     b->commit_overrun : s->commit_overrun;
			s->dropped -= b->dropped < s->dropped ? b->dropped : s->dropped;
		}
		r->lost += s->overrun + s->commit_overrun + s->dropped;
	}
}

/* Undo everything sr_rec_setup() did; safe after a partial setup. */
void sr_rec_teardown(struct rec *r)
{
	if (r->inst) {
		tracefs_trace_off(r->inst);
		if (tracefs_instance_destroy(r->inst))
			fprintf(stderr, "schedreplay: cannot remove tracefs instance %s: %s\n",
				r->name, strerror(errno));
		tracefs_instance_free(r->inst);
		r->inst = NULL;
	}
	sr_rec_probes_teardown(r);
	if (r->mounted_tracefs && umount(TRACEFS_PATH))
		fprintf(stderr, "schedreplay: cannot unmount %s: %s\n", TRACEFS_PATH,
			strerror(errno));
	r->mounted_tracefs = false;
}
