#ifndef CPEOPLEDETECT_H
#define CPEOPLEDETECT_H

#ifdef __cplusplus
extern "C" {
#endif

/// One person found by OpenCV's HOG people detector (Dalal & Triggs, the linear SVM OpenCV ships compiled
/// into libopencv-objdetect). Coordinates are pixels of the image passed in; `score` is the SVM margin.
typedef struct {
    int x, y, width, height;
    float score;
} CPDPerson;

/// Finds upright people in a packed BGR24 image (`step` bytes per row, step >= 3 * width), enlarged by
/// `upscale` (1...4) first: the detector's window is 64x128 pixels, so people shorter than about 128 / upscale
/// pixels are not found. Boxes are in the pixels of the image passed in. Writes at most `capacity` people,
/// strongest first, and returns how many; -1 when the arguments are invalid or OpenCV failed.
int cpd_detect_bgr(const unsigned char *bgr, int width, int height, int step, double upscale, CPDPerson *people,
                   int capacity);

#ifdef __cplusplus
}
#endif

#endif
