#include "fc_gif.h"

#include <errno.h>
#include <gif_lib.h>
#include <stdlib.h>
#include <string.h>

static void fc_gif_say(fc_gif_report *r, const char *message) {
    snprintf(r->message, sizeof r->message, "%s", message);
}

// ---------------------------------------------------------------------------------------
// Reading

typedef struct {
    uint16_t left, top, width, height;
    uint16_t delay;        // hundredths of a second
    int16_t transparent;   // -1: none
    uint8_t disposal;      // 0-1: keep, 2: clear to transparent, 3: restore the canvas before
} fc_gif_frame;

typedef struct {
    const uint8_t *data;
    size_t size, at;
} fc_gif_source;

struct fc_gif_decoder {
    fc_gif_source source;
    fc_gif_report report;
    fc_gif_info info;
    fc_gif_frame *frames;
    uint8_t *icc, *xmp;
    size_t icc_length, xmp_length;
    // Decoding: giflib's reader, the canvas (RGBA), the rectangle disposal 3 restores, a line.
    GifFileType *gif;
    int next;
    uint8_t *canvas, *saved, *line;
};

static int fc_gif_read(GifFileType *gif, GifByteType *buffer, int length) {
    fc_gif_source *s = gif->UserData;
    size_t n = s->size - s->at < (size_t)length ? s->size - s->at : (size_t)length;
    memcpy(buffer, s->data + s->at, n);
    s->at += n;
    return (int)n;
}

static GifFileType *fc_gif_open_source(fc_gif_decoder *d) {
    d->source.at = 0;
    int error = 0;
    GifFileType *gif = DGifOpen(&d->source, fc_gif_read, &error);
    if (!gif) {
        const char *why = GifErrorString(error);
        snprintf(d->report.message, sizeof d->report.message, "not a GIF giflib can read (%s)", why ? why : "unknown error");
    }
    return gif;
}

fc_gif_decoder *fc_gif_decoder_new(const uint8_t *data, size_t size) {
    fc_gif_decoder *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->source.data = data;
    d->source.size = size;
    return d;
}

void fc_gif_decoder_free(fc_gif_decoder *d) {
    if (!d) return;
    if (d->gif) DGifCloseFile(d->gif, NULL);
    free(d->frames);
    free(d->icc);
    free(d->xmp);
    free(d->canvas);
    free(d->saved);
    free(d->line);
    free(d);
}

const fc_gif_report *fc_gif_decoder_report(const fc_gif_decoder *d) { return &d->report; }

static int fc_gif_append(uint8_t **buffer, size_t *length, const uint8_t *bytes, size_t count) {
    uint8_t *grown = realloc(*buffer, *length + count + 1);
    if (!grown) return 0;
    memcpy(grown + *length, bytes, count);
    *buffer = grown;
    *length += count;
    return 1;
}

// The 258 bytes that end an "XMP DataXMP" block: 0x01, 0xFF down to 0x00 (read back as
// sub-blocks), which this reader drops.
#define FC_GIF_XMP_TRAILER 257

