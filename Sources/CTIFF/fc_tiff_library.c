#include "fc_tiff_library.h"
#include "fc_tiff.h"

#if defined(__APPLE__)
struct fc_tiff_functions fc_libtiff = { FC_TIFF_FUNCTIONS(FC_DYNAMIC_LINKED) };
static fc_dynamic_library fc_tiff_library = { .state = 1 };
#else
struct fc_tiff_functions fc_libtiff;
static const char *const fc_tiff_names[] = { "libtiff.so.6", "libtiff.so", NULL };
static const char *const fc_tiff_symbols[] = { FC_TIFF_FUNCTIONS(FC_DYNAMIC_NAME) };
static fc_dynamic_library fc_tiff_library = {
    fc_tiff_names, fc_tiff_symbols, (void **)&fc_libtiff, sizeof fc_tiff_symbols / sizeof *fc_tiff_symbols, 0, "",
};
#endif

const char *fc_tiff_library_error(void) { return fc_dynamic_require(&fc_tiff_library); }
