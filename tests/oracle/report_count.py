#!/usr/bin/env python3
"""Independent oracle for schedreplay, built only on `trace-cmd report` text.

It runs `trace-cmd report -N -t -i FILE` (-N: no plugins, so every event is printed with the
kernel's own print format; -t: full-precision timestamps) and parses that text only -- it
never reads the binary trace.dat itself -- to compute event counts, wakeup placement classes
and cache-hot counts as defined by the project's specification.  Output is one JSON object on
stdout:

  {"events": {...}, "wakeups": {...}, "cache_hot": {...}}

Usage:
  report_count.py FILE.dat                 run trace-cmd report on FILE.dat
  report_count.py --text REPORT.txt        parse saved `trace-cmd report -N -t` text
  options:
    --migration-cost NS     cache-hot threshold in ns (default 500000)
    --has-waking auto|yes|no
                            whether the trace "has sched_waking".  auto (default): for a .dat
                            file, ask the file for its stored event formats with
                            `trace-cmd report -E` and look for sched:sched_waking (falling back
                            to "a sched_waking line exists" if that fails); for --text, whether
                            at least one sched_waking line exists.
    Without sched_wakeup (no such format in the file; for --text, no such line) while it has
    sched_waking, each placed wakeup's chosen CPU is inferred: the dest_cpu of the task's
    first sched_migrate_task if it runs on the waker's CPU (its orig_cpu if another CPU's),
    else the CPU it switches in on, else (woken again first) the CPU it was queued on.
    --expect JSON           compare the result with this JSON file; exit 1 on mismatch
    --diag                  print diagnostics (prev_state values, timestamp ties, ...) as JSON
                            on stderr
    --trace-cmd PATH        trace-cmd binary (default: trace-cmd)
    --kernel X.Y            the recorded kernel (default: from `trace-cmd report --uname`;
                            6.12 when the file names none, as schedreplay's default preset)

A running task woken from another CPU that then switches out asleep before its sched_wakeup
was already dequeued: on 5.8+ kernels its wakeup stays runnable when that CPU switches to
idle (its wakelist) or when the waker's CPU records any event the replay reads before that
switch (a waker waiting for the switch records nothing), and becomes placed when another
task runs there (the waker selects a CPU; 5.8 - 5.19: when two or more are left there); before
5.8 it becomes placed either way.  Every CPU is taken to share one LLC, as
schedreplay assumes without --topology.

Exit status: 0 ok, 1 --expect mismatch, 2 trace-cmd failed / input unreadable, 64 usage.
Only the Python standard library is used.
"""

import argparse
import json
import re
import subprocess
import sys

# the events schedreplay's replay reads besides these: the probes, group moves
STATE_EXTRA = ("sched_stat_runtime", "srqf", "srqf_ret", "thl", "thl_ret", "fig", "fig_ret",
               "sag", "cgroup_attach_task")
TRACKED_EVENTS = (
    "sched_switch",
    "sched_waking",
    "sched_wakeup",
    "sched_wakeup_new",
    "sched_migrate_task",
    "sched_process_fork",
    "sched_process_exit",
    "sched_process_exec",
)
STATE_EVENTS = TRACKED_EVENTS + STATE_EXTRA

# Event header line of `trace-cmd report` (default, non-latency output):
#   "           sleep-688468 [005] 926697.930151545: sched_switch:         prev_comm=..."
# The comm may contain spaces and dashes; the pid is the last "-digits" before " [cpu]".
# An optional latency-flags column (e.g. "d..2.") between [cpu] and the timestamp is allowed.
# The timestamp is seconds.fraction (or a bare integer for raw counter clocks).
HEADER_RE = re.compile(
    r"^\s*(?P<comm>.*?)-(?P<pid>-?\d+)\s+\[(?P<cpu>\d+)\]\s+(?:[^\s\d][^\s]*\s+)?"
    r"(?P<ts>\d+(?:\.\d+)?):\s+(?P<event>[^\s:]+(?::[^\s:]+)?):(?P<rest>.*)$"
)

