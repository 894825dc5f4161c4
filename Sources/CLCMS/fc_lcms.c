// See fc_lcms.h for why this file exists.
#include "fc_lcms.h"
#include "fc_kernels.h"

#include <lcms2.h>
#include <lcms2_plugin.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

// MARK: - Contexts and their messages

/// An lcms2 context whose user data is a report: every message lcms2 logs in it lands there.
static void fc_lcms_log(cmsContext context, cmsUInt32Number code, const char *text) {
    (void)code;
    fc_lcms_report *report = cmsGetContextUserData(context);
    if (report == NULL) return;
    if (report->error_count == 0) snprintf(report->message, FC_LCMS_MESSAGE_MAX, "%s", text ? text : "");
    report->error_count += 1;
}

static cmsContext fc_lcms_context(fc_lcms_report *report) {
    cmsContext context = cmsCreateContext(NULL, report);
    if (context != NULL) cmsSetLogErrorHandlerTHR(context, fc_lcms_log);
    return context;
}

static void fc_lcms_fail(fc_lcms_report *report, const char *text) {
    if (report == NULL) return;
    if (report->error_count == 0) snprintf(report->message, FC_LCMS_MESSAGE_MAX, "%s", text);
    report->error_count += 1;
}

static void fc_lcms_copy(fc_lcms_report *to, const fc_lcms_report *from) {
    if (to != NULL && from != NULL) *to = *from;
}

// MARK: - Profiles

struct fc_lcms_profile {
    cmsContext context;
    cmsHPROFILE handle;
    fc_lcms_report report;   // the context's user data
};

static fc_lcms_profile *fc_lcms_profile_alloc(void) {
    fc_lcms_profile *p = calloc(1, sizeof *p);
    if (p == NULL) return NULL;
    p->context = fc_lcms_context(&p->report);
    if (p->context == NULL) { free(p); return NULL; }
    return p;
}

fc_lcms_profile *fc_lcms_profile_open(const void *data, size_t size, fc_lcms_report *report) {
    if (report != NULL) memset(report, 0, sizeof *report);
    if (data == NULL || size == 0 || size > 0xFFFFFFFFu) {
        fc_lcms_fail(report, "empty profile");
        return NULL;
    }
    fc_lcms_profile *p = fc_lcms_profile_alloc();
    if (p == NULL) { fc_lcms_fail(report, "out of memory"); return NULL; }
    p->handle = cmsOpenProfileFromMemTHR(p->context, data, (cmsUInt32Number)size);
    if (p->handle == NULL) {
        if (p->report.error_count == 0) fc_lcms_fail(&p->report, "not an ICC profile lcms2 can read");
        fc_lcms_copy(report, &p->report);
        fc_lcms_profile_free(p);
        return NULL;
    }
    fc_lcms_copy(report, &p->report);
    return p;
}

// A profile just made (or not): its messages copied out; freed when lcms2 made nothing.
static fc_lcms_profile *fc_lcms_made(fc_lcms_profile *p, fc_lcms_report *report) {
    if (p->handle == NULL) {
        if (p->report.error_count == 0) fc_lcms_fail(&p->report, "lcms2 could not make the profile");
        fc_lcms_copy(report, &p->report);
        fc_lcms_profile_free(p);
        return NULL;
    }
    fc_lcms_copy(report, &p->report);
    return p;
}

fc_lcms_profile *fc_lcms_profile_create_rgb(const double white_xy[2], const double primaries_xy[6],
                                            int curve_type, const double *curve_params,
                                            fc_lcms_report *report) {
    if (report != NULL) memset(report, 0, sizeof *report);
    fc_lcms_profile *p = fc_lcms_profile_alloc();
    if (p == NULL) { fc_lcms_fail(report, "out of memory"); return NULL; }
    cmsCIExyY white = { white_xy[0], white_xy[1], 1.0 };
    cmsCIExyYTRIPLE primaries = {
        { primaries_xy[0], primaries_xy[1], 1.0 },
        { primaries_xy[2], primaries_xy[3], 1.0 },
        { primaries_xy[4], primaries_xy[5], 1.0 },
    };
    cmsToneCurve *curve = cmsBuildParametricToneCurve(p->context, curve_type, curve_params);
    if (curve != NULL) {
        cmsToneCurve *curves[3] = { curve, curve, curve };
        p->handle = cmsCreateRGBProfileTHR(p->context, &white, &primaries, curves);
        cmsFreeToneCurve(curve);
    }
    return fc_lcms_made(p, report);
}

