// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel release strings: the one parser every layer uses, so that a trace's
 * uname, a machine snapshot's proc/version and a --policy name agree on
 * what "2.6.38" or "6.1.0-27-amd64" is.
 */
#include <ctype.h>
#include <stdio.h>
#include "base.h"

/* A leading number of 1-3 digits (none in a release is longer); advances *s, else -1. */
static int release_num(const char **s)
{
	int v = 0, n = 0;

	while (isdigit((unsigned char)**s)) {
		if (++n > 3)
			return -1;
		v = v * 10 + (**s - '0');
		(*s)++;
	}
	return n ? v : -1;
}

unsigned int sr_release_kv(const char *s)
{
	int major, minor, sub = 0;

	if (!s)
		return 0;
	major = release_num(&s);
	if (major < 0 || *s++ != '.')
		return 0;
	minor = release_num(&s);
	if (minor < 0 || minor > 255)
		return 0;
	if (major == 2 && minor == 6) {
		if (*s++ != '.')
			return 0;
		sub = release_num(&s);
		if (sub < 0 || sub > 255)
			return 0;
	} else if (major < 3 || major > 255) {
		return 0;
	}
	return SR_KV3((unsigned int)major, (unsigned int)minor, (unsigned int)sub);
}

void sr_release_from_uname(const char *uname, char *release, size_t size)
{
	const char *p = uname;
	size_t n;

	release[0] = '\0';
	if (!uname)
		return;
	/* the third blank-separated word: sysname nodename release ... */
	for (int word = 0; word < 2; word++) {
		while (*p && !isspace((unsigned char)*p))
			p++;
		while (*p && isspace((unsigned char)*p))
			p++;
	}
	for (n = 0; p[n] && !isspace((unsigned char)p[n]); n++)
		;
	if (!n || n >= size)
		return;
	memcpy(release, p, n);
	release[n] = '\0';
}
