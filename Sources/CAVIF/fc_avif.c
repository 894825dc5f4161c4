#define _GNU_SOURCE  // RTLD_NEXT
#include "fc_avif.h"
#include "fc_avif_library.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <avif/avif.h>

// dav1d, libavif's AV1 decoder, prints a line on stderr for each bitstream error ("Error
// parsing frame header", "Frame size 128x128 exceeds limit ...") through its default logger,
// and libavif 0.11 never replaces that logger. This definition comes before libdav1d's for
// the dynamic linker (an executable's symbols do, on ELF systems, once exported: Package.swift
// links libdav1d on Linux so that the linker exports it, libavif itself being loaded later,
// see fc_dynamic.h), so libavif's dav1d
// decoders get dav1d's own defaults with the logger off; the error itself still reaches
// libavif, which reports it. Elsewhere (no dav1d header, Mach-O's two-level names) nothing
// changes.
#if defined(__ELF__) && __has_include(<dav1d/dav1d.h>)
#include <dlfcn.h>
#include <dav1d/dav1d.h>
void dav1d_default_settings(Dav1dSettings *s) {
    // libdav1d is loaded (linked) when anything calls this.
    void (*next)(Dav1dSettings *) = (void (*)(Dav1dSettings *))dlsym(RTLD_NEXT, "dav1d_default_settings");
    if (next) {
        next(s);
    } else {
        memset(s, 0, sizeof *s);  // not reached: only for a caller without libdav1d
    }
    s->logger.callback = NULL;
}
#endif

// 0.11 renamed imir's `axis` to `mode` and inverted it; older versions are not read.
#if AVIF_VERSION < 110000
#error "filterchain needs libavif 0.11 or newer"
#endif

// Rows of a monochrome image converted at a time (through an RGB(A) scratch strip).
#define FC_AVIF_GREY_STRIP 64

struct fc_avif_decoder {
    const uint8_t *data;
    size_t size;
    uint64_t max_pixels;
    int threads;
    fc_avif_conversion conversion;
    fc_avif_report report;
    avifDecoder *decoder;   // freed once the image is converted
    fc_avif_info info;
    int opened;
    // The coded image converted (stored size, delivered layout), then read through the
    // transformations.
    uint8_t *pixels;
    size_t pixels_stride;
    uint32_t next_row;
};

static void fc_avif_say(fc_avif_report *r, const char *message) {
    snprintf(r->message, sizeof r->message, "%s", message);
}

// "what: libavif's result: its diagnostics".
static void fc_avif_say_result(fc_avif_report *r, const char *what, avifResult result, const avifDiagnostics *diag) {
    const char *detail = diag && diag->error[0] ? diag->error : NULL;
    if (detail) {
        snprintf(r->message, sizeof r->message, "%s: %s: %s", what, fc_libavif.avifResultToString(result), detail);
    } else {
        snprintf(r->message, sizeof r->message, "%s: %s", what, fc_libavif.avifResultToString(result));
    }
}

static fc_status fc_avif_status_of(avifResult result) {
    switch (result) {
    case AVIF_RESULT_OK: return FC_OK;
    case AVIF_RESULT_OUT_OF_MEMORY: return FC_NO_MEMORY;
    case AVIF_RESULT_NO_CODEC_AVAILABLE:
    case AVIF_RESULT_NOT_IMPLEMENTED:
    case AVIF_RESULT_UNSUPPORTED_DEPTH: return FC_UNSUPPORTED;
    default: return FC_FAILED;
    }
}

fc_avif_decoder *fc_avif_decoder_new(const uint8_t *data, size_t size, uint64_t max_pixels, int threads,
                                     fc_avif_conversion conversion) {
    fc_avif_decoder *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->data = data;
    d->size = size;
    d->max_pixels = max_pixels;
    d->threads = threads < 1 ? 1 : threads;
    d->conversion = conversion;
    return d;
}

void fc_avif_decoder_free(fc_avif_decoder *d) {
    if (!d) return;
    if (d->decoder) fc_libavif.avifDecoderDestroy(d->decoder);
    free(d->pixels);
    free(d);
}

const fc_avif_report *fc_avif_decoder_report(const fc_avif_decoder *d) { return &d->report; }

