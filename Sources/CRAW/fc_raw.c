#define _GNU_SOURCE
#include "fc_raw.h"
#include "fc_raw_library.h"

#include <errno.h>
#include <pthread.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FC_RAW_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FC_RAW_SANITIZED 1
#endif
#endif

#define FC_RAW_PATIENCE_SECONDS 300

#if defined(MSG_NOSIGNAL)
#define FC_RAW_SEND_FLAGS MSG_NOSIGNAL
#else
#define FC_RAW_SEND_FLAGS 0
#endif

// ---------------------------------------------------------------------------------------------
// The socket between the two processes.

static int fc_raw_send(int fd, const void *p, size_t n) {
    const uint8_t *b = p;
    while (n > 0) {
        ssize_t k = send(fd, b, n, FC_RAW_SEND_FLAGS);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        b += k;
        n -= (size_t)k;
    }
    return 0;
}

static int fc_raw_receive(int fd, void *p, size_t n) {
    uint8_t *b = p;
    while (n > 0) {
        ssize_t k = recv(fd, b, n, 0);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return -2;
        if (k <= 0) return -1;
        b += k;
        n -= (size_t)k;
    }
    return 0;
}

typedef struct {
    int32_t status;
    char message[FC_RAW_MESSAGE_MAX];
    fc_raw_info info;
    uint32_t xmp_length;
} fc_raw_open_reply;

enum { FC_RAW_DEVELOP = 1, FC_RAW_THUMBNAIL = 2 };

typedef struct {
    int32_t kind;
    int32_t lenient;
    fc_raw_settings settings;
} fc_raw_command;

typedef struct {
    int32_t status;
    char message[FC_RAW_MESSAGE_MAX];
    int32_t damage;
    uint32_t width, height;
    uint64_t length;  // a thumbnail's bytes
} fc_raw_reply;

// ---------------------------------------------------------------------------------------------
// The child: LibRaw, and nothing of filterchain's but this file.

typedef struct {
    libraw_data_t *lr;
    fc_raw_report report;
    int data_errors;
    int memory_errors;
    int stored_width, stored_height, flip;
    uint32_t width, height;
    const uint8_t *data;     // the file
    size_t size;
    ushort (*image)[4];      // what is streamed: LibRaw's buffer, or the fast half size's
    ushort (*own)[4];        // the fast half size's buffer (freed with the process)
} fc_raw_child;

static void fc_raw_say(fc_raw_report *r, const char *message) {
    snprintf(r->message, sizeof r->message, "%s", message);
}

// LibRaw calls these instead of printing to stderr.
static void fc_raw_data_error(void *context, const char *file, const int offset) {
    (void)file;
    fc_raw_child *c = context;
    c->data_errors++;
    if (offset < 0) snprintf(c->report.message, sizeof c->report.message, "the raw data ends early (truncated)");
    else snprintf(c->report.message, sizeof c->report.message, "the raw data is damaged near byte %d", offset);
}

static void fc_raw_memory_error(void *context, const char *file, const char *where) {
    (void)file;
    fc_raw_child *c = context;
    c->memory_errors++;
    snprintf(c->report.message, sizeof c->report.message, "LibRaw ran out of memory (%s)", where ? where : "?");
}

static void fc_raw_quiet(void *context, const char *file, const int offset) { (void)context; (void)file; (void)offset; }

// LibRaw's status to ours, with its words where none of the callbacks said more.
static fc_status fc_raw_failure(fc_raw_child *c, int code, const char *doing) {
    char words[200];
    snprintf(words, sizeof words, "%s", fc_libraw.libraw_strerror(code));
    for (char *p = words + 1; *p; p++) if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
    if (code == LIBRAW_FILE_UNSUPPORTED || code == LIBRAW_NOT_IMPLEMENTED) {
        snprintf(c->report.message, sizeof c->report.message, "LibRaw %s cannot %s it (%s)", fc_libraw.libraw_version(), doing, words);
        return FC_UNSUPPORTED;
    }
    if (code == LIBRAW_UNSUFFICIENT_MEMORY || code == LIBRAW_MEMPOOL_OVERFLOW || c->memory_errors) {
        if (!c->memory_errors) snprintf(c->report.message, sizeof c->report.message, "LibRaw ran out of memory");
        return FC_NO_MEMORY;
    }
    if (code == LIBRAW_TOO_BIG) {
        snprintf(c->report.message, sizeof c->report.message, "LibRaw refused it: %s (its memory cap)", words);
        return FC_LIMIT;
    }
    if (!c->data_errors) snprintf(c->report.message, sizeof c->report.message, "LibRaw cannot %s it: %s", doing, words);
    return FC_FAILED;
}

// dcraw's flip as an EXIF Orientation ("50132467" read backwards).
static int fc_raw_orientation(int flip) {
    static const int exif[8] = {1, 2, 4, 3, 5, 8, 6, 7};
    return exif[flip & 7];
}

