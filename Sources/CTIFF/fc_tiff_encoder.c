// Writing TIFF: IFD0 through libtiff on the output file, strips compressed apart (see fc_tiff.h).
#include "fc_tiff.h"
#include "fc_tiff_library.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <tiffio.h>

// No single allocation of libtiff's may exceed this (a strip is far smaller).
#define FC_TIFF_ENCODER_MAX_ALLOC ((tmsize_t)1 << 30)

struct fc_tiff_encoder {
    char name[256];
    FILE *file;        // NULL once the encoder is being freed: libtiff then writes nothing
    fc_tiff_report report;
    int have_error, warning_count, write_errno;
    TIFFOpenOptions *opts;
    TIFF *tif;
    int strips_written;
};

// ---- messages -----------------------------------------------------------------------------

typedef struct {
    fc_tiff_report *report;
    int have_error, warning_count;
} fc_tiff_log;

static void fc_tiff_log_error(fc_tiff_report *report, int *have_error, const char *fmt, va_list ap) {
    if (*have_error) return;  // the first error is the cause; later ones follow from it
    vsnprintf(report->message, sizeof report->message, fmt, ap);
    *have_error = 1;
}

static void fc_tiff_log_warning(fc_tiff_report *report, int *count, const char *fmt, va_list ap) {
    if ((*count)++ >= 4) return;
    char line[FC_TIFF_MESSAGE_MAX];
    vsnprintf(line, sizeof line, fmt, ap);
    size_t used = strlen(report->warnings);
    snprintf(report->warnings + used, sizeof report->warnings - used, "%s%s", used ? "\n" : "", line);
}

static int fc_tiff_encoder_on_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif; (void)module;
    fc_tiff_encoder *e = user;
    fc_tiff_log_error(&e->report, &e->have_error, fmt, ap);
    return 1;  // handled: libtiff prints nothing
}

static int fc_tiff_encoder_on_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif; (void)module;
    fc_tiff_encoder *e = user;
    fc_tiff_log_warning(&e->report, &e->warning_count, fmt, ap);
    return 1;
}

static int fc_tiff_strip_on_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif; (void)module;
    fc_tiff_log *log = user;
    fc_tiff_log_error(log->report, &log->have_error, fmt, ap);
    return 1;
}

static int fc_tiff_strip_on_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif; (void)module;
    fc_tiff_log *log = user;
    fc_tiff_log_warning(log->report, &log->warning_count, fmt, ap);
    return 1;
}

static fc_status fc_tiff_encoder_say(fc_tiff_encoder *e, fc_status status, const char *what) {
    if (!e->have_error) {
        snprintf(e->report.message, sizeof e->report.message, "%s", what);
        e->have_error = 1;
    }
    return e->write_errno ? FC_WRITE_FAILED : status;
}

// ---- the output file's I/O: every failure keeps its errno ---------------------------------

static tmsize_t fc_tiff_file_read(thandle_t h, void *buf, tmsize_t size) {
    fc_tiff_encoder *e = (fc_tiff_encoder *)h;
    if (!e->file || size <= 0) return 0;
    return (tmsize_t)fread(buf, 1, (size_t)size, e->file);
}

static tmsize_t fc_tiff_file_write(thandle_t h, void *buf, tmsize_t size) {
    fc_tiff_encoder *e = (fc_tiff_encoder *)h;
    if (!e->file) return 0;
    if (size <= 0) return size;
    errno = 0;
    size_t n = fwrite(buf, 1, (size_t)size, e->file);
    if (n != (size_t)size && !e->write_errno) e->write_errno = errno ? errno : EIO;
    return (tmsize_t)n;
}

static toff_t fc_tiff_file_seek(thandle_t h, toff_t off, int whence) {
    fc_tiff_encoder *e = (fc_tiff_encoder *)h;
    if (!e->file) return (toff_t)-1;
    errno = 0;
    if (fseeko(e->file, (off_t)off, whence) != 0) {
        if (!e->write_errno) e->write_errno = errno ? errno : EIO;
        return (toff_t)-1;
    }
    off_t at = ftello(e->file);
    return at < 0 ? (toff_t)-1 : (toff_t)at;
}

static int fc_tiff_file_close(thandle_t h) { (void)h; return 0; }  // the caller owns the file

