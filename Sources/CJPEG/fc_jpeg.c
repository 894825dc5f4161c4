// See fc_jpeg.h for why this file exists. Every exported function sets its own setjmp; the
// error handler formats libjpeg's message into the object's report and jumps back there.
// After a failure the object only accepts _free.
#include "fc_jpeg.h"

// jpeglib.h first: it brings jconfig.h, whose JPEG_LIB_VERSION and arithmetic-coding macros
// decide which messages jerror.h numbers (the other order shifts JWRN_BOGUS_ICC by two).
#include <jpeglib.h>
#include <jerror.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

// Parallel entropy decoding (see "Entropy decoding on a thread of its own" below) reaches into
// libjpeg-turbo's module interfaces, which jpegint.h declares. Where that header is not
// installed, or the library is another libjpeg, decoding stays on one thread.
#if defined(LIBJPEG_TURBO_VERSION) && defined(__has_include)
#if __has_include(<jpegint.h>)
#include <jpegint.h>
#include <pthread.h>
#include <unistd.h>
#include "fc_jpeg_huffman.h"
#define FC_JPEG_PARALLEL 1
#endif
#endif
#ifndef FC_JPEG_PARALLEL
#define FC_JPEG_PARALLEL 0
#endif

// A progressive file may hold any number of scans; the fuzzed corpus has files whose
// scans would keep the decoder busy for minutes. libjpeg-turbo's own fuzzers stop at 500.
#define FC_JPEG_MAX_SCANS 500

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    fc_jpeg_report *report;
    int strict;
    int muted;  // warnings are ignored (a second reading of headers already read once)
} fc_error_mgr;

static void fc_error_exit(j_common_ptr cinfo) {
    fc_error_mgr *err = (fc_error_mgr *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, err->report->message);
    longjmp(err->jump, 1);
}

// MARK: - Harmless damage
//
// Damage that touches no pixel (what Photoshop and some cameras write): stray bytes between
// segments outside the scan, and ICC or EXIF segments that are bad or duplicated. It is
// recorded in the report's `harmless` flags, never fails a decode, and the segment concerned
// is dropped. Stray bytes inside the scan (before RSTn or EOI) are damage to image data.

/// The harmless-damage flag for the warning being emitted, or 0.
static unsigned fc_jpeg_harmless_warning(j_common_ptr cinfo) {
    struct jpeg_error_mgr *err = cinfo->err;
    if (err->msg_code == JWRN_EXTRANEOUS_DATA) {
        int marker = err->msg_parm.i[1];
        if ((marker >= JPEG_RST0 && marker <= JPEG_RST0 + 7) || marker == JPEG_EOI) return 0;
        return FC_JPEG_STRAY_BYTES;
    }
    if (err->msg_code == JWRN_BOGUS_ICC) return FC_JPEG_BAD_ICC;
    return 0;
}

/// An EXIF block (the TIFF data after "Exif\0\0") that begins as TIFF does and whose first
/// directory lies inside it.
static int fc_jpeg_exif_is_tiff(const uint8_t *p, size_t length) {
    if (length < 8) return 0;
    uint32_t offset;
    if (memcmp(p, "II*\0", 4) == 0)
        offset = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
    else if (memcmp(p, "MM\0*", 4) == 0)
        offset = (uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 | (uint32_t)p[6] << 8 | (uint32_t)p[7];
    else
        return 0;
    return offset >= 8 && (size_t)offset + 2 <= length;
}

// MARK: - Errors and warnings

static void fc_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;  // trace messages: never printed
    fc_error_mgr *err = (fc_error_mgr *)cinfo->err;
    if (err->muted) return;
    unsigned harmless_damage = fc_jpeg_harmless_warning(cinfo);
    if (harmless_damage) {
        err->report->harmless |= harmless_damage;
        cinfo->err->num_warnings++;
        return;
    }
    // A newer JFIF minor/major revision is not damage.
    int harmless = cinfo->err->msg_code == JWRN_JFIF_MAJOR;
    if (err->strict && !harmless) {
        (*cinfo->err->format_message)(cinfo, err->report->message);
        longjmp(err->jump, 1);
    }
    if (err->report->warning_count == 0)
        (*cinfo->err->format_message)(cinfo, err->report->first_warning);
    err->report->warning_count++;
    cinfo->err->num_warnings++;
}

static void fc_output_message(j_common_ptr cinfo) { (void)cinfo; }

static void fc_error_init(fc_error_mgr *err, fc_jpeg_report *report, int strict) {
    jpeg_std_error(&err->pub);
    err->pub.error_exit = fc_error_exit;
    err->pub.emit_message = fc_emit_message;
    err->pub.output_message = fc_output_message;
    err->report = report;
    err->strict = strict;
}

// MARK: - Buffered file source and destination

// libjpeg's stdio managers move 4 KiB per fread/fwrite, which is one system call each: a
// 14.7 MP image costs a thousand reads and a thousand writes. These are the same managers
// (jdatasrc.c, jdatadst.c) with a 256 KiB buffer held in the decoder/encoder object.
#define FC_JPEG_IO_BUFFER (1 << 18)

typedef struct {
    struct jpeg_source_mgr pub;
    FILE *file;
    JOCTET buffer[FC_JPEG_IO_BUFFER];
    int started;
} fc_file_source;

static void fc_source_init(j_decompress_ptr cinfo) {
    ((fc_file_source *)cinfo->src)->started = 0;
}

static boolean fc_source_fill(j_decompress_ptr cinfo) {
    fc_file_source *src = (fc_file_source *)cinfo->src;
    size_t n = fread(src->buffer, 1, FC_JPEG_IO_BUFFER, src->file);
    if (n == 0) {
        if (!src->started) ERREXIT(cinfo, JERR_INPUT_EMPTY);
        WARNMS(cinfo, JWRN_JPEG_EOF);
        // A fake EOI marker, as libjpeg's own source does.
        src->buffer[0] = (JOCTET)0xFF;
        src->buffer[1] = (JOCTET)JPEG_EOI;
        n = 2;
    }
    src->pub.next_input_byte = src->buffer;
    src->pub.bytes_in_buffer = n;
    src->started = 1;
    return TRUE;
}

