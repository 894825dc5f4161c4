// libheif (Debian: libheif1): the functions the shim calls, through `fc_libheif` (see fc_dynamic.h: loaded when
// first needed on Linux, linked on macOS). Call `fc_heif_library_error` before the first use.
#ifndef FC_HEIF_LIBRARY_H
#define FC_HEIF_LIBRARY_H

#include <libheif/heif.h>
#include "fc_dynamic.h"

#define FC_HEIF_FUNCTIONS(X) \
    X(heif_image_handle_get_list_of_metadata_block_IDs) \
    X(heif_context_alloc) \
    X(heif_context_free) \
    X(heif_context_get_number_of_top_level_images) \
    X(heif_context_get_primary_image_handle) \
    X(heif_context_read_from_memory_without_copy) \
    X(heif_context_set_max_decoding_threads) \
    X(heif_decode_image) \
    X(heif_decoding_options_alloc) \
    X(heif_decoding_options_free) \
    X(heif_image_add_decoding_warning) \
    X(heif_image_add_plane) \
    X(heif_image_create) \
    X(heif_image_get_bits_per_pixel) \
    X(heif_image_get_bits_per_pixel_range) \
    X(heif_image_get_chroma_format) \
    X(heif_image_get_colorspace) \
    X(heif_image_get_decoding_warnings) \
    X(heif_image_get_height) \
    X(heif_image_get_plane) \
    X(heif_image_get_plane_readonly) \
    X(heif_image_get_width) \
    X(heif_image_handle_get_height) \
    X(heif_image_handle_get_ispe_height) \
    X(heif_image_handle_get_ispe_width) \
    X(heif_image_handle_get_luma_bits_per_pixel) \
    X(heif_image_handle_get_metadata) \
    X(heif_image_handle_get_metadata_content_type) \
    X(heif_image_handle_get_metadata_size) \
    X(heif_image_handle_get_metadata_type) \
    X(heif_image_handle_get_nclx_color_profile) \
    X(heif_image_handle_get_number_of_metadata_blocks) \
    X(heif_image_handle_get_raw_color_profile) \
    X(heif_image_handle_get_raw_color_profile_size) \
    X(heif_image_handle_get_width) \
    X(heif_image_handle_has_alpha_channel) \
    X(heif_image_handle_release) \
    X(heif_image_has_channel) \
    X(heif_image_is_premultiplied_alpha) \
    X(heif_image_release) \
    X(heif_image_set_nclx_color_profile) \
    X(heif_nclx_color_profile_alloc) \
    X(heif_nclx_color_profile_free) \
    X(heif_nclx_color_profile_set_color_primaries) \
    X(heif_nclx_color_profile_set_matrix_coefficients) \
    X(heif_nclx_color_profile_set_transfer_characteristics) \
    X(heif_register_decoder) \
    X(heif_context_get_encoder_for_format) \
    X(heif_encoder_release) \
    X(heif_encoder_set_lossy_quality) \
    X(heif_encoder_set_parameter_string) \
    X(heif_encoding_options_alloc) \
    X(heif_encoding_options_free) \
    X(heif_context_encode_image) \
    X(heif_context_write) \
    X(heif_context_add_exif_metadata) \
    X(heif_context_add_XMP_metadata) \
    X(heif_image_set_raw_color_profile)

struct fc_heif_functions {
    FC_HEIF_FUNCTIONS(FC_DYNAMIC_SLOT)
};
extern struct fc_heif_functions fc_libheif;

#endif
