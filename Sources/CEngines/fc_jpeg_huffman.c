// See fc_jpeg_huffman.h. The decoding follows ITU T.81 F.2.2 (DECODE, RECEIVE, EXTEND) and
// libjpeg-turbo's jdhuff.c where T.81 leaves a damaged file's meaning open.
#include "fc_jpeg_huffman.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

// Zigzag position k to natural (row-major) index, with libjpeg's 16 extra entries: a run
// that passes the 63rd coefficient writes to the 63rd (jdhuff.c does; T.81 calls it an error).
static const uint8_t fc_natural[64 + 16] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33,
    40, 48, 41, 34, 27, 20, 13, 6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36,
    29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54,
    47, 55, 62, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63};

// MARK: - Tables

#define FC_FAST_BITS 9      // codes this long or shorter: one lookup
#define FC_AC_FAST_BITS 10  // an AC code with its extra bits this long or shorter: one lookup

typedef struct {
    uint16_t fast[1 << FC_FAST_BITS];  // length << 8 | symbol; 0: the code is longer
    // A code and its extra bits within the next FC_AC_FAST_BITS bits: value << 16 | run << 8 |
    // bits used. 0 otherwise (longer, or a symbol without extra bits: EOB, ZRL).
    int32_t ac_fast[1 << FC_AC_FAST_BITS];
    int32_t maxcode[18];  // the largest code of each length; -1 when none
    int32_t valptr[17], mincode[17];
    uint8_t symbols[256];
} fc_huff_table;

/// The canonical code of a table libjpeg has checked (jpeg_make_d_derived_tbl, when the
/// decompressor started): lengths that fit, at most 256 symbols.
static void fc_huff_build(fc_huff_table *h, const JHUFF_TBL *t, int ac) {
    memset(h, 0, sizeof *h);
    int code = 0, k = 0;
    for (int length = 1; length <= 16; length++) {
        h->valptr[length] = k;
        h->mincode[length] = code;
        for (int i = 0; i < t->bits[length] && k < 256; i++, k++, code++) {
            h->symbols[k] = t->huffval[k];
            if (length <= FC_FAST_BITS) {
                int shift = FC_FAST_BITS - length;
                for (int f = code << shift; f < (code + 1) << shift; f++)
                    h->fast[f] = (uint16_t)(length << 8 | t->huffval[k]);
            }
        }
        h->maxcode[length] = t->bits[length] ? code - 1 : -1;
        code <<= 1;
    }
    h->maxcode[17] = INT32_MAX;
    if (!ac) return;
    for (int i = 0; i < (1 << FC_AC_FAST_BITS); i++) {
        uint16_t f = h->fast[i >> (FC_AC_FAST_BITS - FC_FAST_BITS)];
        if (!f) continue;
        int length = f >> 8, run = (f & 0xFF) >> 4, size = f & 15;
        if (size == 0 || length + size > FC_AC_FAST_BITS) continue;
        int v = (i >> (FC_AC_FAST_BITS - length - size)) & ((1 << size) - 1);
        if (v < (1 << (size - 1))) v += 1 - (1 << size);
        h->ac_fast[i] = (int32_t)((uint32_t)(uint16_t)(int16_t)v << 16 | (uint32_t)run << 8 | (uint32_t)(length + size));
    }
}

// MARK: - Memory

// The scan's bytes and the helper's MCUs are megabytes written once, whose first touch of
// each 4 KiB page is a page fault (14.7 MP: some 3,500 of them, several milliseconds of
// kernel time). Allocations of a megabyte or more are aligned to 2 MiB and offered to the
// kernel for transparent huge pages (a fault per 2 MiB), where it grants them.
#define FC_HUGE (2u << 20)

