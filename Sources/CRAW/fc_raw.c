#include "fc_raw.h"
#include "fc_raw_library.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fc_raw_decoder {
    libraw_data_t *lr;
    const uint8_t *data;
    size_t size;
    fc_raw_report report;
    int data_errors;         // LibRaw's data error callbacks during the current call
    int memory_errors;
    int developed;
    uint32_t width, height;  // developed, upright
    int stored_width, stored_height, flip;
};

static void fc_raw_say(fc_raw_report *r, const char *message) {
    snprintf(r->message, sizeof r->message, "%s", message);
}

// LibRaw calls these instead of printing to stderr.
static void fc_raw_data_error(void *context, const char *file, const int offset) {
    (void)file;
    fc_raw_decoder *d = context;
    d->data_errors++;
    if (offset < 0) snprintf(d->report.message, sizeof d->report.message, "the raw data ends early (truncated)");
    else snprintf(d->report.message, sizeof d->report.message, "the raw data is damaged near byte %d", offset);
}

static void fc_raw_memory_error(void *context, const char *file, const char *where) {
    (void)file;
    fc_raw_decoder *d = context;
    d->memory_errors++;
    snprintf(d->report.message, sizeof d->report.message, "LibRaw ran out of memory (%s)", where ? where : "?");
}

const char *fc_raw_library_version(void) {
    if (fc_raw_library_error()) return "";
    return fc_libraw.libraw_version();
}

static void fc_raw_quiet(void *context, const char *file, const int offset) { (void)context; (void)file; (void)offset; }

static int fc_raw_identified(libraw_data_t *lr, int code) {
    int yes = code == LIBRAW_SUCCESS && lr->idata.raw_count > 0 && lr->sizes.raw_width > 0 && lr->sizes.raw_height > 0;
    fc_libraw.libraw_close(lr);
    return yes;
}

int fc_raw_identify_file(const char *path) {
    if (fc_raw_library_error()) return 0;
    libraw_data_t *lr = fc_libraw.libraw_init(0);
    if (!lr) return 0;
    fc_libraw.libraw_set_dataerror_handler(lr, fc_raw_quiet, NULL);
    return fc_raw_identified(lr, fc_libraw.libraw_open_file(lr, path));
}

int fc_raw_identify_buffer(const uint8_t *data, size_t size) {
    if (fc_raw_library_error() || !data) return 0;
    libraw_data_t *lr = fc_libraw.libraw_init(0);
    if (!lr) return 0;
    fc_libraw.libraw_set_dataerror_handler(lr, fc_raw_quiet, NULL);
    return fc_raw_identified(lr, fc_libraw.libraw_open_buffer(lr, (void *)data, size));
}

fc_raw_decoder *fc_raw_decoder_new(const uint8_t *data, size_t size) {
    if (fc_raw_library_error()) return NULL;
    fc_raw_decoder *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->lr = fc_libraw.libraw_init(0);
    if (!d->lr) { free(d); return NULL; }
    d->data = data;
    d->size = size;
    fc_libraw.libraw_set_dataerror_handler(d->lr, fc_raw_data_error, d);
    fc_libraw.libraw_set_memerror_handler(d->lr, fc_raw_memory_error, d);
    return d;
}

void fc_raw_decoder_free(fc_raw_decoder *d) {
    if (!d) return;
    if (d->lr) fc_libraw.libraw_close(d->lr);
    free(d);
}

const fc_raw_report *fc_raw_decoder_report(const fc_raw_decoder *d) { return &d->report; }

// LibRaw's status to ours, with its words where none of the callbacks said more.
static fc_status fc_raw_failure(fc_raw_decoder *d, int code, const char *doing) {
    char words[200];
    snprintf(words, sizeof words, "%s", fc_libraw.libraw_strerror(code));
    for (char *c = words; *c; c++) if (*c >= 'A' && *c <= 'Z' && c != words) *c = (char)(*c - 'A' + 'a');
    if (code == LIBRAW_FILE_UNSUPPORTED || code == LIBRAW_NOT_IMPLEMENTED) {
        snprintf(d->report.message, sizeof d->report.message, "LibRaw %s cannot %s it (%s)", fc_libraw.libraw_version(), doing, words);
        return FC_UNSUPPORTED;
    }
    if (code == LIBRAW_UNSUFFICIENT_MEMORY || code == LIBRAW_MEMPOOL_OVERFLOW || d->memory_errors) {
        if (!d->memory_errors) snprintf(d->report.message, sizeof d->report.message, "LibRaw ran out of memory");
        return FC_NO_MEMORY;
    }
    if (code == LIBRAW_TOO_BIG) {
        snprintf(d->report.message, sizeof d->report.message, "LibRaw refused it: %s (its memory cap)", words);
        return FC_LIMIT;
    }
    if (!d->data_errors) snprintf(d->report.message, sizeof d->report.message, "LibRaw cannot %s it: %s", doing, words);
    return FC_FAILED;
}

