#include "fc_heif_library.h"
#include "fc_heif.h"

#if defined(__APPLE__)
struct fc_heif_functions fc_libheif = { FC_HEIF_FUNCTIONS(FC_DYNAMIC_LINKED) };
static fc_dynamic_library fc_heif_library = { .state = 1 };
#else
struct fc_heif_functions fc_libheif;
static const char *const fc_heif_names[] = { "libheif.so.1", "libheif.so", NULL };
static const char *const fc_heif_symbols[] = { FC_HEIF_FUNCTIONS(FC_DYNAMIC_NAME) };
static fc_dynamic_library fc_heif_library = {
    fc_heif_names, fc_heif_symbols, (void **)&fc_libheif, sizeof fc_heif_symbols / sizeof *fc_heif_symbols, 0, "",
};
#endif

const char *fc_de265_library_error(void);

const char *fc_heif_library_error(void) {
    const char *error = fc_dynamic_require(&fc_heif_library);
    return error ? error : fc_de265_library_error();
}
