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
 * (struct sr_trace_watch), so no signal handler and no global is needed.
 * A corrupt header can also send libtracecmd into an endless loop: a
 * library call that makes no progress for STUCK_SECONDS ends the same way.
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

static bool crash_signal(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL ||
	       sig == SIGABRT || sig == SIGSYS || sig == SIGTRAP;
}

static int child(struct sr_cli *cli, struct sr_guard *g, const struct sr_cmd *cmd, int argc,
		 char **argv, const sigset_t *mask)
{
	static const int crashes[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

	sigprocmask(SIG_SETMASK, mask, NULL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	/* a crash is the parent's to report, even under a sanitizer */
	for (size_t i = 0; i < SR_ARRAY_SIZE(crashes); i++)
		signal(crashes[i], SIG_DFL);
	cli->watch = &g->watch;
	cli->watched_path = g->path;
	cli->watched_path_size = sizeof(g->path);
	return cmd->fn(cli, argc, argv);
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
	if (g->watch.in_library)
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
