#include "fc_webp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>
#include <webp/mux.h>

// How much more of the file an incremental read feeds at a time.
#define FC_WEBP_FEED (64 * 1024)

struct fc_webp_decoder {
    const uint8_t *data;
    size_t size;
    fc_webp_report report;
    WebPDemuxer *demux;
    fc_webp_info info;
    // Still images: the first frame's bitstream (VP8/VP8L with its ALPH), fed incrementally.
    const uint8_t *frame;
    size_t frame_size;
    size_t fed;
    WebPDecoderConfig config;
    WebPIDecoder *idec;
    // Animations: the first frame on the canvas.
    WebPAnimDecoder *anim;
    uint8_t *canvas;
    uint32_t next_row;
};

static void fc_webp_say(fc_webp_report *r, const char *message) {
    snprintf(r->message, sizeof r->message, "%s", message);
}

static const char *fc_webp_status_text(VP8StatusCode status) {
    switch (status) {
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_INVALID_PARAM: return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR: return "bitstream error";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "unsupported feature";
    case VP8_STATUS_SUSPENDED: return "suspended";
    case VP8_STATUS_USER_ABORT: return "aborted";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "the data ends early (truncated)";
    default: return "unknown error";
    }
}

fc_webp_decoder *fc_webp_decoder_new(const uint8_t *data, size_t size) {
    fc_webp_decoder *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->data = data;
    d->size = size;
    return d;
}

void fc_webp_decoder_free(fc_webp_decoder *d) {
    if (!d) return;
    if (d->idec) WebPIDelete(d->idec);
    WebPFreeDecBuffer(&d->config.output);
    if (d->anim) WebPAnimDecoderDelete(d->anim);
    if (d->demux) WebPDemuxDelete(d->demux);
    free(d);
}

const fc_webp_report *fc_webp_decoder_report(const fc_webp_decoder *d) { return &d->report; }

fc_status fc_webp_decoder_open(fc_webp_decoder *d, fc_webp_info *info) {
    WebPData data = { d->data, d->size };
    WebPDemuxState state;
    d->demux = WebPDemuxPartial(&data, &state);
    if (!d->demux || state != WEBP_DEMUX_DONE) {
        if (d->demux) { WebPDemuxDelete(d->demux); d->demux = NULL; }
        fc_webp_say(&d->report, state == WEBP_DEMUX_PARSING_HEADER || state == WEBP_DEMUX_PARSED_HEADER
                    ? "the file ends early (truncated), or a chunk size runs past its end"
                    : "not a valid WebP container");
        return FC_FAILED;
    }
    uint32_t flags = WebPDemuxGetI(d->demux, WEBP_FF_FORMAT_FLAGS);
    d->info.width = WebPDemuxGetI(d->demux, WEBP_FF_CANVAS_WIDTH);
    d->info.height = WebPDemuxGetI(d->demux, WEBP_FF_CANVAS_HEIGHT);
    d->info.frame_count = (int)WebPDemuxGetI(d->demux, WEBP_FF_FRAME_COUNT);
    d->info.animated = (flags & ANIMATION_FLAG) != 0;
    if (d->info.frame_count < 1) {
        fc_webp_say(&d->report, "the file holds no image");
        return FC_FAILED;
    }
    // A still is decoded from the whole file (the decoder walks the container itself), as
    // dwebp does; an animation's features are its first frame's.
    d->frame = d->data;
    d->frame_size = d->size;
    WebPBitstreamFeatures features;
    VP8StatusCode status;
    if (d->info.animated) {
        WebPIterator it;
        if (!WebPDemuxGetFrame(d->demux, 1, &it)) {
            fc_webp_say(&d->report, "the animation holds no frame");
            return FC_FAILED;
        }
        status = WebPGetFeatures(it.fragment.bytes, it.fragment.size, &features);
        WebPDemuxReleaseIterator(&it);
    } else {
        status = WebPGetFeatures(d->data, d->size, &features);
    }
    if (status != VP8_STATUS_OK) {
        snprintf(d->report.message, sizeof d->report.message, "the image's header: %s", fc_webp_status_text(status));
        return FC_FAILED;
    }
    d->info.lossless = features.format == 2;
    // An animation's canvas is RGBA: frames may leave parts of it transparent.
    d->info.has_alpha = d->info.animated || features.has_alpha;
    d->info.channels = d->info.has_alpha ? 4 : 3;
    *info = d->info;
    return FC_OK;
}

