// fc_lcms: the smallest C layer filterchain needs over Little CMS 2 (lcms2).
//
// Why a shim: lcms2 reports errors through a logging callback that Swift cannot hand it with
// state (a C function pointer that captures nothing), and its handles are untyped. Each
// profile here owns an lcms2 context whose callback copies messages into the profile's
// report: messages are collected, never printed, and lcms2 never aborts. Everything lcms2
// computes for filterchain goes through these few calls: reading a profile's description
// (class, colour space, colorants, white, curves), evaluating its curves and their inverses
// as lcms2 does, and float transforms between two profiles.
//
// Threads: a profile is read by one thread at a time (opening, describing, making
// transforms). A transform is made with cmsFLAGS_NOCACHE, so fc_lcms_transform_run may be
// called on the same transform from any number of threads at once.
#ifndef FC_LCMS_H
#define FC_LCMS_H

#include <stddef.h>
#include <stdint.h>

#define FC_LCMS_MESSAGE_MAX 256

typedef struct {
    /// The first error lcms2 reported, and how many it reported.
    char message[FC_LCMS_MESSAGE_MAX];
    unsigned error_count;
} fc_lcms_report;

typedef enum {
    FC_LCMS_SPACE_OTHER = 0,
    FC_LCMS_SPACE_RGB = 1,
    FC_LCMS_SPACE_GREY = 2,
    FC_LCMS_SPACE_CMYK = 3,
} fc_lcms_space;

typedef struct {
    uint32_t device_class;   // the ICC signature: 'mntr', 'scnr', 'prtr', 'spac', ...
    uint32_t pcs;            // 'XYZ ' or 'Lab '
    fc_lcms_space space;
    uint32_t color_space;    // the ICC signature: 'RGB ', 'GRAY', 'CMYK', 'Lab ', ...
    double version;          // 2.1, 4.3, ...
    /// True when lcms2 would use the profile's matrix and TRC tags (RGB: rXYZ, gXYZ, bXYZ and
    /// rTRC, gTRC, bTRC; grey: kTRC) in both directions: they are present and no AToB, BToA,
    /// DToB or BToD tag takes precedence.
    int is_matrix_trc;
} fc_lcms_info;

/// A tone curve as lcms2 holds it: one parametric segment (lcms2's type: the ICC function
/// type + 1; ICC 'curv' gamma is type 1) with its parameters, or a 16-bit table.
typedef struct {
    int parametric_type;     // 0 for a table
    double params[10];
    uint32_t table_count;    // entries of the 16-bit table (for a parametric curve, lcms2's estimate)
} fc_lcms_curve_info;

typedef struct fc_lcms_profile fc_lcms_profile;
typedef struct fc_lcms_transform fc_lcms_transform;

/// Opens a profile from `size` bytes (copied). NULL when lcms2 cannot read it; the reason
/// is then in `report` (which may be NULL).
fc_lcms_profile *fc_lcms_profile_open(const void *data, size_t size, fc_lcms_report *report);
/// An RGB matrix/TRC profile made by lcms2 (cmsCreateRGBProfile: colorants adapted to D50
/// with Bradford) from a white point and primaries (x, y of red, green, blue) and one
/// parametric curve for the three channels (lcms2's type and parameters).
fc_lcms_profile *fc_lcms_profile_create_rgb(const double white_xy[2], const double primaries_xy[6],
                                            int curve_type, const double *curve_params,
                                            fc_lcms_report *report);
/// A grey profile made by lcms2 (cmsCreateGrayProfile) with a D65 white and one parametric curve.
fc_lcms_profile *fc_lcms_profile_create_grey(int curve_type, const double *curve_params, fc_lcms_report *report);
/// The profile's description (its desc tag, in English where it has several languages) as
/// UTF-8 in `text` (at most `capacity` bytes with the final 0); 0 when it has none.
int fc_lcms_profile_description(fc_lcms_profile *p, char *text, size_t capacity);
/// Sets the profile's description (desc) and copyright (cprt) to `description` and
/// `copyright` (ASCII): profiles filterchain writes say what they are.
int fc_lcms_profile_set_text(fc_lcms_profile *p, const char *description, const char *copyright);
/// The profile as ICC bytes (cmsSaveProfileToMem): with `data` NULL, the size it needs;
/// else writes up to `capacity` bytes and returns the size. 0 on failure.
size_t fc_lcms_profile_save(fc_lcms_profile *p, void *data, size_t capacity);
void fc_lcms_profile_free(fc_lcms_profile *p);
/// Messages lcms2 reported while this profile was read.
const fc_lcms_report *fc_lcms_profile_report(const fc_lcms_profile *p);

