// fc_webp: the smallest C layer filterchain needs over libwebp, libwebpdemux and libwebpmux.
//
// Why this exists: libwebp reports errors by status codes (no longjmp), but its
// configuration structs are versioned through macros and inline initialisers, its container
// is read through the demuxer and written through the muxer, and an animation needs its own
// decoder. Each function here does one whole job (open and check the container, decode the
// next rows, encode and assemble a file) and leaves a message in the object's report. All
// state lives in the decoder object, so any number run on different threads.
#ifndef FC_WEBP_H
#define FC_WEBP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fc_common.h"

#define FC_WEBP_MESSAGE_MAX 200

typedef struct {
    char message[FC_WEBP_MESSAGE_MAX];
} fc_webp_report;

typedef struct {
    uint32_t width, height;  // the canvas
    int has_alpha;           // the bitstream (or, for an animation, the canvas) has alpha
    int channels;            // what fc_webp_decoder_read delivers: 3 (RGB) or 4 (RGBA)
    int animated;            // an animation: the first frame is delivered, on the canvas
    int frame_count;
    int lossless;            // the (first) bitstream is VP8L
} fc_webp_info;

typedef struct fc_webp_decoder fc_webp_decoder;

/// `data` (the whole file) must stay valid until the decoder is freed.
fc_webp_decoder *fc_webp_decoder_new(const uint8_t *data, size_t size);
void fc_webp_decoder_free(fc_webp_decoder *d);
const fc_webp_report *fc_webp_decoder_report(const fc_webp_decoder *d);

/// Checks the container (RIFF sizes, chunk sizes, a complete file) and reads the first
/// frame's features. Allocates no pixel memory.
fc_status fc_webp_decoder_open(fc_webp_decoder *d, fc_webp_info *info);
/// The payload of the first chunk `fourcc` ("ICCP", "EXIF", "XMP "); NULL when absent.
/// Valid until the decoder is freed.
const uint8_t *fc_webp_decoder_chunk(const fc_webp_decoder *d, const char *fourcc, size_t *length);
/// Decodes the next `rows` rows (`channels` bytes per pixel) into dst, rows `stride` bytes
/// apart. A still image is decoded incrementally (WebPIDecoder), fed only as much of the
/// file as the rows need; an animation's first frame is decoded whole at the first call.
fc_status fc_webp_decoder_read(fc_webp_decoder *d, uint8_t *dst, size_t stride, uint32_t rows);
/// After the last row: the rest of the bitstream decodes without error.
fc_status fc_webp_decoder_finish(fc_webp_decoder *d);

/// An animation's loop count (0: forever; n: shown n times).
int fc_webp_decoder_loop_count(const fc_webp_decoder *d);
/// Frame `index`'s duration in milliseconds, as stored.
int fc_webp_decoder_duration(const fc_webp_decoder *d, int index);
/// An animation, frame by frame (libwebpdemux's animation decoder, which blends and disposes
/// as browsers do): the next frame's whole canvas, RGBA, rows `stride` bytes apart. Not mixed
/// with fc_webp_decoder_read on one decoder.
fc_status fc_webp_decoder_next_frame(fc_webp_decoder *d, uint8_t *dst, size_t stride);

typedef struct {
    uint32_t width, height;  // at most 16383 each
    int channels;            // 3 (RGB) or 4 (RGBA)
    int quality;             // 0...100: lossy quality
    int lossless;            // VP8L, RGB under transparent pixels kept (exact)
    int method;              // 0...6: effort
    int alpha_quality;       // 0...100
    fc_metadata metadata;    // optional chunks, written through the muxer
} fc_webp_encode_options;

/// Encodes the whole image (`pixels`, rows `stride` bytes apart) and writes the file,
/// with its metadata chunks, to `file`.
fc_status fc_webp_encode(const fc_webp_encode_options *options, const uint8_t *pixels, size_t stride,
                         FILE *file, fc_webp_report *report);

typedef struct fc_webp_animator fc_webp_animator;

/// An animation (WebPAnimEncoder: each frame against the one before, as small a rectangle
/// as serves, lossy or lossless as `options` says; its width, height and channels apply to
/// every frame). `loop_count`: 0 forever, n shown n times.
fc_webp_animator *fc_webp_animator_new(const fc_webp_encode_options *options, int loop_count, fc_webp_report *report);
void fc_webp_animator_free(fc_webp_animator *a);
/// What went wrong, after a call that failed (`report` of fc_webp_animator_new is for its own failure).
const fc_webp_report *fc_webp_animator_report(const fc_webp_animator *a);
/// Adds a frame (the whole canvas) shown for `duration` milliseconds.
fc_status fc_webp_animator_add(fc_webp_animator *a, const uint8_t *pixels, size_t stride, int duration);
/// The metadata chunks the file gets (read by fc_webp_animator_finish: valid until then).
void fc_webp_animator_set_metadata(fc_webp_animator *a, fc_metadata metadata);
/// Assembles the file, with the metadata chunks, and writes it to `file`.
fc_status fc_webp_animator_finish(fc_webp_animator *a, FILE *file);

#endif
