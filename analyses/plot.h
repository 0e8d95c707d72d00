/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to analyses/: drawing with cairo for the pictures (explain's
 * window, the occupancy map, the diff).  The file's extension picks the
 * surface: .svg (cairo's SVG surface) or .png (an image surface written as
 * PNG).  No SVG is written by hand.
 */
#ifndef SR_PLOT_H
#define SR_PLOT_H

#include <cairo.h>
#include "analysis.h"

struct sr_plot {
	cairo_surface_t *surface;
	cairo_t *cr;
	const char *path;
	bool png;
	double w, h;
};

struct sr_rgb {
	double r, g, b;
};

/* A surface of @w x @h points for @path, white; -EINVAL for another extension. */
int sr_plot_begin(struct sr_plot *p, const char *path, double w, double h, struct sr_err *err);
/* Write the file and free everything; 0 or -EIO. */
int sr_plot_end(struct sr_plot *p, struct sr_err *err);

/* Text at (x, y) (baseline), @size points; @align 0 left, 0.5 centred, 1 right. */
void sr_plot_text(cairo_t *cr, double x, double y, double size, double align, const char *fmt,
		  ...) __attribute__((format(printf, 6, 7)));
void sr_plot_rect(cairo_t *cr, double x, double y, double w, double h, struct sr_rgb c);
void sr_plot_line(cairo_t *cr, double x0, double y0, double x1, double y1, double width,
		  struct sr_rgb c, bool dashed);
/* A stable colour for a task, pale enough for black text on it. */
struct sr_rgb sr_plot_task_color(int pid);
/* Distinct strong colours for series (policies). */
struct sr_rgb sr_plot_series(int i);
/* A time axis under [x0, x1] for [t0, t1] ns, labelled relative to @zero in us or ms. */
/* An axis of time from @zero, named @zero_name ("the waking"; NULL: the window's start). */
void sr_plot_time_axis(cairo_t *cr, double x0, double x1, double y, uint64_t t0, uint64_t t1,
		       uint64_t zero, const char *zero_name);

#define SR_RGB(r, g, b) ((struct sr_rgb){ (r) / 255.0, (g) / 255.0, (b) / 255.0 })

#endif /* SR_PLOT_H */