fc_lcms_profile *fc_lcms_profile_create_grey(int curve_type, const double *curve_params, fc_lcms_report *report) {
    if (report != NULL) memset(report, 0, sizeof *report);
    fc_lcms_profile *p = fc_lcms_profile_alloc();
    if (p == NULL) { fc_lcms_fail(report, "out of memory"); return NULL; }
    cmsToneCurve *curve = cmsBuildParametricToneCurve(p->context, curve_type, curve_params);
    if (curve != NULL) {
        p->handle = cmsCreateGrayProfileTHR(p->context, cmsD50_xyY(), curve);
        cmsFreeToneCurve(curve);
    }
    return fc_lcms_made(p, report);
}

static int fc_lcms_set_mlu(fc_lcms_profile *p, cmsTagSignature tag, const char *text) {
    cmsMLU *mlu = cmsMLUalloc(p->context, 1);
    if (mlu == NULL) return 0;
    int ok = cmsMLUsetASCII(mlu, "en", "US", text) && cmsWriteTag(p->handle, tag, mlu);
    cmsMLUfree(mlu);
    return ok;
}

int fc_lcms_profile_set_text(fc_lcms_profile *p, const char *description, const char *copyright) {
    return fc_lcms_set_mlu(p, cmsSigProfileDescriptionTag, description)
        && fc_lcms_set_mlu(p, cmsSigCopyrightTag, copyright);
}

size_t fc_lcms_profile_save(fc_lcms_profile *p, void *data, size_t capacity) {
    cmsUInt32Number size = 0;
    if (!cmsSaveProfileToMem(p->handle, NULL, &size)) return 0;
    if (data == NULL) return size;
    if (capacity < size) return 0;
    cmsUInt32Number written = (cmsUInt32Number)capacity;
    if (!cmsSaveProfileToMem(p->handle, data, &written)) return 0;
    return written;
}

void fc_lcms_profile_free(fc_lcms_profile *p) {
    if (p == NULL) return;
    if (p->handle != NULL) cmsCloseProfile(p->handle);
    cmsDeleteContext(p->context);
    free(p);
}

const fc_lcms_report *fc_lcms_profile_report(const fc_lcms_profile *p) {
    return &p->report;
}

static int fc_lcms_has_lut(cmsHPROFILE h) {
    static const cmsTagSignature tags[] = {
        cmsSigAToB0Tag, cmsSigAToB1Tag, cmsSigAToB2Tag,
        cmsSigBToA0Tag, cmsSigBToA1Tag, cmsSigBToA2Tag,
        cmsSigDToB0Tag, cmsSigDToB1Tag, cmsSigDToB2Tag, cmsSigDToB3Tag,
        cmsSigBToD0Tag, cmsSigBToD1Tag, cmsSigBToD2Tag, cmsSigBToD3Tag,
    };
    for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) {
        if (cmsIsTag(h, tags[i])) return 1;
    }
    return 0;
}

void fc_lcms_profile_info(fc_lcms_profile *p, fc_lcms_info *info) {
    memset(info, 0, sizeof *info);
    cmsHPROFILE h = p->handle;
    info->device_class = (uint32_t)cmsGetDeviceClass(h);
    info->pcs = (uint32_t)cmsGetPCS(h);
    info->color_space = (uint32_t)cmsGetColorSpace(h);
    switch (cmsGetColorSpace(h)) {
    case cmsSigRgbData: info->space = FC_LCMS_SPACE_RGB; break;
    case cmsSigGrayData: info->space = FC_LCMS_SPACE_GREY; break;
    case cmsSigCmykData: info->space = FC_LCMS_SPACE_CMYK; break;
    default: info->space = FC_LCMS_SPACE_OTHER; break;
    }
    info->version = cmsGetProfileVersion(h);
    int shaper = 0;
    if (info->space == FC_LCMS_SPACE_RGB || info->space == FC_LCMS_SPACE_GREY) {
        shaper = cmsIsMatrixShaper(h) ? 1 : 0;
        // lcms2 reads the tags to know; a damaged tag makes the profile unusable as one.
        if (shaper && info->space == FC_LCMS_SPACE_RGB) {
            shaper = cmsReadTag(h, cmsSigRedColorantTag) && cmsReadTag(h, cmsSigGreenColorantTag)
                && cmsReadTag(h, cmsSigBlueColorantTag) && cmsReadTag(h, cmsSigRedTRCTag)
                && cmsReadTag(h, cmsSigGreenTRCTag) && cmsReadTag(h, cmsSigBlueTRCTag);
        } else if (shaper) {
            shaper = cmsReadTag(h, cmsSigGrayTRCTag) != NULL;
        }
    }
    info->is_matrix_trc = shaper && !fc_lcms_has_lut(h) && info->pcs == cmsSigXYZData;
}

