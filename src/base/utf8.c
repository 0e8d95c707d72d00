// SPDX-License-Identifier: GPL-2.0
/*
 * Strings from a trace (comm, uname, clock names) are bytes, not text: the
 * kernel cuts comm at 15 bytes even inside a character, and
 * prctl(PR_SET_NAME) takes any bytes.  jansson refuses invalid UTF-8, so
 * every such string is repaired before it reaches JSON or text: each
 * ill-formed subsequence becomes one U+FFFD, as Unicode recommends
 * ("maximal subparts"), and text output also escapes control bytes.
 */
#define _GNU_SOURCE		/* newlocale(), uselocale(), wcwidth() */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>
#include "base.h"

static const char replacement[] = "\xef\xbf\xbd";	/* U+FFFD */

/* Bounds of the second byte after a lead byte (Unicode Table 3-7). */
static bool second_ok(unsigned char lead, unsigned char b)
{
	if (lead == 0xe0)
		return b >= 0xa0 && b <= 0xbf;
	if (lead == 0xed)
		return b >= 0x80 && b <= 0x9f;		/* no surrogates */
	if (lead == 0xf0)
		return b >= 0x90 && b <= 0xbf;
	if (lead == 0xf4)
		return b >= 0x80 && b <= 0x8f;		/* at most U+10FFFF */
	return b >= 0x80 && b <= 0xbf;
}

/*
 * Length of the well-formed character at @s, or 0; *@bad gets the length
 * of the ill-formed subpart to replace when it is 0 (at least 1).
 */
static size_t char_len(const unsigned char *s, size_t *bad)
{
	unsigned char c = s[0];
	size_t need, i;

	*bad = 1;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		need = 2;
	else if (c >= 0xe0 && c <= 0xef)
		need = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		need = 4;
	else
		return 0;
	if (!second_ok(c, s[1]))
		return 0;
	for (i = 2; i < need; i++) {
		if (s[i] < 0x80 || s[i] > 0xbf) {
			*bad = i;
			return 0;
		}
	}
	return need;
}

bool sr_utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t bad;

	while (*p) {
		size_t n;

		if (*p < 0x80) {	/* the common case: ASCII */
			p++;
			continue;
		}
		n = char_len(p, &bad);
		if (!n)
			return false;
		p += n;
	}
	return true;
}

/* Append @n bytes if they fit with the terminator; false once full. */
static bool put(char *buf, size_t size, size_t *len, const char *s, size_t n)
{
	if (*len + n + 1 > size)
		return false;
	memcpy(buf + *len, s, n);
	*len += n;
	return true;
}

int sr_utf8_repair(const char *s, char *buf, size_t size, bool escape_controls)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = 0, bad;
	int fixed = 0;

	if (!size)
		return 0;
	while (*p) {
		size_t n = char_len(p, &bad);
		char esc[8];
		bool ok;

		if (n == 1 && escape_controls && (*p < 0x20 || *p == 0x7f)) {
			snprintf(esc, sizeof(esc), "\\x%02x", *p);
			ok = put(buf, size, &len, esc, 4);
		} else if (n) {
			ok = put(buf, size, &len, (const char *)p, n);
		} else {
			ok = put(buf, size, &len, replacement, 3);
			fixed++;
			n = bad;
		}
		if (!ok)
			break;		/* cut at a character boundary */
		p += n;
	}
	buf[len] = '\0';
	return fixed;
}

const char *sr_text(const char *s, char *buf, size_t size)
{
	sr_utf8_repair(s ? s : "", buf, size, true);
	return buf;
}

/*
 * Columns under C.UTF-8, a locale every glibc since 2.35 holds, made for
 * this thread alone: the process's own locale stays "C" (printf's decimal
 * point, strtod) whatever the user's is.
 */
int sr_text_width(const char *s)
{
	locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0), old;
	mbstate_t st = { 0 };
	size_t left = strlen(s), n;
	int cols = 0;
	wchar_t wc;

	if (!utf8) {
		for (; *s; s++)		/* one column a character */
			cols += ((unsigned char)*s & 0xc0) != 0x80;
		return cols;
	}
	old = uselocale(utf8);
	for (; left; s += n, left -= n) {
		int w;

		n = mbrtowc(&wc, s, left, &st);
		if (n == (size_t)-1 || n == (size_t)-2) {	/* none after sr_text(): one column */
			memset(&st, 0, sizeof(st));
			n = 1;
			cols++;
			continue;
		}
		w = wcwidth(wc);
		cols += w >= 0 ? w : 1;
	}
	uselocale(old);
	freelocale(utf8);
	return cols;
}

const char *sr_text_pad(const char *s, int width, char *buf, size_t size)
{
	size_t len = strlen(s);
	int pad = width - sr_text_width(s);

	if (len >= size)
		len = size - 1;
	memmove(buf, s, len);
	for (; pad > 0 && len + 1 < size; pad--)
		buf[len++] = ' ';
	buf[len] = '\0';
	return buf;
}

json_t *sr_json_str(const char *s)
{
	size_t size;
	json_t *j;
	char *buf;

	if (!s)
		return json_null();
	if (sr_utf8_valid(s))
		return json_string_nocheck(s);
	size = strlen(s) * 3 + 1;
	buf = malloc(size);
	if (!buf)
		return NULL;
	sr_utf8_repair(s, buf, size, false);
	j = json_string_nocheck(buf);
	free(buf);
	return j;
}

int sr_json_errno(const json_error_t *e)
{
	return json_error_code(e) == json_error_out_of_memory ? -ENOMEM : -EILSEQ;
}
