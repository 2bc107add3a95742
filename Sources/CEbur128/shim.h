// libebur128: EBU R128 / ITU-R BS.1770 loudness.
#include <ebur128.h>
