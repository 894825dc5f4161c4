#include "fc_heif.h"
#include "fc_heif_hevc.h"
#include "fc_heif_library.h"

#include <libheif/heif.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>

#define FC_HEIF_MAX_METADATA_BLOCKS 256
// libheif 1.15's own number of threads for the tiles of a grid.
#define FC_HEIF_LIBHEIF_TILE_THREADS 4

typedef struct {
    const uint8_t *data;
    size_t stride;
    int bits;   // significant bits (1...16)
    int wide;   // two bytes a sample
    uint32_t max;
} fc_heif_plane;

struct fc_heif_decoder {
    const uint8_t *data;
    size_t size;
    fc_heif_report report;
    struct heif_context *ctx;
    struct heif_image_handle *handle;
    struct heif_image *image;
    fc_heif_info info;
    uint8_t *icc, *exif_block, *xmp;
    size_t icc_length, exif_block_length, xmp_length;
    size_t exif_offset, exif_length;  // the TIFF structure inside exif_block
    int exif_damaged;
    int strict, threads, layout_known;
    fc_status failed;
    // The decoded image.
    fc_heif_plane planes[4];  // colour (1 or 3), then alpha
    int colour_planes, alpha, premultiplied;
    uint32_t full_width, full_height;
    fc_heif_layout layout;
    int denominator;
    uint32_t next_row;
    int started;
};

// ---- messages -----------------------------------------------------------------------------

static fc_status fc_heif_say(fc_heif_decoder *d, fc_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->report.message, sizeof d->report.message, fmt, ap);
    va_end(ap);
    // libheif ends some messages with a newline: one line each.
    size_t n = strlen(d->report.message);
    while (n > 0 && (d->report.message[n - 1] == '\n' || d->report.message[n - 1] == ' ')) d->report.message[--n] = 0;
    for (char *c = d->report.message; *c; c++) if (*c == '\n' || *c == '\r') *c = ' ';
    return status;
}

// libheif's error, in its words ("Invalid input: No 'meta' box"), kept before the context
// that owns the text goes away; its limits are said to be its own.
static fc_status fc_heif_error(fc_heif_decoder *d, struct heif_error e) {
    const char *text = e.message && e.message[0] ? e.message : "unknown error";
    if (e.code == heif_error_Memory_allocation_error && e.subcode == heif_suberror_Security_limit_exceeded) {
        // "Memory allocation error: Security limit exceeded: Image size ... exceeds ...": the
        // last part says what.
        const char *what = strstr(text, "Security limit exceeded: ");
        return fc_heif_say(d, FC_LIMIT, "over libheif's security limit: %s", what ? what + 25 : text);
    }
    if (e.code == heif_error_Memory_allocation_error) return fc_heif_say(d, FC_NO_MEMORY, "%s", text);
    if (e.code == heif_error_Unsupported_feature || e.code == heif_error_Unsupported_filetype)
        return fc_heif_say(d, FC_UNSUPPORTED, "%s", text);
    return fc_heif_say(d, FC_FAILED, "%s", text);
}

// ---- the decoder --------------------------------------------------------------------------

fc_heif_decoder *fc_heif_decoder_new(const uint8_t *data, size_t size) {
    fc_heif_decoder *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->data = data;
    d->size = size;
    d->denominator = 1;
    return d;
}

void fc_heif_decoder_free(fc_heif_decoder *d) {
    if (!d) return;
    if (d->image) fc_libheif.heif_image_release(d->image);
    if (d->handle) fc_libheif.heif_image_handle_release(d->handle);
    if (d->ctx) fc_libheif.heif_context_free(d->ctx);
    free(d->icc);
    free(d->exif_block);
    free(d->xmp);
    free(d);
}

const fc_heif_report *fc_heif_decoder_report(const fc_heif_decoder *d) { return &d->report; }

static int fc_heif_is_tiff(const uint8_t *p, size_t n) {
    return n >= 8 && ((p[0] == 'I' && p[1] == 'I' && p[2] == 42 && p[3] == 0) ||
                      (p[0] == 'M' && p[1] == 'M' && p[2] == 0 && p[3] == 42));
}

// An Exif item holds a 4-byte big-endian offset to the TIFF header after that field (ISO/IEC
// 23008-12, A.2.1); writers put "Exif\0\0" there or nothing. Finds the TIFF structure.
static void fc_heif_find_tiff(fc_heif_decoder *d) {
    const uint8_t *b = d->exif_block;
    size_t n = d->exif_block_length;
    if (n >= 4) {
        uint32_t offset = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
        if ((uint64_t)offset + 4 < n && fc_heif_is_tiff(b + 4 + offset, n - 4 - offset)) {
            d->exif_offset = 4 + offset;
        } else if (n >= 10 && memcmp(b + 4, "Exif\0\0", 6) == 0 && fc_heif_is_tiff(b + 10, n - 10)) {
            d->exif_offset = 10;
        } else if (fc_heif_is_tiff(b + 4, n - 4)) {
            d->exif_offset = 4;
        } else if (fc_heif_is_tiff(b, n)) {
            d->exif_offset = 0;
        } else {
            d->exif_damaged = 1;
            return;
        }
        d->exif_length = n - d->exif_offset;
    } else {
        d->exif_damaged = 1;
    }
}