const uint8_t *fc_webp_decoder_chunk(const fc_webp_decoder *d, const char *fourcc, size_t *length) {
    WebPChunkIterator it;
    if (!d->demux || !WebPDemuxGetChunk(d->demux, fourcc, 1, &it)) return NULL;
    const uint8_t *bytes = it.chunk.bytes;
    *length = it.chunk.size;
    WebPDemuxReleaseChunkIterator(&it);
    return bytes;
}

static fc_status fc_webp_start(fc_webp_decoder *d) {
    if (d->info.animated) {
        WebPAnimDecoderOptions options;
        if (!WebPAnimDecoderOptionsInit(&options)) { fc_webp_say(&d->report, "libwebp version mismatch"); return FC_FAILED; }
        options.color_mode = MODE_RGBA;
        options.use_threads = 0;
        WebPData data = { d->data, d->size };
        d->anim = WebPAnimDecoderNew(&data, &options);
        if (!d->anim) { fc_webp_say(&d->report, "the animation cannot be decoded"); return FC_FAILED; }
        int timestamp = 0;
        if (!WebPAnimDecoderGetNext(d->anim, &d->canvas, &timestamp)) {
            fc_webp_say(&d->report, "the animation's first frame is damaged");
            return FC_FAILED;
        }
        return FC_OK;
    }
    if (!WebPInitDecoderConfig(&d->config)) { fc_webp_say(&d->report, "libwebp version mismatch"); return FC_FAILED; }
    d->config.output.colorspace = d->info.has_alpha ? MODE_RGBA : MODE_RGB;
    d->config.options.use_threads = 0;
    d->idec = WebPIDecode(NULL, 0, &d->config);
    if (!d->idec) return FC_NO_MEMORY;
    return FC_OK;
}

// Feeds the incremental decoder until `rows` rows are decoded in all.
static fc_status fc_webp_decode_to(fc_webp_decoder *d, uint32_t rows) {
    for (;;) {
        int last_y = 0;
        if (d->fed > 0 && WebPIDecGetRGB(d->idec, &last_y, NULL, NULL, NULL) && (uint32_t)last_y >= rows) return FC_OK;
        if (d->fed == d->frame_size && d->fed > 0) {
            fc_webp_say(&d->report, "the image data ends early (truncated)");
            return FC_FAILED;
        }
        size_t more = d->frame_size - d->fed < FC_WEBP_FEED ? d->frame_size - d->fed : FC_WEBP_FEED;
        d->fed += more;
        // The bytes stay where they are: the decoder is told each time how far they go.
        VP8StatusCode status = WebPIUpdate(d->idec, d->frame, d->fed);
        if (status == VP8_STATUS_OUT_OF_MEMORY) return FC_NO_MEMORY;
        if (status != VP8_STATUS_OK && status != VP8_STATUS_SUSPENDED) {
            snprintf(d->report.message, sizeof d->report.message, "%s", fc_webp_status_text(status));
            return FC_FAILED;
        }
    }
}

fc_status fc_webp_decoder_read(fc_webp_decoder *d, uint8_t *dst, size_t stride, uint32_t rows) {
    if (!d->demux) { fc_webp_say(&d->report, "not opened"); return FC_FAILED; }
    if (rows == 0) return FC_OK;
    if (d->next_row + rows > d->info.height) { fc_webp_say(&d->report, "reading past the last row"); return FC_FAILED; }
    if (!d->idec && !d->anim) {
        fc_status s = fc_webp_start(d);
        if (s != FC_OK) return s;
    }
    size_t row_bytes = (size_t)d->info.width * (size_t)d->info.channels;
    const uint8_t *src;
    size_t src_stride;
    if (d->anim) {
        src = d->canvas;
        src_stride = (size_t)d->info.width * 4;
    } else {
        fc_status s = fc_webp_decode_to(d, d->next_row + rows);
        if (s != FC_OK) return s;
        int last_y = 0, w = 0, h = 0, st = 0;
        src = WebPIDecGetRGB(d->idec, &last_y, &w, &h, &st);
        if (!src) { fc_webp_say(&d->report, "no decoded rows"); return FC_FAILED; }
        src_stride = (size_t)st;
    }
    for (uint32_t r = 0; r < rows; r++) {
        memcpy(dst + (size_t)r * stride, src + (size_t)(d->next_row + r) * src_stride, row_bytes);
    }
    d->next_row += rows;
    return FC_OK;
}

