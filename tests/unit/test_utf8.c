// SPDX-License-Identifier: GPL-2.0
/* Trace strings made fit for JSON and text: validation, repair, escapes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include "base.h"

#define FFFD "\xef\xbf\xbd"

static void test_valid(void **state)
{
	assert_true(sr_utf8_valid(""));
	assert_true(sr_utf8_valid("kworker/0:1H"));
	assert_true(sr_utf8_valid("a\xe3\x82\xb9"));			/* "aス" */
	assert_true(sr_utf8_valid("\xf0\x9f\x98\x80"));			/* U+1F600 */
	assert_false(sr_utf8_valid("a\xe3\x82"));			/* cut in the middle */
	assert_false(sr_utf8_valid("\xc0\xaf"));			/* overlong '/' */
	assert_false(sr_utf8_valid("\xed\xa0\x80"));			/* a surrogate */
	assert_false(sr_utf8_valid("\xf4\x90\x80\x80"));		/* above U+10FFFF */
	assert_false(sr_utf8_valid("\xff\xfe"));
	assert_false(sr_utf8_valid("\x80"));
}

static void expect(const char *in, bool esc, const char *want, int fixed)
{
	char buf[SR_TEXT_SIZE(64)];

	assert_int_equal(sr_utf8_repair(in, buf, sizeof(buf), esc), fixed);
	assert_string_equal(buf, want);
	assert_true(sr_utf8_valid(buf));
}

static void test_repair(void **state)
{
	/* the kernel's 15-byte cut of "aスレッド名前付き" */
	expect("a\xe3\x82\xb9\xe3\x83\xac\xe3\x83\x83\xe3\x83\x89\xe5\x90",
	       false, "a\xe3\x82\xb9\xe3\x83\xac\xe3\x83\x83\xe3\x83\x89" FFFD, 1);
	/* one U+FFFD per maximal subpart, not per byte */
	expect("\xe3\x82x", false, FFFD "x", 1);
	expect("\xff\xfe", false, FFFD FFFD, 2);
	expect("\xf0\x9f\x98", false, FFFD, 1);
	expect("\xed\xa0\x80", false, FFFD FFFD FFFD, 3);
	expect("ok\x1b[1m", false, "ok\x1b[1m", 0);
	expect("ok\x1b[1m\x7f", true, "ok\\x1b[1m\\x7f", 0);
}

static void test_short_buffer(void **state)
{
	char buf[5];

	/* never half a character: "a" + U+FFFD does not fit twice */
	sr_utf8_repair("a\xff\xff", buf, sizeof(buf), false);
	assert_string_equal(buf, "a" FFFD);
	sr_utf8_repair("abcdefgh", buf, sizeof(buf), false);
	assert_string_equal(buf, "abcd");
}

static void test_json(void **state)
{
	json_error_t e;
	json_t *j = sr_json_str("x\xc3");
	json_t *n = sr_json_str(NULL);

	assert_non_null(j);
	assert_string_equal(json_string_value(j), "x" FFFD);
	assert_true(json_is_null(n));
	json_decref(j);
	json_decref(n);
	/* jansson's NULL for bad text is not an out-of-memory */
	assert_null(json_pack_ex(&e, 0, "{s:s}", "comm", "\xff"));
	assert_int_equal(sr_json_errno(&e), -EILSEQ);
}

/* Tables pad by columns: wide CJK two, combining marks none, U+FFFD one. */
static void test_width_pad(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(sr_text_width("hackbench:12"), 12);
	assert_int_equal(sr_text_width("a\xe3\x82\xb9\xe3\x83\xac:7"), 7);	/* aスレ:7 */
	assert_int_equal(sr_text_width("e\xcc\x81"), 1);			/* e + U+0301 */
	assert_int_equal(sr_text_width("\xef\xbf\xbd"), 1);
	assert_int_equal(sr_text_width(""), 0);
	sr_text_pad("a\xe3\x82\xb9:1", 8, buf, sizeof(buf));
	assert_string_equal(buf, "a\xe3\x82\xb9:1   ");			/* 5 columns + 3 */
	strcpy(buf, "longer-than-the-width");
	assert_string_equal(sr_text_pad(buf, 4, buf, sizeof(buf)), "longer-than-the-width");
	sr_text_pad("abc", 10, buf, 6);					/* cut by the buffer */
	assert_string_equal(buf, "abc  ");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_repair),
		cmocka_unit_test(test_short_buffer),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_width_pad),
	};

	return cmocka_run_group_tests_name("utf8", tests, NULL, NULL);
}