fc_status fc_avif_decoder_open(fc_avif_decoder *d, fc_avif_info *info) {
    if (d->opened) { fc_avif_say(&d->report, "opened twice"); return FC_FAILED; }
    d->opened = 1;
    d->decoder = fc_libavif.avifDecoderCreate();
    if (!d->decoder) return FC_NO_MEMORY;
    avifDecoder *dec = d->decoder;
    dec->maxThreads = d->threads;
    // As libheif and browsers: a missing pixi, an alpha item without ispe and a clap whose
    // offsets do not fall on the chroma grid are read (the crop is made on RGB here).
    dec->strictFlags = AVIF_STRICT_DISABLED;
    // The container is parsed with libavif's own limits (16384 x 16384 pixels, 32768 on a
    // side: it refuses more), so that the caller can refuse an image over its own, smaller
    // limit by name; the AV1 decoder gets the smaller limit before decoding.
    dec->imageSizeLimit = AVIF_DEFAULT_IMAGE_SIZE_LIMIT;
    dec->imageDimensionLimit = AVIF_DEFAULT_IMAGE_DIMENSION_LIMIT;
    avifResult r = fc_libavif.avifDecoderSetIOMemory(dec, d->data, d->size);
    if (r != AVIF_RESULT_OK) { fc_avif_say_result(&d->report, "reading", r, &dec->diag); return fc_avif_status_of(r); }
    r = fc_libavif.avifDecoderParse(dec);
    if (r != AVIF_RESULT_OK) {
        if (strstr(dec->diag.error, "too large")) {
            // libavif's limits, named as such (the file may well be valid).
            snprintf(d->report.message, sizeof d->report.message,
                     "over libavif's limit of %u pixels (16384 x 16384) or %u on a side: %s",
                     (unsigned)AVIF_DEFAULT_IMAGE_SIZE_LIMIT, (unsigned)AVIF_DEFAULT_IMAGE_DIMENSION_LIMIT, dec->diag.error);
            return FC_UNSUPPORTED;
        }
        fc_avif_say_result(&d->report, "the container", r, &dec->diag);
        return r == AVIF_RESULT_OUT_OF_MEMORY ? FC_NO_MEMORY : FC_FAILED;
    }
    const avifImage *im = dec->image;
    fc_avif_info *in = &d->info;
    if (im->width == 0 || im->height == 0) { fc_avif_say(&d->report, "the image has no size"); return FC_FAILED; }
    if (im->depth != 8 && im->depth != 10 && im->depth != 12) {
        snprintf(d->report.message, sizeof d->report.message, "%u bits per sample (AVIF has 8, 10 or 12)", im->depth);
        return FC_FAILED;
    }
    int grey;
    switch (im->yuvFormat) {
    case AVIF_PIXEL_FORMAT_YUV444: in->yuv_format = 444; grey = 0; break;
    case AVIF_PIXEL_FORMAT_YUV422: in->yuv_format = 422; grey = 0; break;
    case AVIF_PIXEL_FORMAT_YUV420: in->yuv_format = 420; grey = 0; break;
    case AVIF_PIXEL_FORMAT_YUV400: in->yuv_format = 400; grey = 1; break;
    default: fc_avif_say(&d->report, "the image has no colour planes"); return FC_FAILED;
    }
    in->stored_width = im->width;
    in->stored_height = im->height;
    in->depth = (int)im->depth;
    in->sample_bytes = im->depth > 8 ? 2 : 1;
    in->channels = (grey ? 1 : 3) + (dec->alphaPresent ? 1 : 0);
    in->image_count = dec->imageCount;
    in->premultiplied = im->alphaPremultiplied ? 1 : 0;
    in->colour_primaries = im->colorPrimaries;
    in->transfer_characteristics = im->transferCharacteristics;
    in->matrix_coefficients = im->matrixCoefficients;
    in->full_range = im->yuvRange == AVIF_RANGE_FULL;
    // From the colr nclx box, else from the AV1 sequence header (which libavif reads while
    // parsing). Unspecified primaries and transfer describe no colour (the matrix alone is how
    // YUV was made, not a colour description).
    in->has_nclx = !(im->colorPrimaries == AVIF_COLOR_PRIMARIES_UNSPECIFIED
                     && im->transferCharacteristics == AVIF_TRANSFER_CHARACTERISTICS_UNSPECIFIED);
    in->rotation = (im->transformFlags & AVIF_TRANSFORM_IROT) ? (im->irot.angle & 3) : -1;
    in->mirror = (im->transformFlags & AVIF_TRANSFORM_IMIR) ? (im->imir.mode & 1) : -1;
    in->crop_x = 0;
    in->crop_y = 0;
    in->crop_width = im->width;
    in->crop_height = im->height;
    if (im->transformFlags & AVIF_TRANSFORM_CLAP) {
        in->has_clap = 1;
        avifCropRect rect;
        avifDiagnostics diag;
        fc_libavif.avifDiagnosticsClearError(&diag);
        // The crop is made on the converted RGB, so the chroma grid does not constrain it (4:4:4).
        if (fc_libavif.avifCropRectConvertCleanApertureBox(&rect, &im->clap, im->width, im->height, AVIF_PIXEL_FORMAT_YUV444, &diag)
            && rect.width > 0 && rect.height > 0 && rect.x < im->width && rect.y < im->height
            && rect.width <= im->width - rect.x && rect.height <= im->height - rect.y) {
            in->crop_x = rect.x;
            in->crop_y = rect.y;
            in->crop_width = rect.width;
            in->crop_height = rect.height;
        } else {
            in->clap_invalid = 1;
        }
    }
    int turned = in->rotation == 1 || in->rotation == 3;
    in->width = turned ? in->crop_height : in->crop_width;
    in->height = turned ? in->crop_width : in->crop_height;
    *info = d->info;
    return FC_OK;
}

