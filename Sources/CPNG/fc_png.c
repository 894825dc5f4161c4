// See fc_png.h for why this file exists.
#include "fc_png.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

// MARK: - Decoder

struct fc_png_decoder {
    png_structp png;
    png_infop info, end_info;
    fc_png_report report;
    jmp_buf jump;
    int strict, failed, opened;
    FILE *file;
    const uint8_t *data;
    size_t size, offset;
    uint8_t *icc, *exif;
    size_t icc_length, exif_length;
    png_bytep *row_pointers;
    int dropped_icc, dropped_exif;  // libpng keeps these two despite a bad CRC: we drop them
    char icc_message[FC_PNG_MESSAGE_MAX];  // libpng's first complaint about the iCCP chunk
};

static void fc_png_error(png_structp png, png_const_charp message) {
    fc_png_decoder *d = png_get_error_ptr(png);
    snprintf(d->report.message, FC_PNG_MESSAGE_MAX, "%s", message);
    longjmp(d->jump, 1);
}

// MARK: - Harmless damage
//
// An ancillary chunk (its name begins with a lowercase letter) with a bad CRC touches no
// pixel: libpng drops it with the warning "NAME: CRC error", which is recorded as a dropped
// chunk rather than as a warning.

/// Whether `message` is libpng's warning for an ancillary chunk dropped for its CRC; if so,
/// the chunk is recorded in the report.
static int fc_png_dropped_chunk(fc_png_decoder *d, const char *message) {
    if (strlen(message) != 15 || strcmp(message + 4, ": CRC error") != 0) return 0;
    if (!(message[0] >= 'a' && message[0] <= 'z')) return 0;
    if (memcmp(message, "iCCP", 4) == 0) d->dropped_icc = 1;
    if (memcmp(message, "eXIf", 4) == 0) d->dropped_exif = 1;
    if (d->report.dropped_count++ < 8) {
        size_t used = strlen(d->report.dropped_chunks);
        snprintf(d->report.dropped_chunks + used, sizeof d->report.dropped_chunks - used, "%s%.4s",
                 used ? " " : "", message);
    }
    return 1;
}

// MARK: - Errors and warnings

static void fc_png_warning(png_structp png, png_const_charp message) {
    fc_png_decoder *d = png_get_error_ptr(png);
    if (fc_png_dropped_chunk(d, message)) return;
    // libpng checks an iCCP chunk's profile (its length, header and tag table) and drops one
    // it cannot use, with a benign error: harmless damage that changes colours, reported
    // whether or not decoding is lenient (fc_png_copy_metadata, once it is known whether the
    // profile was dropped).
    if (strncmp(message, "iCCP: ", 6) == 0 && d->icc_message[0] == 0) {
        snprintf(d->icc_message, FC_PNG_MESSAGE_MAX, "%s", message + 6);
        return;
    }
    if (d->report.warning_count++ == 0)
        snprintf(d->report.first_warning, FC_PNG_MESSAGE_MAX, "%s", message);
}

// Our own read functions, so that a short file says so (libpng's own says "Read Error").
static void fc_png_read(png_structp png, png_bytep out, size_t length) {
    fc_png_decoder *d = png_get_io_ptr(png);
    if (d->file) {
        size_t got = fread(out, 1, length, d->file);
        if (got == length) return;
        if (ferror(d->file)) {
            char message[FC_PNG_MESSAGE_MAX];
            snprintf(message, sizeof message, "read error: %s", strerror(errno));
            png_error(png, message);
        }
    } else {
        if (d->size - d->offset >= length) {
            memcpy(out, d->data + d->offset, length);
            d->offset += length;
            return;
        }
    }
    png_error(png, "unexpected end of file (the file is truncated)");
}

fc_png_decoder *fc_png_decoder_new(int strict) {
    fc_png_decoder *d = calloc(1, sizeof *d);
    if (d) d->strict = strict;
    return d;
}

