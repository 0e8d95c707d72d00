// SPDX-License-Identifier: GPL-2.0
/*
 * mkwide IN.dat OUT.dat NR_CPUS [tsc2nsec|guest]: the same recording as a
 * machine of NR_CPUS CPUs, for traces of machines wider than 64 and 1024
 * CPUs.  Each CPU's
 * ring-buffer pages are copied as they are (tracecmd_record_page()) and
 * written, through the writer `schedreplay record` uses
 * (sr_trace_write_files()), as the same CPU of the wider machine; the other
 * CPUs hold no data, as idle or quiet CPUs do.  The events stay true: they
 * name only the CPUs that recorded them.
 *
 * Run it as root on the machine IN was recorded on: the writer stores that
 * kernel's event formats from tracefs, as record does.  The file keeps IN's
 * clock; with "tsc2nsec" (for an x86-tsc IN) it also stores the TSC-to-ns
 * factors this machine's TSC runs at, measured against CLOCK_MONOTONIC, as
 * `trace-cmd record --tsc2nsec` stores perf's where perf gives them; with
 * "uname=STRING" it names another kernel (a release whose era gates the
 * replay then follows: the events stay the recorded kernel's); with
 * "guest" it is also a guest's trace synchronised to its host's time, as
 * `trace-cmd record -A` writes it: a TIME_SHIFT option moves every CPU's
 * timestamps by one sampled offset (here 10^9 cycles, the same on each).
 *
 * Exit status: 0 written, 1 failure (message on stderr).
 */
#define _GNU_SOURCE		/* asprintf */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <trace-cmd/trace-cmd.h>
#include "trace.h"

void *tracecmd_record_page(struct tracecmd_input *handle, struct tep_record *record);
const char *tracecmd_get_trace_clock(struct tracecmd_input *handle);
int tracecmd_page_size(struct tracecmd_input *handle);
int tracecmd_cpus(struct tracecmd_input *handle);
const char *tracecmd_get_uname(struct tracecmd_input *handle);

/* Copy every page of @cpu, once each, to @path (empty for a CPU @h lacks). */
static int copy_pages(struct tracecmd_input *h, int cpu, const char *path)
{
	FILE *f = fopen(path, "wb");
	struct tep_record *rec;
	void *last = NULL;
	int ps = tracecmd_page_size(h), ret = 0;

	if (!f)
		return -errno;
	for (rec = tracecmd_read_cpu_first(h, cpu); rec; rec = tracecmd_read_data(h, cpu)) {
		void *page = tracecmd_record_page(h, rec);

		if (page && page != last && fwrite(page, 1, (size_t)ps, f) != (size_t)ps)
			ret = -EIO;
		last = page;
		tracecmd_free_record(rec);
	}
	return fclose(f) || ret ? -EIO : 0;
}

/* TSC cycles to ns as mult >> shift, from 200 ms of this CPU's TSC. */
static void tsc_factors(uint32_t *mult, uint32_t *shift)
{
	struct timespec a, b, d = { 0, 200000000 };
	uint64_t t0, t1;
	double ns;

	clock_gettime(CLOCK_MONOTONIC, &a);
	t0 = __builtin_ia32_rdtsc();
	nanosleep(&d, NULL);
	t1 = __builtin_ia32_rdtsc();
	clock_gettime(CLOCK_MONOTONIC, &b);
	ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
	*shift = 22;
	*mult = (uint32_t)(ns / (double)(t1 - t0) * (double)(1u << 22) + 0.5);
}

/*
 * TIME_SHIFT (trace-cmd.dat(5)): u64 peer trace id, u32 flags, u32 CPU
 * count, then per CPU: u32 samples, u64 times[], u64 offsets[], u64
 * scalings[]; then per CPU the u64 fraction bits[] of each sample.
 */