static fc_status fc_raw_child_open(fc_raw_child *c, const uint8_t *data, size_t size, fc_raw_info *info,
                                   uint64_t max_pixels, unsigned max_memory_mb) {
    memset(info, 0, sizeof *info);
    libraw_data_t *lr = c->lr;
    if (max_memory_mb) lr->params.max_raw_memory_mb = max_memory_mb;
    int code = fc_libraw.libraw_open_buffer(lr, (void *)data, size);
    if (code != LIBRAW_SUCCESS) return fc_raw_failure(c, code, "read");
    libraw_image_sizes_t *s = &lr->sizes;
    if (s->raw_width == 0 || s->raw_height == 0 || s->width == 0 || s->height == 0) {
        fc_raw_say(&c->report, "the file gives the sensor no size");
        return FC_FAILED;
    }
    if (max_pixels && ((uint64_t)s->raw_width * s->raw_height > max_pixels || (uint64_t)s->width * s->height > max_pixels)) {
        snprintf(c->report.message, sizeof c->report.message, "%u x %u samples", (unsigned)s->raw_width, (unsigned)s->raw_height);
        return FC_LIMIT;
    }
    if (lr->color.maximum == 0 || lr->color.maximum <= lr->color.black) {
        snprintf(c->report.message, sizeof c->report.message, "its white level (%u) is not above its black level (%u)",
                 lr->color.maximum, lr->color.black);
        return FC_FAILED;
    }
    if (lr->idata.colors < 3) {
        fc_raw_say(&c->report, "a monochrome sensor (LibRaw develops colour sensors only here)");
        return FC_UNSUPPORTED;
    }
    unsigned w = s->width, h = s->height;
    if (s->pixel_aspect < 0.995) h = (unsigned)(h / s->pixel_aspect + 0.5);
    if (s->pixel_aspect > 1.005) w = (unsigned)(w * s->pixel_aspect + 0.5);
    unsigned hw = (s->width + 1) >> 1, hh = (s->height + 1) >> 1;
    if (!lr->idata.filters) { hw = w; hh = h; }  // no mosaic: half size develops the whole
    info->flip = s->flip;
    info->orientation = fc_raw_orientation(s->flip);
    if (s->flip & 4) {
        unsigned t = w; w = h; h = t;
        t = hw; hw = hh; hh = t;
    }
    info->width = w; info->height = h;
    info->half_width = hw; info->half_height = hh;
    info->raw_width = s->raw_width; info->raw_height = s->raw_height;
    info->dng_version = (int)lr->idata.dng_version;
    unsigned filters = lr->idata.filters;
    info->xtrans = filters == 9;
    info->bayer = filters > 1000;
    if (info->bayer && lr->idata.colors == 3) {
        for (int i = 0; i < 4; i++) {
            int k = fc_libraw.libraw_COLOR(lr, i >> 1, i & 1);
            info->cfa[i] = k == 0 ? 'R' : k == 2 ? 'B' : 'G';
        }
    }
    snprintf(info->make, sizeof info->make, "%s", lr->idata.make);
    snprintf(info->model, sizeof info->model, "%s", lr->idata.model);
    snprintf(info->software, sizeof info->software, "%s", lr->idata.software);
    snprintf(info->lens, sizeof info->lens, "%s", lr->lens.Lens);
    info->black = lr->color.black;
    unsigned cblack = 0;
    for (int k = 0; k < 4; k++) cblack += lr->color.cblack[k];
    info->black += cblack / 4;
    info->white = lr->color.maximum;
    int bits = 0;
    while (bits < 32 && (1u << bits) <= lr->color.maximum) bits++;
    info->bits = bits;
    for (int k = 0; k < 4; k++) { info->as_shot[k] = lr->color.cam_mul[k]; info->daylight[k] = lr->color.pre_mul[k]; }
    info->iso = lr->other.iso_speed;
    info->shutter = lr->other.shutter;
    info->aperture = lr->other.aperture;
    info->focal_length = lr->other.focal_len;
    info->timestamp = (int64_t)lr->other.timestamp;
    libraw_gps_info_t *g = &lr->other.parsed_gps;
    if (g->gpsparsed && (g->latref == 'N' || g->latref == 'S') && (g->longref == 'E' || g->longref == 'W')) {
        info->gps = 1;
        for (int k = 0; k < 3; k++) { info->gps_latitude[k] = g->latitude[k]; info->gps_longitude[k] = g->longitude[k]; }
        info->gps_altitude = g->altitude;
        info->gps_latitude_ref = g->latref;
        info->gps_longitude_ref = g->longref;
        info->gps_altitude_ref = g->altref;
    }
    info->thumb_width = lr->thumbnail.twidth;
    info->thumb_height = lr->thumbnail.theight;
    // LibRaw tells the preview's format only once it is unpacked: a JPEG or not known yet.
    info->thumb_jpeg = lr->thumbnail.tlength > 0 && (lr->thumbnail.tformat == LIBRAW_THUMBNAIL_JPEG || lr->thumbnail.tformat == LIBRAW_THUMBNAIL_UNKNOWN);
    const char *name = fc_libraw.libraw_unpack_function_name(lr);
    snprintf(info->decoder, sizeof info->decoder, "%s", name ? name : "");
    return FC_OK;
}

// The white of a light of `kelvin`: CIE daylight from 4000 K, the Planckian locus below
// (Kim et al.'s cubic fits), as chromaticity x, y.
static void fc_raw_white(double kelvin, double *x, double *y) {
    double t = kelvin, t2 = t * t, t3 = t2 * t;
    if (t >= 4000) {
        *x = t <= 7000 ? -4.6070e9 / t3 + 2.9678e6 / t2 + 0.09911e3 / t + 0.244063
                       : -2.0064e9 / t3 + 1.9018e6 / t2 + 0.24748e3 / t + 0.237040;
        *y = -3.0 * *x * *x + 2.87 * *x - 0.275;
    } else {
        *x = -0.2661239e9 / t3 - 0.2343589e6 / t2 + 0.8776956e3 / t + 0.179910;
        double a = *x, a2 = a * a, a3 = a2 * a;
        *y = t <= 2222 ? -1.1063814 * a3 - 1.34811020 * a2 + 2.18555832 * a - 0.20219683
                       : -0.9549476 * a3 - 1.37418593 * a2 + 2.09137015 * a - 0.16748867;
    }
}

// ---------------------------------------------------------------------------------------------
// Half size without LibRaw's unpacker, for an uncompressed DNG (phones' DngCreator files,
// converters' output): LibRaw reads packed samples a byte at a time through its stream (0.17 s of
// a 24 MP file's 0.25), where a row here is a few loads. The same arithmetic as LibRaw's half
// size, step by step (raw2image_ex's copy with the black subtracted and the data's maximum,
// adjust_maximum, scale_colors, the greens' mix, convert_to_rgb into ProPhoto), so that the
// result is LibRaw's to its rounding (Tests/Oracle/test_raw.py holds it to rawpy's). Anything
// this does not cover (compression, per-channel or patterned blacks, a linearisation table, a
// pattern that is not 2x2, an auto white balance, highlights other than clipped) is LibRaw's.

typedef struct {
    int big_endian;
    const uint8_t *b;
    size_t n;
} fc_raw_tiff;

static uint32_t fc_raw_u16(const fc_raw_tiff *t, size_t at) {
    if (at + 2 > t->n) return 0;
    return t->big_endian ? (uint32_t)t->b[at] << 8 | t->b[at + 1] : (uint32_t)t->b[at + 1] << 8 | t->b[at];
}

static uint32_t fc_raw_u32(const fc_raw_tiff *t, size_t at) {
    if (at + 4 > t->n) return 0;
    return t->big_endian ? fc_raw_u16(t, at) << 16 | fc_raw_u16(t, at + 2) : fc_raw_u16(t, at + 2) << 16 | fc_raw_u16(t, at);
}