fc_status fc_webp_decoder_finish(fc_webp_decoder *d) {
    if (!d->demux) { fc_webp_say(&d->report, "not opened"); return FC_FAILED; }
    if (!d->idec && !d->anim) {
        fc_status s = fc_webp_start(d);
        if (s != FC_OK) return s;
    }
    if (d->anim) return FC_OK;
    return fc_webp_decode_to(d, d->info.height);
}

// The ICCP, EXIF and XMP chunks of `m` (those present), copied into the muxer.
static WebPMuxError fc_webp_set_chunks(WebPMux *mux, const fc_metadata *m) {
    struct { const char *fourcc; const uint8_t *bytes; size_t size; } chunks[] = {
        { "ICCP", m->icc, m->icc_length }, { "EXIF", m->exif, m->exif_length }, { "XMP ", m->xmp, m->xmp_length },
    };
    WebPMuxError e = WEBP_MUX_OK;
    for (int i = 0; i < 3 && e == WEBP_MUX_OK; i++) {
        if (!chunks[i].bytes) continue;
        WebPData chunk = { chunks[i].bytes, chunks[i].size };
        e = WebPMuxSetChunk(mux, chunks[i].fourcc, &chunk, 1);
    }
    return e;
}

static fc_status fc_webp_write(FILE *file, const uint8_t *bytes, size_t size) {
    if (fwrite(bytes, 1, size, file) != size || fflush(file) != 0) return FC_WRITE_FAILED;
    return FC_OK;
}

static const char *fc_webp_encoding_error(WebPEncodingError e) {
    switch (e) {
    case VP8_ENC_ERROR_OUT_OF_MEMORY:
    case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: return "out of memory";
    case VP8_ENC_ERROR_BAD_DIMENSION: return "the size is outside what WebP holds (at most 16383 x 16383)";
    case VP8_ENC_ERROR_PARTITION0_OVERFLOW: return "the first partition is over 512 KiB (lower the quality)";
    case VP8_ENC_ERROR_PARTITION_OVERFLOW: return "a partition is over 16 MiB";
    case VP8_ENC_ERROR_FILE_TOO_BIG: return "the file would be over 4 GiB";
    default: return "encoding failed";
    }
}