SWITCH_RE = re.compile(
    r"prev_comm=.*? prev_pid=(?P<prev_pid>-?\d+) prev_prio=-?\d+ prev_state=(?P<prev_state>\S*)"
    r" ==> next_comm=.*? next_pid=(?P<next_pid>-?\d+) next_prio=-?\d+\s*$"
)
# sched_waking / sched_wakeup / sched_wakeup_new.  Old kernels add "success=1" before target_cpu.
WAKE_RE = re.compile(
    r"comm=.*? pid=(?P<pid>-?\d+) prio=-?\d+(?: success=\d+)? target_cpu=(?P<target_cpu>\d+)\s*$"
)
MIGRATE_RE = re.compile(r"\bpid=(?P<pid>-?\d+) prio=-?\d+ orig_cpu=(?P<orig>\d+) dest_cpu=(?P<dest>\d+)")
FORK_RE = re.compile(r"child_comm=.*? child_pid=(?P<child_pid>-?\d+)\s*$")
# What trace-cmd report prints before a record that follows lost events on its CPU.
DROPPED_RE = re.compile(r"^CPU:(?P<cpu>\d+) \[(?:\d+ )?EVENTS DROPPED\]")

UNKNOWN, SLEEPING, QUEUED, RUNNING, DEAD = "unknown", "sleeping", "queued", "running", "dead"


def ts_to_ns(text):
    """Exact conversion of a printed timestamp 'SSSS.FFFFFFFFF' (or 'SSSS.FFFFFF') to ns."""
    if "." in text:
        sec, frac = text.split(".", 1)
        if len(frac) > 9:
            raise ValueError("timestamp with more than 9 fractional digits: " + text)
        return int(sec) * 1_000_000_000 + int(frac.ljust(9, "0"))
    return int(text)


def state_class(state):
    if state == SLEEPING:
        return "placed"
    if state in (RUNNING, QUEUED):
        return "runnable"
    return "unknown"  # UNKNOWN or DEAD


def is_dead_state(prev_state):
    # prev_state as printed by the kernel format: "S", "R+", "D|K", "X", "Z", ...
    return any(flag in ("X", "Z") for flag in prev_state.rstrip("+").split("|"))


def lost_windows(lines):
    """Each CPU's gaps, from the "CPU:N [EVENTS DROPPED]" lines: the record before
    the gap on that CPU (after, and its line; 0 and -1 when the gap comes first)
    and the record after it (before, and its line)."""
    windows, last, dropped = [], {}, set()
    for i, line in enumerate(lines):
        d = DROPPED_RE.match(line)
        if d:
            dropped.add(int(d.group("cpu")))
            continue
        m = HEADER_RE.match(line)
        if not m:
            continue
        cpu, ts = int(m.group("cpu")), ts_to_ns(m.group("ts"))
        if cpu in dropped:
            after, after_line = last.get(cpu, (0, -1))
            windows.append((after, ts, after_line, i))
            dropped.discard(cpu)
        last[cpu] = (ts, i)
    return windows