typedef struct {
    uint32_t width, height, bps, compression, photometric, spp, subfile;
    uint32_t tile_width, tile_length;   // a strip is a tile of the image's width
    size_t offsets_at, counts_at;       // where the offsets and byte counts are (entries `pieces`)
    uint32_t offsets_type, counts_type, pieces;
    uint32_t subifds_at, subifds_count;
} fc_raw_ifd;

// Entry value `i` of a SHORT or LONG array whose values are at `at` (or in the entry).
static uint32_t fc_raw_value(const fc_raw_tiff *t, uint32_t type, size_t at, uint32_t i) {
    return type == 3 ? fc_raw_u16(t, at + 2 * (size_t)i) : fc_raw_u32(t, at + 4 * (size_t)i);
}

static int fc_raw_read_ifd(const fc_raw_tiff *t, uint32_t offset, fc_raw_ifd *ifd) {
    memset(ifd, 0, sizeof *ifd);
    ifd->spp = 1;
    if (offset < 8 || (size_t)offset + 2 > t->n) return 0;
    uint32_t count = fc_raw_u16(t, offset);
    if ((size_t)offset + 2 + 12 * (size_t)count > t->n) return 0;
    uint32_t rows_per_strip = 0;
    for (uint32_t e = 0; e < count; e++) {
        size_t at = (size_t)offset + 2 + 12 * (size_t)e;
        uint32_t tag = fc_raw_u16(t, at), type = fc_raw_u16(t, at + 2), n = fc_raw_u32(t, at + 4);
        if (type != 3 && type != 4 && type != 13) continue;
        size_t size = (type == 3 ? 2 : 4) * (size_t)n;
        size_t values = size <= 4 ? at + 8 : fc_raw_u32(t, at + 8);
        if (n == 0 || values + size > t->n) continue;
        uint32_t first = fc_raw_value(t, type, values, 0);
        switch (tag) {
        case 254: ifd->subfile = first; break;
        case 256: ifd->width = first; break;
        case 257: ifd->height = first; break;
        case 258: ifd->bps = first; break;
        case 259: ifd->compression = first; break;
        case 262: ifd->photometric = first; break;
        case 277: ifd->spp = first; break;
        case 278: rows_per_strip = first; break;
        case 322: ifd->tile_width = first; break;
        case 323: ifd->tile_length = first; break;
        case 273: case 324: ifd->offsets_at = values; ifd->offsets_type = type; ifd->pieces = n; break;
        case 279: case 325: ifd->counts_at = values; ifd->counts_type = type; if (n < ifd->pieces || !ifd->pieces) ifd->pieces = n; break;
        case 330: ifd->subifds_at = (uint32_t)values; ifd->subifds_count = n; break;
        default: break;
        }
    }
    if (!ifd->tile_width) {  // strips
        ifd->tile_width = ifd->width;
        ifd->tile_length = rows_per_strip && rows_per_strip < ifd->height ? rows_per_strip : ifd->height;
    }
    return 1;
}

// The IFD that holds the sensor's samples (IFD0 or one of its SubIFDs) as LibRaw sized it.
static int fc_raw_find_raw_ifd(const fc_raw_tiff *t, const libraw_data_t *lr, fc_raw_ifd *out) {
    fc_raw_ifd ifd0;
    if (!fc_raw_read_ifd(t, fc_raw_u32(t, 4), &ifd0)) return 0;
    fc_raw_ifd candidates[9];
    int n = 0;
    candidates[n++] = ifd0;
    for (uint32_t i = 0; i < ifd0.subifds_count && n < 9; i++)
        if (fc_raw_read_ifd(t, fc_raw_value(t, 4, ifd0.subifds_at, i), &candidates[n])) n++;
    for (int i = 0; i < n; i++) {
        fc_raw_ifd *c = &candidates[i];
        if (c->photometric == 32803 && c->subfile == 0 && c->width == lr->sizes.raw_width && c->height == lr->sizes.raw_height) {
            *out = *c;
            return 1;
        }
    }
    return 0;
}

// One row of `width` samples of `bps` bits: 16-bit ones in the file's byte order; fewer bits
// packed most significant bit first from a byte boundary (DNG's packing; 14 bits four in seven
// bytes, 12 bits two in three).
static void fc_raw_unpack_row(const uint8_t *in, uint16_t *row, uint32_t width, uint32_t bps, int big_endian) {
    uint32_t x = 0;
    const uint8_t *q = in;
    if (bps == 16) {
        for (; x < width; x++) row[x] = big_endian ? (uint16_t)(in[2 * x] << 8 | in[2 * x + 1]) : (uint16_t)(in[2 * x + 1] << 8 | in[2 * x]);
        return;
    }
    if (bps == 14) {
        for (; x + 4 <= width; x += 4, q += 7) {
            uint64_t v = (uint64_t)q[0] << 48 | (uint64_t)q[1] << 40 | (uint64_t)q[2] << 32 | (uint64_t)q[3] << 24
                       | (uint64_t)q[4] << 16 | (uint64_t)q[5] << 8 | q[6];
            row[x] = (uint16_t)(v >> 42); row[x + 1] = (uint16_t)(v >> 28 & 0x3FFF);
            row[x + 2] = (uint16_t)(v >> 14 & 0x3FFF); row[x + 3] = (uint16_t)(v & 0x3FFF);
        }
    } else if (bps == 12) {
        for (; x + 2 <= width; x += 2, q += 3) {
            row[x] = (uint16_t)(q[0] << 4 | q[1] >> 4);
            row[x + 1] = (uint16_t)((q[1] & 0x0F) << 8 | q[2]);
        }
    }
    // The rest, bit by bit (whole rows of 10 bits, the tails of 12 and 14).
    uint64_t bits = 0;
    int have = 0;
    for (; x < width; x++) {
        while (have < (int)bps) { bits = bits << 8 | *q++; have += 8; }
        have -= (int)bps;
        row[x] = (uint16_t)((bits >> have) & ((1u << bps) - 1));
    }
}

typedef struct {
    const fc_raw_tiff *t;
    const fc_raw_ifd *ifd;
    uint32_t across;
    size_t row_bytes;
    int top, left, width, height, iw;
    unsigned black;
    int fc[2][2];
    ushort (*img)[4];
    uint32_t first_row, end_row;  // of each tile
    unsigned dmax;                // out: the largest sample less black
    int failed;
} fc_raw_half_job;

