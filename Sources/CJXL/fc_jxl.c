#include "fc_jxl.h"
#include "fc_jxl_library.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void fc_jxl_say(fc_jxl_report *r, const char *message) {
    snprintf(r->message, sizeof r->message, "%s", message);
}

// ---------------------------------------------------------------------------------------
// Reading

struct fc_jxl_decoder {
    const uint8_t *data;
    size_t size;
    int threads;
    fc_jxl_report report;
    JxlDecoder *dec;
    void *runner;
    JxlBasicInfo basic;
    fc_jxl_info info;
    JxlPixelFormat format;
    uint8_t *icc, *exif, *xmp;
    size_t icc_length, exif_length, xmp_length;
    // The box being read (its buffer grows as libjxl asks), and which it is: 1 Exif, 2 XMP.
    uint8_t *box;
    size_t box_capacity;
    int box_kind;
    int done;
    uint32_t ticks_numerator, ticks_denominator;
};

fc_jxl_decoder *fc_jxl_decoder_new(const uint8_t *data, size_t size, int threads) {
    fc_jxl_decoder *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->data = data;
    d->size = size;
    d->threads = threads < 1 ? 1 : threads;
    return d;
}

void fc_jxl_decoder_free(fc_jxl_decoder *d) {
    if (!d) return;
    if (d->dec) fc_libjxl.JxlDecoderDestroy(d->dec);
    if (d->runner) fc_libjxl_threads.JxlThreadParallelRunnerDestroy(d->runner);
    free(d->icc);
    free(d->exif);
    free(d->xmp);
    free(d->box);
    free(d);
}

const fc_jxl_report *fc_jxl_decoder_report(const fc_jxl_decoder *d) { return &d->report; }

// Ends the box being read: keeps an Exif (its 4-byte offset skipped) or XMP box.
static fc_status fc_jxl_end_box(fc_jxl_decoder *d) {
    if (!d->box_kind) return FC_OK;
    size_t left = fc_libjxl.JxlDecoderReleaseBoxBuffer(d->dec);
    size_t length = d->box_capacity - left;
    if (d->box_kind == 1 && !d->exif && length > 4) {
        uint32_t offset = (uint32_t)d->box[0] << 24 | (uint32_t)d->box[1] << 16 | (uint32_t)d->box[2] << 8 | d->box[3];
        if (offset < length - 4) {
            d->exif_length = length - 4 - offset;
            d->exif = malloc(d->exif_length);
            if (!d->exif) return FC_NO_MEMORY;
            memcpy(d->exif, d->box + 4 + offset, d->exif_length);
        }
    } else if (d->box_kind == 2 && !d->xmp && length > 0) {
        d->xmp = malloc(length);
        if (!d->xmp) return FC_NO_MEMORY;
        memcpy(d->xmp, d->box, length);
        d->xmp_length = length;
    }
    d->box_kind = 0;
    return FC_OK;
}

// Answers the box events; returns FC_OK when the event was one of them (or none).
static fc_status fc_jxl_box_event(fc_jxl_decoder *d, JxlDecoderStatus status) {
    if (status == JXL_DEC_BOX) {
        fc_status s = fc_jxl_end_box(d);
        if (s != FC_OK) return s;
        JxlBoxType type;
        if (fc_libjxl.JxlDecoderGetBoxType(d->dec, type, JXL_TRUE) != JXL_DEC_SUCCESS) return FC_OK;
        int kind = !memcmp(type, "Exif", 4) ? 1 : !memcmp(type, "xml ", 4) ? 2 : 0;
        if (!kind) return FC_OK;
        if (!d->box) {
            d->box_capacity = 65536;
            d->box = malloc(d->box_capacity);
            if (!d->box) return FC_NO_MEMORY;
        }
        d->box_kind = kind;
        fc_libjxl.JxlDecoderSetBoxBuffer(d->dec, d->box, d->box_capacity);
    } else if (status == JXL_DEC_BOX_NEED_MORE_OUTPUT) {
        size_t left = fc_libjxl.JxlDecoderReleaseBoxBuffer(d->dec);
        size_t used = d->box_capacity - left;
        if (d->box_capacity > ((size_t)64 << 20)) { fc_jxl_say(&d->report, "a metadata box over 64 MiB"); return FC_LIMIT; }
        uint8_t *grown = realloc(d->box, d->box_capacity * 2);
        if (!grown) return FC_NO_MEMORY;
        d->box = grown;
        d->box_capacity *= 2;
        fc_libjxl.JxlDecoderSetBoxBuffer(d->dec, d->box + used, d->box_capacity - used);
        // The used part stays: the buffer's start is d->box; capacity counts from there.
    }
    return FC_OK;
}

