// SPDX-License-Identifier: GPL-2.0
/*
 * Commands that read a trace run in a child process.  libtracecmd and
 * libtraceevent trust a file's pages, and a corrupt one can crash them
 * (docs/known-issues.md): what schedreplay can check before they read it,
 * it checks (src/ingest/trace.c); for the rest, the parent turns the
 * child's death into one clear message — exit 2 when it died inside the
 * library, which means the file is corrupt; exit 1 and a plea to report it
 * when it died in our code — and never lets a raw signal reach the user.
 * The reader tells where it was through a page shared with the parent
 * (struct sr_trace_watch).  With a decode thread (src/ingest/trace-pipe.c)
 * the thread that crashed need not be the one in the library: a handler
 * writes the crashing thread's id into the page, and the parent blames
 * the file only when that thread is the library's.  A corrupt header can
 * also send libtracecmd into an endless loop: a library call that makes no
 * progress for STUCK_SECONDS ends the same way.
 */
#define _GNU_SOURCE		/* strsignal */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "cli.h"

/*
 * No single libtracecmd call takes this long on a sound file (decompressing
 * a section is ~1 GB/s); SCHEDREPLAY_STUCK_SECONDS overrides it (tests).
 */
#define STUCK_SECONDS	120

/* What the child leaves for the parent. */
struct sr_guard {
	struct sr_trace_watch watch;
	char path[PATH_MAX];		/* the trace it opened last */
};

static const int crashes[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS, SIGTRAP };

static bool crash_signal(int sig)
{
	for (size_t i = 0; i < SR_ARRAY_SIZE(crashes); i++)
		if (sig == crashes[i])
			return true;
	return false;
}

/*
 * The crash handler's stack (a stack overflow still runs it), headed by
 * where to write: a handler gets no argument, and this keeps it free of
 * globals.  Only the command's own thread has it; the decode thread runs
 * the handler on its stack, finds no header and leaves fault_tid 0, which
 * the parent reads as "the thread in the library" when one was there.
 */
#define ALT_HEAD	64
#define ALT_SIZE	(64 * 1024)

/* Async-signal-safe only: note the thread, then die of @sig as if never caught. */
static void on_crash(int sig)
{
	const struct sigaction dfl = { .sa_handler = SIG_DFL };
	stack_t ss;

	if (!sigaltstack(NULL, &ss) && (ss.ss_flags & SS_ONSTACK)) {
		struct sr_trace_watch *w = *(struct sr_trace_watch **)((char *)ss.ss_sp - ALT_HEAD);

		w->fault_tid = (int)syscall(SYS_gettid);
	}
	sigaction(sig, &dfl, NULL);
	raise(sig);	/* blocked in here: fatal on return, as is a fault's re-run */
}

/* A crash is the parent's to report, even under a sanitizer: no handler but ours. */
static void default_crashes(void)
{
	for (size_t i = 0; i < SR_ARRAY_SIZE(crashes); i++)
		signal(crashes[i], SIG_DFL);
}

/* The handler and its stack; NULL without them (then fault_tid stays 0). */
static void *catch_crashes(struct sr_trace_watch *w)
{
	struct sigaction sa = { .sa_handler = on_crash, .sa_flags = SA_ONSTACK };
	char *alt = mmap(NULL, ALT_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	stack_t ss = { .ss_size = ALT_SIZE - ALT_HEAD };

	default_crashes();
	if (alt == MAP_FAILED)
		return NULL;
	*(struct sr_trace_watch **)alt = w;
	ss.ss_sp = alt + ALT_HEAD;
	if (sigaltstack(&ss, NULL)) {
		munmap(alt, ALT_SIZE);
		return NULL;
	}
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < SR_ARRAY_SIZE(crashes); i++)
		sigaction(crashes[i], &sa, NULL);
	return alt;
}

static void uncatch_crashes(void *alt)
{
	const stack_t off = { .ss_flags = SS_DISABLE };

	default_crashes();
	if (!alt)
		return;
	sigaltstack(&off, NULL);
	munmap(alt, ALT_SIZE);
}

