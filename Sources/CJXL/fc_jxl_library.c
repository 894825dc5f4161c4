#include "fc_jxl_library.h"
#include "fc_jxl.h"

FC_DYNAMIC_DEFINE(fc_jxl_functions, fc_libjxl, FC_JXL_FUNCTIONS, fc_jxl_own_library_error, "libjxl.so.0.7", "libjxl.so")
FC_DYNAMIC_DEFINE(fc_jxl_threads_functions, fc_libjxl_threads, FC_JXL_THREADS_FUNCTIONS, fc_jxl_threads_library_error,
                  "libjxl_threads.so.0.7", "libjxl_threads.so")

const char *fc_jxl_own_library_error(void);
const char *fc_jxl_threads_library_error(void);

const char *fc_jxl_library_error(void) {
    const char *error = fc_jxl_own_library_error();
    return error ? error : fc_jxl_threads_library_error();
}