static void fc_source_skip(j_decompress_ptr cinfo, long count) {
    struct jpeg_source_mgr *src = cinfo->src;
    if (count <= 0) return;
    while (count > (long)src->bytes_in_buffer) {
        count -= (long)src->bytes_in_buffer;
        (void)(*src->fill_input_buffer)(cinfo);
    }
    src->next_input_byte += (size_t)count;
    src->bytes_in_buffer -= (size_t)count;
}

static void fc_source_term(j_decompress_ptr cinfo) { (void)cinfo; }

static void fc_file_src(j_decompress_ptr cinfo, FILE *file) {
    fc_file_source *src = (fc_file_source *)(*cinfo->mem->alloc_large)(
        (j_common_ptr)cinfo, JPOOL_PERMANENT, sizeof(fc_file_source));
    cinfo->src = &src->pub;
    src->pub.init_source = fc_source_init;
    src->pub.fill_input_buffer = fc_source_fill;
    src->pub.skip_input_data = fc_source_skip;
    src->pub.resync_to_restart = jpeg_resync_to_restart;
    src->pub.term_source = fc_source_term;
    src->pub.bytes_in_buffer = 0;
    src->pub.next_input_byte = NULL;
    src->file = file;
}

typedef struct {
    struct jpeg_destination_mgr pub;
    FILE *file;
    JOCTET buffer[FC_JPEG_IO_BUFFER];
} fc_file_destination;

static void fc_destination_init(j_compress_ptr cinfo) {
    fc_file_destination *dest = (fc_file_destination *)cinfo->dest;
    dest->pub.next_output_byte = dest->buffer;
    dest->pub.free_in_buffer = FC_JPEG_IO_BUFFER;
}

static boolean fc_destination_empty(j_compress_ptr cinfo) {
    fc_file_destination *dest = (fc_file_destination *)cinfo->dest;
    if (fwrite(dest->buffer, 1, FC_JPEG_IO_BUFFER, dest->file) != FC_JPEG_IO_BUFFER)
        ERREXIT(cinfo, JERR_FILE_WRITE);
    dest->pub.next_output_byte = dest->buffer;
    dest->pub.free_in_buffer = FC_JPEG_IO_BUFFER;
    return TRUE;
}

static void fc_destination_term(j_compress_ptr cinfo) {
    fc_file_destination *dest = (fc_file_destination *)cinfo->dest;
    size_t n = FC_JPEG_IO_BUFFER - dest->pub.free_in_buffer;
    if (n > 0 && fwrite(dest->buffer, 1, n, dest->file) != n) ERREXIT(cinfo, JERR_FILE_WRITE);
    fflush(dest->file);
    if (ferror(dest->file)) ERREXIT(cinfo, JERR_FILE_WRITE);
}

static void fc_file_dest(j_compress_ptr cinfo, FILE *file) {
    fc_file_destination *dest = (fc_file_destination *)(*cinfo->mem->alloc_large)(
        (j_common_ptr)cinfo, JPOOL_PERMANENT, sizeof(fc_file_destination));
    cinfo->dest = &dest->pub;
    dest->pub.init_destination = fc_destination_init;
    dest->pub.empty_output_buffer = fc_destination_empty;
    dest->pub.term_destination = fc_destination_term;
    dest->file = file;
}

// MARK: - Decoder

struct fc_jpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_progress_mgr progress;
    fc_error_mgr err;
    fc_jpeg_report report;
    int created, started, failed;
    int cmyk, adobe, inks;
    uint8_t *scratch;          // one CMYK row
    uint8_t *icc, *exif;
    size_t icc_length, exif_length;
    FILE *file;                // the input, for the entropy thread's own reading
    const uint8_t *data;
    size_t size;
    unsigned parallel_min_mcus;  // fc_jpeg_decoder_parallel: 0 none, else the least MCUs
    unsigned parallel_chunk;     // MCUs per chunk of the ring
    unsigned parallel_split;     // the least MCUs for a second Huffman-decoding thread; 0 none
    int used_parallel;           // an entropy thread was started
    int entropy_path;            // fc_jpeg_decoder_entropy_path
    struct fc_entropy_thread *entropy;  // running one: see below
};

#if FC_JPEG_PARALLEL
static void fc_entropy_stop(fc_jpeg_decoder *d);
static void fc_entropy_start(fc_jpeg_decoder *d);
static int fc_entropy_finish(fc_jpeg_decoder *d);
#endif

static void fc_progress(j_common_ptr cinfo) {
    if (!cinfo->is_decompressor) return;
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    if (d->input_scan_number > FC_JPEG_MAX_SCANS) {
        fc_error_mgr *err = (fc_error_mgr *)cinfo->err;
        snprintf(err->report->message, FC_JPEG_MESSAGE_MAX,
                 "too many scans (more than %d); the file is damaged or hostile",
                 FC_JPEG_MAX_SCANS);
        longjmp(err->jump, 1);
    }
}

fc_jpeg_decoder *fc_jpeg_decoder_new(int strict) {
    fc_jpeg_decoder *d = calloc(1, sizeof *d);
    if (d) fc_error_init(&d->err, &d->report, strict);
    return d;
}

void fc_jpeg_decoder_free(fc_jpeg_decoder *d) {
    if (!d) return;
#if FC_JPEG_PARALLEL
    fc_entropy_stop(d);
#endif
    if (d->created) jpeg_destroy_decompress(&d->cinfo);
    free(d->scratch);
    free(d->icc);
    free(d->exif);
    free(d);
}

const fc_jpeg_report *fc_jpeg_decoder_report(const fc_jpeg_decoder *d) { return &d->report; }

static fc_jpeg_color fc_color(J_COLOR_SPACE space) {
    switch (space) {
    case JCS_GRAYSCALE: return FC_JPEG_COLOR_GRAY;
    case JCS_YCbCr: return FC_JPEG_COLOR_YCBCR;
    case JCS_RGB: return FC_JPEG_COLOR_RGB;
    case JCS_CMYK: return FC_JPEG_COLOR_CMYK;
    case JCS_YCCK: return FC_JPEG_COLOR_YCCK;
    default: return FC_JPEG_COLOR_UNKNOWN;
    }
}