// raw2image_ex for half size: the visible samples, black subtracted (0 below it), each into its
// colour of its 2x2 block's pixel; rows first_row..end_row of every tile.
static void *fc_raw_half_unpack(void *context) {
    fc_raw_half_job *j = context;
    const fc_raw_ifd *ifd = j->ifd;
    uint16_t *row = malloc((size_t)ifd->tile_width * sizeof *row);
    if (!row) { j->failed = 1; return NULL; }
    unsigned dmax = 0, black = j->black;
    for (uint32_t p = 0; p < ifd->pieces; p++) {
        const uint8_t *tile = j->t->b + fc_raw_value(j->t, ifd->offsets_type, ifd->offsets_at, p);
        uint32_t x0 = (p % j->across) * ifd->tile_width, y0 = (p / j->across) * ifd->tile_length;
        for (uint32_t ty = j->first_row; ty < j->end_row; ty++) {
            int R = (int)(y0 + ty) - j->top;
            if (y0 + ty >= ifd->height) break;
            if (R < 0 || R >= j->height) continue;
            const uint8_t *in = tile + (size_t)ty * j->row_bytes;
            fc_raw_unpack_row(in, row, ifd->tile_width, ifd->bps, j->t->big_endian);
            ushort (*out)[4] = j->img + (size_t)(R >> 1) * j->iw;
            const int *f = j->fc[R & 1];
            // The tile's columns that are visible.
            int xs = j->left > (int)x0 ? j->left - (int)x0 : 0, xe = (int)ifd->tile_width;
            if ((int)x0 + xe > (int)ifd->width) xe = (int)ifd->width - (int)x0;
            if ((int)x0 + xe - j->left > j->width) xe = j->left + j->width - (int)x0;
            for (int x = xs; x < xe; x++) {
                int C = (int)x0 + x - j->left;
                unsigned v = row[x] > black ? row[x] - black : 0;
                if (v > dmax) dmax = v;
                out[C >> 1][f[C & 1]] = (ushort)v;
            }
        }
    }
    free(row);
    j->dmax = dmax;
    return NULL;
}

typedef struct {
    float scale[4];
    float m[3][3];
    ushort (*img)[4];
    size_t count;
} fc_raw_half_colour;

// scale_colors (truncating, as LibRaw's int times float), the greens' mix, convert_to_rgb.
static void *fc_raw_half_convert(void *context) {
    fc_raw_half_colour *h = context;
    for (size_t i = 0; i < h->count; i++) {
        ushort *px = h->img[i];
        for (int k = 0; k < 4; k++) {
            int v = px[k];
            if (!v) continue;
            int n = (int)((float)v * h->scale[k]);
            px[k] = (ushort)(n < 0 ? 0 : n > 65535 ? 65535 : n);
        }
        px[1] = (ushort)((px[1] + px[3]) >> 1);
        float o[3];
        for (int k = 0; k < 3; k++) o[k] = h->m[k][0] * px[0] + h->m[k][1] * px[1] + h->m[k][2] * px[2];
        for (int k = 0; k < 3; k++) {
            int n = (int)o[k];
            px[k] = (ushort)(n < 0 ? 0 : n > 65535 ? 65535 : n);
        }
    }
    return NULL;
}