const uint8_t *fc_avif_decoder_metadata(const fc_avif_decoder *d, fc_avif_metadata kind, size_t *length) {
    if (!d->decoder || !d->decoder->image) return NULL;
    const avifRWData *data = kind == FC_AVIF_ICC ? &d->decoder->image->icc
                           : kind == FC_AVIF_EXIF ? &d->decoder->image->exif : &d->decoder->image->xmp;
    if (!data->data || data->size == 0) return NULL;
    *length = data->size;
    return data->data;
}

static void fc_avif_set_conversion(avifRGBImage *rgb, fc_avif_conversion conversion) {
    if (conversion == FC_AVIF_CONVERSION_REFERENCE) {
        rgb->chromaUpsampling = AVIF_CHROMA_UPSAMPLING_NEAREST;
        rgb->avoidLibYUV = AVIF_TRUE;
    } else {
        rgb->chromaUpsampling = AVIF_CHROMA_UPSAMPLING_BEST_QUALITY;
        rgb->avoidLibYUV = AVIF_FALSE;
    }
}

// A monochrome image through an RGB(A) strip: libavif converts (range, depth, alpha), the
// first channel is the grey.
static fc_status fc_avif_convert_grey(fc_avif_decoder *d, const avifImage *im) {
    const fc_avif_info *in = &d->info;
    int alpha = in->channels == 2;
    size_t rgb_channels = alpha ? 4 : 3;
    size_t sb = (size_t)in->sample_bytes;
    size_t scratch_row = (size_t)im->width * rgb_channels * sb;
    uint8_t *scratch = malloc(scratch_row * FC_AVIF_GREY_STRIP);
    avifImage *view = fc_libavif.avifImageCreateEmpty();
    if (!scratch || !view) {
        free(scratch);
        if (view) fc_libavif.avifImageDestroy(view);
        return FC_NO_MEMORY;
    }
    fc_status status = FC_OK;
    for (uint32_t y0 = 0; y0 < im->height && status == FC_OK; y0 += FC_AVIF_GREY_STRIP) {
        uint32_t n = im->height - y0 < FC_AVIF_GREY_STRIP ? im->height - y0 : FC_AVIF_GREY_STRIP;
        avifCropRect rect = { 0, y0, im->width, n };
        avifResult r = fc_libavif.avifImageSetViewRect(view, im, &rect);
        avifRGBImage rgb;
        if (r == AVIF_RESULT_OK) {
            fc_libavif.avifRGBImageSetDefaults(&rgb, view);
            rgb.depth = sb == 2 ? 16 : 8;
            rgb.format = alpha ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB;
            fc_avif_set_conversion(&rgb, d->conversion);
            rgb.alphaPremultiplied = AVIF_FALSE;
            rgb.pixels = scratch;
            rgb.rowBytes = (uint32_t)scratch_row;
            r = fc_libavif.avifImageYUVToRGB(view, &rgb);
        }
        if (r != AVIF_RESULT_OK) {
            fc_avif_say_result(&d->report, "converting to grey", r, NULL);
            status = fc_avif_status_of(r);
            break;
        }
        for (uint32_t y = 0; y < n; y++) {
            const uint8_t *src = scratch + (size_t)y * scratch_row;
            uint8_t *dst = d->pixels + (size_t)(y0 + y) * d->pixels_stride;
            for (uint32_t x = 0; x < im->width; x++) {
                memcpy(dst, src, sb);
                if (alpha) memcpy(dst + sb, src + 3 * sb, sb);
                dst += (alpha ? 2 : 1) * sb;
                src += rgb_channels * sb;
            }
        }
    }
    fc_libavif.avifImageDestroy(view);
    free(scratch);
    return status;
}