// dcraw's flip as an EXIF Orientation ("50132467" read backwards).
static int fc_raw_orientation(int flip) {
    static const int exif[8] = {1, 2, 4, 3, 5, 8, 6, 7};
    return exif[flip & 7];
}

fc_status fc_raw_decoder_open(fc_raw_decoder *d, fc_raw_info *info, uint64_t max_pixels, unsigned max_memory_mb) {
    memset(info, 0, sizeof *info);
    libraw_data_t *lr = d->lr;
    if (max_memory_mb) lr->params.max_raw_memory_mb = max_memory_mb;
    int code = fc_libraw.libraw_open_buffer(lr, (void *)d->data, d->size);
    if (code != LIBRAW_SUCCESS) return fc_raw_failure(d, code, "read");
    libraw_image_sizes_t *s = &lr->sizes;
    if (s->raw_width == 0 || s->raw_height == 0 || s->width == 0 || s->height == 0) {
        fc_raw_say(&d->report, "the file gives the sensor no size");
        return FC_FAILED;
    }
    if (max_pixels && ((uint64_t)s->raw_width * s->raw_height > max_pixels || (uint64_t)s->width * s->height > max_pixels)) {
        snprintf(d->report.message, sizeof d->report.message, "%u x %u samples", (unsigned)s->raw_width, (unsigned)s->raw_height);
        return FC_LIMIT;
    }
    if (lr->color.maximum == 0 || lr->color.maximum <= lr->color.black) {
        snprintf(d->report.message, sizeof d->report.message, "its white level (%u) is not above its black level (%u)",
                 lr->color.maximum, lr->color.black);
        return FC_FAILED;
    }
    if (lr->idata.colors < 3) {
        fc_raw_say(&d->report, "a monochrome sensor (LibRaw develops colour sensors only here)");
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
            int c = fc_libraw.libraw_COLOR(lr, i >> 1, i & 1);
            info->cfa[i] = c == 0 ? 'R' : c == 2 ? 'B' : 'G';
        }
    }
    snprintf(info->make, sizeof info->make, "%s", lr->idata.make);
    snprintf(info->model, sizeof info->model, "%s", lr->idata.model);
    snprintf(info->software, sizeof info->software, "%s", lr->idata.software);
    snprintf(info->lens, sizeof info->lens, "%s", lr->lens.Lens);
    info->black = lr->color.black;
    unsigned cblack = 0;
    for (int c = 0; c < 4; c++) cblack += lr->color.cblack[c];
    info->black += cblack / 4;
    info->white = lr->color.maximum;
    int bits = 0;
    while (bits < 32 && (1u << bits) <= lr->color.maximum) bits++;
    info->bits = bits;
    for (int c = 0; c < 4; c++) { info->as_shot[c] = lr->color.cam_mul[c]; info->daylight[c] = lr->color.pre_mul[c]; }
    info->iso = lr->other.iso_speed;
    info->shutter = lr->other.shutter;
    info->aperture = lr->other.aperture;
    info->focal_length = lr->other.focal_len;
    info->timestamp = (int64_t)lr->other.timestamp;
    info->thumb_width = lr->thumbnail.twidth;
    info->thumb_height = lr->thumbnail.theight;
    info->thumb_jpeg = lr->thumbnail.tformat == LIBRAW_THUMBNAIL_JPEG && lr->thumbnail.tlength > 0;
    info->decoder = fc_libraw.libraw_unpack_function_name(lr);
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
        *x = t <= 4000 && t >= 1667 ? -0.2661239e9 / t3 - 0.2343589e6 / t2 + 0.8776956e3 / t + 0.179910 : 0.5;
        double a = *x, a2 = a * a, a3 = a2 * a;
        *y = t <= 2222 ? -1.1063814 * a3 - 1.34811020 * a2 + 2.18555832 * a - 0.20219683
                       : -0.9549476 * a3 - 1.37418593 * a2 + 2.09137015 * a - 0.16748867;
    }
}

