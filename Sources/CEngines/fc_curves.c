// See include/fc_kernels.h: a tone curve's segments chosen by compares, eight values at a time.
#include "fc_kernels.h"

// Exactly the Swift reference's single-precision operations (CurveTable.applySelecting in
// ToneCurve.swift): no contraction into fused multiply-adds.
#pragma clang fp contract(off)
#pragma STDC FP_CONTRACT OFF

#define FC_CURVE_STRIDE 6

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>

__attribute__((target("avx2")))
static void fc_curve_select_avx2(const float *s, int segments, float x0, float x1, float *values, ptrdiff_t count) {
    const __m256 lo = _mm256_set1_ps(x0), hi = _mm256_set1_ps(x1);
    for (ptrdiff_t i = 0; i + 8 <= count; i += 8) {
        __m256 v = _mm256_loadu_ps(values + i);
        // Clamped to the domain; NaN (every ordered compare false) goes to x0.
        __m256 x = _mm256_blendv_ps(lo, v, _mm256_cmp_ps(v, lo, _CMP_GT_OQ));
        x = _mm256_blendv_ps(x, hi, _mm256_cmp_ps(x, hi, _CMP_GT_OQ));
        __m256 xk = _mm256_set1_ps(s[0]), inverse = _mm256_set1_ps(s[1]);
        __m256 c0 = _mm256_set1_ps(s[2]), c1 = _mm256_set1_ps(s[3]);
        __m256 c2 = _mm256_set1_ps(s[4]), c3 = _mm256_set1_ps(s[5]);
        for (int k = 1; k < segments; k++) {
            const float *c = s + FC_CURVE_STRIDE * k;
            __m256 in = _mm256_cmp_ps(x, _mm256_set1_ps(c[0]), _CMP_GE_OQ);
            xk = _mm256_blendv_ps(xk, _mm256_set1_ps(c[0]), in);
            inverse = _mm256_blendv_ps(inverse, _mm256_set1_ps(c[1]), in);
            c0 = _mm256_blendv_ps(c0, _mm256_set1_ps(c[2]), in);
            c1 = _mm256_blendv_ps(c1, _mm256_set1_ps(c[3]), in);
            c2 = _mm256_blendv_ps(c2, _mm256_set1_ps(c[4]), in);
            c3 = _mm256_blendv_ps(c3, _mm256_set1_ps(c[5]), in);
        }
        __m256 t = _mm256_mul_ps(_mm256_sub_ps(x, xk), inverse);
        __m256 y = _mm256_add_ps(_mm256_mul_ps(_mm256_add_ps(_mm256_mul_ps(_mm256_add_ps(_mm256_mul_ps(c3, t), c2), t), c1), t), c0);
        _mm256_storeu_ps(values + i, y);
    }
}
#define FC_HAVE_CURVE_AVX2 1
#endif

int fc_curve_select(const float *segments, int count_segments, float x0, float x1, float *values, ptrdiff_t count) {
#ifdef FC_HAVE_CURVE_AVX2
    if (count % 8 == 0 && fc_kernels_have_avx2()) {
        fc_curve_select_avx2(segments, count_segments, x0, x1, values, count);
        return 1;
    }
#endif
    (void)segments; (void)count_segments; (void)x0; (void)x1; (void)values; (void)count;
    return 0;
}
