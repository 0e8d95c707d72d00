// SPDX-License-Identifier: GPL-2.0
/*
 * mksynth OUT.dat NR_CPUS NR_EVENTS: a SYNTHETIC trace of a busy machine of
 * NR_CPUS CPUs, for throughput only (make bench: per-wakeup cost against
 * CPU count).  Every CPU runs a pair of tasks that wake each other, pipe
 * style: sched_waking and sched_wakeup of the sleeper on the CPU, then
 * the switch to it, the CPUs taking turns a microsecond apart.  The
 * events are made as the kernel lays them out in its ring-buffer pages,
 * with the field offsets of this machine's tracefs formats, and written
 * through the writer `schedreplay record` uses (sr_trace_write_files()),
 * with the writer option "mksynth (synthetic)".  No kernel made them.
 *
 * Run it as root where tracefs is mounted.  Exit 0 written, 1 failure.
 */
#define _GNU_SOURCE		/* asprintf */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tracefs.h>
#include "trace.h"

#define PAGE		4096
#define PAGE_HDR	16		/* u64 time_stamp, local_t commit */
#define STEP_NS		1000		/* one CPU's turn after another's */

/* One CPU's stream: the page being filled and its file. */
struct stream {
	FILE *f;
	uint8_t page[PAGE];
	size_t used;
	uint64_t last_ts;
};

static int flush_page(struct stream *s)
{
	uint64_t commit = s->used - PAGE_HDR;

	if (s->used <= PAGE_HDR)
		return 0;
	memcpy(s->page + 8, &commit, 8);
	memset(s->page + s->used, 0, PAGE - s->used);
	s->used = 0;
	return fwrite(s->page, 1, PAGE, s->f) == PAGE ? 0 : -EIO;
}

/* Room for an event of @len payload bytes at @ts: a new page when full. */
static uint8_t *put_event(struct stream *s, uint64_t ts, size_t len)
{
	size_t need = 4 + (len + 3) / 4 * 4;
	uint32_t hdr;

	if (s->used && s->used + need > PAGE && flush_page(s))
		return NULL;
	if (!s->used) {
		memcpy(s->page, &ts, 8);
		s->used = PAGE_HDR;
		s->last_ts = ts;
	}
	/* type_len (words of data, up to 28) in the low 5 bits, the delta above */
	hdr = (uint32_t)((len + 3) / 4) | (uint32_t)((ts - s->last_ts) << 5);
	memcpy(s->page + s->used, &hdr, 4);
	s->last_ts = ts;
	s->used += need;
	memset(s->page + s->used - need + 4, 0, need - 4);
	return s->page + s->used - need + 4;
}

static void set_num(struct tep_event *ev, uint8_t *rec, const char *name, long long v)
{
	struct tep_format_field *f = tep_find_any_field(ev, name);

	if (f && f->size <= 8)
		memcpy(rec + f->offset, &v, (size_t)f->size);	/* little-endian host */
}

static void set_str(struct tep_event *ev, uint8_t *rec, const char *name, const char *s)
{
	struct tep_format_field *f = tep_find_field(ev, name);

	if (f)
		strncpy((char *)rec + f->offset, s, (size_t)f->size);
}

/* The record's size: where its last field ends. */
static size_t rec_size(const struct tep_event *ev)
{
	size_t end = 0;

	for (const struct tep_format_field *f = ev->format.fields; f; f = f->next)
		if ((size_t)(f->offset + f->size) > end)
			end = (size_t)(f->offset + f->size);
	return end;
}

static uint8_t *event(struct stream *s, struct tep_event *ev, uint64_t ts, int common_pid)
{
	uint8_t *rec = put_event(s, ts, rec_size(ev));

	if (rec) {
		set_num(ev, rec, "common_type", ev->id);
		set_num(ev, rec, "common_pid", common_pid);
	}
	return rec;
}

static int pid_of(int cpu, int which)
{
	return 1000 + 2 * cpu + which;
}

static void comm_of(int pid, char comm[16])
{
	snprintf(comm, 16, "synth-%u", (unsigned int)pid % 1000000u);
}

static int sw(struct stream *s, struct tep_event *ev, uint64_t ts, int prev, long state, int next)
{
	uint8_t *r = event(s, ev, ts, prev);
	char c[16];

	if (!r)
		return -EIO;
	comm_of(prev, c);
	set_str(ev, r, "prev_comm", prev ? c : "swapper");
	set_num(ev, r, "prev_pid", prev);
	set_num(ev, r, "prev_prio", 120);
	set_num(ev, r, "prev_state", state);
	comm_of(next, c);
	set_str(ev, r, "next_comm", c);
	set_num(ev, r, "next_pid", next);
	set_num(ev, r, "next_prio", 120);
	return 0;
}

