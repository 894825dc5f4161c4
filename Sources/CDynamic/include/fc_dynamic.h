// Shared libraries loaded when a file first needs them, not at every start.
//
// libtiff, libavif and libheif bring about thirty libraries with them (AV1 and HEVC codecs,
// Abseil, LERC, JBIG, ...); loading and relocating them took about 7 ms of every process's
// start on Debian 12 (9 ms in all for `filterchain --version`), a JPEG thumbnail's too. So on
// Linux the shims that drive them (CTIFF, CAVIF, CHEIF) call through a table of function
// pointers that `fc_dynamic_load` fills with dlopen and dlsym the first time a TIFF, AVIF or
// HEIC file is read or written. On macOS the libraries are linked as before and the tables
// hold the linked functions (two-level names; start-up there is not this cost).
#ifndef FC_DYNAMIC_H
#define FC_DYNAMIC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One library: the names to try (NULL-terminated; the soname of the headers built with first),
/// the functions to find, the table they go to (`count` pointers), and its state.
typedef struct fc_dynamic_library {
    const char *const *names;
    const char *const *symbols;
    void **slots;
    size_t count;
    int state;  // 0 not tried yet, 1 loaded (or linked), -1 failed: `error` says why
    char error[512];
} fc_dynamic_library;

/// NULL once the library's table is filled (it is loaded on the first call, by one thread);
/// otherwise why it cannot be: which library, not installed or a function missing. A failure
/// is final for the process. (Linux and other ELF systems; see FC_DYNAMIC_DEFINE.)
const char *fc_dynamic_require(fc_dynamic_library *library);

// X-macro helpers for a library's list of functions, `LIST(X)` calling `X(name)` once each:
// a table member of the function's own type, the name as a string, the linked address.
#define FC_DYNAMIC_SLOT(f) __typeof__(&f) f;
#define FC_DYNAMIC_NAME(f) #f,
#define FC_DYNAMIC_LINKED(f) .f = f,

/// Defines `struct TYPE VAR`, the table of LIST's functions, and `const char *ERROR(void)`,
/// which fills it the first time (trying the sonames given last, in order) and then returns
/// NULL, or why the library cannot be used. On macOS the table holds the linked functions.
#if defined(__APPLE__)
#define FC_DYNAMIC_DEFINE(TYPE, VAR, LIST, ERROR, ...)                                         \
    struct TYPE VAR = { LIST(FC_DYNAMIC_LINKED) };                                             \
    const char *ERROR(void) { return NULL; }
#else
#define FC_DYNAMIC_DEFINE(TYPE, VAR, LIST, ERROR, ...)                                         \
    struct TYPE VAR;                                                                           \
    static const char *const VAR##_names[] = { __VA_ARGS__, NULL };                            \
    static const char *const VAR##_symbols[] = { LIST(FC_DYNAMIC_NAME) };                      \
    static fc_dynamic_library VAR##_library = {                                                \
        VAR##_names, VAR##_symbols, (void **)&VAR, sizeof VAR##_symbols / sizeof *VAR##_symbols, 0, "", \
    };                                                                                         \
    const char *ERROR(void) { return fc_dynamic_require(&VAR##_library); }
#endif

#ifdef __cplusplus
}
#endif
#endif