void *fc_jpeg_big_alloc(size_t size) {
    if (size < (1u << 20)) return malloc(size);
    void *p = NULL;
    size_t rounded = (size + FC_HUGE - 1) / FC_HUGE * FC_HUGE;
    if (posix_memalign(&p, FC_HUGE, rounded) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    (void)madvise(p, rounded, MADV_HUGEPAGE);
#endif
    return p;
}

// MARK: - Reading bits

// The scan's bytes with the stuffed zeros removed, followed by FC_PAD zero bytes: an MCU read
// from damaged data may run past the end before its end position is checked, and every load
// takes 8 bytes. 10 blocks of 63 codes of 16 bits and 15 extra bits are 2,440 bytes.
#define FC_PAD 4096

typedef struct {
    const uint8_t *p;
    uint64_t buffer;  // the next bits, most significant first
    int bits;         // how many of them are counted
} fc_bits;

static inline void fc_fill(fc_bits *r) {
    if (r->bits >= 32) return;
    uint64_t w;
    memcpy(&w, r->p, 8);
    w = __builtin_bswap64(w);
    r->buffer |= w >> r->bits;
    r->p += (63 - r->bits) >> 3;
    r->bits |= 56;
}

static inline int fc_peek(const fc_bits *r, int n) { return (int)(r->buffer >> (64 - n)); }

static inline void fc_skip(fc_bits *r, int n) {
    r->buffer <<= n;
    r->bits -= n;
}

static inline uint64_t fc_position(const fc_bits *r, const uint8_t *base) {
    return (uint64_t)(r->p - base) * 8 - (uint64_t)r->bits;
}

/// The next symbol, or -1 for a code the table does not hold. At least 16 bits are loaded.
static inline int fc_decode(fc_bits *r, const fc_huff_table *h) {
    uint16_t f = h->fast[fc_peek(r, FC_FAST_BITS)];
    if (f) {
        fc_skip(r, f >> 8);
        return f & 0xFF;
    }
    int length = FC_FAST_BITS + 1;
    int code = fc_peek(r, length);
    while (code > h->maxcode[length]) code = fc_peek(r, ++length);
    if (length > 16) return -1;
    fc_skip(r, length);
    return h->symbols[(h->valptr[length] + code - h->mincode[length]) & 0xFF];
}

/// RECEIVE and EXTEND (T.81 F.2.2.1) of `size` >= 1 bits.
static inline int fc_receive(fc_bits *r, int size) {
    int v = fc_peek(r, size);
    fc_skip(r, size);
    return v < (1 << (size - 1)) ? v + 1 - (1 << size) : v;
}

// MARK: - The scan

// The helper's MCUs: where each starts and ends (bits of the destuffed data) and its blocks,
// each as its DC difference (2 bytes), then (natural index, value) for each coefficient
// written (3 bytes), then a 0.
typedef struct {
    uint64_t start, end;
    const uint8_t *data;
    int bad;  // decoding it found a bad code or ran past the data
} fc_huff_entry;

#define FC_BLOCK_MAX_BYTES (2 + 63 * 3 + 1)
#define FC_STORE_CHUNK ((2u << 20) - 64)  // with its header, 2 MiB
#define FC_PUBLISH_EVERY 64
#define FC_ENTRY_PAGE 4096  // a multiple of FC_PUBLISH_EVERY: pages are allocated before publication

typedef struct fc_store_chunk {
    struct fc_store_chunk *next;
    uint8_t bytes[];
} fc_store_chunk;

struct fc_huff_scan {
    fc_huff_table dc[4], ac[4];
    int blocks;                    // per MCU
    const fc_huff_table *dc_of[D_MAX_BLOCKS_IN_MCU], *ac_of[D_MAX_BLOCKS_IN_MCU];
    int component_of[D_MAX_BLOCKS_IN_MCU];
    size_t total;                  // MCUs in the scan
    size_t split_mcus;
    uint8_t *data;                 // destuffed, FC_PAD zeros after
    size_t size;                   // destuffed bytes
    int marker;                    // the marker code after the scan; -1: none before the end
    // The entropy thread's decoding.
    fc_bits reader;
    uint64_t position;             // where the last MCU given ended (bits)
    int32_t last_dc[4];
    size_t next;                   // the next MCU
    int failed;
    int split_used;
    // The helper.
    int helper_started;
    pthread_t helper;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    fc_huff_entry **pages;         // entries, FC_ENTRY_PAGE to a page, up to `total`
    fc_store_chunk *chunks;
    size_t helper_from;            // the byte it starts at
    // Under the lock:
    size_t published;              // entries written
    int helper_done, stop;
    // The entropy thread's view of the helper:
    size_t seen;                   // entries known to be written
    int seen_done;
    size_t candidate;              // the first entry that may start where the entropy thread is
    int synced;
    size_t delta;                  // entropy MCU index - helper entry index, once synced
};

fc_huff_scan *fc_huff_scan_new(j_decompress_ptr c, size_t split_mcus) {
    if (c->progressive_mode || c->arith_code || c->data_precision != 8 || c->restart_interval != 0
        || c->comps_in_scan != c->num_components || c->comps_in_scan < 1 || c->comps_in_scan > 4
        || c->blocks_in_MCU < 1 || c->blocks_in_MCU > D_MAX_BLOCKS_IN_MCU)
        return NULL;
    fc_huff_scan *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->blocks = c->blocks_in_MCU;
    s->total = (size_t)c->MCUs_per_row * c->MCU_rows_in_scan;
    s->split_mcus = split_mcus;
    int built_dc = 0, built_ac = 0;
    for (int b = 0; b < s->blocks; b++) {
        int ci = c->MCU_membership[b];
        if (ci < 0 || ci >= c->comps_in_scan) {
            free(s);
            return NULL;
        }
        jpeg_component_info *comp = c->cur_comp_info[ci];
        int dt = comp->dc_tbl_no, at = comp->ac_tbl_no;
        if (dt < 0 || dt > 3 || at < 0 || at > 3 || !c->dc_huff_tbl_ptrs[dt] || !c->ac_huff_tbl_ptrs[at]) {
            free(s);
            return NULL;
        }
        if (!(built_dc & 1 << dt)) fc_huff_build(&s->dc[dt], c->dc_huff_tbl_ptrs[dt], 0);
        if (!(built_ac & 1 << at)) fc_huff_build(&s->ac[at], c->ac_huff_tbl_ptrs[at], 1);
        built_dc |= 1 << dt;
        built_ac |= 1 << at;
        s->dc_of[b] = &s->dc[dt];
        s->ac_of[b] = &s->ac[at];
        s->component_of[b] = ci;
    }
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->changed, NULL);
    return s;
}