// The decoded image (or frame) converted into `pixels` (allocated at the first), in the
// delivered layout, as stored (before the transformations).
static fc_status fc_avif_convert(fc_avif_decoder *d, const avifImage *im) {
    const fc_avif_info *in = &d->info;
    size_t bpp = (size_t)in->channels * (size_t)in->sample_bytes;
    size_t row = (size_t)im->width * bpp;
    if (!d->pixels) {
        if (row / bpp != im->width || row > UINT32_MAX || (im->height && row > SIZE_MAX / im->height)) {
            fc_avif_say(&d->report, "the image is too large to hold in memory");
            return FC_NO_MEMORY;
        }
        d->pixels_stride = row;
        d->pixels = malloc(row * im->height);
        if (!d->pixels) return FC_NO_MEMORY;
    }
    if (in->yuv_format == 400) return fc_avif_convert_grey(d, im);
    avifRGBImage rgb;
    fc_libavif.avifRGBImageSetDefaults(&rgb, im);
    rgb.depth = in->sample_bytes == 2 ? 16 : 8;
    rgb.format = in->channels == 4 ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB;
    fc_avif_set_conversion(&rgb, d->conversion);
    // A premultiplied image is unpremultiplied by the conversion.
    rgb.alphaPremultiplied = AVIF_FALSE;
    rgb.pixels = d->pixels;
    rgb.rowBytes = (uint32_t)row;
    avifResult r = fc_libavif.avifImageYUVToRGB(im, &rgb);
    if (r != AVIF_RESULT_OK) fc_avif_say_result(&d->report, "converting to RGB", r, NULL);
    return fc_avif_status_of(r);
}

// Decodes the image (or the first frame) and converts it once; then frees libavif.
static fc_status fc_avif_decode(fc_avif_decoder *d) {
    avifDecoder *dec = d->decoder;
    fc_avif_info *in = &d->info;
    // The AV1 decoder refuses frames over the limit (a coded size larger than the container says).
    if (d->max_pixels > 0 && d->max_pixels < dec->imageSizeLimit) dec->imageSizeLimit = (uint32_t)d->max_pixels;
    avifResult r = fc_libavif.avifDecoderNextImage(dec);
    if (r != AVIF_RESULT_OK) {
        fc_avif_say_result(&d->report, "decoding", r, &dec->diag);
        return r == AVIF_RESULT_OUT_OF_MEMORY ? FC_NO_MEMORY : FC_FAILED;
    }
    const avifImage *im = dec->image;
    if (im->width != in->stored_width || im->height != in->stored_height) {
        snprintf(d->report.message, sizeof d->report.message, "the coded image is %u x %u, the container says %u x %u",
                 im->width, im->height, in->stored_width, in->stored_height);
        return FC_FAILED;
    }
    if ((int)im->depth != in->depth || (im->yuvFormat == AVIF_PIXEL_FORMAT_YUV400) != (in->yuv_format == 400)) {
        snprintf(d->report.message, sizeof d->report.message, "the coded image's layout (%u bits, %s) is not what the container says",
                 im->depth, fc_libavif.avifPixelFormatToString(im->yuvFormat));
        return FC_FAILED;
    }
    fc_status status = fc_avif_convert(d, im);
    // The planes (and the codec) are no longer needed.
    fc_libavif.avifDecoderDestroy(dec);
    d->decoder = NULL;
    return status;
}

