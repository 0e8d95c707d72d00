// SPDX-License-Identifier: GPL-2.0
/*
 * explain as a picture: the CPUs that mattered over a window around the
 * wakeup, running / runnable / idle, the waking, each policy's answer, the
 * kernel's choice and when the task ran.  The same struct explain.c renders
 * as JSON, with the occupancy timeline.c recorded.
 */
#include <errno.h>
#include <stdio.h>
#include <inttypes.h>
#include "common.h"
#include "explain.h"
#include "plot.h"
#include "timeline.h"

#define W		1100.0
#define LEFT		250.0
#define RIGHT		30.0
#define TOP		64.0
#define ROW		34.0
#define LEGEND		96.0
#define MAX_ROWS	24

struct frame {
	uint64_t t0, t1;
	int rows[MAX_ROWS], nr_rows;
	int wakee;
};

static double xat(const struct frame *fr, uint64_t t)
{
	if (t < fr->t0)
		t = fr->t0;
	if (t > fr->t1)
		t = fr->t1;
	return LEFT + (double)(t - fr->t0) / (double)(fr->t1 - fr->t0) * (W - LEFT - RIGHT);
}

static int row_of(const struct frame *fr, int cpu)
{
	for (int i = 0; i < fr->nr_rows; i++)
		if (fr->rows[i] == cpu)
			return i;
	return -1;
}

/* One stretch of a CPU: idle pale grey, unknown hatched, a task in its colour (the wakee red). */
static void draw_seg(cairo_t *cr, const struct frame *fr, const struct sr_timeline *tl,
		     const struct sr_tl_seg *s, uint64_t end)
{
	int r = row_of(fr, s->cpu);
	double x0, x1, y;

	if (r < 0 || end <= fr->t0 || s->start >= fr->t1)
		return;
	x0 = xat(fr, s->start);
	x1 = xat(fr, end);
	y = TOP + r * ROW + 6;
	if (s->pid < 0)
		sr_plot_rect(cr, x0, y, x1 - x0, ROW - 12, SR_RGB(200, 200, 200));
	else if (!s->pid)
		sr_plot_rect(cr, x0, y, x1 - x0, ROW - 12, SR_RGB(240, 240, 240));
	else
		sr_plot_rect(cr, x0, y, x1 - x0, ROW - 12, s->pid == fr->wakee ?
			     SR_RGB(230, 85, 80) : sr_plot_task_color(s->pid));
	/* tasks waiting behind the current one: an orange strip, its count when it fits */
	if (s->nr_running > (s->pid > 0))
		sr_plot_rect(cr, x0, y - 5, x1 - x0, 4, SR_RGB(255, 150, 40));
	if (s->pid > 0 && x1 - x0 > 40) {
		/* the name, cut at the stretch's end */
		cairo_save(cr);
		cairo_rectangle(cr, x0, y, x1 - x0 - 2, ROW - 12);
		cairo_clip(cr);
		sr_plot_text(cr, x0 + 3, y + ROW / 2 - 2, 9, 0, "%s %d", sr_tl_comm(tl, s->pid),
			     s->pid);
		cairo_restore(cr);
	}
}

static void draw_rows(cairo_t *cr, const struct frame *fr, const struct sr_explain_cand *c,
		      const struct sr_view *v, const struct sr_timeline *tl)
{
	for (int i = 0; i < fr->nr_rows; i++) {
		int cpu = fr->rows[i];
		double y = TOP + i * ROW + ROW / 2 + 3;

		sr_plot_text(cr, 10, y, 11, 0, "CPU %d", cpu);
		sr_plot_text(cr, 60, y, 9, 0, "%s%s%s%s%s%s", cpu == c->prev_cpu ?
			     sr_explain_prev_role(c) : "", cpu == c->prev_cpu ? " " : "",
			     cpu == c->this_cpu && c->w.kind == SR_WAKE_TTWU ? "waker " : "",
			     cpu == c->w.cpu ? "chosen " : "",
			     cpu == c->prev_cpu ? "" : sr_an_rel_short(v->topo, cpu, c->prev_cpu),
			     cpu == c->prev_cpu ? "" : c->w.kind == SR_WAKE_FORK ? " as the parent" :
			     c->w.kind == SR_WAKE_EXEC ? " to its CPU" : " as prev");
	}
	for (size_t k = 0; k < tl->nr_seg; k++)
		draw_seg(cr, fr, tl, &tl->seg[k], tl->seg[k].end);
	for (int cpu = 0; cpu < tl->nr_cpus; cpu++)
		if (tl->open[cpu].start)
			draw_seg(cr, fr, tl, &tl->open[cpu], tl->last);
}

