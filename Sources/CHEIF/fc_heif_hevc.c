#include "fc_heif_hevc.h"
#include "fc_de265_library.h"
#include "fc_heif_library.h"

#include <libde265/de265.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local fc_heif_hevc_call *fc_heif_hevc_current;

void fc_heif_hevc_begin(fc_heif_hevc_call *call) { fc_heif_hevc_current = call; }
void fc_heif_hevc_end(void) { fc_heif_hevc_current = NULL; }

typedef struct {
    de265_decoder_context *ctx;  // NULL while probing
    fc_heif_hevc_call *call;     // the caller's, when decoding on its thread
} fc_heif_hevc;

static const struct heif_error fc_heif_hevc_ok = { heif_error_Ok, heif_suberror_Unspecified, "Success" };

static const char *fc_heif_hevc_name(void) { return "filterchain libde265"; }

// Above libheif's own plugins (100). While probing, any format: nothing is decoded then.
static int fc_heif_hevc_supports(enum heif_compression_format format) {
    if (fc_heif_hevc_current && fc_heif_hevc_current->probing) return 1000;
    return format == heif_compression_HEVC ? 200 : 0;
}

static struct heif_error fc_heif_hevc_new(void **out) {
    fc_heif_hevc *d = calloc(1, sizeof *d);
    if (!d) return (struct heif_error){ heif_error_Memory_allocation_error, heif_suberror_Unspecified, "out of memory" };
    d->call = fc_heif_hevc_current;
    if (!(d->call && d->call->probing)) {
        d->ctx = fc_libde265.de265_new_decoder();
        if (!d->ctx) {
            free(d);
            return (struct heif_error){ heif_error_Memory_allocation_error, heif_suberror_Unspecified, "libde265: no decoder" };
        }
        int threads = d->call && d->call->threads > 1 ? d->call->threads : 1;
        fc_libde265.de265_start_worker_threads(d->ctx, threads);
    }
    *out = d;
    return fc_heif_hevc_ok;
}

static void fc_heif_hevc_free(void *raw) {
    fc_heif_hevc *d = raw;
    if (d->ctx) fc_libde265.de265_free_decoder(d->ctx);
    free(d);
}

// ---- the probe: an SPS's chroma_format_idc (H.265 7.3.2.2) -----------------------------

typedef struct {
    uint8_t rbsp[64];  // the SPS's first bytes, emulation prevention removed: enough to reach chroma_format_idc
    size_t size, bit;
} fc_heif_bits;

static int fc_heif_read_bits(fc_heif_bits *b, int n, uint32_t *value) {
    uint32_t v = 0;
    for (int i = 0; i < n; i++) {
        if (b->bit >= b->size * 8) return 0;
        v = v << 1 | ((b->rbsp[b->bit / 8] >> (7 - b->bit % 8)) & 1);
        b->bit++;
    }
    *value = v;
    return 1;
}

static int fc_heif_skip_bits(fc_heif_bits *b, size_t n) {
    b->bit += n;
    return b->bit <= b->size * 8;
}

static int fc_heif_read_ue(fc_heif_bits *b, uint32_t *value) {
    int zeros = 0;
    uint32_t bit = 0;
    while (fc_heif_read_bits(b, 1, &bit) && bit == 0) {
        if (++zeros > 31) return 0;
    }
    if (bit != 1) return 0;
    uint32_t rest = 0;
    if (zeros && !fc_heif_read_bits(b, zeros, &rest)) return 0;
    *value = ((1u << zeros) - 1) + rest;
    return 1;
}

