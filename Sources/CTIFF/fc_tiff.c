#include "fc_tiff.h"
#include "fc_tiff_library.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>
#include <unistd.h>

#define FC_TIFF_MAX_PAGES 65536

struct fc_tiff_decoder {
    char name[256];
    const uint8_t *data;       // the whole file in memory, or NULL when it is read from `fd`
    int fd;                    // a regular file read with pread (-1 when `data` holds it)
    int read_errno;            // the errno of a failed read from `fd`
    size_t size;
    uint64_t pos;
    size_t max_alloc;
    fc_tiff_report report;
    int have_error, warning_count, failed;
    TIFFOpenOptions *opts;
    TIFF *tif;
    fc_tiff_info info;
    // The first image's layout.
    uint16_t bps, spp, photometric, planar, compression;
    int tiled, colour_samples, alpha, associated, palette_grey, inks;
    int is_float;              // IEEE samples (16, 32 or 64 bits), delivered as 32-bit floats
    uint16_t *cmap[3];
    uint32_t band_h, tile_w;
    size_t row_bytes;          // one row of one plane (all samples when contiguous)
    int planes;
    uint8_t *band;             // band_h rows of each plane
    uint8_t *tile;             // one tile (tiled files)
    uint32_t band_first, band_rows, next_row;
};

// ---- messages -----------------------------------------------------------------------------

// libtiff's message as the caller shows it, after the file's name: without the name libtiff
// puts first in some (its reads through a descriptor say "name: Can not read ..."), and a
// short read of image data ("Read error at row 4294967295, col ..., tile 0; got 0 bytes,
// expected 60397") said as what it means.
static void fc_tiff_tidy(fc_tiff_decoder *d, char *message, size_t size) {
    size_t n = strlen(d->name);
    if (n && strncmp(message, d->name, n) == 0 && message[n] == ':' && message[n + 1] == ' ')
        memmove(message, message + n + 2, strlen(message + n + 2) + 1);
    const char *got = strstr(message, "; got ");
    long long have = 0, want = 0;
    if ((strncmp(message, "Read error", 10) == 0 || strncmp(message, "Seek error", 10) == 0) && got
        && sscanf(got, "; got %lld bytes, expected %lld", &have, &want) == 2) {
        const char *what = strstr(message, "tile") ? "a tile" : "a strip";
        snprintf(message, size, "the file ends inside its image data (%s of %lld bytes has %lld)", what, want, have);
    }
}

static int fc_tiff_on_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif; (void)module;
    fc_tiff_decoder *d = user;
    if (!d->have_error) {  // the first error is the cause; later ones follow from it
        vsnprintf(d->report.message, sizeof d->report.message, fmt, ap);
        fc_tiff_tidy(d, d->report.message, sizeof d->report.message);
        d->have_error = 1;
    }
    return 1;  // handled: libtiff prints nothing
}

static int fc_tiff_on_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif; (void)module;
    fc_tiff_decoder *d = user;
    if (d->warning_count < 4) {
        char line[FC_TIFF_MESSAGE_MAX];
        vsnprintf(line, sizeof line, fmt, ap);
        fc_tiff_tidy(d, line, sizeof line);
        size_t used = strlen(d->report.warnings);
        snprintf(d->report.warnings + used, sizeof d->report.warnings - used, "%s%s", used ? "\n" : "", line);
    }
    d->warning_count++;
    return 1;
}

static fc_status fc_tiff_say(fc_tiff_decoder *d, fc_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->report.message, sizeof d->report.message, fmt, ap);
    va_end(ap);
    d->have_error = 1;
    return status;
}

static fc_status fc_tiff_failed(fc_tiff_decoder *d, const char *what) {
    if (!d->have_error) fc_tiff_say(d, FC_FAILED, "%s", what);
    return FC_FAILED;
}

// ---- I/O: the file in memory, or read from its descriptor as libtiff asks ----------------

