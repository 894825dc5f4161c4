// fc_gif: the smallest C layer filterchain needs over giflib (MIT), for GIF in and out.
//
// Why this exists: giflib reads and writes the container and its LZW data, and nothing
// more. A GIF is shown by compositing each frame on a canvas (disposal, transparency), and
// written from a palette; both are here, once, with giflib's status codes turned into a
// report. Reading goes over the file twice: a scan that walks every block without
// decompressing (frame count, delays, loop count, damage; no pixel memory), then frames one
// at a time onto one canvas. Writing holds one frame back, so that its disposal can be
// chosen once the next frame is known. All state lives in the objects, so any number run on
// different threads.
#ifndef FC_GIF_H
#define FC_GIF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fc_common.h"

#define FC_GIF_MESSAGE_MAX 200

typedef struct {
    char message[FC_GIF_MESSAGE_MAX];
} fc_gif_report;

typedef struct {
    uint32_t width, height;  // the logical screen: the canvas
    int frame_count;         // complete frames
    int loop_count;          // NETSCAPE2.0's: 0 repeats forever; -1: no loop block (shown once)
    int channels;            // what fc_gif_decoder_next delivers: 3 (never transparent) or 4
    int truncated;           // the file ends inside frame `frame_count`: that frame and any after are lost
    int clipped_frames;      // frames that reach outside the canvas (the part outside is dropped)
    int bad_indices;         // frames with pixels whose index is past their colour table (drawn black)
} fc_gif_info;

typedef struct fc_gif_decoder fc_gif_decoder;

/// `data` (the whole file) must stay valid until the decoder is freed.
fc_gif_decoder *fc_gif_decoder_new(const uint8_t *data, size_t size);
void fc_gif_decoder_free(fc_gif_decoder *d);
const fc_gif_report *fc_gif_decoder_report(const fc_gif_decoder *d);
/// Scans the whole file without decompressing it. FC_LIMIT when it holds more than
/// `max_frames` frames (0: no limit). Allocates no pixel memory.
fc_status fc_gif_decoder_open(fc_gif_decoder *d, fc_gif_info *info, int max_frames);
/// Frame `index`'s delay in hundredths of a second, as stored (0 when none).
int fc_gif_decoder_delay(const fc_gif_decoder *d, int index);
/// The ICC profile (an "ICCRGBG1" application block) or XMP ("XMP DataXMP"), or NULL; valid
/// until the decoder is freed.
const uint8_t *fc_gif_decoder_icc(const fc_gif_decoder *d, size_t *length);
const uint8_t *fc_gif_decoder_xmp(const fc_gif_decoder *d, size_t *length);
/// Decodes the next frame onto the canvas (after the previous frame's disposal) and copies
/// the whole canvas to `dst` (`channels` bytes a pixel, rows `stride` bytes apart). A
/// transparent canvas pixel is 0, 0, 0, 0.
fc_status fc_gif_decoder_next(fc_gif_decoder *d, uint8_t *dst, size_t stride);

typedef struct {
    uint32_t width, height;  // the canvas, at most 65535 each
    int loop_count;          // 0: forever; n: n repeats; -1: no loop block (shown once)
    fc_metadata metadata;    // ICC and XMP are written; EXIF has no place in a GIF
} fc_gif_encode_options;

typedef struct fc_gif_encoder fc_gif_encoder;

/// Starts a GIF on `file`; nothing is written before the first frame. The metadata is copied.
fc_gif_encoder *fc_gif_encoder_new(const fc_gif_encode_options *options, FILE *file);
/// Frees the encoder without writing anything more (`file` may be closed by then).
void fc_gif_encoder_free(fc_gif_encoder *e);
const fc_gif_report *fc_gif_encoder_report(const fc_gif_encoder *e);
/// Adds a frame: the whole canvas, `channels` (3 or 4) 8-bit samples a pixel, rows `stride`
/// bytes apart, shown for `delay` hundredths of a second. Alpha below 128 is transparent.
/// A frame equal to the one before only lengthens the one before.
fc_status fc_gif_encoder_add(fc_gif_encoder *e, const uint8_t *pixels, size_t stride, int channels, int delay);
/// Writes the last frame and the trailer.
fc_status fc_gif_encoder_finish(fc_gif_encoder *e);

/// The palette the encoder makes for `count` RGB pixels (3 bytes each): at most `colors`
/// entries into `palette` (3 bytes each); returns how many. For the tests.
int fc_gif_palette(const uint8_t *rgb, size_t count, int colors, uint8_t *palette);

#endif