/// The first EXIF block that is TIFF data; a bad one, or any after the first, is dropped
/// as harmless damage.
static void fc_copy_exif(fc_jpeg_decoder *d) {
    for (jpeg_saved_marker_ptr m = d->cinfo.marker_list; m; m = m->next) {
        if (m->marker != JPEG_APP0 + 1 || m->data_length < 6) continue;
        if (memcmp(m->data, "Exif\0\0", 6) != 0) continue;
        if (!fc_jpeg_exif_is_tiff(m->data + 6, m->data_length - 6)) {
            d->report.harmless |= FC_JPEG_BAD_EXIF;
            continue;
        }
        if (d->exif) {
            d->report.harmless |= FC_JPEG_DUPLICATE_EXIF;
            continue;
        }
        d->exif_length = m->data_length - 6;
        d->exif = malloc(d->exif_length);
        if (d->exif) memcpy(d->exif, m->data + 6, d->exif_length);
        else d->exif_length = 0;
    }
}

fc_status fc_jpeg_decoder_open(fc_jpeg_decoder *d, FILE *file, const uint8_t *data,
                               size_t size, fc_jpeg_header *header) {
    if (d->failed || d->created) return FC_FAILED;
    if (setjmp(d->err.jump)) {
        d->failed = 1;
        return FC_FAILED;
    }
    d->cinfo.err = &d->err.pub;
    jpeg_create_decompress(&d->cinfo);
    d->created = 1;
    d->progress.progress_monitor = fc_progress;
    d->cinfo.progress = &d->progress;
    if (file) fc_file_src(&d->cinfo, file);
    else jpeg_mem_src(&d->cinfo, (unsigned char *)data, (unsigned long)size);
    d->file = file;
    d->data = data;
    d->size = size;
    jpeg_save_markers(&d->cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&d->cinfo, JPEG_APP0 + 2, 0xFFFF);
    jpeg_save_markers(&d->cinfo, JPEG_COM, 0xFFFF);
    jpeg_read_header(&d->cinfo, TRUE);

    fc_copy_exif(d);
    JOCTET *icc = NULL;
    unsigned int icc_length = 0;
    if (jpeg_read_icc_profile(&d->cinfo, &icc, &icc_length)) {
        d->icc = icc;
        d->icc_length = icc_length;
    }

    memset(header, 0, sizeof *header);
    header->width = d->cinfo.image_width;
    header->height = d->cinfo.image_height;
    header->components = d->cinfo.num_components;
    header->color = fc_color(d->cinfo.jpeg_color_space);
    header->progressive = d->cinfo.progressive_mode;
    header->arithmetic = d->cinfo.arith_code;
    header->adobe_marker = d->cinfo.saw_Adobe_marker;
    switch (header->color) {
    case FC_JPEG_COLOR_GRAY: header->output_channels = 1; break;
    case FC_JPEG_COLOR_UNKNOWN: header->output_channels = 0; break;
    default: header->output_channels = 3; break;
    }
    d->adobe = d->cinfo.saw_Adobe_marker;
    return FC_OK;
}

const uint8_t *fc_jpeg_decoder_icc(const fc_jpeg_decoder *d, size_t *length) {
    *length = d->icc_length;
    return d->icc;
}

const uint8_t *fc_jpeg_decoder_exif(const fc_jpeg_decoder *d, size_t *length) {
    *length = d->exif_length;
    return d->exif;
}

// Shrink-on-load: libjpeg's DCT scaling by 1/denom (1, 2, 4 or 8), set before the start.
// Writes the size the decoder will then deliver.
fc_status fc_jpeg_decoder_scale(fc_jpeg_decoder *d, unsigned denom, uint32_t *width,
                                uint32_t *height) {
    if (d->failed || !d->created || d->started) return FC_FAILED;
    if (setjmp(d->err.jump)) {
        d->failed = 1;
        return FC_FAILED;
    }
    d->cinfo.scale_num = 1;
    d->cinfo.scale_denom = denom;
    jpeg_calc_output_dimensions(&d->cinfo);
    *width = d->cinfo.output_width;
    *height = d->cinfo.output_height;
    return FC_OK;
}

fc_status fc_jpeg_decoder_start(fc_jpeg_decoder *d) {
    if (d->failed || !d->created || d->started) return FC_FAILED;
    if (setjmp(d->err.jump)) {
        d->failed = 1;
        return FC_FAILED;
    }
    switch (d->cinfo.jpeg_color_space) {
    case JCS_GRAYSCALE: d->cinfo.out_color_space = JCS_GRAYSCALE; break;
    case JCS_YCbCr:
    case JCS_RGB: d->cinfo.out_color_space = JCS_EXT_RGB; break;
    case JCS_CMYK:
    case JCS_YCCK:
        d->cinfo.out_color_space = JCS_CMYK;  // libjpeg turns YCCK into CMYK
        d->cmyk = 1;
        break;
    default:
        snprintf(d->report.message, FC_JPEG_MESSAGE_MAX,
                 "unsupported JPEG colour space with %d components", d->cinfo.num_components);
        d->failed = 1;
        return FC_FAILED;
    }
    if (d->cmyk) {
        d->scratch = malloc((size_t)d->cinfo.image_width * 4);
        if (!d->scratch) {
            d->failed = 1;
            return FC_NO_MEMORY;
        }
    }
    jpeg_start_decompress(&d->cinfo);
    d->started = 1;
#if FC_JPEG_PARALLEL
    if (d->parallel_min_mcus) fc_entropy_start(d);
#endif
    return FC_OK;
}

void fc_jpeg_decoder_keep_inks(fc_jpeg_decoder *d) {
    if (!d->started) d->inks = 1;
}

// R = 255 (1 - C)(1 - K) and likewise G from M, B from Y, with C, M, Y, K in [0, 1] as ink
// amounts. Adobe applications store the ink inverted (255 = no ink), which is what the
// Adobe marker announces; otherwise 0 = no ink.
static void fc_cmyk_to_rgb(const uint8_t *cmyk, uint8_t *rgb, uint32_t width, int inverted) {
    for (uint32_t x = 0; x < width; x++, cmyk += 4, rgb += 3) {
        unsigned c = cmyk[0], m = cmyk[1], y = cmyk[2], k = cmyk[3];
        if (!inverted) {
            c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k;
        }
        // (v + 127) / 255 rounds v / 255 to nearest; it is never exactly half (255 is odd).
        rgb[0] = (uint8_t)((c * k + 127) / 255);
        rgb[1] = (uint8_t)((m * k + 127) / 255);
        rgb[2] = (uint8_t)((y * k + 127) / 255);
    }
}