// Up to `n` bytes at `offset` into `buf`; how many were there (fewer at the end of the file,
// or after a read error, whose errno is kept).
static size_t fc_tiff_fetch(fc_tiff_decoder *d, uint64_t offset, void *buf, size_t n) {
    if (offset >= d->size) return 0;
    if (n > d->size - offset) n = (size_t)(d->size - offset);
    if (d->data) {
        memcpy(buf, d->data + offset, n);
        return n;
    }
    size_t done = 0;
    while (done < n) {
        ssize_t r = pread(d->fd, (uint8_t *)buf + done, n - done, (off_t)(offset + done));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            if (r < 0) d->read_errno = errno;
            break;
        }
        done += (size_t)r;
    }
    return done;
}

static tmsize_t fc_tiff_read_proc(thandle_t h, void *buf, tmsize_t size) {
    fc_tiff_decoder *d = (fc_tiff_decoder *)h;
    if (size <= 0) return 0;
    size_t n = fc_tiff_fetch(d, d->pos, buf, (size_t)size);
    d->pos += n;
    return (tmsize_t)n;
}

static tmsize_t fc_tiff_write_proc(thandle_t h, void *buf, tmsize_t size) { (void)h; (void)buf; (void)size; return 0; }

static toff_t fc_tiff_seek_proc(thandle_t h, toff_t off, int whence) {
    fc_tiff_decoder *d = (fc_tiff_decoder *)h;
    uint64_t base = whence == SEEK_CUR ? d->pos : whence == SEEK_END ? d->size : 0;
    d->pos = base + off;
    return d->pos;
}

static int fc_tiff_close_proc(thandle_t h) { (void)h; return 0; }
static toff_t fc_tiff_size_proc(thandle_t h) { return ((fc_tiff_decoder *)h)->size; }
static int fc_tiff_map_proc(thandle_t h, void **base, toff_t *size) {
    fc_tiff_decoder *d = (fc_tiff_decoder *)h;
    if (!d->data) return 0;  // read from the descriptor, strip by strip
    *base = (void *)d->data;
    *size = d->size;
    return 1;
}
static void fc_tiff_unmap_proc(thandle_t h, void *base, toff_t size) { (void)h; (void)base; (void)size; }

// ---- the decoder --------------------------------------------------------------------------

fc_tiff_decoder *fc_tiff_decoder_new(const char *name, const uint8_t *data, size_t size, size_t max_alloc) {
    fc_tiff_decoder *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    snprintf(d->name, sizeof d->name, "%s", name);
    d->data = data;
    d->fd = -1;
    d->size = size;
    d->max_alloc = max_alloc;
    return d;
}

fc_tiff_decoder *fc_tiff_decoder_new_file(const char *name, int fd, uint64_t size, size_t max_alloc) {
    fc_tiff_decoder *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    snprintf(d->name, sizeof d->name, "%s", name);
    d->fd = fd;
    d->size = (size_t)size;
    d->max_alloc = max_alloc;
    return d;
}

int fc_tiff_decoder_read_errno(const fc_tiff_decoder *d) { return d->read_errno; }

void fc_tiff_decoder_free(fc_tiff_decoder *d) {
    if (!d) return;
    if (d->tif) fc_libtiff.TIFFClose(d->tif);
    if (d->opts) fc_libtiff.TIFFOpenOptionsFree(d->opts);
    free(d->band);
    free(d->tile);
    free(d);
}

const fc_tiff_report *fc_tiff_decoder_report(const fc_tiff_decoder *d) { return &d->report; }

