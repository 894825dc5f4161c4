// See include/fc_kernels.h.
#include "fc_kernels.h"

// The same rounding as the Swift kernel: no fused multiply-adds, whatever the default.
#pragma clang fp contract(off)
#pragma STDC FP_CONTRACT OFF

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <float.h>
#include <immintrin.h>
#include <math.h>

// power(x, p) of PowerFunction.swift, the same operations in the same order; `uncovered`
// collects the lanes it leaves to powf (the vector then goes to the Swift kernel).
__attribute__((target("avx2")))
static inline __m256 fc_power8(__m256 x, float p, __m256 *uncovered) {
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
    const __m256 magic = _mm256_set1_ps(12582912.0f);
    __m256 is_zero = _mm256_cmp_ps(x, zero, _CMP_EQ_OQ);
    __m256 ordinary = _mm256_and_ps(_mm256_cmp_ps(x, _mm256_set1_ps(FLT_MIN), _CMP_GE_OQ),
                                    _mm256_cmp_ps(x, _mm256_set1_ps(FLT_MAX), _CMP_LE_OQ));
    __m256 v = _mm256_blendv_ps(one, x, ordinary);
    __m256i bits = _mm256_castps_si256(v);
    __m256i e = _mm256_sub_epi32(_mm256_srai_epi32(bits, 23), _mm256_set1_epi32(127));
    __m256 m = _mm256_castsi256_ps(_mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi32(0x007FFFFF)),
                                                   _mm256_set1_epi32(0x3F800000)));
    __m256 high = _mm256_cmp_ps(m, _mm256_set1_ps(1.4142135f), _CMP_GT_OQ);
    m = _mm256_blendv_ps(m, _mm256_mul_ps(m, _mm256_set1_ps(0.5f)), high);
    e = _mm256_add_epi32(e, _mm256_and_si256(_mm256_castps_si256(high), _mm256_set1_epi32(1)));
    __m256 t = _mm256_div_ps(_mm256_sub_ps(m, one), _mm256_add_ps(m, one));
    __m256 t2 = _mm256_mul_ps(t, t);
    __m256 series = _mm256_add_ps(_mm256_mul_ps(t2, _mm256_set1_ps(1.0f / 9.0f)), _mm256_set1_ps(1.0f / 7.0f));
    series = _mm256_add_ps(_mm256_mul_ps(series, t2), _mm256_set1_ps(1.0f / 5.0f));
    series = _mm256_add_ps(_mm256_mul_ps(series, t2), _mm256_set1_ps(1.0f / 3.0f));
    series = _mm256_add_ps(_mm256_mul_ps(series, t2), one);
    __m256 e_float = _mm256_sub_ps(_mm256_castsi256_ps(_mm256_add_epi32(e, _mm256_set1_epi32(0x4B400000))), magic);
    const float two_over_ln2 = 2.0f / (float)M_LN2;
    __m256 log2x = _mm256_add_ps(e_float, _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(two_over_ln2), t), series));
    __m256 y = _mm256_mul_ps(_mm256_set1_ps(p), log2x);
    __m256 covered = _mm256_and_ps(_mm256_or_ps(ordinary, is_zero),
                                   _mm256_and_ps(_mm256_cmp_ps(y, _mm256_set1_ps(-125.0f), _CMP_GE_OQ),
                                                 _mm256_cmp_ps(y, _mm256_set1_ps(127.0f), _CMP_LE_OQ)));
    __m256 n = _mm256_sub_ps(_mm256_add_ps(_mm256_blendv_ps(zero, y, covered), magic), magic);
    __m256 z = _mm256_mul_ps(_mm256_blendv_ps(zero, _mm256_sub_ps(y, n), covered), _mm256_set1_ps((float)M_LN2));
    __m256 poly = _mm256_add_ps(_mm256_mul_ps(z, _mm256_set1_ps(1.0f / 5040.0f)), _mm256_set1_ps(1.0f / 720.0f));
    poly = _mm256_add_ps(_mm256_mul_ps(poly, z), _mm256_set1_ps(1.0f / 120.0f));
    poly = _mm256_add_ps(_mm256_mul_ps(poly, z), _mm256_set1_ps(1.0f / 24.0f));
    poly = _mm256_add_ps(_mm256_mul_ps(poly, z), _mm256_set1_ps(1.0f / 6.0f));
    poly = _mm256_add_ps(_mm256_mul_ps(poly, z), _mm256_set1_ps(0.5f));
    poly = _mm256_add_ps(_mm256_mul_ps(poly, z), one);
    poly = _mm256_add_ps(_mm256_mul_ps(poly, z), one);
    __m256i n_int = _mm256_sub_epi32(_mm256_castps_si256(_mm256_add_ps(n, magic)), _mm256_set1_epi32(0x4B400000));
    __m256 scale = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n_int, _mm256_set1_epi32(127)), 23));
    *uncovered = _mm256_or_ps(*uncovered, _mm256_andnot_ps(covered, _mm256_castsi256_ps(_mm256_set1_epi32(-1))));
    return _mm256_blendv_ps(_mm256_mul_ps(poly, scale), zero, is_zero);
}