static toff_t fc_tiff_file_size(thandle_t h) {
    fc_tiff_encoder *e = (fc_tiff_encoder *)h;
    if (!e->file) return 0;
    off_t here = ftello(e->file);
    if (here < 0 || fseeko(e->file, 0, SEEK_END) != 0) return 0;
    off_t end = ftello(e->file);
    if (fseeko(e->file, here, SEEK_SET) != 0) return 0;
    return end < 0 ? 0 : (toff_t)end;
}

static int fc_tiff_no_map(thandle_t h, void **base, toff_t *size) { (void)h; (void)base; (void)size; return 0; }
static void fc_tiff_no_unmap(thandle_t h, void *base, toff_t size) { (void)h; (void)base; (void)size; }

// ---- the tags every strip and the file agree on ------------------------------------------

static uint16_t fc_tiff_compression_tag(fc_tiff_compression c) {
    switch (c) {
    case FC_TIFF_COMPRESS_LZW: return COMPRESSION_LZW;
    case FC_TIFF_COMPRESS_DEFLATE: return COMPRESSION_ADOBE_DEFLATE;
    case FC_TIFF_COMPRESS_ZSTD: return COMPRESSION_ZSTD;
    case FC_TIFF_COMPRESS_JPEG: return COMPRESSION_JPEG;
    default: return COMPRESSION_NONE;
    }
}

// JPEG-compressed RGB is stored as YCbCr (libjpeg converts; readers expect it), its chroma
// subsampled as the layout says (4:2:0, 4:2:2 or 4:4:4), as a .jpg output would be.
static int fc_tiff_ycbcr(const fc_tiff_layout *l) { return l->compression == FC_TIFF_COMPRESS_JPEG && l->channels == 3; }

// Sets the layout's tags on `tif` for an image of `rows` rows in strips of `rows_per_strip`.
// `strip`: a strip compressed on its own (deflate's level, a pseudo-tag, is set too).
static int fc_tiff_set_layout(TIFF *tif, const fc_tiff_layout *l, uint32_t rows, uint32_t rows_per_strip, int strip) {
    uint16_t photometric = l->inks ? PHOTOMETRIC_SEPARATED
        : l->channels <= 2 ? PHOTOMETRIC_MINISBLACK : fc_tiff_ycbcr(l) ? PHOTOMETRIC_YCBCR : PHOTOMETRIC_RGB;
    if (!fc_libtiff.TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, l->width) || !fc_libtiff.TIFFSetField(tif, TIFFTAG_IMAGELENGTH, rows)
        || !fc_libtiff.TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, (uint16_t)l->depth)
        || !fc_libtiff.TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)l->channels)
        || !fc_libtiff.TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, l->depth == 32 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT)
        || !fc_libtiff.TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG)
        || !fc_libtiff.TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, photometric)
        || !fc_libtiff.TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, rows_per_strip))
        return 0;
    if (l->inks) {
        if (!fc_libtiff.TIFFSetField(tif, TIFFTAG_INKSET, INKSET_CMYK)) return 0;
    } else if (l->channels == 2 || l->channels == 4) {
        uint16_t kinds[1] = { EXTRASAMPLE_UNASSALPHA };
        if (!fc_libtiff.TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, (uint16_t)1, kinds)) return 0;
    }
    if (!fc_libtiff.TIFFSetField(tif, TIFFTAG_COMPRESSION, fc_tiff_compression_tag(l->compression))) return 0;
    switch (l->compression) {
    case FC_TIFF_COMPRESS_LZW: case FC_TIFF_COMPRESS_DEFLATE: case FC_TIFF_COMPRESS_ZSTD:
        // Floats take the floating-point predictor (bytes of each sample regrouped, then
        // differenced), which suits them as the horizontal one suits integers.
        if (!fc_libtiff.TIFFSetField(tif, TIFFTAG_PREDICTOR, l->depth == 32 ? PREDICTOR_FLOATINGPOINT : PREDICTOR_HORIZONTAL)) return 0;
        if (strip && l->compression == FC_TIFF_COMPRESS_DEFLATE
            && !fc_libtiff.TIFFSetField(tif, TIFFTAG_ZIPQUALITY, l->level)) return 0;
        break;
    case FC_TIFF_COMPRESS_JPEG:
        if (fc_tiff_ycbcr(l)) {
            float reference[6] = { 0, 255, 128, 255, 128, 255 };
            uint16_t h = l->chroma_h == 1 ? 1 : 2, v = l->chroma_v == 1 ? 1 : 2;
            if (!fc_libtiff.TIFFSetField(tif, TIFFTAG_YCBCRSUBSAMPLING, h, v)
                || !fc_libtiff.TIFFSetField(tif, TIFFTAG_REFERENCEBLACKWHITE, reference))
                return 0;
        }
        // Each strip is a whole JPEG with its own tables, so there is no JPEGTables tag.
        break;
    default: break;
    }
    return 1;
}