// MARK: - Reading the bytes

typedef struct {
    uint8_t *out;
    size_t length, capacity;
    int marker;  // -2: not yet found; -1 none; else the marker code
} fc_destuffer;

/// Appends `in` to the destuffed bytes until a marker (0xFF then neither 0x00 nor 0xFF;
/// fill bytes 0xFF before a marker are skipped). Returns how many bytes were used: fewer than
/// `n` when `in` ends in 0xFF bytes and more may follow (`final` 0), or when a marker was found.
static size_t fc_destuff(fc_destuffer *d, const uint8_t *in, size_t n, int final) {
    size_t i = 0;
    while (i < n && d->marker == -2) {
        const uint8_t *ff = memchr(in + i, 0xFF, n - i);
        size_t run = ff ? (size_t)(ff - (in + i)) : n - i;
        if (d->length + run > d->capacity) run = d->capacity - d->length;
        memcpy(d->out + d->length, in + i, run);
        d->length += run;
        i += run;
        if (!ff || i < (size_t)(ff - in)) return i;  // the end, or no room (cannot happen)
        size_t j = i + 1;
        while (j < n && in[j] == 0xFF) j++;
        if (j == n) {
            if (final) d->marker = -1;
            return i;  // the 0xFF bytes are seen again with what follows
        }
        if (in[j] == 0x00 && j == i + 1) {
            if (d->length == d->capacity) return i;
            d->out[d->length++] = 0xFF;
            i += 2;
            continue;
        }
        // A marker (0xFF 0xFF 0x00 too: libjpeg reads it as a stuffed 0xFF; not plain, so
        // it ends this decoder's data and libjpeg decodes from there).
        d->marker = in[j] == 0x00 ? 0x100 : in[j];
        i = j + 1;
    }
    return i;
}

static void *fc_huff_helper(void *arg);