fc_status fc_jxl_decoder_open(fc_jxl_decoder *d, fc_jxl_info *info, uint64_t max_pixels) {
    const char *why = fc_jxl_library_error();
    if (why) { fc_jxl_say(&d->report, why); return FC_UNSUPPORTED; }
    d->dec = fc_libjxl.JxlDecoderCreate(NULL);
    if (!d->dec) return FC_NO_MEMORY;
    if (d->threads > 1) {
        d->runner = fc_libjxl_threads.JxlThreadParallelRunnerCreate(NULL, (size_t)d->threads);
        if (d->runner) fc_libjxl.JxlDecoderSetParallelRunner(d->dec, fc_libjxl_threads.JxlThreadParallelRunner, d->runner);
    }
    if (fc_libjxl.JxlDecoderSubscribeEvents(d->dec, JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING | JXL_DEC_FRAME
                                                    | JXL_DEC_FULL_IMAGE | JXL_DEC_BOX) != JXL_DEC_SUCCESS) {
        fc_jxl_say(&d->report, "libjxl refused the decoder's settings");
        return FC_FAILED;
    }
    fc_libjxl.JxlDecoderSetDecompressBoxes(d->dec, JXL_TRUE);
    fc_libjxl.JxlDecoderSetInput(d->dec, d->data, d->size);
    fc_libjxl.JxlDecoderCloseInput(d->dec);
    for (;;) {
        JxlDecoderStatus status = fc_libjxl.JxlDecoderProcessInput(d->dec);
        if (status == JXL_DEC_ERROR) { fc_jxl_say(&d->report, "the codestream is damaged (libjxl: decoding error)"); return FC_FAILED; }
        if (status == JXL_DEC_NEED_MORE_INPUT) { fc_jxl_say(&d->report, "the file ends early (truncated)"); return FC_FAILED; }
        if (status == JXL_DEC_SUCCESS) { fc_jxl_say(&d->report, "the file holds no frame"); return FC_FAILED; }
        if (status == JXL_DEC_BOX || status == JXL_DEC_BOX_NEED_MORE_OUTPUT) {
            fc_status s = fc_jxl_box_event(d, status);
            if (s != FC_OK) return s;
            continue;
        }
        if (status == JXL_DEC_BASIC_INFO) {
            if (fc_libjxl.JxlDecoderGetBasicInfo(d->dec, &d->basic) != JXL_DEC_SUCCESS) {
                fc_jxl_say(&d->report, "the basic information cannot be read");
                return FC_FAILED;
            }
            const JxlBasicInfo *b = &d->basic;
            int turned = b->orientation >= 5;
            d->info.width = turned ? b->ysize : b->xsize;
            d->info.height = turned ? b->xsize : b->ysize;
            if (d->info.width == 0 || d->info.height == 0) { fc_jxl_say(&d->report, "the image has no size"); return FC_FAILED; }
            if (max_pixels > 0 && (uint64_t)b->xsize * b->ysize > max_pixels) return FC_LIMIT;
            int alpha = b->alpha_bits > 0;
            d->info.channels = (b->num_color_channels == 1 ? 1 : 3) + (alpha ? 1 : 0);
            d->info.stored_bits = (int)b->bits_per_sample;
            d->info.float_samples = b->exponent_bits_per_sample > 0;
            d->info.depth = d->info.float_samples ? 32 : b->bits_per_sample <= 8 ? 8 : 16;
            d->info.animated = b->have_animation ? 1 : 0;
            d->info.loop_count = b->have_animation ? (int)b->animation.num_loops : 0;
            d->ticks_numerator = b->animation.tps_numerator;
            d->ticks_denominator = b->animation.tps_denominator;
            d->format = (JxlPixelFormat){ (uint32_t)d->info.channels,
                                          d->info.depth == 32 ? JXL_TYPE_FLOAT : d->info.depth == 8 ? JXL_TYPE_UINT8 : JXL_TYPE_UINT16,
                                          JXL_NATIVE_ENDIAN, 0 };
            continue;
        }
        if (status == JXL_DEC_COLOR_ENCODING) {
            size_t size = 0;
            if (fc_libjxl.JxlDecoderGetICCProfileSize(d->dec, &d->format, JXL_COLOR_PROFILE_TARGET_DATA, &size) == JXL_DEC_SUCCESS
                && size > 0) {
                d->icc = malloc(size);
                if (!d->icc) return FC_NO_MEMORY;
                if (fc_libjxl.JxlDecoderGetColorAsICCProfile(d->dec, &d->format, JXL_COLOR_PROFILE_TARGET_DATA, d->icc, size)
                    != JXL_DEC_SUCCESS) {
                    free(d->icc);
                    d->icc = NULL;
                } else {
                    d->icc_length = size;
                }
            }
            d->info.has_icc = d->icc != NULL;
            continue;
        }
        if (status == JXL_DEC_FRAME) {  // the first frame's header: open is done
            fc_status s = fc_jxl_end_box(d);
            if (s != FC_OK) return s;
            break;
        }
        // Anything else before the first frame is unexpected.
        fc_jxl_say(&d->report, "libjxl reported an unexpected event");
        return FC_FAILED;
    }
    *info = d->info;
    return FC_OK;
}

