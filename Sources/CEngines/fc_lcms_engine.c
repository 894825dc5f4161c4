// The lcms2 plug-ins and the direct CMYK evaluation: see fc_lcms_engine.h.
#include "fc_lcms_engine.h"
#include "fc_kernels.h"

#include <lcms2.h>
#include <lcms2_plugin.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// MARK: - Four inputs, three outputs

// lcms2 turns a CMYK-to-RGB transform into one 16-bit table (17 nodes a side by default) and
// spends most of its time (about 590 instructions a pixel) in its generic 4-input interpolator, which
// loops over any number of outputs and picks the tetrahedron again for each. This one does
// the same arithmetic for exactly three outputs, choosing the tetrahedron once: lcms2 asks
// for it through an interpolation plug-in registered on the transform's own context, and
// calls it where it would call its own. The arithmetic, to the bit:
//   position p = v * (nodes - 1) in 16.16 fixed point: a + (a + 0x7fff) / 0xffff;
//   node = p >> 16, rest r = p & 0xffff (an input of 0xffff takes the last node twice);
//   in each of the two 3-D slices around the first input's node, Sakamoto's tetrahedral
//   interpolation: the path from the cell's first corner to its last along the axes in
//   decreasing order of rest (ties: x before y before z as lcms2 orders its six cases),
//   sum = sum over the path of (corner_i - corner_(i-1)) * r_axis (32-bit, wrapping),
//   value = corner_0 + ((sum + (sum + 0x7fff) / 0xffff + 0x8000) >> 16), kept to 16 bits;
//   between the slices: ((uint32)(high - low) * r_first + 0x8000) >> 16) + low, 16 bits.
// The tests compare it with lcms2's own interpolation of the same transform on millions of
// samples (LCMSInterpolationTests).

// In 32-bit two's complement arithmetic that wraps (as lcms2's int arithmetic does when
// compiled; here without C's undefined overflow).
static inline int32_t fc_fixed_domain(int32_t a) {
    int32_t shifted = (int32_t)((uint32_t)a + 0x7fffu);
    return (int32_t)((uint32_t)a + (uint32_t)(shifted / 0xffff));
}

static inline uint16_t fc_tetra_round(int32_t c0, int32_t sum) {
    int32_t rest = (int32_t)((uint32_t)fc_fixed_domain(sum) + 0x8000u) >> 16;
    return (uint16_t)((uint32_t)c0 + (uint32_t)rest);
}

// The tetrahedron's path: offsets of its second and third corners (the fourth is
// dx + dy + dz), and the rests of the axes in the order it steps along them (lcms2's six
// cases, in its order).
static inline __attribute__((always_inline))
void fc_tetra_path(int32_t dx, int32_t dy, int32_t dz, int32_t rx, int32_t ry, int32_t rz,
                   int32_t *v1, int32_t *v2, int32_t *ra, int32_t *rb, int32_t *rc) {
    if (rx >= ry && ry >= rz)      { *v1 = dx; *v2 = dx + dy; *ra = rx; *rb = ry; *rc = rz; }
    else if (rx >= rz && rz >= ry) { *v1 = dx; *v2 = dx + dz; *ra = rx; *rb = rz; *rc = ry; }
    else if (rz >= rx && rx >= ry) { *v1 = dz; *v2 = dz + dx; *ra = rz; *rb = rx; *rc = ry; }
    else if (ry >= rx && rx >= rz) { *v1 = dy; *v2 = dy + dx; *ra = ry; *rb = rx; *rc = rz; }
    else if (ry >= rz && rz >= rx) { *v1 = dy; *v2 = dy + dz; *ra = ry; *rb = rz; *rc = rx; }
    else                           { *v1 = dz; *v2 = dz + dy; *ra = rz; *rb = ry; *rc = rx; }
}

