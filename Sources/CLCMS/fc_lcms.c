// See fc_lcms.h for why this file exists.
#include "fc_lcms.h"
#include "fc_lcms_engine.h"

#include <lcms2.h>
#include <lcms2_plugin.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

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

int fc_lcms_profile_description(fc_lcms_profile *p, char *text, size_t capacity) {
    if (capacity == 0) return 0;
    text[0] = 0;
    // lcms2 gives the multi-localised text as wide characters; each one below 0x80 is kept,
    // others become UTF-8 (a wchar_t holds a whole code point on Linux and macOS).
    cmsUInt32Number needed = cmsGetProfileInfo(p->handle, cmsInfoDescription, "en", "US", NULL, 0);
    if (needed == 0) return 0;
    wchar_t *wide = calloc(needed / sizeof(wchar_t) + 1, sizeof(wchar_t));
    if (wide == NULL) return 0;
    cmsGetProfileInfo(p->handle, cmsInfoDescription, "en", "US", wide, needed);
    size_t n = 0;
    for (size_t i = 0; wide[i] != 0 && i < needed / sizeof(wchar_t); i++) {
        uint32_t c = (uint32_t)wide[i];
        char bytes[4];
        size_t k;
        if (c < 0x80) { bytes[0] = (char)c; k = 1; }
        else if (c < 0x800) { bytes[0] = (char)(0xc0 | c >> 6); bytes[1] = (char)(0x80 | (c & 0x3f)); k = 2; }
        else if (c < 0x10000) { bytes[0] = (char)(0xe0 | c >> 12); bytes[1] = (char)(0x80 | ((c >> 6) & 0x3f)); bytes[2] = (char)(0x80 | (c & 0x3f)); k = 3; }
        else if (c < 0x110000) { bytes[0] = (char)(0xf0 | c >> 18); bytes[1] = (char)(0x80 | ((c >> 12) & 0x3f)); bytes[2] = (char)(0x80 | ((c >> 6) & 0x3f)); bytes[3] = (char)(0x80 | (c & 0x3f)); k = 4; }
        else continue;
        if (n + k + 1 > capacity) break;
        memcpy(text + n, bytes, k);
        n += k;
    }
    text[n] = 0;
    free(wide);
    return n > 0;
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
    fc_direct *direct;       // 8-bit CMYK evaluated straight from lcms2's table (or NULL)
    int own_table;           // its table was made by the optimisation plug-in
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
    return fc_lcms_engine_interpolates(t->handle);
}

int fc_lcms_transform_made_own_table(const fc_lcms_transform *t) { return t->own_table; }

int fc_lcms_transform_evaluates_directly(const fc_lcms_transform *t) {
    return t->direct == NULL ? 0 : fc_direct_uses_avx2(t->direct) ? 2 : 1;
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
        t->own_interpolation = cmsPluginTHR(t->context, fc_lcms_engine_plugins()) ? 1 : 0;
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
        fc_lcms_engine_begin_transform();
        t->handle = cmsCreateTransformTHR(t->context, in->handle, (cmsUInt32Number)in_format,
                                          out->handle, (cmsUInt32Number)out_format,
                                          (cmsUInt32Number)intent, flags);
        t->own_table = fc_lcms_engine_made_table();
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
    if (t->own_interpolation && in_bytes == 1) t->direct = fc_direct_make(t->handle);
    return t;
}

void fc_lcms_transform_free(fc_lcms_transform *t) {
    if (t == NULL) return;
    fc_direct_free(t->direct);
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

// An integer transform from 8-bit samples (a CMYK JPEG, through a LUT-based profile, when
// fc_direct_eval cannot take it) costs lcms2 some 600 instructions a pixel (its
// 4-dimensional interpolation), and a photograph
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
        if (misses > 0) {
            cmsDoTransform(t->handle, missed_in, missed_out, (cmsUInt32Number)misses);
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
    // 8-bit CMYK evaluated directly (fc_direct_eval, some 25 cycles a pixel) needs no memo:
    // a lookup in it costs about as much (a hash and a miss in 1.5 MiB), and answers four in
    // ten. Without it W17 takes 7% less CPU, the same bytes out, and 1.5 MiB less a thread.
    if (t->input_bytes == 1 && t->input_channels == 4 && t->output_channels == 3 && t->direct != NULL) {
        fc_direct_eval(t->direct, src, dst, count);
        return;
    }
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
