// See include/fc_kernels.h.
#include "fc_kernels.h"

// The two loops must round exactly as the Swift reference does: no contraction into fused
// multiply-adds, whatever the compiler's default.
#pragma clang fp contract(off)
#pragma STDC FP_CONTRACT OFF

typedef float v4 __attribute__((vector_size(16), aligned(4)));
typedef float v8 __attribute__((vector_size(32), aligned(4)));

// One body, written once, for both widths: V is the vector type, N its lane count.
#define SLIDE_BODY(V, N)                                                                        \
    for (ptrdiff_t x = first; x < first + columns; x += N) {                                    \
        float *st = state + x;                                                                  \
        V s = *(V *)st;                                                                         \
        V c1 = *(V *)(st + 1 * lanes), c2 = *(V *)(st + 2 * lanes);                             \
        V c3 = *(V *)(st + 3 * lanes), c4 = *(V *)(st + 4 * lanes);                             \
        V d1 = *(V *)(st + 5 * lanes), d2 = *(V *)(st + 6 * lanes);                             \
        V d3 = *(V *)(st + 7 * lanes), d4 = *(V *)(st + 8 * lanes);                             \
        const float *pe = entering_phase, *pl = leaving_phase, *w = weighted;                   \
        for (ptrdiff_t i = 0; i < count; i++, pe += 8, pl += 8, w += 8) {                       \
            V vin = *(const V *)(entering[i] + x), vout = *(const V *)(leaving[i] + x);         \
            /* The rows' next cache lines, which the next blocks of columns read: in a        \
               vertical pass, rows are far apart and the loads would wait on memory. */        \
            __builtin_prefetch(entering[i] + x + 32);                                           \
            __builtin_prefetch(leaving[i] + x + 32);                                            \
            s = s + (vin - vout);                                                               \
            V sum = a0 * s;                                                                     \
            c1 = c1 + (vin * pe[0] - vout * pl[0]);                                             \
            d1 = d1 + (vin * pe[4] - vout * pl[4]);                                             \
            sum = sum + (w[0] * c1 + w[4] * d1);                                                \
            c2 = c2 + (vin * pe[1] - vout * pl[1]);                                             \
            d2 = d2 + (vin * pe[5] - vout * pl[5]);                                             \
            sum = sum + (w[1] * c2 + w[5] * d2);                                                \
            c3 = c3 + (vin * pe[2] - vout * pl[2]);                                             \
            d3 = d3 + (vin * pe[6] - vout * pl[6]);                                             \
            sum = sum + (w[2] * c3 + w[6] * d3);                                                \
            c4 = c4 + (vin * pe[3] - vout * pl[3]);                                             \
            d4 = d4 + (vin * pe[7] - vout * pl[7]);                                             \
            sum = sum + (w[3] * c4 + w[7] * d4);                                                \
            *(V *)(outputs[i] + x) = sum;                                                       \
        }                                                                                       \
        *(V *)st = s;                                                                           \
        *(V *)(st + 1 * lanes) = c1; *(V *)(st + 2 * lanes) = c2;                               \
        *(V *)(st + 3 * lanes) = c3; *(V *)(st + 4 * lanes) = c4;                               \
        *(V *)(st + 5 * lanes) = d1; *(V *)(st + 6 * lanes) = d2;                               \
        *(V *)(st + 7 * lanes) = d3; *(V *)(st + 8 * lanes) = d4;                               \
    }

void fc_sliding_cosines_4(float *state, ptrdiff_t lanes, ptrdiff_t count,
                   const float *const *entering, const float *entering_phase,
                   const float *const *leaving, const float *leaving_phase,
                   const float *weighted, float *const *outputs, float a0,
                   ptrdiff_t first, ptrdiff_t columns) {
    SLIDE_BODY(v4, 4)
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define FC_HAVE_AVX_PATH 1
__attribute__((target("avx")))
static void slide8_avx(float *state, ptrdiff_t lanes, ptrdiff_t count,
                   const float *const *entering, const float *entering_phase,
                   const float *const *leaving, const float *leaving_phase,
                   const float *weighted, float *const *outputs, float a0,
                   ptrdiff_t first, ptrdiff_t columns) {
    SLIDE_BODY(v8, 8)
}
#endif

int fc_sliding_cosines_8(float *state, ptrdiff_t lanes, ptrdiff_t count,
                         const float *const *entering, const float *entering_phase,
                         const float *const *leaving, const float *leaving_phase,
                         const float *weighted, float *const *outputs, float a0,
                         ptrdiff_t first, ptrdiff_t columns) {
#ifdef FC_HAVE_AVX_PATH
    if (fc_kernels_have_avx()) {
        slide8_avx(state, lanes, count, entering, entering_phase, leaving, leaving_phase, weighted, outputs,
                   a0, first, columns);
        return 1;
    }
#endif
    return 0;
}

int fc_kernels_have_avx(void) {
#ifdef FC_HAVE_AVX_PATH
    // Any thread may ask first; they all find the same answer.
    static int known = -1;
    int have = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (have < 0) {
        __builtin_cpu_init();
        have = __builtin_cpu_supports("avx") ? 1 : 0;
        __atomic_store_n(&known, have, __ATOMIC_RELAXED);
    }
    return have;
#else
    return 0;
#endif
}

void fc_sliding_cosines(float *state, ptrdiff_t lanes, ptrdiff_t count,
                        const float *const *entering, const float *entering_phase,
                        const float *const *leaving, const float *leaving_phase,
                        const float *weighted, float *const *outputs, float a0,
                        ptrdiff_t first, ptrdiff_t columns) {
#ifdef FC_HAVE_AVX_PATH
    if (fc_kernels_have_avx()) {
        slide8_avx(state, lanes, count, entering, entering_phase, leaving, leaving_phase, weighted, outputs,
               a0, first, columns);
        return;
    }
#endif
    fc_sliding_cosines_4(state, lanes, count, entering, entering_phase, leaving, leaving_phase, weighted, outputs,
           a0, first, columns);
}
