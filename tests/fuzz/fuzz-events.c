// SPDX-License-Identifier: GPL-2.0
/*
 * Event-stream fuzzer: arbitrary bytes -> a machine, a trace description and
 * a stream of sched events (event-codec.h) -> state -> replay -> analyses ->
 * the report, the NDJSON lines and the text renderings, as a run over a real
 * file would go.  Unknown and reused pids, pid 0 and negative ones, CPUs
 * beyond the machine, timestamps that go back or repeat, switches of tasks
 * never seen, migrations to impossible CPUs, priorities out of range,
 * wakeups of dead tasks, lost windows, machines up to 4096 CPUs.
 *
 * Built for libFuzzer (make fuzz), or with run-inputs.c as a plain program
 * that replays the corpus (make check).  A failure is a crash, a sanitizer
 * report, or an abort() below: a run error other than out-of-memory, a
 * report that cannot be built, or output that is not valid UTF-8.
 */
#define _GNU_SOURCE		/* fmemopen, open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "event-codec.h"
#include "policy.h"
#include "run.h"

struct fz {
	const uint8_t *p;
	size_t left;
	char topo[96];
	struct sr_trace_info info;
	struct sr_run_opts o;
	struct sr_cpu_ingest *cpus;
	uint64_t ts;
	bool dump;			/* serialise the report too (mode bit 6) */
};

/*
 * Mostly small machines (they run fast); now and then up to 4096 CPUs.  A
 * machine of thousands builds topology masks and a report line per CPU that
 * cost twenty small inputs, so it needs both high bits of the mode too
 * (otherwise 64-256 CPUs): a quarter as often as the others.
 */
static int fz_cpus(uint8_t b, uint8_t mode, bool no_thousands)
{
	static const int big[] = { 64, 65, 128, 256, 1024, 1025, 2048, 4096 };

	if (b < 248)
		return 1 + b % 16;
	if (b >= 252 && ((mode & 0xc0) != 0xc0 || no_thousands))
		b -= 4;
	return big[b - 248];
}

/*
 * SR_FUZZ_NO_THOUSANDS=1 maps the machines of thousands of CPUs to 64-256:
 * a campaign shard that keeps to the streams runs four times as many
 * inputs, while another keeps the whole range (tests/fuzz/README.md).
 */
static bool no_thousands(void)
{
	static int v = -1;

	if (v < 0) {
		const char *e = getenv("SR_FUZZ_NO_THOUSANDS");

		v = e && *e == '1';
	}
	return v;
}

/* A spec for @n CPUs of shape @b, or NULL: assumed flat. */
static const char *topo_spec(char *buf, size_t size, int n, uint8_t b)
{
	switch (b % 6) {
	case 1:
		snprintf(buf, size, "cpus=%d", n);
		return buf;
	case 2:
		if (n % 2)
			return NULL;
		snprintf(buf, size, "cores-per-llc=%d,threads=2", n / 2);
		return buf;
	case 3:
		if (n % 4)
			return NULL;
		snprintf(buf, size, "llcs-per-socket=2,cores-per-llc=%d,threads=2", n / 4);
		return buf;
	case 4:
		if (n % 4)
			return NULL;
		snprintf(buf, size, "sockets=2,cores-per-llc=%d,threads=2%s", n / 4,
			 b & 0x80 ? ",numa-distance=40" : "");
		return buf;
	case 5:
		if (n % 8)
			return NULL;
		snprintf(buf, size, "sockets=4,cores-per-llc=%d,threads=2,smt-numbering=split",
			 n / 8);
		return buf;
	default:
		return NULL;
	}
}

static void pick_policies(struct sr_run_opts *o, uint8_t b)
{
	size_t n = sr_preset_count();

	o->nr_policies = b & 3;
	if (o->nr_policies == 3 && (b & 4)) {
		o->policies[0] = "none";
		o->nr_policies = 1;
		return;
	}
	for (int i = 0; i < o->nr_policies; i++)
		o->policies[i] = sr_preset_at(((size_t)(b >> 2) + (size_t)i * 7) % n)->name;
}

static const char *pick_release(uint8_t b)
{
	static const char *const rel[] = {
		"", "6.1.0-27-amd64", "2.6.38", "2.6.37", "4.14.0", "4.19.0", "5.4.0",
		"5.10.0", "5.11.0", "5.12.0", "5.15.0", "6.0.0", "6.6.0", "6.12.0",
		"6.18.44-fc-v782", "3.5.0", "9.9", "x", "6.1.0-\xff\xfe-amd64",
	};

	return rel[b % SR_ARRAY_SIZE(rel)];
}