double fc_lcms_profile_round_trip(fc_lcms_profile *p, int intent) {
    cmsHPROFILE h = p->handle;
    cmsUInt32Number format;
    int channels, steps;
    switch (cmsGetColorSpace(h)) {
    case cmsSigRgbData: format = TYPE_RGB_16; channels = 3; steps = 9; break;
    case cmsSigGrayData: format = TYPE_GRAY_16; channels = 1; steps = 33; break;
    default: return -1;
    }
    // lcms2 falls back to the perceptual tables where the intent's own are missing (which
    // cmsIsIntentSupported does not count): whether it makes the transform is the test.
    cmsHTRANSFORM t = cmsCreateTransformTHR(p->context, h, format, h, format, (cmsUInt32Number)intent,
                                            cmsFLAGS_NOOPTIMIZE | cmsFLAGS_NOCACHE);
    if (t == NULL) return -1;
    size_t count = 1;
    for (int c = 0; c < channels; c++) count *= (size_t)steps;
    uint16_t *in = malloc(count * (size_t)channels * sizeof *in), *out = malloc(count * (size_t)channels * sizeof *out);
    double worst = -1;
    if (in != NULL && out != NULL) {
        for (size_t i = 0; i < count; i++) {
            size_t k = i;
            for (int c = 0; c < channels; c++) {
                in[i * (size_t)channels + (size_t)c] = (uint16_t)((k % (size_t)steps) * 65535 / (size_t)(steps - 1));
                k /= (size_t)steps;
            }
        }
        cmsDoTransform(t, in, out, (cmsUInt32Number)count);
        worst = 0;
        for (size_t i = 0; i < count * (size_t)channels; i++) {
            double d = fabs((double)in[i] - (double)out[i]) / 65535.0;
            if (d > worst) worst = d;
        }
    }
    free(in);
    free(out);
    cmsDeleteTransform(t);
    return worst;
}

int fc_lcms_profile_usable_as_input(fc_lcms_profile *p, int intent) {
    cmsUInt32Number format;
    switch (cmsGetColorSpace(p->handle)) {
    case cmsSigRgbData: format = TYPE_RGB_16; break;
    case cmsSigGrayData: format = TYPE_GRAY_16; break;
    case cmsSigCmykData: format = TYPE_CMYK_16; break;
    default: return 0;
    }
    cmsHPROFILE srgb = cmsCreate_sRGBProfileTHR(p->context);
    if (srgb == NULL) return 0;
    cmsHTRANSFORM t = cmsCreateTransformTHR(p->context, p->handle, format, srgb, TYPE_RGB_16, (cmsUInt32Number)intent,
                                            cmsFLAGS_NOOPTIMIZE | cmsFLAGS_NOCACHE);
    cmsCloseProfile(srgb);
    if (t == NULL) return 0;
    cmsDeleteTransform(t);
    return 1;
}

int fc_lcms_profile_colorants(fc_lcms_profile *p, double xyz[9]) {
    static const cmsTagSignature tags[3] = { cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag };
    for (int i = 0; i < 3; i++) {
        const cmsCIEXYZ *c = cmsReadTag(p->handle, tags[i]);
        if (c == NULL) return 0;
        xyz[3 * i] = c->X;
        xyz[3 * i + 1] = c->Y;
        xyz[3 * i + 2] = c->Z;
    }
    return 1;
}