static int fc_raw_fast_half(fc_raw_child *c, const fc_raw_settings *settings) {
    libraw_data_t *lr = c->lr;
    if (settings->highlights != 0 || settings->white_balance == FC_RAW_WB_AUTO) return 0;
    if (!lr->idata.dng_version || lr->idata.colors != 3 || lr->idata.filters <= 1000 || lr->sizes.pixel_aspect != 1.0) return 0;
    const char *name = fc_libraw.libraw_unpack_function_name(lr);
    if (!name || strcmp(name, "packed_dng_load_raw()") != 0) return 0;
    for (int k = 0; k < 6; k++) if (lr->color.cblack[k]) return 0;
    for (int i = 0; i < 0x10000; i++) if (lr->color.curve[i] != i) return 0;
    // The pattern, 2x2, as LibRaw numbers it (G2 = 3); rows 0-7 must repeat rows 0-1.
    int fc[2][2];
    for (int r = 0; r < 8; r++)
        for (int k = 0; k < 2; k++) {
            int v = fc_libraw.libraw_COLOR(lr, r, k);
            if (r < 2) fc[r][k] = v;
            else if (v != fc[r & 1][k]) return 0;
        }
    if (!((fc[0][0] != fc[0][1]) && (fc[1][0] != fc[1][1]))) return 0;
    fc_raw_tiff t = {0, c->data, c->size};
    if (c->size < 8) return 0;
    if (c->data[0] == 'M' && c->data[1] == 'M') t.big_endian = 1;
    else if (!(c->data[0] == 'I' && c->data[1] == 'I')) return 0;
    fc_raw_ifd ifd;
    if (!fc_raw_find_raw_ifd(&t, lr, &ifd)) return 0;
    if (ifd.compression != 1 || ifd.spp != 1 || !(ifd.bps == 10 || ifd.bps == 12 || ifd.bps == 14 || ifd.bps == 16)) return 0;
    if (!ifd.tile_width || !ifd.tile_length || !ifd.pieces || ifd.tile_width > 65535 || ifd.tile_length > 65535) return 0;
    uint32_t across = (ifd.width + ifd.tile_width - 1) / ifd.tile_width, down = (ifd.height + ifd.tile_length - 1) / ifd.tile_length;
    if ((uint64_t)across * down != ifd.pieces) return 0;
    size_t row_bytes = ((size_t)ifd.tile_width * ifd.bps + 7) / 8;
    for (uint32_t p = 0; p < ifd.pieces; p++) {
        size_t at = fc_raw_value(&t, ifd.offsets_type, ifd.offsets_at, p);
        size_t rows = ifd.tile_length;
        if (at > c->size || rows * row_bytes > c->size - at) return 0;  // short: LibRaw says why
    }
    libraw_image_sizes_t *s = &lr->sizes;
    int top = s->top_margin, left = s->left_margin, height = s->height, width = s->width;
    int ih = (height + 1) >> 1, iw = (width + 1) >> 1;
    ushort (*img)[4] = calloc((size_t)ih * iw, sizeof *img);
    if (!img) return 0;
    fc_raw_half_job jobs[2];
    for (int k = 0; k < 2; k++) {
        fc_raw_half_job *j = &jobs[k];
        memset(j, 0, sizeof *j);
        j->t = &t;
        j->ifd = &ifd;
        j->across = across;
        j->row_bytes = row_bytes;
        j->top = top; j->left = left; j->width = width; j->height = height; j->iw = iw;
        j->black = lr->color.black;
        memcpy(j->fc, fc, sizeof fc);
        j->img = img;
        // Each thread takes the tiles' rows in one half (an even split: a block's two rows together).
        j->first_row = k == 0 ? 0 : (ifd.tile_length / 2) & ~1u;
        j->end_row = k == 0 ? (ifd.tile_length / 2) & ~1u : ifd.tile_length;
    }
    pthread_t helper;
    int threaded = pthread_create(&helper, NULL, fc_raw_half_unpack, &jobs[1]) == 0;
    fc_raw_half_unpack(&jobs[0]);
    if (threaded) pthread_join(helper, NULL);
    else fc_raw_half_unpack(&jobs[1]);
    if (jobs[0].failed || jobs[1].failed) { free(img); return 0; }
    unsigned dmax = jobs[0].dmax > jobs[1].dmax ? jobs[0].dmax : jobs[1].dmax;
    unsigned black = lr->color.black;
    // adjust_maximum, then scale_colors' multipliers (the least 1: highlights clipped).
    float maximum = (float)(lr->color.maximum - black);
    float threshold = lr->params.adjust_maximum_thr;
    if (threshold > 0.00001f) {
        if (threshold > 0.99999f) threshold = 0.75f;
        if (dmax > 0 && dmax < maximum && dmax > maximum * threshold) maximum = (float)dmax;
    }
    float pre[4];
    const float *cam = lr->color.cam_mul;
    if (settings->white_balance == FC_RAW_WB_KELVIN) for (int k = 0; k < 4; k++) pre[k] = lr->params.user_mul[k];
    else if (settings->white_balance == FC_RAW_WB_CAMERA && cam[0] > 0 && cam[2] > 0) for (int k = 0; k < 4; k++) pre[k] = cam[k];
    else for (int k = 0; k < 4; k++) pre[k] = lr->color.pre_mul[k];
    if (pre[1] == 0) pre[1] = 1;
    if (pre[3] == 0) pre[3] = pre[1];
    float least = pre[0];
    for (int k = 1; k < 4; k++) if (pre[k] < least) least = pre[k];
    if (!(least > 0) || !(maximum > 0)) { free(img); return 0; }
    // convert_to_rgb's matrix: dcraw's ProPhoto from sRGB times the camera's rgb_cam.
    static const double prophoto[3][3] = {
        {0.529317, 0.330092, 0.140588}, {0.098368, 0.873465, 0.028169}, {0.016879, 0.117663, 0.865457}};
    fc_raw_half_colour colour[2];
    size_t total = (size_t)ih * iw;
    for (int k = 0; k < 4; k++) colour[0].scale[k] = (pre[k] / least) * 65535.0f / maximum;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double v = 0;
            for (int k = 0; k < 3; k++) v += prophoto[i][k] * lr->color.rgb_cam[k][j];
            colour[0].m[i][j] = (float)v;
        }
    colour[1] = colour[0];
    colour[0].img = img; colour[0].count = total / 2;
    colour[1].img = img + total / 2; colour[1].count = total - total / 2;
    threaded = pthread_create(&helper, NULL, fc_raw_half_convert, &colour[1]) == 0;
    fc_raw_half_convert(&colour[0]);
    if (threaded) pthread_join(helper, NULL);
    else fc_raw_half_convert(&colour[1]);
    c->own = img;
    c->image = img;
    c->stored_width = iw;
    c->stored_height = ih;
    c->flip = s->flip;
    c->width = (s->flip & 4) ? ih : iw;
    c->height = (s->flip & 4) ? iw : ih;
    return 1;
}

static fc_status fc_raw_child_develop(fc_raw_child *c, const fc_raw_settings *settings, int lenient) {
    libraw_data_t *lr = c->lr;
    libraw_output_params_t *p = &lr->params;
    p->use_camera_wb = settings->white_balance == FC_RAW_WB_CAMERA;
    p->use_auto_wb = settings->white_balance == FC_RAW_WB_AUTO;
    if (settings->white_balance == FC_RAW_WB_KELVIN) {
        // The light's white in the camera's raw RGB, and the multipliers that make it neutral.
        // LibRaw's rgb_cam takes daylight-balanced camera RGB to linear sRGB (dcraw normalises
        // the camera matrix so that D65 white is 1, 1, 1 there, with pre_mul its daylight
        // balance); so raw = rgb_cam^-1 * srgb / pre_mul.
        double x, y;
        fc_raw_white(settings->kelvin, &x, &y);
        const double xyz[3] = {x / y, 1.0, (1 - x - y) / y};
        static const double srgb_from_xyz[3][3] = {
            {3.2404542, -1.5371385, -0.4985314}, {-0.9692660, 1.8760108, 0.0415560}, {0.0556434, -0.2040259, 1.0572252}};
        double rgb[3], m[3][3], inv[3][3];
        for (int i = 0; i < 3; i++) {
            rgb[i] = 0;
            for (int k = 0; k < 3; k++) rgb[i] += srgb_from_xyz[i][k] * xyz[k];
            for (int k = 0; k < 3; k++) m[i][k] = lr->color.rgb_cam[i][k];
        }
        double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                   + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
        int usable = fabs(det) > 1e-9 && lr->color.pre_mul[0] > 0 && lr->color.pre_mul[1] > 0 && lr->color.pre_mul[2] > 0;
        double raw[3] = {0, 0, 0};
        if (usable) {
            for (int i = 0; i < 3; i++)
                for (int k = 0; k < 3; k++)
                    inv[i][k] = (m[(k + 1) % 3][(i + 1) % 3] * m[(k + 2) % 3][(i + 2) % 3]
                                 - m[(k + 1) % 3][(i + 2) % 3] * m[(k + 2) % 3][(i + 1) % 3]) / det;
            for (int i = 0; i < 3; i++) {
                for (int k = 0; k < 3; k++) raw[i] += inv[i][k] * rgb[k];
                raw[i] /= lr->color.pre_mul[i];
            }
        }
        if (!(raw[0] > 0 && raw[1] > 0 && raw[2] > 0)) {
            fc_raw_say(&c->report, "the camera has no usable colour matrix, so a white balance in kelvin cannot be computed");
            return FC_UNSUPPORTED;
        }
        for (int k = 0; k < 3; k++) p->user_mul[k] = (float)(raw[1] / raw[k]);
        p->user_mul[3] = p->user_mul[1];
    }
    p->user_qual = settings->demosaic;
    p->highlight = settings->highlights;
    p->half_size = settings->half_size ? 1 : 0;
    p->output_color = 4;   // ProPhoto (dcraw's matrix: Bradford-adapted from sRGB's D65 to D50)
    p->output_bps = 16;
    p->gamm[0] = 1.0;      // linear
    p->gamm[1] = 1.0;
    p->no_auto_bright = 1;
    p->bright = 1.0f;
    c->data_errors = 0;
    if (settings->half_size && fc_raw_fast_half(c, settings)) return FC_OK;
    int code = fc_libraw.libraw_unpack(lr);
    if (code != LIBRAW_SUCCESS) return fc_raw_failure(c, code, "unpack");
    if (c->data_errors && !lenient) return FC_FAILED;
    code = fc_libraw.libraw_dcraw_process(lr);
    if (code != LIBRAW_SUCCESS) return fc_raw_failure(c, code, "develop");
    if (c->data_errors && !lenient) return FC_FAILED;
    if (!lr->image) { fc_raw_say(&c->report, "LibRaw developed no image"); return FC_FAILED; }
    libraw_image_sizes_t *s = &lr->sizes;
    c->image = lr->image;
    c->stored_width = s->width;
    c->stored_height = s->height;
    c->flip = s->flip;
    c->width = (s->flip & 4) ? s->height : s->width;
    c->height = (s->flip & 4) ? s->width : s->height;
    return FC_OK;
}