fc_status fc_jpeg_decoder_read(fc_jpeg_decoder *d, uint8_t *dst, size_t stride,
                               uint32_t rows) {
    if (d->failed || !d->started) return FC_FAILED;
    if (setjmp(d->err.jump)) {
        d->failed = 1;
        return FC_FAILED;
    }
    uint32_t done = 0;
    while (done < rows) {
        if (d->cinfo.output_scanline >= d->cinfo.output_height) {
            snprintf(d->report.message, FC_JPEG_MESSAGE_MAX, "read past the last row");
            d->failed = 1;
            return FC_FAILED;
        }
        if (d->cmyk && d->inks) {
            uint8_t *out = dst + (size_t)done * stride;
            JSAMPROW row = out;
            if (jpeg_read_scanlines(&d->cinfo, &row, 1) != 1) continue;
            if (d->adobe) {
                // The bound in a local: a byte store may alias cinfo, and the compiler would
                // otherwise reload it each byte instead of vectorising the loop (this runs on
                // the one decoding thread, for every sample of the image).
                size_t n = (size_t)d->cinfo.output_width * 4;
                for (size_t i = 0; i < n; i++) out[i] = (uint8_t)(255 - out[i]);
            }
            done++;
        } else if (d->cmyk) {
            JSAMPROW row = d->scratch;
            if (jpeg_read_scanlines(&d->cinfo, &row, 1) != 1) continue;
            fc_cmyk_to_rgb(d->scratch, dst + (size_t)done * stride, d->cinfo.output_width,
                           d->adobe);
            done++;
        } else {
            JSAMPROW pointers[16];
            uint32_t n = rows - done < 16 ? rows - done : 16;
            for (uint32_t i = 0; i < n; i++) pointers[i] = dst + (size_t)(done + i) * stride;
            done += jpeg_read_scanlines(&d->cinfo, pointers, n);
        }
    }
    return FC_OK;
}

fc_status fc_jpeg_decoder_finish(fc_jpeg_decoder *d) {
    if (d->failed || !d->started) return FC_FAILED;
    if (setjmp(d->err.jump)) {
        d->failed = 1;
        return FC_FAILED;
    }
#if FC_JPEG_PARALLEL
    // The entropy thread read the scan and what follows it; this decompressor read no more
    // than the headers, so it is not finished (it would take the scan for stray bytes).
    if (d->entropy) {
        if (!fc_entropy_finish(d)) {
            d->failed = 1;
            return FC_FAILED;
        }
        return FC_OK;
    }
#endif
    jpeg_finish_decompress(&d->cinfo);
    return FC_OK;
}

// MARK: - Entropy decoding on a thread of its own
//
// Decoding a baseline JPEG is Huffman decoding, which is serial, then the inverse DCT,
// upsampling and colour conversion. For a large image decoded at a reduced scale the first
// part is most of the time (14.7 MP at 1/2 scale: 37 of 44 ms). With this, a second
// decompressor (the "entropy thread") reads the scan and Huffman-decodes every MCU into a
// ring of coefficient blocks, and the decoder's own decompressor takes each MCU's blocks
// from the ring instead of from the file; everything after that (dequantisation, inverse
// DCT, upsampling, colour conversion) is libjpeg's own code, as before. The two threads
// overlap, and the pixels are the same bytes: the same library decodes the same blocks.
//
// A plain scan (baseline, 8-bit, no restart interval: what cameras and most encoders write)
// is Huffman-decoded by fc_jpeg_huffman.c instead, whose blocks are libjpeg's bit for bit,
// and, when large, on two threads: the entropy thread and a helper that decodes the second
// half of the scan speculatively (see fc_jpeg_huffman.h). Wherever that decoder cannot give
// an MCU, libjpeg's entropy decompressor takes over from there (fc_entropy_main).
//
// The hand-over uses two of libjpeg-turbo's module methods (jpegint.h): the entropy
// decoder's decode_mcu is replaced in the pixel decompressor, and called directly, MCU by
// MCU, in the entropy decompressor. Only files with one interleaved Huffman scan qualify.
//
// Warnings and errors: the entropy decompressor reads the headers again with warnings muted
// (the pixel decompressor reported them already), then reports what the scan and the rest
// of the file hold, as a single-threaded decode would. Its failure fails the pixel
// decompressor's next MCU, with the same message; its warnings join the decoder's report
// at the finish. Freeing the decoder stops the thread.
#if FC_JPEG_PARALLEL

// Chunks in the ring (of fc_jpeg_decoder_parallel's chunk size: 512 six-block MCUs are
// 384 KiB). The thread publishes, and the taker releases, a chunk at a time.
#define FC_ENTROPY_CHUNKS 8

typedef struct fc_entropy_thread {
    struct jpeg_decompress_struct cinfo;  // the entropy decompressor
    fc_error_mgr err;
    fc_jpeg_report report;
    int created;
    FILE *file;                           // its own handle on the input (NULL: memory)
    const uint8_t *data;                  // or the input in memory
    size_t size;
    fc_huff_scan *fast;                   // this project's decoder, when the scan is plain
    uint64_t scan_offset;                 // the scan's first byte in the input
    int path;                             // fc_jpeg_decoder_entropy_path's bits
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    JBLOCK *ring;
    size_t chunk;                         // MCUs per chunk
    int blocks;                           // blocks per MCU
    size_t total;                         // MCUs in the scan
    // Under the lock:
    size_t produced;                      // MCUs in the ring, published chunk by chunk
    size_t consumed;                      // MCUs taken, published chunk by chunk
    int state;                            // 0 running, 1 done, 2 failed
    int stop;                             // the decoder is being freed
    // The pixel decompressor's own (its thread only):
    size_t taken, available;
} fc_entropy_thread;

static JBLOCK *fc_entropy_slot(fc_entropy_thread *t, size_t mcu) {
    return t->ring + (mcu % (t->chunk * FC_ENTROPY_CHUNKS)) * (size_t)t->blocks;
}

