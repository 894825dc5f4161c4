// fc_raw: the smallest C layer filterchain needs over LibRaw (LGPL-2.1 or CDDL-1.0), for camera
// RAW in (DNG, CR2, CR3, NEF, ARW, RAF, ORF, RW2, PEF and the rest LibRaw opens).
//
// Why this exists: LibRaw develops a RAW (black and white levels, white balance, demosaic,
// highlights, the camera matrix) into its own 4-sample buffer. This shim sets its options
// once, from one settings struct; keeps its messages (data errors, which LibRaw prints to
// stderr by default) in a report; checks sizes before LibRaw allocates; and hands rows out of
// LibRaw's buffer with its flip applied, as dcraw_make_mem_image would, without that copy of
// the whole image.
//
// Isolation: LibRaw has a long record of memory errors on crafted files, and Debian 12's 0.20
// crashed (a wild read in parse_tiff_ifd) within seconds of fuzzing. So LibRaw never runs in
// filterchain's process: each decoder forks a child that opens, unpacks and develops the file
// and streams the rows back over a socket; the parent only reads. A child that crashes, is
// killed or runs out of memory (its address space is capped) is an error naming the file, never
// a crash of the render or of the other images of a batch.
#ifndef FC_RAW_H
#define FC_RAW_H

#include <stddef.h>
#include <stdint.h>

#include "fc_common.h"

#define FC_RAW_MESSAGE_MAX 300

typedef struct {
    char message[FC_RAW_MESSAGE_MAX];
} fc_raw_report;

typedef struct {
    uint32_t width, height;          // the developed image, upright (LibRaw's flip applied)
    uint32_t half_width, half_height;  // the same at half size (one pixel per 2x2 block)
    uint32_t raw_width, raw_height;  // the sensor's samples
    int flip;                        // LibRaw's: 0 none, 3 180 degrees, 5 90 ccw, 6 90 cw
    int orientation;                 // the same as an EXIF Orientation (1-8)
    int dng_version;                 // 0: not a DNG
    int bayer;                       // a 2x2 colour filter pattern (`cfa` says which)
    int xtrans;                      // Fujifilm's 6x6 X-Trans pattern
    char cfa[8];                     // "RGGB", "BGGR", "GRBG", "GBRG" (top-left 2x2), or ""
    char make[64], model[64];
    char lens[128];
    char software[64];
    unsigned black;                  // the black level (the mean of the per-channel ones added)
    unsigned white;                  // the white (saturation) level
    int bits;                        // bits a sample holds (from the white level)
    float as_shot[4];                // the camera's white balance multipliers (R, G, B, G2); 0: none
    float daylight[4];               // LibRaw's daylight multipliers (from the colour matrix)
    float iso, shutter, aperture, focal_length;
    int64_t timestamp;               // seconds since 1970, 0 when unknown
    int gps;                         // the file gives a position (below)
    float gps_latitude[3], gps_longitude[3];  // degrees, minutes, seconds
    float gps_altitude;              // metres
    char gps_latitude_ref, gps_longitude_ref; // 'N' or 'S', 'E' or 'W'
    char gps_altitude_ref;           // 0 above sea level, 1 below
    uint32_t thumb_width, thumb_height;  // the embedded preview (0 when none)
    int thumb_jpeg;                  // the preview may be a JPEG (LibRaw says for sure once it reads it)
    char decoder[64];                // LibRaw's name of the function that unpacks the data
} fc_raw_info;

typedef enum { FC_RAW_WB_CAMERA = 0, FC_RAW_WB_AUTO = 1, FC_RAW_WB_DAYLIGHT = 2, FC_RAW_WB_KELVIN = 3 } fc_raw_wb;

typedef struct {
    fc_raw_wb white_balance;
    int kelvin;            // FC_RAW_WB_KELVIN: the light's colour temperature, 2000 to 25000
    int demosaic;          // LibRaw's user_qual: 0 linear, 2 ppg, 3 ahd, 4 dcb, 11 dht, 12 aahd
    int highlights;        // LibRaw's highlight: 0 clip, 1 unclip, 2 blend, 5 rebuild
    int half_size;         // one pixel per 2x2 block, no demosaic
} fc_raw_settings;

typedef struct fc_raw_decoder fc_raw_decoder;

/// NULL when LibRaw cannot be loaded (`fc_raw_library_error` says why) or memory is short.
/// No process is started before `fc_raw_decoder_open`.
/// `data` (the whole file) must stay valid until the decoder is freed.
fc_raw_decoder *fc_raw_decoder_new(const uint8_t *data, size_t size);
void fc_raw_decoder_free(fc_raw_decoder *d);
const fc_raw_report *fc_raw_decoder_report(const fc_raw_decoder *d);
/// Why LibRaw cannot be used, or NULL once it is loaded.
const char *fc_raw_library_error(void);
/// LibRaw's version ("0.20.2").
const char *fc_raw_library_version(void);

/// 1 when LibRaw opens the file (a path) or bytes as a RAW it can unpack, else 0: for telling
/// a camera's TIFF-structured RAW (NEF, ARW, PEF, ...) from a TIFF. Reads headers only.
int fc_raw_identify_file(const char *path);
int fc_raw_identify_buffer(const uint8_t *data, size_t size);

/// Reads the file's headers (no raw data): FC_UNSUPPORTED when LibRaw does not know the file
/// or cannot decode its data; FC_LIMIT when the sensor holds more than `max_pixels` samples
/// (0: no limit). `max_memory_mb` caps LibRaw's raw buffer (0: LibRaw's default, 2048).
fc_status fc_raw_decoder_open(fc_raw_decoder *d, fc_raw_info *info, uint64_t max_pixels, unsigned max_memory_mb);
/// Unpacks and develops the image with `settings` into 16-bit linear ProPhoto RGB (LibRaw's
/// camera-to-ProPhoto matrix, no gamma, no automatic brightening). FC_FAILED for damaged or
/// truncated data (LibRaw's data errors), unless `lenient`, when they are only counted.
fc_status fc_raw_decoder_develop(fc_raw_decoder *d, const fc_raw_settings *settings, int lenient);
/// After develop: how many data errors LibRaw went past (lenient) and its last message.
int fc_raw_decoder_damage(const fc_raw_decoder *d);
/// After develop: the developed size (upright). Rows follow in order, each once.
void fc_raw_decoder_size(const fc_raw_decoder *d, uint32_t *width, uint32_t *height);
/// Copies the next `count` developed rows (upright; `first` must be the row after the last
/// read) as 16-bit RGB into `dst`, rows `stride` bytes apart.
fc_status fc_raw_decoder_rows(fc_raw_decoder *d, uint16_t *dst, size_t stride, uint32_t first, uint32_t count);
/// The embedded preview's bytes (a JPEG), valid until the decoder is freed. Before develop
/// only; the decoder can then not develop.
fc_status fc_raw_decoder_thumbnail(fc_raw_decoder *d, const uint8_t **bytes, size_t *length);
/// After open: the camera's XMP, when its file holds one (NULL otherwise); valid until the
/// decoder is freed.
const uint8_t *fc_raw_decoder_xmp(const fc_raw_decoder *d, size_t *length);

#endif
