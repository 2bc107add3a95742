#ifndef CFACEDETECT_H
#define CFACEDETECT_H

#ifdef __cplusplus
extern "C" {
#endif

/// One face found by libfacedetection (YuNet CNN). Coordinates are pixels of the image passed in.
typedef struct {
    int confidence;     ///< 0...100
    int x, y, width, height;
    int landmarks[10];  ///< right eye, left eye, nose tip, right and left mouth corners: x0 y0 x1 y1 ...
} CFDFace;

/// Detects faces in a packed BGR24 image (`step` bytes per row, step >= 3 * width).
/// The library's input contract (libfacedetection 2023 sources, facedetectcnn.cpp): any width and height
/// >= 1; it reads pixel (x, y) at `bgr + y * step + 3 * x` only for x < width, y < height (its 3x3 stride-2
/// first layer treats the outside as zero) and pads the feature maps to multiples of 32 itself, so no
/// alignment or size rounding is asked of the caller. Results go to a 0x9000-byte buffer (at most 1024
/// faces). Model initialisation is process-wide and unsynchronised, hence the lock below.
/// Writes at most `capacity` faces, strongest first as the detector returns them, and returns how many
/// it wrote; returns -1 when the arguments are invalid or the detector failed, -2 when libfacedetection (opened on
/// the first call) cannot be loaded: cfd_failure says why.
/// Calls are serialised inside: the library keeps process-wide state.
int cfd_detect_bgr(const unsigned char *bgr, int width, int height, int step, CFDFace *faces, int capacity);

/// Limits the detector's OpenMP threads for calls made from the calling thread (OpenMP settings are per
/// thread). Returns 1 when the detector's OpenMP runtime was found and set, 0 otherwise.
int cfd_limit_threads(int threads);

/// Why libfacedetection could not be opened ("" when it was, or before the first detection).
const char *cfd_failure(void);

/// Whether libfacedetection is loaded in this process (for tests).
int cfd_is_loaded(void);

#ifdef __cplusplus
}
#endif

#endif