static int fc_heif_sps_chroma_format(const uint8_t *nal, size_t size) {
    fc_heif_bits b = { { 0 }, 0, 0 };
    int zeros = 0;
    for (size_t i = 2; i < size && b.size < sizeof b.rbsp; i++) {  // after the 2-byte NAL header
        if (zeros >= 2 && nal[i] == 3) {
            zeros = 0;
            continue;
        }
        zeros = nal[i] == 0 ? zeros + 1 : 0;
        b.rbsp[b.size++] = nal[i];
    }
    uint32_t v, sub_layers, profile_present[8] = { 0 }, level_present[8] = { 0 };
    if (!fc_heif_read_bits(&b, 4, &v) || !fc_heif_read_bits(&b, 3, &sub_layers) || !fc_heif_read_bits(&b, 1, &v)) return -1;
    if (!fc_heif_skip_bits(&b, 96)) return -1;  // general profile, tier and level
    for (uint32_t i = 0; i < sub_layers; i++)
        if (!fc_heif_read_bits(&b, 1, &profile_present[i]) || !fc_heif_read_bits(&b, 1, &level_present[i])) return -1;
    if (sub_layers > 0 && !fc_heif_skip_bits(&b, 2 * (8 - sub_layers))) return -1;
    for (uint32_t i = 0; i < sub_layers; i++)
        if (!fc_heif_skip_bits(&b, (profile_present[i] ? 88 : 0) + (level_present[i] ? 8 : 0))) return -1;
    uint32_t sps_id, chroma;
    if (!fc_heif_read_ue(&b, &sps_id) || !fc_heif_read_ue(&b, &chroma) || chroma > 3) return -1;
    return (int)chroma;
}

// ---- data: NAL units, each after a 4-byte big-endian size (what libheif pushes) ---------

static struct heif_error fc_heif_hevc_push(void *raw, const void *data, size_t size) {
    fc_heif_hevc *d = raw;
    const uint8_t *p = data;
    size_t at = 0;
    while (at < size) {
        if (size - at < 4)
            return (struct heif_error){ heif_error_Decoder_plugin_error, heif_suberror_End_of_data, "a NAL unit's size is cut off" };
        uint32_t n = (uint32_t)p[at] << 24 | (uint32_t)p[at + 1] << 16 | (uint32_t)p[at + 2] << 8 | p[at + 3];
        at += 4;
        if (n > size - at)
            return (struct heif_error){ heif_error_Decoder_plugin_error, heif_suberror_End_of_data, "a NAL unit runs past the data" };
        if (!d->ctx) {
            // Probing: the first SPS (NAL unit type 33) says what the stream is.
            if (n >= 2 && ((p[at] >> 1) & 0x3F) == 33 && d->call && d->call->chroma_format < 0)
                d->call->chroma_format = fc_heif_sps_chroma_format(p + at, n);
        } else if (fc_libde265.de265_push_NAL(d->ctx, p + at, (int)n, 0, NULL) != DE265_OK) {
            return (struct heif_error){ heif_error_Memory_allocation_error, heif_suberror_Unspecified, "libde265 took no more data" };
        }
        at += n;
    }
    return fc_heif_hevc_ok;
}

// ---- decoding: libde265's last picture as a YCbCr (or monochrome) heif_image ------------