void fc_png_decoder_free(fc_png_decoder *d) {
    if (!d) return;
    if (d->png) png_destroy_read_struct(&d->png, d->info ? &d->info : NULL,
                                        d->end_info ? &d->end_info : NULL);
    free(d->icc);
    free(d->exif);
    free(d->row_pointers);
    free(d);
}

const fc_png_report *fc_png_decoder_report(const fc_png_decoder *d) { return &d->report; }

static void fc_png_copy_metadata(fc_png_decoder *d, fc_png_header *h) {
    png_structp png = d->png;
    png_infop info = d->info;
    png_charp name;
    int compression;
    png_bytep profile;
    png_uint_32 profile_length;
    if (!d->dropped_icc && png_get_iCCP(png, info, &name, &compression, &profile, &profile_length) &&
        profile_length > 0) {
        d->icc = malloc(profile_length);
        if (d->icc) {
            memcpy(d->icc, profile, profile_length);
            d->icc_length = profile_length;
        }
    } else if (!d->dropped_icc && d->icc_message[0]) {
        // libpng refused the profile (a warning about a profile it kept says nothing here).
        snprintf(d->report.icc_problem, FC_PNG_MESSAGE_MAX, "%s", d->icc_message);
    }
    // Anything else libpng said about the chunk is an ordinary warning.
    if (d->icc_message[0] && !d->report.icc_problem[0] && d->report.warning_count++ == 0)
        snprintf(d->report.first_warning, FC_PNG_MESSAGE_MAX, "iCCP: %s", d->icc_message);
#ifdef PNG_eXIf_SUPPORTED
    png_uint_32 exif_length = 0;
    png_bytep exif = NULL;
    if (!d->dropped_exif && png_get_eXIf_1(png, info, &exif_length, &exif) && exif && exif_length > 0) {
        d->exif = malloc(exif_length);
        if (d->exif) {
            memcpy(d->exif, exif, exif_length);
            d->exif_length = exif_length;
        }
    }
#endif
    int intent;
    if (png_get_sRGB(png, info, &intent)) {
        h->has_srgb = 1;
        h->srgb_intent = intent;
    }
    png_fixed_point gamma;
    if (png_get_gAMA_fixed(png, info, &gamma) && gamma > 0) {
        h->has_gamma = 1;
        h->gamma = (uint32_t)gamma;
    }
    png_fixed_point c[8];
    if (png_get_cHRM_fixed(png, info, &c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6],
                           &c[7])) {
        h->has_chrm = 1;
        for (int i = 0; i < 8; i++) h->chrm[i] = c[i] < 0 ? 0 : (uint32_t)c[i];
    }
}

