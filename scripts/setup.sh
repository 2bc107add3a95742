#!/usr/bin/env bash
# Installs what keeptrack's build, tests and demo need on a fresh Debian machine with the Swift
# toolchain. Idempotent: installs only what is missing; uses sudo only when not root.
set -euo pipefail

# Debian packages: ffprobe/ffmpeg and mediainfo are the independent clients tests check our output with.
# The codec layer (KeepTrackCodec) links Debian 12's FFmpeg 5.1 libraries and libebur128 through
# system-library modules found with pkg-config.
# groff-base, zsh and fish check the generated man page and completions (InstallTests).
# GStreamer's qtmux/mp4mux (gst-launch-1.0, plugins-good) is a second muxer whose files the tests put
# through every command (MuxerFlavourTests); plugins-ugly (x264enc) and plugins-bad (h264parse) give it H.264.
# gst-discoverer-1.0 (plugins-base-apps) is GStreamer's reading of a joined movie's duration (JoinTests).
# reframe's person detector (KeepTrackPeople) links OpenCV's objdetect module (its HOG people detector; the
# SVM is compiled into the library). Tests judge reframe's framing with an independent detector: OpenCV's
# Haar cascades (opencv-data) through python3-opencv, run as a subprocess with /usr/bin/python3.
# Muxers with their own MP4/QuickTime writer (OtherMuxerFlavourTests): VLC's stream output through
# libvlc (python3-vlc; the vlc binary refuses to run as root), libquicktime's tools (quicktime-utils)
# and avifenc's AV1 image sequences (libavif-bin).
# Taggers rewrite movies in place and must move every box that holds a file offset (TaggerFlavourTests):
# python3-mutagen (what beets, Picard and yt-dlp tag with), python3-taglib (TagLib: most music players,
# kid3, EasyTag), atomicparsley and exiftool.
PACKAGES=(ffmpeg mediainfo time pkg-config groff-base zsh fish
    python3-mutagen python3-taglib atomicparsley libimage-exiftool-perl
    libavcodec-dev libavutil-dev libavfilter-dev libswresample-dev libswscale-dev libebur128-dev
    gstreamer1.0-tools gstreamer1.0-plugins-base-apps gstreamer1.0-plugins-good gstreamer1.0-plugins-ugly gstreamer1.0-plugins-bad python3-vlc vlc-plugin-base quicktime-utils libavif-bin
    libopencv-objdetect-dev libopencv-imgproc-dev libopencv-core-dev python3-opencv opencv-data)

missing=()
for package in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done

if ((${#missing[@]})); then
    SUDO=""
    if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
    echo "setup: installing ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

command -v swift >/dev/null || { echo "setup: the Swift toolchain is required (swift not on PATH)" >&2; exit 1; }

# Pinned PyPI wheels (face detector, test photograph) into .deps/.
"$(dirname "$0")/fetch-deps.sh"
