// Two lcms2 plug-ins and an evaluation that skips lcms2's per-pixel machinery, for CMYK to
// RGB, the transform lcms2 is slowest at; fc_lcms.c (the shim) registers them on each
// transform's own context and asks what they did. Each gives lcms2's own results to the bit,
// and LCMSInterpolationTests hold them to lcms2's routines:
//
// - an interpolation plug-in: 4 inputs, 3 outputs, the tetrahedron chosen once a pixel
//   (lcms2's generic interpolator picks it again for each output);
// - an optimisation plug-in: the transform's 16-bit table made on up to four threads, as
//   lcms2 makes it on one;
// - a direct evaluation of 8-bit CMYK from that table (`fc_direct`), AVX2 where the
//   processor has it, made only when it matches lcms2 on a check set.
//
// Transforms are `void *` here (lcms2's cmsHTRANSFORM), so that this header needs no lcms2
// header of its own.
#ifndef FC_LCMS_ENGINE_H
#define FC_LCMS_ENGINE_H

#include <stddef.h>
#include <stdint.h>

/// The plug-ins, chained, for cmsPluginTHR on a transform's context.
void *fc_lcms_engine_plugins(void);

/// Call on the thread about to make a transform; after it, `fc_lcms_engine_made_table` says
/// whether the optimisation plug-in made its table (and forgets it).
void fc_lcms_engine_begin_transform(void);
int fc_lcms_engine_made_table(void);

/// Whether lcms2 calls the interpolation plug-in for `transform` (one pixel is transformed
/// to see; the transform takes integer samples).
int fc_lcms_engine_interpolates(void *transform);

typedef struct fc_direct fc_direct;

/// For an 8-bit CMYK-to-RGB transform served by the interpolation plug-in: the tables of a
/// direct evaluation, if lcms2 evaluates the transform as one interpolation of one table a
/// pixel and the direct evaluation gives lcms2's results on the check samples; else NULL.
/// It reads lcms2's table: free it before the transform.
fc_direct *fc_direct_make(void *transform);
/// `count` pixels of four 8-bit inks into three 16-bit samples each.
void fc_direct_eval(const fc_direct *d, const uint8_t *s, uint16_t *out, size_t count);
/// Whether it evaluates with AVX2.
int fc_direct_uses_avx2(const fc_direct *d);
void fc_direct_free(fc_direct *d);

/// Whether direct evaluations made from now on may use AVX2 (default yes, where the
/// processor has it): the tests check the scalar code too.
void fc_lcms_allow_avx2(int allowed);
int fc_lcms_has_avx2(void);

#endif