const uint8_t *fc_jxl_decoder_icc(const fc_jxl_decoder *d, size_t *length) { *length = d->icc_length; return d->icc; }
const uint8_t *fc_jxl_decoder_exif(const fc_jxl_decoder *d, size_t *length) { *length = d->exif_length; return d->exif; }
const uint8_t *fc_jxl_decoder_xmp(const fc_jxl_decoder *d, size_t *length) { *length = d->xmp_length; return d->xmp; }

static int fc_jxl_milliseconds(uint32_t ticks, uint32_t numerator, uint32_t denominator) {
    if (numerator == 0) return 0;
    double ms = (double)ticks * 1000.0 * (double)denominator / (double)numerator;
    return ms > 655350 ? 655350 : (int)(ms + 0.5);
}

fc_status fc_jxl_decoder_next_frame(fc_jxl_decoder *d, uint8_t *dst, size_t stride, int *duration) {
    if (!d->dec || d->done) { fc_jxl_say(&d->report, "no frame left"); return FC_FAILED; }
    size_t row = (size_t)d->info.width * (size_t)d->info.channels * (size_t)(d->info.depth / 8);
    if (stride != row) { fc_jxl_say(&d->report, "rows must be packed"); return FC_FAILED; }
    // The frame event the last call (or open) stopped at: its header.
    JxlFrameHeader header;
    if (fc_libjxl.JxlDecoderGetFrameHeader(d->dec, &header) == JXL_DEC_SUCCESS && duration) {
        *duration = fc_jxl_milliseconds(header.duration, d->ticks_numerator, d->ticks_denominator);
    }
    for (;;) {
        JxlDecoderStatus status = fc_libjxl.JxlDecoderProcessInput(d->dec);
        if (status == JXL_DEC_ERROR) { fc_jxl_say(&d->report, "the codestream is damaged (libjxl: decoding error)"); return FC_FAILED; }
        if (status == JXL_DEC_NEED_MORE_INPUT) { fc_jxl_say(&d->report, "the file ends inside a frame (truncated)"); return FC_FAILED; }
        if (status == JXL_DEC_BOX || status == JXL_DEC_BOX_NEED_MORE_OUTPUT) {
            fc_status s = fc_jxl_box_event(d, status);
            if (s != FC_OK) return s;
            continue;
        }
        if (status == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
            size_t size = 0;
            if (fc_libjxl.JxlDecoderImageOutBufferSize(d->dec, &d->format, &size) != JXL_DEC_SUCCESS
                || size != row * d->info.height) {
                fc_jxl_say(&d->report, "the frame's size is not the image's");
                return FC_FAILED;
            }
            if (fc_libjxl.JxlDecoderSetImageOutBuffer(d->dec, &d->format, dst, size) != JXL_DEC_SUCCESS) {
                fc_jxl_say(&d->report, "libjxl refused the output buffer");
                return FC_FAILED;
            }
            continue;
        }
        if (status == JXL_DEC_FULL_IMAGE) {
            // On to the next frame's header, or the end, so that the next call knows.
            for (;;) {
                JxlDecoderStatus next = fc_libjxl.JxlDecoderProcessInput(d->dec);
                if (next == JXL_DEC_BOX || next == JXL_DEC_BOX_NEED_MORE_OUTPUT) {
                    fc_status s = fc_jxl_box_event(d, next);
                    if (s != FC_OK) return s;
                    continue;
                }
                if (next == JXL_DEC_FRAME) break;
                if (next == JXL_DEC_SUCCESS || next == JXL_DEC_NEED_MORE_INPUT || next == JXL_DEC_ERROR) { d->done = 1; break; }
            }
            return FC_OK;
        }
        if (status == JXL_DEC_SUCCESS) { d->done = 1; fc_jxl_say(&d->report, "no frame left"); return FC_FAILED; }
    }
}