static void fc_heif_read_metadata(fc_heif_decoder *d) {
    int count = fc_libheif.heif_image_handle_get_number_of_metadata_blocks(d->handle, NULL);
    if (count <= 0) return;
    if (count > FC_HEIF_MAX_METADATA_BLOCKS) count = FC_HEIF_MAX_METADATA_BLOCKS;
    heif_item_id ids[FC_HEIF_MAX_METADATA_BLOCKS];
    count = fc_libheif.heif_image_handle_get_list_of_metadata_block_IDs(d->handle, NULL, ids, count);
    for (int i = 0; i < count; i++) {
        const char *type = fc_libheif.heif_image_handle_get_metadata_type(d->handle, ids[i]);
        const char *content = fc_libheif.heif_image_handle_get_metadata_content_type(d->handle, ids[i]);
        int exif = type && strcmp(type, "Exif") == 0 && !d->exif_block;
        int xmp = type && strcmp(type, "mime") == 0 && content && strcmp(content, "application/rdf+xml") == 0 && !d->xmp;
        if (!exif && !xmp) continue;
        size_t size = fc_libheif.heif_image_handle_get_metadata_size(d->handle, ids[i]);
        if (size == 0 || size > d->size) continue;  // its extents lie inside the file
        uint8_t *bytes = malloc(size);
        if (!bytes) continue;
        struct heif_error e = fc_libheif.heif_image_handle_get_metadata(d->handle, ids[i], bytes);
        if (e.code != heif_error_Ok) {
            free(bytes);
            if (exif) d->exif_damaged = 1;
            continue;
        }
        if (exif) {
            d->exif_block = bytes;
            d->exif_block_length = size;
            fc_heif_find_tiff(d);
        } else {
            d->xmp = bytes;
            d->xmp_length = size;
        }
    }
}

// ---- AV1 in a HEIF container -------------------------------------------------------------

// A HEIF file whose image is AV1-coded is an AVIF without the avif brand (with it, the codec
// registry sends the file to libavif). libheif 1.15's dav1d plugin leaks the picture and the
// data it was given when dav1d fails on a damaged stream (found by the AVIF fuzzer), and
// filterchain reads AV1 with libavif, the reference decoder: this plugin, above libheif's own
// (100) and fc_heif_hevc's probe (1000), refuses AV1 in the HEIF reader by name.
static const char *fc_heif_av1_name(void) { return "filterchain: AV1 is read by libavif"; }
static int fc_heif_av1_supports(enum heif_compression_format format) {
    return format == heif_compression_AV1 ? 2000 : 0;
}
static int fc_heif_av1_token;
static struct heif_error fc_heif_av1_new(void **out) {
    *out = &fc_heif_av1_token;
    return (struct heif_error){ heif_error_Ok, heif_suberror_Unspecified, "Success" };
}
static void fc_heif_av1_free(void *decoder) { (void)decoder; }
static struct heif_error fc_heif_av1_push(void *decoder, const void *data, size_t size) {
    (void)decoder; (void)data; (void)size;
    return (struct heif_error){ heif_error_Ok, heif_suberror_Unspecified, "Success" };
}
static struct heif_error fc_heif_av1_decode(void *decoder, struct heif_image **out) {
    (void)decoder;
    *out = NULL;
    return (struct heif_error){ heif_error_Unsupported_feature, heif_suberror_Unsupported_codec,
                                "the image is AV1-coded (an AVIF) but the file's brands do not say avif; "
                                "filterchain reads AV1 with libavif, which needs that brand" };
}
static const struct heif_decoder_plugin fc_heif_av1_plugin = {
    .plugin_api_version = 1,
    .get_plugin_name = fc_heif_av1_name,
    .init_plugin = NULL,
    .deinit_plugin = NULL,
    .does_support_format = fc_heif_av1_supports,
    .new_decoder = fc_heif_av1_new,
    .free_decoder = fc_heif_av1_free,
    .push_data = fc_heif_av1_push,
    .decode_image = fc_heif_av1_decode,
};

