// C shim over OpenCV's HOG people detector (Debian's libopencv-objdetect, BSD-3 / Apache-2.0 as packaged).
#include "CPeopleDetect.h"

#include <algorithm>
#include <climits>
#include <exception>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

namespace {
// HOGDescriptor::detectMultiScale is const and keeps no state between calls; one descriptor per thread
// avoids sharing its buffers.
cv::HOGDescriptor &descriptor() {
    thread_local cv::HOGDescriptor hog = [] {
        cv::HOGDescriptor made;
        made.setSVMDetector(cv::HOGDescriptor::getDefaultPeopleDetector());
        return made;
    }();
    return hog;
}
}

extern "C" int cpd_detect_bgr(const unsigned char *bgr, int width, int height, int step, double upscale,
                              CPDPerson *people, int capacity) {
    if (bgr == nullptr || people == nullptr || capacity < 0 || width <= 0 || height <= 0 || step < width * 3 ||
        height > INT_MAX / step || !(upscale >= 1 && upscale <= 4)) {
        return -1;
    }
    // Smaller than one detection window: nobody can be found.
    if (width * upscale < 64 || height * upscale < 128) return 0;
    try {
        // OpenCV only reads the caller's rows (the Mat wraps them without copying); resize writes its own.
        cv::Mat source(height, width, CV_8UC3, const_cast<unsigned char *>(bgr), size_t(step));
        cv::Mat image;
        if (upscale > 1) {
            cv::resize(source, image, cv::Size(int(width * upscale + 0.5), int(height * upscale + 0.5)), 0, 0, cv::INTER_LINEAR);
        } else {
            image = source;
        }
        const double back = double(width) / double(image.cols);
        std::vector<cv::Rect> found;
        std::vector<double> weights;
        descriptor().detectMultiScale(image, found, weights, 0, cv::Size(8, 8), cv::Size(0, 0), 1.05, 2, false);
        std::vector<size_t> order(found.size());
        for (size_t index = 0; index < order.size(); index++) order[index] = index;
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
            return (a < weights.size() ? weights[a] : 0) > (b < weights.size() ? weights[b] : 0);
        });
        int count = std::min<int>(capacity, int(order.size()));
        for (int index = 0; index < count; index++) {
            const cv::Rect &box = found[order[size_t(index)]];
            people[index] = CPDPerson{int(box.x * back + 0.5), int(box.y * back + 0.5), int(box.width * back + 0.5),
                                      int(box.height * back + 0.5),
                                      float(order[size_t(index)] < weights.size() ? weights[order[size_t(index)]] : 0)};
        }
        return count;
    } catch (const std::exception &) {
        return -1;
    }
}