/// Publishes the MCUs before `i` and waits for room for the chunk that starts at `i`; when
/// the decoder is being freed, ends the thread instead.
static void fc_entropy_room(fc_entropy_thread *t, size_t i) {
    pthread_mutex_lock(&t->lock);
    t->produced = i;
    pthread_cond_broadcast(&t->changed);
    while (i + t->chunk > t->consumed + t->chunk * FC_ENTROPY_CHUNKS && !t->stop)
        pthread_cond_wait(&t->changed, &t->lock);
    int stop = t->stop;
    pthread_mutex_unlock(&t->lock);
    if (stop) {
        snprintf(t->report.message, FC_JPEG_MESSAGE_MAX, "stopped");
        longjmp(t->err.jump, 1);
    }
}

static void fc_entropy_end(fc_entropy_thread *t, int state) {
    pthread_mutex_lock(&t->lock);
    if (state == 1) t->produced = t->total;
    t->state = state;
    pthread_cond_broadcast(&t->changed);
    pthread_mutex_unlock(&t->lock);
}

/// The entropy thread: Huffman-decodes every MCU of the scan into the ring, then reads the
/// file to its end as jpeg_finish_decompress would.
///
/// A plain scan is decoded by fc_jpeg_huffman.c (on two threads when large), whose MCUs are
/// libjpeg's. Where it cannot give an MCU (damage, a marker in the scan), libjpeg decodes the
/// scan from its start, drops the MCUs already handed over, and goes on from there, with its
/// own warnings; where the scan does not end plainly (at EOI), libjpeg decodes it all once
/// more, dropping every MCU, to read what follows as it would. A valid file is decoded once.
static void *fc_entropy_main(void *arg) {
    fc_entropy_thread *t = arg;
    j_decompress_ptr a = &t->cinfo;
    if (setjmp(t->err.jump)) {
        fc_entropy_end(t, 2);
        return NULL;
    }
    JBLOCKROW blocks[D_MAX_BLOCKS_IN_MCU];
    size_t from = 0;
    if (t->fast && fc_huff_scan_load(t->fast, t->data, t->size, t->file, t->scan_offset)) {
        for (; from < t->total; from++) {
            if (from % t->chunk == 0) fc_entropy_room(t, from);
            // The slot is zero (the ring starts zeroed and the taker zeroes what it took).
            JBLOCK *slot = fc_entropy_slot(t, from);
            for (int b = 0; b < t->blocks; b++) blocks[b] = slot + b;
            if (!fc_huff_scan_next(t->fast, blocks)) break;
        }
        int clean = from == t->total && fc_huff_scan_ended_cleanly(t->fast);
        t->path = (clean ? 1 : 0) | (fc_huff_scan_was_split(t->fast) ? 2 : 0);
        fc_huff_scan_free(t->fast);
        t->fast = NULL;
        if (clean) {
            fc_entropy_end(t, 1);
            return NULL;
        }
        if (from == t->total) {
            // Every MCU is libjpeg's: the pixels need not wait for libjpeg's reading.
            pthread_mutex_lock(&t->lock);
            t->produced = t->total;
            pthread_cond_broadcast(&t->changed);
            pthread_mutex_unlock(&t->lock);
        }
    }
    t->err.muted = 1;
    jpeg_read_header(a, TRUE);
    // Raw output: no upsampler or colour converter is set up for this decompressor.
    a->raw_data_out = TRUE;
    jpeg_start_decompress(a);
    t->err.muted = 0;
    if ((size_t)a->MCUs_per_row * a->MCU_rows_in_scan != t->total || a->blocks_in_MCU != t->blocks) {
        snprintf(t->report.message, FC_JPEG_MESSAGE_MAX, "the scan's layout changed between readings");
        longjmp(t->err.jump, 1);
    }
    // The MCUs handed over already: decoded again and dropped.
    JBLOCK scratch[D_MAX_BLOCKS_IN_MCU];
    for (int b = 0; b < t->blocks; b++) blocks[b] = scratch + b;
    for (size_t i = 0; i < from; i++)
        if (!(*a->entropy->decode_mcu)(a, blocks)) ERREXIT(a, JERR_CANT_SUSPEND);
    for (size_t i = from; i < t->total; i++) {
        if (i % t->chunk == 0) fc_entropy_room(t, i);
        // The slot is zero: the decoder writes only the non-zero coefficients.
        JBLOCK *slot = fc_entropy_slot(t, i);
        for (int b = 0; b < t->blocks; b++) blocks[b] = slot + b;
        if (!(*a->entropy->decode_mcu)(a, blocks)) ERREXIT(a, JERR_CANT_SUSPEND);
    }
    pthread_mutex_lock(&t->lock);
    t->produced = t->total;
    pthread_cond_broadcast(&t->changed);
    pthread_mutex_unlock(&t->lock);
    // What jpeg_finish_decompress reads: the markers after the scan, up to EOI.
    (*a->inputctl->finish_input_pass)(a);
    while (!a->inputctl->eoi_reached)
        if ((*a->inputctl->consume_input)(a) == JPEG_SUSPENDED) break;
    fc_entropy_end(t, 1);
    return NULL;
}

/// The pixel decompressor's decode_mcu: the next MCU's blocks from the ring.
static boolean fc_entropy_take(j_decompress_ptr cinfo, JBLOCKROW *MCU_data) {
    fc_jpeg_decoder *d = (fc_jpeg_decoder *)cinfo;  // cinfo is the decoder's first member
    fc_entropy_thread *t = d->entropy;
    size_t i = t->taken;
    if (i >= t->available) {
        pthread_mutex_lock(&t->lock);
        // Until the MCU is there, or the thread has ended (failed, or, which cannot happen,
        // done without it: that fails too rather than waiting for ever).
        while (t->produced <= i && t->state == 0) pthread_cond_wait(&t->changed, &t->lock);
        t->available = t->produced;
        int failed = t->produced <= i;
        int done = t->state == 1;
        pthread_mutex_unlock(&t->lock);
        if (failed) {
            if (done) snprintf(d->report.message, FC_JPEG_MESSAGE_MAX, "the scan ended before MCU %zu", i);
            else memcpy(d->report.message, t->report.message, FC_JPEG_MESSAGE_MAX);
            longjmp(d->err.jump, 1);
        }
    }
    JBLOCK *slot = fc_entropy_slot(t, i);
    for (int b = 0; b < t->blocks; b++) memcpy(MCU_data[b], slot[b], sizeof(JBLOCK));
    t->taken = ++i;
    if (i % t->chunk == 0 || i == t->total) {
        size_t first = (i - 1) / t->chunk * t->chunk;
        memset(fc_entropy_slot(t, first), 0, (i - first) * (size_t)t->blocks * sizeof(JBLOCK));
        pthread_mutex_lock(&t->lock);
        t->consumed = i;
        pthread_cond_broadcast(&t->changed);
        pthread_mutex_unlock(&t->lock);
    }
    return TRUE;
}