void fc_lcms_profile_white(fc_lcms_profile *p, double xyz[3]) {
    const cmsCIEXYZ *d50 = cmsD50_XYZ();
    const cmsCIEXYZ *tag = cmsReadTag(p->handle, cmsSigMediaWhitePointTag);
    int v2_display = cmsGetEncodedICCversion(p->handle) < 0x4000000 && cmsGetDeviceClass(p->handle) == cmsSigDisplayClass;
    const cmsCIEXYZ *w = (tag == NULL || v2_display) ? d50 : tag;
    xyz[0] = w->X;
    xyz[1] = w->Y;
    xyz[2] = w->Z;
}

static const cmsToneCurve *fc_lcms_curve(fc_lcms_profile *p, int channel) {
    cmsTagSignature tag;
    if (cmsGetColorSpace(p->handle) == cmsSigGrayData) {
        if (channel != 0) return NULL;
        tag = cmsSigGrayTRCTag;
    } else {
        static const cmsTagSignature tags[3] = { cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag };
        if (channel < 0 || channel > 2) return NULL;
        tag = tags[channel];
    }
    return cmsReadTag(p->handle, tag);
}

int fc_lcms_profile_curve(fc_lcms_profile *p, int channel, fc_lcms_curve_info *info) {
    memset(info, 0, sizeof *info);
    const cmsToneCurve *curve = fc_lcms_curve(p, channel);
    if (curve == NULL) return 0;
    info->parametric_type = cmsGetToneCurveParametricType(curve);
    if (info->parametric_type != 0) {
        const cmsFloat64Number *params = cmsGetToneCurveParams((cmsToneCurve *)curve);
        if (params != NULL) memcpy(info->params, params, sizeof info->params);
    }
    info->table_count = cmsGetToneCurveEstimatedTableEntries(curve);
    return 1;
}

uint32_t fc_lcms_profile_curve_table(fc_lcms_profile *p, int channel, int inverse,
                                     uint16_t *table, uint32_t capacity) {
    const cmsToneCurve *curve = fc_lcms_curve(p, channel);
    if (curve == NULL) return 0;
    cmsToneCurve *reversed = inverse ? cmsReverseToneCurve(curve) : NULL;
    if (inverse && reversed == NULL) return 0;
    const cmsToneCurve *c = inverse ? reversed : curve;
    uint32_t n = cmsGetToneCurveEstimatedTableEntries(c);
    const cmsUInt16Number *values = cmsGetToneCurveEstimatedTable(c);
    if (table != NULL && values != NULL) memcpy(table, values, sizeof(uint16_t) * (n < capacity ? n : capacity));
    if (reversed != NULL) cmsFreeToneCurve(reversed);
    return n;
}

int fc_lcms_profile_eval_curve(fc_lcms_profile *p, int channel, int inverse,
                               const float *in, float *out, size_t count) {
    const cmsToneCurve *curve = fc_lcms_curve(p, channel);
    if (curve == NULL) return 0;
    cmsToneCurve *reversed = inverse ? cmsReverseToneCurve(curve) : NULL;
    if (inverse && reversed == NULL) return 0;
    const cmsToneCurve *c = inverse ? reversed : curve;
    for (size_t i = 0; i < count; i++) out[i] = cmsEvalToneCurveFloat(c, in[i]);
    if (reversed != NULL) cmsFreeToneCurve(reversed);
    return 1;
}

// MARK: - Transforms

struct fc_lcms_transform {
    cmsContext context;
    cmsHTRANSFORM handle;
    int input_channels, output_channels;
    int input_bytes;         // an integer transform's bytes a sample (0: float)
    uint64_t id;             // unique in the process, never reused: what a memo belongs to
    int own_interpolation;   // the 4-in, 3-out interpolator below was asked for
    struct fc_direct *direct;   // 8-bit CMYK evaluated straight from lcms2's table (or NULL)
    int own_table;           // its table was made by fc_optimize_cmyk
    fc_lcms_report report;   // the context's user data
};

static int fc_lcms_float_format(cmsHPROFILE h, int *channels) {
    switch (cmsGetColorSpace(h)) {
    case cmsSigRgbData: *channels = 3; return TYPE_RGB_FLT;
    case cmsSigGrayData: *channels = 1; return TYPE_GRAY_FLT;
    case cmsSigCmykData: *channels = 4; return TYPE_CMYK_FLT;
    default: *channels = 0; return 0;
    }
}

