// See include/fc_kernels.h: the direct Gaussian blur's passes, eight columns at a time.
#include "fc_kernels.h"

// Exactly the Swift reference's single-precision operations (DirectHorizontal and
// DirectVertical in GaussianBlur.swift): sum = w0 x0, then sum + w_i (left + right) for each
// tap in order, no contraction into fused multiply-adds.
#pragma clang fp contract(off)
#pragma STDC FP_CONTRACT OFF

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>

__attribute__((target("avx2")))
static void fc_blur_horizontal_avx2(const float *w, int k, const float *center, float *out, ptrdiff_t count) {
    const __m256 w0 = _mm256_set1_ps(w[0]);
    for (ptrdiff_t x = 0; x < count; x += 8) {
        __m256 sum = _mm256_mul_ps(w0, _mm256_loadu_ps(center + x));
        for (int i = 1; i <= k; i++) {
            __m256 pair = _mm256_add_ps(_mm256_loadu_ps(center + x - i), _mm256_loadu_ps(center + x + i));
            sum = _mm256_add_ps(sum, _mm256_mul_ps(_mm256_set1_ps(w[i]), pair));
        }
        _mm256_storeu_ps(out + x, sum);
    }
}

__attribute__((target("avx2")))
static void fc_blur_vertical_avx2(const float *w, int k, const float *center, const float *const *rows,
                                  float *destination, ptrdiff_t from, ptrdiff_t to) {
    const __m256 w0 = _mm256_set1_ps(w[0]);
    ptrdiff_t x = from;
    // 32 columns at a time held in registers across all taps.
    for (; x + 32 <= to; x += 32) {
        __m256 s0 = _mm256_mul_ps(w0, _mm256_loadu_ps(center + x));
        __m256 s1 = _mm256_mul_ps(w0, _mm256_loadu_ps(center + x + 8));
        __m256 s2 = _mm256_mul_ps(w0, _mm256_loadu_ps(center + x + 16));
        __m256 s3 = _mm256_mul_ps(w0, _mm256_loadu_ps(center + x + 24));
        for (int i = 0; i < k; i++) {
            const float *up = rows[2 * i], *down = rows[2 * i + 1];
            __m256 wi = _mm256_set1_ps(w[i + 1]);
            s0 = _mm256_add_ps(s0, _mm256_mul_ps(wi, _mm256_add_ps(_mm256_loadu_ps(up + x), _mm256_loadu_ps(down + x))));
            s1 = _mm256_add_ps(s1, _mm256_mul_ps(wi, _mm256_add_ps(_mm256_loadu_ps(up + x + 8), _mm256_loadu_ps(down + x + 8))));
            s2 = _mm256_add_ps(s2, _mm256_mul_ps(wi, _mm256_add_ps(_mm256_loadu_ps(up + x + 16), _mm256_loadu_ps(down + x + 16))));
            s3 = _mm256_add_ps(s3, _mm256_mul_ps(wi, _mm256_add_ps(_mm256_loadu_ps(up + x + 24), _mm256_loadu_ps(down + x + 24))));
        }
        _mm256_storeu_ps(destination + x, s0);
        _mm256_storeu_ps(destination + x + 8, s1);
        _mm256_storeu_ps(destination + x + 16, s2);
        _mm256_storeu_ps(destination + x + 24, s3);
    }
    for (; x < to; x += 8) {
        __m256 s0 = _mm256_mul_ps(w0, _mm256_loadu_ps(center + x));
        for (int i = 0; i < k; i++) {
            __m256 pair = _mm256_add_ps(_mm256_loadu_ps(rows[2 * i] + x), _mm256_loadu_ps(rows[2 * i + 1] + x));
            s0 = _mm256_add_ps(s0, _mm256_mul_ps(_mm256_set1_ps(w[i + 1]), pair));
        }
        _mm256_storeu_ps(destination + x, s0);
    }
}
#define FC_HAVE_BLUR_AVX2 1
#endif

int fc_blur_horizontal(const float *weights, int k, const float *center, float *out, ptrdiff_t count) {
#ifdef FC_HAVE_BLUR_AVX2
    if (count % 8 == 0 && fc_kernels_have_avx2()) {
        fc_blur_horizontal_avx2(weights, k, center, out, count);
        return 1;
    }
#endif
    (void)weights; (void)k; (void)center; (void)out; (void)count;
    return 0;
}

int fc_blur_vertical(const float *weights, int k, const float *center, const float *const *rows, float *destination,
                     ptrdiff_t from, ptrdiff_t to) {
#ifdef FC_HAVE_BLUR_AVX2
    if ((to - from) % 8 == 0 && fc_kernels_have_avx2()) {
        fc_blur_vertical_avx2(weights, k, center, rows, destination, from, to);
        return 1;
    }
#endif
    (void)weights; (void)k; (void)center; (void)rows; (void)destination; (void)from; (void)to;
    return 0;
}
