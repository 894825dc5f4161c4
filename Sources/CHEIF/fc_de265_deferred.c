#define _GNU_SOURCE  // RTLD_NEXT
#include "fc_heif_hevc.h"

// libheif registers its libde265 decoder from a static constructor, and registering it calls
// de265_init, which builds libde265's tables: about 25 million instructions (6 to 8 ms) at
// the start of every process, a JPEG thumbnail's too, for a library that only HEIC inputs
// use. These definitions come before libde265's for the dynamic linker (an executable's
// symbols do, on ELF systems, as for dav1d in fc_avif.c): until `fc_de265_ready` is called
// (before the first HEIC is decoded) an init is counted and deferred, and a free takes one
// back; from then on both reach libde265, the deferred inits first. Elsewhere (Mach-O's
// two-level names) nothing changes: libde265's own functions run as before.
#if defined(__ELF__)
#include <dlfcn.h>
#include <libde265/de265.h>
#include <pthread.h>

static pthread_mutex_t fc_de265_lock = PTHREAD_MUTEX_INITIALIZER;
static int fc_de265_deferred = 0;  // inits asked for while deferring, not yet passed on
static int fc_de265_passing = 0;   // set by fc_de265_ready: calls reach libde265

static de265_error fc_de265_next(const char *name) {
    de265_error (*next)(void) = (de265_error (*)(void))dlsym(RTLD_NEXT, name);
    return next ? next() : DE265_ERROR_LIBRARY_INITIALIZATION_FAILED;
}

de265_error de265_init(void) {
    pthread_mutex_lock(&fc_de265_lock);
    de265_error e = DE265_OK;
    if (fc_de265_passing) e = fc_de265_next("de265_init");
    else fc_de265_deferred++;
    pthread_mutex_unlock(&fc_de265_lock);
    return e;
}

de265_error de265_free(void) {
    pthread_mutex_lock(&fc_de265_lock);
    de265_error e = DE265_OK;
    if (fc_de265_passing) e = fc_de265_next("de265_free");
    else if (fc_de265_deferred > 0) fc_de265_deferred--;
    else e = DE265_ERROR_LIBRARY_NOT_INITIALIZED;
    pthread_mutex_unlock(&fc_de265_lock);
    return e;
}

int fc_de265_ready(void) {
    pthread_mutex_lock(&fc_de265_lock);
    int ok = 1;
    if (!fc_de265_passing) {
        fc_de265_passing = 1;
        // At least one init for our own decoder (libheif's registration made one, deferred).
        if (fc_de265_deferred == 0) fc_de265_deferred = 1;
        for (; fc_de265_deferred > 0; fc_de265_deferred--) {
            if (fc_de265_next("de265_init") != DE265_OK) ok = 0;
        }
    }
    pthread_mutex_unlock(&fc_de265_lock);
    return ok;
}
#else
int fc_de265_ready(void) { return 1; }
#endif