// Upright row `row`, column `col` to its index in LibRaw's buffer (dcraw's flip_index).
static size_t fc_raw_index(const fc_raw_child *c, int row, int col) {
    if (c->flip & 4) { int t = row; row = col; col = t; }
    if (c->flip & 2) row = c->stored_height - 1 - row;
    if (c->flip & 1) col = c->stored_width - 1 - col;
    return (size_t)row * (size_t)c->stored_width + (size_t)col;
}

// Every developed row, upright, 16-bit RGB, down the socket.
static int fc_raw_child_stream(fc_raw_child *c, int sock) {
    uint16_t *out = malloc((size_t)c->width * 6);
    if (!out) return -1;
    ushort (*image)[4] = c->image;
    for (uint32_t row = 0; row < c->height; row++) {
        size_t at = fc_raw_index(c, (int)row, 0);
        ptrdiff_t step = c->width > 1 ? (ptrdiff_t)fc_raw_index(c, (int)row, 1) - (ptrdiff_t)at : 1;
        for (uint32_t x = 0; x < c->width; x++, at += step) {
            out[3 * x] = image[at][0]; out[3 * x + 1] = image[at][1]; out[3 * x + 2] = image[at][2];
        }
        if (fc_raw_send(sock, out, (size_t)c->width * 6)) { free(out); return -1; }
    }
    free(out);
    return 0;
}

