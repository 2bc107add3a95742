// Runs a command with transparent huge pages off (prctl PR_SET_THP_DISABLE, kept across exec), the way keeptrack's
// encoders run on a virtual machine whose host takes free memory back (HugePagePolicy.swift). bench/stereo.sh builds
// it with gcc to time FFmpeg 9 under the same page policy as keeptrack; a Python wrapper cost 87 ms (ctypes).
// usage: without-huge-pages COMMAND [ARGUMENT ...]
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fputs("usage: without-huge-pages COMMAND [ARGUMENT ...]\n", stderr);
        return 64;
    }
    if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0) {
        perror("without-huge-pages: prctl");
        return 71;
    }
    execvp(argv[1], argv + 1);
    perror("without-huge-pages: exec");
    return 127;
}