fc_status fc_heif_decoder_open(fc_heif_decoder *d, fc_heif_info *info) {
    if (!fc_de265_ready()) return fc_heif_say(d, FC_FAILED, "libde265 could not be initialised");
    d->ctx = fc_libheif.heif_context_alloc();
    if (!d->ctx) return FC_NO_MEMORY;
    struct heif_error registered = fc_libheif.heif_register_decoder(d->ctx, &fc_heif_hevc_plugin);
    if (registered.code != heif_error_Ok) return fc_heif_error(d, registered);
    registered = fc_libheif.heif_register_decoder(d->ctx, &fc_heif_av1_plugin);
    if (registered.code != heif_error_Ok) return fc_heif_error(d, registered);
    struct heif_error e = fc_libheif.heif_context_read_from_memory_without_copy(d->ctx, d->data, d->size, NULL);
    if (e.code != heif_error_Ok) return fc_heif_error(d, e);
    e = fc_libheif.heif_context_get_primary_image_handle(d->ctx, &d->handle);
    if (e.code != heif_error_Ok) return fc_heif_error(d, e);
    int width = fc_libheif.heif_image_handle_get_width(d->handle), height = fc_libheif.heif_image_handle_get_height(d->handle);
    if (width <= 0 || height <= 0)
        return fc_heif_say(d, FC_FAILED, "the primary image has no size (%d x %d)", width, height);
    int bits = fc_libheif.heif_image_handle_get_luma_bits_per_pixel(d->handle);
    if (bits < 1 || bits > 16)
        return fc_heif_say(d, FC_UNSUPPORTED, "HEIF: %d bits per sample are not read (1 to 16 are)", bits);
    d->info.width = (uint32_t)width;
    d->info.height = (uint32_t)height;
    int sw = fc_libheif.heif_image_handle_get_ispe_width(d->handle), sh = fc_libheif.heif_image_handle_get_ispe_height(d->handle);
    d->info.stored_width = sw > 0 ? (uint32_t)sw : 0;
    d->info.stored_height = sh > 0 ? (uint32_t)sh : 0;
    d->info.bits = bits;
    d->info.alpha = fc_libheif.heif_image_handle_has_alpha_channel(d->handle) != 0;
    int images = fc_libheif.heif_context_get_number_of_top_level_images(d->ctx);
    d->info.images = images > 0 ? images : 1;

    struct heif_color_profile_nclx *nclx = NULL;
    e = fc_libheif.heif_image_handle_get_nclx_color_profile(d->handle, &nclx);
    if (e.code == heif_error_Ok && nclx) {
        d->info.has_nclx = 1;
        d->info.colour_primaries = (uint16_t)nclx->color_primaries;
        d->info.transfer_characteristics = (uint16_t)nclx->transfer_characteristics;
        d->info.matrix_coefficients = (uint16_t)nclx->matrix_coefficients;
        d->info.full_range = nclx->full_range_flag != 0;
    }
    if (nclx) fc_libheif.heif_nclx_color_profile_free(nclx);

    size_t icc_size = fc_libheif.heif_image_handle_get_raw_color_profile_size(d->handle);
    if (icc_size > 0 && icc_size <= d->size) {
        d->icc = malloc(icc_size);
        if (d->icc && fc_libheif.heif_image_handle_get_raw_color_profile(d->handle, d->icc).code == heif_error_Ok) {
            d->icc_length = icc_size;
        } else {
            free(d->icc);
            d->icc = NULL;
        }
    }
    fc_heif_read_metadata(d);
    *info = d->info;
    return FC_OK;
}

const uint8_t *fc_heif_decoder_icc(fc_heif_decoder *d, size_t *length) {
    *length = d->icc_length;
    return d->icc;
}

const uint8_t *fc_heif_decoder_exif(fc_heif_decoder *d, size_t *length, int *damaged) {
    *damaged = d->exif_damaged;
    *length = d->exif_block ? d->exif_length : 0;
    return d->exif_block && d->exif_length ? d->exif_block + d->exif_offset : NULL;
}

const uint8_t *fc_heif_decoder_xmp(fc_heif_decoder *d, size_t *length) {
    *length = d->xmp_length;
    return d->xmp;
}

// ---- decoding -----------------------------------------------------------------------------

static int fc_heif_take_plane(fc_heif_decoder *d, enum heif_channel channel, fc_heif_plane *p) {
    if (!fc_libheif.heif_image_has_channel(d->image, channel)) return 0;
    int w = fc_libheif.heif_image_get_width(d->image, channel), h = fc_libheif.heif_image_get_height(d->image, channel);
    int bits = fc_libheif.heif_image_get_bits_per_pixel_range(d->image, channel);
    int storage = fc_libheif.heif_image_get_bits_per_pixel(d->image, channel);
    int stride = 0;
    const uint8_t *data = fc_libheif.heif_image_get_plane_readonly(d->image, channel, &stride);
    if (!data || w < (int)d->full_width || h < (int)d->full_height || bits < 1 || bits > 16 || stride <= 0) return 0;
    if (!((storage == 8 && bits <= 8) || (storage == 16 && bits <= 16))) return 0;
    p->data = data;
    p->stride = (size_t)stride;
    p->bits = bits;
    p->wide = storage == 16;
    p->max = (1u << bits) - 1;
    return 1;
}

static inline uint32_t fc_heif_sample(const fc_heif_plane *p, uint32_t x, uint32_t y) {
    const uint8_t *row = p->data + (size_t)y * p->stride;
    return p->wide ? ((const uint16_t *)row)[x] & p->max : row[x];
}

