// SPDX-License-Identifier: GPL-2.0
/*
 * NDJSON writers: see include/base.h.  Lines are rendered into one staging
 * buffer — by jansson's json_dumpb(), or piece by piece by yajl's generator
 * through sr_ndjson_put() — and leave it in large blocks, plain, through
 * zlib or through libzstd, never a write or a compressor call per line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>
#include <zstd.h>
#include "base.h"

#define STAGE_SIZE	(256 * 1024)
/*
 * Level 1 for both: rows repeat their columns, so the fastest level already
 * gets most of the gain, and the analysis is not held up compressing.
 */
#define GZ_MODE		"wb1"
#define ZSTD_LEVEL	1

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static int open_zstd(struct sr_ndjson *w, const char *path)
{
	w->f = fopen(path, "w");
	if (!w->f)
		return -errno;
	w->zs = ZSTD_createCCtx();
	w->zout_size = ZSTD_CStreamOutSize();
	w->zout = malloc(w->zout_size);
	if (!w->zs || !w->zout ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->zs, ZSTD_c_compressionLevel, ZSTD_LEVEL)))
		return -ENOMEM;
	return 0;
}

static int open_sink(struct sr_ndjson *w, const char *path)
{
	switch (w->kind) {
	case SR_NDJSON_GZIP:
		w->gz = gzopen(path, GZ_MODE);
		return w->gz ? 0 : errno ? -errno : -ENOMEM;
	case SR_NDJSON_ZSTD:
		return open_zstd(w, path);
	default:
		w->f = strcmp(path, "-") ? fopen(path, "w") : stdout;
		return w->f ? 0 : -errno;
	}
}

/* On failure nothing stays open or allocated. */
static int open_kind(struct sr_ndjson *w, const char *path, enum sr_ndjson_kind kind)
{
	int ret;

	*w = (struct sr_ndjson){ .kind = kind, .stage = malloc(STAGE_SIZE) };
	if (!w->stage)
		return -ENOMEM;
	w->stage_size = STAGE_SIZE;
	ret = open_sink(w, path);
	if (ret) {
		w->failed = true;
		sr_ndjson_close(w);
	}
	return ret;
}

int sr_ndjson_open(struct sr_ndjson *w, const char *path)
{
	return open_kind(w, path, SR_NDJSON_GZIP);
}

int sr_ndjson_open_by_name(struct sr_ndjson *w, const char *path)
{
	enum sr_ndjson_kind kind = SR_NDJSON_PLAIN;

	if (ends_with(path, ".gz"))
		kind = SR_NDJSON_GZIP;
	else if (ends_with(path, ".zst"))
		kind = SR_NDJSON_ZSTD;
	return open_kind(w, path, kind);
}

/* Compress @n bytes (or finish the frame with @end) into the file. */
static int zstd_put(struct sr_ndjson *w, const char *buf, size_t n, bool end)
{
	ZSTD_inBuffer in = { buf, n, 0 };
	size_t left;

	do {
		ZSTD_outBuffer out = { w->zout, w->zout_size, 0 };

		left = ZSTD_compressStream2(w->zs, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
		if (ZSTD_isError(left) || fwrite(w->zout, 1, out.pos, w->f) != out.pos)
			return -EIO;
	} while (end ? left != 0 : in.pos < in.size);
	return 0;
}

static int flush_stage(struct sr_ndjson *w)
{
	size_t n = w->stage_len;
	int ret = 0;

	w->stage_len = 0;
	if (!n)
		return 0;
	switch (w->kind) {
	case SR_NDJSON_GZIP:
		ret = gzwrite(w->gz, w->stage, (unsigned int)n) == (int)n ? 0 : -EIO;
		break;
	case SR_NDJSON_ZSTD:
		ret = zstd_put(w, w->stage, n, false);
		break;
	default:
		ret = fwrite(w->stage, 1, n, w->f) == n ? 0 : -EIO;
		break;
	}
	if (ret)
		w->failed = true;
	return ret;
}

/* Room for a line of @need bytes at the end of the stage. */
static int make_room(struct sr_ndjson *w, size_t need)
{
	char *b;

	if (flush_stage(w))
		return -EIO;
	if (need <= w->stage_size)
		return 0;
	b = realloc(w->stage, need);
	if (!b) {
		w->failed = true;
		return -ENOMEM;
	}
	w->stage = b;
	w->stage_size = need;
	return 0;
}

int sr_ndjson_write(struct sr_ndjson *w, const json_t *row)
{
	size_t flags = JSON_COMPACT | JSON_REAL_PRECISION(10), room, n;

	if (w->failed || !w->stage)
		return -EIO;
	room = w->stage_size - w->stage_len;
	n = json_dumpb(row, w->stage + w->stage_len, room, flags);
	if (n + 1 > room) {
		int ret = make_room(w, n + 1);

		if (ret)
			return ret;
		n = json_dumpb(row, w->stage, w->stage_size, flags);
	}
	if (!n) {
		w->failed = true;
		return -EIO;
	}
	w->stage[w->stage_len + n] = '\n';
	w->stage_len += n + 1;
	w->rows++;
	return 0;
}

/* A piece that does not fit: flush first (a line may span a flush). */
static __attribute__((noinline)) void put_slow(struct sr_ndjson *w, const char *s, size_t n)
{
	if (w->failed || !w->stage || make_room(w, n))
		return;
	memcpy(w->stage + w->stage_len, s, n);
	w->stage_len += n;
}

/*
 * yajl's print callback, ~200 calls a line: one test, then a byte store or
 * a memcpy() in tail position, so nothing is saved or restored around it.
 * A writer without a stage has no room and goes the slow way; one that
 * failed may go on filling its stage, which is never written.
 */
void sr_ndjson_put(void *wp, const char *s, size_t n)
{
	struct sr_ndjson *w = wp;
	size_t len = w->stage_len;

	if (n > w->stage_size - len) {
		put_slow(w, s, n);
		return;
	}
	w->stage_len = len + n;
	if (n == 1)
		w->stage[len] = *s;	/* most pieces: a separator or a quote */
	else if (n)
		memcpy(w->stage + len, s, n);
}

int sr_ndjson_end_line(struct sr_ndjson *w)
{
	sr_ndjson_put(w, "\n", 1);
	if (w->failed || !w->stage)
		return -EIO;
	w->rows++;
	return 0;
}

int sr_ndjson_close(struct sr_ndjson *w)
{
	int ret = w->stage && !w->failed ? flush_stage(w) : 0;

	if (w->failed)
		ret = -EIO;
	if (w->kind == SR_NDJSON_ZSTD && w->zs && w->f && !ret && zstd_put(w, NULL, 0, true))
		ret = -EIO;
	if (w->gz && gzclose(w->gz) != Z_OK)
		ret = -EIO;
	if (w->f && (w->f == stdout ? fflush(w->f) : fclose(w->f)))
		ret = -EIO;
	ZSTD_freeCCtx(w->zs);
	free(w->zout);
	free(w->stage);
	*w = (struct sr_ndjson){ .kind = w->kind };
	return ret;
}