// The child's whole life: open, answer, then commands until it has developed (or the parent
// has gone). It leaves with _exit: nothing of the parent's (atexit handlers, stdio buffers,
// the sanitizers' leak check) runs here.
static void fc_raw_child_main(int sock, const uint8_t *data, size_t size, uint64_t max_pixels, unsigned max_memory_mb) {
    // A crash ends this process quietly (the parent reports it), whatever handlers the parent had.
    int deadly[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS};
    for (size_t i = 0; i < sizeof deadly / sizeof *deadly; i++) signal(deadly[i], SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
#if defined(__linux__)
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
#if !defined(FC_RAW_SANITIZED)
    // LibRaw's memory capped: the address space it starts with plus what the limit allows.
    if (max_memory_mb) {
        long pages = 0;
        FILE *f = fopen("/proc/self/statm", "r");
        if (f) { if (fscanf(f, "%ld", &pages) != 1) pages = 0; fclose(f); }
        if (pages > 0) {
            rlim_t cap = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (rlim_t)max_memory_mb * 8u * 1048576u + ((rlim_t)512 << 20);
            struct rlimit limit = {cap, cap};
            setrlimit(RLIMIT_AS, &limit);
        }
    }
#endif
    fc_raw_child c;
    memset(&c, 0, sizeof c);
    c.data = data;
    c.size = size;
    c.lr = fc_libraw.libraw_init(0);
    fc_raw_open_reply reply;
    memset(&reply, 0, sizeof reply);
    if (!c.lr) {
        reply.status = FC_NO_MEMORY;
        fc_raw_send(sock, &reply, sizeof reply);
        _exit(0);
    }
    fc_libraw.libraw_set_dataerror_handler(c.lr, fc_raw_data_error, &c);
    fc_libraw.libraw_set_memerror_handler(c.lr, fc_raw_memory_error, &c);
    reply.status = fc_raw_child_open(&c, data, size, &reply.info, max_pixels, max_memory_mb);
    memcpy(reply.message, c.report.message, sizeof reply.message);
    const void *xmp = NULL;
    if (reply.status == FC_OK && c.lr->idata.xmpdata && c.lr->idata.xmplen > 0 && c.lr->idata.xmplen < (64u << 20)) {
        xmp = c.lr->idata.xmpdata;
        reply.xmp_length = c.lr->idata.xmplen;
    }
    if (fc_raw_send(sock, &reply, sizeof reply) || (xmp && fc_raw_send(sock, xmp, reply.xmp_length)) || reply.status != FC_OK) _exit(0);
    fc_raw_command command;
    while (fc_raw_receive(sock, &command, sizeof command) == 0) {
        fc_raw_reply answer;
        memset(&answer, 0, sizeof answer);
        if (command.kind == FC_RAW_THUMBNAIL) {
            c.data_errors = 0;
            int code = fc_libraw.libraw_unpack_thumb(c.lr);
            libraw_thumbnail_t *t = &c.lr->thumbnail;
            if (code != LIBRAW_SUCCESS) answer.status = fc_raw_failure(&c, code, "read the preview of");
            else if (t->tformat != LIBRAW_THUMBNAIL_JPEG || !t->thumb || t->tlength == 0) {
                answer.status = FC_UNSUPPORTED;
                fc_raw_say(&c.report, "its embedded preview is not a JPEG");
            } else answer.length = t->tlength;
            memcpy(answer.message, c.report.message, sizeof answer.message);
            if (fc_raw_send(sock, &answer, sizeof answer)) _exit(0);
            if (answer.length && fc_raw_send(sock, t->thumb, t->tlength)) _exit(0);
            continue;
        }
        if (command.kind != FC_RAW_DEVELOP) _exit(0);
        answer.status = fc_raw_child_develop(&c, &command.settings, command.lenient);
        memcpy(answer.message, c.report.message, sizeof answer.message);
        answer.damage = c.data_errors;
        answer.width = c.width;
        answer.height = c.height;
        if (fc_raw_send(sock, &answer, sizeof answer) == 0 && answer.status == FC_OK) fc_raw_child_stream(&c, sock);
        _exit(0);
    }
    _exit(0);
}

// ---------------------------------------------------------------------------------------------
// The parent: filterchain's side.

struct fc_raw_decoder {
    const uint8_t *data;
    size_t size;
    fc_raw_report report;
    pid_t child;
    int sock;
    int damage;
    int developed;
    uint32_t width, height, next_row;
    uint8_t *xmp;
    size_t xmp_length;
    uint8_t *thumb;
    size_t thumb_length;
    int timed_out;
};

// A receive on the parent's side, remembering a timeout for the report.
static int fc_raw_parent_receive(fc_raw_decoder *d, void *p, size_t n) {
    int r = fc_raw_receive(d->sock, p, n);
    if (r == -2) d->timed_out = 1;
    return r;
}

const char *fc_raw_library_version(void) {
    if (fc_raw_library_error()) return "";
    return fc_libraw.libraw_version();
}

fc_raw_decoder *fc_raw_decoder_new(const uint8_t *data, size_t size) {
    if (fc_raw_library_error()) return NULL;
    fc_raw_decoder *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->data = data;
    d->size = size;
    d->sock = -1;
    d->child = -1;
    return d;
}

// Ends the child (if it is still there) and collects it; returns its wait status.
static int fc_raw_end_child(fc_raw_decoder *d, int kill_it) {
    int status = 0;
    if (d->sock >= 0) { close(d->sock); d->sock = -1; }
    if (d->child > 0) {
        if (kill_it) kill(d->child, SIGKILL);
        while (waitpid(d->child, &status, 0) < 0 && errno == EINTR) {}
        d->child = -1;
    }
    return status;
}

void fc_raw_decoder_free(fc_raw_decoder *d) {
    if (!d) return;
    fc_raw_end_child(d, 1);
    free(d->xmp);
    free(d->thumb);
    free(d);
}

const fc_raw_report *fc_raw_decoder_report(const fc_raw_decoder *d) { return &d->report; }

// The child went away without its answer (or fell silent: it is killed): how it ended.
static fc_status fc_raw_lost_child(fc_raw_decoder *d, const char *doing) {
    if (d->timed_out) {
        fc_raw_end_child(d, 1);
        snprintf(d->report.message, sizeof d->report.message,
                 "LibRaw gave no answer for %d s while %s it and was stopped (a file made to make decoders loop?)",
                 FC_RAW_PATIENCE_SECONDS, doing);
        return FC_FAILED;
    }
    int status = fc_raw_end_child(d, 0);
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        const char *name = sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGABRT ? "SIGABRT"
                         : sig == SIGFPE ? "SIGFPE" : sig == SIGILL ? "SIGILL" : sig == SIGKILL ? "SIGKILL" : "a signal";
        if (sig == SIGKILL) {
            snprintf(d->report.message, sizeof d->report.message,
                     "LibRaw was killed while %s it (out of memory?); the file was not read", doing);
            return FC_NO_MEMORY;
        }
        snprintf(d->report.message, sizeof d->report.message,
                 "LibRaw crashed while %s it (%s, in its own process): the file is damaged or made to break decoders", doing, name);
        return FC_FAILED;
    }
    snprintf(d->report.message, sizeof d->report.message, "LibRaw stopped while %s it, without an answer", doing);
    return FC_FAILED;
}

static fc_status fc_raw_start(fc_raw_decoder *d, uint64_t max_pixels, unsigned max_memory_mb) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        snprintf(d->report.message, sizeof d->report.message, "cannot start LibRaw's process: %s", strerror(errno));
        return FC_FAILED;
    }
#if defined(SO_NOSIGPIPE)
    int one = 1;
    setsockopt(sv[0], SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof one);
    setsockopt(sv[1], SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof one);
#endif
    int buffer = 1 << 20;
    setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &buffer, sizeof buffer);
    setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &buffer, sizeof buffer);
    // A child silent for this long (LibRaw looping on a crafted file) is given up on: the
    // parent's reads time out, and the child is killed. Developing 100 MP with DCB on a slow
    // core stays well within it.
    struct timeval patience = {FC_RAW_PATIENCE_SECONDS, 0};
    setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof patience);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(d->report.message, sizeof d->report.message, "cannot start LibRaw's process: %s", strerror(errno));
        close(sv[0]);
        close(sv[1]);
        return errno == ENOMEM || errno == EAGAIN ? FC_NO_MEMORY : FC_FAILED;
    }
    if (pid == 0) {
        close(sv[0]);
        fc_raw_child_main(sv[1], d->data, d->size, max_pixels, max_memory_mb);
        _exit(0);
    }
    close(sv[1]);
    d->sock = sv[0];
    d->child = pid;
    return FC_OK;
}

