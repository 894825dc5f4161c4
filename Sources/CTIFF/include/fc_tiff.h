// fc_tiff: the smallest C layer filterchain needs over libtiff (4.5 or newer).
//
// Why this exists: libtiff reports errors through handlers that print by default and keeps
// its sample layouts (bits, planes, strips, tiles, photometric interpretations) for the
// caller to unpack. Each decoder opens the file from memory with its own TIFFOpenOptions:
// error and warning handlers that keep the messages (naming the file) in the decoder and
// print nothing, and a cap on any single allocation. The first image is read strip by strip
// (or tile row by tile row) with TIFFReadEncodedStrip/Tile, never TIFFReadRGBA*, and
// delivered as 8- or 16-bit grey, grey+alpha, RGB or RGBA rows. All state lives in the
// decoder object, so any number run on different threads.
//
// Writing (fc_tiff_encoder.c): the strips are compressed apart from the file, each by
// libtiff's own codec in a TIFF of its own in memory (fc_tiff_compress_strip, on any thread)
// or, for JPEG, by fc_jpeg as a .jpg output is (the caller's job: TIFFEncoder.swift), and the
// encoder writes their bytes into the file in order with TIFFWriteRawStrip: the output is the
// same whichever thread compressed what. The encoder's messages name the file.
#ifndef FC_TIFF_H
#define FC_TIFF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fc_common.h"

#define FC_TIFF_MESSAGE_MAX 300

typedef struct {
    char message[FC_TIFF_MESSAGE_MAX];
    // libtiff's warnings, one per line (the first few).
    char warnings[4 * FC_TIFF_MESSAGE_MAX];
} fc_tiff_report;

typedef struct {
    uint32_t width, height;
    int channels;      // what fc_tiff_decoder_read delivers: 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA
    int depth;         // 8 or 16 bits per delivered sample (unsigned), or 32: float samples, unclamped
    int orientation;   // the Orientation tag, 1 to 8 (1 when absent or invalid)
    int pages;         // images in the directory chain (counted up to a loop or its end)
    int loop;          // the chain loops back (after `pages` images)
    int chain_damaged; // a next-directory offset points outside the file
} fc_tiff_info;

typedef struct fc_tiff_decoder fc_tiff_decoder;

/// `data` (the whole file) must stay valid until the decoder is freed. `name` names the
/// file in messages. No single allocation (libtiff's or the shim's) may exceed `max_alloc`.
fc_tiff_decoder *fc_tiff_decoder_new(const char *name, const uint8_t *data, size_t size, size_t max_alloc);
/// The same, reading a regular file of `size` bytes through `fd` with pread as libtiff asks
/// (the directory, then each strip or tile as it is decoded): the file is never held whole.
/// `fd` must stay open until the decoder is freed.
fc_tiff_decoder *fc_tiff_decoder_new_file(const char *name, int fd, uint64_t size, size_t max_alloc);
/// The errno of a failed read from the file (0 when none failed).
int fc_tiff_decoder_read_errno(const fc_tiff_decoder *d);
void fc_tiff_decoder_free(fc_tiff_decoder *d);
const fc_tiff_report *fc_tiff_decoder_report(const fc_tiff_decoder *d);

/// Reads the first directory and checks that its layout is one filterchain reads.
/// Allocates no pixel memory.
fc_status fc_tiff_decoder_open(fc_tiff_decoder *d, fc_tiff_info *info);
/// The ICC profile (tag 34675) and XMP packet (tag 700); NULL when absent. Valid until the
/// decoder is freed.
const uint8_t *fc_tiff_decoder_icc(fc_tiff_decoder *d, size_t *length);
const uint8_t *fc_tiff_decoder_xmp(fc_tiff_decoder *d, size_t *length);
/// After the open, before the first read, for a CMYK (separated, 4 inks, no alpha) image:
/// deliver the ink amounts as stored, 4 samples a pixel (0 = no ink), for a colour engine to
/// convert, instead of RGB by the naive formula. Returns 1 if the image is such an image
/// (`info->channels` becomes 4), else 0 and nothing changes.
int fc_tiff_decoder_keep_inks(fc_tiff_decoder *d, fc_tiff_info *info);
/// Decodes the next `rows` rows into dst, rows `stride` bytes apart.
fc_status fc_tiff_decoder_read(fc_tiff_decoder *d, uint8_t *dst, size_t stride, uint32_t rows);

// ---- writing ------------------------------------------------------------------------------