fc_status fc_gif_decoder_open(fc_gif_decoder *d, fc_gif_info *info, int max_frames) {
    GifFileType *gif = fc_gif_open_source(d);
    if (!gif) return FC_FAILED;
    fc_status status = FC_OK;
    d->info.width = (uint32_t)gif->SWidth;
    d->info.height = (uint32_t)gif->SHeight;
    d->info.loop_count = -1;
    if (d->info.width == 0 || d->info.height == 0) {
        fc_gif_say(&d->report, "the logical screen has no pixels (0 wide or high)");
        DGifCloseFile(gif, NULL);
        return FC_FAILED;
    }
    int capacity = 0, count = 0;
    fc_gif_frame pending = { .transparent = -1 };
    int done = 0, app = 0;  // app: 1 loop, 2 ICC, 3 XMP (the block being read)
    while (!done) {
        GifRecordType type;
        if (DGifGetRecordType(gif, &type) == GIF_ERROR) {
            // The end of the data where the next block was due: a missing trailer after whole
            // frames is common and harmless (browsers show them).
            if (d->source.at >= d->source.size) break;
            snprintf(d->report.message, sizeof d->report.message, "a damaged block after frame %d (%s)", count,
                     GifErrorString(gif->Error) ? GifErrorString(gif->Error) : "unknown");
            status = FC_FAILED;
            break;
        }
        switch (type) {
        case IMAGE_DESC_RECORD_TYPE: {
            if (DGifGetImageDesc(gif) == GIF_ERROR) {
                if (d->source.at >= d->source.size) { d->info.truncated = 1; done = 1; break; }
                snprintf(d->report.message, sizeof d->report.message, "frame %d has a damaged descriptor", count + 1);
                status = FC_FAILED;
                done = 1;
                break;
            }
            if (!gif->Image.ColorMap && !gif->SColorMap) {
                snprintf(d->report.message, sizeof d->report.message, "frame %d has no colour table, and the file none for all", count + 1);
                status = FC_FAILED;
                done = 1;
                break;
            }
            int size = 0;
            GifByteType *block = NULL;
            int ok = DGifGetCode(gif, &size, &block) != GIF_ERROR;
            while (ok && block) ok = DGifGetCodeNext(gif, &block) != GIF_ERROR;
            if (!ok) {
                if (d->source.at >= d->source.size) { d->info.truncated = 1; done = 1; break; }
                snprintf(d->report.message, sizeof d->report.message, "frame %d's data is damaged", count + 1);
                status = FC_FAILED;
                done = 1;
                break;
            }
            if (max_frames > 0 && count >= max_frames) {
                snprintf(d->report.message, sizeof d->report.message, "more than %d frames (--max-frames)", max_frames);
                status = FC_LIMIT;
                done = 1;
                break;
            }
            if (count == capacity) {
                capacity = capacity ? capacity * 2 : 16;
                fc_gif_frame *grown = realloc(d->frames, (size_t)capacity * sizeof *grown);
                if (!grown) { status = FC_NO_MEMORY; done = 1; break; }
                d->frames = grown;
            }
            fc_gif_frame f = pending;
            f.left = (uint16_t)gif->Image.Left;
            f.top = (uint16_t)gif->Image.Top;
            f.width = (uint16_t)gif->Image.Width;
            f.height = (uint16_t)gif->Image.Height;
            if ((uint32_t)f.left + f.width > d->info.width || (uint32_t)f.top + f.height > d->info.height) d->info.clipped_frames++;
            d->frames[count++] = f;
            pending = (fc_gif_frame){ .transparent = -1 };
            // giflib keeps a record of every frame's descriptor; the scan needs none of them.
            GifFreeSavedImages(gif);
            gif->ImageCount = 0;
            break;
        }
        case EXTENSION_RECORD_TYPE: {
            int code = 0;
            GifByteType *ext = NULL;
            if (DGifGetExtension(gif, &code, &ext) == GIF_ERROR) {
                if (d->source.at >= d->source.size) { d->info.truncated = 1; done = 1; break; }
                snprintf(d->report.message, sizeof d->report.message, "a damaged extension block after frame %d", count);
                status = FC_FAILED;
                done = 1;
                break;
            }
            int first = 1;
            app = 0;
            while (ext) {
                if (code == GRAPHICS_EXT_FUNC_CODE && first && ext[0] >= 4) {
                    GraphicsControlBlock gcb;
                    DGifExtensionToGCB(4, ext + 1, &gcb);
                    pending.delay = (uint16_t)gcb.DelayTime;
                    pending.transparent = (int16_t)gcb.TransparentColor;
                    pending.disposal = (uint8_t)gcb.DisposalMode;
                } else if (code == APPLICATION_EXT_FUNC_CODE && first && ext[0] == 11) {
                    if (!memcmp(ext + 1, "NETSCAPE2.0", 11) || !memcmp(ext + 1, "ANIMEXTS1.0", 11)) app = 1;
                    else if (!memcmp(ext + 1, "ICCRGBG1012", 11) && !d->icc) app = 2;
                    else if (!memcmp(ext + 1, "XMP DataXMP", 11) && !d->xmp) app = 3;
                } else if (!first && app == 1) {
                    if (ext[0] >= 3 && ext[1] == 1) d->info.loop_count = ext[2] | (ext[3] << 8);
                } else if (!first && app == 2) {
                    if (!fc_gif_append(&d->icc, &d->icc_length, ext + 1, ext[0])) { status = FC_NO_MEMORY; done = 1; break; }
                } else if (!first && app == 3) {
                    // XMP is written raw: each "length" byte is the packet's own.
                    if (!fc_gif_append(&d->xmp, &d->xmp_length, ext, (size_t)ext[0] + 1)) { status = FC_NO_MEMORY; done = 1; break; }
                }
                first = 0;
                if (DGifGetExtensionNext(gif, &ext) == GIF_ERROR) {
                    if (d->source.at >= d->source.size) { d->info.truncated = 1; done = 1; break; }
                    snprintf(d->report.message, sizeof d->report.message, "a damaged extension block after frame %d", count);
                    status = FC_FAILED;
                    done = 1;
                    break;
                }
            }
            break;
        }
        case TERMINATE_RECORD_TYPE:
            done = 1;
            break;
        default:
            break;
        }
    }
    DGifCloseFile(gif, NULL);
    if (status != FC_OK) return status;
    if (d->xmp) {
        if (d->xmp_length > FC_GIF_XMP_TRAILER && d->xmp[d->xmp_length - FC_GIF_XMP_TRAILER] == 0x01) {
            d->xmp_length -= FC_GIF_XMP_TRAILER;
        } else {
            free(d->xmp);  // not the layout XMP's writers use: dropped
            d->xmp = NULL;
            d->xmp_length = 0;
        }
    }
    if (count == 0) {
        fc_gif_say(&d->report, d->info.truncated ? "the file ends inside its first frame (truncated)" : "the file holds no frame");
        return FC_FAILED;
    }
    d->info.frame_count = count;
    // The canvas is opaque throughout when the first frame covers it without transparency
    // and no frame before the last clears its rectangle (or restores the empty canvas).
    const fc_gif_frame *f0 = &d->frames[0];
    int opaque = f0->left == 0 && f0->top == 0 && f0->width >= d->info.width && f0->height >= d->info.height
        && f0->transparent < 0 && !(count > 1 && f0->disposal == 3);
    for (int i = 0; i + 1 < count && opaque; i++) if (d->frames[i].disposal == 2) opaque = 0;
    d->info.channels = opaque ? 3 : 4;
    *info = d->info;
    return FC_OK;
}

int fc_gif_decoder_delay(const fc_gif_decoder *d, int index) {
    return index >= 0 && index < d->info.frame_count ? d->frames[index].delay : 0;
}

const uint8_t *fc_gif_decoder_icc(const fc_gif_decoder *d, size_t *length) {
    *length = d->icc_length;
    return d->icc;
}

const uint8_t *fc_gif_decoder_xmp(const fc_gif_decoder *d, size_t *length) {
    *length = d->xmp_length;
    return d->xmp;
}

// The part of frame f inside the canvas.
static void fc_gif_clip(const fc_gif_decoder *d, const fc_gif_frame *f, uint32_t *x0, uint32_t *y0, uint32_t *x1, uint32_t *y1) {
    *x0 = f->left < d->info.width ? f->left : d->info.width;
    *y0 = f->top < d->info.height ? f->top : d->info.height;
    *x1 = (uint32_t)f->left + f->width < d->info.width ? (uint32_t)f->left + f->width : d->info.width;
    *y1 = (uint32_t)f->top + f->height < d->info.height ? (uint32_t)f->top + f->height : d->info.height;
}