fc_status fc_raw_decoder_open(fc_raw_decoder *d, fc_raw_info *info, uint64_t max_pixels, unsigned max_memory_mb) {
    memset(info, 0, sizeof *info);
    fc_status started = fc_raw_start(d, max_pixels, max_memory_mb);
    if (started != FC_OK) return started;
    fc_raw_open_reply reply;
    if (fc_raw_parent_receive(d, &reply, sizeof reply)) return fc_raw_lost_child(d, "reading");
    memcpy(d->report.message, reply.message, sizeof d->report.message);
    d->report.message[FC_RAW_MESSAGE_MAX - 1] = 0;
    if (reply.status != FC_OK) {
        fc_raw_end_child(d, 1);
        return (fc_status)reply.status;
    }
    *info = reply.info;
    info->decoder[sizeof info->decoder - 1] = 0;
    info->make[sizeof info->make - 1] = 0;
    info->model[sizeof info->model - 1] = 0;
    info->lens[sizeof info->lens - 1] = 0;
    info->software[sizeof info->software - 1] = 0;
    info->cfa[sizeof info->cfa - 1] = 0;
    if (reply.xmp_length) {
        d->xmp = malloc(reply.xmp_length);
        if (!d->xmp) { fc_raw_end_child(d, 1); return FC_NO_MEMORY; }
        if (fc_raw_parent_receive(d, d->xmp, reply.xmp_length)) return fc_raw_lost_child(d, "reading");
        d->xmp_length = reply.xmp_length;
    }
    return FC_OK;
}

fc_status fc_raw_decoder_develop(fc_raw_decoder *d, const fc_raw_settings *settings, int lenient) {
    if (d->sock < 0 || d->developed) { fc_raw_say(&d->report, "nothing to develop"); return FC_FAILED; }
    fc_raw_command command;
    memset(&command, 0, sizeof command);
    command.kind = FC_RAW_DEVELOP;
    command.lenient = lenient;
    command.settings = *settings;
    fc_raw_reply answer;
    if (fc_raw_send(d->sock, &command, sizeof command) || fc_raw_parent_receive(d, &answer, sizeof answer))
        return fc_raw_lost_child(d, "developing");
    memcpy(d->report.message, answer.message, sizeof d->report.message);
    d->report.message[FC_RAW_MESSAGE_MAX - 1] = 0;
    d->damage = answer.damage;
    if (answer.status != FC_OK) {
        fc_raw_end_child(d, 1);
        return (fc_status)answer.status;
    }
    d->width = answer.width;
    d->height = answer.height;
    d->developed = 1;
    return FC_OK;
}

int fc_raw_decoder_damage(const fc_raw_decoder *d) { return d->damage; }

void fc_raw_decoder_size(const fc_raw_decoder *d, uint32_t *width, uint32_t *height) {
    *width = d->width;
    *height = d->height;
}

fc_status fc_raw_decoder_rows(fc_raw_decoder *d, uint16_t *dst, size_t stride, uint32_t first, uint32_t count) {
    if (!d->developed) { fc_raw_say(&d->report, "rows asked for before the image was developed"); return FC_FAILED; }
    if (first != d->next_row || (uint64_t)first + count > d->height) {
        fc_raw_say(&d->report, "rows asked for out of order");
        return FC_FAILED;
    }
    size_t row = (size_t)d->width * 6;
    if (d->sock < 0) { fc_raw_say(&d->report, "LibRaw's process is gone"); return FC_FAILED; }
    if (stride == row) {
        if (fc_raw_parent_receive(d, dst, row * count)) return fc_raw_lost_child(d, "developing");
    } else {
        for (uint32_t r = 0; r < count; r++)
            if (fc_raw_parent_receive(d, (uint8_t *)dst + (size_t)r * stride, row)) return fc_raw_lost_child(d, "developing");
    }
    d->next_row += count;
    if (d->next_row == d->height) fc_raw_end_child(d, 0);
    return FC_OK;
}

fc_status fc_raw_decoder_thumbnail(fc_raw_decoder *d, const uint8_t **bytes, size_t *length) {
    *bytes = NULL;
    *length = 0;
    if (!d->thumb) {
        if (d->sock < 0 || d->developed) { fc_raw_say(&d->report, "the preview is asked for too late"); return FC_FAILED; }
        fc_raw_command command;
        memset(&command, 0, sizeof command);
        command.kind = FC_RAW_THUMBNAIL;
        fc_raw_reply answer;
        if (fc_raw_send(d->sock, &command, sizeof command) || fc_raw_parent_receive(d, &answer, sizeof answer))
            return fc_raw_lost_child(d, "reading the preview of");
        memcpy(d->report.message, answer.message, sizeof d->report.message);
        d->report.message[FC_RAW_MESSAGE_MAX - 1] = 0;
        if (answer.status != FC_OK) return (fc_status)answer.status;
        if (answer.length == 0 || answer.length > d->size) { fc_raw_say(&d->report, "its preview's length is wrong"); return FC_FAILED; }
        d->thumb = malloc(answer.length);
        if (!d->thumb) return FC_NO_MEMORY;
        if (fc_raw_parent_receive(d, d->thumb, answer.length)) {
            free(d->thumb);
            d->thumb = NULL;
            return fc_raw_lost_child(d, "reading the preview of");
        }
        d->thumb_length = answer.length;
    }
    *bytes = d->thumb;
    *length = d->thumb_length;
    return FC_OK;
}

const uint8_t *fc_raw_decoder_xmp(const fc_raw_decoder *d, size_t *length) {
    *length = d->xmp_length;
    return d->xmp_length ? d->xmp : NULL;
}

// Identification in a child too: LibRaw's parsers are what crashed.
static int fc_raw_identify(const char *path, const uint8_t *data, size_t size) {
    if (fc_raw_library_error()) return 0;
    pid_t pid = fork();
    if (pid < 0) return 0;
    if (pid == 0) {
        int deadly[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS};
        for (size_t i = 0; i < sizeof deadly / sizeof *deadly; i++) signal(deadly[i], SIG_DFL);
#if defined(__linux__)
        prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
        libraw_data_t *lr = fc_libraw.libraw_init(0);
        if (!lr) _exit(1);
        fc_libraw.libraw_set_dataerror_handler(lr, fc_raw_quiet, NULL);
        int code = path ? fc_libraw.libraw_open_file(lr, path) : fc_libraw.libraw_open_buffer(lr, (void *)data, size);
        int yes = code == LIBRAW_SUCCESS && lr->idata.raw_count > 0 && lr->sizes.raw_width > 0 && lr->sizes.raw_height > 0;
        _exit(yes ? 0 : 1);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int fc_raw_identify_file(const char *path) { return path ? fc_raw_identify(path, NULL, 0) : 0; }

int fc_raw_identify_buffer(const uint8_t *data, size_t size) { return data ? fc_raw_identify(NULL, data, size) : 0; }
