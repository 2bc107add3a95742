#!/usr/bin/env python3
"""Runs commands side by side and reports median wall time, CPU time, peak RSS and ratios as a Markdown table.

usage: measure.py --runs N --title TITLE [--baseline LABEL] --cmd LABEL 'shell command' [--cmd LABEL 'cmd' ...]
       [--before 'shell command run before each timed run (not timed)']

Each command runs N times (after one warm-up run), interleaved, so every tool sees the same cache
state. CPU time (user + system) comes from wait4()'s rusage of the child. Peak RSS comes from GNU time
(`%M`) wrapped around the command: wait4's ru_maxrss of a child forked from this script counts this
Python process's resident pages (~15 MiB) until the exec, so even /bin/true showed 14.8 MiB (and a
grown parent made `keeptrack --help` look like 19.3 MiB). Without /usr/bin/time the wait4 figure is
used and the table says so. On a shared, busy machine wall time includes waiting for a core; CPU time does not.
"""
import argparse, os, statistics, subprocess, sys, tempfile, time

GNU_TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None

def run_once(command, before):
    if before:
        subprocess.run(before, shell=True, check=True)
    start = time.perf_counter()
    # stderr goes to a file, not a pipe: a chatty tool must not block on a full pipe.
    with tempfile.TemporaryFile() as errfile, tempfile.NamedTemporaryFile() as rssfile:
        argv = ["/bin/sh", "-c", "exec " + command]
        if GNU_TIME:
            argv = [GNU_TIME, "-f", "%M", "-o", rssfile.name] + argv
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=errfile)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        errfile.seek(0)
        err = errfile.read().decode(errors="replace")
        # GNU time writes "Command exited with non-zero status N" before the figure when there is one.
        peak = int(rssfile.read().split()[-1]) / 1024.0 if GNU_TIME else usage.ru_maxrss / 1024.0
    code = os.waitstatus_to_exitcode(status)
    return elapsed, peak, usage.ru_utime + usage.ru_stime, code, err

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--title", required=True)
    parser.add_argument("--baseline")
    parser.add_argument("--before")
    parser.add_argument("--cmd", nargs=2, action="append", metavar=("LABEL", "COMMAND"), required=True)
    args = parser.parse_args()
    results = {label: [] for label, _ in args.cmd}
    cpu = {label: [] for label, _ in args.cmd}
    rss = {label: 0.0 for label, _ in args.cmd}
    codes = {label: 0 for label, _ in args.cmd}
    errors = {}
    for label, command in args.cmd:  # warm-up
        run_once(command, args.before)
    for _ in range(args.runs):
        for label, command in args.cmd:
            elapsed, peak, cpu_time, code, err = run_once(command, args.before)
            results[label].append(elapsed)
            cpu[label].append(cpu_time)
            rss[label] = max(rss[label], peak)
            codes[label] = code
            if code != 0:
                errors[label] = err.strip().splitlines()[-1:] if err.strip() else ["(no message)"]
    baseline = args.baseline or args.cmd[0][0]
    base = statistics.median(results[baseline])
    print(f"\n### {args.title}\n")
    rss_note = "" if GNU_TIME else " (wait4, includes this script's pages)"
    print(f"| command | median wall (s) | ratio to {baseline} | wall min–max (s) | median CPU (s) | peak RSS (MiB){rss_note} | exit |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for label, command in args.cmd:
        median = statistics.median(results[label])
        spread = f"{min(results[label]):.3f}–{max(results[label]):.3f}"
        print(f"| `{command}` | {median:.4f} | {median / base:.2f}× | {spread} | {statistics.median(cpu[label]):.4f} | {rss[label]:.1f} | {codes[label]} |")
    for label, message in errors.items():
        print(f"\n{label} exited non-zero: `{message[0][:200]}`")
    print(f"\n{args.runs} runs each after one warm-up, interleaved.")

if __name__ == "__main__":
    main()
