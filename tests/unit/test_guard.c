// SPDX-License-Identifier: GPL-2.0
/*
 * The guard's crash attribution with two threads (src/cli/guard.c): a
 * crash is the file's (exit 2) only when the thread inside the library
 * crashed, ours (exit 1) when another thread crashed meanwhile, even by
 * overflowing its stack.  Each case runs a command that crashes on purpose
 * in the guard's child process.
 */
#define _GNU_SOURCE		/* gettid */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>
#include "cli.h"

/* main.c is not in the library: the parent's verdict lands here, checked by its words. */
int sr_cli_error(const struct sr_cli *cli, int code, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (code == SR_EXIT_BAD_INPUT)
		assert_non_null(strstr(msg, "corrupt trace: the trace library"));
	else
		assert_non_null(strstr(msg, "internal error: schedreplay crashed"));
	return code;
}

struct side {
	struct sr_trace_watch *w;
	atomic_int ready;
	bool crash;			/* the library thread crashes, not the command's */
};

/* A real fault, which no sanitizer takes for a bug of its own: a page that may not be written. */
static void fault(void)
{
	volatile int *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	*p = 1;
}

/* As the decode thread does: this thread is the library's, and is in it. */
static void *library_thread(void *arg)
{
	struct side *s = arg;

	s->w->lib_tid = gettid();
	s->w->cpu = 0;
	s->w->in_library = 1;
	atomic_store(&s->ready, 1);
	if (s->crash)
		fault();
	for (;;)
		pause();
	return NULL;
}

/* Deeper than any stack: @depth only keeps the compiler from calling it endless. */
static int overflow(volatile char *up, long depth)
{
	volatile char frame[1024];

	frame[0] = up ? up[0] : 1;
	if (depth <= 0)
		return frame[0];
	return overflow(frame, depth - 1) + frame[1];
}

/* argv[1]: "ours" (this thread faults), "file" (the library's faults), "stack" (ours overflows) */
static int crashing_cmd(const struct sr_cli *cli, int argc, char **argv)
{
	struct side s = { .w = cli->watch, .crash = !strcmp(argv[1], "file") };
	pthread_t th;

	if (pthread_create(&th, NULL, library_thread, &s))
		_exit(99);
	while (!atomic_load(&s.ready))
		usleep(1000);
	if (!strcmp(argv[1], "stack"))
		overflow(NULL, 1L << 40);
	else if (!s.crash)
		fault();
	for (;;)
		pause();
}

/* Single-threaded, as before threads: the crash inside the library is the file's. */
static int single_cmd(const struct sr_cli *cli, int argc, char **argv)
{
	cli->watch->lib_tid = gettid();
	cli->watch->in_library = !strcmp(argv[1], "file");
	fault();
	_exit(99);
}

static int guarded(int (*fn)(const struct sr_cli *, int, char **), const char *what)
{
	struct sr_cli cli = { .prog = "test_guard" };
	const struct sr_cmd cmd = { .name = "crash", .fn = fn, .flags = SR_CMD_READS_TRACE };
	char *argv[] = { "crash", (char *)what, NULL };

	return sr_cli_guarded(&cli, &cmd, 2, argv);
}

static void test_other_thread_crash_is_ours(void **state)
{
	assert_int_equal(guarded(crashing_cmd, "ours"), SR_EXIT_FAIL);
}

static void test_library_thread_crash_is_the_file(void **state)
{
	assert_int_equal(guarded(crashing_cmd, "file"), SR_EXIT_BAD_INPUT);
}

static void test_stack_overflow_is_ours(void **state)
{
	assert_int_equal(guarded(crashing_cmd, "stack"), SR_EXIT_FAIL);
}

static void test_single_thread(void **state)
{
	assert_int_equal(guarded(single_cmd, "file"), SR_EXIT_BAD_INPUT);
	assert_int_equal(guarded(single_cmd, "ours"), SR_EXIT_FAIL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_other_thread_crash_is_ours),
		cmocka_unit_test(test_library_thread_crash_is_the_file),
		cmocka_unit_test(test_stack_overflow_is_ours),
		cmocka_unit_test(test_single_thread),
	};

	return cmocka_run_group_tests_name("guard", tests, NULL, NULL);
}