// Where the delivered pixel (x, y) is in the converted image: the mirror undone, then the
// rotation, then the crop (MIAF applies clap, then irot, then imir).
static void fc_avif_source(const fc_avif_info *in, uint32_t x, uint32_t y, uint32_t *sx, uint32_t *sy) {
    if (in->mirror == 0) y = in->height - 1 - y;       // top and bottom exchanged
    else if (in->mirror == 1) x = in->width - 1 - x;   // left and right exchanged
    uint32_t cw = in->crop_width, ch = in->crop_height, cx, cy;
    switch (in->rotation) {
    case 1: cx = cw - 1 - y; cy = x; break;           // 90 degrees counter-clockwise
    case 2: cx = cw - 1 - x; cy = ch - 1 - y; break;
    case 3: cx = y; cy = ch - 1 - x; break;           // 270 counter-clockwise
    default: cx = x; cy = y; break;
    }
    *sx = cx + in->crop_x;
    *sy = cy + in->crop_y;
}

fc_status fc_avif_decoder_read(fc_avif_decoder *d, uint8_t *dst, size_t stride, uint32_t rows) {
    if (!d->opened || (!d->decoder && !d->pixels)) { fc_avif_say(&d->report, "not opened"); return FC_FAILED; }
    if (rows == 0) return FC_OK;
    const fc_avif_info *in = &d->info;
    if (rows > in->height || d->next_row > in->height - rows) { fc_avif_say(&d->report, "reading past the last row"); return FC_FAILED; }
    if (!d->pixels) {
        fc_status s = fc_avif_decode(d);
        if (s != FC_OK) return s;
    }
    size_t bpp = (size_t)in->channels * (size_t)in->sample_bytes;
    for (uint32_t r = 0; r < rows; r++) {
        uint32_t y = d->next_row + r, sx0, sy0, sx1, sy1;
        fc_avif_source(in, 0, y, &sx0, &sy0);
        const uint8_t *src = d->pixels + (size_t)sy0 * d->pixels_stride + (size_t)sx0 * bpp;
        uint8_t *out = dst + (size_t)r * stride;
        if (in->width == 1) { memcpy(out, src, bpp); continue; }
        fc_avif_source(in, 1, y, &sx1, &sy1);
        ptrdiff_t step = ((ptrdiff_t)sy1 - (ptrdiff_t)sy0) * (ptrdiff_t)d->pixels_stride
                       + ((ptrdiff_t)sx1 - (ptrdiff_t)sx0) * (ptrdiff_t)bpp;
        if (step == (ptrdiff_t)bpp) {
            memcpy(out, src, (size_t)in->width * bpp);
        } else {
            for (uint32_t x = 0; x < in->width; x++, src += step, out += bpp) memcpy(out, src, bpp);
        }
    }
    d->next_row += rows;
    return FC_OK;
}