static void fc_gif_copy_rect(uint8_t *dst, const uint8_t *src, size_t stride, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1, int into_saved) {
    // The saved copy is packed (rows (x1 - x0) * 4 bytes); the canvas is `stride` apart.
    size_t row = (size_t)(x1 - x0) * 4;
    for (uint32_t y = y0; y < y1; y++) {
        if (into_saved) memcpy(dst + (size_t)(y - y0) * row, src + (size_t)y * stride + (size_t)x0 * 4, row);
        else memcpy(dst + (size_t)y * stride + (size_t)x0 * 4, src + (size_t)(y - y0) * row, row);
    }
}

fc_status fc_gif_decoder_next(fc_gif_decoder *d, uint8_t *dst, size_t stride) {
    if (d->next >= d->info.frame_count) { fc_gif_say(&d->report, "no frame left"); return FC_FAILED; }
    size_t canvas_stride = (size_t)d->info.width * 4;
    if (!d->gif) {
        d->gif = fc_gif_open_source(d);
        if (!d->gif) return FC_FAILED;
        d->canvas = calloc((size_t)d->info.height, canvas_stride);
        d->saved = malloc((size_t)d->info.height * canvas_stride);
        d->line = malloc(65536);
        if (!d->canvas || !d->saved || !d->line) return FC_NO_MEMORY;
    }
    int index = d->next;
    const fc_gif_frame *f = &d->frames[index];
    uint32_t x0, y0, x1, y1;
    if (index > 0) {
        // The previous frame's disposal.
        const fc_gif_frame *p = &d->frames[index - 1];
        fc_gif_clip(d, p, &x0, &y0, &x1, &y1);
        if (p->disposal == 2) {
            for (uint32_t y = y0; y < y1; y++) memset(d->canvas + (size_t)y * canvas_stride + (size_t)x0 * 4, 0, (size_t)(x1 - x0) * 4);
        } else if (p->disposal == 3) {
            fc_gif_copy_rect(d->canvas, d->saved, canvas_stride, x0, y0, x1, y1, 0);
        }
    }
    fc_gif_clip(d, f, &x0, &y0, &x1, &y1);
    if (f->disposal == 3) fc_gif_copy_rect(d->saved, d->canvas, canvas_stride, x0, y0, x1, y1, 1);
    // To the next image descriptor.
    GifFileType *gif = d->gif;
    for (;;) {
        GifRecordType type;
        if (DGifGetRecordType(gif, &type) == GIF_ERROR) goto damaged;
        if (type == IMAGE_DESC_RECORD_TYPE) break;
        if (type == EXTENSION_RECORD_TYPE) {
            int code;
            GifByteType *ext;
            if (DGifGetExtension(gif, &code, &ext) == GIF_ERROR) goto damaged;
            while (ext) if (DGifGetExtensionNext(gif, &ext) == GIF_ERROR) goto damaged;
        } else if (type == TERMINATE_RECORD_TYPE) {
            goto damaged;
        }
    }
    if (DGifGetImageDesc(gif) == GIF_ERROR) goto damaged;
    GifFreeSavedImages(gif);
    gif->ImageCount = 0;
    const ColorMapObject *map = gif->Image.ColorMap ? gif->Image.ColorMap : gif->SColorMap;
    int colours = map->ColorCount;
    int passes = gif->Image.Interlace ? 4 : 1;
    static const int start[4] = { 0, 4, 2, 1 }, step[4] = { 8, 8, 4, 2 };
    int bad = 0;
    for (int pass = 0; pass < passes; pass++) {
        for (uint32_t r = passes == 1 ? 0 : (uint32_t)start[pass]; r < f->height; r += passes == 1 ? 1 : (uint32_t)step[pass]) {
            if (DGifGetLine(gif, d->line, f->width) == GIF_ERROR) goto damaged;
            uint32_t y = f->top + r;
            if (y < y0 || y >= y1) continue;
            uint8_t *out = d->canvas + (size_t)y * canvas_stride;
            for (uint32_t x = x0; x < x1; x++) {
                int i = d->line[x - f->left];
                if (i == f->transparent) continue;
                uint8_t *px = out + (size_t)x * 4;
                if (i < colours) {
                    px[0] = map->Colors[i].Red;
                    px[1] = map->Colors[i].Green;
                    px[2] = map->Colors[i].Blue;
                } else {
                    px[0] = px[1] = px[2] = 0;
                    bad = 1;
                }
                px[3] = 255;
            }
        }
    }
    if (bad) d->info.bad_indices++;
    d->next++;
    for (uint32_t y = 0; y < d->info.height; y++) {
        const uint8_t *in = d->canvas + (size_t)y * canvas_stride;
        uint8_t *out = dst + (size_t)y * stride;
        if (d->info.channels == 4) { memcpy(out, in, canvas_stride); continue; }
        for (uint32_t x = 0; x < d->info.width; x++) {
            out[3 * x] = in[4 * x];
            out[3 * x + 1] = in[4 * x + 1];
            out[3 * x + 2] = in[4 * x + 2];
        }
    }
    return FC_OK;
damaged:
    snprintf(d->report.message, sizeof d->report.message, "frame %d's data is damaged (%s)", index + 1,
             GifErrorString(gif->Error) ? GifErrorString(gif->Error) : "unknown");
    return FC_FAILED;
}

// ---------------------------------------------------------------------------------------
// Palettes: median cut over a 15-bit histogram (each bin keeps the sum of its exact colours),
// then three rounds of k-means over the bins. An image of at most `colors` distinct colours
// gets exactly those.

typedef struct {
    uint32_t count;
    uint64_t sum[3];
} fc_gif_bin;

typedef struct {
    uint8_t lo[3], hi[3];  // bin coordinates, inclusive
    uint64_t count;
    uint64_t score;
} fc_gif_box;

#define FC_GIF_BINS 32768
#define FC_GIF_BIN(r, g, b) ((((uint32_t)(r) >> 3) << 10) | (((uint32_t)(g) >> 3) << 5) | ((uint32_t)(b) >> 3))