// ---- the encoder --------------------------------------------------------------------------

fc_tiff_encoder *fc_tiff_encoder_new(const char *name, FILE *file) {
    fc_tiff_encoder *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    snprintf(e->name, sizeof e->name, "%s", name);
    e->file = file;
    return e;
}

void fc_tiff_encoder_free(fc_tiff_encoder *e) {
    if (!e) return;
    e->file = NULL;  // whatever libtiff still flushes goes nowhere (the file may be gone)
    if (e->tif) fc_libtiff.TIFFClose(e->tif);
    if (e->opts) fc_libtiff.TIFFOpenOptionsFree(e->opts);
    free(e);
}

const fc_tiff_report *fc_tiff_encoder_report(const fc_tiff_encoder *e) { return &e->report; }
int fc_tiff_encoder_errno(const fc_tiff_encoder *e) { return e->write_errno; }

fc_status fc_tiff_encoder_open(fc_tiff_encoder *e, const fc_tiff_layout *l, const fc_tiff_metadata *m) {
    if (!fc_libtiff.TIFFIsCODECConfigured(fc_tiff_compression_tag(l->compression))) {
        const TIFFCodec *c = fc_libtiff.TIFFFindCODEC(fc_tiff_compression_tag(l->compression));
        snprintf(e->report.message, sizeof e->report.message, "this libtiff was built without the %s codec", c ? c->name : "?");
        e->have_error = 1;
        return FC_UNSUPPORTED;
    }
    e->opts = fc_libtiff.TIFFOpenOptionsAlloc();
    if (!e->opts) return FC_NO_MEMORY;
    fc_libtiff.TIFFOpenOptionsSetMaxSingleMemAlloc(e->opts, FC_TIFF_ENCODER_MAX_ALLOC);
    fc_libtiff.TIFFOpenOptionsSetErrorHandlerExtR(e->opts, fc_tiff_encoder_on_error, e);
    fc_libtiff.TIFFOpenOptionsSetWarningHandlerExtR(e->opts, fc_tiff_encoder_on_warning, e);
    // "w": classic TIFF in the host's byte order; "m": never map the file.
    e->tif = fc_libtiff.TIFFClientOpenExt(e->name, "wm", (thandle_t)e, fc_tiff_file_read, fc_tiff_file_write, fc_tiff_file_seek,
                               fc_tiff_file_close, fc_tiff_file_size, fc_tiff_no_map, fc_tiff_no_unmap, e->opts);
    if (!e->tif) return fc_tiff_encoder_say(e, FC_FAILED, "libtiff cannot start the file");
    TIFF *tif = e->tif;
    if (!fc_tiff_set_layout(tif, l, l->height, l->rows_per_strip, 0))
        return fc_tiff_encoder_say(e, FC_FAILED, "libtiff refused the image's layout");
    int ok = 1;
    if (m->icc) ok = ok && fc_libtiff.TIFFSetField(tif, TIFFTAG_ICCPROFILE, (uint32_t)m->icc_length, m->icc);
    if (m->xmp) ok = ok && fc_libtiff.TIFFSetField(tif, TIFFTAG_XMLPACKET, (uint32_t)m->xmp_length, m->xmp);
    if (m->resolution_unit) {
        ok = ok && fc_libtiff.TIFFSetField(tif, TIFFTAG_XRESOLUTION, m->x_resolution)
                && fc_libtiff.TIFFSetField(tif, TIFFTAG_YRESOLUTION, m->y_resolution)
                && fc_libtiff.TIFFSetField(tif, TIFFTAG_RESOLUTIONUNIT, (uint16_t)m->resolution_unit);
    }
    if (m->orientation) ok = ok && fc_libtiff.TIFFSetField(tif, TIFFTAG_ORIENTATION, (uint16_t)m->orientation);
    if (!ok) return fc_tiff_encoder_say(e, FC_FAILED, "libtiff refused the metadata");
    return FC_OK;
}