// Grey straight into the luma plane (full range: Y' = R = G = B for every matrix but the
// identity), and alpha into its own; 16-bit samples become 10-bit as the RGB path does.
static avifResult fc_avif_fill_grey(avifImage *im, const fc_avif_encode_options *o, const uint8_t *pixels, size_t stride) {
    int alpha = o->channels == 2;
    avifResult r = fc_libavif.avifImageAllocatePlanes(im, alpha ? AVIF_PLANES_ALL : AVIF_PLANES_YUV);
    if (r != AVIF_RESULT_OK) return r;
    uint32_t max = (1u << im->depth) - 1;
    for (uint32_t y = 0; y < o->height; y++) {
        const uint8_t *src = pixels + (size_t)y * stride;
        uint8_t *luma = im->yuvPlanes[AVIF_CHAN_Y] + (size_t)y * im->yuvRowBytes[AVIF_CHAN_Y];
        uint8_t *a = alpha ? im->alphaPlane + (size_t)y * im->alphaRowBytes : NULL;
        for (uint32_t x = 0; x < o->width; x++) {
            for (int c = 0; c < (alpha ? 2 : 1); c++) {
                uint8_t *plane = c == 0 ? luma : a;
                if (o->sample_bytes == 1 && im->depth == 8) {
                    plane[x] = src[(size_t)x * o->channels + c];
                } else {
                    uint32_t v = o->sample_bytes == 1 ? src[(size_t)x * o->channels + c] * 257u
                                                      : ((const uint16_t *)src)[(size_t)x * o->channels + c];
                    uint32_t scaled = (uint32_t)(((uint64_t)v * max + 32767) / 65535);
                    if (im->depth == 8) plane[x] = (uint8_t)scaled;
                    else ((uint16_t *)plane)[x] = (uint16_t)scaled;
                }
            }
        }
    }
    return AVIF_RESULT_OK;
}

static fc_status fc_avif_write(FILE *file, const uint8_t *bytes, size_t size) {
    if (fwrite(bytes, 1, size, file) != size || fflush(file) != 0) return FC_WRITE_FAILED;
    return FC_OK;
}

// The avifImage of `pixels`, converted to YUV as `o` says, with `o`'s metadata.
static avifImage *fc_avif_image(const fc_avif_encode_options *o, const uint8_t *pixels, size_t stride, fc_avif_report *report,
                                fc_status *status) {
    int grey = o->channels <= 2, alpha = o->channels == 2 || o->channels == 4;
    avifPixelFormat format = grey ? AVIF_PIXEL_FORMAT_YUV400
                           : o->yuv_format == 420 ? AVIF_PIXEL_FORMAT_YUV420 : AVIF_PIXEL_FORMAT_YUV444;
    avifImage *im = fc_libavif.avifImageCreate(o->width, o->height, (uint32_t)o->depth, format);
    if (!im) { *status = FC_NO_MEMORY; return NULL; }
    im->yuvRange = AVIF_RANGE_FULL;
    im->colorPrimaries = o->colour_primaries;
    im->transferCharacteristics = o->transfer_characteristics;
    im->matrixCoefficients = o->matrix_coefficients;
    if (o->metadata.icc) fc_libavif.avifImageSetProfileICC(im, o->metadata.icc, o->metadata.icc_length);
    // libavif also turns an EXIF Orientation other than 1 into irot/imir, as AVIF readers
    // ignore EXIF's.
    if (o->metadata.exif) fc_libavif.avifImageSetMetadataExif(im, o->metadata.exif, o->metadata.exif_length);
    if (o->metadata.xmp) fc_libavif.avifImageSetMetadataXMP(im, o->metadata.xmp, o->metadata.xmp_length);
    avifResult r;
    if (grey) {
        r = fc_avif_fill_grey(im, o, pixels, stride);
    } else {
        avifRGBImage rgb;
        fc_libavif.avifRGBImageSetDefaults(&rgb, im);
        rgb.depth = o->sample_bytes == 2 ? 16 : 8;
        rgb.format = alpha ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB;
        rgb.alphaPremultiplied = AVIF_FALSE;
        rgb.pixels = (uint8_t *)pixels;
        rgb.rowBytes = (uint32_t)stride;
        r = fc_libavif.avifImageRGBToYUV(im, &rgb);
    }
    if (r != AVIF_RESULT_OK) {
        fc_avif_say_result(report, "converting to YUV", r, NULL);
        fc_libavif.avifImageDestroy(im);
        *status = fc_avif_status_of(r);
        return NULL;
    }
    *status = FC_OK;
    return im;
}