fc_status fc_webp_encode(const fc_webp_encode_options *o, const uint8_t *pixels, size_t stride,
                         FILE *file, fc_webp_report *report) {
    WebPConfig config;
    if (!WebPConfigInit(&config)) { fc_webp_say(report, "libwebp version mismatch"); return FC_FAILED; }
    config.quality = (float)o->quality;
    config.method = o->method;
    config.alpha_quality = o->alpha_quality;
    // libwebp's analysis pass (and alpha) on a second thread: the same bytes, sooner.
    config.thread_level = 1;
    config.lossless = o->lossless ? 1 : 0;
    // Lossless keeps the colour under transparent pixels: the decode is the image given.
    config.exact = o->lossless ? 1 : 0;
    if (!WebPValidateConfig(&config)) { fc_webp_say(report, "invalid encoder settings"); return FC_FAILED; }

    WebPPicture picture;
    if (!WebPPictureInit(&picture)) { fc_webp_say(report, "libwebp version mismatch"); return FC_FAILED; }
    picture.width = (int)o->width;
    picture.height = (int)o->height;
    // As cwebp: ARGB for lossless; lossy imports straight to YUV.
    picture.use_argb = o->lossless ? 1 : 0;
    int imported = o->channels == 4 ? WebPPictureImportRGBA(&picture, pixels, (int)stride)
                                    : WebPPictureImportRGB(&picture, pixels, (int)stride);
    if (!imported) {
        WebPPictureFree(&picture);
        fc_webp_say(report, fc_webp_encoding_error(picture.error_code));
        return picture.error_code == VP8_ENC_ERROR_BAD_DIMENSION ? FC_FAILED : FC_NO_MEMORY;
    }
    WebPMemoryWriter writer;
    WebPMemoryWriterInit(&writer);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    int ok = WebPEncode(&config, &picture);
    WebPEncodingError error = picture.error_code;
    WebPPictureFree(&picture);
    if (!ok) {
        WebPMemoryWriterClear(&writer);
        fc_webp_say(report, fc_webp_encoding_error(error));
        return error == VP8_ENC_ERROR_OUT_OF_MEMORY || error == VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY
            ? FC_NO_MEMORY : FC_FAILED;
    }
    if (!o->metadata.icc && !o->metadata.exif && !o->metadata.xmp) {
        fc_status s = fc_webp_write(file, writer.mem, writer.size);
        WebPMemoryWriterClear(&writer);
        return s;
    }
    // Metadata: the muxer adds the chunks and the VP8X header that announces them.
    WebPMux *mux = WebPMuxNew();
    if (!mux) { WebPMemoryWriterClear(&writer); return FC_NO_MEMORY; }
    WebPData image = { writer.mem, writer.size };
    WebPMuxError e = WebPMuxSetImage(mux, &image, 0);
    if (e == WEBP_MUX_OK) e = fc_webp_set_chunks(mux, &o->metadata);
    WebPData assembled = { NULL, 0 };
    if (e == WEBP_MUX_OK) e = WebPMuxAssemble(mux, &assembled);
    WebPMuxDelete(mux);
    WebPMemoryWriterClear(&writer);
    if (e != WEBP_MUX_OK) {
        WebPDataClear(&assembled);
        if (e == WEBP_MUX_MEMORY_ERROR) return FC_NO_MEMORY;
        fc_webp_say(report, "the metadata chunks could not be added");
        return FC_FAILED;
    }
    fc_status s = fc_webp_write(file, assembled.bytes, assembled.size);
    WebPDataClear(&assembled);
    return s;
}

// ---------------------------------------------------------------------------------------
// Animations

int fc_webp_decoder_loop_count(const fc_webp_decoder *d) {
    return d->demux ? (int)WebPDemuxGetI(d->demux, WEBP_FF_LOOP_COUNT) : 0;
}

int fc_webp_decoder_duration(const fc_webp_decoder *d, int index) {
    WebPIterator it;
    if (!d->demux || !WebPDemuxGetFrame(d->demux, index + 1, &it)) return 0;
    int duration = it.duration;
    WebPDemuxReleaseIterator(&it);
    return duration;
}

fc_status fc_webp_decoder_next_frame(fc_webp_decoder *d, uint8_t *dst, size_t stride) {
    if (!d->anim) {
        WebPAnimDecoderOptions options;
        if (!WebPAnimDecoderOptionsInit(&options)) { fc_webp_say(&d->report, "libwebp version mismatch"); return FC_FAILED; }
        options.color_mode = MODE_RGBA;
        options.use_threads = 0;
        WebPData data = { d->data, d->size };
        d->anim = WebPAnimDecoderNew(&data, &options);
        if (!d->anim) { fc_webp_say(&d->report, "the animation cannot be decoded"); return FC_FAILED; }
    }
    if (!WebPAnimDecoderHasMoreFrames(d->anim)) { fc_webp_say(&d->report, "no frame left"); return FC_FAILED; }
    int timestamp = 0;
    uint8_t *canvas = NULL;
    if (!WebPAnimDecoderGetNext(d->anim, &canvas, &timestamp)) {
        fc_webp_say(&d->report, "a frame of the animation is damaged");
        return FC_FAILED;
    }
    size_t row = (size_t)d->info.width * 4;
    for (uint32_t y = 0; y < d->info.height; y++) memcpy(dst + (size_t)y * stride, canvas + (size_t)y * row, row);
    return FC_OK;
}

struct fc_webp_animator {
    fc_webp_encode_options options;
    fc_webp_report report;
    WebPAnimEncoder *encoder;
    WebPConfig config;
    int timestamp;
};