// A monochrome image with alpha comes out of libheif 1.15 as RGB with R = G = B.
static int fc_heif_neutral(const fc_heif_decoder *d) {
    const fc_heif_plane *r = &d->planes[0], *g = &d->planes[1], *b = &d->planes[2];
    if (r->bits != g->bits || g->bits != b->bits) return 0;
    for (uint32_t y = 0; y < d->full_height; y++)
        for (uint32_t x = 0; x < d->full_width; x++) {
            uint32_t v = fc_heif_sample(r, x, y);
            if (fc_heif_sample(g, x, y) != v || fc_heif_sample(b, x, y) != v) return 0;
        }
    return 1;
}

static void fc_heif_collect_warnings(fc_heif_decoder *d) {
    struct heif_error warnings[4];
    int n = fc_libheif.heif_image_get_decoding_warnings(d->image, 0, warnings, 4);
    for (int i = 0; i < n; i++) {
        size_t used = strlen(d->report.warnings);
        char line[FC_HEIF_MESSAGE_MAX];
        snprintf(line, sizeof line, "%s", warnings[i].message && warnings[i].message[0] ? warnings[i].message : "a decoding warning");
        size_t length = strlen(line);
        while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == ' ')) line[--length] = 0;
        for (char *c = line; *c; c++) if (*c == '\n' || *c == '\r') *c = ' ';
        snprintf(d->report.warnings + used, sizeof d->report.warnings - used, "%s%s", used ? "\n" : "", line);
    }
}

// Decodes the primary image once, with its transformations, into planes of the colour space
// the layout wants (`grey`: monochrome, or YCbCr's luma with alpha, since libheif 1.15 turns
// a monochrome image with alpha into RGB; else RGB), or, with no layout yet, its own.
static fc_status fc_heif_decode_planes(fc_heif_decoder *d) {
    struct heif_decoding_options *options = fc_libheif.heif_decoding_options_alloc();
    if (!options) return FC_NO_MEMORY;
    options->ignore_transformations = 0;
    if (options->version >= 2) options->convert_hdr_to_8bit = 0;
    if (options->version >= 3) options->strict_decoding = d->strict ? 1 : 0;
    const int grey = d->layout_known && d->layout.channels <= 2;
    const int alpha = d->info.alpha;
    // Undefined: monochrome stays monochrome, YCbCr becomes planar RGB (the same samples as
    // libheif's interleaved RGB, interleaved here row by row).
    enum heif_colorspace space = grey && alpha ? heif_colorspace_YCbCr : heif_colorspace_undefined;
    // Threads: libde265's for the image decoded on this thread (libheif's plugin starts one);
    // libheif's for the tiles of a grid, each tile with one libde265 thread.
    fc_heif_hevc_call call = { .probing = 0, .chroma_format = -1, .threads = d->threads };
    fc_libheif.heif_context_set_max_decoding_threads(d->ctx, d->threads > 1 ? d->threads : FC_HEIF_LIBHEIF_TILE_THREADS);
    fc_heif_hevc_begin(&call);
    struct heif_error e = fc_libheif.heif_decode_image(d->handle, &d->image, space, heif_chroma_undefined, options);
    fc_heif_hevc_end();
    fc_libheif.heif_decoding_options_free(options);
    if (e.code != heif_error_Ok) {
        d->image = NULL;
        return fc_heif_error(d, e);
    }
    fc_heif_collect_warnings(d);
    if (d->strict && d->report.warnings[0]) {
        // libheif's plugins fail on what they only warn about when lenient.
        char first[FC_HEIF_MESSAGE_MAX];
        snprintf(first, sizeof first, "%s", d->report.warnings);
        char *newline = strchr(first, '\n');
        if (newline) *newline = 0;
        d->report.warnings[0] = 0;
        return fc_heif_say(d, FC_FAILED, "%s", first);
    }
    d->full_width = d->info.width;
    d->full_height = d->info.height;
    enum heif_colorspace got = fc_libheif.heif_image_get_colorspace(d->image);
    enum heif_chroma chroma = fc_libheif.heif_image_get_chroma_format(d->image);
    enum heif_channel first = heif_channel_Y;
    int ok, colour_planes;
    if (got == heif_colorspace_monochrome || (got == heif_colorspace_YCbCr && grey)) {
        ok = fc_heif_take_plane(d, heif_channel_Y, &d->planes[0]);
        colour_planes = 1;
    } else if (got == heif_colorspace_RGB && chroma == heif_chroma_444) {
        ok = fc_heif_take_plane(d, heif_channel_R, &d->planes[0]) && fc_heif_take_plane(d, heif_channel_G, &d->planes[1]) &&
             fc_heif_take_plane(d, heif_channel_B, &d->planes[2]);
        colour_planes = 3;
        first = heif_channel_R;
    } else {
        return fc_heif_say(d, FC_UNSUPPORTED, "HEIF: libheif delivered colour space %d, chroma %d, which is not read",
                           (int)got, (int)chroma);
    }
    if (!ok) {
        return fc_heif_say(d, FC_FAILED, "the coded image is %d x %d (%d bits), its header says %u x %u (%d bits)",
                           fc_libheif.heif_image_get_width(d->image, first), fc_libheif.heif_image_get_height(d->image, first),
                           fc_libheif.heif_image_get_bits_per_pixel_range(d->image, first), d->full_width, d->full_height, d->info.bits);
    }
    if (d->layout_known) {
        // The layout said at open: grey from RGB takes R (R = G = B), colour from grey repeats it.
        const int want = d->layout.channels <= 2 ? 1 : 3;
        if (colour_planes != want) {
            if (want == 3) d->planes[1] = d->planes[2] = d->planes[0];
            colour_planes = want;
        }
    }
    d->colour_planes = colour_planes;
    d->alpha = fc_heif_take_plane(d, heif_channel_Alpha, &d->planes[d->colour_planes]);
    if (d->layout_known && d->alpha != (d->layout.channels % 2 == 0))
        return fc_heif_say(d, FC_FAILED, "the alpha image %s", d->alpha ? "was not announced" : "could not be decoded");
    if (!d->layout_known) {
        if (d->alpha && d->colour_planes == 3 && fc_heif_neutral(d)) {
            d->planes[1] = d->planes[3];
            d->colour_planes = 1;
        }
        int deep = 0;
        for (int c = 0; c < d->colour_planes + d->alpha; c++) deep |= d->planes[c].bits > 8;
        d->layout.width = d->full_width;
        d->layout.height = d->full_height;
        d->layout.channels = d->colour_planes + d->alpha;
        d->layout.depth = deep ? 16 : 8;
        d->layout_known = 1;
    }
    d->premultiplied = d->alpha && fc_libheif.heif_image_is_premultiplied_alpha(d->image);
    return FC_OK;
}

