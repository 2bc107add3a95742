#!/usr/bin/python3
"""Wall and CPU of one or more keeptrack builds against the same-path ffmpeg crop + encode, interleaved in one run (the
time half of bench/footage.py, without the framing judge, for comparing builds side by side on a loaded machine).

usage: bench/footage_ab.py RUNS KEEPTRACK [KEEPTRACK...] -- CLIP...
Per clip: the first build's --plan-out path is sent to ffmpeg's crop filter (as bench/footage.py does), then one
warm-up and RUNS rounds of ffmpeg, build 1, build 2, ...; prints median CPU (user + system), each build's ratio to
ffmpeg (of the medians, and of the fastest runs: on a VM whose neighbours slow some runs by 15 %, the fastest run
is the least disturbed one), the same for wall time (and the median of each round's own wall ratio, "paired"), its median system time and minor faults, and every run's CPU (the spread says how
loaded the machine was).
"""
import json, os, statistics, subprocess, sys, tempfile, time


def timed(command):
    """(user, system, minor faults, wall) of one run."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            err.seek(0)
            sys.exit(f"failed: {' '.join(command)}\n{err.read().decode(errors='replace')[-2000:]}")
    return usage.ru_utime, usage.ru_stime, usage.ru_minflt, wall


def main():
    args = sys.argv[1:]
    if "--" not in args or len(args) < 4:
        sys.exit(__doc__)
    runs, builds, clips = int(args[0]), args[1:args.index("--")], args[args.index("--") + 1:]
    work = tempfile.mkdtemp(prefix="keeptrack-footage-ab.")
    print("load average at start:", open("/proc/loadavg").read().split()[:3])
    for clip in clips:
        plan, out = os.path.join(work, "plan.json"), os.path.join(work, "kt.mp4")
        summary = json.loads(subprocess.check_output([builds[0], "reframe", clip, out, "--force", "--json", "--plan-out", plan],
                                                     stderr=subprocess.DEVNULL))
        video, path = summary["video"], json.load(open(plan))
        first, previous, moves = path["frames"][0]["time"], path["frames"][0]["x"], []
        for frame in path["frames"][1:]:
            if frame["x"] != previous:
                moves.append(f"{max(0.0, frame['time'] - first - 0.001):.4f} crop x {frame['x']};\n")
                previous = frame["x"]
        commands = os.path.join(work, "path.cmd")
        with open(commands, "w") as f:
            f.writelines(moves)
        crop = f"crop={video['cropWidth']}:{video['cropHeight']}:{path['frames'][0]['x']}:0"
        ffmpeg = ["ffmpeg", "-v", "error", "-y", "-i", clip, "-map", "0:v:0", "-map", "0:a?", "-vf",
                  f"sendcmd=f={commands},{crop}" if moves else crop,
                  "-c:v", "libx264", "-preset", "medium", "-crf", "20", "-c:a", "copy", os.path.join(work, "same.mp4")]
        labelled = [("ffmpeg", ffmpeg)] + [(build, [build, "reframe", clip, out, "--force", "--preset", "medium", "--crf", "20"])
                                           for build in builds]
        for _, command in labelled:
            timed(command)
        results = {label: [] for label, _ in labelled}
        for _ in range(runs):
            for label, command in labelled:
                results[label].append(timed(command))
        cpu = {label: statistics.median(u + s for u, s, _, _ in r) for label, r in results.items()}
        wall = {label: statistics.median(w for _, _, _, w in r) for label, r in results.items()}
        line = (f"{os.path.basename(clip)}: ffmpeg wall {wall['ffmpeg']:.2f} s, CPU {cpu['ffmpeg']:.2f} s"
                f" (runs {' '.join(f'{u + s:.2f}' for u, s, _, _ in results['ffmpeg'])})")
        for build in builds:
            r = results[build]
            fastest = min(u + s for u, s, _, _ in r) / min(u + s for u, s, _, _ in results['ffmpeg'])
            # Each round's own ratio (the ffmpeg run just before): a neighbour slowing the VM for a while
            # slows both alike, where the ratio of the medians mixes slow and fast rounds.
            paired = statistics.median(w / f for (_, _, _, w), (_, _, _, f) in zip(r, results['ffmpeg']))
            line += (f" | {build}: wall {wall[build]:.2f} s, wall ratio {wall[build] / wall['ffmpeg']:.3f} (paired {paired:.3f});"
                     f" CPU {cpu[build]:.2f} s, ratio {cpu[build] / cpu['ffmpeg']:.3f} (fastest runs {fastest:.3f}), sys {statistics.median(s for _, s, _, _ in r):.2f},"
                     f" minflt {statistics.median(m for _, _, m, _ in r):.0f} (runs {' '.join(f'{u + s:.2f}' for u, s, _, _ in r)})")
        print(line, flush=True)
    print("load average at end:", open("/proc/loadavg").read().split()[:3])


if __name__ == "__main__":
    main()
