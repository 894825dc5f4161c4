// fc_jpeg: the smallest C layer filterchain needs over libjpeg(-turbo).
//
// Why this exists: libjpeg reports errors by longjmp and, by default, exit()s the process.
// Swift cannot call setjmp, and a longjmp must never cross a Swift frame. So every function
// here does one whole job (read a header, read some rows, write an image) under its own
// setjmp, copies libjpeg's message into the object's report, and returns a status.
// All state lives in the decoder/encoder object, so any number run on different threads.
#ifndef FC_JPEG_H
#define FC_JPEG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fc_common.h"

#define FC_JPEG_MESSAGE_MAX 200

typedef enum {
    FC_JPEG_COLOR_UNKNOWN = 0,
    FC_JPEG_COLOR_GRAY = 1,
    FC_JPEG_COLOR_YCBCR = 2,
    FC_JPEG_COLOR_RGB = 3,
    FC_JPEG_COLOR_CMYK = 4,
    FC_JPEG_COLOR_YCCK = 5,
} fc_jpeg_color;

/// Harmless damage: it touches no pixel, never fails a decode (strict or not), and what it
/// damaged is dropped. Flags in fc_jpeg_report.harmless.
typedef enum {
    FC_JPEG_STRAY_BYTES = 1,     // bytes between segments, outside the entropy-coded data
    FC_JPEG_BAD_ICC = 2,         // ICC segments that do not fit together: the profile is dropped
    FC_JPEG_BAD_EXIF = 4,        // an EXIF block that is no TIFF structure: dropped
    FC_JPEG_DUPLICATE_EXIF = 8,  // more EXIF blocks than one: all but the first dropped
} fc_jpeg_harmless;

typedef struct {
    char message[FC_JPEG_MESSAGE_MAX];       // why the last call failed
    char first_warning[FC_JPEG_MESSAGE_MAX]; // the first warning (collected, never printed)
    unsigned warning_count;
    unsigned harmless;                       // fc_jpeg_harmless flags
} fc_jpeg_report;

typedef struct {
    uint32_t width, height;
    int components;          // components stored in the file
    fc_jpeg_color color;     // colour space stored in the file
    int output_channels;     // what fc_jpeg_decoder_read delivers: 1 (grey) or 3 (RGB)
    int progressive;
    int arithmetic;
    int adobe_marker;        // an Adobe APP14 marker was seen (CMYK is then stored inverted)
} fc_jpeg_header;

typedef struct fc_jpeg_decoder fc_jpeg_decoder;

/// strict: libjpeg's warnings about corrupt data (premature end, bad Huffman code, ...) fail
/// the call instead of being collected.
fc_jpeg_decoder *fc_jpeg_decoder_new(int strict);
void fc_jpeg_decoder_free(fc_jpeg_decoder *d);
const fc_jpeg_report *fc_jpeg_decoder_report(const fc_jpeg_decoder *d);

/// Reads the header from `file` (when not NULL) or from `data`/`size`. Saves APP1 and APP2
/// markers. Allocates no pixel memory.
fc_status fc_jpeg_decoder_open(fc_jpeg_decoder *d, FILE *file, const uint8_t *data,
                               size_t size, fc_jpeg_header *header);
/// ICC profile (reassembled from APP2 segments) and EXIF (APP1 "Exif\0\0", the TIFF data
/// after that prefix); NULL when absent. Valid until the decoder is freed.
const uint8_t *fc_jpeg_decoder_icc(const fc_jpeg_decoder *d, size_t *length);
const uint8_t *fc_jpeg_decoder_exif(const fc_jpeg_decoder *d, size_t *length);
/// Starts decompression (call once, after checking the header's size).
// Decode at 1/denom of the size (denom 1, 2, 4 or 8; DCT scaling); before the start.
fc_status fc_jpeg_decoder_scale(fc_jpeg_decoder *d, unsigned denom, uint32_t *width,
                                uint32_t *height);
fc_status fc_jpeg_decoder_start(fc_jpeg_decoder *d);
/// Before the start: Huffman-decode on a thread of its own, overlapping the rest of decoding
/// (same pixels, same warnings and errors). It applies to files with one interleaved Huffman
/// scan of at least `min_mcus` MCUs (0: never), where libjpeg-turbo's internal interfaces
/// are available. The thread hands over `chunk_mcus` MCUs at a time (0: 512), eight chunks
/// ahead at most. A plain scan (baseline, 8-bit, no restart interval) is decoded by this
/// project's Huffman decoder (fc_jpeg_huffman.h), with a second thread taking the scan's
/// second half when it has at least `split_mcus` MCUs (0: never).
void fc_jpeg_decoder_parallel(fc_jpeg_decoder *d, unsigned min_mcus, unsigned chunk_mcus,
                              unsigned split_mcus);
/// After the start: whether an entropy thread was started.
int fc_jpeg_decoder_is_parallel(const fc_jpeg_decoder *d);
/// After the finish (or release): how the entropy thread decoded. Bit 1: this project's
/// decoder gave every MCU and libjpeg decoded none; bit 2: the second thread's MCUs were used.
int fc_jpeg_decoder_entropy_path(const fc_jpeg_decoder *d);
/// Stops what may still read the input (the entropy thread). Call before the input's memory
/// or FILE goes away; fc_jpeg_decoder_free does it too.
void fc_jpeg_decoder_release_input(fc_jpeg_decoder *d);
/// Before the start, for a CMYK or YCCK image: read rows as C, M, Y, K ink amounts, 4 bytes a
/// pixel, 0 = no ink (an Adobe file's inverted samples turned the right way), for a colour
/// engine to convert; without it they are converted to RGB here by the naive formula.
void fc_jpeg_decoder_keep_inks(fc_jpeg_decoder *d);
/// Reads the next `rows` rows, `output_channels` bytes per pixel (4 with kept inks), into dst
/// (rows `stride` bytes apart). CMYK and YCCK are converted to RGB here unless inks are kept.
fc_status fc_jpeg_decoder_read(fc_jpeg_decoder *d, uint8_t *dst, size_t stride,
                               uint32_t rows);
