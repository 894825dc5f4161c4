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
#if defined(__APPLE__)
struct fc_avif_functions fc_libavif = { FC_AVIF_FUNCTIONS(FC_DYNAMIC_LINKED) };
static fc_dynamic_library fc_avif_library = { .state = 1 };
#else
struct fc_avif_functions fc_libavif;
static const char *const fc_avif_names[] = { FC_AVIF_SONAME, "libavif.so", NULL };
static const char *const fc_avif_symbols[] = { FC_AVIF_FUNCTIONS(FC_DYNAMIC_NAME) };
static fc_dynamic_library fc_avif_library = {
    fc_avif_names, fc_avif_symbols, (void **)&fc_libavif, sizeof fc_avif_symbols / sizeof *fc_avif_symbols, 0, "",
};
#endif

const char *fc_avif_library_error(void) { return fc_dynamic_require(&fc_avif_library); }