int fc_huff_scan_load(fc_huff_scan *s, const uint8_t *data, size_t size, FILE *file, uint64_t offset) {
    fc_destuffer d = {NULL, 0, 0, -2};
    if (file) {
        // pread and fstat: the file's offset is shared (a dup of the decoder's handle) and
        // is libjpeg's, should it take over.
        int fd = fileno(file);
        struct stat info;
        if (fstat(fd, &info) != 0 || info.st_size < 0 || (uint64_t)info.st_size < offset) return 0;
        d.capacity = (size_t)((uint64_t)info.st_size - offset);
        d.out = fc_jpeg_big_alloc(d.capacity + FC_PAD);
        if (!d.out) return 0;
        enum { CHUNK = 1 << 18 };
        uint8_t *chunk = malloc(CHUNK);
        if (!chunk) {
            free(d.out);
            return 0;
        }
        size_t kept = 0;  // 0xFF bytes carried to the next read
        uint64_t at = offset;
        while (d.marker == -2) {
            ssize_t got = pread(fd, chunk + kept, CHUNK - kept, (off_t)at);
            if (got < 0) {
                free(chunk);
                free(d.out);
                return 0;
            }
            at += (uint64_t)got;
            size_t n = kept + (size_t)got;
            size_t used = fc_destuff(&d, chunk, n, got == 0);
            if (d.marker != -2) break;
            if (got == 0) {
                d.marker = -1;  // the file ends in the scan
                break;
            }
            if (used < n) memmove(chunk, chunk + used, n - used);
            kept = n - used;
            if (kept == CHUNK) d.marker = -1;  // a quarter megabyte of 0xFF: not plain
        }
        free(chunk);
    } else {
        if (offset > size) return 0;
        d.capacity = size - (size_t)offset;
        d.out = fc_jpeg_big_alloc(d.capacity + FC_PAD);
        if (!d.out) return 0;
        fc_destuff(&d, data + offset, d.capacity, 1);
        if (d.marker == -2) d.marker = -1;
    }
    memset(d.out + d.length, 0, FC_PAD);
    s->data = d.out;
    s->size = d.length;
    s->marker = d.marker;
    s->reader = (fc_bits){s->data, 0, 0};
    if (s->split_mcus && s->total >= s->split_mcus && s->total >= 4 && s->size >= 64) {
        s->pages = calloc(s->total / FC_ENTRY_PAGE + 1, sizeof *s->pages);
        s->helper_from = s->size / 2;
        if (s->pages && pthread_create(&s->helper, NULL, fc_huff_helper, s) == 0) s->helper_started = 1;
    }
    return 1;
}

// MARK: - Decoding

/// One MCU into `blocks`, DC values from the predictors. 0 when it cannot be libjpeg's.
static int fc_decode_mcu(fc_huff_scan *s, fc_bits *reader, JBLOCKROW *blocks) {
    // A local copy: the coefficient stores could alias *reader as far as the compiler knows,
    // so through the pointer it would store and reload the bit buffer at every symbol.
    fc_bits bits = *reader, *r = &bits;
    for (int b = 0; b < s->blocks; b++) {
        JCOEF *block = blocks[b][0];
        fc_fill(r);
        int t = fc_decode(r, s->dc_of[b]);
        if (t < 0) { *reader = bits; return 0; }
        int diff = 0;
        if (t) {
            fc_fill(r);
            diff = fc_receive(r, t);
        }
        int ci = s->component_of[b];
        int64_t dc = (int64_t)s->last_dc[ci] + diff;
        if (dc > INT32_MAX || dc < INT32_MIN) { *reader = bits; return 0; }  // libjpeg-turbo stops there
        s->last_dc[ci] = (int32_t)dc;
        block[0] = (JCOEF)dc;
        const fc_huff_table *ac = s->ac_of[b];
        for (int k = 1; k < 64; k++) {
            fc_fill(r);
            int32_t fast = ac->ac_fast[fc_peek(r, FC_AC_FAST_BITS)];
            if (fast) {
                fc_skip(r, fast & 0xFF);
                k += (fast >> 8) & 0xFF;
                block[fc_natural[k]] = (JCOEF)(int16_t)(fast >> 16);
                continue;
            }
            int rs = fc_decode(r, ac);
            if (rs < 0) { *reader = bits; return 0; }
            int run = rs >> 4, size = rs & 15;
            if (size) {
                k += run;
                block[fc_natural[k]] = (JCOEF)fc_receive(r, size);
            } else {
                if (run != 15) break;
                k += 15;
            }
        }
    }
    *reader = bits;
    return 1;
}

