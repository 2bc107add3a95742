#ifndef KEEPTRACK_CHIGHWAYTIMER_H
#define KEEPTRACK_CHIGHWAYTIMER_H

#include <stdint.h>

/// How many times this process asked for Highway's timer resolution and got keeptrack's quick estimate: 1 once
/// libhwy (loaded with libavcodec, through libjxl) has run its static initializer here, 0 if that call went elsewhere.
uint64_t keeptrack_highway_timer_resolution_calls(void);

#endif
