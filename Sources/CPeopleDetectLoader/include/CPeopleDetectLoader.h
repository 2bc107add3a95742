#ifndef CPEOPLEDETECTLOADER_H
#define CPEOPLEDETECTLOADER_H

#ifdef __cplusplus
extern "C" {
#endif

/// One person found by OpenCV's HOG people detector (Dalal & Triggs, the linear SVM OpenCV ships compiled
/// into libopencv-objdetect). Coordinates are pixels of the image passed in; `score` is the SVM margin.
typedef struct {
    int x, y, width, height;
    float score;
} CPDPerson;

/// The people detector (CPeopleDetect's cpd_detect_bgr) in libKeepTrackPeopleDetector.so, opened on the first
/// call: OpenCV and the twenty libraries it brings cost every keeptrack-media start about 13 ms, and only the
/// commands that look for people need them. Returns what cpd_detect_bgr returns, or -2 when the library cannot
/// be opened (cpdl_failure says why).
int cpdl_detect_bgr(const unsigned char *bgr, int width, int height, int step, double upscale, CPDPerson *people,
                    int capacity);

/// Why the detector library could not be opened ("" when it was, or before the first call).
const char *cpdl_failure(void);

/// Whether the detector library is loaded in this process (for tests).
int cpdl_is_loaded(void);

#ifdef __cplusplus
}
#endif

#endif