static void fc_gif_box_fit(fc_gif_box *box, const fc_gif_bin *bins) {
    uint8_t lo[3] = { 31, 31, 31 }, hi[3] = { 0, 0, 0 };
    uint64_t count = 0;
    for (int r = box->lo[0]; r <= box->hi[0]; r++)
        for (int g = box->lo[1]; g <= box->hi[1]; g++)
            for (int b = box->lo[2]; b <= box->hi[2]; b++) {
                const fc_gif_bin *bin = &bins[(r << 10) | (g << 5) | b];
                if (!bin->count) continue;
                count += bin->count;
                if (r < lo[0]) lo[0] = (uint8_t)r;
                if (r > hi[0]) hi[0] = (uint8_t)r;
                if (g < lo[1]) lo[1] = (uint8_t)g;
                if (g > hi[1]) hi[1] = (uint8_t)g;
                if (b < lo[2]) lo[2] = (uint8_t)b;
                if (b > hi[2]) hi[2] = (uint8_t)b;
            }
    box->count = count;
    if (!count) { box->score = 0; return; }
    memcpy(box->lo, lo, 3);
    memcpy(box->hi, hi, 3);
    int side = 0;
    for (int c = 0; c < 3; c++) if (hi[c] - lo[c] > side) side = hi[c] - lo[c];
    box->score = count * (uint64_t)side * (uint64_t)side;
}

typedef struct {
    uint8_t g;
    uint8_t index;
} fc_gif_sorted;

typedef struct {
    const uint8_t *palette;
    int count;
    fc_gif_sorted sorted[256];
} fc_gif_search;

static int fc_gif_sorted_compare(const void *a, const void *b) {
    return (int)((const fc_gif_sorted *)a)->g - (int)((const fc_gif_sorted *)b)->g;
}

static void fc_gif_search_init(fc_gif_search *s, const uint8_t *palette, int count) {
    s->palette = palette;
    s->count = count;
    for (int i = 0; i < count; i++) s->sorted[i] = (fc_gif_sorted){ palette[3 * i + 1], (uint8_t)i };
    qsort(s->sorted, (size_t)count, sizeof s->sorted[0], fc_gif_sorted_compare);
}

// The nearest entry (squared RGB distance; the lower index on a tie), searching outward
// from the entries of the same green.
static int fc_gif_nearest(const fc_gif_search *s, int r, int g, int b, uint32_t *distance) {
    int lo = 0, hi = s->count;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (s->sorted[mid].g < g) lo = mid + 1; else hi = mid;
    }
    uint32_t best = UINT32_MAX;
    int best_index = 0;
    int down = lo - 1, up = lo;
    while (down >= 0 || up < s->count) {
        int progressed = 0;
        if (up < s->count) {
            int dg = (int)s->sorted[up].g - g;
            if ((uint32_t)(dg * dg) <= best) {
                int i = s->sorted[up].index;
                int dr = (int)s->palette[3 * i] - r, db = (int)s->palette[3 * i + 2] - b;
                uint32_t d = (uint32_t)(dr * dr + dg * dg + db * db);
                if (d < best || (d == best && i < best_index)) { best = d; best_index = i; }
                up++;
                progressed = 1;
            } else {
                up = s->count;
            }
        }
        if (down >= 0) {
            int dg = (int)s->sorted[down].g - g;
            if ((uint32_t)(dg * dg) <= best) {
                int i = s->sorted[down].index;
                int dr = (int)s->palette[3 * i] - r, db = (int)s->palette[3 * i + 2] - b;
                uint32_t d = (uint32_t)(dr * dr + dg * dg + db * db);
                if (d < best || (d == best && i < best_index)) { best = d; best_index = i; }
                down--;
                progressed = 1;
            } else {
                down = -1;
            }
        }
        if (!progressed) break;
    }
    if (distance) *distance = best;
    return best_index;
}

// Up to `colors` distinct colours of `count` pixels at `rgb` (3 bytes apart... `step` bytes
// apart), or -1 when there are more.
static int fc_gif_distinct(const uint8_t *pixels, size_t count, size_t step, int colors, uint8_t *palette) {
    uint32_t table[512];
    memset(table, 0xff, sizeof table);
    int found = 0;
    for (size_t p = 0; p < count; p++) {
        const uint8_t *px = pixels + p * step;
        uint32_t key = ((uint32_t)px[0] << 16) | ((uint32_t)px[1] << 8) | px[2];
        uint32_t h = (key * 2654435761u) >> 23;
        while (table[h] != UINT32_MAX && table[h] != key) h = (h + 1) & 511;
        if (table[h] == key) continue;
        if (found == colors) return -1;
        table[h] = key;
        palette[3 * found] = px[0];
        palette[3 * found + 1] = px[1];
        palette[3 * found + 2] = px[2];
        found++;
    }
    return found;
}

