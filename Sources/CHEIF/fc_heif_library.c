#include "fc_heif_library.h"
#include "fc_heif.h"

FC_DYNAMIC_DEFINE(fc_heif_functions, fc_libheif, FC_HEIF_FUNCTIONS, fc_heif_own_library_error, "libheif.so.1", "libheif.so")

const char *fc_heif_own_library_error(void);
const char *fc_de265_library_error(void);

const char *fc_heif_library_error(void) {
    const char *error = fc_heif_own_library_error();
    return error ? error : fc_de265_library_error();
}