/// One MCU in the helper's compact form; NULL for a bad code.
static uint8_t *fc_decode_compact(const fc_huff_scan *s, fc_bits *reader, uint8_t *o) {
    fc_bits bits = *reader, *r = &bits;  // as in fc_decode_mcu
    for (int b = 0; b < s->blocks; b++) {
        fc_fill(r);
        int t = fc_decode(r, s->dc_of[b]);
        if (t < 0) { *reader = bits; return NULL; }
        int16_t diff = 0;
        if (t) {
            fc_fill(r);
            diff = (int16_t)fc_receive(r, t);
        }
        memcpy(o, &diff, 2);
        o += 2;
        const fc_huff_table *ac = s->ac_of[b];
        for (int k = 1; k < 64; k++) {
            fc_fill(r);
            int32_t fast = ac->ac_fast[fc_peek(r, FC_AC_FAST_BITS)];
            int16_t v;
            if (fast) {
                fc_skip(r, fast & 0xFF);
                k += (fast >> 8) & 0xFF;
                v = (int16_t)(fast >> 16);
            } else {
                int rs = fc_decode(r, ac);
                if (rs < 0) { *reader = bits; return NULL; }
                int run = rs >> 4, size = rs & 15;
                if (!size) {
                    if (run != 15) break;
                    k += 15;
                    continue;
                }
                k += run;
                v = (int16_t)fc_receive(r, size);
            }
            o[0] = fc_natural[k];
            memcpy(o + 1, &v, 2);
            o += 3;
        }
        *o++ = 0;
    }
    *reader = bits;
    return o;
}