static size_t time_shift(uint8_t *buf, int nr_cpus)
{
	uint8_t *p = buf;
	uint64_t one = 1, offset = 1000000000ULL, zero = 0;
	uint32_t n = (uint32_t)nr_cpus, samples = 1;

	memcpy(p, &zero, 8), p += 8;
	memcpy(p, &zero, 4), p += 4;
	memcpy(p, &n, 4), p += 4;
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		memcpy(p, &samples, 4), p += 4;
		memcpy(p, &zero, 8), p += 8;		/* sampled at time 0 */
		memcpy(p, &offset, 8), p += 8;
		memcpy(p, &one, 8), p += 8;
	}
	for (int cpu = 0; cpu < nr_cpus; cpu++)
		memcpy(p, &zero, 8), p += 8;
	return (size_t)(p - buf);
}

static const char *const events[] = {
	"sched/sched_switch", "sched/sched_waking", "sched/sched_wakeup",
	"sched/sched_wakeup_new", "sched/sched_migrate_task", "sched/sched_process_fork",
	"sched/sched_process_exit", "sched/sched_process_exec", "sched/sched_stat_runtime", NULL,
};

int main(int argc, char **argv)
{
	struct tracecmd_input *h;
	struct sr_err err = { "" };
	char dir[] = "/tmp/mkwide-XXXXXX", **files;
	bool *has;
	int n, in_cpus, ret = 0;

	if (argc < 4 || argc > 5 || (n = atoi(argv[3])) < 1 || n > 2 * SR_MAX_CPUS) {
		fprintf(stderr, "usage: mkwide IN.dat OUT.dat NR_CPUS (1..%d) "
			"[tsc2nsec|guest|uname=STRING]\n",
			2 * SR_MAX_CPUS);
		return 1;
	}
	h = tracecmd_open(argv[1], TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!h || !mkdtemp(dir)) {
		fprintf(stderr, "mkwide: cannot read %s\n", argv[1]);
		return 1;
	}
	in_cpus = tracecmd_cpus(h);
	files = calloc(n, sizeof(*files));
	has = calloc(n, sizeof(*has));
	for (int cpu = 0; files && has && !ret && cpu < n; cpu++) {
		if (asprintf(&files[cpu], "%s/cpu%d", dir, cpu) < 0)
			return 1;
		ret = copy_pages(h, cpu < in_cpus ? cpu : in_cpus, files[cpu]);
	}
	if (!ret) {
		char kallsyms[64];
		const char *clock = tracecmd_get_trace_clock(h);
		const char *mode = argc == 5 ? argv[4] : "";
		static uint8_t shift[16 + 2 * SR_MAX_CPUS * 36];
		uint32_t tsc[4] = { 0 };
		struct sr_trace_option opts[2] = {
			{ SR_OPT_TSC2NSEC, sizeof(tsc), tsc },
			{ SR_OPT_TIME_SHIFT, 0, shift },
		};
		struct sr_trace_out o = { .path = argv[2], .nr_cpus = n, .has_buffer = has,
					  .clock = clock ? clock : "local", .writer = "mkwide",
					  .uname = tracecmd_get_uname(h), .events = events, .kallsyms = kallsyms, .options = opts };

		if (!strncmp(mode, "uname=", 6))
			o.uname = mode + 6;
		if (!strcmp(mode, "tsc2nsec") || !strcmp(mode, "guest")) {
			tsc_factors(&tsc[0], &tsc[1]);
			o.nr_options = 1;
		}
		if (!strcmp(mode, "guest")) {
			opts[1].size = (int)time_shift(shift, n);
			o.nr_options = 2;
		}
		/* as record does: an empty symbol table (sched events need none) */
		snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", dir);
		fclose(fopen(kallsyms, "w"));
		ret = sr_trace_write_files(&o, files, &err);
		unlink(kallsyms);
	}
	for (int cpu = 0; files && cpu < n; cpu++) {
		if (files[cpu])
			unlink(files[cpu]);
		free(files[cpu]);
	}
	rmdir(dir);
	tracecmd_close(h);
	if (ret)
		fprintf(stderr, "mkwide: %s\n", err.msg[0] ? err.msg : strerror(-ret));
	return ret ? 1 : 0;
}