static int wake(struct stream *s, struct tep_event *ev, uint64_t ts, int waker, int pid, int cpu)
{
	uint8_t *r = event(s, ev, ts, waker);
	char c[16];

	if (!r)
		return -EIO;
	comm_of(pid, c);
	set_str(ev, r, "comm", c);
	set_num(ev, r, "pid", pid);
	set_num(ev, r, "prio", 120);
	set_num(ev, r, "target_cpu", cpu);
	set_num(ev, r, "success", 1);
	return 0;
}

/* Every CPU's pair, a step at a time: 3 events (waking, wakeup, switch) a step. */
static int generate(struct stream *st, int n, long long nr_events, struct tep_event **ev)
{
	uint64_t t = 1000000000ULL;
	int *cur = calloc((size_t)n, sizeof(*cur)), ret = 0;

	if (!cur)
		return -ENOMEM;
	for (int c = 0; !ret && c < n; c++)
		ret = sw(&st[c], ev[0], t + (uint64_t)c, 0, 0, pid_of(c, 0));
	t += (uint64_t)n + STEP_NS;
	for (long long i = 0; !ret && i * 3 < nr_events; i++, t += STEP_NS) {
		int c = (int)(i % n), run = pid_of(c, cur[c]), other = pid_of(c, !cur[c]);

		ret = wake(&st[c], ev[1], t, run, other, c);
		ret = ret ? ret : wake(&st[c], ev[2], t + 100, run, other, c);
		ret = ret ? ret : sw(&st[c], ev[0], t + 200, run, 1 /* S */, other);
		cur[c] = !cur[c];
	}
	free(cur);
	return ret;
}

static const char *const events[] = {
	"sched/sched_switch", "sched/sched_waking", "sched/sched_wakeup", NULL,
};

static int write_trace(const char *out, int n, char **files, const char *dir)
{
	struct sr_err err = { "" };
	bool *has = calloc((size_t)n, sizeof(*has));
	char kallsyms[128];
	struct sr_trace_out o = { .path = out, .nr_cpus = n, .has_buffer = has, .clock = "local",
				  .writer = "mksynth (synthetic)", .events = events,
				  .kallsyms = kallsyms };
	int ret;

	if (!has)
		return -ENOMEM;
	for (int c = 0; c < n; c++)
		has[c] = true;
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", dir);
	fclose(fopen(kallsyms, "w"));
	ret = sr_trace_write_files(&o, files, &err);
	if (ret)
		fprintf(stderr, "mksynth: %s\n", err.msg);
	unlink(kallsyms);
	free(has);
	return ret;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "sched_switch", "sched_waking", "sched_wakeup" };
	struct tep_handle *tep = tracefs_local_events(NULL);
	char dir[] = "/tmp/mksynth-XXXXXX", **files;
	struct tep_event *ev[3];
	struct stream *st;
	int n, ret = 0;

	if (argc != 4 || (n = atoi(argv[2])) < 1 || n > SR_MAX_CPUS || atoll(argv[3]) < 1) {
		fprintf(stderr, "usage: mksynth OUT.dat NR_CPUS (1..%d) NR_EVENTS\n", SR_MAX_CPUS);
		return 1;
	}
	for (int i = 0; i < 3; i++)
		if (!tep || !(ev[i] = tep_find_event_by_name(tep, "sched", names[i]))) {
			fprintf(stderr, "mksynth: no sched/%s format in tracefs\n", names[i]);
			return 1;
		}
	files = calloc((size_t)n, sizeof(*files));
	st = calloc((size_t)n, sizeof(*st));
	if (!files || !st || !mkdtemp(dir))
		return 1;
	for (int c = 0; !ret && c < n; c++) {
		if (asprintf(&files[c], "%s/cpu%d", dir, c) < 0 || !(st[c].f = fopen(files[c], "wb")))
			ret = -errno;
	}
	ret = ret ? ret : generate(st, n, atoll(argv[3]), ev);
	for (int c = 0; c < n; c++)
		if (st[c].f && ((!ret && flush_page(&st[c])) | fclose(st[c].f)))
			ret = -EIO;
	ret = ret ? ret : write_trace(argv[1], n, files, dir);
	for (int c = 0; c < n; c++) {
		if (files[c])
			unlink(files[c]);
		free(files[c]);
	}
	rmdir(dir);
	tep_free(tep);
	return ret ? 1 : 0;
}
