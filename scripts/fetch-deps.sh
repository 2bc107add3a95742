#!/usr/bin/env bash
# Fetches the pinned PyPI wheels keeptrack needs into the project-local, git-ignored `.deps/`:
#  - yuface 2023.5.1: ready-built libfacedetection (YuNet CNN face detector, BSD-3, weights compiled in),
#    used by the CFaceDetect target. `yuface/` and `yuface.libs/` are unpacked side by side because the
#    library finds its OpenMP runtime through the RPATH $ORIGIN/../yuface.libs.
#  - scikit-image 0.22.0: only its public-domain photograph skimage/data/astronaut.png, for tests.
#  - imageio-ffmpeg 0.8.1: only its static FFmpeg 9.0.2 binary (.deps/ffmpeg9/ffmpeg), an independent
#    decoder for tests where Debian's FFmpeg 5.1 falls short: it cuts an audio edit's end inside a packet
#    (5.1 decodes the whole last packet) and it decodes both views of MV-HEVC (5.1 only the base view).
# Every download is checked against a pinned sha256. Idempotent: does nothing when already in place.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
deps="$root/.deps"
wheel_platform=(--only-binary=:all: --no-deps --implementation cp --python-version 3.11 --abi cp311
                --platform manylinux2014_x86_64)

YUFACE_WHEEL="yuface-2023.5.1-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
YUFACE_SHA256="fd03270a672da75b89809a2c999d5728ef19c6e701408a4d0bc9c00480c864a0"
SKIMAGE_WHEEL="scikit_image-0.22.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
SKIMAGE_SHA256="c5c378db54e61b491b9edeefff87e49fcf7fdf729bb93c777d7a5f15d36f743e"
FFMPEG9_WHEEL="imageio_ffmpeg-0.8.1-py3-none-manylinux_2_28_x86_64.whl"
FFMPEG9_SHA256="050d6850601c3b3890bd2b28306f3b842b3daea390a561101174375a1c460bda"
FFMPEG9_MEMBER="imageio_ffmpeg/binaries/ffmpeg-linux-x86_64-v9.0.2"
ASTRONAUT_SHA256="88431cd9653ccd539741b555fb0a46b61558b301d4110412b5bc28b5e3ea6cb5"

pip_download() { # requirement [platform options...]
    local downloads="$deps/downloads" requirement="$1"
    shift
    mkdir -p "$downloads"
    if (($#)); then
        python3 -m pip download --quiet --disable-pip-version-check --only-binary=:all: --no-deps "$@" "$requirement" -d "$downloads"
    else
        python3 -m pip download --quiet --disable-pip-version-check "${wheel_platform[@]}" "$requirement" -d "$downloads"
    fi
}

verify() { # file sha256
    local actual
    actual="$(sha256sum "$1" | cut -d' ' -f1)"
    if [ "$actual" != "$2" ]; then
        echo "setup: checksum mismatch for $1 (expected $2, got $actual)" >&2
        rm -f "$1"
        exit 1
    fi
}

unzip_members() { # wheel destination prefix...
    python3 - "$@" <<'PY'
import sys, zipfile
wheel, destination, prefixes = sys.argv[1], sys.argv[2], tuple(sys.argv[3:])
with zipfile.ZipFile(wheel) as archive:
    for name in archive.namelist():
        if name.startswith(prefixes):
            archive.extract(name, destination)
PY
}

command -v python3 >/dev/null || { echo "setup: python3 with pip is required to fetch the pinned wheels" >&2; exit 1; }

if [ ! -f "$deps/yuface/.complete" ]; then
    echo "setup: fetching libfacedetection (PyPI yuface==2023.5.1)"
    pip_download "yuface==2023.5.1"
    verify "$deps/downloads/$YUFACE_WHEEL" "$YUFACE_SHA256"
    rm -rf "$deps/yuface"
    unzip_members "$deps/downloads/$YUFACE_WHEEL" "$deps/yuface" "yuface/" "yuface.libs/" "yuface-2023.5.1.dist-info/LICENSE"
    # The linker looks for the unversioned name; the loader for the SONAME. Both files ship in the wheel.
    test -f "$deps/yuface/yuface/libfacedetection.so" && test -f "$deps/yuface/yuface/libfacedetection.so.v0.0.3"
    touch "$deps/yuface/.complete"
fi

if [ ! -f "$deps/testdata/.complete" ]; then
    echo "setup: fetching test photograph (PyPI scikit-image==0.22.0, skimage/data/astronaut.png)"
    pip_download "scikit-image==0.22.0"
    verify "$deps/downloads/$SKIMAGE_WHEEL" "$SKIMAGE_SHA256"
    rm -rf "$deps/testdata" "$deps/skimage-unpack"
    unzip_members "$deps/downloads/$SKIMAGE_WHEEL" "$deps/skimage-unpack" "skimage/data/astronaut.png"
    mkdir -p "$deps/testdata"
    mv "$deps/skimage-unpack/skimage/data/astronaut.png" "$deps/testdata/astronaut.png"
    rm -rf "$deps/skimage-unpack"
    verify "$deps/testdata/astronaut.png" "$ASTRONAUT_SHA256"
    rm -f "$deps/downloads/$SKIMAGE_WHEEL" # 14 MB; only the photograph is kept
    touch "$deps/testdata/.complete"
fi

if [ ! -f "$deps/ffmpeg9/.complete" ]; then
    echo "setup: fetching a static FFmpeg 9.0.2 for tests (PyPI imageio-ffmpeg==0.8.1)"
    # A py3-none wheel: the cp311 tags above do not match it.
    pip_download "imageio-ffmpeg==0.8.1" --platform manylinux_2_28_x86_64
    verify "$deps/downloads/$FFMPEG9_WHEEL" "$FFMPEG9_SHA256"
    rm -rf "$deps/ffmpeg9" "$deps/ffmpeg9-unpack"
    unzip_members "$deps/downloads/$FFMPEG9_WHEEL" "$deps/ffmpeg9-unpack" "$FFMPEG9_MEMBER" "imageio_ffmpeg-0.8.1.dist-info/licenses/LICENSE"
    mkdir -p "$deps/ffmpeg9"
    mv "$deps/ffmpeg9-unpack/$FFMPEG9_MEMBER" "$deps/ffmpeg9/ffmpeg"
    mv "$deps/ffmpeg9-unpack/imageio_ffmpeg-0.8.1.dist-info/licenses/LICENSE" "$deps/ffmpeg9/LICENSE-imageio-ffmpeg"
    rm -rf "$deps/ffmpeg9-unpack"
    chmod +x "$deps/ffmpeg9/ffmpeg"
    version="$("$deps/ffmpeg9/ffmpeg" -hide_banner -version)"
    [[ "$version" == "ffmpeg version n9.0.2"* ]] || { echo "setup: unexpected ${version%%$'\n'*}" >&2; exit 1; }
    rm -f "$deps/downloads/$FFMPEG9_WHEEL" # 68 MB; only the binary is kept
    touch "$deps/ffmpeg9/.complete"
fi
# The binary's own licence statement (GPL version 3 or later: built with --enable-gpl --enable-version3),
# installed beside it by `make install`; made here too for a .deps fetched before it was.
if [ -x "$deps/ffmpeg9/ffmpeg" ] && [ ! -s "$deps/ffmpeg9/LICENSE-ffmpeg" ]; then
    "$deps/ffmpeg9/ffmpeg" -hide_banner -L > "$deps/ffmpeg9/LICENSE-ffmpeg"
fi