// The settings' checks and the encoder they make (libaom when there).
static avifEncoder *fc_avif_encoder(const fc_avif_encode_options *o, fc_avif_report *report, fc_status *status) {
    if (o->channels < 1 || o->channels > 4 || (o->sample_bytes != 1 && o->sample_bytes != 2)
        || (o->depth != 8 && o->depth != 10) || o->width == 0 || o->height == 0) {
        fc_avif_say(report, "invalid encoder settings");
        *status = FC_FAILED;
        return NULL;
    }
    const char *codec = fc_libavif.avifCodecName(AVIF_CODEC_CHOICE_AOM, AVIF_CODEC_FLAG_CAN_ENCODE);
    avifCodecChoice choice = codec ? AVIF_CODEC_CHOICE_AOM : AVIF_CODEC_CHOICE_AUTO;
    if (!codec && !fc_libavif.avifCodecName(AVIF_CODEC_CHOICE_AUTO, AVIF_CODEC_FLAG_CAN_ENCODE)) {
        fc_avif_say(report, "this libavif was built without an AV1 encoder");
        *status = FC_UNSUPPORTED;
        return NULL;
    }
    avifEncoder *encoder = fc_libavif.avifEncoderCreate();
    if (!encoder) { *status = FC_NO_MEMORY; return NULL; }
    encoder->codecChoice = choice;
    encoder->maxThreads = o->threads < 1 ? 1 : o->threads;
    encoder->speed = o->speed < AVIF_SPEED_SLOWEST ? AVIF_SPEED_SLOWEST : o->speed > AVIF_SPEED_FASTEST ? AVIF_SPEED_FASTEST : o->speed;
    // Quantizer 0 makes libaom lossless (of the YUV planes: exact RGB with the identity matrix).
    encoder->minQuantizer = encoder->maxQuantizer = o->quantizer;
    encoder->minQuantizerAlpha = encoder->maxQuantizerAlpha = o->alpha_quantizer;
    *status = FC_OK;
    return encoder;
}

fc_status fc_avif_encode(const fc_avif_encode_options *o, const uint8_t *pixels, size_t stride,
                         FILE *file, fc_avif_report *report) {
    if (stride > UINT32_MAX) { fc_avif_say(report, "invalid encoder settings"); return FC_FAILED; }
    fc_status status;
    avifEncoder *encoder = fc_avif_encoder(o, report, &status);
    if (!encoder) return status;
    avifImage *im = fc_avif_image(o, pixels, stride, report, &status);
    if (!im) { fc_libavif.avifEncoderDestroy(encoder); return status; }
    avifRWData output = AVIF_DATA_EMPTY;
    avifResult r = fc_libavif.avifEncoderWrite(encoder, im, &output);
    if (r != AVIF_RESULT_OK) {
        fc_avif_say_result(report, "encoding", r, &encoder->diag);
        fc_libavif.avifRWDataFree(&output);
        fc_libavif.avifEncoderDestroy(encoder);
        fc_libavif.avifImageDestroy(im);
        return fc_avif_status_of(r);
    }
    fc_libavif.avifEncoderDestroy(encoder);
    fc_libavif.avifImageDestroy(im);
    fc_status s = fc_avif_write(file, output.data, output.size);
    fc_libavif.avifRWDataFree(&output);
    return s;
}

// ---------------------------------------------------------------------------------------
// Sequences

int fc_avif_decoder_duration(const fc_avif_decoder *d, int index) {
    if (!d->decoder || index < 0 || index >= d->info.image_count) return 0;
    avifImageTiming timing;
    if (fc_libavif.avifDecoderNthImageTiming(d->decoder, (uint32_t)index, &timing) != AVIF_RESULT_OK) return 0;
    double ms = timing.duration * 1000.0;
    return ms <= 0 ? 0 : ms > 655350 ? 655350 : (int)(ms + 0.5);
}