fc_status fc_tiff_encoder_set_text(fc_tiff_encoder *e, uint16_t tag, const char *text) {
    if (!e->tif) return FC_FAILED;
    const TIFFField *f = fc_libtiff.TIFFFindField(e->tif, tag, TIFF_ASCII);
    if (!f) return fc_tiff_encoder_say(e, FC_FAILED, "not an ASCII tag libtiff knows");
    if (!fc_libtiff.TIFFSetField(e->tif, tag, text)) return fc_tiff_encoder_say(e, FC_FAILED, "libtiff refused a text tag");
    return FC_OK;
}

fc_status fc_tiff_encoder_end(fc_tiff_encoder *e, uint64_t *offset) {
    if (!e->tif || e->strips_written) return FC_FAILED;
    toff_t end = fc_tiff_file_seek((thandle_t)e, 0, SEEK_END);
    if (end == (toff_t)-1) return fc_tiff_encoder_say(e, FC_WRITE_FAILED, "cannot seek in the file");
    if (end & 1) {
        uint8_t zero = 0;
        if (fc_tiff_file_write((thandle_t)e, &zero, 1) != 1) return fc_tiff_encoder_say(e, FC_WRITE_FAILED, "write error");
        end++;
    }
    *offset = end;
    return FC_OK;
}

fc_status fc_tiff_encoder_append(fc_tiff_encoder *e, const uint8_t *bytes, size_t length) {
    if (!e->tif || e->strips_written) return FC_FAILED;
    if (fc_tiff_file_seek((thandle_t)e, 0, SEEK_END) == (toff_t)-1)
        return fc_tiff_encoder_say(e, FC_WRITE_FAILED, "cannot seek in the file");
    if (fc_tiff_file_write((thandle_t)e, (void *)bytes, (tmsize_t)length) != (tmsize_t)length)
        return fc_tiff_encoder_say(e, FC_WRITE_FAILED, "write error");
    return FC_OK;
}

fc_status fc_tiff_encoder_set_ifd(fc_tiff_encoder *e, uint16_t tag, uint64_t offset) {
    if (!e->tif || (tag != TIFFTAG_EXIFIFD && tag != TIFFTAG_GPSIFD)) return FC_FAILED;
    if (!fc_libtiff.TIFFSetField(e->tif, tag, offset)) return fc_tiff_encoder_say(e, FC_FAILED, "libtiff refused a sub-IFD");
    return FC_OK;
}

fc_status fc_tiff_encoder_write_strip(fc_tiff_encoder *e, uint32_t index, const uint8_t *bytes, size_t length) {
    if (!e->tif) return FC_FAILED;
    e->strips_written = 1;
    if (fc_libtiff.TIFFWriteRawStrip(e->tif, index, (void *)bytes, (tmsize_t)length) != (tmsize_t)length)
        return fc_tiff_encoder_say(e, FC_FAILED, "a strip could not be written");
    return FC_OK;
}

fc_status fc_tiff_encoder_finish(fc_tiff_encoder *e) {
    if (!e->tif) return FC_FAILED;
    if (!fc_libtiff.TIFFWriteDirectory(e->tif)) return fc_tiff_encoder_say(e, FC_FAILED, "the directory could not be written");
    if (e->write_errno) return fc_tiff_encoder_say(e, FC_WRITE_FAILED, "write error");
    return FC_OK;
}

// ---- one strip, compressed in a TIFF of its own in memory ---------------------------------

typedef struct {
    uint8_t *data;
    size_t size, capacity;
    uint64_t pos;
    int failed;  // out of memory
} fc_tiff_memory_file;

static tmsize_t fc_tiff_memory_read(thandle_t h, void *buf, tmsize_t size) {
    fc_tiff_memory_file *m = (fc_tiff_memory_file *)h;
    if (size <= 0 || m->pos >= m->size) return 0;
    size_t n = (size_t)size < m->size - m->pos ? (size_t)size : (size_t)(m->size - m->pos);
    memcpy(buf, m->data + m->pos, n);
    m->pos += n;
    return (tmsize_t)n;
}

static tmsize_t fc_tiff_memory_write(thandle_t h, void *buf, tmsize_t size) {
    fc_tiff_memory_file *m = (fc_tiff_memory_file *)h;
    if (size <= 0) return size;
    uint64_t end = m->pos + (uint64_t)size;
    if (end > (uint64_t)FC_TIFF_ENCODER_MAX_ALLOC) { m->failed = 1; return 0; }
    if (end > m->capacity) {
        size_t capacity = m->capacity ? m->capacity : 4096;
        while (capacity < end) capacity *= 2;
        uint8_t *grown = realloc(m->data, capacity);
        if (!grown) { m->failed = 1; return 0; }
        m->data = grown;
        m->capacity = capacity;
    }
    if (m->pos > m->size) memset(m->data + m->size, 0, (size_t)(m->pos - m->size));
    memcpy(m->data + m->pos, buf, (size_t)size);
    m->pos = end;
    if (end > m->size) m->size = (size_t)end;
    return size;
}