int fc_jxl_count_frames(const uint8_t *data, size_t size, int *durations, int capacity) {
    if (fc_jxl_library_error()) return -1;
    JxlDecoder *dec = fc_libjxl.JxlDecoderCreate(NULL);
    if (!dec) return -1;
    int count = 0;
    JxlBasicInfo basic;
    memset(&basic, 0, sizeof basic);
    if (fc_libjxl.JxlDecoderSubscribeEvents(dec, JXL_DEC_BASIC_INFO | JXL_DEC_FRAME) == JXL_DEC_SUCCESS) {
        fc_libjxl.JxlDecoderSetInput(dec, data, size);
        fc_libjxl.JxlDecoderCloseInput(dec);
        for (;;) {
            JxlDecoderStatus status = fc_libjxl.JxlDecoderProcessInput(dec);
            if (status == JXL_DEC_BASIC_INFO) { fc_libjxl.JxlDecoderGetBasicInfo(dec, &basic); continue; }
            if (status == JXL_DEC_FRAME) {
                JxlFrameHeader header;
                if (count < capacity && durations && fc_libjxl.JxlDecoderGetFrameHeader(dec, &header) == JXL_DEC_SUCCESS) {
                    durations[count] = fc_jxl_milliseconds(header.duration, basic.animation.tps_numerator,
                                                           basic.animation.tps_denominator);
                }
                count++;
                continue;
            }
            if (status == JXL_DEC_SUCCESS) break;
            count = status == JXL_DEC_NEED_MORE_INPUT && count > 0 ? count : -1;  // a cut file: its whole frames
            break;
        }
    }
    fc_libjxl.JxlDecoderDestroy(dec);
    return count;
}

// ---------------------------------------------------------------------------------------
// Writing

struct fc_jxl_encoder {
    fc_jxl_encode_options options;
    fc_jxl_report report;
    JxlEncoder *enc;
    void *runner;
    JxlEncoderFrameSettings *settings;
    int frames;
};

static fc_status fc_jxl_encode_failure(fc_jxl_encoder *e, const char *what) {
    JxlEncoderError error = fc_libjxl.JxlEncoderGetError(e->enc);
    const char *why = error == JXL_ENC_ERR_OOM ? "out of memory" : error == JXL_ENC_ERR_BAD_INPUT ? "bad input"
                    : error == JXL_ENC_ERR_NOT_SUPPORTED ? "not supported" : error == JXL_ENC_ERR_API_USAGE ? "API usage"
                    : "generic error";
    snprintf(e->report.message, sizeof e->report.message, "%s: libjxl: %s", what, why);
    return error == JXL_ENC_ERR_OOM ? FC_NO_MEMORY : error == JXL_ENC_ERR_NOT_SUPPORTED ? FC_UNSUPPORTED : FC_FAILED;
}

