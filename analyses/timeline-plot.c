// SPDX-License-Identifier: GPL-2.0
/*
 * The occupancy map: every CPU over the window (analyze --time, or the
 * whole trace), each task in its colour, idle pale, unknown grey, an orange
 * strip where tasks waited behind the current one; the busiest tasks named.
 */
#include <errno.h>
#include <stdlib.h>
#include "plot.h"
#include "timeline.h"

#define W		1200.0
#define LEFT		70.0
#define RIGHT		20.0
#define TOP		56.0
#define MAX_ROWS	256
#define NAMED		8

struct busy {
	int pid;
	uint64_t ns;
};

static double row_h(int nr_cpus)
{
	return nr_cpus <= 16 ? 22 : nr_cpus <= 64 ? 10 : 4;
}

static double xat(uint64_t t, uint64_t t0, uint64_t t1)
{
	return LEFT + (double)(t - t0) / (double)(t1 - t0) * (W - LEFT - RIGHT);
}

static void draw_seg(cairo_t *cr, const struct sr_tl_seg *s, uint64_t end, uint64_t t0,
		     uint64_t t1, double rh)
{
	double x0 = xat(s->start < t0 ? t0 : s->start, t0, t1);
	double x1 = xat(end > t1 ? t1 : end, t0, t1), y = TOP + s->cpu * rh;

	if (s->cpu >= MAX_ROWS || end <= s->start)
		return;
	sr_plot_rect(cr, x0, y + 1, x1 - x0 < 0.3 ? 0.3 : x1 - x0, rh - 2,
		     s->pid < 0 ? SR_RGB(200, 200, 200) : !s->pid ? SR_RGB(242, 242, 242) :
		     sr_plot_task_color(s->pid));
	if (s->nr_running > (s->pid > 0))
		sr_plot_rect(cr, x0, y + 1, x1 - x0, rh / 4, SR_RGB(255, 150, 40));
}

static int more_ns(const void *x, const void *y)
{
	const struct busy *a = x, *b = y;

	return a->ns != b->ns ? (a->ns < b->ns ? 1 : -1) : a->pid - b->pid;
}

/* The @NAMED tasks with the most running time in the window, most first. */
static int busiest(const struct sr_timeline *tl, struct busy *top)
{
	struct sr_pidtab sum;
	int n = 0;

	if (sr_pidtab_init(&sum, sizeof(struct busy)))
		return 0;
	for (size_t k = 0; k < tl->nr_seg; k++) {
		struct busy *b = tl->seg[k].pid > 0 ? sr_pidtab_get(&sum, tl->seg[k].pid) : NULL;

		if (b)
			b->ns += tl->seg[k].end - tl->seg[k].start;
	}
	/* the run is over: sorting the table's slots in place is fine */
	qsort(sum.slots, sum.nr_slots, sizeof(struct busy), more_ns);
	for (size_t i = 0; i < sum.nr_slots && n < NAMED; i++) {
		const struct busy *b = sr_pidtab_slot(&sum, i);

		if (b->pid)
			top[n++] = *b;
	}
	sr_pidtab_free(&sum);
	return n;
}

static void draw_legend(cairo_t *cr, const struct sr_timeline *tl, double y)
{
	struct busy top[NAMED];
	int n = busiest(tl, top);

	for (int i = 0; i < n; i++) {
		double x = LEFT + (i % 4) * 270, yy = y + (i / 4) * 16;

		sr_plot_rect(cr, x, yy - 9, 14, 10, sr_plot_task_color(top[i].pid));
		sr_plot_text(cr, x + 18, yy, 10, 0, "%s %d: %.2f ms", sr_tl_comm(tl, top[i].pid),
			     top[i].pid, (double)top[i].ns / 1e6);
	}
	y += 36;
	sr_plot_rect(cr, LEFT, y - 9, 14, 10, SR_RGB(242, 242, 242));
	sr_plot_text(cr, LEFT + 18, y, 10, 0, "idle");
	sr_plot_rect(cr, LEFT + 70, y - 9, 14, 10, SR_RGB(200, 200, 200));
	sr_plot_text(cr, LEFT + 88, y, 10, 0, "not known");
	sr_plot_rect(cr, LEFT + 170, y - 9, 14, 4, SR_RGB(255, 150, 40));
	sr_plot_text(cr, LEFT + 188, y, 10, 0, "tasks waiting behind the running one");
}

int sr_timeline_plot(const struct sr_analysis *a, const char *path, struct sr_err *err)
{
	const struct sr_timeline *tl = a ? a->data : NULL;
	int rows, ret;
	double rh;
	uint64_t t0, t1;
	struct sr_plot p;

	if (!tl || !tl->first)
		return sr_err_set(err, -ENODATA, "nothing to draw: no event in the window");
	rows = tl->nr_cpus < MAX_ROWS ? tl->nr_cpus : MAX_ROWS;
	rh = row_h(rows);
	t0 = tl->first;
	t1 = tl->last > t0 ? (tl->last < tl->to ? tl->last : tl->to) : t0 + 1;
	ret = sr_plot_begin(&p, path, W, TOP + rows * rh + 110, err);
	if (ret)
		return ret;
	sr_plot_text(p.cr, 10, 22, 14, 0, "CPU occupancy, %.3f ms from %.6f s%s%s",
		     (double)(t1 - t0) / 1e6, (double)t0 / 1e9,
		     tl->truncated ? "  (cut: too many events; narrow --time)" : "",
		     tl->nr_cpus > MAX_ROWS ? "  (first 256 CPUs)" : "");
	for (int c = 0; c < rows; c++)
		if (rh >= 10 || !(c % 8))
			sr_plot_text(p.cr, LEFT - 6, TOP + c * rh + rh / 2 + 3, rh >= 10 ? 9 : 7, 1,
				     "CPU %d", c);
	for (size_t k = 0; k < tl->nr_seg; k++)
		draw_seg(p.cr, &tl->seg[k], tl->seg[k].end, t0, t1, rh);
	for (int c = 0; c < tl->nr_cpus; c++)
		if (tl->open[c].start)
			draw_seg(p.cr, &tl->open[c], t1, t0, t1, rh);
	sr_plot_time_axis(p.cr, LEFT, W - RIGHT, TOP + rows * rh + 4, t0, t1, t0, NULL);
	draw_legend(p.cr, tl, TOP + rows * rh + 56);
	return sr_plot_end(&p, err);
}
