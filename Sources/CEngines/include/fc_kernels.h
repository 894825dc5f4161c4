// fc_kernels: the one inner loop that Swift cannot make fast enough on its own.
//
// Swift compiles for the baseline instruction set of its target (SSE2 on x86-64: sixteen
// 4-float registers), and a package with unsafe flags cannot be a versioned dependency, so
// it cannot ask for AVX. The sliding-sum Gaussian (GaussianBlur.swift, SlidingCosines) keeps
// nine running sums per column in registers; with AVX, eight columns at a time fit in the
// sixteen 8-float registers. This file holds that loop, chosen at run time: AVX when the
// processor has it, plain 4-wide vectors otherwise. Both do the same single-precision
// operations in the same order (no fused multiply-add, no reassociation), so the result is
// bit for bit the same on every machine and for either path.
#ifndef FC_KERNELS_H
#define FC_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/// The sliding cosine sums for `count` consecutive positions, over `columns` columns
/// starting at column `first` (both multiples of 8). `state` holds the nine running sums
/// (S, C1...C4, D1...D4), each `lanes` floats apart. Step i adds the samples at
/// `entering[i]`, removes those at `leaving[i]` and writes the output to `outputs[i]`.
/// `entering_phase`, `leaving_phase` and `weighted` hold 8 floats a position (cos(k w m) for
/// k = 1...4 then sin(k w m); the weighted table times a_k), and advance one position a step.
void fc_sliding_cosines(float *state, ptrdiff_t lanes, ptrdiff_t count,
                        const float *const *entering, const float *entering_phase,
                        const float *const *leaving, const float *leaving_phase,
                        const float *weighted, float *const *outputs, float a0,
                        ptrdiff_t first, ptrdiff_t columns);

/// The two paths themselves, for the tests: the 4-wide one, and the AVX one, which does
/// nothing and returns 0 where the processor has no AVX (1 when it ran).
void fc_sliding_cosines_4(float *state, ptrdiff_t lanes, ptrdiff_t count,
                          const float *const *entering, const float *entering_phase,
                          const float *const *leaving, const float *leaving_phase,
                          const float *weighted, float *const *outputs, float a0,
                          ptrdiff_t first, ptrdiff_t columns);
int fc_sliding_cosines_8(float *state, ptrdiff_t lanes, ptrdiff_t count,
                         const float *const *entering, const float *entering_phase,
                         const float *const *leaving, const float *leaving_phase,
                         const float *weighted, float *const *outputs, float a0,
                         ptrdiff_t first, ptrdiff_t columns);

/// Whether fc_sliding_cosines runs its AVX loop on this processor (for the benchmark notes).
int fc_kernels_have_avx(void);

/// Resample.swift's vertical pass with AVX: out[x] = weights[0] rows[0][x] + weights[1]
/// rows[1][x] + ... (count rows, in that order, no fused multiply-adds) for x below `columns`
/// (a multiple of 8). Returns 0, doing nothing, where the processor has no AVX (or count < 1).
int fc_resample_vertical(const float *const *rows, const float *weights, ptrdiff_t count, float *out,
                         ptrdiff_t columns);

/// Resample.swift's horizontal pass with AVX: output o (of `outputs`) is the sum over the
/// 8-sample steps k < count[o] (at least one) of line[first[o] + k ...] times
/// weights[o taps + k ...], its eight lanes then added in order. `line` must be readable,
/// zeros past the row, as far as the last step reaches. Returns 0, doing nothing, where the
/// processor has no AVX. Bit for bit the Swift loop's results.
int fc_resample_horizontal(const float *line, const int32_t *first, const int32_t *count, const float *weights,
                           ptrdiff_t taps, ptrdiff_t outputs, float *out);

/// A tone curve's cubic segments (`count_segments` of them, six floats each: x_k, 1 / h_k,
/// c0...c3) applied in place to `count` values (a multiple of 8): each clamped to
/// [x0, x1] (NaN to x0), its segment the last whose x_k it reaches, then
/// ((c3 t + c2) t + c1) t + c0 with t = (x - x_k) / h_k, the operations of ToneCurve.swift's
/// CurveTable.applySelecting bit for bit (the tests compare them). Returns 0, doing nothing,
/// where the processor has no AVX2 (the Swift loop then runs).
int fc_curve_select(const float *segments, int count_segments, float x0, float x1, float *values, ptrdiff_t count);