static uint16_t fc_get16(const uint8_t *p, int big) { return big ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]); }
static uint32_t fc_get32(const uint8_t *p, int big) {
    return big ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
               : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint64_t fc_get64(const uint8_t *p, int big) {
    return big ? (uint64_t)fc_get32(p, 1) << 32 | fc_get32(p + 4, 1) : (uint64_t)fc_get32(p + 4, 0) << 32 | fc_get32(p, 0);
}

// Counts the images in a TIFF's directory chain, stopping at a loop or at an offset outside
// the file, without libtiff (whose directory reading would change the current one). Classic
// TIFF (version 42): 4-byte offsets, 2-byte entry counts, 12-byte entries; BigTIFF (43):
// 8-byte offsets and counts, 20-byte entries.
static void fc_tiff_walk(fc_tiff_decoder *d) {
    d->info.pages = 1;
    uint8_t head[16];
    size_t have = fc_tiff_fetch(d, 0, head, sizeof head);
    if (have < 8) return;
    int big = head[0] == 'M';
    uint16_t version = fc_get16(head + 2, big);
    int wide = version == 43;
    if (version != 42 && !(wide && have >= 16 && fc_get16(head + 4, big) == 8)) return;
    size_t offset_size = wide ? 8 : 4, count_size = wide ? 8 : 2, entry_size = wide ? 20 : 12;
    uint64_t *seen = malloc(sizeof *seen * 1024);
    if (!seen) return;
    int count = 0;
    uint8_t field[8];
    uint64_t offset = wide ? fc_get64(head + 8, big) : fc_get32(head + 4, big);
    while (offset != 0) {
        for (int i = 0; i < count && i < 1024; i++)
            if (seen[i] == offset) { d->info.loop = 1; goto done; }
        if (count < 1024) seen[count] = offset;
        count++;
        if (count > FC_TIFF_MAX_PAGES) { d->info.chain_damaged = 1; break; }
        if (offset > d->size || d->size - offset < count_size
            || fc_tiff_fetch(d, offset, field, count_size) < count_size) { d->info.chain_damaged = 1; count--; break; }
        uint64_t entries = wide ? fc_get64(field, big) : fc_get16(field, big);
        // Entries past the file: the next offset cannot be read (and the count cannot overflow
        // below: it is at most the file's size).
        if (entries > d->size / entry_size) { d->info.chain_damaged = count > 1; if (count > 1) count--; break; }
        uint64_t next_at = offset + count_size + entry_size * entries;
        if (next_at + offset_size > d->size || fc_tiff_fetch(d, next_at, field, offset_size) < offset_size) {
            d->info.chain_damaged = count > 1; if (count > 1) count--; break;
        }
        offset = wide ? fc_get64(field, big) : fc_get32(field, big);
    }
done:
    free(seen);
    d->info.pages = count < 1 ? 1 : count;
}

static const char *fc_tiff_photometric_name(uint16_t p) {
    switch (p) {
    case PHOTOMETRIC_MASK: return "transparency mask";
    case PHOTOMETRIC_YCBCR: return "YCbCr (not JPEG-compressed)";
    case PHOTOMETRIC_CIELAB: return "CIE L*a*b*";
    case PHOTOMETRIC_ICCLAB: return "ICC L*a*b*";
    case PHOTOMETRIC_ITULAB: return "ITU L*a*b*";
    case PHOTOMETRIC_CFA: return "colour filter array (raw)";
    case PHOTOMETRIC_LOGL: return "LogL";
    case PHOTOMETRIC_LOGLUV: return "LogLuv";
    default: return "unknown";
    }
}

fc_status fc_tiff_decoder_open(fc_tiff_decoder *d, fc_tiff_info *info) {
    d->opts = fc_libtiff.TIFFOpenOptionsAlloc();
    if (!d->opts) return FC_NO_MEMORY;
    fc_libtiff.TIFFOpenOptionsSetMaxSingleMemAlloc(d->opts, (tmsize_t)d->max_alloc);
    fc_libtiff.TIFFOpenOptionsSetErrorHandlerExtR(d->opts, fc_tiff_on_error, d);
    fc_libtiff.TIFFOpenOptionsSetWarningHandlerExtR(d->opts, fc_tiff_on_warning, d);
    d->tif = fc_libtiff.TIFFClientOpenExt(d->name, "r", (thandle_t)d, fc_tiff_read_proc, fc_tiff_write_proc,
                               fc_tiff_seek_proc, fc_tiff_close_proc, fc_tiff_size_proc,
                               fc_tiff_map_proc, fc_tiff_unmap_proc, d->opts);
    if (!d->tif) return fc_tiff_failed(d, "not a readable TIFF file");
    TIFF *tif = d->tif;
    uint32_t width = 0, height = 0;
    if (!fc_libtiff.TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width) || !fc_libtiff.TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height)
        || width == 0 || height == 0)
        return fc_tiff_say(d, FC_FAILED, "the image has no size");
    uint16_t sample_format = SAMPLEFORMAT_UINT, orientation = ORIENTATION_TOPLEFT, inkset = INKSET_CMYK;
    fc_libtiff.TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &d->bps);
    fc_libtiff.TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &d->spp);
    fc_libtiff.TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &sample_format);
    fc_libtiff.TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &d->planar);
    fc_libtiff.TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &d->compression);
    fc_libtiff.TIFFGetFieldDefaulted(tif, TIFFTAG_ORIENTATION, &orientation);
    if (!fc_libtiff.TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &d->photometric))
        return fc_tiff_say(d, FC_FAILED, "the PhotometricInterpretation tag is missing");

    switch (d->compression) {
    case COMPRESSION_NONE: case COMPRESSION_LZW: case COMPRESSION_ADOBE_DEFLATE: case COMPRESSION_DEFLATE:
    case COMPRESSION_PACKBITS: case COMPRESSION_JPEG: case COMPRESSION_ZSTD:
    case COMPRESSION_CCITTRLE: case COMPRESSION_CCITTFAX3: case COMPRESSION_CCITTFAX4:
        if (!fc_libtiff.TIFFIsCODECConfigured(d->compression))
            return fc_tiff_say(d, FC_UNSUPPORTED, "this libtiff was built without the %s codec",
                               fc_libtiff.TIFFFindCODEC(d->compression) ? fc_libtiff.TIFFFindCODEC(d->compression)->name : "?");
        break;
    default: {
        const TIFFCodec *c = fc_libtiff.TIFFFindCODEC(d->compression);
        return fc_tiff_say(d, FC_UNSUPPORTED,
                           "compression %s (%u) is not read; filterchain reads none, LZW, deflate, PackBits, JPEG, zstd and CCITT fax",
                           c ? c->name : "unknown", d->compression);
    }
    }
    if (sample_format == SAMPLEFORMAT_INT)
        return fc_tiff_say(d, FC_UNSUPPORTED, "signed integer samples are not read");
    if (sample_format == SAMPLEFORMAT_IEEEFP) {
        // Floats: 16 (half), 32 and 64 bits, delivered as 32-bit floats, unclamped.
        if (d->bps != 16 && d->bps != 32 && d->bps != 64)
            return fc_tiff_say(d, FC_UNSUPPORTED, "%u-bit floating-point samples are not read (16, 32 and 64 are)", d->bps);
        d->is_float = 1;
    } else if (sample_format != SAMPLEFORMAT_UINT && sample_format != SAMPLEFORMAT_VOID)
        return fc_tiff_say(d, FC_UNSUPPORTED, "complex samples are not read");
    else if (!(d->bps >= 1 && d->bps <= 16))
        return fc_tiff_say(d, FC_UNSUPPORTED, "%u bits per sample are not read (1 to 16 are)", d->bps);
    if (d->spp < 1) return fc_tiff_say(d, FC_FAILED, "SamplesPerPixel is 0");
    if (d->planar != PLANARCONFIG_CONTIG && d->planar != PLANARCONFIG_SEPARATE)
        return fc_tiff_say(d, FC_FAILED, "PlanarConfiguration %u is not valid", d->planar);

    switch (d->photometric) {
    case PHOTOMETRIC_MINISWHITE: case PHOTOMETRIC_MINISBLACK: d->colour_samples = 1; break;
    case PHOTOMETRIC_RGB: d->colour_samples = 3; break;
    case PHOTOMETRIC_PALETTE: {
        d->colour_samples = 1;
        if (d->bps > 8 && d->bps != 16) return fc_tiff_say(d, FC_UNSUPPORTED, "%u-bit palette indices are not read", d->bps);
        if (!fc_libtiff.TIFFGetField(tif, TIFFTAG_COLORMAP, &d->cmap[0], &d->cmap[1], &d->cmap[2]))
            return fc_tiff_say(d, FC_FAILED, "a palette image without a ColorMap");
        d->palette_grey = 1;
        for (uint32_t i = 0; i < (1u << d->bps); i++)
            if (d->cmap[0][i] >> 8 != d->cmap[1][i] >> 8 || d->cmap[0][i] >> 8 != d->cmap[2][i] >> 8) { d->palette_grey = 0; break; }
        break;
    }
    case PHOTOMETRIC_SEPARATED:
        fc_libtiff.TIFFGetFieldDefaulted(tif, TIFFTAG_INKSET, &inkset);
        if (inkset != INKSET_CMYK || d->spp < 4)
            return fc_tiff_say(d, FC_UNSUPPORTED, "separated (ink) samples other than CMYK are not read");
        d->colour_samples = 4;
        break;
    case PHOTOMETRIC_YCBCR:
        if (d->compression == COMPRESSION_JPEG) {
            // libjpeg converts to RGB; the strip and tile sizes then count RGB samples.
            fc_libtiff.TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
            d->colour_samples = 3;
            break;
        }
        /* fallthrough */
    default:
        return fc_tiff_say(d, FC_UNSUPPORTED, "%s images (PhotometricInterpretation %u) are not read",
                           fc_tiff_photometric_name(d->photometric), d->photometric);
    }
    if (d->is_float && d->photometric != PHOTOMETRIC_MINISBLACK && d->photometric != PHOTOMETRIC_MINISWHITE
        && d->photometric != PHOTOMETRIC_RGB)
        return fc_tiff_say(d, FC_UNSUPPORTED, "floating-point %s samples are not read (grey and RGB are)",
                           fc_tiff_photometric_name(d->photometric));
    if (d->spp < d->colour_samples) return fc_tiff_say(d, FC_FAILED, "too few samples per pixel (%u)", d->spp);
    if (d->spp > d->colour_samples && d->photometric != PHOTOMETRIC_PALETTE) {
        uint16_t count = 0, *kinds = NULL;
        fc_libtiff.TIFFGetField(tif, TIFFTAG_EXTRASAMPLES, &count, &kinds);
        // The first extra sample is alpha: associated (premultiplied), unassociated, or
        // unspecified (taken as unassociated alpha, as libvips does).
        d->alpha = 1;
        d->associated = count > 0 && kinds && kinds[0] == EXTRASAMPLE_ASSOCALPHA;
    }
    if (d->planar == PLANARCONFIG_SEPARATE && d->compression == COMPRESSION_JPEG && d->photometric == PHOTOMETRIC_YCBCR)
        return fc_tiff_say(d, FC_UNSUPPORTED, "planar YCbCr JPEG is not read");

    d->info.width = width;
    d->info.height = height;
    d->info.depth = d->is_float ? 32 : d->bps > 8 && d->photometric != PHOTOMETRIC_PALETTE ? 16 : 8;
    int colour_out = d->photometric == PHOTOMETRIC_RGB || d->photometric == PHOTOMETRIC_YCBCR
                     || d->photometric == PHOTOMETRIC_SEPARATED || (d->photometric == PHOTOMETRIC_PALETTE && !d->palette_grey);
    d->info.channels = (colour_out ? 3 : 1) + d->alpha;
    d->info.orientation = orientation >= 1 && orientation <= 8 ? orientation : 1;

    // The band: the rows of one strip, or of one row of tiles, of every plane.
    d->planes = d->planar == PLANARCONFIG_SEPARATE ? d->spp : 1;
    d->tiled = fc_libtiff.TIFFIsTiled(tif);
    if (d->tiled) {
        uint32_t tw = 0, th = 0;
        if (!fc_libtiff.TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw) || !fc_libtiff.TIFFGetField(tif, TIFFTAG_TILELENGTH, &th) || !tw || !th)
            return fc_tiff_say(d, FC_FAILED, "a tiled image without a tile size");
        d->tile_w = tw;
        d->band_h = th;
        tmsize_t tile_size = fc_libtiff.TIFFTileSize(tif);
        if (tile_size <= 0) return fc_tiff_failed(d, "the tile size is not valid");
        if ((uint64_t)tile_size > d->max_alloc) return fc_tiff_say(d, FC_FAILED, "a tile of %lld bytes is over the memory limit", (long long)tile_size);
    } else {
        uint32_t rps = height;
        fc_libtiff.TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rps);
        d->band_h = rps == 0 || rps > height ? height : rps;
    }
    if (d->band_h > height) d->band_h = height;
    uint64_t samples_per_row = (uint64_t)width * (d->planes == 1 ? d->spp : 1);
    d->row_bytes = (size_t)((samples_per_row * d->bps + 7) / 8);

    fc_tiff_walk(d);
    *info = d->info;
    return FC_OK;
}

