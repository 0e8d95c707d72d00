// SPDX-License-Identifier: GPL-2.0
/* CPU lists ("0-3,8-11") and hex masks ("00000000,0000000f") as sysfs and %*pb print them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "machine-priv.h"

/* ------------------------------------------------------------ CPU lists */

/* A decimal CPU number; *s moves past it. */
static int parse_cpu(const char **s, int *cpu)
{
	long v = 0;

	if (**s < '0' || **s > '9')
		return -EINVAL;
	while (**s >= '0' && **s <= '9') {
		v = v * 10 + (**s - '0');
		if (v >= SR_MAX_CPUS)
			return -ERANGE;
		(*s)++;
	}
	*cpu = (int)v;
	return 0;
}

int sr_cpulist_parse(const char *s, struct sr_cpumask *m)
{
	sr_mask_clear(m);
	while (*s == ' ' || *s == '\t')
		s++;
	while (*s && *s != '\n') {
		int a, b, ret = parse_cpu(&s, &a);

		if (ret)
			return ret;
		b = a;
		if (*s == '-') {
			s++;
			ret = parse_cpu(&s, &b);
			if (ret)
				return ret;
			if (b < a)
				return -EINVAL;
		}
		for (int c = a; c <= b; c++)
			sr_mask_set(m, c);
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
	}
	return *s && s[1] ? -EINVAL : 0;
}

int sr_cpulist_format(const struct sr_cpumask *m, char *buf, size_t len)
{
	size_t off = 0;
	int a;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	for (a = sr_mask_first(m); a >= 0; ) {
		int b = a, n;

		while (b + 1 < SR_MAX_CPUS && sr_mask_test(m, b + 1))
			b++;
		n = b == a ? snprintf(buf + off, len - off, "%s%d", off ? "," : "", a) :
			     snprintf(buf + off, len - off, "%s%d-%d", off ? "," : "", a, b);
		if (n < 0 || (size_t)n >= len - off)
			return -ENOSPC;
		off += n;
		a = sr_mask_next(m, b + 1);
	}
	return 0;
}

static int hex_val(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

int sr_cpumask_parse_hex(const char *s, struct sr_cpumask *m)
{
	size_t len = strlen(s);
	int bit = 0, digits = 0;

	sr_mask_clear(m);
	while (len && (s[len - 1] == '\n' || s[len - 1] == ' '))
		len--;
	/* Least significant digit last, as %*pb prints; commas every 32 bits. */
	for (size_t i = len; i-- > 0; ) {
		int v = s[i] == ',' ? 0 : hex_val(s[i]);

		if (s[i] == ',')
			continue;
		if (v < 0)
			return -EINVAL;
		for (int b = 0; b < 4; b++, bit++) {
			if (!(v & (1 << b)))
				continue;
			if (bit >= SR_MAX_CPUS)
				return -ERANGE;
			sr_mask_set(m, bit);
		}
		digits++;
	}
	return digits ? 0 : -EINVAL;
}
