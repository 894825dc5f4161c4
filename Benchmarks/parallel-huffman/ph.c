// An experiment, not part of filterchain: parallel Huffman decoding of a baseline JPEG
// without restart markers (W11's critical path is libjpeg's one-thread Huffman decode).
// Prints: how soon a decoder started at an arbitrary bit in the middle (assuming the first
// block of an MCU) falls into step with the true decode (same bit position and block phase),
// whether its blocks are then the true ones, the decoder's blocks against
// jpeg_read_coefficients (DC accumulated), and timings of one and of two threads.
// Build: cc -O2 -march=native ph.c -o ph -ljpeg -lpthread; run: ./ph FILE.jpg
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jpeglib.h>

static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static const int natural[64+16] = {0,1,8,16,9,2,3,10,17,24,32,25,18,11,4,5,12,19,26,33,40,48,41,34,27,20,13,6,7,14,21,28,35,42,49,56,57,50,43,36,29,22,15,23,30,37,44,51,58,59,52,45,38,31,39,46,53,60,61,54,47,55,62,63,
 63,63,63,63,63,63,63,63,63,63,63,63,63,63,63,63};

#define FASTBITS 10
typedef struct { // canonical Huffman decoding table
    // AC fast path: for the next FASTBITS bits, if the code and its extra bits fit: value
    // (int16) << 16 | run << 8 | total length; 0 otherwise.
    int32_t acfast[1 << FASTBITS];
    uint16_t fast[1 << 9];   // (length << 8) | value, 0 if longer than 9 bits
    int32_t maxcode[18];     // largest code of each length, -1 if none
    int32_t valptr[17];      // index into vals of the first code of each length
    int32_t mincode[17];
    uint8_t vals[256];
} huff;

static void build(huff *h, const JHUFF_TBL *t) {
    int code = 0, k = 0;
    memset(h->fast, 0, sizeof h->fast);
    memcpy(h->vals, t->huffval, 256);
    for (int len = 1; len <= 16; len++) {
        h->valptr[len] = k; h->mincode[len] = code;
        for (int i = 0; i < t->bits[len]; i++, k++, code++) {
            if (len <= 9) {
                int shift = 9 - len;
                for (int f = code << shift; f < (code + 1) << shift; f++) h->fast[f] = (uint16_t)(len << 8 | t->huffval[k]);
            }
        }
        h->maxcode[len] = t->bits[len] ? code - 1 : -1;
        code <<= 1;
    }
    h->maxcode[17] = 0x7FFFFFFF;
    memset(h->acfast, 0, sizeof h->acfast);
    for (int i = 0; i < (1 << FASTBITS); i++) {
        uint16_t f = h->fast[i >> (FASTBITS - 9)];
        if (!f) continue;
        int len = f >> 8, rs = f & 0xFF, run = rs >> 4, sz = rs & 15;
        if (sz == 0 || len + sz > FASTBITS) continue;
        int v = (i >> (FASTBITS - len - sz)) & ((1 << sz) - 1);
        if (v < (1 << (sz - 1))) v = v - (1 << sz) + 1;
        h->acfast[i] = (int32_t)((uint32_t)(int16_t)v << 16 | (uint32_t)run << 8 | (uint32_t)(len + sz));
    }
}