const uint8_t *fc_tiff_decoder_icc(fc_tiff_decoder *d, size_t *length) {
    uint32_t n = 0;
    void *p = NULL;
    if (!d->tif || !fc_libtiff.TIFFGetField(d->tif, TIFFTAG_ICCPROFILE, &n, &p) || !p) return NULL;
    *length = n;
    return p;
}

const uint8_t *fc_tiff_decoder_xmp(fc_tiff_decoder *d, size_t *length) {
    uint32_t n = 0;
    void *p = NULL;
    if (!d->tif || !fc_libtiff.TIFFGetField(d->tif, TIFFTAG_XMLPACKET, &n, &p) || !p) return NULL;
    *length = n;
    return p;
}

// Decodes the band holding row `row`.
static fc_status fc_tiff_fill(fc_tiff_decoder *d, uint32_t row) {
    TIFF *tif = d->tif;
    if (!d->band) {
        // Checked here, after the caller has checked the pixel limit.
        uint64_t band_bytes = (uint64_t)d->row_bytes * d->band_h * d->planes;
        if (band_bytes > d->max_alloc)
            return fc_tiff_say(d, FC_FAILED, "a strip of %llu bytes is over the memory limit of %zu bytes",
                               (unsigned long long)band_bytes, d->max_alloc);
        d->band = calloc(d->planes, d->row_bytes * d->band_h);
        if (!d->band) return FC_NO_MEMORY;
    }
    uint32_t first = row - row % d->band_h;
    uint32_t rows = d->info.height - first < d->band_h ? d->info.height - first : d->band_h;
    for (int p = 0; p < d->planes; p++) {
        uint8_t *plane = d->band + (size_t)p * d->band_h * d->row_bytes;
        if (!d->tiled) {
            uint32_t strip = fc_libtiff.TIFFComputeStrip(tif, first, (uint16_t)p);
            tmsize_t want = (tmsize_t)(rows * d->row_bytes);
            tmsize_t got = fc_libtiff.TIFFReadEncodedStrip(tif, strip, plane, want);
            if (got < 0) return fc_tiff_failed(d, "a strip cannot be decoded");
            if (got < want) return fc_tiff_say(d, FC_FAILED, "strip %u ends early (%lld of %lld bytes)", strip, (long long)got, (long long)want);
        } else {
            if (!d->tile) {
                d->tile = malloc((size_t)fc_libtiff.TIFFTileSize(tif));
                if (!d->tile) return FC_NO_MEMORY;
            }
            size_t tile_row_bytes = (size_t)fc_libtiff.TIFFTileRowSize(tif);
            size_t per_pixel_bits = (size_t)d->bps * (d->planes == 1 ? d->spp : 1);
            for (uint32_t x = 0; x < d->info.width; x += d->tile_w) {
                uint32_t tile = fc_libtiff.TIFFComputeTile(tif, x, first, 0, (uint16_t)p);
                if (fc_libtiff.TIFFReadEncodedTile(tif, tile, d->tile, fc_libtiff.TIFFTileSize(tif)) < 0)
                    return fc_tiff_failed(d, "a tile cannot be decoded");
                size_t at = (size_t)x * per_pixel_bits / 8;
                size_t n = d->row_bytes - at < tile_row_bytes ? d->row_bytes - at : tile_row_bytes;
                for (uint32_t r = 0; r < rows; r++)
                    memcpy(plane + r * d->row_bytes + at, d->tile + r * tile_row_bytes, n);
            }
        }
    }
    d->band_first = first;
    d->band_rows = rows;
    return FC_OK;
}