static void fc_entropy_release(fc_entropy_thread *t) {
    fc_huff_scan_free(t->fast);
    if (t->created) jpeg_destroy_decompress(&t->cinfo);
    if (t->file) fclose(t->file);
    free(t->ring);
    pthread_cond_destroy(&t->changed);
    pthread_mutex_destroy(&t->lock);
    free(t);
}

/// Starts the entropy thread when the file qualifies; otherwise (or when anything is
/// missing) decoding stays on one thread. Called right after jpeg_start_decompress.
static void fc_entropy_start(fc_jpeg_decoder *d) {
    j_decompress_ptr c = &d->cinfo;
    size_t total = (size_t)c->MCUs_per_row * c->MCU_rows_in_scan;
    // One scan only. The scan fields describe the last scan read: a file of several scans
    // (found by the fuzzer: a one-component scan, then one of all three) was decoded whole
    // into libjpeg's coefficient buffer by jpeg_start_decompress, and its last scan may look
    // like a single interleaved one.
    if (c->inputctl->has_multiple_scans || c->progressive_mode || c->arith_code || c->buffered_image
        || c->comps_in_scan != c->num_components || total < d->parallel_min_mcus
        || c->blocks_in_MCU < 1 || c->blocks_in_MCU > D_MAX_BLOCKS_IN_MCU)
        return;
    fc_entropy_thread *t = calloc(1, sizeof *t);
    if (!t) return;
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->changed, NULL);
    t->blocks = c->blocks_in_MCU;
    t->total = total;
    t->chunk = d->parallel_chunk;
    size_t ring_bytes = t->chunk * FC_ENTROPY_CHUNKS * (size_t)t->blocks * sizeof(JBLOCK);
    t->ring = fc_jpeg_big_alloc(ring_bytes);
    if (t->ring) memset(t->ring, 0, ring_bytes);
    t->data = d->data;
    t->size = d->size;
    // This project's decoder reads the scan from its first byte, where the decompressor's
    // source is now (jpeg_start_decompress of a one-scan file reads no entropy-coded data).
    if (!d->file) {
        t->fast = fc_huff_scan_new(c, d->parallel_split);
        t->scan_offset = (uint64_t)(c->src->next_input_byte - d->data);
    } else {
        long at = ftell(d->file);
        if (at >= 0 && (uint64_t)at >= c->src->bytes_in_buffer) {
            t->fast = fc_huff_scan_new(c, d->parallel_split);
            t->scan_offset = (uint64_t)at - c->src->bytes_in_buffer;
        }
    }
    if (d->file) {
        // A handle of its own, at the start of the file.
        int fd = dup(fileno(d->file));
        t->file = fd >= 0 ? fdopen(fd, "rb") : NULL;
        if (!t->file && fd >= 0) close(fd);
        if (t->file && fseek(t->file, 0, SEEK_SET) != 0) {
            fclose(t->file);
            t->file = NULL;
        }
    }
    if (!t->ring || (d->file && !t->file)) {
        fc_entropy_release(t);
        return;
    }
    fc_error_init(&t->err, &t->report, d->err.strict);
    t->cinfo.err = &t->err.pub;
    if (setjmp(t->err.jump)) {  // jpeg_create_decompress can fail (out of memory)
        fc_entropy_release(t);
        return;
    }
    jpeg_create_decompress(&t->cinfo);
    t->created = 1;
    if (t->file) fc_file_src(&t->cinfo, t->file);
    else jpeg_mem_src(&t->cinfo, (unsigned char *)d->data, (unsigned long)d->size);
    if (pthread_create(&t->thread, NULL, fc_entropy_main, t) != 0) {
        fc_entropy_release(t);
        return;
    }
    d->entropy = t;
    d->used_parallel = 1;
    c->entropy->decode_mcu = fc_entropy_take;
}

/// Waits for the entropy thread to end, after telling it to stop when `stop` (it may be
/// waiting for room), and detaches it from the decoder.
static fc_entropy_thread *fc_entropy_join(fc_jpeg_decoder *d, int stop) {
    fc_entropy_thread *t = d->entropy;
    if (stop) {
        pthread_mutex_lock(&t->lock);
        t->stop = 1;
        pthread_cond_broadcast(&t->changed);
        pthread_mutex_unlock(&t->lock);
    }
    pthread_join(t->thread, NULL);
    d->entropy = NULL;
    d->entropy_path |= t->path;
    return t;
}

/// Waits for the entropy thread to end and merges its report; 0 when it failed (its
/// message is then the decoder's).
static int fc_entropy_finish(fc_jpeg_decoder *d) {
    // Finished before the last row (which jpeg_finish_decompress refuses too): the thread
    // may be waiting for room that will never come.
    int early = d->entropy->taken < d->entropy->total;
    fc_entropy_thread *t = fc_entropy_join(d, early);
    int ok = t->state == 1 && !early;
    if (early) {
        // jpeg_finish_decompress's own message for it.
        d->cinfo.err->msg_code = JERR_TOO_LITTLE_DATA;
        (*d->cinfo.err->format_message)((j_common_ptr)&d->cinfo, d->report.message);
    } else if (!ok) {
        memcpy(d->report.message, t->report.message, FC_JPEG_MESSAGE_MAX);
    }
    d->report.harmless |= t->report.harmless;
    if (t->report.warning_count > 0 && d->report.warning_count == 0)
        memcpy(d->report.first_warning, t->report.first_warning, FC_JPEG_MESSAGE_MAX);
    d->report.warning_count += t->report.warning_count;
    fc_entropy_release(t);
    return ok;
}

/// Stops the entropy thread (the decoder is being freed).
static void fc_entropy_stop(fc_jpeg_decoder *d) {
    if (d->entropy) fc_entropy_release(fc_entropy_join(d, 1));
}

#endif

void fc_jpeg_decoder_parallel(fc_jpeg_decoder *d, unsigned min_mcus, unsigned chunk_mcus,
                              unsigned split_mcus) {
    if (d->started) return;
    d->parallel_min_mcus = min_mcus;
    d->parallel_chunk = chunk_mcus ? chunk_mcus : 512;
    d->parallel_split = split_mcus;
}