static int child(struct sr_cli *cli, struct sr_guard *g, const struct sr_cmd *cmd, int argc,
		 char **argv, const sigset_t *mask)
{
	void *alt;
	int ret;

	sigprocmask(SIG_SETMASK, mask, NULL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	alt = catch_crashes(&g->watch);
	cli->watch = &g->watch;
	cli->watched_path = g->path;
	cli->watched_path_size = sizeof(g->path);
	ret = cmd->fn(cli, argc, argv);
	uncatch_crashes(alt);
	return ret;
}

/* Where the reader was, for the message. */
static void where(const struct sr_guard *g, char *buf, size_t size)
{
	if (g->watch.cpu < 0)
		snprintf(buf, size, "while opening it (its headers, then each CPU's first page)");
	else
		snprintf(buf, size, "reading CPU %d's data, after %llu records (the last at %llu "
			 "ns)", g->watch.cpu, (unsigned long long)g->watch.records,
			 (unsigned long long)g->watch.ts);
}

static int stuck_seconds(void)
{
	const char *s = getenv("SCHEDREPLAY_STUCK_SECONDS");
	int v = s ? atoi(s) : 0;

	return v > 0 ? v : STUCK_SECONDS;
}

/*
 * Wait for the child; kill it when it stays inside one library call (the
 * call counter does not move) for @limit seconds: *@stuck tells.
 */
static int wait_child(pid_t pid, const struct sr_guard *g, int *status, bool *stuck)
{
	const struct timespec second = { 1, 0 };
	uint64_t calls = g->watch.calls;
	sigset_t chld;
	int still = 0, limit = stuck_seconds();

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return -errno;
		sigtimedwait(&chld, NULL, &second);
		if (!g->watch.in_library || g->watch.calls != calls) {
			still = 0;
			calls = g->watch.calls;
		} else if (++still >= limit) {
			kill(pid, SIGKILL);
			*stuck = true;
		}
	}
}

/*
 * The file's fault: the crash came while the reader was in the library, in
 * the thread that was there (or one that could not say: fault_tid 0).
 */
static bool library_crash(const struct sr_trace_watch *w)
{
	return w->in_library && (!w->fault_tid || w->fault_tid == w->lib_tid);
}

static int report_death(const struct sr_cli *cli, const struct sr_guard *g, int sig, bool stuck)
{
	const char *path = g->path[0] ? g->path : "the trace";
	char at[160];

	if (stuck) {
		where(g, at, sizeof(at));
		return sr_cli_error(cli, SR_EXIT_BAD_INPUT, "%s: corrupt trace: the trace library "
				    "(libtracecmd/libtraceevent) made no progress for %d s %s; nothing "
				    "was analysed (see docs/known-issues.md)", path, stuck_seconds(),
				    at);
	}
	/* killed from outside (Ctrl-C, a closed pipe): as a shell reports it, quietly */
	if (sig == SIGKILL)
		sr_cli_error(cli, 128 + sig, "killed (SIGKILL): out of memory?");
	if (!crash_signal(sig))
		return 128 + sig;
	where(g, at, sizeof(at));
	if (library_crash(&g->watch))
		return sr_cli_error(cli, SR_EXIT_BAD_INPUT, "%s: corrupt trace: the trace library "
				    "(libtracecmd/libtraceevent) crashed (%s) %s; nothing was "
				    "analysed (see docs/known-issues.md)", path, strsignal(sig), at);
	return sr_cli_error(cli, SR_EXIT_FAIL, "internal error: schedreplay crashed (%s) on %s "
			    "%s; please report it with the trace", strsignal(sig), path, at);
}

int sr_cli_guarded(struct sr_cli *cli, const struct sr_cmd *cmd, int argc, char **argv)
{
	struct sr_guard *g = mmap(NULL, sizeof(*g), PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	sigset_t chld, old;
	bool stuck = false;
	int status, ret;
	pid_t pid;

	if (g == MAP_FAILED)
		return cmd->fn(cli, argc, argv);	/* unguarded rather than not at all */
	g->watch.cpu = -1;
	/* held from before the fork: the child's end wakes the wait, never lost */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	fflush(NULL);
	pid = fork();
	if (!pid)
		return child(cli, g, cmd, argc, argv, &old);
	if (pid < 0)
		ret = cmd->fn(cli, argc, argv);
	else if ((ret = wait_child(pid, g, &status, &stuck)) < 0)
		ret = sr_cli_error(cli, SR_EXIT_FAIL, "waitpid: %s", strerror(-ret));
	else if (WIFEXITED(status))
		ret = WEXITSTATUS(status);
	else
		ret = report_death(cli, g, WTERMSIG(status), stuck);
	sigprocmask(SIG_SETMASK, &old, NULL);
	munmap(g, sizeof(*g));
	return ret;
}
