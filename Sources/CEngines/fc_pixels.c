// See include/fc_kernels.h: 8-bit RGB(A) rows to planes of Float and back.
#include "fc_kernels.h"

#include <stdint.h>
#include <string.h>

// Exactly the Swift reference's single-precision operations (PixelConversion.swift): no
// contraction into fused multiply-adds, no reciprocal for the division.
#pragma clang fp contract(off)
#pragma STDC FP_CONTRACT OFF

// A sample over 255, as the reference's table holds it (Float(Double(i) / 255), which equals
// the single-precision quotient for every i in 0...255; the tests check all of them).
#define UNPACK_BODY(N)                                                                          \
    for (ptrdiff_t x = 0; x < width; x++) {                                                     \
        r[x] = (float)s[N * x] / 255.0f;                                                        \
        g[x] = (float)s[N * x + 1] / 255.0f;                                                    \
        b[x] = (float)s[N * x + 2] / 255.0f;                                                    \
        if (N == 4) a[x] = (float)s[N * x + 3] / 255.0f;                                        \
    }

// Clamped to [0, 1] (NaN to 0), times 255, rounded to nearest with halves to even by adding
// 2^23: the sample is then the low byte of the sum's bit pattern.
static inline uint8_t fc_quantise8(float v) {
    float low = v > 0 ? v : 0;
    float c = low < 1 ? low : 1;
    float t = c * 255.0f + 8388608.0f;
    uint32_t u;
    memcpy(&u, &t, sizeof u);
    return (uint8_t)u;
}

#define PACK_BODY(N)                                                                            \
    for (ptrdiff_t x = 0; x < width; x++) {                                                     \
        d[N * x] = fc_quantise8(r[x]);                                                          \
        d[N * x + 1] = fc_quantise8(g[x]);                                                      \
        d[N * x + 2] = fc_quantise8(b[x]);                                                      \
        if (N == 4) d[N * x + 3] = fc_quantise8(a[x]);                                          \
    }

static void unpack3(const uint8_t *restrict s, float *restrict r, float *restrict g, float *restrict b,
                    float *restrict a, ptrdiff_t width) { UNPACK_BODY(3) }
static void unpack4(const uint8_t *restrict s, float *restrict r, float *restrict g, float *restrict b,
                    float *restrict a, ptrdiff_t width) { UNPACK_BODY(4) }
static void pack3(const float *restrict r, const float *restrict g, const float *restrict b, const float *restrict a,
                  uint8_t *restrict d, ptrdiff_t width) { PACK_BODY(3) }
static void pack4(const float *restrict r, const float *restrict g, const float *restrict b, const float *restrict a,
                  uint8_t *restrict d, ptrdiff_t width) { PACK_BODY(4) }

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define FC_HAVE_AVX2_PATH 1
__attribute__((target("avx2")))
static void unpack3_avx2(const uint8_t *restrict s, float *restrict r, float *restrict g, float *restrict b,
                         float *restrict a, ptrdiff_t width) { UNPACK_BODY(3) }
__attribute__((target("avx2")))
static void unpack4_avx2(const uint8_t *restrict s, float *restrict r, float *restrict g, float *restrict b,
                         float *restrict a, ptrdiff_t width) { UNPACK_BODY(4) }
__attribute__((target("avx2")))
static void pack3_avx2(const float *restrict r, const float *restrict g, const float *restrict b,
                       const float *restrict a, uint8_t *restrict d, ptrdiff_t width) { PACK_BODY(3) }
__attribute__((target("avx2")))
static void pack4_avx2(const float *restrict r, const float *restrict g, const float *restrict b,
                       const float *restrict a, uint8_t *restrict d, ptrdiff_t width) { PACK_BODY(4) }

#endif

void fc_unpack_rgb8(const uint8_t *source, int channels, float *red, float *green, float *blue, float *alpha,
                    ptrdiff_t width, int wide) {
#ifdef FC_HAVE_AVX2_PATH
    if (wide && fc_kernels_have_avx2()) {
        if (channels == 4) unpack4_avx2(source, red, green, blue, alpha, width);
        else unpack3_avx2(source, red, green, blue, alpha, width);
        return;
    }
#endif
    (void)wide;
    if (channels == 4) unpack4(source, red, green, blue, alpha, width);
    else unpack3(source, red, green, blue, alpha, width);
}

void fc_pack_rgb8(const float *red, const float *green, const float *blue, const float *alpha, int channels,
                  uint8_t *destination, ptrdiff_t width, int wide) {
#ifdef FC_HAVE_AVX2_PATH
    if (wide && fc_kernels_have_avx2()) {
        if (channels == 4) pack4_avx2(red, green, blue, alpha, destination, width);
        else pack3_avx2(red, green, blue, alpha, destination, width);
        return;
    }
#endif
    (void)wide;
    if (channels == 4) pack4(red, green, blue, alpha, destination, width);
    else pack3(red, green, blue, alpha, destination, width);
}