/// The helper thread: decodes from the middle of the data as if an MCU started there, every
/// MCU an entry. After a bad code it starts again at the next byte.
static void *fc_huff_helper(void *arg) {
    fc_huff_scan *s = arg;
    fc_bits r = {s->data + s->helper_from, 0, 0};
    const uint64_t limit = (uint64_t)s->size * 8;
    const size_t most = (size_t)s->blocks * FC_BLOCK_MAX_BYTES;
    uint8_t *o = NULL, *o_end = NULL;
    size_t n = 0;
    int done = 0;
    while (n < s->total && !done) {
        if (n % FC_PUBLISH_EVERY == 0) {
            pthread_mutex_lock(&s->lock);
            s->published = n;
            int stop = s->stop;
            pthread_cond_broadcast(&s->changed);
            pthread_mutex_unlock(&s->lock);
            if (stop) break;
        }
        if ((size_t)(o_end - o) < most) {
            fc_store_chunk *c = fc_jpeg_big_alloc(sizeof *c + FC_STORE_CHUNK);
            if (!c) break;
            c->next = s->chunks;  // only this thread touches the list until it is joined
            s->chunks = c;
            o = c->bytes;
            o_end = o + FC_STORE_CHUNK;
        }
        if (n % FC_ENTRY_PAGE == 0 && !(s->pages[n / FC_ENTRY_PAGE] = malloc(FC_ENTRY_PAGE * sizeof(fc_huff_entry))))
            break;
        fc_huff_entry *e = &s->pages[n / FC_ENTRY_PAGE][n % FC_ENTRY_PAGE];
        n++;
        e->start = fc_position(&r, s->data);
        e->data = o;
        uint8_t *next = fc_decode_compact(s, &r, o);
        e->end = fc_position(&r, s->data);
        e->bad = !next || e->end > limit;
        if (!e->bad) {
            o = next;
        } else if (next) {
            done = 1;  // past the end of the data
        } else {
            // A bad code: again from the byte after it.
            size_t byte = (size_t)(e->end / 8) + 1;
            if (byte >= s->size) done = 1;
            r = (fc_bits){s->data + byte, 0, 0};
        }
    }
    pthread_mutex_lock(&s->lock);
    s->published = n;
    s->helper_done = 1;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/// Entries up to `want` (exclusive) written, waiting for them when `wait`; updates the view.
static void fc_huff_refresh(fc_huff_scan *s, size_t want, int wait) {
    pthread_mutex_lock(&s->lock);
    while (wait && s->published < want && !s->helper_done) pthread_cond_wait(&s->changed, &s->lock);
    s->seen = s->published;
    s->seen_done = s->helper_done;
    pthread_mutex_unlock(&s->lock);
}

static inline const fc_huff_entry *fc_huff_entry_at(const fc_huff_scan *s, size_t j) {
    return &s->pages[j / FC_ENTRY_PAGE][j % FC_ENTRY_PAGE];
}

static int fc_huff_fail(fc_huff_scan *s, JBLOCKROW *blocks) {
    s->failed = 1;
    for (int b = 0; b < s->blocks; b++) memset(blocks[b][0], 0, sizeof(JBLOCK));
    return 0;
}

int fc_huff_scan_next(fc_huff_scan *s, JBLOCKROW *blocks) {
    if (s->failed || s->next >= s->total || !s->data) return s->failed ? 0 : fc_huff_fail(s, blocks);
    size_t i = s->next;
    if (s->helper_started && !s->synced) {
        // In the helper's part: does one of its MCUs start where this one starts? Its MCUs up
        // to here are waited for (it decodes them as fast as this thread would), so that the
        // first common start is found, whatever the two threads' timing.
        uint64_t here = fc_position(&s->reader, s->data);
        if (here >= (uint64_t)s->helper_from * 8) {
            for (;;) {
                while (s->candidate < s->seen && fc_huff_entry_at(s, s->candidate)->start < here) s->candidate++;
                if (s->candidate < s->seen || s->seen_done) break;
                fc_huff_refresh(s, s->seen + 1, 1);
            }
            if (s->candidate < s->seen && fc_huff_entry_at(s, s->candidate)->start == here) {
                s->synced = 1;
                s->delta = i - s->candidate;
            }
        }
    }
    if (s->synced) {
        size_t j = i - s->delta;
        if (j >= s->seen) fc_huff_refresh(s, j + 1, 1);
        if (j >= s->seen) return fc_huff_fail(s, blocks);
        const fc_huff_entry *e = fc_huff_entry_at(s, j);
        if (e->bad) return fc_huff_fail(s, blocks);
        const uint8_t *q = e->data;
        for (int b = 0; b < s->blocks; b++) {
            JCOEF *block = blocks[b][0];
            int16_t diff;
            memcpy(&diff, q, 2);
            q += 2;
            int ci = s->component_of[b];
            int64_t dc = (int64_t)s->last_dc[ci] + diff;
            if (dc > INT32_MAX || dc < INT32_MIN) return fc_huff_fail(s, blocks);
            s->last_dc[ci] = (int32_t)dc;
            block[0] = (JCOEF)dc;
            while (*q) {
                int16_t v;
                memcpy(&v, q + 1, 2);
                block[*q] = v;
                q += 3;
            }
            q++;
        }
        s->split_used = 1;
        s->position = e->end;
        s->next++;
        return 1;
    }
    if (!fc_decode_mcu(s, &s->reader, blocks)) return fc_huff_fail(s, blocks);
    s->position = fc_position(&s->reader, s->data);
    if (s->position > (uint64_t)s->size * 8) return fc_huff_fail(s, blocks);
    s->next++;
    return 1;
}

int fc_huff_scan_ended_cleanly(const fc_huff_scan *s) {
    if (s->failed || s->next != s->total || !s->data) return 0;
    uint64_t end = s->position, limit = (uint64_t)s->size * 8;
    return end <= limit && limit - end < 8 && s->marker == 0xD9;
}

int fc_huff_scan_was_split(const fc_huff_scan *s) { return s->split_used; }

void fc_huff_scan_free(fc_huff_scan *s) {
    if (!s) return;
    if (s->helper_started) {
        pthread_mutex_lock(&s->lock);
        s->stop = 1;
        pthread_mutex_unlock(&s->lock);
        pthread_join(s->helper, NULL);
    }
    while (s->chunks) {
        fc_store_chunk *next = s->chunks->next;
        free(s->chunks);
        s->chunks = next;
    }
    if (s->pages)
        for (size_t p = 0; p <= s->total / FC_ENTRY_PAGE; p++) free(s->pages[p]);
    free(s->pages);
    free(s->data);
    pthread_cond_destroy(&s->changed);
    pthread_mutex_destroy(&s->lock);
    free(s);
}
