// SPDX-License-Identifier: GPL-2.0
/*
 * diff as a picture: the answers by determinacy, the different answers by
 * the steps that decided and by how far apart the two CPUs are, and the
 * tasks most affected.  The same struct diff.c renders as JSON.
 */
#include <errno.h>
#include <inttypes.h>
#include "diff.h"
#include "plot.h"

#define W	1000.0
#define LEFT	300.0
#define BAR	16.0
#define NAMED	8

static const char *const det_label[SR_DET_NR] = {
	"both determined", "only A determined", "only B determined", "neither determined",
};

/* A titled panel of horizontal bars; returns the y below it. */
static double bars(cairo_t *cr, double y, const char *title, const char *const *labels,
		   const uint64_t *v, int n, struct sr_rgb col)
{
	uint64_t max = 1;

	sr_plot_text(cr, 10, y, 12, 0, "%s", title);
	y += 10;
	for (int i = 0; i < n; i++)
		if (v[i] > max)
			max = v[i];
	for (int i = 0; i < n; i++) {
		double w = (double)v[i] / (double)max * (W - LEFT - 90);

		sr_plot_text(cr, LEFT - 8, y + BAR - 4, 10, 1, "%s", labels[i]);
		sr_plot_rect(cr, LEFT, y + 2, w, BAR - 4, col);
		sr_plot_text(cr, LEFT + w + 6, y + BAR - 4, 10, 0, "%" PRIu64, v[i]);
		y += BAR;
	}
	return y + 22;
}

/* Same and different CPUs side by side for each determinacy. */
static double determinacy(cairo_t *cr, double y, const struct sr_diff *d)
{
	double scale = (W - LEFT - 90) / (double)(d->placed ? d->placed : 1);

	sr_plot_text(cr, 10, y, 12, 0, "Answers of A and B on %" PRIu64 " placed wakeups "
		     "(blue: same CPU, red: different)", d->placed);
	y += 10;
	for (int i = 0; i < SR_DET_NR; i++) {
		double ws = (double)d->same[i] * scale, wd = (double)d->differ[i] * scale;

		sr_plot_text(cr, LEFT - 8, y + BAR - 4, 10, 1, "%s", det_label[i]);
		sr_plot_rect(cr, LEFT, y + 2, ws, BAR - 4, SR_RGB(100, 150, 220));
		sr_plot_rect(cr, LEFT + ws, y + 2, wd, BAR - 4, SR_RGB(220, 80, 70));
		sr_plot_text(cr, LEFT + ws + wd + 6, y + BAR - 4, 10, 0, "%" PRIu64 " same, %"
			     PRIu64 " different", d->same[i], d->differ[i]);
		y += BAR;
	}
	return y + 22;
}

static double steps(cairo_t *cr, double y, const struct sr_diff *d)
{
	char names[NAMED][64];
	const char *labels[NAMED];
	uint64_t v[NAMED];
	bool used[SR_DIFF_NR_BY][SR_DIFF_NR_BY] = { { false } };
	int n = 0;

	/* the most frequent pairs, most first */
	while (n < NAMED) {
		int bi = -1, bj = -1;

		for (int i = 0; i < SR_DIFF_NR_BY; i++)
			for (int j = 0; j < SR_DIFF_NR_BY; j++)
				if (d->by[i][j] && !used[i][j] &&
				    (bi < 0 || d->by[i][j] > d->by[bi][bj])) {
					bi = i;
					bj = j;
				}
		if (bi < 0)
			break;
		used[bi][bj] = true;
		snprintf(names[n], sizeof(names[n]), "%s / %s", sr_decider_name(bi),
			 sr_decider_name(bj));
		labels[n] = names[n];
		v[n++] = d->by[bi][bj];
	}
	if (!n)
		return y;
	return bars(cr, y, "Different answers, by the steps that decided (A / B)", labels, v, n,
		    SR_RGB(220, 80, 70));
}

static double tasks(cairo_t *cr, double y, struct sr_diff *d)
{
	char names[NAMED][48];
	const char *labels[NAMED];
	uint64_t v[NAMED];
	int n = 0;

	sr_diff_sort_tasks(d);
	for (size_t i = 0; i < d->tasks.nr_slots && n < NAMED; i++) {
		const struct sr_diff_task *t = sr_pidtab_slot(&d->tasks, i);

		if (!t->pid)
			continue;
		snprintf(names[n], sizeof(names[n]), "%s %d", t->comm, t->pid);
		labels[n] = names[n];
		v[n++] = t->disagreements;
	}
	if (!n)
		return y;
	return bars(cr, y, "Tasks most affected (different answers)", labels, v, n,
		    SR_RGB(150, 110, 190));
}

int sr_diff_plot(const struct sr_analysis *a, const char *path, struct sr_err *err)
{
	static const char *const rel[SR_REL_NR] = {
		"SMT siblings", "same LLC", "other LLC", "other node",
	};
	static const char *const kernel[3] = { "as A", "as B", "neither" };
	struct sr_diff *d = a ? a->data : NULL;
	uint64_t chose[3];
	struct sr_plot p;
	double y;
	int ret;

	if (!d)
		return sr_err_set(err, -ENODATA, "nothing to draw");
	chose[0] = d->a_kernel;
	chose[1] = d->b_kernel;
	chose[2] = d->neither;
	/* five panels: a title each and their bars, at most NAMED steps and tasks */
	ret = sr_plot_begin(&p, path, W, 76 + 5 * 32 +
			    (SR_DET_NR + SR_REL_NR + 3 + 2 * NAMED) * BAR, err);
	if (ret)
		return ret;
	sr_plot_text(p.cr, 10, 24, 14, 0, "A = %s, B = %s", a->view->policy[0].name,
		     a->view->policy[1].name);
	y = determinacy(p.cr, 56, d);
	y = steps(p.cr, y, d);
	y = bars(p.cr, y, "Different answers, by how far apart A's and B's CPUs are", rel, d->rel,
		 SR_REL_NR, SR_RGB(230, 150, 60));
	y = bars(p.cr, y, "Where the answers differ, the kernel chose", kernel, chose, 3,
		 SR_RGB(90, 160, 90));
	tasks(p.cr, y, d);
	return sr_plot_end(&p, err);
}
