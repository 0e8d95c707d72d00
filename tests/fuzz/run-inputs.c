// SPDX-License-Identifier: GPL-2.0
/*
 * A fuzz harness as a plain program: feed it every file given (or every
 * file of a directory given), once each, as libFuzzer would.  This is how
 * `make check` replays the seed corpus and every input that once failed,
 * with the ordinary compiler, under ASan in check-all, and valgrind.
 *
 * usage: run-inputs FILE|DIR...      exit 0 when every input ran
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long size;
	int ret = -1;

	if (!f) {
		perror(path);
		return -1;
	}
	if (!fseek(f, 0, SEEK_END) && (size = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET)) {
		buf = malloc(size ? (size_t)size : 1);
		if (buf && fread(buf, 1, (size_t)size, f) == (size_t)size) {
			LLVMFuzzerTestOneInput(buf, (size_t)size);
			ret = 0;
		}
	}
	if (ret)
		fprintf(stderr, "%s: cannot read\n", path);
	free(buf);
	fclose(f);
	return ret;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int run_dir(const char *dir, int *n)
{
	struct dirent **ents;
	int nr = scandir(dir, &ents, NULL, by_name), bad = 0;
	char path[4096];
	struct stat st;

	if (nr < 0) {
		perror(dir);
		return -1;
	}
	for (int i = 0; i < nr; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		if (!stat(path, &st) && S_ISREG(st.st_mode) && ents[i]->d_name[0] != '.') {
			bad |= run_file(path);
			(*n)++;
		}
		free(ents[i]);
	}
	free(ents);
	return bad;
}

int main(int argc, char **argv)
{
	struct stat st;
	int n = 0, bad = 0;

	for (int i = 1; i < argc; i++) {
		if (!stat(argv[i], &st) && S_ISDIR(st.st_mode)) {
			bad |= run_dir(argv[i], &n);
		} else {
			bad |= run_file(argv[i]);
			n++;
		}
	}
	printf("%s: %d inputs\n", argv[0], n);
	return bad ? 1 : 0;
}