// The interpolation proper, once the cell is known: `low` and `high` point at the cell's
// first corner in the two slices of the first input; dx, dy, dz step to the next node along
// each axis (0 at the last node); rx, ry, rz, rk are the rests.
static inline __attribute__((always_inline))
void fc_tetra4_3(const uint16_t *low, const uint16_t *high, int32_t dx, int32_t dy, int32_t dz,
                 int32_t rx, int32_t ry, int32_t rz, int32_t rk, uint16_t out[3]) {
    int32_t v1, v2, ra, rb, rc;
    fc_tetra_path(dx, dy, dz, rx, ry, rz, &v1, &v2, &ra, &rb, &rc);
    int32_t v3 = dx + dy + dz;
    for (int c = 0; c < 3; c++) {
        int32_t a0 = low[c], a1 = low[v1 + c], a2 = low[v2 + c], a3 = low[v3 + c];
        int32_t sa = (int32_t)((uint32_t)(a1 - a0) * (uint32_t)ra + (uint32_t)(a2 - a1) * (uint32_t)rb
                               + (uint32_t)(a3 - a2) * (uint32_t)rc);
        uint16_t t1 = fc_tetra_round(a0, sa);
        int32_t b0 = high[c], b1 = high[v1 + c], b2 = high[v2 + c], b3 = high[v3 + c];
        int32_t sb = (int32_t)((uint32_t)(b1 - b0) * (uint32_t)ra + (uint32_t)(b2 - b1) * (uint32_t)rb
                               + (uint32_t)(b3 - b2) * (uint32_t)rc);
        uint16_t t2 = fc_tetra_round(b0, sb);
        uint32_t dif = (uint32_t)((int32_t)t2 - (int32_t)t1) * (uint32_t)rk + 0x8000u;
        out[c] = (uint16_t)((dif >> 16) + t1);
    }
}

// Set to 1 by a probe on its thread; the interpolator makes it 2 when it is called and
// keeps the table it was called for (3: called for more than one table).
static __thread int fc_own_probe;
static __thread const cmsInterpParams *fc_probed_params;

static void fc_eval4_3(const cmsUInt16Number in[], cmsUInt16Number out[], const cmsInterpParams *p) {
    if (__builtin_expect(fc_own_probe != 0, 0)) {
        if (fc_own_probe == 1) { fc_own_probe = 2; fc_probed_params = p; }
        else if (fc_probed_params != p) fc_own_probe = 3;
    }
    const uint16_t *table = p->Table;
    int32_t fk = fc_fixed_domain((int32_t)in[0] * (int32_t)p->Domain[0]);
    int32_t fx = fc_fixed_domain((int32_t)in[1] * (int32_t)p->Domain[1]);
    int32_t fy = fc_fixed_domain((int32_t)in[2] * (int32_t)p->Domain[2]);
    int32_t fz = fc_fixed_domain((int32_t)in[3] * (int32_t)p->Domain[3]);
    int32_t K0 = (int32_t)p->opta[3] * (fk >> 16);
    int32_t K1 = K0 + (in[0] == 0xffff ? 0 : (int32_t)p->opta[3]);
    int32_t base = (int32_t)p->opta[2] * (fx >> 16) + (int32_t)p->opta[1] * (fy >> 16) + (int32_t)p->opta[0] * (fz >> 16);
    fc_tetra4_3(table + K0 + base, table + K1 + base,
                in[1] == 0xffff ? 0 : (int32_t)p->opta[2], in[2] == 0xffff ? 0 : (int32_t)p->opta[1],
                in[3] == 0xffff ? 0 : (int32_t)p->opta[0],
                fx & 0xffff, fy & 0xffff, fz & 0xffff, fk & 0xffff, out);
}

// 8-bit CMYK straight from the table, without lcms2's per-pixel machinery: what lcms2 does
// with an 8-bit sample v is the above with the input v * 257, so each channel's node
// offset, step and rest are tabled for the 256 values once. Made only when lcms2's
// transform is that one table (one interpolation a pixel, always the same table) and gives
// the same results on a check set (see fc_direct_make).
struct fc_direct {
    const uint16_t *table;     // lcms2's, alive as long as its transform
    int32_t offset[4][256];    // the node's offset in the table along each input's axis
    int32_t step[4][256];      // to the next node (0 at the last one)
    int32_t rest[4][256];
    uint16_t *padded;          // a copy of the table with 4 samples after it (AVX2 reads 4 at once)
    int avx2;                  // evaluate with fc_direct_eval_avx2
};

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>
#define FC_LCMS_AVX2 1

// One corner in both slices: lanes 0-2 the low slice's three samples, 4-6 the high one's
// (lanes 3 and 7 the next samples, unused), as 32-bit integers.
__attribute__((target("avx2"))) static inline __m256i fc_corner(const uint16_t *low, const uint16_t *high) {
    __m128i l = _mm_loadl_epi64((const __m128i *)(const void *)low);
    __m128i h = _mm_loadl_epi64((const __m128i *)(const void *)high);
    return _mm256_cvtepu16_epi32(_mm_unpacklo_epi64(l, h));
}