typedef enum {
    FC_TIFF_COMPRESS_NONE = 0,
    FC_TIFF_COMPRESS_LZW = 1,     // with the horizontal predictor
    FC_TIFF_COMPRESS_DEFLATE = 2, // with the horizontal predictor
    FC_TIFF_COMPRESS_ZSTD = 3,    // with the horizontal predictor
    FC_TIFF_COMPRESS_JPEG = 4,    // 8 bits only; RGB as YCbCr, other layouts as stored; strips
                                  // compressed by the caller, not by fc_tiff_compress_strip
} fc_tiff_compression;

/// What the encoder and every strip agree on.
typedef struct {
    uint32_t width, height;
    uint32_t rows_per_strip;  // a multiple of 16 (JPEG's 4:2:0 blocks), or the height
    int channels;             // 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA (unassociated alpha) or CMYK
    int inks;                 // 4 channels are C, M, Y, K ink amounts (0 = no ink): Separated, InkSet CMYK
    int depth;                // 8 or 16 bits, or 32 (float samples), in host byte order
    fc_tiff_compression compression;
    int chroma_h, chroma_v;   // JPEG of RGB: the YCbCr chroma subsampling (1 or 2 each: 2,2 is 4:2:0)
    int level;                // deflate: libtiff's ZIPQUALITY, 0 (stored) to 9; libdeflate's level through libtiff 4.5
} fc_tiff_layout;

typedef struct {
    const uint8_t *icc;       // ICC profile (tag 34675), or NULL
    size_t icc_length;
    const uint8_t *xmp;       // XMP packet (tag 700), or NULL
    size_t xmp_length;
    int resolution_unit;      // 0: no resolution written; else ResolutionUnit (1 none, 2 inch, 3 cm)
    double x_resolution, y_resolution;
    int orientation;          // 0: no Orientation tag; else its value
} fc_tiff_metadata;

typedef struct fc_tiff_encoder fc_tiff_encoder;

/// An encoder writing to `file` (which must be seekable and outlive the encoder's last call;
/// the encoder never closes it). `name` names the file in messages.
fc_tiff_encoder *fc_tiff_encoder_new(const char *name, FILE *file);
/// Frees the encoder without writing anything more to the file.
void fc_tiff_encoder_free(fc_tiff_encoder *e);
const fc_tiff_report *fc_tiff_encoder_report(const fc_tiff_encoder *e);
/// The errno of the write or seek that failed (0 when none did).
int fc_tiff_encoder_errno(const fc_tiff_encoder *e);
/// Writes the header and sets IFD0's tags: the layout's, then the metadata's.
fc_status fc_tiff_encoder_open(fc_tiff_encoder *e, const fc_tiff_layout *layout, const fc_tiff_metadata *metadata);
/// An ASCII tag of IFD0 (ImageDescription, Make, Model, Software, DateTime, Artist, ...).
fc_status fc_tiff_encoder_set_text(fc_tiff_encoder *e, uint16_t tag, const char *text);
/// Where bytes appended now would start: the end of the file, made even.
fc_status fc_tiff_encoder_end(fc_tiff_encoder *e, uint64_t *offset);
/// Appends bytes laid out by the caller (an Exif or GPS IFD) at the offset fc_tiff_encoder_end
/// gave, before any strip is written.
fc_status fc_tiff_encoder_append(fc_tiff_encoder *e, const uint8_t *bytes, size_t length);
/// Points IFD0's tag 34665 (Exif) or 34853 (GPS) at an IFD appended before.
fc_status fc_tiff_encoder_set_ifd(fc_tiff_encoder *e, uint16_t tag, uint64_t offset);
/// Writes strip `index` as compressed by fc_tiff_compress_strip (strips in order).
fc_status fc_tiff_encoder_write_strip(fc_tiff_encoder *e, uint32_t index, const uint8_t *bytes, size_t length);
/// After the last strip: writes IFD0 and links it from the header.
fc_status fc_tiff_encoder_finish(fc_tiff_encoder *e);

/// Compresses `count` rows (contiguous, `layout`'s samples) as one strip of `layout`, with
/// libtiff's codec, on any thread (any compression but JPEG). On success *bytes (freed with
/// fc_tiff_free) holds *length bytes, what the strip is in the file.
fc_status fc_tiff_compress_strip(const char *name, const fc_tiff_layout *layout, uint8_t *rows, uint32_t count,
                                 uint8_t **bytes, size_t *length, fc_tiff_report *report);
void fc_tiff_free(void *p);

/// NULL when libtiff can be used; otherwise why not (on Linux it is loaded when the first TIFF
/// file is read or written: fc_dynamic.h). Call before anything else here.
const char *fc_tiff_library_error(void);

#endif
