// SPDX-License-Identifier: GPL-2.0
/*
 * The NDJSON writer's staging buffer (src/base/ndjson.c): lines written
 * whole and lines written piece by piece (sr_ndjson_put(), yajl's print
 * callback, then sr_ndjson_end_line()) reach the file byte for byte,
 * across the stage's flushes, plain and through zstd.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <zstd.h>
#include "base.h"

#define LINES	6000	/* ~600 KB: more than two stages of 256 KB */

/* Line @i: its pieces of 1, 7 and ~90 bytes, as a generator would print them. */
static void piece_line(struct sr_ndjson *w, int i, char *expect, size_t *n)
{
	char body[128];
	int len = snprintf(body, sizeof(body), "\"wakeup\":%d,\"comm\":\"task-%05d-%s\"", i, i,
			   "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghij");

	sr_ndjson_put(w, "{", 1);
	sr_ndjson_put(w, body, 7);
	sr_ndjson_put(w, body + 7, (size_t)len - 7);
	sr_ndjson_put(w, "}", 1);
	assert_int_equal(sr_ndjson_end_line(w), 0);
	*n += (size_t)sprintf(expect + *n, "{%s}\n", body);
}

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *b = malloc(2 * LINES * 128);

	assert_non_null(f);
	*n = fread(b, 1, 2 * LINES * 128, f);
	fclose(f);
	return b;
}

static void write_mixed(const char *path, char *expect, size_t *n)
{
	struct sr_ndjson w;

	assert_int_equal(sr_ndjson_open_by_name(&w, path), 0);
	for (int i = 0; i < LINES; i++) {
		if (i % 3) {
			piece_line(&w, i, expect, n);
		} else {
			char line[32];
			int len = snprintf(line, sizeof(line), "{\"whole\":%d}", i);

			sr_ndjson_put(&w, line, (size_t)len);
			assert_int_equal(sr_ndjson_end_line(&w), 0);
			*n += (size_t)sprintf(expect + *n, "%s\n", line);
		}
	}
	assert_int_equal(w.rows, LINES);
	assert_int_equal(sr_ndjson_close(&w), 0);
}

static void test_pieces_plain(void **state)
{
	char path[] = "/tmp/sr-ndjson-XXXXXX";
	char *expect = malloc(2 * LINES * 128), *got;
	size_t n = 0, m;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	write_mixed(path, expect, &n);
	got = slurp(path, &m);
	assert_int_equal(m, n);
	assert_memory_equal(got, expect, n);
	unlink(path);
	free(got);
	free(expect);
}

static void test_pieces_zstd(void **state)
{
	char path[] = "/tmp/sr-ndjson-XXXXXX.zst";
	char *expect = malloc(2 * LINES * 128), *got, *plain = malloc(2 * LINES * 128);
	size_t n = 0, m, out;
	int fd = mkstemps(path, 4);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	write_mixed(path, expect, &n);
	got = slurp(path, &m);
	out = ZSTD_decompress(plain, 2 * LINES * 128, got, m);
	assert_false(ZSTD_isError(out));
	assert_int_equal(out, n);
	assert_memory_equal(plain, expect, n);
	unlink(path);
	free(plain);
	free(got);
	free(expect);
}

/*
 * A sink that fails (/dev/full: ENOSPC at the first flush): every later
 * line says -EIO, piece by piece or whole, and close says it too.
 */
static void test_sink_full(void **state)
{
	struct sr_ndjson w;
	int i, failed_at = -1;

	(void)state;
	if (access("/dev/full", W_OK))
		skip();
	assert_int_equal(sr_ndjson_open_by_name(&w, "/dev/full"), 0);
	for (i = 0; i < 100 * LINES && failed_at < 0; i++) {
		sr_ndjson_put(&w, "{\"wakeup\":1}", 12);
		if (sr_ndjson_end_line(&w))
			failed_at = i;
	}
	assert_true(failed_at > 1000);	/* the first stage's flush, not before */
	for (i = 0; i < 3 * LINES; i++) {
		sr_ndjson_put(&w, "{\"wakeup\":1}", 12);
		assert_int_equal(sr_ndjson_end_line(&w), -EIO);
	}
	assert_int_equal(sr_ndjson_close(&w), -EIO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pieces_plain),
		cmocka_unit_test(test_pieces_zstd),
		cmocka_unit_test(test_sink_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