// A failed decode is not tried again: every later read gives its error.
static fc_status fc_heif_decode(fc_heif_decoder *d) {
    if (d->failed) return d->failed;
    fc_status status = fc_heif_decode_planes(d);
    if (status != FC_OK) {
        if (d->image) fc_libheif.heif_image_release(d->image);
        d->image = NULL;
        d->failed = status;
    }
    return status;
}

fc_status fc_heif_decoder_layout(fc_heif_decoder *d, int strict, fc_heif_layout *layout) {
    if (!d->handle || d->layout_known) return fc_heif_say(d, FC_FAILED, "layout asked for out of order");
    d->strict = strict;
    d->threads = 1;
    // An HEVC image's SPS says whether it is monochrome: the probe reads it and decodes nothing.
    fc_heif_hevc_call call = { .probing = 1, .chroma_format = -1, .threads = 0 };
    fc_libheif.heif_context_set_max_decoding_threads(d->ctx, 0);
    fc_heif_hevc_begin(&call);
    struct heif_image *image = NULL;
    struct heif_error e = fc_libheif.heif_decode_image(d->handle, &image, heif_colorspace_undefined, heif_chroma_undefined, NULL);
    fc_heif_hevc_end();
    if (e.code == heif_error_Ok && image) fc_libheif.heif_image_release(image);
    if (call.chroma_format >= 0) {
        d->layout.width = d->info.width;
        d->layout.height = d->info.height;
        d->layout.channels = (call.chroma_format == 0 ? 1 : 3) + (d->info.alpha ? 1 : 0);
        d->layout.depth = d->info.bits > 8 ? 16 : 8;
        d->layout_known = 1;
        d->full_width = d->info.width;
        d->full_height = d->info.height;
    } else {
        // Another codec (AV1), or a file the probe could not read: decode now.
        fc_status status = fc_heif_decode(d);
        if (status != FC_OK) return status;
    }
    *layout = d->layout;
    return FC_OK;
}

void fc_heif_decoder_set_threads(fc_heif_decoder *d, int threads) {
    if (!d->image && threads >= 1) d->threads = threads;
}

int fc_heif_decoder_decoded(const fc_heif_decoder *d) { return d->image != NULL; }

fc_status fc_heif_decoder_shrink(fc_heif_decoder *d, int denominator, fc_heif_layout *layout) {
    if (!d->layout_known || d->started || !(denominator == 1 || denominator == 2 || denominator == 4 || denominator == 8))
        return fc_heif_say(d, FC_FAILED, "shrink by %d asked for at the wrong time", denominator);
    d->denominator = denominator;
    d->layout.width = (d->full_width + (uint32_t)denominator - 1) / (uint32_t)denominator;
    d->layout.height = (d->full_height + (uint32_t)denominator - 1) / (uint32_t)denominator;
    *layout = d->layout;
    return FC_OK;
}