/* The waking, each policy's answer, the kernel's choice, the switch-in. */
static void draw_marks(cairo_t *cr, const struct frame *fr, const struct sr_explain_cand *c,
		       const struct sr_view *v)
{
	double xw = xat(fr, c->ts), ybot = TOP + fr->nr_rows * ROW;
	int r;

	sr_plot_line(cr, xw, TOP - 8, xw, ybot, 1.2, SR_RGB(0, 0, 0), true);
	sr_plot_text(cr, xw, TOP - 12, 9, 0.5, "%s", sr_explain_moment(c));
	for (int i = 0; i < v->nr_policies; i++) {
		const struct sr_decision *d = sr_explain_primary(c, i);
		double x = xw + 8 + 12 * i;

		r = d->cpu >= 0 ? row_of(fr, d->cpu) : -1;
		if (r < 0)
			continue;
		cairo_set_source_rgb(cr, sr_plot_series(i).r, sr_plot_series(i).g,
				     sr_plot_series(i).b);
		cairo_move_to(cr, x, TOP + r * ROW + ROW / 2 - 7);
		cairo_line_to(cr, x + 10, TOP + r * ROW + ROW / 2);
		cairo_line_to(cr, x, TOP + r * ROW + ROW / 2 + 7);
		cairo_close_path(cr);
		cairo_fill(cr);
	}
	r = row_of(fr, c->w.cpu);
	if (r >= 0) {
		cairo_set_source_rgb(cr, 0, 0, 0);
		cairo_set_line_width(cr, 2);
		cairo_new_path(cr);
		cairo_arc(cr, xw, TOP + r * ROW + ROW / 2, 8, 0, 6.2832);
		cairo_stroke(cr);
	}
	r = c->ran ? row_of(fr, c->run_cpu) : -1;
	if (r >= 0) {
		double x = xat(fr, c->run_ts);

		sr_plot_line(cr, x, TOP + r * ROW + 2, x, TOP + (r + 1) * ROW - 2, 3,
			     SR_RGB(30, 150, 60), false);
		/* the label on the side with room */
		sr_plot_text(cr, x > W - RIGHT - 120 ? x - 5 : x + 5, TOP + r * ROW + 11, 9,
			     x > W - RIGHT - 120 ? 1 : 0, "ran after %.1f us",
			     (double)(c->run_ts - c->ts) / 1e3);
	}
}

static void draw_legend(cairo_t *cr, const struct frame *fr, const struct sr_explain_cand *c,
			const struct sr_view *v)
{
	double y = TOP + fr->nr_rows * ROW + 48;

	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_line_width(cr, 2);
	cairo_new_path(cr);
	cairo_arc(cr, LEFT + 6, y - 4, 6, 0, 6.2832);
	cairo_stroke(cr);
	sr_plot_text(cr, LEFT + 16, y, 10, 0, "the kernel's choice (CPU %d)", c->w.cpu);
	sr_plot_rect(cr, LEFT + 230, y - 9, 14, 10, SR_RGB(230, 85, 80));
	sr_plot_text(cr, LEFT + 248, y, 10, 0, "the task (%s %d) running", c->comm, fr->wakee);
	sr_plot_rect(cr, LEFT + 480, y - 9, 14, 4, SR_RGB(255, 150, 40));
	sr_plot_text(cr, LEFT + 498, y, 10, 0, "tasks waiting");
	sr_plot_rect(cr, LEFT + 600, y - 9, 14, 10, SR_RGB(240, 240, 240));
	sr_plot_text(cr, LEFT + 618, y, 10, 0, "idle");
	sr_plot_rect(cr, LEFT + 660, y - 9, 14, 10, SR_RGB(200, 200, 200));
	sr_plot_text(cr, LEFT + 678, y, 10, 0, "not known");
	for (int i = 0; i < v->nr_policies; i++) {
		const struct sr_decision *d = sr_explain_primary(c, i);
		struct sr_rgb col = sr_plot_series(i);
		double yy = y + 18 + 16 * i;

		sr_plot_rect(cr, LEFT, yy - 9, 10, 10, col);
		if (d->cpu >= 0)
			sr_plot_text(cr, LEFT + 16, yy, 10, 0, "%s -> CPU %d (%s%s)",
				     v->policy[i].name, d->cpu, sr_decider_name(d->decided_by),
				     d->determined ? "" : ", undetermined");
		else
			sr_plot_text(cr, LEFT + 16, yy, 10, 0, "%s: no answer", v->policy[i].name);
	}
}

