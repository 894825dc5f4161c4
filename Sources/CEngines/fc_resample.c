// See include/fc_kernels.h.
#include "fc_kernels.h"

// The same rounding as Resample.swift's loops: no fused multiply-adds, whatever the default.
#pragma clang fp contract(off)
#pragma STDC FP_CONTRACT OFF

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>

typedef float v8 __attribute__((vector_size(32), aligned(4)));

__attribute__((target("avx"))) static inline v8 splat8(float w) { return (v8){w, w, w, w, w, w, w, w}; }

// Resample.swift's vertical sum, w0 r0 + w1 r1 + ... in that order for every column, 32
// columns at a time (four independent sums: the additions' latency, not the loads, bounded
// the 16-column loop), then 8 at a time.
__attribute__((target("avx")))
static void vertical_avx(const float *const *rows, const float *weights, ptrdiff_t n, float *out,
                         ptrdiff_t columns) {
    ptrdiff_t x = 0;
    for (; x + 32 <= columns; x += 32) {
        v8 w0 = splat8(weights[0]);
        const float *r0 = rows[0] + x;
        v8 a = w0 * *(const v8 *)r0, b = w0 * *(const v8 *)(r0 + 8);
        v8 c = w0 * *(const v8 *)(r0 + 16), d = w0 * *(const v8 *)(r0 + 24);
        for (ptrdiff_t k = 1; k < n; k++) {
            v8 wk = splat8(weights[k]);
            const float *r = rows[k] + x;
            a = a + wk * *(const v8 *)r;
            b = b + wk * *(const v8 *)(r + 8);
            c = c + wk * *(const v8 *)(r + 16);
            d = d + wk * *(const v8 *)(r + 24);
        }
        *(v8 *)(out + x) = a;
        *(v8 *)(out + x + 8) = b;
        *(v8 *)(out + x + 16) = c;
        *(v8 *)(out + x + 24) = d;
    }
    for (; x < columns; x += 8) {
        v8 a = splat8(weights[0]) * *(const v8 *)(rows[0] + x);
        for (ptrdiff_t k = 1; k < n; k++) a = a + splat8(weights[k]) * *(const v8 *)(rows[k] + x);
        *(v8 *)(out + x) = a;
    }
}

// The 8 x 8 transpose: row i of the result holds lane i of each of `s`.
__attribute__((target("avx")))
static inline void transpose8(__m256 s[8]) {
    __m256 t0 = _mm256_unpacklo_ps(s[0], s[1]), t1 = _mm256_unpackhi_ps(s[0], s[1]);
    __m256 t2 = _mm256_unpacklo_ps(s[2], s[3]), t3 = _mm256_unpackhi_ps(s[2], s[3]);
    __m256 t4 = _mm256_unpacklo_ps(s[4], s[5]), t5 = _mm256_unpackhi_ps(s[4], s[5]);
    __m256 t6 = _mm256_unpacklo_ps(s[6], s[7]), t7 = _mm256_unpackhi_ps(s[6], s[7]);
    __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    s[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
    s[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
    s[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
    s[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
    s[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
    s[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
    s[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
    s[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}

// One output's eight partial sums, as Resample.swift's horizontal loop makes them.
__attribute__((target("avx")))
static inline __m256 partial8(const float *src, const float *w, int32_t count) {
    __m256 sum = _mm256_mul_ps(_mm256_loadu_ps(src), _mm256_loadu_ps(w));
    for (int32_t k = 8; k < count; k += 8)
        sum = _mm256_add_ps(sum, _mm256_mul_ps(_mm256_loadu_ps(src + k), _mm256_loadu_ps(w + k)));
    return sum;
}

// Resample.swift's horizontal pass. Each output's eight lanes are added in lane order, as
// SIMD8's sum() does (from -0, which changes nothing), for eight outputs at once: their
// partial sums transposed, the rows added in order.
__attribute__((target("avx")))
static void horizontal_avx(const float *line, const int32_t *first, const int32_t *count, const float *weights,
                           ptrdiff_t taps, ptrdiff_t outputs, float *out) {
    ptrdiff_t o = 0;
    for (; o + 8 <= outputs; o += 8) {
        __m256 s[8];
        for (int i = 0; i < 8; i++) s[i] = partial8(line + first[o + i], weights + (o + i) * taps, count[o + i]);
        transpose8(s);
        __m256 r = s[0];
        for (int i = 1; i < 8; i++) r = _mm256_add_ps(r, s[i]);
        _mm256_storeu_ps(out + o, r);
    }
    for (; o < outputs; o++) {
        float lanes[8];
        _mm256_storeu_ps(lanes, partial8(line + first[o], weights + o * taps, count[o]));
        float r = lanes[0];
        for (int i = 1; i < 8; i++) r = r + lanes[i];
        out[o] = r;
    }
}
#define FC_HAVE_RESAMPLE_AVX 1
#endif

int fc_resample_vertical(const float *const *rows, const float *weights, ptrdiff_t count, float *out,
                         ptrdiff_t columns) {
#ifdef FC_HAVE_RESAMPLE_AVX
    if (count > 0 && fc_kernels_have_avx()) {
        vertical_avx(rows, weights, count, out, columns);
        return 1;
    }
#endif
    return 0;
}

int fc_resample_horizontal(const float *line, const int32_t *first, const int32_t *count, const float *weights,
                           ptrdiff_t taps, ptrdiff_t outputs, float *out) {
#ifdef FC_HAVE_RESAMPLE_AVX
    if (fc_kernels_have_avx()) {
        horizontal_avx(line, first, count, weights, taps, outputs, out);
        return 1;
    }
#endif
    return 0;
}