static int first_pid(uint8_t b, int cpu)
{
	if (!b)
		return -1;
	if (b == 1)
		return 0;
	return (int)((b + cpu) % 7) * 1000 + 1;
}

/* The trace a file would describe, and the run's options, from the header. */
static int decode_header(struct fz *z, const uint8_t *h)
{
	int n = fz_cpus(h[FZ_H_CPUS], h[FZ_H_MODE], no_thousands());
	static const int hz[] = { 250, 1000, 100, 300, 1 };
	uint8_t fmt = h[FZ_H_FORMATS], mode = h[FZ_H_MODE];

	z->cpus = calloc(n, sizeof(*z->cpus));
	if (!z->cpus)
		return -1;
	z->ts = (uint64_t)fz_u32(h + FZ_H_BASE) * 1000;
	for (int c = 0; c < n; c++) {
		z->cpus[c].first_pid = first_pid(h[FZ_H_FIRST], c);
		z->cpus[c].first_ts = z->ts;
		z->cpus[c].stat_overrun = z->cpus[c].stat_dropped = z->cpus[c].stat_read = -1;
	}
	z->info = (struct sr_trace_info){ .nr_cpus = n, .file_version = 7, .long_size = 8,
					  .page_size = 4096, .first_ts = z->ts, .cpu = z->cpus };
	snprintf(z->info.clock, sizeof(z->info.clock), "local");
	snprintf(z->info.release, sizeof(z->info.release), "%s", pick_release(h[FZ_H_RELEASE]));
	snprintf(z->info.uname, sizeof(z->info.uname), "Linux fuzz %s x86_64", z->info.release);
	for (int i = 0; i < SR_EV_OTHER; i++)
		z->info.has_format[i] = true;
	z->info.has_format[SR_EV_WAKING] = !(fmt & 1);
	z->info.has_format[SR_EV_WAKEUP] = !(fmt & 2);
	z->info.has_format[SR_EV_SWITCH] = !(fmt & 4);
	z->info.has_format[SR_EV_SELECT] = z->info.has_format[SR_EV_SELECT_RET] = !(fmt & 8);
	z->dump = mode & 64;
	z->o = (struct sr_run_opts){
		.path = "fuzz.dat", .hz = hz[h[FZ_H_HZ] % 5], .root_cgroup = mode & 8,
		.probes_measure_only = mode & 16,
		.topology = topo_spec(z->topo, sizeof(z->topo), n, h[FZ_H_TOPO]),
		.an = { .mode = (enum sr_run_mode)(mode & 3) % 3, .migration_cost_ns = 500000,
			.top = 1 + h[FZ_H_HZ] % 12, .idle_threshold_ns = 1 + h[FZ_H_HZ] * 10000,
			.decisions = mode & 4 ? "/dev/null" : NULL, .explain_at_ns = -1 },
	};
	if (z->o.an.mode == SR_MODE_EXPLAIN && (mode & 32))
		z->o.an.explain_index = 1 + fz_u32(h + FZ_H_TARGET) % 4096;
	else if (z->o.an.mode == SR_MODE_EXPLAIN)
		z->o.an.explain_pid = 1 + (int)(fz_u32(h + FZ_H_TARGET) % 8192);
	if (z->o.an.mode == SR_MODE_EXPLAIN && !z->o.an.explain_index)
		z->o.an.explain_at_ns = (int64_t)(z->ts + fz_u32(h + FZ_H_TARGET) % 1000000);
	pick_policies(&z->o, h[FZ_H_POLICY]);
	return 0;
}

static void decode_lost(struct sr_event *ev, const uint8_t *r, uint8_t flags)
{
	uint32_t back = fz_u32(r + FZ_R_AUX32B);

	if (flags & 8)
		ev->missed_before = (long long)fz_u32(r + FZ_R_AUX32) + 1;
	if (flags & 16)
		ev->missed_before = -1;
	if (flags & 32) {
		ev->lost_open = 1 + fz_u16(r + FZ_R_AUX16) % 8;
		ev->lost_open_after = ev->ts - (uint64_t)back * 1000;
	}
	if (flags & 64)
		ev->lost_closed_before = ev->ts - (uint64_t)(back >> 8) * 1000;
}

static void decode_aux(struct sr_event *ev, const uint8_t *r)
{
	uint32_t a = fz_u32(r + FZ_R_AUX32), b = fz_u32(r + FZ_R_AUX32B);

	ev->success = (int)(fz_u16(r + FZ_R_AUX16) % 3) - 1;
	ev->runtime = a;
	ev->wake_flags = a;
	ev->h_load = a & 1 ? UINT64_MAX : a;
	ev->cgroup_id = (int)a;
	ev->sd_weight = (int16_t)fz_u16(r + FZ_R_AUX16);
	ev->load_avg = b & 1 ? UINT64_MAX : b & 0xffff;
	ev->util_avg = b >> 16;
	ev->span = (uint64_t)b << (b & 31);
	ev->prev_state_raw = (long long)(int32_t)b;
}