fc_status fc_png_decoder_open(fc_png_decoder *d, FILE *file, int skip,
                              const uint8_t *data, size_t size, fc_png_header *h) {
    if (d->failed || d->opened) return FC_FAILED;
    memset(h, 0, sizeof *h);
    d->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, d, fc_png_error, fc_png_warning);
    if (!d->png) return FC_NO_MEMORY;
    d->info = png_create_info_struct(d->png);
    d->end_info = png_create_info_struct(d->png);
    if (!d->info || !d->end_info) return FC_NO_MEMORY;
    if (setjmp(d->jump)) {
        d->failed = 1;
        return FC_FAILED;
    }
    d->file = file;
    d->data = data;
    d->size = size;
    png_set_read_fn(d->png, d, fc_png_read);
    if (skip > 0) png_set_sig_bytes(d->png, skip);
    // Critical chunks with a bad CRC fail, unless lenient; ancillary ones are dropped.
    png_set_crc_action(d->png, d->strict ? PNG_CRC_ERROR_QUIT : PNG_CRC_WARN_USE, PNG_CRC_WARN_DISCARD);
    // Our own pixel limit is checked from the header, before any pixel memory exists;
    // libpng's default (1,000,000 on a side) would otherwise decide first.
    png_set_user_limits(d->png, 0x7fffffff, 0x7fffffff);
    // No ancillary chunk, nor its decompressed text, may take more than 64 MiB (a damaged
    // zTXt/iTXt read leniently could otherwise inflate without bound), and at most 1000
    // ancillary chunks are kept.
    png_set_chunk_malloc_max(d->png, 64u << 20);
    png_set_chunk_cache_max(d->png, 1000);
    // Text chunks are read by the Swift side's own chunk walk (with its own limits); libpng
    // skips them without allocating their declared length (a damaged iTXt read leniently
    // could claim 1.9 GB).
    static const png_byte text_chunks[] = { 't', 'E', 'X', 't', '\0', 'z', 'T', 'X', 't', '\0', 'i', 'T', 'X', 't', '\0' };
    png_set_keep_unknown_chunks(d->png, PNG_HANDLE_CHUNK_NEVER, text_chunks, 3);
    png_read_info(d->png, d->info);

    png_uint_32 width, height;
    int bit_depth, color_type, interlace;
    png_get_IHDR(d->png, d->info, &width, &height, &bit_depth, &color_type, &interlace, NULL,
                 NULL);
    h->width = width;
    h->height = height;
    h->bit_depth = bit_depth;
    h->color_type = color_type;
    h->interlaced = interlace != PNG_INTERLACE_NONE;
    h->has_trns = png_get_valid(d->png, d->info, PNG_INFO_tRNS) != 0;

    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(d->png);
    if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8)
        png_set_expand_gray_1_2_4_to_8(d->png);
    if (h->has_trns) png_set_tRNS_to_alpha(d->png);
    if (bit_depth == 16) {
        uint16_t probe = 1;
        if (*(uint8_t *)&probe == 1) png_set_swap(d->png);  // host order on little endian
    }
    if (h->interlaced) png_set_interlace_handling(d->png);
    png_read_update_info(d->png, d->info);
    h->channels = png_get_channels(d->png, d->info);
    h->depth = png_get_bit_depth(d->png, d->info);
    fc_png_copy_metadata(d, h);
    d->opened = 1;
    return FC_OK;
}

const uint8_t *fc_png_decoder_icc(const fc_png_decoder *d, size_t *length) {
    *length = d->icc_length;
    return d->icc;
}

const uint8_t *fc_png_decoder_exif(const fc_png_decoder *d, size_t *length) {
    *length = d->exif_length;
    return d->exif;
}

fc_status fc_png_decoder_read(fc_png_decoder *d, uint8_t *dst, size_t stride,
                              uint32_t rows) {
    if (d->failed || !d->opened) return FC_FAILED;
    if (setjmp(d->jump)) {
        d->failed = 1;
        return FC_FAILED;
    }
    png_bytep pointers[16];
    uint32_t done = 0;
    while (done < rows) {
        uint32_t n = rows - done < 16 ? rows - done : 16;
        for (uint32_t i = 0; i < n; i++) pointers[i] = dst + (size_t)(done + i) * stride;
        png_read_rows(d->png, pointers, NULL, n);
        done += n;
    }
    return FC_OK;
}

fc_status fc_png_decoder_read_image(fc_png_decoder *d, uint8_t *dst, size_t stride) {
    if (d->failed || !d->opened) return FC_FAILED;
    png_uint_32 height = png_get_image_height(d->png, d->info);
    d->row_pointers = malloc(sizeof(png_bytep) * (height ? height : 1));
    if (!d->row_pointers) return FC_NO_MEMORY;
    for (png_uint_32 y = 0; y < height; y++) d->row_pointers[y] = dst + (size_t)y * stride;
    if (setjmp(d->jump)) {
        d->failed = 1;
        return FC_FAILED;
    }
    png_read_image(d->png, d->row_pointers);
    return FC_OK;
}