fc_status fc_avif_decoder_next_frame(fc_avif_decoder *d, uint8_t *dst, size_t stride) {
    if (!d->opened || !d->decoder) { fc_avif_say(&d->report, "not opened, or no frame left"); return FC_FAILED; }
    avifDecoder *dec = d->decoder;
    fc_avif_info *in = &d->info;
    if (d->max_pixels > 0 && d->max_pixels < dec->imageSizeLimit) dec->imageSizeLimit = (uint32_t)d->max_pixels;
    avifResult r = fc_libavif.avifDecoderNextImage(dec);
    if (r != AVIF_RESULT_OK) {
        fc_avif_say_result(&d->report, "decoding a frame", r, &dec->diag);
        return r == AVIF_RESULT_OUT_OF_MEMORY ? FC_NO_MEMORY : FC_FAILED;
    }
    const avifImage *im = dec->image;
    if (im->width != in->stored_width || im->height != in->stored_height || (int)im->depth != in->depth
        || (im->yuvFormat == AVIF_PIXEL_FORMAT_YUV400) != (in->yuv_format == 400)) {
        fc_avif_say(&d->report, "a frame's size or layout is not the sequence's");
        return FC_FAILED;
    }
    fc_status status = fc_avif_convert(d, im);
    size_t bpp = (size_t)in->channels * (size_t)in->sample_bytes;
    if (status != FC_OK) return status;
    // Every row, through the transformations.
    d->next_row = 0;
    for (uint32_t y = 0; y < in->height; y++) {
        for (uint32_t x = 0; x < in->width; x++) {
            uint32_t sx, sy;
            fc_avif_source(in, x, y, &sx, &sy);
            memcpy(dst + (size_t)y * stride + (size_t)x * bpp, d->pixels + (size_t)sy * d->pixels_stride + (size_t)sx * bpp, bpp);
        }
    }
    return FC_OK;
}

struct fc_avif_sequence {
    fc_avif_encode_options options;
    fc_avif_report report;
    avifEncoder *encoder;
    int frames;
};

fc_avif_sequence *fc_avif_sequence_new(const fc_avif_encode_options *o, fc_avif_report *report) {
    fc_status status;
    avifEncoder *encoder = fc_avif_encoder(o, report, &status);
    if (!encoder) return NULL;
    fc_avif_sequence *s = calloc(1, sizeof *s);
    if (!s) { fc_libavif.avifEncoderDestroy(encoder); return NULL; }
    s->options = *o;
    s->options.metadata = (fc_metadata){ 0 };
    s->encoder = encoder;
    encoder->timescale = 1000;
    return s;
}

void fc_avif_sequence_free(fc_avif_sequence *s) {
    if (!s) return;
    if (s->encoder) fc_libavif.avifEncoderDestroy(s->encoder);
    free(s);
}

const fc_avif_report *fc_avif_sequence_report(const fc_avif_sequence *s) { return &s->report; }

void fc_avif_sequence_set_metadata(fc_avif_sequence *s, fc_metadata metadata) { s->options.metadata = metadata; }

fc_status fc_avif_sequence_add(fc_avif_sequence *s, const uint8_t *pixels, size_t stride, int duration) {
    if (stride > UINT32_MAX) { fc_avif_say(&s->report, "invalid frame"); return FC_FAILED; }
    fc_avif_encode_options o = s->options;
    // The metadata goes with the first frame (libavif takes the sequence's from it); the
    // pointers are the caller's, valid during this call only.
    s->options.metadata = (fc_metadata){ 0 };
    if (s->frames > 0) o.metadata = (fc_metadata){ 0 };
    fc_status status;
    avifImage *im = fc_avif_image(&o, pixels, stride, &s->report, &status);
    if (!im) return status;
    avifResult r = fc_libavif.avifEncoderAddImage(s->encoder, im, (uint64_t)(duration < 1 ? 1 : duration), AVIF_ADD_IMAGE_FLAG_NONE);
    fc_libavif.avifImageDestroy(im);
    if (r != AVIF_RESULT_OK) {
        fc_avif_say_result(&s->report, "encoding a frame", r, &s->encoder->diag);
        return fc_avif_status_of(r);
    }
    s->frames++;
    return FC_OK;
}

fc_status fc_avif_sequence_finish(fc_avif_sequence *s, FILE *file) {
    avifRWData output = AVIF_DATA_EMPTY;
    avifResult r = fc_libavif.avifEncoderFinish(s->encoder, &output);
    if (r != AVIF_RESULT_OK) {
        fc_avif_say_result(&s->report, "ending the sequence", r, &s->encoder->diag);
        fc_libavif.avifRWDataFree(&output);
        return fc_avif_status_of(r);
    }
    fc_status status = fc_avif_write(file, output.data, output.size);
    fc_libavif.avifRWDataFree(&output);
    return status;
}
