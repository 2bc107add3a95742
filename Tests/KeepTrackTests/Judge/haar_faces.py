#!/usr/bin/python3
"""Independent face judge for reframe tests: OpenCV's Haar cascade (Debian's opencv-data, python3-opencv),
not the YuNet detector reframe itself uses. Prints one JSON object per sampled frame:
{"time": seconds, "width": w, "height": h, "faces": [[x, y, w, h], ...]} for `fps` frames a second."""
import json
import subprocess
import sys

import cv2
import numpy as np

path, fps = sys.argv[1], float(sys.argv[2])
probe = subprocess.check_output(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                                 "stream=width,height", "-of", "csv=p=0", path]).decode().strip().split(",")
width, height = int(probe[0]), int(probe[1])
raw = subprocess.check_output(["ffmpeg", "-v", "error", "-i", path, "-vf", f"fps={fps}", "-f", "rawvideo",
                               "-pix_fmt", "gray", "-"])
cascade = cv2.CascadeClassifier("/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml")
if cascade.empty():
    sys.exit("haar_faces.py: the cascade is missing (apt-get install opencv-data)")
size = width * height
for index in range(len(raw) // size):
    picture = np.frombuffer(raw[index * size:(index + 1) * size], np.uint8).reshape(height, width)
    minimum = max(24, height // 10)
    faces = cascade.detectMultiScale(picture, scaleFactor=1.1, minNeighbors=6, minSize=(minimum, minimum))
    print(json.dumps({"time": index / fps, "width": width, "height": height,
                      "faces": [[int(v) for v in face] for face in faces]}))