/* Rows: the CPUs that mattered; the window: the recorded one, cut after the switch-in. */
static void frame_of(struct frame *fr, const struct sr_explain *e, const struct sr_explain_cand *c,
		     const struct sr_view *v, const struct sr_timeline *tl)
{
	uint64_t w = (uint64_t)v->opts->window_ns, end = c->ts + w;

	fr->wakee = e->pid;
	fr->nr_rows = 0;
	for (int cpu = 0; cpu < e->nr_cpus && fr->nr_rows < MAX_ROWS; cpu++)
		if (sr_explain_mattered(c, cpu, v->nr_policies) ||
		    (c->ran && cpu == c->run_cpu))
			fr->rows[fr->nr_rows++] = cpu;
	if (c->ran && c->run_ts + w / 2 > end)
		end = c->run_ts + w / 2;
	fr->t0 = tl->first;
	fr->t1 = end < tl->last ? end : tl->last;
	if (fr->t1 <= fr->t0)
		fr->t1 = fr->t0 + 1;
}

int sr_explain_plot(const struct sr_analysis *ex, const struct sr_analysis *tla,
		    const char *path, struct sr_err *err)
{
	const struct sr_explain *e = ex ? ex->data : NULL;
	const struct sr_timeline *tl = tla ? tla->data : NULL;
	const struct sr_explain_cand *c;
	struct sr_plot p;
	struct frame fr;
	int ret;

	if (!e || !tl || !e->best->valid || !tl->first)
		return sr_err_set(err, -ENODATA, "nothing to draw: no wakeup, or no event in its "
				  "window");
	c = e->best;
	frame_of(&fr, e, c, ex->view, tl);
	ret = sr_plot_begin(&p, path, W, TOP + fr.nr_rows * ROW + LEGEND +
			    16 * ex->view->nr_policies, err);
	if (ret)
		return ret;
	sr_plot_text(p.cr, 10, 22, 14, 0, "%s #%" PRIu64 " of %s (pid %d): the kernel chose "
		     "CPU %d", c->w.kind == SR_WAKE_FORK ? "Fork" : c->w.kind == SR_WAKE_EXEC ?
		     "Exec" : "Wakeup", c->w.index, c->comm, e->pid,
		     c->w.cpu);
	if (c->w.kind == SR_WAKE_TTWU)
		sr_plot_text(p.cr, 10, 40, 10, 0, "%s, waker CPU %d, prev CPU %d%s",
			     ex->view->info->clock[0] ? ex->view->info->clock : "trace clock",
			     c->w.waker_cpu, c->w.prev_cpu,
			     tl->truncated ? "  (window cut: too many events)" : "");
	else
		sr_plot_text(p.cr, 10, 40, 10, 0, "%s, %s CPU %d%s",
			     ex->view->info->clock[0] ? ex->view->info->clock : "trace clock",
			     c->w.kind == SR_WAKE_FORK ? "parent's" : "its own", c->w.prev_cpu,
			     tl->truncated ? "  (window cut: too many events)" : "");
	draw_rows(p.cr, &fr, c, ex->view, tl);
	draw_marks(p.cr, &fr, c, ex->view);
	sr_plot_time_axis(p.cr, LEFT, W - RIGHT, TOP + fr.nr_rows * ROW + 6, fr.t0, fr.t1, c->ts,
			  c->w.kind == SR_WAKE_EXEC ? "sched_exec()" : c->w.kind == SR_WAKE_FORK ?
			  "wake_up_new_task()" : "the waking");
	draw_legend(p.cr, &fr, c, ex->view);
	return sr_plot_end(&p, err);
}
