#include "fc_tiff_library.h"
#include "fc_tiff.h"

FC_DYNAMIC_DEFINE(fc_tiff_functions, fc_libtiff, FC_TIFF_FUNCTIONS, fc_tiff_library_error, "libtiff.so.6", "libtiff.so")
