/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Scratch machine roots for unit tests: write a file under a directory
 * (creating its parents), remove a directory tree.  Include after cmocka.h.
 */
#ifndef SR_TEST_FILES_FX_H
#define SR_TEST_FILES_FX_H

#include <stdio.h>
#include <stdlib.h>

static inline void drop(const char *dir)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static inline void put(const char *dir, const char *rel, const char *text)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname %s)\"", path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

#endif /* SR_TEST_FILES_FX_H */