/// After the last row: reads to the end of the image (strict mode reports trailing damage).
fc_status fc_jpeg_decoder_finish(fc_jpeg_decoder *d);

// MARK: - Metadata markers (XMP, extended XMP, comments, JFIF density)

/// The saved APP1 and COM markers, and an APP2 that is an MPF index ("MPF\0": a gain map or a
/// stereo pair follows the image), in file order: marker `index` (0-based), its code (0xE1,
/// 0xE2, 0xFE) and its payload; NULL past the last one. Valid until the decoder is freed.
const uint8_t *fc_jpeg_decoder_marker(const fc_jpeg_decoder *d, int index, int *marker,
                                      size_t *length);
/// The JFIF density (unit 0: aspect ratio only, 1: per inch, 2: per cm); 0 when the file
/// has no JFIF marker.
int fc_jpeg_decoder_density(const fc_jpeg_decoder *d, int *unit, int *x, int *y);
/// The quantisation table `index` (0...3) in natural order (64 values); 0 when absent.
int fc_jpeg_decoder_quant_table(const fc_jpeg_decoder *d, int index, uint16_t table[64]);
/// Luma's sampling factors relative to the other components (2, 2 for 4:2:0); 0 when not
/// a three-component image.
int fc_jpeg_decoder_sampling(const fc_jpeg_decoder *d, int *h, int *v);

/// A marker to write after the standard ones: code (0xE1 APP1, 0xFE COM) and payload.
typedef struct {
    int marker;
    const uint8_t *data;
    size_t length;
} fc_jpeg_marker;

typedef struct {
    uint32_t width, height;
    int channels;            // 1 (grey), 3 (RGB) or 4 (CMYK ink amounts, 0 = no ink, with `inks`)
    int inks;                // channels are C, M, Y, K: written as Adobe CMYK (stored inverted,
                             // with the Adobe marker, as Photoshop writes and readers expect)
    int quality;             // 1...100
    int progressive;
    int subsample;           // 1: 4:2:0, 2: 4:2:2, 0: 4:4:4
    const uint8_t *icc;      // optional
    size_t icc_length;
    const uint8_t *exif;     // optional: TIFF data, written as APP1 "Exif\0\0" + data
    size_t exif_length;
    int density_unit;        // JFIF density: 0 aspect ratio, 1 per inch, 2 per cm
    int x_density, y_density; // 0: libjpeg's default (1:1)
    const fc_jpeg_marker *markers;  // written in order after EXIF and ICC (XMP, COM, ...)
    int marker_count;
    int optimize;            // optimised Huffman tables (libjpeg then keeps every block for a
                             // second pass, as it does for progressive scans)
    const uint16_t *luma_table;    // optional quantisation tables, natural order, 1...255, in
    const uint16_t *chroma_table;  // place of libjpeg's for `quality` (grey and RGB only)
    const uint8_t *huffman;  // optional Huffman tables in place of the standard's, for a
                             // single pass without `optimize`: DC luma, DC chroma, AC luma, AC
                             // chroma, each 16 code counts (lengths 1...16) then its symbols
    int tiff_strip;          // a strip of a JPEG-compressed TIFF (TIFF Technical Note 2): no
                             // JFIF or Adobe marker, since the TIFF's tags say what the samples
                             // are; channels 2 and 4 (grey+alpha, RGBA; inks too) are coded as
                             // given, with no colour transform or inversion, every component
                             // with table 0, as libtiff's codec stores them
    int restart_interval;    // a restart marker (RSTn) every this many MCUs, 0...65535 (0:
                             // none); baseline and progressive scans alike
} fc_jpeg_encode_options;

typedef struct fc_jpeg_encoder fc_jpeg_encoder;

fc_jpeg_encoder *fc_jpeg_encoder_new(void);
void fc_jpeg_encoder_free(fc_jpeg_encoder *e);
const fc_jpeg_report *fc_jpeg_encoder_report(const fc_jpeg_encoder *e);
/// Writes the headers and markers to `file`.
fc_status fc_jpeg_encoder_start(fc_jpeg_encoder *e, FILE *file,
                                const fc_jpeg_encode_options *options);
/// Compresses the next `rows` rows (channels bytes per pixel, rows `stride` bytes apart).
fc_status fc_jpeg_encoder_write(fc_jpeg_encoder *e, const uint8_t *src, size_t stride,
                                uint32_t rows);
/// Writes the end of the image and flushes the file.
fc_status fc_jpeg_encoder_finish(fc_jpeg_encoder *e);

/// The quantised DCT coefficients of `component` of the JPEG in `data`, as the file holds
/// them: blocks in raster order, 64 values each in natural order, into `out` (room for
/// `capacity` values). Returns the number of blocks (and the blocks per row in
/// `blocks_wide`), or -1 for a file libjpeg refuses or too little room. For tests.
long fc_jpeg_coefficients(const uint8_t *data, size_t length, int component, int16_t *out,
                          size_t capacity, uint32_t *blocks_wide);

#endif