// One output row, the general way: any depths, premultiplied alpha, blocks of any size.
static void fc_heif_row_general(const fc_heif_decoder *d, uint8_t *dst, uint32_t oy) {
    const int n = d->denominator, channels = d->layout.channels, colour = d->colour_planes;
    const uint32_t out_max = d->layout.depth == 16 ? 65535 : 255;
    const uint32_t y0 = oy * (uint32_t)n, y1 = y0 + (uint32_t)n < d->full_height ? y0 + (uint32_t)n : d->full_height;
    const fc_heif_plane *alpha = d->alpha ? &d->planes[colour] : NULL;
    for (uint32_t ox = 0; ox < d->layout.width; ox++) {
        const uint32_t x0 = ox * (uint32_t)n, x1 = x0 + (uint32_t)n < d->full_width ? x0 + (uint32_t)n : d->full_width;
        uint64_t sum[4] = { 0, 0, 0, 0 }, weighted[3] = { 0, 0, 0 };
        uint64_t count = 0;
        for (uint32_t y = y0; y < y1; y++)
            for (uint32_t x = x0; x < x1; x++) {
                uint32_t a = alpha ? fc_heif_sample(alpha, x, y) : 0;
                for (int c = 0; c < colour; c++) {
                    uint32_t v = fc_heif_sample(&d->planes[c], x, y);
                    if (d->premultiplied) {
                        // Stored as v * a / max_a: undone, clamped to the channel's range.
                        uint64_t u = a ? ((uint64_t)v * alpha->max + a / 2) / a : 0;
                        v = u > d->planes[c].max ? d->planes[c].max : (uint32_t)u;
                    }
                    sum[c] += v;
                    weighted[c] += (uint64_t)v * a;
                }
                sum[colour] += a;
                count++;
            }
        for (int c = 0; c < channels; c++) {
            const uint64_t in_max = d->planes[c].max;
            uint64_t value;
            if (c < colour && alpha && n > 1 && sum[colour] > 0) {
                // Colour averaged by weight of alpha, as premultiplied samples average.
                const uint64_t den = sum[colour] * in_max;
                value = (weighted[c] * out_max + den / 2) / den;
            } else {
                const uint64_t den = count * in_max;
                value = (sum[c] * out_max + den / 2) / den;
            }
            if (out_max == 255) dst[(size_t)ox * channels + c] = (uint8_t)value;
            else ((uint16_t *)dst)[(size_t)ox * channels + c] = (uint16_t)value;
        }
    }
}

// 8-bit planes into 8-bit rows, no reduction, straight alpha: an interleave.
static void fc_heif_row_copy8(const fc_heif_decoder *d, uint8_t *dst, uint32_t y) {
    const int channels = d->layout.channels;
    const uint32_t w = d->layout.width;
    for (int c = 0; c < channels; c++) {
        const uint8_t *src = d->planes[c].data + (size_t)y * d->planes[c].stride;
        uint8_t *out = dst + c;
        for (uint32_t x = 0; x < w; x++) out[(size_t)x * channels] = src[x];
    }
}

// 8-bit planes into 8-bit rows, no alpha, reduced by averaging n x n blocks (n = 2, 4, 8: a
// whole block's mean is a shift; the blocks cut by the right and bottom edges divide).
static void fc_heif_row_shrink8(const fc_heif_decoder *d, uint8_t *dst, uint32_t oy) {
    const uint32_t n = (uint32_t)d->denominator, channels = (uint32_t)d->layout.channels;
    const uint32_t w = d->layout.width, full_w = d->full_width;
    const uint32_t y0 = oy * n, rows = y0 + n < d->full_height ? n : d->full_height - y0;
    const uint32_t whole = full_w / n;  // output columns with a whole block
    const uint32_t shift = n == 2 ? 2 : n == 4 ? 4 : 6;
    uint32_t sums[1024];
    for (uint32_t c = 0; c < channels; c++) {
        const fc_heif_plane *p = &d->planes[c];
        uint8_t *out = dst + c;
        if (n == 2 && rows == 2) {
            const uint8_t *a = p->data + (size_t)y0 * p->stride, *b = a + p->stride;
            for (uint32_t ox = 0; ox < whole; ox++) {
                const uint32_t x = 2 * ox;
                out[(size_t)ox * channels] = (uint8_t)((a[x] + a[x + 1] + b[x] + b[x + 1] + 2) >> 2);
            }
            if (whole < w) out[(size_t)whole * channels] = (uint8_t)((a[full_w - 1] + b[full_w - 1] + 1) >> 1);
            continue;
        }
        for (uint32_t start = 0; start < w; start += 1024) {
            const uint32_t end = start + 1024 < w ? start + 1024 : w;
            memset(sums, 0, sizeof sums);
            for (uint32_t y = y0; y < y0 + rows; y++) {
                const uint8_t *src = p->data + (size_t)y * p->stride;
                for (uint32_t ox = start; ox < end; ox++) {
                    const uint32_t x0 = ox * n, x1 = ox < whole ? x0 + n : full_w;
                    uint32_t s = 0;
                    for (uint32_t x = x0; x < x1; x++) s += src[x];
                    sums[ox - start] += s;
                }
            }
            for (uint32_t ox = start; ox < end; ox++) {
                const uint32_t sum = sums[ox - start];
                if (rows == n && ox < whole) {
                    out[(size_t)ox * channels] = (uint8_t)((sum + (1u << (shift - 1))) >> shift);
                } else {
                    const uint32_t count = rows * (ox < whole ? n : full_w - ox * n);
                    out[(size_t)ox * channels] = (uint8_t)((sum + count / 2) / count);
                }
            }
        }
    }
}