// CurveEvaluator.exactly for lcms2's types 4 and -4 (the sRGB-like curves), the same
// operations; lanes of another type are marked uncovered.
__attribute__((target("avx2"), noinline))
static __m256 fc_exact8(const fc_curve *curve, __m256 x, __m256 *uncovered) {
    const __m256 zero = _mm256_setzero_ps();
    if (curve->type == 4) {
        __m256 v = _mm256_add_ps(_mm256_mul_ps(_mm256_set1_ps(curve->a), x), _mm256_set1_ps(curve->b));
        __m256 above = _mm256_cmp_ps(x, _mm256_set1_ps(curve->d), _CMP_GE_OQ);
        __m256 linear = _mm256_mul_ps(x, _mm256_set1_ps(curve->c));
        if (_mm256_movemask_ps(above) == 0) return linear;
        __m256 positive = _mm256_cmp_ps(v, zero, _CMP_GT_OQ);
        __m256 y = fc_power8(_mm256_blendv_ps(zero, v, _mm256_and_ps(above, positive)), curve->g, uncovered);
        y = _mm256_blendv_ps(y, zero, _mm256_andnot_ps(positive, above));
        return _mm256_blendv_ps(linear, y, above);
    }
    if (curve->type == -4) {
        __m256 above = _mm256_cmp_ps(x, _mm256_set1_ps(curve->disc), _CMP_GE_OQ);
        __m256 linear = _mm256_div_ps(x, _mm256_set1_ps(curve->c));
        if (_mm256_movemask_ps(above) == 0) return linear;
        __m256 positive = _mm256_cmp_ps(x, zero, _CMP_GT_OQ);
        __m256 p = fc_power8(_mm256_blendv_ps(zero, x, _mm256_and_ps(above, positive)), curve->g, uncovered);
        __m256 y = _mm256_div_ps(_mm256_sub_ps(p, _mm256_set1_ps(curve->b)), _mm256_set1_ps(curve->a));
        return _mm256_blendv_ps(linear, y, above);
    }
    *uncovered = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
    return x;
}

// A curve at 8 values: CurveEvaluator.callAsFunction's interpolation of the samples, the
// same operations in the same order, and its exact path for the lanes outside them.
__attribute__((target("avx2"), always_inline))
static inline __m256 fc_curve8(const fc_curve *curve, __m256 x, __m256 *uncovered) {
    if (curve->pairs == NULL) return x;
    const __m256 low = _mm256_castsi256_ps(_mm256_set1_epi32(FC_CURVE_SAMPLE_BASE));
    const __m256 one = _mm256_set1_ps(1.0f);
    // Ordered comparisons: NaN is outside, as in Swift.
    __m256 inside = _mm256_and_ps(_mm256_cmp_ps(x, low, _CMP_GE_OQ), _mm256_cmp_ps(x, one, _CMP_LE_OQ));
    __m256i bits = _mm256_sub_epi32(_mm256_castps_si256(_mm256_blendv_ps(one, x, inside)),
                                    _mm256_set1_epi32(FC_CURVE_SAMPLE_BASE));
    __m256i cell = _mm256_srai_epi32(bits, 13);
    __m256 fraction = _mm256_sub_ps(
        _mm256_castsi256_ps(_mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi32(0x1FFF)),
                                            _mm256_set1_epi32(0x4B000000))),
        _mm256_set1_ps(8388608.0f));
    // Each lane's pair in one 8-byte load, then the samples and differences apart: faster
    // than two gathers where gathers are slow (AMD's Zen 2: about a quarter less time).
    int32_t c[8] __attribute__((aligned(32)));
    _mm256_store_si256((__m256i *)c, cell);
    const double *pairs = (const double *)(const void *)curve->pairs;
    __m128d p0 = _mm_loadh_pd(_mm_load_sd(pairs + c[0]), pairs + c[1]);
    __m128d p1 = _mm_loadh_pd(_mm_load_sd(pairs + c[2]), pairs + c[3]);
    __m128d p2 = _mm_loadh_pd(_mm_load_sd(pairs + c[4]), pairs + c[5]);
    __m128d p3 = _mm_loadh_pd(_mm_load_sd(pairs + c[6]), pairs + c[7]);
    __m256 low_pairs = _mm256_castpd_ps(_mm256_insertf128_pd(_mm256_castpd128_pd256(p0), p2, 1));
    __m256 high_pairs = _mm256_castpd_ps(_mm256_insertf128_pd(_mm256_castpd128_pd256(p1), p3, 1));
    __m256 a = _mm256_shuffle_ps(low_pairs, high_pairs, 0x88);
    __m256 d = _mm256_shuffle_ps(low_pairs, high_pairs, 0xDD);
    __m256 interpolated = _mm256_add_ps(a, _mm256_mul_ps(d, _mm256_mul_ps(fraction, _mm256_set1_ps(1.0f / 8192.0f))));
    if (_mm256_movemask_ps(inside) == 0xFF) return interpolated;
    // The lanes inside computed as 0, as the Swift kernel does (each lane depends on itself alone).
    __m256 exact = fc_exact8(curve, _mm256_blendv_ps(x, _mm256_setzero_ps(), inside), uncovered);
    return _mm256_blendv_ps(exact, interpolated, inside);
}