// The palette of `count` pixels, `step` bytes apart (RGB first).
static int fc_gif_make_palette(const uint8_t *pixels, size_t count, size_t step, int colors, uint8_t *palette, fc_gif_bin *bins) {
    if (count == 0) { palette[0] = palette[1] = palette[2] = 0; return 1; }
    int exact = fc_gif_distinct(pixels, count, step, colors, palette);
    if (exact > 0) return exact;
    memset(bins, 0, FC_GIF_BINS * sizeof *bins);
    for (size_t p = 0; p < count; p++) {
        const uint8_t *px = pixels + p * step;
        fc_gif_bin *bin = &bins[FC_GIF_BIN(px[0], px[1], px[2])];
        bin->count++;
        bin->sum[0] += px[0];
        bin->sum[1] += px[1];
        bin->sum[2] += px[2];
    }
    fc_gif_box boxes[256];
    int n = 1;
    boxes[0] = (fc_gif_box){ { 0, 0, 0 }, { 31, 31, 31 }, 0, 0 };
    fc_gif_box_fit(&boxes[0], bins);
    while (n < colors) {
        int pick = -1;
        for (int i = 0; i < n; i++) if (boxes[i].score > 0 && (pick < 0 || boxes[i].score > boxes[pick].score)) pick = i;
        if (pick < 0) break;
        fc_gif_box *box = &boxes[pick];
        int axis = 0;
        for (int c = 1; c < 3; c++) if (box->hi[c] - box->lo[c] > box->hi[axis] - box->lo[axis]) axis = c;
        // The plane at which half the pixels are below.
        uint64_t below = 0;
        int cut = box->lo[axis];
        for (int v = box->lo[axis]; v < box->hi[axis]; v++) {
            uint64_t plane = 0;
            for (int r = axis == 0 ? v : box->lo[0]; r <= (axis == 0 ? v : box->hi[0]); r++)
                for (int g = axis == 1 ? v : box->lo[1]; g <= (axis == 1 ? v : box->hi[1]); g++)
                    for (int b = axis == 2 ? v : box->lo[2]; b <= (axis == 2 ? v : box->hi[2]); b++)
                        plane += bins[(r << 10) | (g << 5) | b].count;
            below += plane;
            cut = v;
            if (below * 2 >= box->count) break;
        }
        fc_gif_box upper = *box;
        box->hi[axis] = (uint8_t)cut;
        upper.lo[axis] = (uint8_t)(cut + 1);
        fc_gif_box_fit(box, bins);
        fc_gif_box_fit(&upper, bins);
        boxes[n++] = upper;
    }
    // Each box's mean colour, then k-means over the bins' means.
    int used = 0;
    for (int i = 0; i < n; i++) {
        if (!boxes[i].count) continue;
        uint64_t sum[3] = { 0, 0, 0 };
        for (int r = boxes[i].lo[0]; r <= boxes[i].hi[0]; r++)
            for (int g = boxes[i].lo[1]; g <= boxes[i].hi[1]; g++)
                for (int b = boxes[i].lo[2]; b <= boxes[i].hi[2]; b++) {
                    const fc_gif_bin *bin = &bins[(r << 10) | (g << 5) | b];
                    for (int c = 0; c < 3; c++) sum[c] += bin->sum[c];
                }
        for (int c = 0; c < 3; c++) palette[3 * used + c] = (uint8_t)((sum[c] + boxes[i].count / 2) / boxes[i].count);
        used++;
    }
    static const int rounds = 3;
    for (int round = 0; round < rounds; round++) {
        fc_gif_search search;
        fc_gif_search_init(&search, palette, used);
        uint64_t sums[256][4];
        memset(sums, 0, sizeof sums);
        for (uint32_t k = 0; k < FC_GIF_BINS; k++) {
            const fc_gif_bin *bin = &bins[k];
            if (!bin->count) continue;
            int r = (int)((bin->sum[0] + bin->count / 2) / bin->count);
            int g = (int)((bin->sum[1] + bin->count / 2) / bin->count);
            int b = (int)((bin->sum[2] + bin->count / 2) / bin->count);
            int i = fc_gif_nearest(&search, r, g, b, NULL);
            sums[i][0] += bin->sum[0];
            sums[i][1] += bin->sum[1];
            sums[i][2] += bin->sum[2];
            sums[i][3] += bin->count;
        }
        for (int i = 0; i < used; i++) {
            if (!sums[i][3]) continue;
            for (int c = 0; c < 3; c++) palette[3 * i + c] = (uint8_t)((sums[i][c] + sums[i][3] / 2) / sums[i][3]);
        }
    }
    return used;
}

int fc_gif_palette(const uint8_t *rgb, size_t count, int colors, uint8_t *palette) {
    fc_gif_bin *bins = malloc(FC_GIF_BINS * sizeof *bins);
    if (!bins) return 0;
    int n = fc_gif_make_palette(rgb, count, 3, colors, palette, bins);
    free(bins);
    return n;
}

// ---------------------------------------------------------------------------------------
// Writing

typedef struct {
    uint32_t x, y, w, h;
    int delay;
    int colours;           // entries; the transparent index is `colours`
    int local;             // a local colour table (else the global one)
    uint8_t palette[768];
    uint8_t *indices;      // w * h
    int disposal;
} fc_gif_out_frame;

struct fc_gif_encoder {
    fc_gif_encode_options options;
    FILE *file;
    fc_gif_report report;
    GifFileType *gif;
    int frames;            // added (before merging equal ones)
    int failed;
    uint8_t *source;       // the previous frame as given (RGBA, alpha 0 or 255, transparent 0,0,0,0)
    uint8_t *current;
    uint8_t *shown;        // the canvas as a viewer shows it after the pending frame
    uint8_t *base;         // the canvas the next frame is drawn on
    uint8_t *gather;       // the changed pixels of a frame, RGBA
    fc_gif_bin *bins;
    uint8_t global[768];
    int global_colours;
    fc_gif_out_frame pending;
    int has_pending;
    uint32_t cache_key[65536];
    uint8_t cache_value[65536];
};

static int fc_gif_write(GifFileType *gif, const GifByteType *bytes, int length) {
    fc_gif_encoder *e = gif->UserData;
    // An encoder freed before its end lets giflib go without writing: the file may be
    // closed already (an output thrown away).
    if (!e->file) return length;
    return (int)fwrite(bytes, 1, (size_t)length, e->file);
}

fc_gif_encoder *fc_gif_encoder_new(const fc_gif_encode_options *options, FILE *file) {
    fc_gif_encoder *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->options = *options;
    e->file = file;
    // The metadata is written with the first frame: copies of it, the caller's may go.
    e->options.metadata.icc = NULL;
    e->options.metadata.xmp = NULL;
    e->options.metadata.exif = NULL;
    if (options->metadata.icc && options->metadata.icc_length) {
        uint8_t *icc = malloc(options->metadata.icc_length);
        if (!icc) { free(e); return NULL; }
        memcpy(icc, options->metadata.icc, options->metadata.icc_length);
        e->options.metadata.icc = icc;
    }
    if (options->metadata.xmp && options->metadata.xmp_length) {
        uint8_t *xmp = malloc(options->metadata.xmp_length);
        if (!xmp) { free((void *)e->options.metadata.icc); free(e); return NULL; }
        memcpy(xmp, options->metadata.xmp, options->metadata.xmp_length);
        e->options.metadata.xmp = xmp;
    }
    size_t bytes = (size_t)options->width * options->height * 4;
    e->source = malloc(bytes);
    e->current = malloc(bytes);
    e->shown = calloc(1, bytes);
    e->base = calloc(1, bytes);
    e->gather = malloc(bytes);
    e->bins = malloc(FC_GIF_BINS * sizeof *e->bins);
    e->pending.indices = malloc((size_t)options->width * options->height);
    if (!e->source || !e->current || !e->shown || !e->base || !e->gather || !e->bins || !e->pending.indices) {
        fc_gif_encoder_free(e);
        return NULL;
    }
    return e;
}

