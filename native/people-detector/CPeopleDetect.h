#ifndef CPEOPLEDETECT_H
#define CPEOPLEDETECT_H

// CPDPerson: from the loader's header, the one keeptrack-media sees; this library is opened through it.
#include "CPeopleDetectLoader.h"

#ifdef __cplusplus
extern "C" {
#endif

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