// trunc(x / 65535) for every 32-bit x, as C's division: for |x| (as unsigned),
// (|x| + (|x| >> 16) + 1) >> 16 is floor(|x| / 65535) (checked for all 2^32 values), then the
// sign of x.
__attribute__((target("avx2"))) static inline __m256i fc_div65535(__m256i x) {
    __m256i a = _mm256_abs_epi32(x);
    __m256i q = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(a, _mm256_srli_epi32(a, 16)), _mm256_set1_epi32(1)), 16);
    return _mm256_sign_epi32(q, x);
}

// fc_tetra4_3's arithmetic on the six values at once (lanes 0-2 the low slice, 4-6 the high
// one): the sums in 32-bit lanes wrapping as the scalar code's unsigned products, the
// fixed-domain step with the exact division above, the slices joined in 32-bit unsigned
// arithmetic; `count` pixels of four 8-bit inks.
__attribute__((target("avx2")))
static void fc_direct_eval_avx2(const fc_direct *d, const uint8_t *s, uint16_t *out, size_t count) {
    const __m256i rounding = _mm256_set1_epi32(0x7fff), half = _mm256_set1_epi32(0x8000);
    const __m256i mask16 = _mm256_set1_epi32(0xffff);
    for (size_t i = 0; i < count; i++, s += 4, out += 3) {
        const uint8_t k = s[0], x = s[1], y = s[2], z = s[3];
        int32_t base = d->offset[1][x] + d->offset[2][y] + d->offset[3][z];
        const uint16_t *low = d->padded + d->offset[0][k] + base, *high = low + d->step[0][k];
        int32_t dx = d->step[1][x], dy = d->step[2][y], dz = d->step[3][z];
        int32_t v1, v2, ra, rb, rc;
        fc_tetra_path(dx, dy, dz, d->rest[1][x], d->rest[2][y], d->rest[3][z], &v1, &v2, &ra, &rb, &rc);
        int32_t v3 = dx + dy + dz;
        __m256i a0 = fc_corner(low, high), a1 = fc_corner(low + v1, high + v1);
        __m256i a2 = fc_corner(low + v2, high + v2), a3 = fc_corner(low + v3, high + v3);
        __m256i sum = _mm256_add_epi32(
            _mm256_add_epi32(_mm256_mullo_epi32(_mm256_sub_epi32(a1, a0), _mm256_set1_epi32(ra)),
                             _mm256_mullo_epi32(_mm256_sub_epi32(a2, a1), _mm256_set1_epi32(rb))),
            _mm256_mullo_epi32(_mm256_sub_epi32(a3, a2), _mm256_set1_epi32(rc)));
        __m256i fixed = _mm256_add_epi32(sum, fc_div65535(_mm256_add_epi32(sum, rounding)));
        __m256i rest = _mm256_srai_epi32(_mm256_add_epi32(fixed, half), 16);
        __m256i t = _mm256_and_si256(_mm256_add_epi32(a0, rest), mask16);
        __m128i t1 = _mm256_castsi256_si128(t), t2 = _mm256_extracti128_si256(t, 1);
        __m128i dif = _mm_add_epi32(_mm_mullo_epi32(_mm_sub_epi32(t2, t1), _mm_set1_epi32(d->rest[0][k])),
                                    _mm256_castsi256_si128(half));
        __m128i v = _mm_and_si128(_mm_add_epi32(_mm_srli_epi32(dif, 16), t1), _mm256_castsi256_si128(mask16));
        __m128i packed = _mm_packus_epi32(v, v);
        // Three samples: the first two as one 32-bit store, the third alone.
        uint32_t two = (uint32_t)_mm_cvtsi128_si32(packed);
        memcpy(out, &two, 4);
        out[2] = (uint16_t)_mm_extract_epi16(packed, 2);
    }
}

static int fc_direct_avx2_allowed = 1;

// The processor's AVX2, as fc_kernels checks it once.
static int fc_lcms_have_avx2(void) { return fc_kernels_have_avx2(); }
#endif

