// LibRaw's thread-safe build (Debian: libraw20, libraw_r.so.20): the functions the shim calls,
// through `fc_libraw` (fc_dynamic.h: loaded when a RAW file first needs it on Linux, linked on
// macOS). It brings libstdc++, libgomp and lcms2 with it, which no other file pays for.
#ifndef FC_RAW_LIBRARY_H
#define FC_RAW_LIBRARY_H

#include <libraw/libraw.h>
#include "fc_dynamic.h"

#define FC_RAW_FUNCTIONS(X) \
    X(libraw_init) \
    X(libraw_close) \
    X(libraw_open_buffer) \
    X(libraw_open_file) \
    X(libraw_unpack) \
    X(libraw_unpack_thumb) \
    X(libraw_dcraw_process) \
    X(libraw_strerror) \
    X(libraw_version) \
    X(libraw_set_dataerror_handler) \
    X(libraw_set_memerror_handler) \
    X(libraw_unpack_function_name) \
    X(libraw_COLOR)

struct fc_raw_functions {
    FC_RAW_FUNCTIONS(FC_DYNAMIC_SLOT)
};
extern struct fc_raw_functions fc_libraw;

#endif
