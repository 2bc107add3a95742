#!/usr/bin/python3
"""Independent face judge for heads that tilt or turn (reframe layout tests): OpenCV's Haar cascades from
Debian's opencv-data (frontal alt2 on the picture rotated by 0, ±15, ±30 and ±45 degrees; profile, also
mirrored), not the YuNet detector reframe uses. Detections of one person are merged.
Usage: faces_any_pose.py MOVIE FPS [MIN_FACE_PIXELS] [Y0 Y1]  (Y0..Y1: judge only these rows, e.g. the
sharp picture of a fit layout). Prints one JSON object per sampled frame:
{"time": seconds, "width": w, "height": h, "faces": [[x, y, w, h], ...]} in the movie's pixels."""
import json
import subprocess
import sys

import cv2
import numpy as np

path, fps = sys.argv[1], float(sys.argv[2])
minimum = int(sys.argv[3]) if len(sys.argv) > 3 else 24
probe = subprocess.check_output(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                                 "stream=width,height", "-of", "csv=p=0", path]).decode().strip().split(",")
width, height = int(probe[0]), int(probe[1])
top, bottom = (int(sys.argv[4]), int(sys.argv[5])) if len(sys.argv) > 5 else (0, height)
raw = subprocess.check_output(["ffmpeg", "-v", "error", "-i", path, "-vf", f"fps={fps}", "-f", "rawvideo",
                               "-pix_fmt", "gray", "-"])
folder = "/usr/share/opencv4/haarcascades/"
frontal = cv2.CascadeClassifier(folder + "haarcascade_frontalface_alt2.xml")
profile = cv2.CascadeClassifier(folder + "haarcascade_profileface.xml")
if frontal.empty() or profile.empty():
    sys.exit("faces_any_pose.py: the cascades are missing (apt-get install opencv-data)")


def detections(picture):
    h, w = picture.shape
    found = []
    for angle in (0, -15, 15, -30, 30, -45, 45):
        turn = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1)
        back = cv2.invertAffineTransform(turn)
        turned = cv2.warpAffine(picture, turn, (w, h)) if angle else picture
        for (x, y, fw, fh) in frontal.detectMultiScale(turned, 1.1, 5, minSize=(minimum, minimum)):
            cx, cy = x + fw / 2, y + fh / 2
            found.append((back[0, 0] * cx + back[0, 1] * cy + back[0, 2], back[1, 0] * cx + back[1, 1] * cy + back[1, 2], fw))
    for mirrored in (False, True):
        image = cv2.flip(picture, 1) if mirrored else picture
        for (x, y, fw, fh) in profile.detectMultiScale(image, 1.1, 5, minSize=(minimum, minimum)):
            cx = x + fw / 2
            found.append((w - cx if mirrored else cx, y + fh / 2, fw))
    merged = []
    for cx, cy, size in sorted(found, key=lambda f: -f[2]):
        if all(abs(cx - m[0]) > m[2] / 2 or abs(cy - m[1]) > m[2] / 2 for m in merged):
            merged.append((cx, cy, size))
    return [[int(cx - size / 2), int(cy - size / 2), int(size), int(size)] for cx, cy, size in merged]


size = width * height
for index in range(len(raw) // size):
    picture = np.frombuffer(raw[index * size:(index + 1) * size], np.uint8).reshape(height, width)
    faces = [[x, y + top, w, h] for x, y, w, h in detections(picture[top:bottom])]
    print(json.dumps({"time": index / fps, "width": width, "height": height, "faces": faces}))
