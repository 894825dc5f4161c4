// fc_png: the smallest C layer filterchain needs over libpng and zlib.
//
// Reading goes through libpng, which reports errors by longjmp; Swift cannot call setjmp and
// a longjmp must never cross a Swift frame, so every decoder function does one whole job
// (read the header, read some rows, read the end) under its own setjmp and copies libpng's
// message into the decoder's report. Warnings are collected, never printed.
//
// Writing does not use libpng: libpng compresses the image data on one thread, and deflate
// is most of the cost of writing a PNG. Instead the encoder in Swift cuts the image into
// pieces of rows; fc_png_compress_piece filters and deflates one piece (any number at once,
// on any threads), and the pieces join into one valid zlib stream, as pigz does.
// fc_png_write_chunk frames chunks with their CRC.
#ifndef FC_PNG_H
#define FC_PNG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fc_common.h"

#define FC_PNG_MESSAGE_MAX 200

typedef struct {
    char message[FC_PNG_MESSAGE_MAX];
    char first_warning[FC_PNG_MESSAGE_MAX];
    unsigned warning_count;
    /// Harmless damage: ancillary chunks dropped for a bad CRC (strict or not), their
    /// names, space-separated (at most 8 are named), and how many.
    char dropped_chunks[48];
    unsigned dropped_count;
    // libpng's reason for dropping an iCCP chunk whose profile it cannot use (a profile cut
    // short, a bad tag table, ...); empty when there was none or it was kept.
    char icc_problem[FC_PNG_MESSAGE_MAX];
} fc_png_report;

typedef struct {
    uint32_t width, height;
    int bit_depth;           // as stored: 1, 2, 4, 8, 16
    int color_type;          // as stored: 0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA
    int interlaced;          // Adam7
    int has_trns;
    int channels;            // delivered: 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA
    int depth;               // delivered: 8 or 16 (16-bit samples in host byte order)
    // Colour metadata found before the image data.
    int has_srgb, srgb_intent;
    int has_gamma;
    uint32_t gamma;          // gAMA, times 100000
    int has_chrm;
    uint32_t chrm[8];        // cHRM: white x, y, red x, y, green x, y, blue x, y (times 100000)
} fc_png_header;

typedef struct fc_png_decoder fc_png_decoder;

/// strict: a bad CRC in a critical chunk fails (leniently it is used as it is). An ancillary
/// chunk with a bad CRC is dropped either way, and named in the report's dropped_chunks.
fc_png_decoder *fc_png_decoder_new(int strict);
void fc_png_decoder_free(fc_png_decoder *d);
const fc_png_report *fc_png_decoder_report(const fc_png_decoder *d);

/// Reads every chunk before the image data from `file` (when not NULL) or from
/// `data`/`size`; `skip` signature bytes were already consumed from `file`.
/// Sets up expansion to 8 or 16 bits per sample (palette to RGB, tRNS to alpha, low-depth
/// grey scaled to 8 bits). Samples are kept as stored: no gamma correction.
fc_status fc_png_decoder_open(fc_png_decoder *d, FILE *file, int skip,
                              const uint8_t *data, size_t size, fc_png_header *header);
/// The ICC profile (decompressed iCCP) and EXIF (eXIf) when present; valid until free.
const uint8_t *fc_png_decoder_icc(const fc_png_decoder *d, size_t *length);
const uint8_t *fc_png_decoder_exif(const fc_png_decoder *d, size_t *length);
/// Reads the next `rows` rows (non-interlaced images only).
fc_status fc_png_decoder_read(fc_png_decoder *d, uint8_t *dst, size_t stride,
                              uint32_t rows);
/// Reads the whole image at once (required for interlaced images).
fc_status fc_png_decoder_read_image(fc_png_decoder *d, uint8_t *dst, size_t stride);
/// Reads the chunks after the image data, checking their CRCs and the end of the file.
fc_status fc_png_decoder_finish(fc_png_decoder *d);

// MARK: - Writing

/// Writes one chunk: length, type, data, CRC. Returns 0, or errno of the failed write.
int fc_png_write_chunk(FILE *file, const char type[4], const uint8_t *data, size_t length);

/// zlib-compresses `data` (for iCCP). Returns a malloc'd buffer (free with fc_png_free) or
/// NULL.
uint8_t *fc_png_zlib_compress(const uint8_t *data, size_t length, int level, size_t *out);

typedef struct {
    uint8_t *data;           // where the deflated bytes are: the caller's `out`
    size_t length;
    uint32_t adler;          // adler32 of the filtered bytes of this piece
    size_t filtered_length;  // how many filtered bytes the piece holds
} fc_png_piece;

/// Filters `row_count` rows (`row_bytes` each, `stride` apart, starting at `rows`) with the
/// adaptive heuristic (libpng's: per row the filter with the least sum of absolute
/// differences) and deflates them as raw deflate data.
/// `context_rows` rows precede `rows` in memory at the same stride (0 at the top of the
/// image): the last is the row above the first one; the others are filtered again to prime
/// the compressor with the last 32 KiB of the stream before this piece, so pieces compress
/// as well as one stream would. A piece ends with a sync flush, or the final block if `last`.
/// The deflated bytes go to `out`, `capacity` bytes (at least fc_png_piece_capacity), which
/// the caller owns: the encoder reuses its buffers, so big allocations never move between
/// threads (glibc's per-thread arenas grew with the image's height when they did).
fc_status fc_png_compress_piece(const uint8_t *rows, size_t stride, size_t row_bytes,
                                uint32_t row_count, uint32_t context_rows,
                                int bytes_per_pixel, int level, int last,
                                uint8_t *out, size_t capacity, fc_png_piece *piece);

/// The output space fc_png_compress_piece needs for `row_count` rows (zlib's bound for raw
/// deflate with tuned parameters, plus room for the final flush).
size_t fc_png_piece_capacity(size_t row_bytes, uint32_t row_count);

/// How many context rows fc_png_compress_piece wants before a piece (at most).
uint32_t fc_png_context_rows(size_t row_bytes);

/// Inflates zlib data (zTXt, compressed iTXt) of at most `limit` bytes when inflated.
/// Returns a malloc'd buffer (free with fc_png_free) or NULL when the data is damaged or
/// larger than the limit.
uint8_t *fc_png_zlib_uncompress(const uint8_t *data, size_t length, size_t limit, size_t *out);

/// CRC-32 as PNG chunks use it, over `length` bytes continuing `crc` (start with 0).
uint32_t fc_png_crc32(uint32_t crc, const uint8_t *data, size_t length);

uint32_t fc_png_adler32_combine(uint32_t first, uint32_t second, size_t second_length);
void fc_png_free(void *pointer);

#endif