void fc_gif_encoder_free(fc_gif_encoder *e) {
    if (!e) return;
    e->file = NULL;  // EGifCloseFile writes a trailer: not to a file that may be gone
    if (e->gif) EGifCloseFile(e->gif, NULL);
    free((void *)e->options.metadata.icc);
    free((void *)e->options.metadata.xmp);
    free(e->source);
    free(e->current);
    free(e->shown);
    free(e->base);
    free(e->gather);
    free(e->bins);
    free(e->pending.indices);
    free(e);
}

const fc_gif_report *fc_gif_encoder_report(const fc_gif_encoder *e) { return &e->report; }

static fc_status fc_gif_failure(fc_gif_encoder *e, const char *what) {
    e->failed = 1;
    if (ferror(e->file)) {
        snprintf(e->report.message, sizeof e->report.message, "%s", strerror(errno));
        return FC_WRITE_FAILED;
    }
    const char *why = e->gif ? GifErrorString(e->gif->Error) : NULL;
    snprintf(e->report.message, sizeof e->report.message, "%s (%s)", what, why ? why : "giflib failed");
    return FC_FAILED;
}

static ColorMapObject *fc_gif_map(const uint8_t *palette, int colours) {
    int size = 2;
    while (size < colours + 1) size *= 2;
    GifColorType colors[256];
    memset(colors, 0, sizeof colors);
    for (int i = 0; i < colours; i++) colors[i] = (GifColorType){ palette[3 * i], palette[3 * i + 1], palette[3 * i + 2] };
    return GifMakeMapObject(size, colors);
}