fc_status fc_heif_decoder_read(fc_heif_decoder *d, uint8_t *dst, size_t stride, uint32_t rows) {
    if (!d->layout_known) return fc_heif_say(d, FC_FAILED, "read before the layout");
    if (!d->image) {
        fc_status status = fc_heif_decode(d);
        if (status != FC_OK) return status;
    }
    if (rows > d->layout.height - d->next_row)
        return fc_heif_say(d, FC_FAILED, "reading past the last row (%u)", d->layout.height);
    d->started = 1;
    int eight = d->layout.depth == 8 && !d->premultiplied;
    for (int c = 0; c < d->layout.channels; c++) eight = eight && d->planes[c].bits == 8 && !d->planes[c].wide;
    for (uint32_t r = 0; r < rows; r++) {
        uint8_t *out = dst + (size_t)r * stride;
        uint32_t y = d->next_row + r;
        if (eight && d->denominator == 1) fc_heif_row_copy8(d, out, y);
        else if (eight && !d->alpha) fc_heif_row_shrink8(d, out, y);
        else fc_heif_row_general(d, out, y);
    }
    d->next_row += rows;
    return FC_OK;
}

// ---------------------------------------------------------------------------------------
// Writing (HEVC through libheif's x265 plugin)

static fc_status fc_heif_encode_failure(fc_heif_report *report, struct heif_error e, const char *what) {
    snprintf(report->message, sizeof report->message, "%s: %s", what, e.message ? e.message : "libheif failed");
    if (e.code == heif_error_Memory_allocation_error) return FC_NO_MEMORY;
    if (e.code == heif_error_Unsupported_feature || e.code == heif_error_Unsupported_filetype) return FC_UNSUPPORTED;
    return FC_FAILED;
}

static struct heif_error fc_heif_write_file(struct heif_context *ctx, const void *data, size_t size, void *userdata) {
    (void)ctx;
    FILE *file = userdata;
    struct heif_error ok = { heif_error_Ok, heif_suberror_Unspecified, "" };
    if (fwrite(data, 1, size, file) != size) {
        struct heif_error e = { heif_error_Encoding_error, heif_suberror_Cannot_write_output_data, "write failed" };
        return e;
    }
    return ok;
}

