#include "fc_raw_library.h"
#include "fc_raw.h"

FC_DYNAMIC_DEFINE(fc_raw_functions, fc_libraw, FC_RAW_FUNCTIONS, fc_raw_library_error, "libraw_r.so.20", "libraw_r.so.23", "libraw_r.so")