void fc_lcms_profile_info(fc_lcms_profile *p, fc_lcms_info *info);
/// How exactly the profile's output direction undoes its input direction in `intent`: device
/// values on a grid (9 per channel for RGB, 33 for grey) through the profile to the connection
/// space and back, unoptimised; the largest difference found, 0 to 1. -1 when lcms2 cannot
/// use the profile both ways (an input profile with no BToA tag and no matrix), or it is not
/// an RGB or grey profile. A LUT-only input profile whose BToA does not invert its AToB (as
/// jpegli's XYB profile's placeholder) comes out far from 0.
double fc_lcms_profile_round_trip(fc_lcms_profile *p, int intent);
/// 1 when lcms2 makes a transform from the profile (RGB, grey or CMYK) to sRGB in `intent`:
/// the tags its input direction needs are there and readable.
int fc_lcms_profile_usable_as_input(fc_lcms_profile *p, int intent);
/// The colorant tags (rXYZ, gXYZ, bXYZ) as lcms2 reads them, relative to D50; xyz holds the
/// red X, Y, Z, then green's, then blue's. 0 when one is missing.
int fc_lcms_profile_colorants(fc_lcms_profile *p, double xyz[9]);
/// The media white point as lcms2 uses it: D50 when the tag is missing or the profile is a
/// version 2 display profile (lcms2's rule), else the tag.
void fc_lcms_profile_white(fc_lcms_profile *p, double xyz[3]);
/// Curve `channel` (0, 1, 2: rTRC, gTRC, bTRC; 0 is kTRC in a grey profile). 0 when missing.
int fc_lcms_profile_curve(fc_lcms_profile *p, int channel, fc_lcms_curve_info *info);
/// Copies up to `capacity` entries of the curve's 16-bit table (inverse: of the inverse curve
/// lcms2 builds for the output direction, cmsReverseToneCurve) and returns the table's
/// length, 0 when the curve is missing. For parametric curves lcms2 does not use the table.
uint32_t fc_lcms_profile_curve_table(fc_lcms_profile *p, int channel, int inverse,
                                     uint16_t *table, uint32_t capacity);
/// Evaluates curve `channel` (or its inverse, as lcms2 builds it for the output direction)
/// in float at `count` values, as lcms2's float transforms do (cmsEvalToneCurveFloat).
/// 0 when the curve is missing.
int fc_lcms_profile_eval_curve(fc_lcms_profile *p, int channel, int inverse,
                               const float *in, float *out, size_t count);

/// A float transform from `in` to `out` (ICC intent 0 to 3, black-point compensation when
/// `bpc`), with cmsFLAGS_NOCACHE. Pixels are interleaved floats of each profile's colour
/// space: RGB and grey in [0, 1] (unbounded: values outside survive where the profiles
/// allow), CMYK in lcms2's float range, 0 to 100. NULL on failure, the reason in `report`.
fc_lcms_transform *fc_lcms_transform_new(fc_lcms_profile *in, fc_lcms_profile *out,
                                         int intent, int bpc, fc_lcms_report *report);
void fc_lcms_transform_free(fc_lcms_transform *t);
int fc_lcms_transform_input_channels(const fc_lcms_transform *t);
int fc_lcms_transform_output_channels(const fc_lcms_transform *t);
/// Transforms `count` pixels (interleaved floats); safe on many threads at once.
void fc_lcms_transform_run(const fc_lcms_transform *t, const float *src, float *dst, size_t count);
/// An integer transform from `in_bytes` (1 or 2) samples a channel to 16-bit ones, with
/// lcms2's default optimisation (a LUT-based profile becomes one precalculated table, as
/// vips and Pillow use it) and cmsFLAGS_NOCACHE. NULL on failure, the reason in `report`.
/// A transform with four input channels (CMYK) has its 16-bit table interpolated by
/// fc_lcms's own routine for four inputs and three outputs, the same arithmetic as lcms2's
/// (see fc_lcms.c), unless `FC_LCMS_LCMS2_INTERPOLATION` is set in the environment.
fc_lcms_transform *fc_lcms_transform_new_samples(fc_lcms_profile *in, fc_lcms_profile *out, int in_bytes,
                                                 int intent, int bpc, fc_lcms_report *report);
/// The same transform interpolated by lcms2's own routines only: the reference the tests
/// hold fc_lcms's interpolation to.
fc_lcms_transform *fc_lcms_transform_new_samples_lcms2(fc_lcms_profile *in, fc_lcms_profile *out, int in_bytes,
                                                       int intent, int bpc, fc_lcms_report *report);
/// Whether lcms2 calls fc_lcms's interpolation routine for `t` (one pixel is transformed to see).
int fc_lcms_transform_uses_own_interpolation(const fc_lcms_transform *t);
/// Whether `t` (8-bit CMYK to RGB) is evaluated straight from lcms2's table by fc_lcms,
/// without lcms2's per-pixel calls (checked against lcms2's results when it was made):
/// Whether `t`'s table (CMYK to RGB) was made by fc_lcms on several threads rather than by
/// lcms2 on one (the same table, see fc_lcms.c).
int fc_lcms_transform_made_own_table(const fc_lcms_transform *t);
/// 0: no; 1: in scalar code; 2: with AVX2.
int fc_lcms_transform_evaluates_directly(const fc_lcms_transform *t);
/// Transforms `count` pixels of interleaved integer samples into 16-bit ones; safe on many
/// threads at once.
void fc_lcms_transform_run_samples(const fc_lcms_transform *t, const void *src, uint16_t *dst, size_t count);
/// The same for a transform into RGB, written as three planes of floats, each sample over
/// 65535 (float(v) * (1.0f / 65535.0f)).
void fc_lcms_transform_run_samples_rgb(const fc_lcms_transform *t, const void *src, float *red, float *green,
                                       float *blue, size_t count);

#endif