__attribute__((target("avx2")))
static ptrdiff_t fc_matrix_trc_avx2(const fc_curve curves[6], const float *matrix,
                                    const float *const source[3], float *const destination[3], ptrdiff_t count,
                                    int32_t *skipped) {
    ptrdiff_t skips = 0;
    __m256 m[9];
    for (int i = 0; i < 9; i++) m[i] = _mm256_set1_ps(matrix ? matrix[i] : 0.0f);
    for (ptrdiff_t i = 0; i < count; i += 8) {
        __m256 uncovered = _mm256_setzero_ps();
        __m256 r = fc_curve8(&curves[0], _mm256_loadu_ps(source[0] + i), &uncovered);
        __m256 g = fc_curve8(&curves[1], _mm256_loadu_ps(source[1] + i), &uncovered);
        __m256 b = fc_curve8(&curves[2], _mm256_loadu_ps(source[2] + i), &uncovered);
        if (matrix != NULL) {
            __m256 r2 = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(m[0], r), _mm256_mul_ps(m[1], g)), _mm256_mul_ps(m[2], b));
            __m256 g2 = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(m[3], r), _mm256_mul_ps(m[4], g)), _mm256_mul_ps(m[5], b));
            __m256 b2 = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(m[6], r), _mm256_mul_ps(m[7], g)), _mm256_mul_ps(m[8], b));
            r = r2; g = g2; b = b2;
        }
        r = fc_curve8(&curves[3], r, &uncovered);
        g = fc_curve8(&curves[4], g, &uncovered);
        b = fc_curve8(&curves[5], b, &uncovered);
        if (_mm256_movemask_ps(uncovered) != 0) {
            skipped[skips++] = (int32_t)(i / 8);
            continue;
        }
        _mm256_storeu_ps(destination[0] + i, r);
        _mm256_storeu_ps(destination[1] + i, g);
        _mm256_storeu_ps(destination[2] + i, b);
    }
    return skips;
}
#define FC_HAVE_AVX2_PATH 1
#endif

int fc_kernels_have_avx2(void) {
#ifdef FC_HAVE_AVX2_PATH
    static int known = -1;
    int have = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (have < 0) {
        __builtin_cpu_init();
        have = __builtin_cpu_supports("avx2") ? 1 : 0;
        __atomic_store_n(&known, have, __ATOMIC_RELAXED);
    }
    return have;
#else
    return 0;
#endif
}

ptrdiff_t fc_matrix_trc(const fc_curve curves[6], const float *matrix,
                        const float *const source[3], float *const destination[3], ptrdiff_t count,
                        int32_t *skipped) {
#ifdef FC_HAVE_AVX2_PATH
    if (fc_kernels_have_avx2()) return fc_matrix_trc_avx2(curves, matrix, source, destination, count, skipped);
#endif
    return -1;
}