static void decode_event(struct fz *z, const uint8_t *r, struct sr_event *ev)
{
	uint8_t flags = r[FZ_R_FLAGS];

	memset(ev, 0, sizeof(*ev));
	ev->type = (enum sr_ev_type)(r[FZ_R_TYPE] % SR_EV_NR);
	ev->irq_context = flags & 1;
	ev->prev_state = (enum sr_prev_state)(((flags >> 1) & 3) % 3);
	ev->cpu = (int16_t)fz_u16(r + FZ_R_CPU);
	z->ts += (uint64_t)(int64_t)(int32_t)fz_u32(r + FZ_R_DTS);
	ev->ts = z->ts;
	ev->common_pid = (int32_t)fz_u32(r + FZ_R_COMMON);
	ev->pid = (int32_t)fz_u32(r + FZ_R_PID);
	ev->next_pid = ev->child_pid = (int32_t)fz_u32(r + FZ_R_NEXT);
	ev->prio = (int16_t)fz_u16(r + FZ_R_PRIO);
	ev->next_prio = (int16_t)fz_u16(r + FZ_R_NEXT_PRIO);
	ev->target_cpu = ev->orig_cpu = (int16_t)fz_u16(r + FZ_R_TARGET);
	ev->dest_cpu = (int16_t)fz_u16(r + FZ_R_DEST);
	snprintf(ev->comm, sizeof(ev->comm), "%s", fz_comms[r[FZ_R_COMM] % FZ_NR_COMMS]);
	snprintf(ev->next_comm, sizeof(ev->next_comm), "%s",
		 fz_comms[r[FZ_R_NEXT_COMM] % FZ_NR_COMMS]);
	decode_aux(ev, r);
	decode_lost(ev, r, flags);
}

/* Text renderings must be text too. */
static void check_text(struct sr_run *r)
{
	const struct sr_analysis *a;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	a = sr_run_analysis(r, &sr_explain_analysis);
	if (a && sr_explain_found(a))
		sr_explain_print(a, f);
	a = sr_run_analysis(r, &sr_diff_analysis);
	if (a)
		sr_diff_print(a, f);
	sr_run_print(r, f);		/* analyze's text summary */
	fclose(f);
	if (buf && !sr_utf8_valid(buf)) {
		fprintf(stderr, "fuzz-events: text output is not UTF-8:\n%s", buf);
		abort();
	}
	free(buf);
}

/*
 * The report is always built; serialising it is a third of a small input's
 * time and exercises jansson more than us, so a header bit asks for it.  On
 * wide machines the text renderings (a line a CPU) follow the same bit: they
 * took most of such an input's time.
 */
static void check_report(struct sr_run *r, bool dump, bool render)
{
	json_t *rep = sr_run_report(r);
	char *text;

	if (!rep)
		abort();	/* nothing here runs out of memory */
	text = dump ? json_dumps(rep, JSON_COMPACT) : NULL;
	if (dump && (!text || !sr_utf8_valid(text)))
		abort();
	free(text);
	json_decref(rep);
	if (render)
		check_text(r);
}

static void run(struct fz *z)
{
	struct sr_err err = { "" };
	struct sr_run *r = calloc(1, sizeof(*r));
	struct sr_event ev;
	int ret = 0;

	if (!r)
		return;
	if (sr_run_init(r, &z->o, &z->info, &err)) {
		sr_run_close(r);
		free(r);
		return;
	}
	for (; !ret && z->left >= FZ_RECORD; z->p += FZ_RECORD, z->left -= FZ_RECORD) {
		decode_event(z, z->p, &ev);
		if (ev.ts > z->info.last_ts)
			z->info.last_ts = ev.ts;
		ret = sr_run_feed(r, &ev);
	}
	if (ret < 0 && ret != -ENOMEM) {
		fprintf(stderr, "fuzz-events: the run failed: %s\n", strerror(-ret));
		abort();	/* the state and analyses take any stream */
	}
	sr_run_end(r, z->info.last_ts);
	check_report(r, z->dump, z->dump || z->info.nr_cpus < 64);
	sr_run_close(r);
	free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz z = { .p = data + FZ_HEADER, .left = size > FZ_HEADER ? size - FZ_HEADER : 0 };

	if (size < FZ_HEADER || decode_header(&z, data))
		return 0;
	run(&z);
	free(z.cpus);
	return 0;
}