fc_status fc_png_decoder_finish(fc_png_decoder *d) {
    if (d->failed || !d->opened) return FC_FAILED;
    if (setjmp(d->jump)) {
        d->failed = 1;
        return FC_FAILED;
    }
    png_read_end(d->png, d->end_info);
    return FC_OK;
}

// MARK: - Writing

static void fc_put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

int fc_png_write_chunk(FILE *file, const char type[4], const uint8_t *data, size_t length) {
    if (length > 0x7fffffffu) return EINVAL;
    uint8_t head[8], tail[4];
    fc_put32(head, (uint32_t)length);
    memcpy(head + 4, type, 4);
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, head + 4, 4);
    // zlib's crc32 takes a uInt length; feed large chunks in parts.
    for (size_t done = 0; done < length;) {
        size_t n = length - done > 0x40000000u ? 0x40000000u : length - done;
        crc = crc32(crc, data + done, (uInt)n);
        done += n;
    }
    fc_put32(tail, (uint32_t)crc);
    errno = 0;
    if (fwrite(head, 1, 8, file) != 8) return errno ? errno : EIO;
    if (length > 0 && fwrite(data, 1, length, file) != length) return errno ? errno : EIO;
    if (fwrite(tail, 1, 4, file) != 4) return errno ? errno : EIO;
    return 0;
}

uint8_t *fc_png_zlib_compress(const uint8_t *data, size_t length, int level, size_t *out) {
    uLongf bound = compressBound((uLong)length);
    uint8_t *buffer = malloc(bound);
    if (!buffer) return NULL;
    if (compress2(buffer, &bound, data, (uLong)length, level) != Z_OK) {
        free(buffer);
        return NULL;
    }
    *out = bound;
    return buffer;
}

static inline int fc_abs_residual(int v) {
    // |v| of a residual taken as a signed byte.
    int b = v & 0xFF;
    return b < 128 ? b : 256 - b;
}

static inline int fc_paeth(int a, int b, int c) {
    int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
    return (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c);
}

// Filters one row into out[0] (filter type) and out[1...]: picks the filter with the least
// sum of absolute (signed) residuals, libpng's heuristic. `prev` is the row above (zeros for
// the first row of the image). One pass computes all five sums, with no branches in the
// loop, so the compiler vectorises it.
static void fc_filter_row(const uint8_t *row, const uint8_t *prev, size_t n, int bpp, uint8_t *out) {
    long s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0;
    size_t head = (size_t)bpp < n ? (size_t)bpp : n;
    for (size_t i = 0; i < head; i++) {
        int x = row[i], b = prev[i];
        s0 += fc_abs_residual(x);
        s1 += fc_abs_residual(x);
        s2 += fc_abs_residual(x - b);
        s3 += fc_abs_residual(x - (b >> 1));
        s4 += fc_abs_residual(x - b);
    }
    // 32-bit sums over blocks (they cannot overflow within 2^23 bytes), for 4-lane vectors.
    for (size_t start = head; start < n; start += (size_t)1 << 23) {
        size_t end = n - start > ((size_t)1 << 23) ? start + ((size_t)1 << 23) : n;
        unsigned t0 = 0, t1 = 0, t2 = 0, t3 = 0, t4 = 0;
        for (size_t i = start; i < end; i++) {
            int x = row[i], a = row[i - bpp], b = prev[i], c = prev[i - bpp];
            t0 += (unsigned)fc_abs_residual(x);
            t1 += (unsigned)fc_abs_residual(x - a);
            t2 += (unsigned)fc_abs_residual(x - b);
            t3 += (unsigned)fc_abs_residual(x - ((a + b) >> 1));
            t4 += (unsigned)fc_abs_residual(x - fc_paeth(a, b, c));
        }
        s0 += t0; s1 += t1; s2 += t2; s3 += t3; s4 += t4;
    }
    long sums[5] = {s0, s1, s2, s3, s4};
    int best = 0;
    for (int f = 1; f < 5; f++) if (sums[f] < sums[best]) best = f;

    out[0] = (uint8_t)best;
    uint8_t *o = out + 1;
    switch (best) {
    case 0: memcpy(o, row, n); break;
    case 1:
        for (size_t i = 0; i < head; i++) o[i] = row[i];
        for (size_t i = head; i < n; i++) o[i] = (uint8_t)(row[i] - row[i - bpp]);
        break;
    case 2:
        for (size_t i = 0; i < n; i++) o[i] = (uint8_t)(row[i] - prev[i]);
        break;
    case 3:
        for (size_t i = 0; i < head; i++) o[i] = (uint8_t)(row[i] - (prev[i] >> 1));
        for (size_t i = head; i < n; i++) o[i] = (uint8_t)(row[i] - ((row[i - bpp] + prev[i]) >> 1));
        break;
    default:
        for (size_t i = 0; i < head; i++) o[i] = (uint8_t)(row[i] - prev[i]);
        for (size_t i = head; i < n; i++) o[i] = (uint8_t)(row[i] - fc_paeth(row[i - bpp], prev[i], prev[i - bpp]));
        break;
    }
}