typedef struct { const uint8_t *p, *end; uint64_t buf; int bits; } reader; // destuffed bytes
// The destuffed data is padded with 8 zero bytes, so that 8 bytes can always be loaded.
static inline void fill(reader *r) {
    if (r->bits >= 32) return;
    uint64_t w; memcpy(&w, r->p, 8); w = __builtin_bswap64(w);
    r->buf |= w >> r->bits;
    r->p += (63 - r->bits) >> 3;
    r->bits |= 56;
}
static inline int peek(reader *r, int n) { return (int)(r->buf >> (64 - n)); }
static inline void skip(reader *r, int n) { r->buf <<= n; r->bits -= n; }
static inline int decode(reader *r, const huff *h) {
    uint16_t f = h->fast[peek(r, 9)];
    if (f) { skip(r, f >> 8); return f & 0xFF; }
    int len = 10;
    int code = peek(r, 10);
    while (len <= 16 && code > h->maxcode[len]) { len++; code = peek(r, len); }
    if (len > 16) { skip(r, 1); return 0; } // corrupt: keep going
    skip(r, len);
    return h->vals[h->valptr[len] + code - h->mincode[len]];
}
static inline int receive(reader *r, int s) {
    int v = peek(r, s); skip(r, s);
    return v < (1 << (s - 1)) ? v - (1 << s) + 1 : v;
}
static inline uint64_t position(const reader *r, const uint8_t *base) { return (uint64_t)(r->p - base) * 8 - r->bits; }

typedef struct {
    int nblocks_mcu; int comp_of[10]; // per block in MCU: component index
    huff dc[4], ac[4]; int dctbl[4], actbl[4];
    const uint8_t *data; size_t size; // destuffed scan
    long total_blocks;
} scan;

// Decodes one block (DC diff in c[0]).
static inline void block(reader *r, const scan *s, int comp, int16_t *c) {
    fill(r);
    int t = decode(r, &s->dc[s->dctbl[comp]]);
    fill(r);
    c[0] = t ? (int16_t)receive(r, t) : 0;
    const huff *ac = &s->ac[s->actbl[comp]];
    for (int k = 1; k < 64; k++) {
        fill(r);
        int rs = decode(r, ac);
        int run = rs >> 4, sz = rs & 15;
        if (sz) { k += run; if (k > 63) break; c[natural[k]] = (int16_t)receive(r, sz); }
        else { if (run != 15) break; k += 15; }
    }
}

// Compact output: per block the DC difference, then (natural index, value) of each nonzero
// AC coefficient, then index 0 as the end.
static long run_compact(const scan *s, size_t startbyte, long maxblocks, uint8_t *out) {
    reader r = { s->data + startbyte, s->data + s->size, 0, 0 };
    uint8_t *o = out; int phase = 0; long n;
    for (n = 0; n < maxblocks; n++) {
        int comp = s->comp_of[phase];
        if (++phase == s->nblocks_mcu) phase = 0;
        fill(&r);
        int t = decode(&r, &s->dc[s->dctbl[comp]]);
        fill(&r);
        int16_t dc = t ? (int16_t)receive(&r, t) : 0;
        memcpy(o, &dc, 2); o += 2;
        const huff *ac = &s->ac[s->actbl[comp]];
        for (int k = 1; k < 64; k++) {
            fill(&r);
            int32_t fa = ac->acfast[peek(&r, FASTBITS)];
            if (fa) {
                skip(&r, fa & 0xFF); k += (fa >> 8) & 0xFF; if (k > 63) break;
                int16_t v = (int16_t)(fa >> 16); o[0] = (uint8_t)natural[k]; memcpy(o + 1, &v, 2); o += 3;
                continue;
            }
            int rs = decode(&r, ac);
            int run = rs >> 4, sz = rs & 15;
            if (sz) { k += run; if (k > 63) break; int16_t v = (int16_t)receive(&r, sz); o[0] = (uint8_t)natural[k]; memcpy(o + 1, &v, 2); o += 3; }
            else { if (run != 15) break; k += 15; }
        }
        *o++ = 0;
    }
    return o - out;
}

typedef struct {
    const scan *s; size_t startbyte; long maxblocks;
    int16_t (*coef)[64]; uint64_t *pos; long count;
} spec;

static void *run_spec(void *arg) {
    spec *b = arg; const scan *s = b->s;
    reader r = { s->data + b->startbyte, s->data + s->size, 0, 0 };
    long n = 0; int phase = 0;
    while (n < b->maxblocks) {
        uint64_t p = position(&r, s->data);
        if (p >= (uint64_t)s->size * 8) break;
        b->pos[n] = p;
        memset(b->coef[n], 0, 128);
        block(&r, s, s->comp_of[phase], b->coef[n]);
        n++; if (++phase == s->nblocks_mcu) phase = 0;
    }
    b->count = n;
    return NULL;
}

