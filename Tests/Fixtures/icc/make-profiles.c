// Writes two RGB profiles with lcms2, for the rule that a source profile which cannot describe
// an output is not written back (README, "Colour management", --output-profile source):
//   cc make-profiles.c -llcms2 -o /tmp/make-profiles && /tmp/make-profiles
//
// Both read device RGB (r, g, b) as the sRGB colour (b, g, r): an AToB0 table ('mAB') of
// identity A curves, a 2x2x2 CLUT that swaps the first and third channels (exact: a linear
// map), sRGB's curve as M curves and sRGB's D50 matrix into the XYZ connection space.
//   lut-only.icc     an input profile with that AToB0 alone: no output direction.
//   placeholder.icc  the same with a BToA0 of identity curves, which does not invert it: as
//                    jpegli's XYB profile, whose BToA0 is a no-op placeholder.
// Checks that lcms2 (relative colorimetric, unoptimised) reads both as the sRGB colour
// (b, g, r) to within a level, and prints the largest difference.
#include <lcms2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static cmsInt32Number swap_first_and_third(const cmsUInt16Number in[], cmsUInt16Number out[], void *cargo) {
    (void)cargo;
    out[0] = in[2];
    out[1] = in[1];
    out[2] = in[0];
    return TRUE;
}

static cmsHPROFILE make(int with_placeholder) {
    cmsHPROFILE h = cmsCreateProfilePlaceholder(NULL);
    cmsSetProfileVersion(h, 4.3);
    cmsSetDeviceClass(h, with_placeholder ? cmsSigDisplayClass : cmsSigInputClass);
    cmsSetColorSpace(h, cmsSigRgbData);
    cmsSetPCS(h, cmsSigXYZData);
    cmsSetHeaderRenderingIntent(h, INTENT_PERCEPTUAL);

    cmsMLU *desc = cmsMLUalloc(NULL, 1), *cprt = cmsMLUalloc(NULL, 1);
    cmsMLUsetASCII(desc, "en", "US", with_placeholder ? "filterchain test: AToB0 with a placeholder BToA0" : "filterchain test: AToB0 only");
    cmsMLUsetASCII(cprt, "en", "US", "CC0 1.0 (filterchain's test fixtures)");
    cmsWriteTag(h, cmsSigProfileDescriptionTag, desc);
    cmsWriteTag(h, cmsSigCopyrightTag, cprt);
    cmsWriteTag(h, cmsSigMediaWhitePointTag, cmsD50_XYZ());

    cmsToneCurve *identity = cmsBuildGamma(NULL, 1.0);
    cmsToneCurve *ids[3] = { identity, identity, identity };
    double srgb_params[5] = { 2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045 };
    cmsToneCurve *srgb = cmsBuildParametricToneCurve(NULL, 4, srgb_params);
    cmsToneCurve *srgbs[3] = { srgb, srgb, srgb };
    // sRGB's primaries adapted to D50 (Bradford), in the tag's XYZ encoding: 1.0 is 0x8000 of
    // 0xFFFF (u1Fixed15), so the pipeline's XYZ is the colorimetric value x 32768/65535.
    const double m[9] = { 0.4360747, 0.3850649, 0.1430804,
                          0.2225045, 0.7168786, 0.0606169,
                          0.0139322, 0.0971045, 0.7141733 };
    double scaled[9];
    for (int i = 0; i < 9; i++) scaled[i] = m[i] * 32768.0 / 65535.0;

    cmsPipeline *a2b = cmsPipelineAlloc(NULL, 3, 3);
    cmsStage *clut = cmsStageAllocCLut16bit(NULL, 2, 3, 3, NULL);
    cmsStageSampleCLut16bit(clut, swap_first_and_third, NULL, 0);
    cmsPipelineInsertStage(a2b, cmsAT_END, cmsStageAllocToneCurves(NULL, 3, ids));
    cmsPipelineInsertStage(a2b, cmsAT_END, clut);
    cmsPipelineInsertStage(a2b, cmsAT_END, cmsStageAllocToneCurves(NULL, 3, srgbs));
    cmsPipelineInsertStage(a2b, cmsAT_END, cmsStageAllocMatrix(NULL, 3, 3, scaled, NULL));
    cmsPipelineInsertStage(a2b, cmsAT_END, cmsStageAllocToneCurves(NULL, 3, ids));
    cmsWriteTag(h, cmsSigAToB0Tag, a2b);
    if (with_placeholder) {
        cmsPipeline *b2a = cmsPipelineAlloc(NULL, 3, 3);
        cmsPipelineInsertStage(b2a, cmsAT_END, cmsStageAllocToneCurves(NULL, 3, ids));
        cmsWriteTag(h, cmsSigBToA0Tag, b2a);
        cmsPipelineFree(b2a);
    }
    cmsPipelineFree(a2b);
    cmsFreeToneCurve(identity);
    cmsFreeToneCurve(srgb);
    cmsMLUfree(desc);
    cmsMLUfree(cprt);
    return h;
}

static int check(const char *path) {
    cmsHPROFILE in = cmsOpenProfileFromFile(path, "r"), out = cmsCreate_sRGBProfile();
    cmsHTRANSFORM t = cmsCreateTransform(in, TYPE_RGB_8, out, TYPE_RGB_8, INTENT_RELATIVE_COLORIMETRIC, cmsFLAGS_NOOPTIMIZE);
    if (!t) { fprintf(stderr, "%s: lcms2 makes no transform from it\n", path); return 1; }
    int worst = 0;
    for (int r = 0; r < 256; r += 5)
        for (int g = 0; g < 256; g += 5)
            for (int b = 0; b < 256; b += 5) {
                unsigned char s[3] = { (unsigned char)r, (unsigned char)g, (unsigned char)b }, d[3];
                cmsDoTransform(t, s, d, 1);
                int e[3] = { abs(d[0] - b), abs(d[1] - g), abs(d[2] - r) };
                for (int k = 0; k < 3; k++) if (e[k] > worst) worst = e[k];
            }
    printf("%s: read as sRGB (b, g, r) to within %d levels\n", path, worst);
    cmsDeleteTransform(t);
    cmsCloseProfile(in);
    cmsCloseProfile(out);
    return worst > 1;
}

int main(void) {
    cmsHPROFILE a = make(0), b = make(1);
    if (!cmsSaveProfileToFile(a, "lut-only.icc") || !cmsSaveProfileToFile(b, "placeholder.icc")) return 1;
    cmsCloseProfile(a);
    cmsCloseProfile(b);
    return check("lut-only.icc") | check("placeholder.icc");
}