// An integer format of the same colour space as a float one (lcms2's 8- or 16-bit layouts).
static int fc_lcms_integer_format(int float_format, int bytes) {
    switch (float_format) {
    case TYPE_RGB_FLT: return bytes == 1 ? TYPE_RGB_8 : TYPE_RGB_16;
    case TYPE_GRAY_FLT: return bytes == 1 ? TYPE_GRAY_8 : TYPE_GRAY_16;
    case TYPE_CMYK_FLT: return bytes == 1 ? TYPE_CMYK_8 : TYPE_CMYK_16;
    default: return 0;
    }
}

static fc_lcms_transform *fc_lcms_transform_make(fc_lcms_profile *in, fc_lcms_profile *out, int in_bytes, int out_bytes,
                                                 int intent, int bpc, int own, fc_lcms_report *report);

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
typedef struct fc_direct {
    const uint16_t *table;     // lcms2's, alive as long as its transform
    int32_t offset[4][256];    // the node's offset in the table along each input's axis
    int32_t step[4][256];      // to the next node (0 at the last one)
    int32_t rest[4][256];
    uint16_t *padded;          // a copy of the table with 4 samples after it (AVX2 reads 4 at once)
    int avx2;                  // evaluate with fc_direct_eval_avx2
} fc_direct;

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