static inline uint32_t fc_sample(const uint8_t *row, size_t index, unsigned bps) {
    switch (bps) {
    case 8: return row[index];
    case 16: return ((const uint16_t *)row)[index];
    default: {
        size_t bit = index * bps;
        uint32_t v = 0;
        for (unsigned b = 0; b < bps; b++, bit++) v = v << 1 | ((row[bit >> 3] >> (7 - (bit & 7))) & 1);
        return v;
    }
    }
}

/// An IEEE half (binary16) as a float, exactly (subnormals, infinities and NaN included).
static float fc_half(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
    uint32_t bits;
    if (exponent == 0x1F) bits = sign | 0x7F800000u | mantissa << 13;
    else if (exponent != 0) bits = sign | (exponent + 112) << 23 | mantissa << 13;
    else if (mantissa == 0) bits = sign;
    else {
        // Subnormal: normalise.
        exponent = 113;
        while (!(mantissa & 0x400)) { mantissa <<= 1; exponent--; }
        bits = sign | exponent << 23 | (mantissa & 0x3FF) << 13;
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static inline float fc_float_sample(const uint8_t *row, size_t index, unsigned bps) {
    switch (bps) {
    case 16: { uint16_t h; memcpy(&h, row + index * 2, 2); return fc_half(h); }
    case 64: { double v; memcpy(&v, row + index * 8, 8); return (float)v; }
    default: { float v; memcpy(&v, row + index * 4, 4); return v; }
    }
}

/// Float samples (libtiff has swapped them to host order and undone predictor 3): grey or
/// RGB, with or without alpha; white-is-zero becomes 1 - v; associated alpha is divided out
/// (colour / alpha, 0 where alpha is 0). Nothing is clamped.
static void fc_tiff_convert_float(fc_tiff_decoder *d, uint32_t r, uint8_t *dst) {
    float *out = (float *)dst;
    int needed = d->colour_samples + d->alpha, n = d->info.channels;
    if (d->planes == 1 && d->bps == 32 && d->spp == n && !d->associated && d->photometric != PHOTOMETRIC_MINISWHITE) {
        memcpy(dst, d->band + r * d->row_bytes, (size_t)d->info.width * n * 4);
        return;
    }
    for (uint32_t x = 0; x < d->info.width; x++) {
        float s[5];
        for (int i = 0; i < needed; i++) {
            if (d->planes == 1) s[i] = fc_float_sample(d->band + r * d->row_bytes, (size_t)x * d->spp + i, d->bps);
            else s[i] = fc_float_sample(d->band + ((size_t)i * d->band_h + r) * d->row_bytes, x, d->bps);
        }
        if (d->photometric == PHOTOMETRIC_MINISWHITE) s[0] = 1 - s[0];
        if (d->alpha && d->associated) {
            float a = s[d->colour_samples];
            for (int c = 0; c < d->colour_samples; c++) s[c] = a == 0 ? 0 : s[c] / a;
        }
        for (int c = 0; c < n; c++) out[(size_t)x * n + c] = s[c];
    }
}

static void fc_tiff_convert(fc_tiff_decoder *d, uint32_t r, uint8_t *dst) {
    if (d->is_float) { fc_tiff_convert_float(d, r, dst); return; }
    // Rows stored as delivered (8 or 16 bits, grey or RGB, unassociated alpha or none, no
    // other samples, one plane): a copy.
    if (d->planes == 1 && (d->bps == 8 || d->bps == 16) && d->spp == d->info.channels && !d->associated
        && (d->photometric == PHOTOMETRIC_MINISBLACK || d->photometric == PHOTOMETRIC_RGB
            || (d->photometric == PHOTOMETRIC_YCBCR && d->compression == COMPRESSION_JPEG))) {
        memcpy(dst, d->band + r * d->row_bytes, (size_t)d->info.width * d->spp * (d->bps / 8));
        return;
    }
    unsigned bps = d->bps;
    uint32_t max_in = (1u << bps) - 1, max_out = d->info.depth == 16 ? 65535 : 255;
    int out_channels = d->info.channels;
    uint32_t out[4];
    for (uint32_t x = 0; x < d->info.width; x++) {
        uint32_t s[5];
        int needed = d->colour_samples + d->alpha;
        for (int i = 0; i < needed; i++) {
            if (d->planes == 1) s[i] = fc_sample(d->band + r * d->row_bytes, (size_t)x * d->spp + i, bps);
            else s[i] = fc_sample(d->band + ((size_t)i * d->band_h + r) * d->row_bytes, x, bps);
        }
        int n = 0;
        if (d->photometric == PHOTOMETRIC_PALETTE) {
            if (d->palette_grey) out[n++] = d->cmap[0][s[0]] >> 8;
            else for (int c = 0; c < 3; c++) out[n++] = d->cmap[c][s[0]] >> 8;
        } else {
            for (int i = 0; i < needed; i++)
                s[i] = max_in == max_out ? s[i] : (uint32_t)(((uint64_t)s[i] * max_out + max_in / 2) / max_in);
            if (d->photometric == PHOTOMETRIC_SEPARATED && d->inks) {
                for (int c = 0; c < 4; c++) out[n++] = s[c];
            } else if (d->photometric == PHOTOMETRIC_SEPARATED) {
                // As JPEG's CMYK: R = (1 - C)(1 - K), 0 = no ink, rounded to nearest.
                uint64_t k = max_out - s[3];
                for (int c = 0; c < 3; c++) out[n++] = (uint32_t)(((max_out - s[c]) * k + max_out / 2) / max_out);
            } else if (d->photometric == PHOTOMETRIC_MINISWHITE) {
                out[n++] = max_out - s[0];
            } else {
                for (int c = 0; c < d->colour_samples; c++) out[n++] = s[c];
            }
            if (d->alpha) {
                uint32_t a = s[d->colour_samples];
                if (d->associated)
                    for (int c = 0; c < n; c++) {
                        uint64_t v = a == 0 ? 0 : ((uint64_t)out[c] * max_out + a / 2) / a;
                        out[c] = v > max_out ? max_out : (uint32_t)v;
                    }
                out[n++] = a;
            }
        }
        if (d->info.depth == 8) for (int c = 0; c < out_channels; c++) dst[(size_t)x * out_channels + c] = (uint8_t)out[c];
        else for (int c = 0; c < out_channels; c++) ((uint16_t *)dst)[(size_t)x * out_channels + c] = (uint16_t)out[c];
    }
}

int fc_tiff_decoder_keep_inks(fc_tiff_decoder *d, fc_tiff_info *info) {
    if (d->photometric != PHOTOMETRIC_SEPARATED || d->alpha || d->colour_samples != 4 || d->next_row != 0) return 0;
    d->inks = 1;
    d->info.channels = 4;
    *info = d->info;
    return 1;
}

fc_status fc_tiff_decoder_read(fc_tiff_decoder *d, uint8_t *dst, size_t stride, uint32_t rows) {
    if (!d->tif || d->failed) return FC_FAILED;
    for (uint32_t i = 0; i < rows; i++, d->next_row++) {
        if (d->next_row >= d->info.height) { d->failed = 1; return fc_tiff_say(d, FC_FAILED, "read past the last row"); }
        if (!d->band || d->next_row < d->band_first || d->next_row >= d->band_first + d->band_rows) {
            d->have_error = 0;
            fc_status s = fc_tiff_fill(d, d->next_row);
            if (s != FC_OK) { d->failed = 1; return s; }
            // libtiff reported an error but delivered the strip (a codec that resynchronises,
            // as libvips and Pillow read it): a warning, not a failure.
            if (d->have_error) {
                size_t used = strlen(d->report.warnings);
                if (d->warning_count++ < 4)
                    snprintf(d->report.warnings + used, sizeof d->report.warnings - used, "%s%s", used ? "\n" : "", d->report.message);
                d->have_error = 0;
            }
        }
        fc_tiff_convert(d, d->next_row - d->band_first, dst + i * stride);
    }
    return FC_OK;
}
