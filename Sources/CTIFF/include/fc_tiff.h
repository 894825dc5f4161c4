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
#ifndef FC_TIFF_H
#define FC_TIFF_H

#include <stddef.h>
#include <stdint.h>

#define FC_TIFF_MESSAGE_MAX 300

typedef enum {
    FC_TIFF_OK = 0,
    FC_TIFF_FAILED = 1,       // damaged: the reason is in the report
    FC_TIFF_UNSUPPORTED = 2,  // a valid file filterchain does not read: the reason is in the report
    FC_TIFF_NO_MEMORY = 3,
} fc_tiff_status;

typedef struct {
    char message[FC_TIFF_MESSAGE_MAX];
    // libtiff's warnings, one per line (the first few).
    char warnings[4 * FC_TIFF_MESSAGE_MAX];
} fc_tiff_report;

typedef struct {
    uint32_t width, height;
    int channels;      // what fc_tiff_decoder_read delivers: 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA
    int depth;         // 8 or 16 bits per delivered sample
    int orientation;   // the Orientation tag, 1 to 8 (1 when absent or invalid)
    int pages;         // images in the directory chain (counted up to a loop or its end)
    int loop;          // the chain loops back (after `pages` images)
    int chain_damaged; // a next-directory offset points outside the file
} fc_tiff_info;

typedef struct fc_tiff_decoder fc_tiff_decoder;

/// `data` (the whole file) must stay valid until the decoder is freed. `name` names the
/// file in messages. No single allocation (libtiff's or the shim's) may exceed `max_alloc`.
fc_tiff_decoder *fc_tiff_decoder_new(const char *name, const uint8_t *data, size_t size, size_t max_alloc);
void fc_tiff_decoder_free(fc_tiff_decoder *d);
const fc_tiff_report *fc_tiff_decoder_report(const fc_tiff_decoder *d);

/// Reads the first directory and checks that its layout is one filterchain reads.
/// Allocates no pixel memory.
fc_tiff_status fc_tiff_decoder_open(fc_tiff_decoder *d, fc_tiff_info *info);
/// The ICC profile (tag 34675) and XMP packet (tag 700); NULL when absent. Valid until the
/// decoder is freed.
const uint8_t *fc_tiff_decoder_icc(fc_tiff_decoder *d, size_t *length);
const uint8_t *fc_tiff_decoder_xmp(fc_tiff_decoder *d, size_t *length);
/// The Exif sub-IFD (tag 34665) as a TIFF structure of its own (what JPEG's APP1 holds after
/// "Exif\0\0"): IFD0 with one entry pointing at a copy of the Exif IFD and its values.
/// NULL when absent or unreadable. Valid until the decoder is freed.
const uint8_t *fc_tiff_decoder_exif(fc_tiff_decoder *d, size_t *length);
/// After the open, before the first read, for a CMYK (separated, 4 inks, no alpha) image:
/// deliver the ink amounts as stored, 4 samples a pixel (0 = no ink), for a colour engine to
/// convert, instead of RGB by the naive formula. Returns 1 if the image is such an image
/// (`info->channels` becomes 4), else 0 and nothing changes.
int fc_tiff_decoder_keep_inks(fc_tiff_decoder *d, fc_tiff_info *info);
/// Decodes the next `rows` rows into dst, rows `stride` bytes apart.
fc_tiff_status fc_tiff_decoder_read(fc_tiff_decoder *d, uint8_t *dst, size_t stride, uint32_t rows);

#endif