/// `count` pixels of four 8-bit inks into three 16-bit samples each.
static void fc_direct_eval(const fc_direct *d, const uint8_t *s, uint16_t *out, size_t count) {
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

/// For an 8-bit CMYK-to-RGB transform served by fc_eval4_3: the tables of a direct
/// evaluation, if lcms2 evaluates the transform as one interpolation of one table a pixel
/// and the direct evaluation gives lcms2's results on the check samples; else NULL.
static fc_direct *fc_direct_make(const fc_lcms_transform *t) {
    uint8_t *samples = malloc((size_t)FC_CHECK_COUNT * 4);
    uint16_t *expected = malloc((size_t)FC_CHECK_COUNT * 3 * sizeof *expected);
    fc_direct *d = calloc(1, sizeof *d);
    if (samples == NULL || expected == NULL || d == NULL) goto fail;
    fc_check_samples(samples);
    fc_own_probe = 1;
    fc_probed_params = NULL;
    cmsDoTransform(t->handle, samples, expected, FC_CHECK_COUNT);
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

fc_lcms_transform *fc_lcms_transform_new(fc_lcms_profile *in, fc_lcms_profile *out,
                                         int intent, int bpc, fc_lcms_report *report) {
    return fc_lcms_transform_make(in, out, 0, 0, intent, bpc, 0, report);
}

fc_lcms_transform *fc_lcms_transform_new_samples(fc_lcms_profile *in, fc_lcms_profile *out, int in_bytes,
                                                 int intent, int bpc, fc_lcms_report *report) {
    if (in_bytes != 1 && in_bytes != 2) {
        if (report != NULL) { memset(report, 0, sizeof *report); fc_lcms_fail(report, "samples are 1 or 2 bytes"); }
        return NULL;
    }
    static int known = -1;
    int lcms2_only = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (lcms2_only < 0) {
        lcms2_only = getenv("FC_LCMS_LCMS2_INTERPOLATION") != NULL;
        __atomic_store_n(&known, lcms2_only, __ATOMIC_RELAXED);
    }
    return fc_lcms_transform_make(in, out, in_bytes, 2, intent, bpc, !lcms2_only, report);
}

fc_lcms_transform *fc_lcms_transform_new_samples_lcms2(fc_lcms_profile *in, fc_lcms_profile *out, int in_bytes,
                                                       int intent, int bpc, fc_lcms_report *report) {
    if (in_bytes != 1 && in_bytes != 2) {
        if (report != NULL) { memset(report, 0, sizeof *report); fc_lcms_fail(report, "samples are 1 or 2 bytes"); }
        return NULL;
    }
    return fc_lcms_transform_make(in, out, in_bytes, 2, intent, bpc, 0, report);
}

int fc_lcms_transform_uses_own_interpolation(const fc_lcms_transform *t) {
    if (!t->own_interpolation || t->input_bytes == 0) return 0;
    // One pixel through lcms2: does it call the interpolator?
    uint8_t in[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    uint16_t out[4];
    fc_own_probe = 1;
    cmsDoTransform(t->handle, in, out, 1);
    int called = fc_own_probe >= 2;
    fc_own_probe = 0;
    fc_probed_params = NULL;
    return called;
}

int fc_lcms_transform_made_own_table(const fc_lcms_transform *t) { return t->own_table; }

int fc_lcms_transform_evaluates_directly(const fc_lcms_transform *t) {
    return t->direct == NULL ? 0 : t->direct->avx2 ? 2 : 1;
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

static fc_lcms_transform *fc_lcms_transform_make(fc_lcms_profile *in, fc_lcms_profile *out, int in_bytes, int out_bytes,
                                                 int intent, int bpc, int own, fc_lcms_report *report) {
    if (report != NULL) memset(report, 0, sizeof *report);
    fc_lcms_transform *t = calloc(1, sizeof *t);
    if (t == NULL) { fc_lcms_fail(report, "out of memory"); return NULL; }
    static uint64_t next_id = 1;
    t->id = __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED);
    t->input_bytes = in_bytes;
    t->context = fc_lcms_context(&t->report);
    if (t->context == NULL) { free(t); fc_lcms_fail(report, "out of memory"); return NULL; }
    int in_format = fc_lcms_float_format(in->handle, &t->input_channels);
    int out_format = fc_lcms_float_format(out->handle, &t->output_channels);
    // The plug-in is the context's own: other transforms and the profiles' contexts keep
    // lcms2's interpolators.
    if (own && in_bytes && t->input_channels == 4 && t->output_channels == 3)
        t->own_interpolation = cmsPluginTHR(t->context, &fc_interpolation_plugin) ? 1 : 0;
    if (in_bytes) in_format = fc_lcms_integer_format(in_format, in_bytes);
    if (out_bytes) out_format = fc_lcms_integer_format(out_format, out_bytes);
    if (in_format == 0 || out_format == 0) {
        fc_lcms_fail(&t->report, "only RGB, grey and CMYK profiles are supported");
    } else if (intent < 0 || intent > 3) {
        fc_lcms_fail(&t->report, "unknown rendering intent");
    } else {
        // Messages lcms2 logs about the profiles' tags go to the profiles' reports: gather
        // them from there too.
        unsigned before_in = in->report.error_count, before_out = out->report.error_count;
        cmsUInt32Number flags = cmsFLAGS_NOCACHE | (bpc ? cmsFLAGS_BLACKPOINTCOMPENSATION : 0);
        fc_made_own_table = 0;
        t->handle = cmsCreateTransformTHR(t->context, in->handle, (cmsUInt32Number)in_format,
                                          out->handle, (cmsUInt32Number)out_format,
                                          (cmsUInt32Number)intent, flags);
        t->own_table = fc_made_own_table;
        fc_made_own_table = 0;
        if (t->handle == NULL && t->report.error_count == 0) {
            if (in->report.error_count > before_in) fc_lcms_fail(&t->report, in->report.message);
            else if (out->report.error_count > before_out) fc_lcms_fail(&t->report, out->report.message);
            else fc_lcms_fail(&t->report, "lcms2 could not make the transform");
        }
    }
    fc_lcms_copy(report, &t->report);
    if (t->handle == NULL) {
        fc_lcms_transform_free(t);
        return NULL;
    }
    if (t->own_interpolation && in_bytes == 1) t->direct = fc_direct_make(t);
    return t;
}

void fc_lcms_transform_free(fc_lcms_transform *t) {
    if (t == NULL) return;
    if (t->direct != NULL) free(t->direct->padded);
    free(t->direct);
    if (t->handle != NULL) cmsDeleteTransform(t->handle);
    cmsDeleteContext(t->context);
    free(t);
}

int fc_lcms_transform_input_channels(const fc_lcms_transform *t) { return t->input_channels; }
int fc_lcms_transform_output_channels(const fc_lcms_transform *t) { return t->output_channels; }

void fc_lcms_transform_run(const fc_lcms_transform *t, const float *src, float *dst, size_t count) {
    // cmsDoTransform takes a 32-bit count: long rows go in pieces.
    const size_t piece = 1u << 20;
    while (count > 0) {
        size_t n = count < piece ? count : piece;
        cmsDoTransform(t->handle, src, dst, (cmsUInt32Number)n);
        src += n * (size_t)t->input_channels;
        dst += n * (size_t)t->output_channels;
        count -= n;
    }
}

// MARK: - The memo of 8-bit samples

// An integer transform from 8-bit samples (a CMYK JPEG, through a LUT-based profile) costs
// lcms2 some 600 instructions a pixel (its 4-dimensional interpolation), and a photograph
// repeats colours: of a 14.7 MP one, 4.5 million distinct CMYK values. Each thread keeps a
// memo of the results, direct-mapped by a hash of the samples (131072 entries, 1.5 MiB),
// which answers about four pixels in ten there (a thread sees every other group of rows);
// the others go to lcms2 in one call. A memo entry is lcms2's own result for those
// samples, so the output is the same whichever thread, memo state or order: only the time
// changes.
enum { FC_MEMO_BITS = 17, FC_MEMO_BATCH = 1024 };

typedef struct {
    uint32_t key;            // the samples, packed
    uint16_t out[3];
    uint16_t valid;
} fc_memo_entry;

typedef struct fc_memo {
    struct fc_memo *next, *previous;  // fc_memos
    uint64_t transform;      // the id of the transform the entries are for
    fc_memo_entry entries[1u << FC_MEMO_BITS];
} fc_memo;

static pthread_key_t fc_memo_key;
static pthread_once_t fc_memo_once = PTHREAD_ONCE_INIT;
static int fc_memo_key_made;
// Every thread's memo, linked from here as well as from the thread's key: a memo is then
// reachable from a global for as long as it lives, whatever a leak checker makes of thread
// keys (LeakSanitizer once reported a live thread's memo as leaked). Unlinked and freed
// when its thread ends.
static pthread_mutex_t fc_memos_lock = PTHREAD_MUTEX_INITIALIZER;
static fc_memo *fc_memos;

static void fc_memo_free(void *memo) {
    fc_memo *m = memo;
    pthread_mutex_lock(&fc_memos_lock);
    if (m->previous) m->previous->next = m->next;
    else fc_memos = m->next;
    if (m->next) m->next->previous = m->previous;
    pthread_mutex_unlock(&fc_memos_lock);
    free(m);
}

static void fc_memo_make_key(void) { fc_memo_key_made = pthread_key_create(&fc_memo_key, fc_memo_free) == 0; }

/// This thread's memo, emptied when it last served another transform; NULL without memory.
static fc_memo *fc_memo_for(const fc_lcms_transform *t) {
    pthread_once(&fc_memo_once, fc_memo_make_key);
    if (!fc_memo_key_made) return NULL;
    fc_memo *m = pthread_getspecific(fc_memo_key);
    if (m == NULL) {
        m = calloc(1, sizeof *m);
        if (m == NULL) return NULL;
        pthread_mutex_lock(&fc_memos_lock);
        m->next = fc_memos;
        if (fc_memos) fc_memos->previous = m;
        fc_memos = m;
        pthread_mutex_unlock(&fc_memos_lock);
        if (pthread_setspecific(fc_memo_key, m) != 0) {
            fc_memo_free(m);
            return NULL;
        }
        m->transform = t->id;
    } else if (m->transform != t->id) {
        memset(m->entries, 0, sizeof m->entries);
        m->transform = t->id;
    }
    return m;
}

/// `count` pixels of `channels` (1 to 4) 8-bit samples into `outputs` (1 to 3) 16-bit ones:
/// from the memo where it has them, the rest through lcms2 in batches.
/// Inlined with constant `channels` and `outputs` for CMYK to RGB, the case that matters.
static inline __attribute__((always_inline))
void fc_memo_run_with(const fc_lcms_transform *t, fc_memo *m, const uint8_t *src, uint16_t *dst, size_t count,
                      const int channels, const int outputs) {
    uint8_t missed_in[FC_MEMO_BATCH * 4];
    uint16_t missed_out[FC_MEMO_BATCH * 3];
    uint32_t missed_at[FC_MEMO_BATCH], missed_slot[FC_MEMO_BATCH];
    size_t start = 0;
    while (start < count) {
        size_t n = count - start < FC_MEMO_BATCH ? count - start : FC_MEMO_BATCH;
        size_t misses = 0;
        for (size_t i = 0; i < n; i++) {
            const uint8_t *s = src + (start + i) * (size_t)channels;
            uint32_t key = 0;
            for (int c = 0; c < channels; c++) key |= (uint32_t)s[c] << (8 * c);
            uint32_t slot = (key * 2654435761u) >> (32 - FC_MEMO_BITS);
            const fc_memo_entry *e = &m->entries[slot];
            uint16_t *d = dst + (start + i) * (size_t)outputs;
            if (e->valid && e->key == key) {
                for (int c = 0; c < outputs; c++) d[c] = e->out[c];
            } else {
                memcpy(missed_in + misses * (size_t)channels, s, (size_t)channels);
                missed_at[misses] = (uint32_t)i;
                missed_slot[misses] = slot;
                misses++;
            }
        }
        if (misses > 0 && channels == 4 && outputs == 3 && t->direct != NULL) {
            fc_direct_eval(t->direct, missed_in, missed_out, misses);
        } else if (misses > 0) {
            cmsDoTransform(t->handle, missed_in, missed_out, (cmsUInt32Number)misses);
        }
        if (misses > 0) {
            for (size_t j = 0; j < misses; j++) {
                const uint16_t *o = missed_out + j * (size_t)outputs;
                uint16_t *d = dst + (start + missed_at[j]) * (size_t)outputs;
                fc_memo_entry *e = &m->entries[missed_slot[j]];
                const uint8_t *s = missed_in + j * (size_t)channels;
                uint32_t key = 0;
                for (int c = 0; c < channels; c++) key |= (uint32_t)s[c] << (8 * c);
                e->key = key;
                e->valid = 1;
                for (int c = 0; c < outputs; c++) { d[c] = o[c]; e->out[c] = o[c]; }
            }
        }
        start += n;
    }
}

static void fc_memo_run(const fc_lcms_transform *t, fc_memo *m, const uint8_t *src, uint16_t *dst, size_t count) {
    if (t->input_channels == 4 && t->output_channels == 3) {
        fc_memo_run_with(t, m, src, dst, count, 4, 3);
    } else {
        fc_memo_run_with(t, m, src, dst, count, t->input_channels, t->output_channels);
    }
}

void fc_lcms_transform_run_samples(const fc_lcms_transform *t, const void *src, uint16_t *dst, size_t count) {
    if (t->input_bytes == 1 && t->input_channels >= 1 && t->input_channels <= 4
        && t->output_channels >= 1 && t->output_channels <= 3) {
        fc_memo *m = fc_memo_for(t);
        if (m != NULL) {
            fc_memo_run(t, m, src, dst, count);
            return;
        }
    }
    const size_t piece = 1u << 20;
    size_t in_pixel = (size_t)t->input_channels * T_BYTES(cmsGetTransformInputFormat(t->handle));
    const uint8_t *s = src;
    while (count > 0) {
        size_t n = count < piece ? count : piece;
        cmsDoTransform(t->handle, s, dst, (cmsUInt32Number)n);
        s += n * in_pixel;
        dst += n * (size_t)t->output_channels;
        count -= n;
    }
}

void fc_lcms_transform_run_samples_rgb(const fc_lcms_transform *t, const void *src, float *red, float *green,
                                       float *blue, size_t count) {
    enum { PIECE = 1024 };
    uint16_t out[PIECE * 3];
    const float scale = 1.0f / 65535.0f;
    size_t in_pixel = (size_t)t->input_channels * (size_t)(t->input_bytes ? t->input_bytes : 4);
    const uint8_t *s = src;
    for (size_t start = 0; start < count; start += PIECE) {
        size_t n = count - start < PIECE ? count - start : PIECE;
        fc_lcms_transform_run_samples(t, s + start * in_pixel, out, n);
        for (size_t x = 0; x < n; x++) {
            red[start + x] = (float)out[3 * x] * scale;
            green[start + x] = (float)out[3 * x + 1] * scale;
            blue[start + x] = (float)out[3 * x + 2] * scale;
        }
    }
}