struct job { const scan *s; size_t start; long max; uint8_t *out; long bytes; };
static void *runjob(void *x) { struct job *j = x; j->bytes = run_compact(j->s, j->start, j->max, j->out); return NULL; }

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: ph FILE.jpg\n"); return 64; }
    FILE *f = fopen(argv[1], "rb"); fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(n); fread(b, 1, n, f); fclose(f);
    struct jpeg_decompress_struct c; struct jpeg_error_mgr e; c.err = jpeg_std_error(&e);
    jpeg_create_decompress(&c); jpeg_mem_src(&c, b, n); jpeg_read_header(&c, TRUE);
    size_t start = c.src->next_input_byte - b;
    scan s; memset(&s, 0, sizeof s);
    int maxh = 1, maxv = 1;
    for (int i = 0; i < c.num_components; i++) { if (c.comp_info[i].h_samp_factor > maxh) maxh = c.comp_info[i].h_samp_factor; if (c.comp_info[i].v_samp_factor > maxv) maxv = c.comp_info[i].v_samp_factor; }
    long mcux = (c.image_width + maxh * 8 - 1) / (maxh * 8), mcuy = (c.image_height + maxv * 8 - 1) / (maxv * 8);
    for (int i = 0; i < c.comps_in_scan; i++) {
        jpeg_component_info *ci = c.cur_comp_info[i];
        for (int k = 0; k < ci->h_samp_factor * ci->v_samp_factor; k++) s.comp_of[s.nblocks_mcu++] = i;
        s.dctbl[i] = ci->dc_tbl_no; s.actbl[i] = ci->ac_tbl_no;
        build(&s.dc[ci->dc_tbl_no], c.dc_huff_tbl_ptrs[ci->dc_tbl_no]);
        build(&s.ac[ci->ac_tbl_no], c.ac_huff_tbl_ptrs[ci->ac_tbl_no]);
    }
    s.total_blocks = mcux * mcuy * s.nblocks_mcu;
    printf("%dx%d comps %d blocks/MCU %d MCUs %ldx%ld restart %u progressive %d scan bytes %zu\n", c.image_width, c.image_height,
           c.comps_in_scan, s.nblocks_mcu, mcux, mcuy, c.restart_interval, c.progressive_mode, (size_t)n - start);
    // Destuff.
    double t0 = now();
    uint8_t *d = calloc(n + 16, 1); size_t dn = 0;
    for (size_t i = start; i < (size_t)n; i++) {
        if (b[i] == 0xFF) { if (i + 1 < (size_t)n && b[i + 1] == 0x00) { d[dn++] = 0xFF; i++; continue; } break; }
        d[dn++] = b[i];
    }
    double t1 = now();
    s.data = d; s.size = dn;
    int16_t (*coef)[64] = malloc(s.total_blocks * 128);
    uint64_t *pos = malloc(s.total_blocks * 8);
    // Sequential reference of our own decoder (all blocks).
    spec whole = { &s, 0, s.total_blocks, coef, pos, 0 };
    double t2 = now(); run_spec(&whole); double t3 = now();
    printf("destuff %.1f ms, sequential own decode %.1f ms, %ld blocks (expected %ld)\n", (t1-t0)*1e3, (t3-t2)*1e3, whole.count, s.total_blocks);
    // Speculative second half from the middle, with phase 0.
    int16_t (*coef2)[64] = malloc(s.total_blocks * 128); uint64_t *pos2 = malloc(s.total_blocks * 8);
    for (int trial = 0; trial < 5; trial++) {
        size_t mid = dn / 2 + trial * 12345;
        spec half = { &s, mid, s.total_blocks, coef2, pos2, 0 };
        run_spec(&half);
        // Find the first of half's blocks whose position and phase equal the true ones.
        long i = 0, j = 0, sync = -1;
        while (i < whole.count && pos[i] < pos2[0]) i++;
        while (i < whole.count && j < half.count) {
            if (pos[i] == pos2[j]) { if ((i % s.nblocks_mcu) == (j % s.nblocks_mcu)) { sync = j; break; } i++; j++; }
            else if (pos[i] < pos2[j]) i++; else j++;
        }
        if (sync < 0) { printf("trial %d: no sync\n", trial); continue; }
        // Same blocks from there?
        long bad = 0;
        for (long k = 0; i + k < whole.count && sync + k < half.count; k++) if (memcmp(coef[i + k] + 1, coef2[sync + k] + 1, 126)) bad++;
        printf("trial %d: synced after %ld blocks (%.0f bits), then %ld blocks differ\n", trial, sync, (double)(pos2[sync] - pos2[0]), bad);
    }
    // Check own sequential decode against libjpeg's coefficients.
    jvirt_barray_ptr *arrays = jpeg_read_coefficients(&c);
    long mism = 0, bi = 0; int dcpred[4] = {0};
    for (long my = 0; my < mcuy; my++) for (long mx = 0; mx < mcux; mx++) {
        int blk = 0;
        for (int ci = 0; ci < c.comps_in_scan; ci++) {
            jpeg_component_info *cp = c.cur_comp_info[ci];
            for (int v = 0; v < cp->v_samp_factor; v++) {
                JBLOCKARRAY rows = c.mem->access_virt_barray((j_common_ptr)&c, arrays[cp->component_index], my * cp->v_samp_factor + v, 1, FALSE);
                for (int h = 0; h < cp->h_samp_factor; h++, blk++) {
                    long bx = mx * cp->h_samp_factor + h;
                    int16_t *mine = coef[bi++];
                    dcpred[ci] += mine[0];
                    if (bx >= (long)cp->width_in_blocks) continue;
                    JCOEF *theirs = rows[0][bx];
                    if (theirs[0] != dcpred[ci] || memcmp(theirs + 1, mine + 1, 126)) mism++;
                }
            }
        }
    }
    printf("mismatching blocks vs libjpeg: %ld\n", mism);
    double t4 = now(); run_spec(&whole); double t5 = now(); printf("own decode again %.1f ms\n", (t5-t4)*1e3);
    uint8_t *compact = malloc(s.total_blocks * 200);
    for (int k = 0; k < 3; k++) { double a = now(); long bytes = run_compact(&s, 0, s.total_blocks, compact); double z = now();
      printf("compact decode %.1f ms, %.1f MB\n", (z-a)*1e3, bytes / 1e6); }
    { // compact == full
      const uint8_t *o = compact; long bad = 0;
      for (long bi = 0; bi < s.total_blocks; bi++) {
        int16_t blk[64] = {0}; memcpy(&blk[0], o, 2); o += 2;
        while (*o) { int16_t v; memcpy(&v, o + 1, 2); blk[*o] = v; o += 3; }
        o++;
        if (memcmp(blk, coef[bi], 128)) bad++;
      }
      printf("compact vs full: %ld blocks differ\n", bad);
    }
    // Two threads: the first half from the start, the second speculatively from the middle.
    for (int k = 0; k < 5; k++) {
      double a = now();
      uint8_t *out2 = compact + s.total_blocks * 100;
      struct job jb = { &s, dn / 2, s.total_blocks / 2 + 2000, out2, 0 };
      pthread_t th;
      pthread_create(&th, NULL, runjob, &jb);
      long bytes = run_compact(&s, 0, s.total_blocks / 2 + 100, compact);
      pthread_join(th, NULL);
      double z = now();
      printf("two halves in parallel %.1f ms (%.1f + %.1f MB)\n", (z-a)*1e3, bytes / 1e6, jb.bytes / 1e6);
    }
    return 0;
}
