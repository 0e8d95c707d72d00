// SPDX-License-Identifier: GPL-2.0
/* Drawing helpers for the pictures, with cairo. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <cairo-svg.h>
#include "plot.h"

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n > k && !strcasecmp(s + n - k, suffix);
}

int sr_plot_begin(struct sr_plot *p, const char *path, double w, double h, struct sr_err *err)
{
	*p = (struct sr_plot){ .path = path, .w = w, .h = h };
	if (ends_with(path, ".png")) {
		p->png = true;
		p->surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)w, (int)h);
	} else if (ends_with(path, ".svg")) {
		p->surface = cairo_svg_surface_create(path, w, h);
	} else {
		return sr_err_set(err, -EINVAL, "%s: a picture is FILE.svg or FILE.png", path);
	}
	if (cairo_surface_status(p->surface) != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(p->surface);
		p->surface = NULL;
		return sr_err_set(err, -EIO, "%s: cannot create the picture", path);
	}
	p->cr = cairo_create(p->surface);
	cairo_set_source_rgb(p->cr, 1, 1, 1);
	cairo_paint(p->cr);
	cairo_select_font_face(p->cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
			       CAIRO_FONT_WEIGHT_NORMAL);
	return 0;
}

int sr_plot_end(struct sr_plot *p, struct sr_err *err)
{
	cairo_status_t st = cairo_status(p->cr);

	cairo_destroy(p->cr);
	if (st == CAIRO_STATUS_SUCCESS && p->png)
		st = cairo_surface_write_to_png(p->surface, p->path);
	cairo_surface_finish(p->surface);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_status(p->surface);
	cairo_surface_destroy(p->surface);
	if (st != CAIRO_STATUS_SUCCESS)
		return sr_err_set(err, -EIO, "%s: cannot write the picture (%s)", p->path,
				  cairo_status_to_string(st));
	return 0;
}

void sr_plot_text(cairo_t *cr, double x, double y, double size, double align, const char *fmt,
		  ...)
{
	cairo_text_extents_t ext;
	char raw[256], buf[SR_TEXT_SIZE(sizeof(raw))];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* cairo takes UTF-8 only; task names need not be (prctl accepts any bytes) */
	sr_text(raw, buf, sizeof(buf));
	cairo_set_font_size(cr, size);
	cairo_text_extents(cr, buf, &ext);
	cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
	cairo_move_to(cr, x - align * ext.x_advance, y);
	cairo_show_text(cr, buf);
}

void sr_plot_rect(cairo_t *cr, double x, double y, double w, double h, struct sr_rgb c)
{
	cairo_set_source_rgb(cr, c.r, c.g, c.b);
	cairo_rectangle(cr, x, y, w, h);
	cairo_fill(cr);
}

void sr_plot_line(cairo_t *cr, double x0, double y0, double x1, double y1, double width,
		  struct sr_rgb c, bool dashed)
{
	static const double dash[] = { 4, 3 };

	cairo_set_source_rgb(cr, c.r, c.g, c.b);
	cairo_set_line_width(cr, width);
	cairo_set_dash(cr, dash, dashed ? 2 : 0, 0);
	cairo_move_to(cr, x0, y0);
	cairo_line_to(cr, x1, y1);
	cairo_stroke(cr);
	cairo_set_dash(cr, dash, 0, 0);
}

/* HSV with fixed saturation and value, the hue spread by the golden ratio. */
struct sr_rgb sr_plot_task_color(int pid)
{
	double h = fmod((double)(unsigned int)pid * 0.618033988749895, 1.0) * 6.0;
	double s = 0.35, v = 0.95, f = h - floor(h);
	double p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));

	switch ((int)h % 6) {
	case 0: return (struct sr_rgb){ v, t, p };
	case 1: return (struct sr_rgb){ q, v, p };
	case 2: return (struct sr_rgb){ p, v, t };
	case 3: return (struct sr_rgb){ p, q, v };
	case 4: return (struct sr_rgb){ t, p, v };
	default: return (struct sr_rgb){ v, p, q };
	}
}

struct sr_rgb sr_plot_series(int i)
{
	static const struct sr_rgb c[] = {
		{ 0.12, 0.47, 0.71 }, { 1.0, 0.50, 0.05 }, { 0.17, 0.63, 0.17 },
		{ 0.58, 0.40, 0.74 }, { 0.55, 0.34, 0.29 }, { 0.89, 0.47, 0.76 },
	};

	return c[(unsigned int)i % SR_ARRAY_SIZE(c)];
}

/* A round step (1, 2, 5 x 10^k) giving about @n ticks over @span. */
static double tick_step(double span, int n)
{
	double raw = span / n, mag = pow(10, floor(log10(raw)));

	return raw / mag < 2 ? mag : raw / mag < 5 ? 2 * mag : 5 * mag;
}

void sr_plot_time_axis(cairo_t *cr, double x0, double x1, double y, uint64_t t0, uint64_t t1,
		       uint64_t zero, const char *zero_name)
{
	double span = (double)(t1 - t0), step;
	bool ms = span > 5e6;
	double unit = ms ? 1e6 : 1e3;
	double lo = ((double)t0 - (double)zero) / unit, hi = ((double)t1 - (double)zero) / unit;

	if (t1 <= t0)
		return;
	sr_plot_line(cr, x0, y, x1, y, 1, SR_RGB(80, 80, 80), false);
	step = tick_step(hi - lo, 8);
	for (double v = ceil(lo / step) * step; v <= hi; v += step) {
		double x = x0 + (v - lo) / (hi - lo) * (x1 - x0);

		sr_plot_line(cr, x, y, x, y + 4, 1, SR_RGB(80, 80, 80), false);
		sr_plot_text(cr, x, y + 15, 9, 0.5, "%+g", fabs(v) < step / 1e6 ? 0.0 : v);
	}
	sr_plot_text(cr, x1, y + 28, 9, 1, "%s from %s", ms ? "ms" : "us",
		     zero == t0 || !zero_name ? "the window's start" : zero_name);
}