int fc_jpeg_decoder_is_parallel(const fc_jpeg_decoder *d) { return d->used_parallel; }

int fc_jpeg_decoder_entropy_path(const fc_jpeg_decoder *d) { return d->entropy_path; }

void fc_jpeg_decoder_release_input(fc_jpeg_decoder *d) {
#if FC_JPEG_PARALLEL
    fc_entropy_stop(d);
#else
    (void)d;
#endif
}

// MARK: - Encoder

struct fc_jpeg_encoder {
    struct jpeg_compress_struct cinfo;
    fc_error_mgr err;
    fc_jpeg_report report;
    int created, started, failed;
    int inks;
    uint8_t *inverted;   // one row of inverted inks
};

fc_jpeg_encoder *fc_jpeg_encoder_new(void) {
    fc_jpeg_encoder *e = calloc(1, sizeof *e);
    if (e) fc_error_init(&e->err, &e->report, 1);
    return e;
}

void fc_jpeg_encoder_free(fc_jpeg_encoder *e) {
    if (!e) return;
    if (e->created) jpeg_destroy_compress(&e->cinfo);
    free(e->inverted);
    free(e);
}

const fc_jpeg_report *fc_jpeg_encoder_report(const fc_jpeg_encoder *e) { return &e->report; }

// MARK: - Metadata markers (XMP, comments, density, quantisation): see fc_jpeg.h

const uint8_t *fc_jpeg_decoder_marker(const fc_jpeg_decoder *d, int index, int *marker,
                                      size_t *length) {
    if (!d->created) return NULL;
    int i = 0;
    for (jpeg_saved_marker_ptr m = d->cinfo.marker_list; m; m = m->next) {
        int mpf = m->marker == JPEG_APP0 + 2 && m->data_length >= 4 && memcmp(m->data, "MPF", 4) == 0;
        if (m->marker != JPEG_APP0 + 1 && m->marker != JPEG_COM && !mpf) continue;
        if (i++ < index) continue;
        *marker = m->marker;
        *length = m->data_length;
        return m->data;
    }
    return NULL;
}

int fc_jpeg_decoder_density(const fc_jpeg_decoder *d, int *unit, int *x, int *y) {
    if (!d->created || !d->cinfo.saw_JFIF_marker) return 0;
    *unit = d->cinfo.density_unit;
    *x = d->cinfo.X_density;
    *y = d->cinfo.Y_density;
    return 1;
}

int fc_jpeg_decoder_quant_table(const fc_jpeg_decoder *d, int index, uint16_t table[64]) {
    if (!d->created || index < 0 || index >= NUM_QUANT_TBLS) return 0;
    const JQUANT_TBL *q = d->cinfo.quant_tbl_ptrs[index];
    if (!q) return 0;
    for (int i = 0; i < 64; i++) table[i] = q->quantval[i];
    return 1;
}

int fc_jpeg_decoder_sampling(const fc_jpeg_decoder *d, int *h, int *v) {
    if (!d->created || d->cinfo.num_components != 3) return 0;
    const jpeg_component_info *c = d->cinfo.comp_info;
    if (c[1].h_samp_factor != c[2].h_samp_factor || c[1].v_samp_factor != c[2].v_samp_factor ||
        c[1].h_samp_factor == 0 || c[1].v_samp_factor == 0)
        return 0;
    *h = c[0].h_samp_factor / c[1].h_samp_factor;
    *v = c[0].v_samp_factor / c[1].v_samp_factor;
    return 1;
}

static void fc_jpeg_set_density(fc_jpeg_encoder *e, const fc_jpeg_encode_options *o) {
    if (o->x_density <= 0 || o->y_density <= 0) return;
    e->cinfo.density_unit = (UINT8)o->density_unit;
    e->cinfo.X_density = (UINT16)o->x_density;
    e->cinfo.Y_density = (UINT16)o->y_density;
}

static void fc_jpeg_write_markers(fc_jpeg_encoder *e, const fc_jpeg_encode_options *o) {
    for (int i = 0; i < o->marker_count; i++) {
        const fc_jpeg_marker *m = &o->markers[i];
        if (m->length > 65533) continue;  // the Swift side splits or leaves out larger data
        jpeg_write_marker(&e->cinfo, m->marker, m->data, (unsigned)m->length);
    }
}

// The largest APP1 payload a marker can carry, less the "Exif\0\0" prefix.
#define FC_EXIF_MAX (65533 - 6)