static fc_status fc_gif_put_application(fc_gif_encoder *e, const char *id, const uint8_t *data, size_t length, int raw) {
    if (EGifPutExtensionLeader(e->gif, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR
        || EGifPutExtensionBlock(e->gif, 11, id) == GIF_ERROR) return fc_gif_failure(e, "writing an application block");
    if (raw) {
        // XMP's way: the packet as it is, then a "magic trailer" that reads back as sub-blocks.
        uint8_t trailer[FC_GIF_XMP_TRAILER];
        trailer[0] = 1;
        for (int i = 1; i < FC_GIF_XMP_TRAILER; i++) trailer[i] = (uint8_t)(256 - i);
        if (fwrite(data, 1, length, e->file) != length || fwrite(trailer, 1, sizeof trailer, e->file) != sizeof trailer)
            return fc_gif_failure(e, "writing XMP");
    } else {
        for (size_t at = 0; at < length; at += 255) {
            int n = length - at < 255 ? (int)(length - at) : 255;
            if (EGifPutExtensionBlock(e->gif, n, data + at) == GIF_ERROR) return fc_gif_failure(e, "writing an application block");
        }
    }
    if (EGifPutExtensionTrailer(e->gif) == GIF_ERROR) return fc_gif_failure(e, "writing an application block");
    return FC_OK;
}

// Writes the pending frame, with its disposal now decided.
static fc_status fc_gif_put_pending(fc_gif_encoder *e) {
    fc_gif_out_frame *f = &e->pending;
    if (!e->gif) {
        int error = 0;
        e->gif = EGifOpen(e, fc_gif_write, &error);
        if (!e->gif) {
            snprintf(e->report.message, sizeof e->report.message, "giflib cannot start a file (%s)", GifErrorString(error));
            e->failed = 1;
            return FC_FAILED;
        }
        EGifSetGifVersion(e->gif, true);
        ColorMapObject *map = fc_gif_map(e->global, e->global_colours);
        if (!map) return FC_NO_MEMORY;
        int result = EGifPutScreenDesc(e->gif, (int)e->options.width, (int)e->options.height, 8, 0, map);
        GifFreeMapObject(map);
        if (result == GIF_ERROR) return fc_gif_failure(e, "writing the screen descriptor");
        if (e->options.loop_count >= 0) {
            uint8_t loop[3] = { 1, (uint8_t)(e->options.loop_count & 0xff), (uint8_t)(e->options.loop_count >> 8) };
            fc_status s = fc_gif_put_application(e, "NETSCAPE2.0", loop, 3, 0);
            if (s != FC_OK) return s;
        }
        const fc_metadata *m = &e->options.metadata;
        if (m->icc && m->icc_length) {
            fc_status s = fc_gif_put_application(e, "ICCRGBG1012", m->icc, m->icc_length, 0);
            if (s != FC_OK) return s;
        }
        if (m->xmp && m->xmp_length && !memchr(m->xmp, 0, m->xmp_length)) {
            fc_status s = fc_gif_put_application(e, "XMP DataXMP", m->xmp, m->xmp_length, 1);
            if (s != FC_OK) return s;
        }
    }
    // The transparent index only where the frame uses it (a first frame that covers the
    // canvas opaquely reads back as opaque).
    int transparent = memchr(f->indices, f->colours, (size_t)f->w * f->h) ? f->colours : NO_TRANSPARENT_COLOR;
    GraphicsControlBlock gcb = { .DisposalMode = f->disposal, .UserInputFlag = false,
                                 .DelayTime = f->delay, .TransparentColor = transparent };
    GifByteType extension[4];
    EGifGCBToExtension(&gcb, extension);
    if (EGifPutExtension(e->gif, GRAPHICS_EXT_FUNC_CODE, 4, extension) == GIF_ERROR) return fc_gif_failure(e, "writing a frame's control block");
    ColorMapObject *map = f->local ? fc_gif_map(f->palette, f->colours) : NULL;
    if (f->local && !map) return FC_NO_MEMORY;
    // giflib keeps a copy of a frame's local table and, given none for the next frame, drops
    // the pointer without freeing it (giflib 5.2.1's EGifPutImageDesc): freed here.
    if (!map && e->gif->Image.ColorMap) {
        GifFreeMapObject(e->gif->Image.ColorMap);
        e->gif->Image.ColorMap = NULL;
    }
    int result = EGifPutImageDesc(e->gif, (int)f->x, (int)f->y, (int)f->w, (int)f->h, false, map);
    if (map) GifFreeMapObject(map);
    if (result == GIF_ERROR) return fc_gif_failure(e, "writing a frame's descriptor");
    for (uint32_t r = 0; r < f->h; r++) {
        if (EGifPutLine(e->gif, f->indices + (size_t)r * f->w, (int)f->w) == GIF_ERROR) return fc_gif_failure(e, "writing a frame");
    }
    return FC_OK;
}

// Maps the gathered pixels (RGBA, `count`) to `palette`, into `out` (when not NULL); the sum
// of squared errors.
static uint64_t fc_gif_map_pixels(fc_gif_encoder *e, const uint8_t *palette, int colours, const uint8_t *pixels, size_t count, uint8_t *out) {
    fc_gif_search search;
    fc_gif_search_init(&search, palette, colours);
    memset(e->cache_key, 0xff, sizeof e->cache_key);
    uint64_t error = 0;
    for (size_t p = 0; p < count; p++) {
        const uint8_t *px = pixels + 4 * p;
        uint32_t key = ((uint32_t)px[0] << 16) | ((uint32_t)px[1] << 8) | px[2];
        uint32_t h = (key * 2654435761u) >> 16, probes = 0;
        while (e->cache_key[h] != UINT32_MAX && e->cache_key[h] != key && probes < 16) { h = (h + 1) & 65535; probes++; }
        int index;
        if (e->cache_key[h] == key) {
            index = e->cache_value[h];
        } else {
            index = fc_gif_nearest(&search, px[0], px[1], px[2], NULL);
            if (probes < 16) { e->cache_key[h] = key; e->cache_value[h] = (uint8_t)index; }
        }
        int dr = (int)palette[3 * index] - px[0], dg = (int)palette[3 * index + 1] - px[1], db = (int)palette[3 * index + 2] - px[2];
        error += (uint64_t)(dr * dr + dg * dg + db * db);
        if (out) out[p] = (uint8_t)index;
    }
    return error;
}

fc_status fc_gif_encoder_add(fc_gif_encoder *e, const uint8_t *pixels, size_t stride, int channels, int delay) {
    if (e->failed) return FC_FAILED;
    uint32_t w = e->options.width, h = e->options.height;
    size_t row = (size_t)w * 4;
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *in = pixels + (size_t)y * stride;
        uint8_t *out = e->current + (size_t)y * row;
        for (uint32_t x = 0; x < w; x++, in += channels, out += 4) {
            if (channels == 4 && in[3] < 128) { out[0] = out[1] = out[2] = out[3] = 0; continue; }
            out[0] = in[0]; out[1] = in[1]; out[2] = in[2]; out[3] = 255;
        }
    }
    int first = e->frames == 0;
    e->frames++;
    if (!first && memcmp(e->current, e->source, row * h) == 0) {
        int total = e->pending.delay + delay;
        e->pending.delay = total > 65535 ? 65535 : total;
        return FC_OK;
    }
    // The pending frame's disposal: cleared to transparent when this frame makes a shown pixel
    // transparent (its rectangle grown to take those pixels in, with the transparent index).
    if (e->has_pending) {
        fc_gif_out_frame *p = &e->pending;
        uint32_t x0 = p->x, y0 = p->y, x1 = p->x + p->w, y1 = p->y + p->h;
        int clear = 0;
        for (uint32_t y = 0; y < h; y++) {
            const uint8_t *s = e->shown + (size_t)y * row, *c = e->current + (size_t)y * row;
            for (uint32_t x = 0; x < w; x++) {
                if (s[4 * x + 3] && !c[4 * x + 3]) {
                    clear = 1;
                    if (x < x0) x0 = x;
                    if (x + 1 > x1) x1 = x + 1;
                    if (y < y0) y0 = y;
                    if (y + 1 > y1) y1 = y + 1;
                }
            }
        }
        if (clear && (x0 != p->x || y0 != p->y || x1 != p->x + p->w || y1 != p->y + p->h)) {
            // Re-lay the indices in the larger rectangle (from the bottom up: it only grows).
            uint32_t nw = x1 - x0, nh = y1 - y0;
            uint8_t *grown = malloc((size_t)nw * nh);
            if (!grown) return FC_NO_MEMORY;
            memset(grown, p->colours, (size_t)nw * nh);
            for (uint32_t r = 0; r < p->h; r++) memcpy(grown + (size_t)(r + p->y - y0) * nw + (p->x - x0), p->indices + (size_t)r * p->w, p->w);
            memcpy(p->indices, grown, (size_t)nw * nh);
            free(grown);
            p->x = x0; p->y = y0; p->w = nw; p->h = nh;
        }
        p->disposal = clear ? 2 : 1;
        memcpy(e->base, e->shown, row * h);
        if (clear) for (uint32_t y = p->y; y < p->y + p->h; y++) memset(e->base + (size_t)y * row + (size_t)p->x * 4, 0, (size_t)p->w * 4);
        fc_status s = fc_gif_put_pending(e);
        if (s != FC_OK) return s;
    }
    // This frame's rectangle: what changed from the frame before, and what the disposal
    // cleared under opaque pixels.
    uint32_t x0 = w, y0 = h, x1 = 0, y1 = 0;
    if (first) {
        x0 = 0; y0 = 0; x1 = w; y1 = h;
    } else {
        for (uint32_t y = 0; y < h; y++) {
            const uint8_t *c = e->current + (size_t)y * row, *s = e->source + (size_t)y * row;
            const uint8_t *b = e->base + (size_t)y * row, *v = e->shown + (size_t)y * row;
            for (uint32_t x = 0; x < w; x++) {
                int changed = memcmp(c + 4 * x, s + 4 * x, 4) != 0 || (c[4 * x + 3] && memcmp(b + 4 * x, v + 4 * x, 4) != 0);
                if (!changed) continue;
                if (x < x0) x0 = x;
                if (x + 1 > x1) x1 = x + 1;
                if (y < y0) y0 = y;
                if (y + 1 > y1) y1 = y + 1;
            }
        }
        if (x1 <= x0) { x0 = 0; y0 = 0; x1 = 1; y1 = 1; }  // only pixels that stay transparent changed
    }
    fc_gif_out_frame *f = &e->pending;
    f->x = x0; f->y = y0; f->w = x1 - x0; f->h = y1 - y0;
    f->delay = delay;
    // The pixels to draw: opaque ones that changed (or are on a cleared place).
    size_t count = 0;
    for (uint32_t y = y0; y < y1; y++) {
        const uint8_t *c = e->current + (size_t)y * row, *s = e->source + (size_t)y * row;
        const uint8_t *b = e->base + (size_t)y * row, *v = e->shown + (size_t)y * row;
        for (uint32_t x = x0; x < x1; x++) {
            if (!c[4 * x + 3]) continue;
            if (!first && memcmp(c + 4 * x, s + 4 * x, 4) == 0 && memcmp(b + 4 * x, v + 4 * x, 4) == 0) continue;
            memcpy(e->gather + 4 * count++, c + 4 * x, 4);
        }
    }
    // Its palette: the global one when it serves nearly as well as one of its own.
    uint8_t own[768];
    int own_colours = fc_gif_make_palette(e->gather, count, 4, 255, own, e->bins);
    if (first) {
        memcpy(e->global, own, sizeof own);
        e->global_colours = own_colours;
        f->local = 0;
    } else {
        uint64_t with_global = fc_gif_map_pixels(e, e->global, e->global_colours, e->gather, count, NULL);
        uint64_t with_own = fc_gif_map_pixels(e, own, own_colours, e->gather, count, NULL);
        // 768 bytes of table against the error: the global one unless it costs a quarter more
        // error than this frame's own, plus a little (so that a frame whose colours are all
        // in the global table never takes one).
        f->local = with_global > with_own + with_own / 4 + (uint64_t)count * 2;
    }
    const uint8_t *palette = f->local ? own : e->global;
    int colours = f->local ? own_colours : e->global_colours;
    if (f->local) memcpy(f->palette, own, sizeof own);
    f->colours = colours;
    uint8_t *indices = f->indices;
    fc_gif_map_pixels(e, palette, colours, e->gather, count, e->gather);  // indices into gather's first bytes
    // Lay out the rectangle: drawn pixels take their index, the rest the transparent one; a
    // drawn pixel whose colour is already shown underneath is left transparent too.
    size_t k = 0;
    for (uint32_t y = y0; y < y1; y++) {
        const uint8_t *c = e->current + (size_t)y * row, *s = e->source + (size_t)y * row;
        const uint8_t *b = e->base + (size_t)y * row, *v = e->shown + (size_t)y * row;
        uint8_t *out = indices + (size_t)(y - y0) * f->w;
        uint8_t *shown = e->shown + (size_t)y * row;
        for (uint32_t x = x0; x < x1; x++) {
            uint8_t *px = out + (x - x0);
            int draw = c[4 * x + 3] && (first || memcmp(c + 4 * x, s + 4 * x, 4) != 0 || memcmp(b + 4 * x, v + 4 * x, 4) != 0);
            if (!draw) { *px = (uint8_t)colours; continue; }
            int i = e->gather[k++];
            const uint8_t *p = palette + 3 * i;
            if (!first && b[4 * x + 3] && b[4 * x] == p[0] && b[4 * x + 1] == p[1] && b[4 * x + 2] == p[2]) *px = (uint8_t)colours;
            else *px = (uint8_t)i;
            (void)shown;
        }
    }
    // What a viewer shows now: the base with this frame drawn.
    memcpy(e->shown, e->base, row * h);
    for (uint32_t y = y0; y < y1; y++) {
        const uint8_t *in = indices + (size_t)(y - y0) * f->w;
        uint8_t *out = e->shown + (size_t)y * row;
        for (uint32_t x = x0; x < x1; x++) {
            int i = in[x - x0];
            if (i == colours) continue;
            out[4 * x] = palette[3 * i];
            out[4 * x + 1] = palette[3 * i + 1];
            out[4 * x + 2] = palette[3 * i + 2];
            out[4 * x + 3] = 255;
        }
    }
    memcpy(e->source, e->current, row * h);
    e->has_pending = 1;
    return FC_OK;
}

fc_status fc_gif_encoder_finish(fc_gif_encoder *e) {
    if (e->failed) return FC_FAILED;
    if (!e->has_pending) { fc_gif_say(&e->report, "no frame was given"); return FC_FAILED; }
    e->pending.disposal = 1;
    fc_status s = fc_gif_put_pending(e);
    if (s != FC_OK) return s;
    int error = 0;
    int result = EGifCloseFile(e->gif, &error);
    e->gif = NULL;
    if (result == GIF_ERROR) {
        e->failed = 1;
        if (ferror(e->file)) { snprintf(e->report.message, sizeof e->report.message, "%s", strerror(errno)); return FC_WRITE_FAILED; }
        snprintf(e->report.message, sizeof e->report.message, "giflib failed to end the file (%s)", GifErrorString(error));
        return FC_FAILED;
    }
    if (fflush(e->file) != 0) { snprintf(e->report.message, sizeof e->report.message, "%s", strerror(errno)); return FC_WRITE_FAILED; }
    return FC_OK;
}
