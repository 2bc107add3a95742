// Debian 12's libhwy 1.0.3 (libavcodec -> libjxl -> libhwy) runs hwy::platform::TimerResolution() in a static
// initializer: 65,536 timer reads and 257 sorts, 8-9 ms of CPU on every start of a process that links libavcodec
// (perf, 2026-12-04), for a value only Highway's nanobenchmark reads. Highway 1.2 defers it (google/highway#2440).
// The initializer calls it through the PLT, so this definition in the executable is the one it runs: the same
// measurement (smallest repeated tick difference) with 64 samples instead of 65,536.
#include "CHighwayTimer.h"

#include <stdatomic.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

static atomic_uint_fast64_t calls;

uint64_t keeptrack_highway_timer_resolution_calls(void) { return atomic_load(&calls); }

static uint64_t ticks(void) {
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#else
    return 0;
#endif
}

// `uint64_t hwy::platform::TimerResolution()`, by its mangled name.
uint64_t _ZN3hwy8platform15TimerResolutionEv(void);
uint64_t _ZN3hwy8platform15TimerResolutionEv(void) {
    atomic_fetch_add(&calls, 1);
    uint64_t smallest = UINT64_MAX;
    for (int sample = 0; sample < 64; sample++) {
        uint64_t start = ticks(), end = ticks();
        if (end > start && end - start < smallest) smallest = end - start;
    }
    return smallest == UINT64_MAX ? 1 : smallest;
}