static inline void fc_direct_eval_scalar(const fc_direct *d, const uint8_t *s, uint16_t *out) {
    const uint8_t k = s[0], x = s[1], y = s[2], z = s[3];
    int32_t base = d->offset[1][x] + d->offset[2][y] + d->offset[3][z];
    const uint16_t *low = d->table + d->offset[0][k] + base;
    fc_tetra4_3(low, low + d->step[0][k], d->step[1][x], d->step[2][y], d->step[3][z],
                d->rest[1][x], d->rest[2][y], d->rest[3][z], d->rest[0][k], out);
}

void fc_direct_eval(const fc_direct *d, const uint8_t *s, uint16_t *out, size_t count) {
#ifdef FC_LCMS_AVX2
    if (d->avx2) { fc_direct_eval_avx2(d, s, out, count); return; }
#endif
    for (size_t i = 0; i < count; i++) fc_direct_eval_scalar(d, s + 4 * i, out + 3 * i);
}

// The samples a direct evaluation is checked on: every combination of eleven edge values,
// then pseudo-random ones.
enum { FC_CHECK_EDGES = 11, FC_CHECK_RANDOM = 4096,
       FC_CHECK_COUNT = FC_CHECK_EDGES * FC_CHECK_EDGES * FC_CHECK_EDGES * FC_CHECK_EDGES + FC_CHECK_RANDOM };

static void fc_check_samples(uint8_t *s) {
    static const uint8_t edges[FC_CHECK_EDGES] = { 0, 1, 2, 11, 12, 127, 128, 200, 244, 254, 255 };
    size_t n = 0;
    for (int a = 0; a < FC_CHECK_EDGES; a++)
        for (int b = 0; b < FC_CHECK_EDGES; b++)
            for (int c = 0; c < FC_CHECK_EDGES; c++)
                for (int d = 0; d < FC_CHECK_EDGES; d++) {
                    s[n++] = edges[a]; s[n++] = edges[b]; s[n++] = edges[c]; s[n++] = edges[d];
                }
    uint32_t x = 2463534242u;
    for (int i = 0; i < FC_CHECK_RANDOM * 4; i++) {
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        s[n++] = (uint8_t)(x >> 24);
    }
}

fc_direct *fc_direct_make(void *transform) {
    uint8_t *samples = malloc((size_t)FC_CHECK_COUNT * 4);
    uint16_t *expected = malloc((size_t)FC_CHECK_COUNT * 3 * sizeof *expected);
    fc_direct *d = calloc(1, sizeof *d);
    if (samples == NULL || expected == NULL || d == NULL) goto fail;
    fc_check_samples(samples);
    fc_own_probe = 1;
    fc_probed_params = NULL;
    cmsDoTransform(transform, samples, expected, FC_CHECK_COUNT);
    int single = fc_own_probe == 2;
    const cmsInterpParams *p = fc_probed_params;
    fc_own_probe = 0;
    fc_probed_params = NULL;
    if (!single || p == NULL || p->nInputs != 4 || p->nOutputs != 3) goto fail;
    d->table = p->Table;
#ifdef FC_LCMS_AVX2
    if (fc_lcms_have_avx2() && __atomic_load_n(&fc_direct_avx2_allowed, __ATOMIC_RELAXED)) {
        size_t count = (size_t)p->opta[3] * p->nSamples[0];
        d->padded = malloc((count + 4) * sizeof *d->padded);
        if (d->padded != NULL) {
            memcpy(d->padded, p->Table, count * sizeof *d->padded);
            memset(d->padded + count, 0, 4 * sizeof *d->padded);
            d->avx2 = 1;
        }
    }
#endif
    for (int ch = 0; ch < 4; ch++) {
        int32_t opta = (int32_t)p->opta[3 - ch], domain = (int32_t)p->Domain[ch];
        for (int v = 0; v < 256; v++) {
            int32_t in = v * 257, f = fc_fixed_domain(in * domain);
            d->offset[ch][v] = opta * (f >> 16);
            d->rest[ch][v] = f & 0xffff;
            d->step[ch][v] = in == 0xffff ? 0 : opta;
        }
    }
    {
        uint16_t *got = malloc((size_t)FC_CHECK_COUNT * 3 * sizeof *got);
        if (got == NULL) goto fail;
        fc_direct_eval(d, samples, got, FC_CHECK_COUNT);
        int same = memcmp(got, expected, (size_t)FC_CHECK_COUNT * 3 * sizeof *got) == 0;
        free(got);
        if (!same) goto fail;
    }
    free(samples);
    free(expected);
    return d;
fail:
    free(samples);
    free(expected);
    if (d != NULL) free(d->padded);
    free(d);
    return NULL;
}