fc_jxl_encoder *fc_jxl_encoder_new(const fc_jxl_encode_options *o, fc_jxl_report *report) {
    const char *why = fc_jxl_library_error();
    if (why) { fc_jxl_say(report, why); return NULL; }
    if (o->channels < 1 || o->channels > 4 || (o->depth != 8 && o->depth != 16 && o->depth != 32) || o->width == 0 || o->height == 0
        || o->effort < 1 || o->effort > 9 || o->distance < 0 || o->distance > 25) {
        fc_jxl_say(report, "invalid encoder settings");
        return NULL;
    }
    fc_jxl_encoder *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->options = *o;
    e->options.metadata = (fc_metadata){ 0 };
    e->enc = fc_libjxl.JxlEncoderCreate(NULL);
    if (!e->enc) { free(e); return NULL; }
    if (o->threads > 1) {
        e->runner = fc_libjxl_threads.JxlThreadParallelRunnerCreate(NULL, (size_t)o->threads);
        if (e->runner) fc_libjxl.JxlEncoderSetParallelRunner(e->enc, fc_libjxl_threads.JxlThreadParallelRunner, e->runner);
    }
    int grey = o->channels <= 2, alpha = o->channels == 2 || o->channels == 4;
    JxlBasicInfo basic;
    fc_libjxl.JxlEncoderInitBasicInfo(&basic);
    basic.xsize = o->width;
    basic.ysize = o->height;
    basic.bits_per_sample = (uint32_t)o->depth;
    // 32: IEEE single-precision samples (8 exponent bits), kept as they are (above 1, below 0).
    basic.exponent_bits_per_sample = o->depth == 32 ? 8 : 0;
    basic.num_color_channels = grey ? 1 : 3;
    basic.num_extra_channels = alpha ? 1 : 0;
    basic.alpha_bits = alpha ? (uint32_t)o->depth : 0;
    basic.alpha_exponent_bits = alpha && o->depth == 32 ? 8 : 0;
    // Lossless keeps the samples as they are (the original profile); lossy works in XYB.
    basic.uses_original_profile = o->lossless ? JXL_TRUE : JXL_FALSE;
    if (o->animated) {
        basic.have_animation = JXL_TRUE;
        basic.animation.tps_numerator = 1000;
        basic.animation.tps_denominator = 1;
        basic.animation.num_loops = (uint32_t)(o->loop_count < 0 ? 0 : o->loop_count);
    }
    int ok = fc_libjxl.JxlEncoderUseBoxes(e->enc) == JXL_ENC_SUCCESS
          && fc_libjxl.JxlEncoderSetBasicInfo(e->enc, &basic) == JXL_ENC_SUCCESS;
    if (ok) {
        if (o->metadata.icc && o->metadata.icc_length) {
            ok = fc_libjxl.JxlEncoderSetICCProfile(e->enc, o->metadata.icc, o->metadata.icc_length) == JXL_ENC_SUCCESS;
        } else {
            JxlColorEncoding colour;
            fc_libjxl.JxlColorEncodingSetToSRGB(&colour, grey ? JXL_TRUE : JXL_FALSE);
            ok = fc_libjxl.JxlEncoderSetColorEncoding(e->enc, &colour) == JXL_ENC_SUCCESS;
        }
    }
    if (ok && o->metadata.exif && o->metadata.exif_length) {
        // The Exif box: a 4-byte offset to the TIFF header (0), then the TIFF structure.
        uint8_t *box = malloc(o->metadata.exif_length + 4);
        ok = box != NULL;
        if (ok) {
            memset(box, 0, 4);
            memcpy(box + 4, o->metadata.exif, o->metadata.exif_length);
            ok = fc_libjxl.JxlEncoderAddBox(e->enc, "Exif", box, o->metadata.exif_length + 4, JXL_FALSE) == JXL_ENC_SUCCESS;
            free(box);
        }
    }
    if (ok && o->metadata.xmp && o->metadata.xmp_length) {
        ok = fc_libjxl.JxlEncoderAddBox(e->enc, "xml ", o->metadata.xmp, o->metadata.xmp_length, JXL_FALSE) == JXL_ENC_SUCCESS;
    }
    if (ok) fc_libjxl.JxlEncoderCloseBoxes(e->enc);
    if (ok) {
        e->settings = fc_libjxl.JxlEncoderFrameSettingsCreate(e->enc, NULL);
        ok = e->settings != NULL
          && fc_libjxl.JxlEncoderFrameSettingsSetOption(e->settings, JXL_ENC_FRAME_SETTING_EFFORT, o->effort) == JXL_ENC_SUCCESS;
        if (ok && o->lossless) ok = fc_libjxl.JxlEncoderSetFrameLossless(e->settings, JXL_TRUE) == JXL_ENC_SUCCESS;
        else if (ok) ok = fc_libjxl.JxlEncoderSetFrameDistance(e->settings, o->distance) == JXL_ENC_SUCCESS;
    }
    if (!ok) {
        fc_jxl_encode_failure(e, "the encoder's settings");
        *report = e->report;
        fc_jxl_encoder_free(e);
        return NULL;
    }
    return e;
}

void fc_jxl_encoder_free(fc_jxl_encoder *e) {
    if (!e) return;
    if (e->enc) fc_libjxl.JxlEncoderDestroy(e->enc);
    if (e->runner) fc_libjxl_threads.JxlThreadParallelRunnerDestroy(e->runner);
    free(e);
}

const fc_jxl_report *fc_jxl_encoder_report(const fc_jxl_encoder *e) { return &e->report; }