fc_status fc_raw_decoder_develop(fc_raw_decoder *d, const fc_raw_settings *settings, int lenient) {
    libraw_data_t *lr = d->lr;
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
                for (int k = 0; k < 3; k++) {
                    int i1 = (k + 1) % 3, i2 = (k + 2) % 3, k1 = (i + 1) % 3, k2 = (i + 2) % 3;
                    inv[i][k] = (m[i1][k1] * m[i2][k2] - m[i1][k2] * m[i2][k1]) / det;
                }
            for (int i = 0; i < 3; i++) {
                for (int k = 0; k < 3; k++) raw[i] += inv[i][k] * rgb[k];
                raw[i] /= lr->color.pre_mul[i];
            }
        }
        if (!(raw[0] > 0 && raw[1] > 0 && raw[2] > 0)) {
            fc_raw_say(&d->report, "the camera has no usable colour matrix, so a white balance in kelvin cannot be computed");
            return FC_UNSUPPORTED;
        }
        for (int c = 0; c < 3; c++) p->user_mul[c] = (float)(raw[1] / raw[c]);
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
    d->data_errors = 0;
    int code = fc_libraw.libraw_unpack(lr);
    if (code != LIBRAW_SUCCESS) return fc_raw_failure(d, code, "unpack");
    if (d->data_errors && !lenient) return FC_FAILED;
    code = fc_libraw.libraw_dcraw_process(lr);
    if (code != LIBRAW_SUCCESS) return fc_raw_failure(d, code, "develop");
    if (d->data_errors && !lenient) return FC_FAILED;
    if (!lr->image) { fc_raw_say(&d->report, "LibRaw developed no image"); return FC_FAILED; }
    libraw_image_sizes_t *s = &lr->sizes;
    d->stored_width = s->width;
    d->stored_height = s->height;
    d->flip = s->flip;
    d->width = (s->flip & 4) ? s->height : s->width;
    d->height = (s->flip & 4) ? s->width : s->height;
    d->developed = 1;
    return FC_OK;
}

int fc_raw_decoder_damage(const fc_raw_decoder *d) { return d->data_errors; }

void fc_raw_decoder_size(const fc_raw_decoder *d, uint32_t *width, uint32_t *height) {
    *width = d->width;
    *height = d->height;
}

// Upright row `row`, column `col` to its index in LibRaw's buffer (dcraw's flip_index).
static size_t fc_raw_index(const fc_raw_decoder *d, int row, int col) {
    if (d->flip & 4) { int t = row; row = col; col = t; }
    if (d->flip & 2) row = d->stored_height - 1 - row;
    if (d->flip & 1) col = d->stored_width - 1 - col;
    return (size_t)row * (size_t)d->stored_width + (size_t)col;
}

fc_status fc_raw_decoder_rows(fc_raw_decoder *d, uint16_t *dst, size_t stride, uint32_t first, uint32_t count) {
    if (!d->developed) { fc_raw_say(&d->report, "rows asked for before the image was developed"); return FC_FAILED; }
    if ((uint64_t)first + count > d->height) { fc_raw_say(&d->report, "rows asked for past the last"); return FC_FAILED; }
    ushort (*image)[4] = d->lr->image;
    for (uint32_t r = 0; r < count; r++) {
        uint16_t *out = (uint16_t *)((uint8_t *)dst + (size_t)r * stride);
        int row = (int)(first + r);
        if (d->flip == 0) {
            const ushort (*in)[4] = image + (size_t)row * (size_t)d->stored_width;
            for (uint32_t x = 0; x < d->width; x++) {
                out[3 * x] = in[x][0]; out[3 * x + 1] = in[x][1]; out[3 * x + 2] = in[x][2];
            }
        } else {
            size_t at = fc_raw_index(d, row, 0);
            ptrdiff_t step = (ptrdiff_t)fc_raw_index(d, row, 1) - (ptrdiff_t)at;
            for (uint32_t x = 0; x < d->width; x++, at += step) {
                out[3 * x] = image[at][0]; out[3 * x + 1] = image[at][1]; out[3 * x + 2] = image[at][2];
            }
        }
    }
    return FC_OK;
}

fc_status fc_raw_decoder_thumbnail(fc_raw_decoder *d, const uint8_t **bytes, size_t *length) {
    *bytes = NULL;
    *length = 0;
    libraw_data_t *lr = d->lr;
    if (!lr->thumbnail.thumb) {
        d->data_errors = 0;
        int code = fc_libraw.libraw_unpack_thumb(lr);
        if (code != LIBRAW_SUCCESS) return fc_raw_failure(d, code, "read the preview of");
    }
    if (lr->thumbnail.tformat != LIBRAW_THUMBNAIL_JPEG || !lr->thumbnail.thumb || lr->thumbnail.tlength == 0) {
        fc_raw_say(&d->report, "its embedded preview is not a JPEG");
        return FC_UNSUPPORTED;
    }
    *bytes = (const uint8_t *)lr->thumbnail.thumb;
    *length = lr->thumbnail.tlength;
    return FC_OK;
}

const uint8_t *fc_raw_decoder_xmp(const fc_raw_decoder *d, size_t *length) {
    *length = 0;
    if (!d->lr->idata.xmpdata || d->lr->idata.xmplen == 0) return NULL;
    *length = d->lr->idata.xmplen;
    return (const uint8_t *)d->lr->idata.xmpdata;
}
