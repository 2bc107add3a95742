#!/usr/bin/python3
"""reframe on real footage and synthetic scenes: time against a plain ffmpeg crop + encode at the same
settings, and framing judged by an independent face detector (OpenCV's Haar cascade,
Tests/KeepTrackTests/Judge/haar_faces.py), for keeptrack and for a plain centre crop.

usage: footage.py --keeptrack BIN --runs N --work DIR CLIP...   (prints a Markdown table)

Per clip:
- time: median wall and CPU (user + system) of `keeptrack reframe CLIP OUT --preset medium --crf 20` and of
  `ffmpeg -i CLIP -vf sendcmd=f=PATH,crop=W:H:X:0 -c:v libx264 -preset medium -crf 20 -c:a copy`: the same crop
  size moved along the same path (keeptrack's --plan-out, sent to ffmpeg's crop filter frame by frame), so both
  encoders see the same pictures; N runs each after one warm-up, interleaved; ratio = keeptrack / ffmpeg.
  (A panning crop costs x264 more than a fixed one: up to 1.4× on the talking head.)
- kept: of the frames (2 a second) where the judge finds a face in the source, the share where it finds
  one in the output.
- centred: median distance of the output's largest face from the crop's centre line, in % of the crop
  width, over frames where the crop rests (does not move within ±0.5 s).
- jitter: mean |second difference| of the crop position, px per frame² within shots (0 for a fixed crop);
  reversals: changes of pan direction within a shot.
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, time

JUDGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "KeepTrackTests", "Judge", "haar_faces.py")


def timed(command):
    start = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            err.seek(0)
            sys.exit(f"failed: {' '.join(command)}\n{err.read().decode(errors='replace')[-2000:]}")
    return elapsed, usage.ru_utime + usage.ru_stime


def judged(path, fps=2):
    out = subprocess.check_output(["/usr/bin/python3", JUDGE, path, str(fps)]).decode()
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def largest(sample):
    return max(sample["faces"], key=lambda f: f[2] * f[3]) if sample["faces"] else None


def path_metrics(xs, cuts):
    """Jitter (mean |second difference|) and reversals within shots of a per-frame crop position."""
    bounds = [0] + sorted(cuts) + [len(xs)]
    seconds, reversals = [], 0
    for start, end in zip(bounds, bounds[1:]):
        shot = xs[start:end]
        seconds += [abs(shot[i + 1] - 2 * shot[i] + shot[i - 1]) for i in range(1, len(shot) - 1)]
        direction = 0
        for a, b in zip(shot, shot[1:]):
            if b != a:
                step = 1 if b > a else -1
                if direction and step != direction:
                    reversals += 1
                direction = step
    return (statistics.mean(seconds) if seconds else 0.0), reversals


def framing(source_faces, output, rest):
    out = judged(output)
    with_face = [i for i, s in enumerate(source_faces) if s["faces"]]
    kept = [i for i in with_face if i < len(out) and out[i]["faces"]]
    offsets = []
    for i, sample in enumerate(out):
        face = largest(sample)
        if face and rest(sample["time"]):
            offsets.append(abs(face[0] + face[2] / 2 - sample["width"] / 2) / sample["width"])
    kept_share = f"{len(kept)}/{len(with_face)}" if with_face else "–"
    centred = f"{100 * statistics.median(offsets):.1f} %" if offsets else "–"
    return kept_share, centred


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--keeptrack", required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--work", required=True)
    parser.add_argument("clips", nargs="+")
    args = parser.parse_args()
    rows = []
    for clip in args.clips:
        name = os.path.basename(clip)
        kt_out, ff_out, plan = (os.path.join(args.work, n) for n in ("keeptrack.mp4", "centre.mp4", "plan.json"))
        summary = json.loads(subprocess.check_output([args.keeptrack, "reframe", clip, kt_out, "--force", "--json",
                                                      "--plan-out", plan], stderr=subprocess.DEVNULL))
        video = summary["video"]
        path = json.load(open(plan))
        width = summary["source"]["displayWidth"]
        cw, ch = video["cropWidth"], video["cropHeight"]
        centre_x = (width - cw) // 2 // 2 * 2
        commands = os.path.join(args.work, "path.cmd")
        first_time = path["frames"][0]["time"]
        moves = []
        previous = path["frames"][0]["x"]
        for frame in path["frames"][1:]:
            if frame["x"] != previous:
                moves.append(f"{max(0.0, frame['time'] - first_time - 0.001):.4f} crop x {frame['x']};\n")
                previous = frame["x"]
        with open(commands, "w") as f:
            f.writelines(moves)
        crop = f"crop={cw}:{ch}:{path['frames'][0]['x']}:0"
        same_cmd = ["ffmpeg", "-v", "error", "-y", "-i", clip, "-map", "0:v:0", "-map", "0:a?", "-vf",
                    f"sendcmd=f={commands},{crop}" if moves else crop,
                    "-c:v", "libx264", "-preset", "medium", "-crf", "20", "-c:a", "copy", os.path.join(args.work, "same.mp4")]
        kt_cmd = [args.keeptrack, "reframe", clip, kt_out, "--force", "--preset", "medium", "--crf", "20"]
        ff_cmd = ["ffmpeg", "-v", "error", "-y", "-i", clip, "-map", "0:v:0", "-map", "0:a?", "-vf", f"crop={cw}:{ch}:{centre_x}:0",
                  "-c:v", "libx264", "-preset", "medium", "-crf", "20", "-c:a", "copy", ff_out]
        timed(same_cmd), timed(ff_cmd), timed(kt_cmd)  # warm-up
        walls = {"ff": [], "kt": []}
        cpus = {"ff": [], "kt": []}
        centre_wall, centre_cpu = timed(ff_cmd)
        for _ in range(args.runs):
            for label, command in (("ff", same_cmd), ("kt", kt_cmd)):
                wall, cpu = timed(command)
                walls[label].append(wall)
                cpus[label].append(cpu)
        med = {k: statistics.median(v) for k, v in walls.items()}
        cpu = {k: statistics.median(v) for k, v in cpus.items()}
        xs = [frame["x"] for frame in path["frames"]]
        times = [frame["time"] for frame in path["frames"]]
        jitter, reversals = path_metrics(xs, path["cuts"])

        def resting(t):
            near = [x for x, ft in zip(xs, times) if abs(ft - t) <= 0.5]
            return len(set(near)) <= 1

        source_faces = judged(clip)
        kt_kept, kt_centred = framing(source_faces, kt_out, resting)
        cc_kept, cc_centred = framing(source_faces, ff_out, lambda t: True)
        rows.append(f"| {name} | {med['ff']:.2f} / {med['kt']:.2f} | **{med['kt'] / med['ff']:.2f}×** | "
                    f"{cpu['ff']:.2f} / {cpu['kt']:.2f} | {cpu['kt'] / cpu['ff']:.2f}× | "
                    f"{kt_kept} / {cc_kept} | {kt_centred} / {cc_centred} | {jitter:.2f} / 0 | {reversals} / 0 | "
                    f"{summary['subject']['analysedFrames']} | {cpu['kt'] / centre_cpu:.2f}× |")
        print(rows[-1], file=sys.stderr)
    print("| clip | wall s ffmpeg / keeptrack | wall ratio | CPU s ffmpeg / keeptrack | CPU ratio | "
          "face kept: keeptrack / centre crop | centred at rest | jitter px/frame² | reversals | detections | "
          "CPU ratio to a fixed centre crop (1 run) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for row in rows:
        print(row)


if __name__ == "__main__":
    main()
