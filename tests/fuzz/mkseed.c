// SPDX-License-Identifier: GPL-2.0
/*
 * Seeds for the event-stream fuzzer from a real trace: its first events in
 * the fuzzer's format (event-codec.h), so mutations start from streams the
 * kernel really wrote.  How tests/fuzz/events/seed-* were made:
 *
 *   mkseed TRACE.dat SKIP MAX_EVENTS TOPO POLICY MODE > SEED   (bytes as decimal)
 */
#include <stdio.h>
#include <stdlib.h>
#include "event-codec.h"

struct enc {
	uint64_t last_ts;
	long skip, left;
	int nr_cpus;
};

static uint8_t flags_of(const struct sr_event *ev)
{
	uint8_t f = (uint8_t)(ev->irq_context | (ev->prev_state << 1));

	if (ev->missed_before > 0)
		f |= 8;
	if (ev->missed_before < 0)
		f |= 16;
	return f;
}

static int put_event(const struct sr_event *ev, void *data)
{
	struct enc *e = data;
	uint8_t r[FZ_RECORD] = { 0 };
	int64_t d = (int64_t)(ev->ts - e->last_ts);

	if (e->skip > 0) {
		e->skip--;
		return 0;
	}
	if (e->left-- <= 0)
		return 1;
	r[FZ_R_TYPE] = (uint8_t)ev->type;
	r[FZ_R_FLAGS] = flags_of(ev);
	fz_put16(r + FZ_R_CPU, (uint16_t)ev->cpu);
	fz_put32(r + FZ_R_DTS, (uint32_t)(d > INT32_MAX ? INT32_MAX : d));
	fz_put32(r + FZ_R_COMMON, (uint32_t)ev->common_pid);
	fz_put32(r + FZ_R_PID, (uint32_t)ev->pid);
	fz_put32(r + FZ_R_NEXT, (uint32_t)(ev->type == SR_EV_FORK ? ev->child_pid : ev->next_pid));
	fz_put16(r + FZ_R_PRIO, (uint16_t)ev->prio);
	fz_put16(r + FZ_R_NEXT_PRIO, (uint16_t)ev->next_prio);
	fz_put16(r + FZ_R_TARGET, (uint16_t)(ev->type == SR_EV_MIGRATE ? ev->orig_cpu :
						      ev->target_cpu));
	fz_put16(r + FZ_R_DEST, (uint16_t)ev->dest_cpu);
	r[FZ_R_COMM] = fz_comm_index(ev->comm);
	r[FZ_R_NEXT_COMM] = fz_comm_index(ev->next_comm);
	fz_put32(r + FZ_R_AUX32, (uint32_t)(ev->missed_before > 0 ? ev->missed_before - 1 :
					    ev->type == SR_EV_SELECT ? ev->wake_flags : 0));
	e->last_ts = ev->ts;
	return fwrite(r, 1, sizeof(r), stdout) == sizeof(r) ? 0 : -1;
}

int main(int argc, char **argv)
{
	uint8_t h[FZ_HEADER] = { 0 };
	struct sr_trace *t;
	struct sr_err err;
	struct enc e;

	if (argc != 7) {
		fprintf(stderr, "usage: mkseed TRACE SKIP MAX_EVENTS TOPO POLICY MODE\n");
		return 2;
	}
	if (sr_trace_open(&t, argv[1], &err)) {
		fprintf(stderr, "mkseed: %s\n", err.msg);
		return 2;
	}
	e = (struct enc){ .last_ts = sr_trace_info(t)->first_ts, .skip = atol(argv[2]),
			  .left = atol(argv[3]), .nr_cpus = sr_trace_info(t)->nr_cpus };
	h[FZ_H_CPUS] = (uint8_t)(e.nr_cpus <= 16 ? e.nr_cpus - 1 : 248);
	h[FZ_H_TOPO] = (uint8_t)atoi(argv[4]);
	h[FZ_H_POLICY] = (uint8_t)atoi(argv[5]);
	h[FZ_H_MODE] = (uint8_t)atoi(argv[6]);
	h[FZ_H_RELEASE] = 1;		/* 6.1 */
	h[FZ_H_FIRST] = 1;
	fz_put32(h + FZ_H_BASE, (uint32_t)(e.last_ts / 1000));
	fwrite(h, 1, sizeof(h), stdout);
	sr_trace_iterate(t, put_event, &e, &err);
	sr_trace_close(t);
	return 0;
}