class Oracle:
    def __init__(self, has_waking, migration_cost, has_wakeup=True, windows=(),
                 kernel=(6, 12)):
        self.has_waking = has_waking
        self.on_cpu_wakelist = kernel >= (5, 8)
        self.on_cpu_alone = kernel >= (6, 0)   # before: "nr_running <= 1"
        self.cpu_last = {}   # cpu -> ts_ns of its last event the replay reads
        # no sched_wakeup: infer the chosen CPU (see the usage text)
        self.infer = has_waking and not has_wakeup
        self.migration_cost = migration_cost
        self.events = {name: 0 for name in TRACKED_EVENTS}
        self.events["other"] = 0
        self.placed = self.runnable = self.unknown = self.unpaired = self.wakeup_new = 0
        self.awaiting = set()   # no sched_wakeup: running tasks' wakeups awaiting a switch-out
        self.actual = {"prev": 0, "waker": 0, "other": 0}
        self.placed_hot = self.affine_hot = 0
        # lost windows: the same accounting for the wakeups that met none
        self.windows = list(windows)
        self.outside = {"placed": 0, "runnable": 0, "unknown": 0}
        self.outside_actual = {"prev": 0, "waker": 0, "other": 0}
        self.line = -1
        self.ts = 0
        self.state = {}      # pid -> state
        self.last_out = {}   # pid -> (ts_ns, cpu)
        self.pending = {}    # pid -> (ts_ns, waker_cpu, target_cpu, class)
        self.cpu_of = {}     # pid -> CPU whose runqueue holds it (or held it last)
        self.curr = {}       # cpu -> pid last switched in there
        # diagnostics
        self.diag = {
            "event_lines": 0,
            "continuation_lines": 0,
            "unparsed_sched_lines": 0,
            "prev_state_values": {},
            "ts_ties": 0,
            "ts_ties_cross_cpu": 0,
            "ts_backwards": 0,
            "pid0_wakes": 0,
            "forks_dropping_pending": 0,
            "placed_negative_delta": 0,
            "switch_out_while_not_running": 0,
        }
        self._last_ts = None
        self._last_cpu = None

    # --- wakeup accounting ------------------------------------------------------------------
    def _in_lost_window(self, t1):
        """The span from t1 to this record met a gap of some CPU: one closed by now
        whose record after the gap is no earlier than t1, or one still open (its
        record before the gap already read) that began before this record."""
        for after, before, after_line, close_line in self.windows:
            if close_line <= self.line:
                if before >= t1:
                    return True
            elif after_line < self.line and after < self.ts:
                return True
        return False

    def _count_wakeup(self, pid, cls, waker_cpu, prev_cpu, chosen, hot_ts):
        outside = not self._in_lost_window(hot_ts)
        if outside:
            self.outside[cls if cls in self.outside else "unknown"] += 1
        if cls == "placed":
            self.placed += 1
            if chosen == prev_cpu:
                actual = "prev"
            elif chosen == waker_cpu:
                actual = "waker"
            else:
                actual = "other"
            self.actual[actual] += 1
            if outside:
                self.outside_actual[actual] += 1
            last = self.last_out.get(pid)
            if last is not None:
                delta = hot_ts - last[0]
                if delta < 0:
                    self.diag["placed_negative_delta"] += 1
                # "after" its last switch-out: a switch-out seen after the waking (a
                # switch-in that was not recorded, closed late) says nothing
                if 0 <= delta < self.migration_cost:
                    self.placed_hot += 1
                    if actual == "waker":
                        self.affine_hot += 1
        elif cls == "runnable":
            self.runnable += 1
        else:
            self.unknown += 1

    # --- event handlers -----------------------------------------------------------------
    def _infer_close(self, pid, chosen):
        """Close a placed wakeup of a trace without sched_wakeup with @chosen."""
        w_ts, w_cpu, w_target, cls = self.pending.pop(pid)
        self._count_wakeup(pid, cls, w_cpu, w_target, chosen, w_ts)

    def _descheduled(self, pid, cpu, next_pid):
        """A pending runnable wakeup from another CPU whose task leaves asleep."""
        w = self.pending.get(pid)
        if not w or w[3] != "runnable" or w[1] == cpu:
            return
        if self.on_cpu_wakelist and (next_pid == 0 or self.cpu_last.get(w[1], 0) > w[0]):
            return
        if self.on_cpu_wakelist and not self.on_cpu_alone:
            left = sum(1 for q, st in self.state.items() if q not in (pid, next_pid) and
                       st in (RUNNING, QUEUED) and self.cpu_of.get(q) == cpu)
            if left == 0:
                return
        self.pending[pid] = (w[0], w[1], w[2], "placed")

    def _awaited_switch_out(self, pid, cpu):
        """Without sched_wakeup: a running task's wakeup waited for this switch-out."""
        if pid not in self.awaiting:
            return
        self.awaiting.discard(pid)
        if self.pending[pid][3] == "placed":
            self.state[pid] = QUEUED        # inferred as any placed wakeup from here
            self.cpu_of[pid] = cpu
        else:
            self._infer_close(pid, cpu)

    def _inferring(self, pid):
        return self.infer and pid in self.pending and self.pending[pid][3] == "placed"

    def on_switch(self, ts, cpu, rest):
        m = SWITCH_RE.search(rest)
        if not m:
            self.diag["unparsed_sched_lines"] += 1
            return
        prev_pid = int(m.group("prev_pid"))
        next_pid = int(m.group("next_pid"))
        if self._inferring(next_pid):
            self._infer_close(next_pid, cpu)
        prev_state = m.group("prev_state")
        pv = self.diag["prev_state_values"]
        pv[prev_state] = pv.get(prev_state, 0) + 1
        # Resync rule 1: the task last switched in here is not the one leaving: its
        # switch-out was not recorded, so its state is unknown.
        cur = self.curr.get(cpu)
        if cur is not None and cur != prev_pid and cur != 0:
            if self.state.get(cur) == RUNNING and self.cpu_of.get(cur) == cpu:
                self.state[cur] = UNKNOWN
                self.diag["resync_missed_switch_out"] = self.diag.get("resync_missed_switch_out", 0) + 1
        self.curr[cpu] = next_pid
        if prev_pid != 0:
            self.cpu_of[prev_pid] = cpu
            if self.state.get(prev_pid, RUNNING) != RUNNING:
                # switched out although its switch-in was never seen since it last left a CPU
                self.diag["switch_out_while_not_running"] += 1
            if is_dead_state(prev_state):
                self.state[prev_pid] = DEAD
            elif prev_state.startswith("R"):
                self.state[prev_pid] = QUEUED
            else:
                self.state[prev_pid] = SLEEPING
                self._descheduled(prev_pid, cpu, next_pid)
            self.last_out[prev_pid] = (ts, cpu)
            self._awaited_switch_out(prev_pid, cpu)
        if next_pid == 0:
            # Resync rule 2: the idle task runs only on an empty runqueue.
            for pid, st in self.state.items():
                if st in (RUNNING, QUEUED) and self.cpu_of.get(pid) == cpu:
                    self.state[pid] = UNKNOWN
                    self.diag["resync_idle"] = self.diag.get("resync_idle", 0) + 1
        if next_pid != 0:
            self.state[next_pid] = RUNNING
            self.cpu_of[next_pid] = cpu

    def resync_current(self, cpu, pid):
        """Resync rule 3: a sched event's common pid is the task current on its CPU.

        When it is not the task last switched in there, a switch was not recorded:
        the old task's state becomes unknown and the named task is running.
        """
        cur = self.curr.get(cpu)
        if cur is None or cur == pid:
            return
        if cur != 0 and self.state.get(cur) == RUNNING and self.cpu_of.get(cur) == cpu:
            self.state[cur] = UNKNOWN
        if pid != 0:
            self.state[pid] = RUNNING
            self.cpu_of[pid] = cpu
        self.curr[cpu] = pid
        self.diag["resync_common_pid"] = self.diag.get("resync_common_pid", 0) + 1

    def on_waking(self, ts, cpu, rest):
        m = WAKE_RE.search(rest)
        if not m:
            self.diag["unparsed_sched_lines"] += 1
            return
        pid = int(m.group("pid"))
        if pid == 0:
            self.diag["pid0_wakes"] += 1
            return
        target = int(m.group("target_cpu"))
        if pid in self.awaiting:
            # woken again while it still ran: the first wakeup ran no selection
            self.awaiting.discard(pid)
            self._infer_close(pid, self.cpu_of.get(pid))
        if self._inferring(pid):
            # woken again before it was seen running: where it was queued
            self._infer_close(pid, self.cpu_of.get(pid))
        if pid in self.pending:
            self.unpaired += 1
        cls = state_class(self.state.get(pid, UNKNOWN))
        self.pending[pid] = (ts, cpu, target, cls)
        if not self.infer:
            return
        if (cls == "runnable" and self.state.get(pid) == RUNNING and
                self.cpu_of.get(pid) is not None and self.cpu_of.get(pid) != cpu):
            self.awaiting.add(pid)              # running elsewhere: see its switch-out
        elif cls != "placed":
            self._infer_close(pid, target)      # no selection ran: complete at once
        else:
            self.state[pid] = QUEUED
            self.cpu_of[pid] = target

    def on_wakeup(self, ts, cpu, rest):
        m = WAKE_RE.search(rest)
        if not m:
            self.diag["unparsed_sched_lines"] += 1
            return
        pid = int(m.group("pid"))
        if pid == 0:
            self.diag["pid0_wakes"] += 1
            return
        chosen = int(m.group("target_cpu"))
        pend = self.pending.pop(pid, None)
        if pend is not None:
            w_ts, w_cpu, w_target, cls = pend
            self._count_wakeup(pid, cls, w_cpu, w_target, chosen, w_ts)
        elif self.has_waking:
            self.unpaired += 1
        else:
            last = self.last_out.get(pid)
            if last is None:
                cls = "unknown"
                prev_cpu = None
            else:
                cls = state_class(self.state.get(pid, UNKNOWN))
                prev_cpu = last[1]
            self._count_wakeup(pid, cls, cpu, prev_cpu, chosen, ts)
        self.state[pid] = QUEUED
        self.cpu_of[pid] = chosen

    def on_wakeup_new(self, ts, cpu, rest):
        self.wakeup_new += 1
        m = WAKE_RE.search(rest)
        if not m:
            self.diag["unparsed_sched_lines"] += 1
            return
        pid = int(m.group("pid"))
        if pid != 0:
            self.state[pid] = QUEUED
            self.cpu_of[pid] = int(m.group("target_cpu"))

    def on_migrate(self, ts, cpu, rest):
        m = MIGRATE_RE.search(rest)
        if not m:
            self.diag["unparsed_sched_lines"] += 1
            return
        pid = int(m.group("pid"))
        if self._inferring(pid):
            waker_cpu = self.pending[pid][1]
            self._infer_close(pid, int(m.group("dest")) if cpu == waker_cpu
                              else int(m.group("orig")))
        if pid != 0:
            self.cpu_of[pid] = int(m.group("dest"))

    def on_fork(self, ts, cpu, rest):
        m = FORK_RE.search(rest)
        if not m:
            self.diag["unparsed_sched_lines"] += 1
            return
        child = int(m.group("child_pid"))
        if child == 0:
            return
        self.state.pop(child, None)
        self.last_out.pop(child, None)
        self.cpu_of.pop(child, None)
        if self.pending.pop(child, None) is not None:
            self.diag["forks_dropping_pending"] += 1

    # --- driver -------------------------------------------------------------------------
    def feed_line(self, line):
        self.line += 1
        m = HEADER_RE.match(line)
        if not m:
            # "cpus=N" header, blank lines, continuation lines of multi-line events
            # (kernel_stack "=> func"), ... : not events.
            if line.strip() and not line.startswith("cpus="):
                self.diag["continuation_lines"] += 1
            return
        self.diag["event_lines"] += 1
        event = m.group("event")
        cpu = int(m.group("cpu"))
        ts = ts_to_ns(m.group("ts"))
        self.ts = ts
        if self._last_ts is not None:
            if ts == self._last_ts:
                self.diag["ts_ties"] += 1
                if cpu != self._last_cpu:
                    self.diag["ts_ties_cross_cpu"] += 1
            elif ts < self._last_ts:
                self.diag["ts_backwards"] += 1
        self._last_ts, self._last_cpu = ts, cpu
        if event in STATE_EVENTS:
            self.cpu_last[cpu] = ts

        if event in self.events and event != "other":
            self.events[event] += 1
        else:
            self.events["other"] += 1
            if event == "sched_stat_runtime":
                self.resync_current(cpu, int(m.group("pid")))
            return
        rest = m.group("rest")
        if event != "sched_switch":
            self.resync_current(cpu, int(m.group("pid")))
        if event == "sched_switch":
            self.on_switch(ts, cpu, rest)
        elif event == "sched_waking":
            self.on_waking(ts, cpu, rest)
        elif event == "sched_wakeup":
            self.on_wakeup(ts, cpu, rest)
        elif event == "sched_wakeup_new":
            self.on_wakeup_new(ts, cpu, rest)
        elif event == "sched_process_fork":
            self.on_fork(ts, cpu, rest)
        elif event == "sched_migrate_task":
            self.on_migrate(ts, cpu, rest)

    def finish(self):
        for pid in list(self.awaiting):
            self._infer_close(pid, self.cpu_of.get(pid))
        self.awaiting.clear()
        self.unpaired += len(self.pending)
        self.pending.clear()
        return {
            "events": dict(self.events),
            "wakeups": {
                "placed": self.placed,
                "runnable": self.runnable,
                "unknown": self.unknown,
                "unpaired": self.unpaired,
                "wakeup_new": self.wakeup_new,
                "actual": dict(self.actual),
                "in_lost_windows": self.placed + self.runnable + self.unknown
                - sum(self.outside.values()),
                "outside_lost_windows": dict(self.outside, actual=dict(self.outside_actual)),
            },
            "cache_hot": {
                "placed_hot": self.placed_hot,
                "affine_hot": self.affine_hot,
                "migration_cost_ns": self.migration_cost,
            },
        }