static toff_t fc_tiff_memory_seek(thandle_t h, toff_t off, int whence) {
    fc_tiff_memory_file *m = (fc_tiff_memory_file *)h;
    uint64_t base = whence == SEEK_CUR ? m->pos : whence == SEEK_END ? m->size : 0;
    m->pos = base + off;
    return m->pos;
}

static toff_t fc_tiff_memory_size(thandle_t h) { return ((fc_tiff_memory_file *)h)->size; }

fc_status fc_tiff_compress_strip(const char *name, const fc_tiff_layout *l, uint8_t *rows, uint32_t count,
                                 uint8_t **bytes, size_t *length, fc_tiff_report *report) {
    *bytes = NULL;
    *length = 0;
    fc_tiff_log log = { report, 0, 0 };
    if (l->compression == FC_TIFF_COMPRESS_JPEG) {
        snprintf(report->message, sizeof report->message, "JPEG strips are compressed by fc_jpeg, not here");
        return FC_FAILED;
    }
    size_t row_bytes = (size_t)l->width * (size_t)l->channels * (size_t)(l->depth / 8);
    size_t raw = row_bytes * count;
    fc_tiff_memory_file m = { NULL, 0, 0, 0, 0 };
    // Room for the header, the strip as stored and a little more: most strips never grow it.
    m.capacity = raw + raw / 8 + 4096;
    m.data = malloc(m.capacity);
    if (!m.data) return FC_NO_MEMORY;
    TIFFOpenOptions *opts = fc_libtiff.TIFFOpenOptionsAlloc();
    if (!opts) { free(m.data); return FC_NO_MEMORY; }
    fc_libtiff.TIFFOpenOptionsSetMaxSingleMemAlloc(opts, FC_TIFF_ENCODER_MAX_ALLOC);
    fc_libtiff.TIFFOpenOptionsSetErrorHandlerExtR(opts, fc_tiff_strip_on_error, &log);
    fc_libtiff.TIFFOpenOptionsSetWarningHandlerExtR(opts, fc_tiff_strip_on_warning, &log);
    TIFF *tif = fc_libtiff.TIFFClientOpenExt(name, "wm", (thandle_t)&m, fc_tiff_memory_read, fc_tiff_memory_write, fc_tiff_memory_seek,
                                  fc_tiff_file_close, fc_tiff_memory_size, fc_tiff_no_map, fc_tiff_no_unmap, opts);
    fc_status status = FC_OK;
    uint64_t offset = 0, stored = 0;
    if (!tif) {
        status = FC_FAILED;
    } else if (!fc_tiff_set_layout(tif, l, count, count, 1)) {
        status = FC_FAILED;
    } else if (fc_libtiff.TIFFWriteEncodedStrip(tif, 0, rows, (tmsize_t)raw) < 0) {
        status = FC_FAILED;
    } else {
        uint64_t *offsets = NULL, *counts = NULL;
        if (!fc_libtiff.TIFFGetField(tif, TIFFTAG_STRIPOFFSETS, &offsets) || !fc_libtiff.TIFFGetField(tif, TIFFTAG_STRIPBYTECOUNTS, &counts)
            || !offsets || !counts || offsets[0] + counts[0] > m.size) {
            status = FC_FAILED;
        } else {
            offset = offsets[0];
            stored = counts[0];
        }
    }
    // Closing writes the scratch file's directory after the strip: it is dropped with it.
    if (tif) fc_libtiff.TIFFClose(tif);
    fc_libtiff.TIFFOpenOptionsFree(opts);
    if (m.failed) status = FC_NO_MEMORY;
    if (status != FC_OK) {
        if (status == FC_FAILED && !log.have_error)
            snprintf(report->message, sizeof report->message, "libtiff could not compress a strip");
        free(m.data);
        return status;
    }
    memmove(m.data, m.data + offset, (size_t)stored);
    *bytes = m.data;
    *length = (size_t)stored;
    return FC_OK;
}

void fc_tiff_free(void *p) { free(p); }
