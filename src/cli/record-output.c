// SPDX-License-Identifier: GPL-2.0
/*
 * record: the instance's ring buffers streamed to disk while recording
 * (one reader per CPU, src/ingest/trace-stream.c), then assembled into
 * FILE.  Only the formats of the events recorded are stored, and no kallsyms
 * unless --kallsyms: a few KiB of headers instead of megabytes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "record.h"

/* The CPUs that have a ring buffer in the instance (offline ones do not). */
static bool *buffers(const struct rec *r)
{
	bool *has = calloc(r->nr_cpus, sizeof(*has));

	for (int cpu = 0; has && cpu < r->nr_cpus; cpu++)
		has[cpu] = r->base[cpu].valid;
	return has;
}

int sr_rec_stream_start(struct rec *r)
{
	struct sr_err err = { "" };
	bool *has = buffers(r);
	struct sr_stream_opts so = {
		.inst = r->inst, .nr_cpus = r->nr_cpus, .has_buffer = has, .near = r->o->out,
		.notify_signal = REC_SIG_READER,
	};
	int ret;

	if (!has)
		return sr_rec_fail(r, SR_EXIT_FAIL, -ENOMEM, "out of memory");
	ret = sr_stream_start(&r->stream, &so, &err);
	free(has);
	return ret ? sr_rec_fail(r, SR_EXIT_FAIL, ret, "%s", err.msg) : 0;
}

int sr_rec_stream_stop(struct rec *r)
{
	struct sr_err err = { "" };
	int ret = sr_stream_stop(r->stream, &err);

	r->bytes = sr_stream_bytes(r->stream);
	return ret ? sr_rec_fail(r, SR_EXIT_FAIL, ret, "%s", err.msg) : 0;
}

/*
 * x86-tsc counts cycles: store the kernel's own cycles-to-ns factors (what
 * perf gives user space in its mmap page) so readers convert, as
 * `trace-cmd record --tsc2nsec` does.  The same on every CPU, or none.
 */
static bool tsc_to_ns(int nr_cpus, uint32_t *mult, uint32_t *shift)
{
	struct perf_event_attr pe = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(pe),
				      .config = PERF_COUNT_SW_DUMMY };
	long ps = sysconf(_SC_PAGESIZE);

	*mult = *shift = 0;
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		int fd = (int)syscall(SYS_perf_event_open, &pe, 0, cpu, -1, 0);
		struct perf_event_mmap_page *p;
		bool same;

		if (fd < 0)
			return false;
		p = mmap(NULL, ps, PROT_READ, MAP_SHARED, fd, 0);
		close(fd);
		if (p == MAP_FAILED)
			return false;
		same = p->cap_user_time && (!cpu || (p->time_mult == *mult &&
						     p->time_shift == *shift));
		*mult = p->time_mult;
		*shift = p->time_shift;
		munmap(p, ps);
		if (!same)
			return false;
	}
	return *mult != 0;
}

/* "sched/sched_switch", ...: the events whose formats FILE stores. */
static const char **event_names(const struct rec *r)
{
	size_t n = json_array_size(r->events);
	const char **names = calloc(n + 1, sizeof(*names));

	for (size_t i = 0; names && i < n; i++)
		names[i] = json_string_value(json_array_get(r->events, i));
	return names;
}

int sr_rec_write_trace(struct rec *r)
{
	struct sr_err err = { "" };
	bool *has = buffers(r);
	const char **names = event_names(r);
	struct sr_trace_out out = {
		.path = r->o->out, .inst = r->inst, .nr_cpus = r->nr_cpus, .has_buffer = has,
		.clock = r->o->clock, .writer = "schedreplay " SR_VERSION, .events = names,
		.kallsyms = r->o->kallsyms ? "/proc/kallsyms" : NULL,
	};
	uint32_t tsc[4] = { 0 };
	struct sr_trace_option opt = { SR_OPT_TSC2NSEC, sizeof(tsc), tsc };
	int ret = -ENOMEM;

	if (!strcmp(r->o->clock, "x86-tsc")) {
		if (tsc_to_ns(r->nr_cpus, &tsc[0], &tsc[1])) {
			out.options = &opt;
			out.nr_options = 1;
		} else {
			fprintf(stderr, "schedreplay: no TSC-to-ns conversion from perf: analyze "
				"will refuse this x86-tsc trace\n");
		}
	}
	if (has && names)
		ret = sr_stream_write(r->stream, &out, &err);
	free(has);
	free(names);
	if (ret == -ENOMEM && !err.msg[0])
		return sr_rec_fail(r, SR_EXIT_FAIL, ret, "out of memory");
	return ret ? sr_rec_fail(r, SR_EXIT_FAIL, ret, "%s", err.msg) : 0;
}

static int count_none(const struct sr_event *ev, void *data)
{
	return 0;
}

/* "CPU 3 holds 10 of 12 events read" for the first CPU short of events, or "". */
static void first_short(const struct rec *r, const struct sr_trace_info *info, char *buf,
			size_t size)
{
	buf[0] = '\0';
	for (int cpu = 0; cpu < r->nr_cpus && cpu < info->nr_cpus; cpu++) {
		unsigned long long want = r->stat[cpu].read - (r->base[cpu].valid ?
							      r->base[cpu].read : 0);

		if (r->stat[cpu].valid && info->cpu[cpu].records < want) {
			snprintf(buf, size, "CPU %d's data holds %llu of the %llu events the kernel "
				 "handed its reader", cpu,
				 (unsigned long long)info->cpu[cpu].records, want);
			return;
		}
	}
}

/*
 * libtracecmd's recorder ignores a failed write in its final flush (a full
 * disk), so a FILE short of events would look complete: read it back and
 * count, and never report an incomplete FILE as written.
 */
int sr_rec_verify(struct rec *r)
{
	struct sr_err err = { "" };
	struct sr_trace *t;
	char why[160] = "";
	int ret;
	const struct sr_trace_opts to = { .path = r->o->out, .any_clock = true };

	ret = sr_trace_open_opts(&t, &to, &err);
	if (!ret)
		ret = sr_trace_iterate(t, count_none, NULL, &err);
	if (!ret)
		first_short(r, sr_trace_info(t), why, sizeof(why));
	sr_trace_close(t);
	if (!ret && !why[0])
		return 0;
	unlink(r->o->out);
	return sr_rec_fail(r, SR_EXIT_FAIL, ret ? ret : -EIO, "%s is incomplete and was removed: "
			   "%s (a full disk?)", r->o->out, ret ? err.msg : why);
}

void sr_rec_stream_free(struct rec *r)
{
	sr_stream_free(r->stream);
	r->stream = NULL;
}
