// C shim over libfacedetection's one C++ entry point (ready-built in the pinned PyPI wheel yuface,
// see scripts/fetch-deps.sh). Licence: licenses/libfacedetection-BSD-3-Clause.txt.
#include "CFaceDetect.h"

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <link.h>
#include <mutex>
#include <vector>

// libfacedetection.so is opened on the first detection, not linked: only reframe looks for faces, and a missing or
// broken library then fails that command with a reason instead of every media command at start-up. The executable's
// RUNPATH (Package.swift) names PREFIX/lib/keeptrack/yuface (installed) and this checkout's .deps/yuface/yuface.
// facedetect_cnn is exported with C++ linkage: result_buffer must hold DETECT_BUFFER_SIZE bytes; the result is an
// int count followed by 16 shorts per face: confidence, x, y, w, h, then five landmark points.
namespace {
using Detect = int *(*)(unsigned char *resultBuffer, unsigned char *bgr, int width, int height, int step);
constexpr const char *libraryName = "libfacedetection.so.v0.0.3";
constexpr const char *detectSymbol = "_Z14facedetect_cnnPhS_iii";
Detect detect = nullptr;
char failure[1024] = "";
std::once_flag loadOnce;

void load() {
    void *handle = dlopen(libraryName, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        const char *why = dlerror();
        std::snprintf(failure, sizeof failure, "the face detector (%s, from the yuface wheel make setup fetches) cannot be loaded: %s",
                      libraryName, why ? why : "dlopen failed");
        return;
    }
    detect = reinterpret_cast<Detect>(dlsym(handle, detectSymbol));
    if (detect == nullptr) std::snprintf(failure, sizeof failure, "%s has no facedetect_cnn", libraryName);
}

bool loaded() {
    std::call_once(loadOnce, load);
    return detect != nullptr;
}

constexpr int detectBufferSize = 0x9000;  // DETECT_BUFFER_SIZE in facedetectcnn.h
constexpr int shortsPerFace = 16;
std::mutex detectorLock;

// The wheel ships its own OpenMP runtime (yuface.libs/libgomp-*.so). Its idle worker threads spin-wait
// between parallel regions, which on a busy machine steals the encoder's cores; callers may ask for fewer
// threads. Only that runtime's omp_set_num_threads affects the detector, so it is looked up there.
using SetThreads = void (*)(int);
SetThreads wheelSetThreads = nullptr;
std::once_flag lookupOnce;

int findWheelOpenMP(struct dl_phdr_info *info, size_t, void *result) {
    if (info->dlpi_name && std::strstr(info->dlpi_name, "yuface.libs/libgomp")) {
        if (void *handle = dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD)) {
            *static_cast<SetThreads *>(result) = reinterpret_cast<SetThreads>(dlsym(handle, "omp_set_num_threads"));
            return 1;
        }
    }
    return 0;
}
}

extern "C" const char *cfd_failure(void) { return failure; }

extern "C" int cfd_is_loaded(void) { return detect != nullptr; }

extern "C" int cfd_limit_threads(int threads) {
    if (!loaded()) return 0;
    std::call_once(lookupOnce, [] { dl_iterate_phdr(findWheelOpenMP, &wheelSetThreads); });
    if (wheelSetThreads == nullptr || threads < 1) return 0;
    wheelSetThreads(threads);
    return 1;
}

extern "C" int cfd_detect_bgr(const unsigned char *bgr, int width, int height, int step, CFDFace *faces,
                              int capacity) {
    if (bgr == nullptr || faces == nullptr || capacity < 0 || width <= 0 || height <= 0 ||
        step < width * 3 || height > INT_MAX / step) {
        return -1;
    }
    if (!loaded()) return -2;
    std::vector<unsigned char> buffer(detectBufferSize);
    int *result;
    {
        std::lock_guard<std::mutex> guard(detectorLock);
        result = detect(buffer.data(), const_cast<unsigned char *>(bgr), width, height, step);
    }
    if (result == nullptr) return -1;
    const int maximumInBuffer = (detectBufferSize - int(sizeof(int))) / int(shortsPerFace * sizeof(short));
    int count = result[0];
    if (count < 0 || count > maximumInBuffer) return -1;
    if (count > capacity) count = capacity;
    const short *records = reinterpret_cast<const short *>(result + 1);
    for (int index = 0; index < count; index++) {
        const short *record = records + shortsPerFace * index;
        CFDFace &face = faces[index];
        face.confidence = record[0];
        face.x = record[1];
        face.y = record[2];
        face.width = record[3];
        face.height = record[4];
        for (int landmark = 0; landmark < 10; landmark++) face.landmarks[landmark] = record[5 + landmark];
    }
    return count;
}