fc_status fc_jpeg_encoder_start(fc_jpeg_encoder *e, FILE *file,
                                const fc_jpeg_encode_options *o) {
    if (e->failed || e->created) return FC_FAILED;
    if (setjmp(e->err.jump)) {
        e->failed = 1;
        return FC_FAILED;
    }
    e->cinfo.err = &e->err.pub;
    jpeg_create_compress(&e->cinfo);
    e->created = 1;
    fc_file_dest(&e->cinfo, file);
    e->cinfo.image_width = o->width;
    e->cinfo.image_height = o->height;
    int inks = o->inks && o->channels == 4;
    // A TIFF strip's other layouts are components as given (libjpeg's JCS_UNKNOWN).
    int as_given = o->tiff_strip && !inks && (o->channels == 2 || o->channels == 4);
    if (!inks && !as_given && o->channels != 1 && o->channels != 3) {
        snprintf(e->report.message, FC_JPEG_MESSAGE_MAX, "JPEG rows are grey, RGB or CMYK");
        e->failed = 1;
        return FC_FAILED;
    }
    // A TIFF holds ink amounts as they are (0 = no ink); only a .jpg stores them inverted.
    e->inks = inks && !o->tiff_strip;
    if (e->inks) {
        e->inverted = malloc((size_t)o->width * 4);
        if (!e->inverted) { e->failed = 1; return FC_NO_MEMORY; }
    }
    e->cinfo.input_components = o->channels;
    e->cinfo.in_color_space = inks ? JCS_CMYK : as_given ? JCS_UNKNOWN : o->channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&e->cinfo);
    // CMYK is stored as CMYK (not YCCK), with libjpeg's Adobe marker (transform 0).
    if (inks) jpeg_set_colorspace(&e->cinfo, JCS_CMYK);
    jpeg_set_quality(&e->cinfo, o->quality, TRUE);
    if (o->tiff_strip) {
        e->cinfo.write_JFIF_header = FALSE;
        e->cinfo.write_Adobe_marker = FALSE;
    }
    if (!inks && o->luma_table && o->chroma_table) {
        unsigned luma[64], chroma[64];
        for (int k = 0; k < 64; k++) {
            luma[k] = o->luma_table[k];
            chroma[k] = o->chroma_table[k];
        }
        jpeg_add_quant_table(&e->cinfo, 0, luma, 100, TRUE);
        jpeg_add_quant_table(&e->cinfo, 1, chroma, 100, TRUE);
    }
    if (o->channels == 3) {
        // subsample 1: 4:2:0, 2: 4:2:2, 0: 4:4:4.
        e->cinfo.comp_info[0].h_samp_factor = o->subsample ? 2 : 1;
        e->cinfo.comp_info[0].v_samp_factor = o->subsample == 1 ? 2 : 1;
        for (int i = 1; i < 3; i++) {
            e->cinfo.comp_info[i].h_samp_factor = 1;
            e->cinfo.comp_info[i].v_samp_factor = 1;
        }
    }
    if (o->progressive) jpeg_simple_progression(&e->cinfo);
    if (o->optimize) e->cinfo.optimize_coding = TRUE;
    if (o->restart_interval > 0 && o->restart_interval <= 65535)
        e->cinfo.restart_interval = (unsigned int)o->restart_interval;
    if (o->huffman && !o->optimize && !o->progressive && !inks) {
        const uint8_t *p = o->huffman;
        JHUFF_TBL **slots[4] = {&e->cinfo.dc_huff_tbl_ptrs[0], &e->cinfo.dc_huff_tbl_ptrs[1],
                                &e->cinfo.ac_huff_tbl_ptrs[0], &e->cinfo.ac_huff_tbl_ptrs[1]};
        for (int t = 0; t < 4; t++) {
            if (!*slots[t]) *slots[t] = jpeg_alloc_huff_table((j_common_ptr)&e->cinfo);
            JHUFF_TBL *table = *slots[t];
            int n = 0;
            table->bits[0] = 0;
            for (int i = 1; i <= 16; i++) n += table->bits[i] = *p++;
            for (int i = 0; i < n && i < 256; i++) table->huffval[i] = *p++;
            table->sent_table = FALSE;
        }
    }
    fc_jpeg_set_density(e, o);
    jpeg_start_compress(&e->cinfo, TRUE);
    if (o->exif && o->exif_length > 0 && o->exif_length <= FC_EXIF_MAX) {
        jpeg_write_m_header(&e->cinfo, JPEG_APP0 + 1, (unsigned)(o->exif_length + 6));
        const char prefix[6] = {'E', 'x', 'i', 'f', 0, 0};
        for (int i = 0; i < 6; i++) jpeg_write_m_byte(&e->cinfo, prefix[i]);
        for (size_t i = 0; i < o->exif_length; i++) jpeg_write_m_byte(&e->cinfo, o->exif[i]);
    }
    if (o->icc && o->icc_length > 0)
        jpeg_write_icc_profile(&e->cinfo, o->icc, (unsigned)o->icc_length);
    fc_jpeg_write_markers(e, o);
    e->started = 1;
    return FC_OK;
}

fc_status fc_jpeg_encoder_write(fc_jpeg_encoder *e, const uint8_t *src, size_t stride,
                                uint32_t rows) {
    if (e->failed || !e->started) return FC_FAILED;
    if (setjmp(e->err.jump)) {
        e->failed = 1;
        return FC_FAILED;
    }
    uint32_t done = 0;
    while (done < rows) {
        JSAMPROW pointers[16];
        if (e->inks) {
            // Adobe CMYK: 255 - ink (255 = no ink), one row at a time.
            const uint8_t *row = src + (size_t)done * stride;
            size_t n = (size_t)e->cinfo.image_width * 4;
            uint8_t *inverted = e->inverted;   // in a local, for the loop to be vectorised
            for (size_t i = 0; i < n; i++) inverted[i] = (uint8_t)(255 - row[i]);
            pointers[0] = e->inverted;
            done += jpeg_write_scanlines(&e->cinfo, pointers, 1);
            continue;
        }
        uint32_t n = rows - done < 16 ? rows - done : 16;
        for (uint32_t i = 0; i < n; i++)
            pointers[i] = (JSAMPROW)(src + (size_t)(done + i) * stride);
        done += jpeg_write_scanlines(&e->cinfo, pointers, n);
    }
    return FC_OK;
}

fc_status fc_jpeg_encoder_finish(fc_jpeg_encoder *e) {
    if (e->failed || !e->started) return FC_FAILED;
    if (setjmp(e->err.jump)) {
        e->failed = 1;
        return FC_FAILED;
    }
    jpeg_finish_compress(&e->cinfo);
    return FC_OK;
}

// MARK: - Coefficients (what the quantiser chose; for tests and inspection)

long fc_jpeg_coefficients(const uint8_t *data, size_t length, int component, int16_t *out,
                          size_t capacity, uint32_t *blocks_wide) {
    struct jpeg_decompress_struct cinfo;
    fc_error_mgr err;
    fc_jpeg_report report;
    memset(&report, 0, sizeof report);
    fc_error_init(&err, &report, 1);
    cinfo.err = &err.pub;
    if (setjmp(err.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    jpeg_read_header(&cinfo, TRUE);
    jvirt_barray_ptr *arrays = jpeg_read_coefficients(&cinfo);
    if (component < 0 || component >= cinfo.num_components) {
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    jpeg_component_info *c = &cinfo.comp_info[component];
    size_t total = (size_t)c->width_in_blocks * c->height_in_blocks;
    if (total * 64 > capacity) {
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    for (JDIMENSION y = 0; y < c->height_in_blocks; y++) {
        JBLOCKARRAY row = (*cinfo.mem->access_virt_barray)((j_common_ptr)&cinfo, arrays[component], y, 1, FALSE);
        for (JDIMENSION x = 0; x < c->width_in_blocks; x++)
            for (int k = 0; k < 64; k++) out[((size_t)y * c->width_in_blocks + x) * 64 + k] = row[0][x][k];
    }
    *blocks_wide = c->width_in_blocks;
    jpeg_destroy_decompress(&cinfo);
    return (long)total;
}