uint32_t fc_png_context_rows(size_t row_bytes) {
    // Enough filtered rows for a 32 KiB dictionary, plus the row above them.
    return (uint32_t)((32768 + row_bytes) / (row_bytes + 1)) + 1;
}

fc_status fc_png_compress_piece(const uint8_t *rows, size_t stride, size_t row_bytes,
                                uint32_t row_count, uint32_t context_rows,
                                int bytes_per_pixel, int level, int last,
                                uint8_t *out, size_t capacity, fc_png_piece *piece) {
    memset(piece, 0, sizeof *piece);
    size_t filtered_row = row_bytes + 1;
    uint32_t dictionary_rows = context_rows > 0 ? context_rows - 1 : 0;
    size_t total = (size_t)(dictionary_rows + row_count) * filtered_row;
    uint8_t *filtered = malloc(total ? total : 1);
    uint8_t *zeros = calloc(row_bytes ? row_bytes : 1, 1);
    if (!filtered || !zeros) {
        free(filtered);
        free(zeros);
        return FC_NO_MEMORY;
    }
    // Rows from (rows - dictionary_rows * stride), each filtered against the row above it.
    const uint8_t *first = rows - (size_t)dictionary_rows * stride;
    for (uint32_t i = 0; i < dictionary_rows + row_count; i++) {
        const uint8_t *row = first + (size_t)i * stride;
        const uint8_t *prev = (i > 0 || context_rows > 0) ? row - stride : zeros;
        fc_filter_row(row, prev, row_bytes, bytes_per_pixel, filtered + (size_t)i * filtered_row);
    }
    free(zeros);
    const uint8_t *own = filtered + (size_t)dictionary_rows * filtered_row;
    size_t own_length = (size_t)row_count * filtered_row;

    z_stream z;
    memset(&z, 0, sizeof z);
    // Raw deflate (the Swift side writes the zlib header and the combined Adler-32), the
    // window, memory level and strategy libpng uses for filtered image data.
    if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_FILTERED) != Z_OK) {
        free(filtered);
        return FC_NO_MEMORY;
    }
    // Levels 3 to 6 search at most 16 hash-chain candidates per match (zlib's own tables
    // allow up to 128 at level 6). On filtered photographs the longer search gains about 6%
    // in size at twice the time; levels 7 to 9 keep zlib's parameters for the smallest files.
    static const int tune[10][3] = {{0}, {0}, {0}, {4, 6, 32}, {4, 4, 16}, {8, 16, 32}, {8, 16, 128}};
    if (level >= 3 && level <= 6) deflateTune(&z, tune[level][0], tune[level][1], tune[level][2], 16);
    size_t dictionary_length = (size_t)dictionary_rows * filtered_row;
    if (dictionary_length > 0) {
        size_t n = dictionary_length > 32768 ? 32768 : dictionary_length;
        deflateSetDictionary(&z, own - n, (uInt)n);
    }
    if (capacity < deflateBound(&z, (uLong)own_length) + 64) {
        deflateEnd(&z);
        free(filtered);
        return FC_FAILED;
    }
    z.next_in = (Bytef *)own;
    z.next_out = out;
    int status = Z_OK;
    size_t remaining = own_length;
    // Feed at most 1 GiB at a time (avail_in is a uInt).
    for (;;) {
        size_t n = remaining > 0x40000000u ? 0x40000000u : remaining;
        z.avail_in = (uInt)n;
        remaining -= n;
        size_t space = capacity - (size_t)(z.next_out - out);
        z.avail_out = space > 0x40000000u ? 0x40000000u : (uInt)space;
        int flush = remaining > 0 ? Z_NO_FLUSH : (last ? Z_FINISH : Z_SYNC_FLUSH);
        status = deflate(&z, flush);
        if (remaining == 0) break;
        if (status != Z_OK) break;
    }
    int ok = last ? status == Z_STREAM_END : status == Z_OK && z.avail_in == 0;
    piece->length = (size_t)(z.next_out - out);
    deflateEnd(&z);
    if (!ok) {
        free(filtered);
        return FC_FAILED;
    }
    uLong adler = adler32(0L, Z_NULL, 0);
    for (size_t done = 0; done < own_length;) {
        size_t n = own_length - done > 0x40000000u ? 0x40000000u : own_length - done;
        adler = adler32(adler, own + done, (uInt)n);
        done += n;
    }
    piece->adler = (uint32_t)adler;
    piece->filtered_length = own_length;
    piece->data = out;
    free(filtered);
    return FC_OK;
}

