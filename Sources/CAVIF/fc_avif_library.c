#include "fc_avif_library.h"
#include "fc_avif.h"

// The soname that goes with the headers built with (libavif's ABI changes with it).
#if AVIF_VERSION_MAJOR >= 1
#define FC_AVIF_SONAME "libavif.so.16"
#elif AVIF_VERSION_MINOR == 11
#define FC_AVIF_SONAME "libavif.so.15"
#elif AVIF_VERSION_MINOR == 10
#define FC_AVIF_SONAME "libavif.so.14"
#else
#define FC_AVIF_SONAME "libavif.so"
#endif
FC_DYNAMIC_DEFINE(fc_avif_functions, fc_libavif, FC_AVIF_FUNCTIONS, fc_avif_library_error, FC_AVIF_SONAME, "libavif.so")
