// fc_heif: the smallest C layer filterchain needs over libheif (1.15 or newer).
//
// Why this exists: libheif hands out C++-owned objects (a context, image handles, decoded
// images with planes) that must be released in the right order on every path, reports
// errors as structs whose messages live only as long as the context, and decodes a whole
// image at once into planes of its own layout. Each decoder here owns one context from
// memory, with an HEVC decoder plugin of its own registered on it (fc_heif_hevc.c: libde265
// with a chosen number of threads), and keeps copies of every message. `open` reads the
// container and the primary image's header (sizes, bit depth, alpha, colour, metadata);
// `layout` says what will be delivered, from the HEVC stream's SPS without decoding; the
// first `read` decodes the primary image once, with its clean aperture, rotation and mirror
// applied by libheif, and each `read` hands out rows from those planes, interleaved, scaled
// to 8 or 16 bits and optionally reduced by averaging blocks. All state lives in the decoder
// object (the plugin's in the call), so any number run on different threads.
#ifndef FC_HEIF_H
#define FC_HEIF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fc_common.h"

#define FC_HEIF_MESSAGE_MAX 300

typedef struct {
    char message[FC_HEIF_MESSAGE_MAX];
    // libheif's decoding warnings (lenient decoding), one per line (the first few).
    char warnings[4 * FC_HEIF_MESSAGE_MAX];
} fc_heif_report;

typedef struct {
    uint32_t width, height;               // as displayed: clean aperture, rotation and mirror applied
    uint32_t stored_width, stored_height; // the coded image (ispe), before the transformations
    int bits;                             // luma bits per sample (8, 10, 12, ...)
    int alpha;                            // has an alpha image
    int images;                           // top-level images in the file
    int has_nclx;                         // an nclx colour description follows
    uint16_t colour_primaries, transfer_characteristics, matrix_coefficients;
    int full_range;
} fc_heif_info;

typedef struct {
    uint32_t width, height;  // what fc_heif_decoder_read delivers (after any reduction)
    int channels;            // 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA
    int depth;               // 8 or 16 bits per delivered sample
} fc_heif_layout;

typedef struct fc_heif_decoder fc_heif_decoder;

/// `data` (the whole file) must stay valid until the decoder is freed.
fc_heif_decoder *fc_heif_decoder_new(const uint8_t *data, size_t size);
void fc_heif_decoder_free(fc_heif_decoder *d);
const fc_heif_report *fc_heif_decoder_report(const fc_heif_decoder *d);

/// Reads the container and the primary image's header. Allocates no pixel memory.
fc_status fc_heif_decoder_open(fc_heif_decoder *d, fc_heif_info *info);
/// The primary image's ICC profile (colr prof or rICC), its EXIF (the TIFF structure, the
/// block's offset field and any "Exif\0\0" skipped; NULL when it does not hold one) and its
/// XMP packet; NULL when absent. Valid until the decoder is freed.
const uint8_t *fc_heif_decoder_icc(fc_heif_decoder *d, size_t *length);
const uint8_t *fc_heif_decoder_exif(fc_heif_decoder *d, size_t *length, int *damaged);
const uint8_t *fc_heif_decoder_xmp(fc_heif_decoder *d, size_t *length);
/// What fc_heif_decoder_read will deliver. An HEVC image is not decoded yet (its SPS says
/// whether it is monochrome); any other is decoded now. `strict`: libheif's strict decoding
/// (invalid input is an error, not a warning). A monochrome image comes out grey, with alpha
/// too; 10 to 16 bits as 16.
fc_status fc_heif_decoder_layout(fc_heif_decoder *d, int strict, fc_heif_layout *layout);
/// Before the image is decoded: decode it on `threads` threads (libde265's worker threads for
/// one image, libheif's for the tiles of a grid); by default libde265 takes one thread and
/// libheif four for tiles, as libheif does.
void fc_heif_decoder_set_threads(fc_heif_decoder *d, int threads);
/// Whether the image has been decoded.
int fc_heif_decoder_decoded(const fc_heif_decoder *d);
/// Before the first read: deliver the image reduced by `denominator` (2, 4 or 8) on both
/// axes, ceil(size / denominator), each pixel the average of its block (colour weighted by
/// alpha).
fc_status fc_heif_decoder_shrink(fc_heif_decoder *d, int denominator, fc_heif_layout *layout);
/// Delivers the next `rows` rows into dst, rows `stride` bytes apart; the first call decodes
/// the image (once, with its transformations applied by libheif).
fc_status fc_heif_decoder_read(fc_heif_decoder *d, uint8_t *dst, size_t stride, uint32_t rows);

typedef struct {
    uint32_t width, height;
    int channels;            // 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA
    int depth;               // the rows': 8 (written as 8-bit HEVC) or 16 (host order, written as 10-bit)
    int quality;             // 0...100, libheif's lossy quality
    int chroma444;           // 4:4:4, else 4:2:0 (colour only)
    int preset;              // x265's preset, 0 (ultrafast) to 9 (placebo)
    // The nclx colour description written (colr nclx), full range; the matrix is also the
    // one libheif converts RGB to YCbCr with.
    uint16_t colour_primaries, transfer_characteristics, matrix_coefficients;
    fc_metadata metadata;    // ICC (colr prof), EXIF and XMP items
} fc_heif_encode_options;

/// Encodes the whole image (`pixels`, rows `stride` bytes apart) with libheif's HEVC
/// encoder (x265) and writes the file to `file`. FC_UNSUPPORTED when this libheif has no
/// HEVC encoder.
fc_status fc_heif_encode(const fc_heif_encode_options *options, const uint8_t *pixels, size_t stride, FILE *file,
                         fc_heif_report *report);

/// NULL when libheif and libde265 can be used; otherwise why not (on Linux they are loaded
/// when the first HEIF file is read: fc_dynamic.h). Call before anything else here.
const char *fc_heif_library_error(void);

#endif
