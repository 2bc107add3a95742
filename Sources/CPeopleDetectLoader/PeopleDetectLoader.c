// Opens the people detector library on first use (see CPeopleDetectLoader.h for why). It lies beside the
// executable in a build (.build/<configuration>/) and in PREFIX/lib/keeptrack once installed (scripts/install.sh).
#include "CPeopleDetectLoader.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef int (*DetectFunction)(const unsigned char *, int, int, int, double, CPDPerson *, int);

static pthread_once_t loadOnce = PTHREAD_ONCE_INIT;
static DetectFunction detect = NULL;
static char failure[1024] = "";
static const char *libraryName = "libKeepTrackPeopleDetector.so";

static void load(void) {
    char executable[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", executable, sizeof executable - 1);
    if (length <= 0) {
        snprintf(failure, sizeof failure, "cannot find this executable's folder to load %s", libraryName);
        return;
    }
    executable[length] = 0;
    char *slash = strrchr(executable, '/');
    if (slash) *slash = 0;
    const char *places[] = {"%s/%s", "%s/../lib/keeptrack/%s"};
    char tried[sizeof failure] = "";
    for (unsigned index = 0; index < sizeof places / sizeof places[0]; index++) {
        char path[PATH_MAX + 64];
        snprintf(path, sizeof path, places[index], executable, libraryName);
        void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            const char *why = dlerror();
            size_t used = strlen(tried);
            snprintf(tried + used, sizeof tried - used, "%s%s", used ? "; " : "", why ? why : path);
            continue;
        }
        detect = (DetectFunction)dlsym(handle, "cpd_detect_bgr");
        if (!detect) snprintf(failure, sizeof failure, "%s has no cpd_detect_bgr", path);
        return;
    }
    snprintf(failure, sizeof failure, "the people detector (%s, built by make build) cannot be loaded: %s", libraryName, tried);
}

int cpdl_detect_bgr(const unsigned char *bgr, int width, int height, int step, double upscale, CPDPerson *people,
                    int capacity) {
    pthread_once(&loadOnce, load);
    if (!detect) return -2;
    return detect(bgr, width, height, step, upscale, people, capacity);
}

const char *cpdl_failure(void) { return failure; }

int cpdl_is_loaded(void) { return detect != NULL; }