def has_waking_from_formats(trace_cmd, path, event="sched_waking"):
    """Ask the file whether it stores @event's format (`trace-cmd report -E`).

    Returns True/False, or None if the question could not be answered.
    """
    try:
        p = subprocess.run([trace_cmd, "report", "-E", "-i", path],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, errors="replace")
    except OSError:
        return None
    if p.returncode != 0:
        return None
    names = {ln.strip() for ln in p.stdout.splitlines()}
    if not names:
        return None
    return "sched:" + event in names


def text_has_waking_line(lines, event="sched_waking"):
    for line in lines:
        m = HEADER_RE.match(line)
        if m and m.group("event") == event:
            return True
    return False


def kernel_version(args):
    """(major, minor) of the recorded kernel: --kernel, the file's uname, else 6.12."""
    text = args.kernel
    if text is None and args.file is not None:
        try:
            out = subprocess.run([args.trace_cmd, "report", "--uname", "-i", args.file],
                                 capture_output=True, text=True, timeout=60).stdout
            m = re.search(r"^Linux \S+ (\d+\.\d+)", out, re.M)
            text = m.group(1) if m else None
        except (OSError, subprocess.SubprocessError):
            text = None
    m = re.match(r"(\d+)\.(\d+)", text or "6.12")
    return (int(m.group(1)), int(m.group(2)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?", help="trace.dat file")
    ap.add_argument("--text", help="parse saved `trace-cmd report -N -t` text instead")
    ap.add_argument("--migration-cost", type=int, default=500000, metavar="NS")
    ap.add_argument("--has-waking", choices=("auto", "yes", "no"), default="auto")
    ap.add_argument("--expect", metavar="JSON")
    ap.add_argument("--diag", action="store_true")
    ap.add_argument("--trace-cmd", default="trace-cmd")
    ap.add_argument("--kernel", metavar="X.Y")
    args = ap.parse_args(argv)
    if (args.file is None) == (args.text is None):
        ap.print_usage(sys.stderr)
        print("report_count.py: give exactly one of FILE or --text REPORT", file=sys.stderr)
        return 64

    how = None
    if args.text is not None:
        try:
            with open(args.text, encoding="utf-8", errors="replace") as f:
                lines = f.read().splitlines()
        except OSError as e:
            print("report_count.py: %s" % e, file=sys.stderr)
            return 2
        if args.has_waking == "auto":
            has_waking = text_has_waking_line(lines)
            how = "sched_waking line present" if has_waking else "no sched_waking line"
        else:
            has_waking = args.has_waking == "yes"
            how = "--has-waking " + args.has_waking
        source = iter(lines)
        proc = None
    else:
        if args.has_waking == "auto":
            has_waking = has_waking_from_formats(args.trace_cmd, args.file)
            how = "trace-cmd report -E formats"
        else:
            has_waking = args.has_waking == "yes"
            how = "--has-waking " + args.has_waking
        try:
            proc = subprocess.Popen([args.trace_cmd, "report", "-N", "-t", "-i", args.file],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    universal_newlines=True, errors="replace")
        except OSError as e:
            print("report_count.py: cannot run %s: %s" % (args.trace_cmd, e), file=sys.stderr)
            return 2
        if has_waking is None:
            # Formats unavailable: fall back to "at least one sched_waking line". That needs
            # the whole text before processing, so buffer it.
            text_lines = proc.stdout.read().splitlines()
            has_waking = text_has_waking_line(text_lines)
            how = "fallback: sched_waking line present" if has_waking else \
                  "fallback: no sched_waking line"
            source = iter(text_lines)
        else:
            source = (ln.rstrip("\n") for ln in proc.stdout)

    # The task current on each CPU when the trace starts is the common pid of that CPU's
    # first event (nothing switched before it): read all lines first to know it.
    lines_all = list(source)
    if args.text is not None:
        has_wakeup = text_has_waking_line(lines_all, "sched_wakeup")
    else:
        has_wakeup = has_waking_from_formats(args.trace_cmd, args.file, "sched_wakeup")
        if has_wakeup is None:
            has_wakeup = text_has_waking_line(lines_all, "sched_wakeup")
    oracle = Oracle(has_waking, args.migration_cost, has_wakeup, lost_windows(lines_all),
                    kernel_version(args))
    for line in lines_all:
        m = HEADER_RE.match(line)
        if m and int(m.group("cpu")) not in oracle.curr:
            oracle.curr[int(m.group("cpu"))] = int(m.group("pid"))
    for line in lines_all:
        oracle.feed_line(line)

    if proc is not None:
        proc.stdout.close()
        err = proc.stderr.read()
        rc = proc.wait()
        if rc != 0:
            sys.stderr.write(err)
            print("report_count.py: trace-cmd report failed on %s (exit %d)" % (args.file, rc),
                  file=sys.stderr)
            return 2

    result = oracle.finish()
    if args.diag:
        d = dict(oracle.diag)
        d["has_waking"] = has_waking
        d["has_waking_decided_by"] = how
        print(json.dumps(d, sort_keys=True), file=sys.stderr)
    print(json.dumps(result))

    if args.expect:
        with open(args.expect, encoding="utf-8") as f:
            expected = json.load(f)
        if expected != result:
            print("report_count.py: MISMATCH against %s" % args.expect, file=sys.stderr)
            for sect in sorted(set(expected) | set(result)):
                e, r = expected.get(sect), result.get(sect)
                if e != r:
                    print("  %s: expected %s\n  %s  got      %s"
                          % (sect, json.dumps(e, sort_keys=True), " " * len(sect),
                             json.dumps(r, sort_keys=True)), file=sys.stderr)
            return 1
        print("report_count.py: matches %s" % args.expect, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