fc_status fc_heif_encode(const fc_heif_encode_options *o, const uint8_t *pixels, size_t stride, FILE *file,
                         fc_heif_report *report) {
    static const char *presets[] = { "ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower",
                                     "veryslow", "placebo" };
    const char *why = fc_heif_library_error();
    if (why) { snprintf(report->message, sizeof report->message, "%s", why); return FC_UNSUPPORTED; }
    if (o->preset < 0 || o->preset > 9 || o->quality < 0 || o->quality > 100 || o->width == 0 || o->height == 0
        || (o->depth != 8 && o->depth != 16) || o->channels < 1 || o->channels > 4) {
        snprintf(report->message, sizeof report->message, "invalid encoder settings");
        return FC_FAILED;
    }
    struct heif_context *ctx = fc_libheif.heif_context_alloc();
    if (!ctx) return FC_NO_MEMORY;
    fc_status status = FC_OK;
    struct heif_encoder *encoder = NULL;
    struct heif_image *image = NULL;
    struct heif_image_handle *handle = NULL;
    struct heif_encoding_options *options = NULL;
    int grey = o->channels <= 2, alpha = o->channels == 2 || o->channels == 4;
    int bits = o->depth == 8 ? 8 : 10;
    // libheif 1.15 registers its encoder plugins at the first request, unguarded: requests
    // one at a time (the encoding itself runs in parallel).
    static pthread_mutex_t encoders = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&encoders);
    struct heif_error e = fc_libheif.heif_context_get_encoder_for_format(ctx, heif_compression_HEVC, &encoder);
    pthread_mutex_unlock(&encoders);
    if (e.code != heif_error_Ok || !encoder) {
        snprintf(report->message, sizeof report->message, "this libheif has no HEVC encoder (x265)");
        status = FC_UNSUPPORTED;
        goto done;
    }
    e = fc_libheif.heif_encoder_set_lossy_quality(encoder, o->quality);
    if (e.code == heif_error_Ok) e = fc_libheif.heif_encoder_set_parameter_string(encoder, "preset", presets[o->preset]);
    if (e.code == heif_error_Ok && !grey) e = fc_libheif.heif_encoder_set_parameter_string(encoder, "chroma", o->chroma444 ? "444" : "420");
    if (e.code != heif_error_Ok) { status = fc_heif_encode_failure(report, e, "the encoder's settings"); goto done; }
    enum heif_chroma chroma = grey ? heif_chroma_monochrome
        : o->depth == 8 ? (alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB)
                        : (alpha ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE);
    e = fc_libheif.heif_image_create((int)o->width, (int)o->height, grey ? heif_colorspace_monochrome : heif_colorspace_RGB,
                                     chroma, &image);
    if (e.code != heif_error_Ok) { status = fc_heif_encode_failure(report, e, "the image"); goto done; }
    // The planes: interleaved for colour, Y (and alpha) for grey; 16-bit samples as 10-bit,
    // v10 = round(v16 x 1023 / 65535), little-endian.
    enum heif_channel planes[2] = { grey ? heif_channel_Y : heif_channel_interleaved, heif_channel_Alpha };
    int plane_count = grey && alpha ? 2 : 1;
    for (int p = 0; p < plane_count; p++) {
        e = fc_libheif.heif_image_add_plane(image, planes[p], (int)o->width, (int)o->height, bits);
        if (e.code != heif_error_Ok) { status = fc_heif_encode_failure(report, e, "the image's planes"); goto done; }
    }
    for (int p = 0; p < plane_count; p++) {
        int plane_stride = 0;
        uint8_t *plane = fc_libheif.heif_image_get_plane(image, planes[p], &plane_stride);
        if (!plane) { status = FC_NO_MEMORY; goto done; }
        // The samples of a pixel this plane takes: all (interleaved), else grey's or alpha's.
        int per = grey ? 1 : o->channels, first = grey ? p : 0;
        for (uint32_t y = 0; y < o->height; y++) {
            uint8_t *out = plane + (size_t)y * (size_t)plane_stride;
            if (o->depth == 8) {
                const uint8_t *in = pixels + (size_t)y * stride;
                for (uint32_t x = 0; x < o->width; x++)
                    for (int c = 0; c < per; c++) out[(size_t)x * per + c] = in[(size_t)x * o->channels + first + c];
            } else {
                const uint16_t *in = (const uint16_t *)(const void *)(pixels + (size_t)y * stride);
                for (uint32_t x = 0; x < o->width; x++)
                    for (int c = 0; c < per; c++) {
                        uint32_t v = ((uint32_t)in[(size_t)x * o->channels + first + c] * 1023u + 32767u) / 65535u;
                        out[((size_t)x * per + c) * 2] = (uint8_t)(v & 0xff);
                        out[((size_t)x * per + c) * 2 + 1] = (uint8_t)(v >> 8);
                    }
            }
        }
    }
    struct heif_color_profile_nclx *nclx = fc_libheif.heif_nclx_color_profile_alloc();
    if (!nclx) { status = FC_NO_MEMORY; goto done; }
    fc_libheif.heif_nclx_color_profile_set_color_primaries(nclx, o->colour_primaries);
    fc_libheif.heif_nclx_color_profile_set_transfer_characteristics(nclx, o->transfer_characteristics);
    fc_libheif.heif_nclx_color_profile_set_matrix_coefficients(nclx, o->matrix_coefficients);
    nclx->full_range_flag = 1;
    e = fc_libheif.heif_image_set_nclx_color_profile(image, nclx);
    fc_libheif.heif_nclx_color_profile_free(nclx);
    if (e.code != heif_error_Ok) { status = fc_heif_encode_failure(report, e, "the colour description"); goto done; }
    if (o->metadata.icc && o->metadata.icc_length) {
        e = fc_libheif.heif_image_set_raw_color_profile(image, "prof", o->metadata.icc, o->metadata.icc_length);
        if (e.code != heif_error_Ok) { status = fc_heif_encode_failure(report, e, "the ICC profile"); goto done; }
    }
    options = fc_libheif.heif_encoding_options_alloc();
    if (!options) { status = FC_NO_MEMORY; goto done; }
    options->save_alpha_channel = alpha ? 1 : 0;
    e = fc_libheif.heif_context_encode_image(ctx, image, encoder, options, &handle);
    if (e.code != heif_error_Ok) { status = fc_heif_encode_failure(report, e, "HEVC encoding"); goto done; }
    if (o->metadata.exif && o->metadata.exif_length) {
        e = fc_libheif.heif_context_add_exif_metadata(ctx, handle, o->metadata.exif, (int)o->metadata.exif_length);
        if (e.code != heif_error_Ok) { status = fc_heif_encode_failure(report, e, "the EXIF item"); goto done; }
    }
    if (o->metadata.xmp && o->metadata.xmp_length) {
        e = fc_libheif.heif_context_add_XMP_metadata(ctx, handle, o->metadata.xmp, (int)o->metadata.xmp_length);
        if (e.code != heif_error_Ok) { status = fc_heif_encode_failure(report, e, "the XMP item"); goto done; }
    }
    struct heif_writer writer = { 1, fc_heif_write_file };
    e = fc_libheif.heif_context_write(ctx, &writer, file);
    if (e.code != heif_error_Ok) {
        if (ferror(file)) {
            snprintf(report->message, sizeof report->message, "%s", strerror(errno));
            status = FC_WRITE_FAILED;
        } else {
            status = fc_heif_encode_failure(report, e, "writing the file");
        }
        goto done;
    }
    if (fflush(file) != 0) {
        snprintf(report->message, sizeof report->message, "%s", strerror(errno));
        status = FC_WRITE_FAILED;
    }
done:
    if (options) fc_libheif.heif_encoding_options_free(options);
    if (handle) fc_libheif.heif_image_handle_release(handle);
    if (image) fc_libheif.heif_image_release(image);
    if (encoder) fc_libheif.heif_encoder_release(encoder);
    fc_libheif.heif_context_free(ctx);
    return status;
}
