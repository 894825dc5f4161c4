// libde265 (Debian: libde265-0): the functions the shim calls, through `fc_libde265` (see fc_dynamic.h: loaded when
// first needed on Linux, linked on macOS). Call `fc_de265_library_error` before the first use.
#ifndef FC_DE265_LIBRARY_H
#define FC_DE265_LIBRARY_H

#include <libde265/de265.h>
#include "fc_dynamic.h"

#define FC_DE265_FUNCTIONS(X) \
    X(de265_push_NAL) \
    X(de265_decode) \
    X(de265_flush_data) \
    X(de265_free_decoder) \
    X(de265_get_bits_per_pixel) \
    X(de265_get_chroma_format) \
    X(de265_get_image_colour_primaries) \
    X(de265_get_image_full_range_flag) \
    X(de265_get_image_height) \
    X(de265_get_image_matrix_coefficients) \
    X(de265_get_image_plane) \
    X(de265_get_image_transfer_characteristics) \
    X(de265_get_image_width) \
    X(de265_get_next_picture) \
    X(de265_init) \
    X(de265_new_decoder) \
    X(de265_release_next_picture) \
    X(de265_start_worker_threads)

struct fc_de265_functions {
    FC_DE265_FUNCTIONS(FC_DYNAMIC_SLOT)
};
extern struct fc_de265_functions fc_libde265;

#endif
