// fc_avif: the smallest C layer filterchain needs over libavif (0.11 or newer).
//
// Why this exists: libavif reports errors by result codes and a diagnostics buffer (no
// longjmp), but its decoder is a multi-step state machine (parse, then decode), it leaves the
// HEIF transformations (clean aperture, rotation, mirror) to the caller, and its RGB
// conversion and encoder take structs with defaults set by functions. Each function here does
// one whole job (parse and describe, decode and convert, deliver rows turned upright, encode
// a file) and leaves a message in a report, copied out of libavif's diagnostics. All state
// lives in the decoder object (or the encode call), so any number run on different threads.
#ifndef FC_AVIF_H
#define FC_AVIF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fc_common.h"

#define FC_AVIF_MESSAGE_MAX 300

typedef struct {
    char message[FC_AVIF_MESSAGE_MAX];
} fc_avif_report;

// How YUV becomes RGB.
typedef enum {
    // libyuv where libavif has it (8 bits; within 1 of the reference arithmetic, 3 to 6 times
    // faster), bilinear chroma upsampling (libavif's best quality).
    FC_AVIF_CONVERSION_FAST = 0,
    // libavif's own arithmetic with nearest-neighbour chroma, as libheif and `avifdec -u
    // nearest` convert (the conformance references).
    FC_AVIF_CONVERSION_REFERENCE = 1,
} fc_avif_conversion;

typedef struct {
    uint32_t stored_width, stored_height; // the coded image
    uint32_t width, height;   // as delivered: after the clean aperture, rotation and mirror
    int depth;                // bits per coded sample: 8, 10 or 12
    int channels;             // what fc_avif_decoder_read delivers: 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA
    int sample_bytes;         // 1 (8-bit) or 2 (10 and 12 bits, scaled to 16)
    int yuv_format;           // 444, 422, 420 or 400
    int image_count;          // frames of a sequence; 1 for a still
    int premultiplied;        // the alpha was stored premultiplied (delivered unpremultiplied)
    int has_nclx;             // colour by code points (colr nclx, else the AV1 header), primaries or transfer specified
    uint16_t colour_primaries, transfer_characteristics, matrix_coefficients;
    int full_range;
    int rotation;             // irot: quarter turns counter-clockwise (0 to 3), -1: none
    int mirror;               // imir: 0 top-bottom flip, 1 left-right flip, -1: none
    int has_clap;             // a clean aperture box was found
    int clap_invalid;         // ... that describes no crop inside the image: ignored
    uint32_t crop_x, crop_y, crop_width, crop_height;  // the crop applied (the whole image without clap)
} fc_avif_info;

typedef struct fc_avif_decoder fc_avif_decoder;

/// `data` (the whole file) must stay valid until the decoder is freed. `max_pixels` (0: no
/// limit) bounds what the AV1 decoder will decode; `threads` is libavif's maxThreads.
fc_avif_decoder *fc_avif_decoder_new(const uint8_t *data, size_t size, uint64_t max_pixels, int threads,
                                     fc_avif_conversion conversion);
void fc_avif_decoder_free(fc_avif_decoder *d);
const fc_avif_report *fc_avif_decoder_report(const fc_avif_decoder *d);

/// Parses the container (no AV1 decoding, no pixel memory) and describes the primary image
/// (or the first frame of a sequence).
fc_status fc_avif_decoder_open(fc_avif_decoder *d, fc_avif_info *info);

typedef enum { FC_AVIF_ICC = 0, FC_AVIF_EXIF = 1, FC_AVIF_XMP = 2 } fc_avif_metadata;
/// The ICC profile, the EXIF payload (after the item's 4-byte header offset) or the XMP
/// packet; NULL when absent. Valid until the first fc_avif_decoder_read.
const uint8_t *fc_avif_decoder_metadata(const fc_avif_decoder *d, fc_avif_metadata kind, size_t *length);

/// Delivers the next `rows` rows into dst, rows `stride` bytes apart, 16-bit samples in host
/// order. The first call decodes the whole image and converts it to RGB (or grey) once, then
/// frees libavif's planes; every call copies rows with the transformations applied.
fc_status fc_avif_decoder_read(fc_avif_decoder *d, uint8_t *dst, size_t stride, uint32_t rows);

typedef struct {
    uint32_t width, height;
    int channels;             // of `pixels`: 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA
    int sample_bytes;         // of `pixels`: 1 (8 bits) or 2 (16 bits, host order)
    int depth;                // of the AVIF: 8 or 10
    int yuv_format;           // 444 or 420 (grey is always 400)
    int quantizer;            // 0 (lossless planes) to 63: colour
    int alpha_quantizer;      // 0 (lossless) to 63
    int speed;                // libavif's speed, 0 (slowest) to 10
    int threads;              // libavif's maxThreads
    // Full range always; matrix 0 (identity, 4:4:4 only) with quantizer 0 is lossless RGB.
    uint16_t colour_primaries, transfer_characteristics, matrix_coefficients;
    fc_metadata metadata;     // optional
} fc_avif_encode_options;

/// Encodes the whole image (`pixels`, rows `stride` bytes apart) with libaom (libavif's
/// choice when libaom is missing) and writes the file to `file`.
/// A sequence's frame `index`: its duration in milliseconds (rounded), as stored.
int fc_avif_decoder_duration(const fc_avif_decoder *d, int index);
/// A sequence, frame by frame: decodes the next frame and delivers it whole (rows `stride`
/// bytes apart, the layout fc_avif_decoder_open said), with the transformations applied.
/// Not mixed with fc_avif_decoder_read on one decoder.
fc_status fc_avif_decoder_next_frame(fc_avif_decoder *d, uint8_t *dst, size_t stride);

typedef struct fc_avif_sequence fc_avif_sequence;

/// An AVIF image sequence (libavif's avifEncoderAddImage, a timescale of 1000): every frame
/// in the layout and with the settings of `options`; its metadata goes with the first.
fc_avif_sequence *fc_avif_sequence_new(const fc_avif_encode_options *options, fc_avif_report *report);
void fc_avif_sequence_free(fc_avif_sequence *s);
const fc_avif_report *fc_avif_sequence_report(const fc_avif_sequence *s);
/// The metadata the next frame added carries (valid during that call; the first frame's is
/// the sequence's). By default none.
void fc_avif_sequence_set_metadata(fc_avif_sequence *s, fc_metadata metadata);
/// Adds a frame shown for `duration` milliseconds.
fc_status fc_avif_sequence_add(fc_avif_sequence *s, const uint8_t *pixels, size_t stride, int duration);
/// Ends the sequence and writes the file.
fc_status fc_avif_sequence_finish(fc_avif_sequence *s, FILE *file);

fc_status fc_avif_encode(const fc_avif_encode_options *options, const uint8_t *pixels, size_t stride,
                         FILE *file, fc_avif_report *report);

/// NULL when libavif can be used; otherwise why not (on Linux it is loaded when the first AVIF
/// file is read or written: fc_dynamic.h). Call before anything else here.
const char *fc_avif_library_error(void);

#endif