static cmsInterpFunction fc_interpolators(cmsUInt32Number inputs, cmsUInt32Number outputs, cmsUInt32Number flags) {
    cmsInterpFunction f = { NULL };
    if (inputs == 4 && outputs == 3 && !(flags & CMS_LERP_FLAGS_FLOAT)) f.Lerp16 = fc_eval4_3;
    return f;
}

// MARK: - The table made on every core

// lcms2 makes a CMYK-to-RGB transform's table by evaluating the whole chain of the profiles
// at each of its nodes (17^4 by default), on one thread: some 35 ms before the first pixel.
// This optimisation plug-in, tried by lcms2 after its own pre-optimisation and before its
// built-in optimisations, makes the same table the same way (lcms2's OptimizeByResampling
// without pre- or post-linearisation curves, which are only made when flags ask for them):
// the grid lcms2 chooses (_cmsReasonableGridpointsByColorspace), each node's inputs as
// lcms2 quantises them (_cmsQuantizeVal, both exported by liblcms2, not in its headers),
// cmsPipelineEval16 of the pre-optimised chain at each node, on up to four threads (lcms2
// evaluates a pipeline on many threads at once for cmsDoTransform), then lcms2's white
// fix-up (a CMYK white that is not RGB white at the first node becomes white, unless the
// two differ by over 0xf000, or the intent is absolute colorimetric). The tests compare the
// result with lcms2's own on every intent (LCMSInterpolationTests).
extern cmsUInt16Number _cmsQuantizeVal(cmsFloat64Number i, cmsUInt32Number MaxSamples);
extern cmsUInt32Number _cmsReasonableGridpointsByColorspace(cmsColorSpaceSignature Colorspace, cmsUInt32Number dwFlags);

typedef struct {
    const cmsPipeline *source;
    uint16_t *table;
    uint32_t grid, first, end;   // nodes [first, end)
    uint16_t quantised[256];     // node i's input value (grid <= 256)
} fc_sampling;

static void *fc_sample_nodes(void *arg) {
    fc_sampling *job = arg;
    for (uint32_t i = job->first; i < job->end; i++) {
        uint32_t rest = i;
        cmsUInt16Number in[4];
        for (int t = 3; t >= 0; t--) {
            in[t] = job->quantised[rest % job->grid];
            rest /= job->grid;
        }
        cmsPipelineEval16(in, job->table + (size_t)i * 3, job->source);
    }
    return NULL;
}

// Set by fc_optimize_cmyk on the thread making a transform, read back right after.
static __thread int fc_made_own_table;

