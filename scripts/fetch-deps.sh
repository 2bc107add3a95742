#!/usr/bin/env bash
# Fetches the pinned PyPI wheels keeptrack needs into the project-local, git-ignored `.deps/`:
#  - yuface 2023.5.1: ready-built libfacedetection (YuNet CNN face detector, BSD-3, weights compiled in),
#    used by the CFaceDetect target. `yuface/` and `yuface.libs/` are unpacked side by side because the
#    library finds its OpenMP runtime through the RPATH $ORIGIN/../yuface.libs.
#  - scikit-image 0.22.0: only its public-domain photograph skimage/data/astronaut.png, for tests.
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
ASTRONAUT_SHA256="88431cd9653ccd539741b555fb0a46b61558b301d4110412b5bc28b5e3ea6cb5"

pip_download() { # requirement
    local downloads="$deps/downloads"
    mkdir -p "$downloads"
    python3 -m pip download --quiet --disable-pip-version-check "${wheel_platform[@]}" "$1" -d "$downloads"
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
