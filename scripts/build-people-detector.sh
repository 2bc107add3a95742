#!/usr/bin/env bash
# Builds libKeepTrackPeopleDetector.so (native/people-detector: a C shim over OpenCV's HOG people detector) beside
# the executables of a build folder (default .build/release; make test passes .build/debug). keeptrack-media opens it
# on the first detection (Sources/CPeopleDetectLoader), so no command but reframe loads OpenCV's ~20 libraries
# (~13 ms of every start, 2026-12-04). It is built here rather than by SwiftPM, whose dynamic libraries name the Swift
# runtime, which an installed keeptrack (built with --static-swift-stdlib) does not have.
set -euo pipefail
cd "$(dirname "$0")/.."
folder="${1:-.build/release}"
mkdir -p "$folder"
library="$folder/libKeepTrackPeopleDetector.so"
sources=(native/people-detector/PeopleDetect.cpp native/people-detector/CPeopleDetect.h Sources/CPeopleDetectLoader/include/CPeopleDetectLoader.h)
if [ -f "$library" ] && [ -z "$(find "${sources[@]}" "$0" -newer "$library" | head -1)" ]; then exit 0; fi
# The Swift toolchain's clang++ (what SwiftPM compiles C++ with), else the system's.
compiler="$(dirname "$(readlink -f "$(command -v swift)")")/clang++"
[ -x "$compiler" ] || compiler=c++
temporary="$library.partial.$$"
trap 'rm -f "$temporary"' EXIT
"$compiler" -shared -fPIC -O2 -std=c++17 -Wall -I/usr/include/opencv4 -ISources/CPeopleDetectLoader/include \
    native/people-detector/PeopleDetect.cpp -o "$temporary" \
    -Wl,--as-needed -lopencv_objdetect -lopencv_imgproc -lopencv_core
mv "$temporary" "$library"
echo "built $library"
