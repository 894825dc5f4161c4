#include "fc_de265_library.h"
#include "fc_heif_hevc.h"

#include <pthread.h>

#if defined(__APPLE__)
struct fc_de265_functions fc_libde265 = { FC_DE265_FUNCTIONS(FC_DYNAMIC_LINKED) };
static fc_dynamic_library fc_de265_library = { .state = 1 };
#else
struct fc_de265_functions fc_libde265;
static const char *const fc_de265_names[] = { "libde265.so.0", "libde265.so", NULL };
static const char *const fc_de265_symbols[] = { FC_DE265_FUNCTIONS(FC_DYNAMIC_NAME) };
static fc_dynamic_library fc_de265_library = {
    fc_de265_names, fc_de265_symbols, (void **)&fc_libde265, sizeof fc_de265_symbols / sizeof *fc_de265_symbols, 0, "",
};
#endif

const char *fc_de265_library_error(void) { return fc_dynamic_require(&fc_de265_library); }

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
