// fc_jxl: the smallest C layer filterchain needs over libjxl (0.7 or newer, BSD-3-Clause).
//
// Why this exists: libjxl is an event loop (subscribe, feed, process, answer each event) with
// its own pixel-format and box structures, and its parallel runner lives in a second library.
// Each function here does one whole job: open reads the basic information, the colour and
// the metadata boxes before the first frame; next_frame decodes one whole frame (animations
// coalesced: every frame is the full canvas, as browsers show it); encode writes a still or
// an animation, frame by frame, into memory, then the file. Orientation is applied by libjxl
// on decoding. On Linux libjxl and libjxl_threads are loaded when a JPEG XL file first needs
// them (fc_dynamic.h). All state lives in the objects, so any number run on different threads.
#ifndef FC_JXL_H
#define FC_JXL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fc_common.h"

#define FC_JXL_MESSAGE_MAX 200

typedef struct {
    char message[FC_JXL_MESSAGE_MAX];
} fc_jxl_report;

typedef struct {
    uint32_t width, height;  // upright (orientation applied)
    int channels;            // what the decoder delivers: 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA
    int depth;               // delivered: 8 or 16 bits, or 32 (float samples, host order)
    int stored_bits;         // bits per sample in the file
    int float_samples;       // the file's samples are floating point
    int animated;
    int loop_count;          // an animation's: 0 forever
    int has_icc;             // the colour is an ICC profile (else an enum encoding, given as ICC too)
    int jpeg_reconstruction; // the file keeps what rebuilds a JPEG's bytes (a jbrd box)
} fc_jxl_info;

typedef struct fc_jxl_decoder fc_jxl_decoder;

/// `data` (the whole file) must stay valid until the decoder is freed.
fc_jxl_decoder *fc_jxl_decoder_new(const uint8_t *data, size_t size, int threads);
void fc_jxl_decoder_free(fc_jxl_decoder *d);
const fc_jxl_report *fc_jxl_decoder_report(const fc_jxl_decoder *d);
/// Reads up to the first frame: the basic information, the colour (as an ICC profile) and the
/// Exif and XMP boxes found before it. FC_LIMIT when the image has more than `max_pixels`
/// pixels (0: no limit). Allocates no pixel memory.
fc_status fc_jxl_decoder_open(fc_jxl_decoder *d, fc_jxl_info *info, uint64_t max_pixels);
/// The ICC profile, the EXIF (the TIFF structure, the box's offset field skipped) or the XMP;
/// NULL when absent. Valid until the decoder is freed.
const uint8_t *fc_jxl_decoder_icc(const fc_jxl_decoder *d, size_t *length);
const uint8_t *fc_jxl_decoder_exif(const fc_jxl_decoder *d, size_t *length);
const uint8_t *fc_jxl_decoder_xmp(const fc_jxl_decoder *d, size_t *length);
/// Decodes the next frame whole into `dst` (the layout open said, rows `stride` bytes apart,
/// 16-bit samples in host order). FC_FAILED past the last frame. `duration`: the frame's in
/// milliseconds.
fc_status fc_jxl_decoder_next_frame(fc_jxl_decoder *d, uint8_t *dst, size_t stride, int *duration);
/// The number of frames (walks the file's frame headers without decoding pixels; after open,
/// on a decoder of its own).
int fc_jxl_count_frames(const uint8_t *data, size_t size, int *durations, int capacity);

typedef struct {
    uint32_t width, height;
    int channels;            // 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA
    int depth;               // the rows': 8 or 16 bits, or 32 (float) (host order)
    float distance;          // butteraugli distance (0 with lossless)
    int lossless;
    int effort;              // 1 (fastest) to 9
    int threads;
    int animated;            // frames follow (fc_jxl_encoder_add), with their durations
    int loop_count;          // an animation's: 0 forever
    fc_metadata metadata;    // ICC (else sRGB), EXIF and XMP boxes
} fc_jxl_encode_options;

typedef struct fc_jxl_encoder fc_jxl_encoder;

fc_jxl_encoder *fc_jxl_encoder_new(const fc_jxl_encode_options *options, fc_jxl_report *report);
void fc_jxl_encoder_free(fc_jxl_encoder *e);
const fc_jxl_report *fc_jxl_encoder_report(const fc_jxl_encoder *e);
/// Adds a frame (the whole image; `duration` in milliseconds, for an animation).
fc_status fc_jxl_encoder_add(fc_jxl_encoder *e, const uint8_t *pixels, size_t stride, int duration);
/// Ends the file and writes it to `file`.
fc_status fc_jxl_encoder_finish(fc_jxl_encoder *e, FILE *file);

/// A JPEG's lossless transcode: its DCT coefficients recompressed, with what rebuilds its
/// exact bytes (djxl gives the original file back), written to `file`. FC_FAILED (the
/// report says why) for a JPEG libjxl cannot take this way (arithmetic coding, some
/// progressive layouts, CMYK).
fc_status fc_jxl_transcode_jpeg(const uint8_t *jpeg, size_t size, int effort, int threads, FILE *file, fc_jxl_report *report);

/// NULL when libjxl and libjxl_threads can be used; otherwise why not.
const char *fc_jxl_library_error(void);

#endif