static cmsBool fc_optimize_cmyk(cmsPipeline **lut, cmsUInt32Number intent, cmsUInt32Number *in_format,
                                cmsUInt32Number *out_format, cmsUInt32Number *flags) {
    if (T_FLOAT(*in_format) || T_FLOAT(*out_format)) return FALSE;
    if (T_COLORSPACE(*in_format) != PT_CMYK || T_COLORSPACE(*out_format) != PT_RGB) return FALSE;
    if (*flags & (cmsFLAGS_CLUT_PRE_LINEARIZATION | cmsFLAGS_CLUT_POST_LINEARIZATION)) return FALSE;
    cmsPipeline *source = *lut;
    if (cmsPipelineInputChannels(source) != 4 || cmsPipelineOutputChannels(source) != 3) return FALSE;
    if (cmsPipelineStageCount(source) == 0) return FALSE;
    for (cmsStage *s = cmsPipelineGetPtrToFirstStage(source); s != NULL; s = cmsStageNext(s))
        if (cmsStageType(s) == cmsSigNamedColorElemType) return FALSE;
    uint32_t grid = _cmsReasonableGridpointsByColorspace(cmsSigCmykData, *flags);
    if (grid < 2 || grid > 256) return FALSE;
    cmsContext context = cmsGetPipelineContextID(source);
    cmsPipeline *dest = cmsPipelineAlloc(context, 4, 3);
    if (dest == NULL) return FALSE;
    cmsStage *clut = cmsStageAllocCLut16bit(context, grid, 4, 3, NULL);
    if (clut == NULL || !cmsPipelineInsertStage(dest, cmsAT_END, clut)) {
        if (clut != NULL) cmsStageFree(clut);
        cmsPipelineFree(dest);
        return FALSE;
    }
    _cmsStageCLutData *data = cmsStageData(clut);
    uint32_t nodes = grid * grid * grid * grid;
    enum { MAX_JOBS = 4 };
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int jobs = cores < 1 ? 1 : cores > MAX_JOBS ? MAX_JOBS : (int)cores;
    fc_sampling work[MAX_JOBS];
    pthread_t threads[MAX_JOBS];
    int started[MAX_JOBS] = { 0 };
    for (int j = 0; j < jobs; j++) {
        work[j].source = source;
        work[j].table = data->Tab.T;
        work[j].grid = grid;
        work[j].first = (uint32_t)((uint64_t)nodes * (uint64_t)j / (uint64_t)jobs);
        work[j].end = (uint32_t)((uint64_t)nodes * (uint64_t)(j + 1) / (uint64_t)jobs);
        for (uint32_t i = 0; i < grid; i++) work[j].quantised[i] = _cmsQuantizeVal((cmsFloat64Number)i, grid);
    }
    // The other parts on threads of their own (where one cannot start, this thread does it).
    for (int j = 1; j < jobs; j++) started[j] = pthread_create(&threads[j], NULL, fc_sample_nodes, &work[j]) == 0;
    fc_sample_nodes(&work[0]);
    for (int j = 1; j < jobs; j++) {
        if (started[j]) pthread_join(threads[j], NULL);
        else fc_sample_nodes(&work[j]);
    }
    cmsPipelineFree(source);
    _cmsPipelineSetOptimizationParameters(dest, (_cmsPipelineEval16Fn)data->Params->Interpolation.Lerp16, data->Params,
                                          NULL, NULL);
    if (intent == INTENT_ABSOLUTE_COLORIMETRIC) *flags |= cmsFLAGS_NOWHITEONWHITEFIXUP;
    if (!(*flags & cmsFLAGS_NOWHITEONWHITEFIXUP)) {
        // CMYK white (no ink) is the first node; RGB white is 0xffff three times.
        uint16_t *white = data->Tab.T;
        int equal = 1;
        for (int c = 0; c < 3; c++) {
            if (abs(0xffff - (int)white[c]) > 0xf000) { equal = 1; break; }
            if (white[c] != 0xffff) { equal = 0; break; }
        }
        if (!equal) for (int c = 0; c < 3; c++) white[c] = 0xffff;
    }
    *lut = dest;
    fc_made_own_table = 1;
    return TRUE;
}

static cmsPluginOptimization fc_optimization_plugin = {
    { cmsPluginMagicNumber, 2060, cmsPluginOptimizationSig, NULL },
    fc_optimize_cmyk,
};

static cmsPluginInterpolation fc_interpolation_plugin = {
    { cmsPluginMagicNumber, 2060, cmsPluginInterpolationSig, (cmsPluginBase *)&fc_optimization_plugin },
    fc_interpolators,
};

// MARK: - What fc_lcms.c asks

void *fc_lcms_engine_plugins(void) { return &fc_interpolation_plugin; }

void fc_lcms_engine_begin_transform(void) { fc_made_own_table = 0; }

int fc_lcms_engine_made_table(void) {
    int made = fc_made_own_table;
    fc_made_own_table = 0;
    return made;
}

int fc_lcms_engine_interpolates(void *transform) {
    uint8_t in[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    uint16_t out[4];
    fc_own_probe = 1;
    cmsDoTransform(transform, in, out, 1);
    int called = fc_own_probe >= 2;
    fc_own_probe = 0;
    fc_probed_params = NULL;
    return called;
}

int fc_direct_uses_avx2(const fc_direct *d) { return d->avx2; }

void fc_direct_free(fc_direct *d) {
    if (d != NULL) free(d->padded);
    free(d);
}

void fc_lcms_allow_avx2(int allowed) {
#ifdef FC_LCMS_AVX2
    __atomic_store_n(&fc_direct_avx2_allowed, allowed ? 1 : 0, __ATOMIC_RELAXED);
#else
    (void)allowed;
#endif
}

int fc_lcms_has_avx2(void) {
#ifdef FC_LCMS_AVX2
    return fc_lcms_have_avx2();
#else
    return 0;
#endif
}