size_t fc_png_piece_capacity(size_t row_bytes, uint32_t row_count) {
    // deflateBound's answer when the parameters are not zlib's defaults (deflateTune):
    // n + n/8 + n/64 + 5, rounded up, and no wrapper for raw deflate.
    size_t n = (size_t)row_count * (row_bytes + 1);
    return n + ((n + 7) >> 3) + ((n + 63) >> 6) + 5 + 64;
}

uint32_t fc_png_adler32_combine(uint32_t first, uint32_t second, size_t second_length) {
    return (uint32_t)adler32_combine(first, second, (z_off_t)second_length);
}

void fc_png_free(void *pointer) { free(pointer); }

// MARK: - Text chunks (zTXt, compressed iTXt): see fc_png.h

uint8_t *fc_png_zlib_uncompress(const uint8_t *data, size_t length, size_t limit, size_t *out) {
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK) return NULL;
    size_t capacity = length * 4 + 256, used = 0;
    uint8_t *buffer = malloc(capacity);
    int status = Z_OK;
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)(length > 0x7fffffffu ? 0x7fffffffu : length);
    while (buffer && status == Z_OK) {
        if (used == capacity) {
            if (capacity >= limit) break;
            capacity = capacity * 2 > limit ? limit : capacity * 2;
            uint8_t *bigger = realloc(buffer, capacity);
            if (!bigger) break;
            buffer = bigger;
        }
        z.next_out = buffer + used;
        z.avail_out = (uInt)(capacity - used);
        status = inflate(&z, Z_NO_FLUSH);
        used = capacity - z.avail_out;
    }
    inflateEnd(&z);
    if (status != Z_STREAM_END) {
        free(buffer);
        return NULL;
    }
    *out = used;
    return buffer;
}

uint32_t fc_png_crc32(uint32_t crc, const uint8_t *data, size_t length) {
    uLong c = crc;
    for (size_t done = 0; done < length;) {
        size_t n = length - done > 0x40000000u ? 0x40000000u : length - done;
        c = crc32(c, data + done, (uInt)n);
        done += n;
    }
    return (uint32_t)c;
}
