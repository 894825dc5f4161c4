#include "fc_dynamic.h"

#include <stdio.h>
#include <string.h>

#if !defined(__APPLE__)
#include <dlfcn.h>
#include <pthread.h>

static pthread_mutex_t fc_dynamic_lock = PTHREAD_MUTEX_INITIALIZER;

static void fc_dynamic_load(fc_dynamic_library *library) {
    void *handle = NULL;
    const char *name = NULL;
    char first[384] = "";
    for (const char *const *n = library->names; *n; n++) {
        handle = dlopen(*n, RTLD_NOW | RTLD_LOCAL);
        if (handle) { name = *n; break; }
        if (!first[0]) {
            const char *why = dlerror();
            snprintf(first, sizeof first, "%s", why ? why : *n);
        }
    }
    if (!handle) {
        snprintf(library->error, sizeof library->error, "%s cannot be loaded: %s", library->names[0], first);
        __atomic_store_n(&library->state, -1, __ATOMIC_RELEASE);
        return;
    }
    for (size_t i = 0; i < library->count; i++) {
        void *address = dlsym(handle, library->symbols[i]);
        if (!address) {
            snprintf(library->error, sizeof library->error,
                     "%s has no %s (it is older than the version filterchain was built with)", name, library->symbols[i]);
            // Kept loaded: unloading buys nothing.
            __atomic_store_n(&library->state, -1, __ATOMIC_RELEASE);
            return;
        }
        library->slots[i] = address;
    }
    __atomic_store_n(&library->state, 1, __ATOMIC_RELEASE);
}

const char *fc_dynamic_require(fc_dynamic_library *library) {
    int state = __atomic_load_n(&library->state, __ATOMIC_ACQUIRE);
    if (state == 0) {
        pthread_mutex_lock(&fc_dynamic_lock);
        if (__atomic_load_n(&library->state, __ATOMIC_ACQUIRE) == 0) fc_dynamic_load(library);
        pthread_mutex_unlock(&fc_dynamic_lock);
        state = __atomic_load_n(&library->state, __ATOMIC_ACQUIRE);
    }
    return state == 1 ? NULL : library->error;
}
#else
// macOS links the libraries (FC_DYNAMIC_DEFINE): nothing to load.
typedef int fc_dynamic_linked;
#endif
