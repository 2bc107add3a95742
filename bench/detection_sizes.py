#!/usr/bin/python3
"""YuNet (the wheel reframe links, .deps/yuface) recall by detector picture size: for 3 frames a second of each
clip, the faces found (confidence >= 60) on the picture scaled to a longest side of 480 px (what reframe's full
detection sees), bucketed by their height there, and whether each is found again (IoU > 0.3) at smaller sizes;
also the share of OpenCV Haar faces (the independent judge) each size finds, and YuNet's CPU per call.

usage: /usr/bin/python3 bench/detection_sizes.py CLIP...   (OMP_NUM_THREADS=1, as reframe runs it)"""
import sys, subprocess, time, json, os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '.deps', 'yuface'))
os.environ.setdefault('OMP_NUM_THREADS', '1')
import numpy as np, cv2, yuface
SIZES = [480, 360, 320, 280, 240, 200, 160]
BUCKETS = [0, 20, 28, 36, 48, 64, 96, 10000]
cascade = cv2.CascadeClassifier("/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml")
def frames(path, fps):
    w, h = map(int, subprocess.check_output(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0", path]).decode().split(",")[:2])
    raw = subprocess.check_output(["ffmpeg", "-v", "error", "-i", path, "-vf", f"fps={fps}", "-f", "rawvideo", "-pix_fmt", "bgr24", "-"])
    n = w * h * 3
    for i in range(len(raw) // n):
        yield np.frombuffer(raw[i*n:(i+1)*n], np.uint8).reshape(h, w, 3)
def det(img, side):
    h, w = img.shape[:2]
    f = min(1.0, side / max(w, h))
    sw, sh = max(2, round(w * f / 2) * 2), max(2, round(h * f / 2) * 2)
    small = cv2.resize(img, (sw, sh), interpolation=cv2.INTER_LINEAR)
    t = time.process_time()
    confs, boxes, _ = yuface.detect(np.ascontiguousarray(small), conf=0.6)
    t = time.process_time() - t
    sx, sy = w / sw, h / sh
    return [(b[0]*sx, b[1]*sy, b[2]*sx, b[3]*sy) for b in boxes], t, (sw, sh)
def iou(a, b):
    x1, y1 = max(a[0], b[0]), max(a[1], b[1]); x2, y2 = min(a[0]+a[2], b[0]+b[2]), min(a[1]+a[3], b[1]+b[3])
    i = max(0, x2-x1) * max(0, y2-y1); return i / (a[2]*a[3] + b[2]*b[3] - i + 1e-9)
def bucket(v):
    for i in range(len(BUCKETS)-1):
        if BUCKETS[i] <= v < BUCKETS[i+1]: return f"{BUCKETS[i]}-{BUCKETS[i+1]}"
total = {s: {} for s in SIZES}; haar = {s: [0, 0] for s in SIZES}; times = {s: [] for s in SIZES}
for clip in sys.argv[1:]:
    per = {s: {} for s in SIZES}; ph = {s: [0, 0] for s in SIZES}
    for img in frames(clip, 3):
        found = {}
        for s in SIZES:
            found[s], t, dims = det(img, s); times[s].append((t, dims))
        ref = found[480]
        factor480 = min(1.0, 480 / max(img.shape[:2]))
        for face in ref:
            b = bucket(face[3] * factor480)   # face height in 480-picture px
            for s in SIZES:
                hit = any(iou(face, g) > 0.3 for g in found[s])
                for d in (per[s], total[s]):
                    d.setdefault(b, [0, 0]); d[b][0] += hit; d[b][1] += 1
        gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY); m = max(24, img.shape[0] // 10)
        for hf in cascade.detectMultiScale(gray, scaleFactor=1.1, minNeighbors=6, minSize=(m, m)):
            for s in SIZES:
                hit = any(iou(tuple(hf), g) > 0.2 for g in found[s])
                for d in (ph[s], haar[s]): d[0] += hit; d[1] += 1
    print(os.path.basename(clip), "haar recall:", {s: f"{ph[s][0]}/{ph[s][1]}" for s in SIZES})
    for s in SIZES: print("  ", s, {b: f"{v[0]}/{v[1]}" for b, v in sorted(per[s].items(), key=lambda kv: int(kv[0].split('-')[0]))})
print("ALL haar recall:", {s: f"{haar[s][0]}/{haar[s][1]}" for s in SIZES})
for s in SIZES: print("ALL", s, {b: f"{v[0]}/{v[1]}" for b, v in sorted(total[s].items(), key=lambda kv: int(kv[0].split('-')[0]))})
for s in SIZES:
    ts = sorted(t for t, _ in times[s]); print("time", s, f"median {1000*ts[len(ts)//2]:.1f} ms", "dims", times[s][0][1])