fc_status fc_jxl_encoder_add(fc_jxl_encoder *e, const uint8_t *pixels, size_t stride, int duration) {
    const fc_jxl_encode_options *o = &e->options;
    JxlPixelFormat format = { (uint32_t)o->channels,
                              o->depth == 32 ? JXL_TYPE_FLOAT : o->depth == 8 ? JXL_TYPE_UINT8 : JXL_TYPE_UINT16, JXL_NATIVE_ENDIAN, 0 };
    size_t row = (size_t)o->width * (size_t)o->channels * (size_t)(o->depth / 8);
    if (stride != row) { fc_jxl_say(&e->report, "rows must be packed"); return FC_FAILED; }
    if (o->animated) {
        JxlFrameHeader header;
        fc_libjxl.JxlEncoderInitFrameHeader(&header);
        header.duration = (uint32_t)(duration < 0 ? 0 : duration);
        if (fc_libjxl.JxlEncoderSetFrameHeader(e->settings, &header) != JXL_ENC_SUCCESS) return fc_jxl_encode_failure(e, "a frame's header");
    }
    if (fc_libjxl.JxlEncoderAddImageFrame(e->settings, &format, pixels, row * o->height) != JXL_ENC_SUCCESS) {
        return fc_jxl_encode_failure(e, "encoding a frame");
    }
    e->frames++;
    return FC_OK;
}

fc_status fc_jxl_encoder_finish(fc_jxl_encoder *e, FILE *file) {
    if (e->frames == 0) { fc_jxl_say(&e->report, "no frame was given"); return FC_FAILED; }
    fc_libjxl.JxlEncoderCloseInput(e->enc);
    uint8_t chunk[1 << 16];
    for (;;) {
        uint8_t *next = chunk;
        size_t avail = sizeof chunk;
        JxlEncoderStatus status = fc_libjxl.JxlEncoderProcessOutput(e->enc, &next, &avail);
        size_t produced = sizeof chunk - avail;
        if (produced && fwrite(chunk, 1, produced, file) != produced) {
            snprintf(e->report.message, sizeof e->report.message, "%s", strerror(errno));
            return FC_WRITE_FAILED;
        }
        if (status == JXL_ENC_SUCCESS) break;
        if (status != JXL_ENC_NEED_MORE_OUTPUT) return fc_jxl_encode_failure(e, "encoding");
    }
    if (fflush(file) != 0) {
        snprintf(e->report.message, sizeof e->report.message, "%s", strerror(errno));
        return FC_WRITE_FAILED;
    }
    return FC_OK;
}

// ---------------------------------------------------------------------------------------
// A JPEG's lossless transcode

fc_status fc_jxl_transcode_jpeg(const uint8_t *jpeg, size_t size, int effort, int threads, FILE *file, fc_jxl_report *report) {
    const char *why = fc_jxl_library_error();
    if (why) { fc_jxl_say(report, why); return FC_UNSUPPORTED; }
    fc_jxl_encoder *e = calloc(1, sizeof *e);
    if (!e) return FC_NO_MEMORY;
    e->enc = fc_libjxl.JxlEncoderCreate(NULL);
    if (!e->enc) { free(e); return FC_NO_MEMORY; }
    if (threads > 1) {
        e->runner = fc_libjxl_threads.JxlThreadParallelRunnerCreate(NULL, (size_t)threads);
        if (e->runner) fc_libjxl.JxlEncoderSetParallelRunner(e->enc, fc_libjxl_threads.JxlThreadParallelRunner, e->runner);
    }
    fc_status status = FC_OK;
    // What rebuilds the JPEG's bytes (a jbrd box), and the JPEG's own coefficients.
    if (fc_libjxl.JxlEncoderStoreJPEGMetadata(e->enc, JXL_TRUE) != JXL_ENC_SUCCESS) {
        status = fc_jxl_encode_failure(e, "keeping the JPEG's bytes");
    } else {
        e->settings = fc_libjxl.JxlEncoderFrameSettingsCreate(e->enc, NULL);
        if (!e->settings
            || fc_libjxl.JxlEncoderFrameSettingsSetOption(e->settings, JXL_ENC_FRAME_SETTING_EFFORT, effort) != JXL_ENC_SUCCESS) {
            status = fc_jxl_encode_failure(e, "the encoder's settings");
        } else if (fc_libjxl.JxlEncoderAddJPEGFrame(e->settings, jpeg, size) != JXL_ENC_SUCCESS) {
            status = fc_jxl_encode_failure(e, "the JPEG cannot be transcoded losslessly");
        } else {
            e->frames = 1;
            status = fc_jxl_encoder_finish(e, file);
        }
    }
    *report = e->report;
    fc_jxl_encoder_free(e);
    return status;
}
