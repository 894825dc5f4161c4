#include "fc_de265_library.h"
#include "fc_heif_hevc.h"

#include <pthread.h>

FC_DYNAMIC_DEFINE(fc_de265_functions, fc_libde265, FC_DE265_FUNCTIONS, fc_de265_library_error, "libde265.so.0", "libde265.so")

// Our HEVC decoder's own reference to libde265's tables (libheif's registration of its
// decoder makes one too, but that is libheif's).
static int fc_de265_initialised = 0;
static void fc_de265_initialise(void) { fc_de265_initialised = fc_libde265.de265_init() == DE265_OK; }

int fc_de265_ready(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    if (fc_de265_library_error()) return 0;
    pthread_once(&once, fc_de265_initialise);
    return fc_de265_initialised;
}