/// The direct Gaussian blur's horizontal pass over one row: for each x in [0, count) (a
/// multiple of 8), out[x] = w0 c[x] + w1 (c[x-1] + c[x+1]) + ... + wk (c[x-k] + c[x+k]), summed
/// in that order as GaussianBlur.swift's DirectHorizontal does, bit for bit (`center` holds k
/// values before and after). Returns 0, doing nothing, without AVX2 (the Swift loop runs).
int fc_blur_horizontal(const float *weights, int k, const float *center, float *out, ptrdiff_t count);

/// Its vertical pass for one output row, columns [from, to) (a multiple of 8 apart): `rows`
/// holds the rows above and below the centre row alternately (y - 1, y + 1, y - 2, ...), as
/// DirectVertical does, with the same sums bit for bit. Returns 0 without AVX2.
int fc_blur_vertical(const float *weights, int k, const float *center, const float *const *rows, float *destination,
                     ptrdiff_t from, ptrdiff_t to);

/// 8-bit RGB (channels 3) or RGBA (4) samples of `width` pixels to planes of Float, each
/// sample over 255 (`alpha` only for RGBA), as PixelConversion.swift's reference does.
/// `wide`: 1 to use the AVX2 loop where the processor has it, 0 for the plain one (the tests
/// compare both); the results are bit for bit the same.
void fc_unpack_rgb8(const uint8_t *source, int channels, float *red, float *green, float *blue, float *alpha,
                    ptrdiff_t width, int wide);

/// Planes of Float to 8-bit RGB (channels 3) or RGBA (4) samples: each value clamped to
/// [0, 1] (NaN to 0), times 255, rounded to nearest with halves to even (`alpha` read only for
/// RGBA). `wide` as for fc_unpack_rgb8.
void fc_pack_rgb8(const float *red, const float *green, const float *blue, const float *alpha, int channels,
                  uint8_t *destination, ptrdiff_t width, int wide);

// fc_matrix_trc (fc_matrix_trc.c): the matrix/TRC colour kernel (MatrixTRCKernel) in AVX2.
//
// A sampled curve (CurveEvaluator) looks two floats up per value; Swift's baseline (SSE2)
// does that with scalar loads and shuffles in 4-wide halves, and most of a colour leg's time
// went there. This loop does the same single-precision operations in the same order, 8 wide
// (each lane's pair of floats in one load, and the same polynomial power outside the
// samples), so the result is bit for bit the Swift kernel's; what it does not cover it
// leaves to the Swift kernel.

/// The bit pattern of 2^-12, where a curve's samples start (CurveEvaluator.sampleBase).
#define FC_CURVE_SAMPLE_BASE 0x39800000

/// One curve of the kernel: a sampled curve's interleaved pairs (sample, next sample minus
/// it), NULL for the identity; for lcms2's parametric types 4 and -4 (`type`, else 0) the
/// values CurveEvaluator derives (the exponent, -4's already inverted, and the breakpoint).
typedef struct {
    const float *pairs;
    int32_t type;
    float g, a, b, c, d, disc;
} fc_curve;

/// The kernel over `count` pixels (a multiple of 8) from `source`'s planes into
/// `destination`'s (which may be the same): `curves[0...2]` (red, green, blue), `matrix` (9
/// floats row-major, NULL for the identity), `curves[3...5]`. Values outside a curve's
/// samples take its exact path here for types 4 and -4; a vector of 8 pixels that needs
/// anything else (another type there, powf for a lane the polynomials do not cover) is not
/// written: its index (pixel / 8) goes into `skipped` (room for count / 8), for the Swift
/// kernel. Returns how many were skipped, or -1 (nothing done) where the processor has no
/// AVX2.
ptrdiff_t fc_matrix_trc(const fc_curve curves[6], const float *matrix,
                        const float *const source[3], float *const destination[3], ptrdiff_t count,
                        int32_t *skipped);

/// Whether the processor has AVX2 (then fc_matrix_trc does its work).
int fc_kernels_have_avx2(void);

#endif
