#!/usr/bin/env bash
# Installs the release build (KEEPTRACK_BUILD_DIR, default .build/release) under PREFIX (default
# /usr/local): both executables, the people detector library, libfacedetection with its OpenMP runtime, the man page, bash/zsh/fish
# completions and the licences. The executables find the library through an $ORIGIN-relative RUNPATH (Package.swift), so the installed tool keeps working
# after the checkout is deleted. Every installed file is listed in PREFIX/share/keeptrack/installed-files,
# which `scripts/install.sh --uninstall PREFIX` (make uninstall) removes again.
set -euo pipefail
cd "$(dirname "$0")/.."

uninstall=0
if [ "${1:-}" = "--uninstall" ]; then uninstall=1; shift; fi
prefix="${1:-/usr/local}"
manifest="$prefix/share/keeptrack/installed-files"

if ((uninstall)); then
    [ -f "$manifest" ] || { echo "uninstall: nothing installed under $prefix (no $manifest)" >&2; exit 66; }
    while IFS= read -r file; do rm -f "$prefix/$file"; done < "$manifest"
    rm -f "$manifest"
    # Remove the folders that became empty, deepest first; folders holding anything else stay.
    for folder in share/keeptrack share/doc/keeptrack/licenses share/doc/keeptrack lib/keeptrack/yuface.libs \
                  lib/keeptrack/yuface lib/keeptrack/ffmpeg9 lib/keeptrack; do
        rmdir "$prefix/$folder" 2>/dev/null || true
    done
    echo "uninstalled keeptrack from $prefix"
    exit 0
fi

# `make install` installs the release build; InstallTests (run by `make test`, which makes no release build)
# installs the test build's executables through this same script: KEEPTRACK_BUILD_DIR=.build/debug.
build="${KEEPTRACK_BUILD_DIR:-.build/release}"
for binary in keeptrack keeptrack-media libKeepTrackPeopleDetector.so; do
    [ -x "$build/$binary" ] || { echo "install: $build/$binary is missing: run 'make build' first" >&2; exit 66; }
done
library=$(ls .deps/yuface/yuface/libfacedetection.so.v* 2>/dev/null | head -n 1)
runtime=$(ls .deps/yuface/yuface.libs/*.so* 2>/dev/null)
[ -n "$library" ] && [ -n "$runtime" ] || { echo "install: libfacedetection is missing: run 'make setup' first" >&2; exit 66; }

staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
"$build/keeptrack-media" --generate-docs "$staging"

installed=()
put() { # put MODE SOURCE DESTINATION (relative to prefix)
    install -D -m "$1" "$2" "$prefix/$3"
    installed+=("$3")
}
put 755 "$build/keeptrack" bin/keeptrack
put 755 "$build/keeptrack-media" bin/keeptrack-media
# OpenCV's people detector, opened by keeptrack-media when reframe first looks for people (PREFIX/lib/keeptrack).
put 644 "$build/libKeepTrackPeopleDetector.so" lib/keeptrack/libKeepTrackPeopleDetector.so
put 644 "$library" "lib/keeptrack/yuface/$(basename "$library")"
for file in $runtime; do put 644 "$file" "lib/keeptrack/yuface.libs/$(basename "$file")"; done
for file in $(cd "$staging" && find . -type f | sed 's|^\./||' | sort); do put 644 "$staging/$file" "$file"; done
for file in licenses/*; do put 644 "$file" "share/doc/keeptrack/$file"; done
# The static FFmpeg 9 (make setup) that `transcode --stereo` runs to decode both MV-HEVC views; without it that
# option alone stops with exit status 69 naming make setup, and everything else works.
if [ -x .deps/ffmpeg9/ffmpeg ]; then
    put 755 .deps/ffmpeg9/ffmpeg lib/keeptrack/ffmpeg9/ffmpeg
    put 644 .deps/ffmpeg9/LICENSE-imageio-ffmpeg share/doc/keeptrack/licenses/imageio-ffmpeg
    if [ -s .deps/ffmpeg9/LICENSE-ffmpeg ]; then put 644 .deps/ffmpeg9/LICENSE-ffmpeg share/doc/keeptrack/licenses/ffmpeg9; fi
else
    echo "install: .deps/ffmpeg9/ffmpeg is missing (make setup fetches it): transcode --stereo will not be available" >&2
fi

mkdir -p "$(dirname "$manifest")"
printf '%s\n' "${installed[@]}" > "$manifest"
echo "installed keeptrack under $prefix (${#installed[@]} files; make uninstall PREFIX=$prefix removes them)"