static struct heif_error fc_heif_hevc_picture(const struct de265_image *picture, struct heif_image **out) {
    const int mono = fc_libde265.de265_get_chroma_format(picture) == de265_chroma_mono;
    const int planes = mono ? 1 : 3;
    const int bits = fc_libde265.de265_get_bits_per_pixel(picture, 0);
    struct heif_error e = fc_libheif.heif_image_create(fc_libde265.de265_get_image_width(picture, 0), fc_libde265.de265_get_image_height(picture, 0),
                                            mono ? heif_colorspace_monochrome : heif_colorspace_YCbCr,
                                            (enum heif_chroma)fc_libde265.de265_get_chroma_format(picture), out);
    if (e.code != heif_error_Ok) return e;
    static const enum heif_channel channels[3] = { heif_channel_Y, heif_channel_Cb, heif_channel_Cr };
    for (int c = 0; c < planes; c++) {
        int w = fc_libde265.de265_get_image_width(picture, c), h = fc_libde265.de265_get_image_height(picture, c), stride = 0;
        const uint8_t *src = fc_libde265.de265_get_image_plane(picture, c, &stride);
        if (fc_libde265.de265_get_bits_per_pixel(picture, c) != bits)
            e = (struct heif_error){ heif_error_Unsupported_feature, heif_suberror_Unsupported_color_conversion,
                                     "Channels with different number of bits per pixel are not supported" };
        else if (w <= 0 || h <= 0 || !src)
            e = (struct heif_error){ heif_error_Decoder_plugin_error, heif_suberror_Invalid_image_size, "an empty plane" };
        else
            e = fc_libheif.heif_image_add_plane(*out, channels[c], w, h, bits);
        if (e.code != heif_error_Ok) {
            fc_libheif.heif_image_release(*out);
            *out = NULL;
            return e;
        }
        int dst_stride = 0;
        uint8_t *dst = fc_libheif.heif_image_get_plane(*out, channels[c], &dst_stride);
        const size_t row = (size_t)w * ((bits + 7) / 8);
        for (int y = 0; y < h; y++) memcpy(dst + (size_t)y * dst_stride, src + (size_t)y * stride, row);
    }
    // The colour description of the stream's VUI (libheif uses an nclx box of the item instead
    // when there is one); values H.273 does not define are a decoding warning.
    struct heif_color_profile_nclx *nclx = fc_libheif.heif_nclx_color_profile_alloc();
    if (nclx) {
        struct heif_error w[3] = {
            fc_libheif.heif_nclx_color_profile_set_color_primaries(nclx, (uint16_t)fc_libde265.de265_get_image_colour_primaries(picture)),
            fc_libheif.heif_nclx_color_profile_set_transfer_characteristics(nclx, (uint16_t)fc_libde265.de265_get_image_transfer_characteristics(picture)),
            fc_libheif.heif_nclx_color_profile_set_matrix_coefficients(nclx, (uint16_t)fc_libde265.de265_get_image_matrix_coefficients(picture)),
        };
        for (int i = 0; i < 3; i++)
            if (w[i].code != heif_error_Ok) fc_libheif.heif_image_add_decoding_warning(*out, w[i]);
        nclx->full_range_flag = fc_libde265.de265_get_image_full_range_flag(picture) != 0;
        fc_libheif.heif_image_set_nclx_color_profile(*out, nclx);
        fc_libheif.heif_nclx_color_profile_free(nclx);
    }
    return fc_heif_hevc_ok;
}

static struct heif_error fc_heif_hevc_decode(void *raw, struct heif_image **out) {
    fc_heif_hevc *d = raw;
    *out = NULL;
    if (!d->ctx) return (struct heif_error){ heif_error_Decoder_plugin_error, heif_suberror_Unspecified, "probed, not decoded" };
    fc_libde265.de265_flush_data(d->ctx);
    int more = 0;
    do {
        more = 0;
        if (fc_libde265.de265_decode(d->ctx, &more) != DE265_OK) break;
        const struct de265_image *picture = fc_libde265.de265_get_next_picture(d->ctx);
        if (picture) {
            if (*out) fc_libheif.heif_image_release(*out);
            *out = NULL;
            struct heif_error e = fc_heif_hevc_picture(picture, out);
            fc_libde265.de265_release_next_picture(d->ctx);
            if (e.code != heif_error_Ok) return e;
        }
    } while (more);
    if (!*out) return (struct heif_error){ heif_error_Decoder_plugin_error, heif_suberror_Unspecified, "the HEVC data holds no picture" };
    return fc_heif_hevc_ok;
}

const struct heif_decoder_plugin fc_heif_hevc_plugin = {
    .plugin_api_version = 1,  // what heif_register_decoder (per context) takes
    .get_plugin_name = fc_heif_hevc_name,
    .init_plugin = NULL,
    .deinit_plugin = NULL,
    .does_support_format = fc_heif_hevc_supports,
    .new_decoder = fc_heif_hevc_new,
    .free_decoder = fc_heif_hevc_free,
    .push_data = fc_heif_hevc_push,
    .decode_image = fc_heif_hevc_decode,
};