fc_webp_animator *fc_webp_animator_new(const fc_webp_encode_options *o, int loop_count, fc_webp_report *report) {
    fc_webp_animator *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->options = *o;
    a->options.metadata = (fc_metadata){ 0 };
    WebPAnimEncoderOptions options;
    if (!WebPAnimEncoderOptionsInit(&options) || !WebPConfigInit(&a->config)) {
        fc_webp_say(report, "libwebp version mismatch");
        free(a);
        return NULL;
    }
    options.anim_params.loop_count = loop_count;
    options.allow_mixed = 0;
    a->config.quality = (float)o->quality;
    a->config.method = o->method;
    a->config.alpha_quality = o->alpha_quality;
    a->config.lossless = o->lossless ? 1 : 0;
    a->config.exact = o->lossless ? 1 : 0;
    a->config.thread_level = 1;
    if (!WebPValidateConfig(&a->config)) {
        fc_webp_say(report, "invalid encoder settings");
        free(a);
        return NULL;
    }
    a->encoder = WebPAnimEncoderNew((int)o->width, (int)o->height, &options);
    if (!a->encoder) {
        fc_webp_say(report, "libwebp cannot start an animation of this size");
        free(a);
        return NULL;
    }
    return a;
}

const fc_webp_report *fc_webp_animator_report(const fc_webp_animator *a) { return &a->report; }

void fc_webp_animator_free(fc_webp_animator *a) {
    if (!a) return;
    if (a->encoder) WebPAnimEncoderDelete(a->encoder);
    free(a);
}

fc_status fc_webp_animator_add(fc_webp_animator *a, const uint8_t *pixels, size_t stride, int duration) {
    WebPPicture picture;
    if (!WebPPictureInit(&picture)) { fc_webp_say(&a->report, "libwebp version mismatch"); return FC_FAILED; }
    picture.width = (int)a->options.width;
    picture.height = (int)a->options.height;
    picture.use_argb = 1;  // WebPAnimEncoder compares frames in ARGB
    int imported = a->options.channels == 4 ? WebPPictureImportRGBA(&picture, pixels, (int)stride)
                                           : WebPPictureImportRGB(&picture, pixels, (int)stride);
    if (!imported) { WebPPictureFree(&picture); return FC_NO_MEMORY; }
    int ok = WebPAnimEncoderAdd(a->encoder, &picture, a->timestamp, &a->config);
    WebPPictureFree(&picture);
    if (!ok) {
        const char *why = WebPAnimEncoderGetError(a->encoder);
        snprintf(a->report.message, sizeof a->report.message, "libwebp refused a frame (%s)", why && *why ? why : "unknown");
        return FC_FAILED;
    }
    a->timestamp += duration;
    return FC_OK;
}

void fc_webp_animator_set_metadata(fc_webp_animator *a, fc_metadata metadata) { a->options.metadata = metadata; }

fc_status fc_webp_animator_finish(fc_webp_animator *a, FILE *file) {
    if (!WebPAnimEncoderAdd(a->encoder, NULL, a->timestamp, NULL)) {
        fc_webp_say(&a->report, "libwebp could not end the animation");
        return FC_FAILED;
    }
    WebPData data = { NULL, 0 };
    if (!WebPAnimEncoderAssemble(a->encoder, &data)) {
        const char *why = WebPAnimEncoderGetError(a->encoder);
        snprintf(a->report.message, sizeof a->report.message, "libwebp could not assemble the animation (%s)", why && *why ? why : "unknown");
        return FC_FAILED;
    }
    const fc_metadata *m = &a->options.metadata;
    if (!m->icc && !m->exif && !m->xmp) {
        fc_status s = fc_webp_write(file, data.bytes, data.size);
        WebPDataClear(&data);
        return s;
    }
    WebPMux *mux = WebPMuxCreate(&data, 1);
    WebPDataClear(&data);
    if (!mux) { fc_webp_say(&a->report, "the animation could not be re-read to add its metadata"); return FC_FAILED; }
    WebPMuxError e = fc_webp_set_chunks(mux, m);
    WebPData assembled = { NULL, 0 };
    if (e == WEBP_MUX_OK) e = WebPMuxAssemble(mux, &assembled);
    WebPMuxDelete(mux);
    if (e != WEBP_MUX_OK) {
        WebPDataClear(&assembled);
        if (e == WEBP_MUX_MEMORY_ERROR) return FC_NO_MEMORY;
        fc_webp_say(&a->report, "the metadata chunks could not be added");
        return FC_FAILED;
    }
    fc_status s = fc_webp_write(file, assembled.bytes, assembled.size);
    WebPDataClear(&assembled);
    return s;
}
