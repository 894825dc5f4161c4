// libavif (Debian: libavif15): the functions the shim calls, through `fc_libavif` (see fc_dynamic.h: loaded when
// first needed on Linux, linked on macOS). Call `fc_avif_library_error` before the first use.
#ifndef FC_AVIF_LIBRARY_H
#define FC_AVIF_LIBRARY_H

#include <avif/avif.h>
#include "fc_dynamic.h"

#define FC_AVIF_FUNCTIONS(X) \
    X(avifCodecName) \
    X(avifCropRectConvertCleanApertureBox) \
    X(avifDecoderCreate) \
    X(avifDecoderDestroy) \
    X(avifDecoderNextImage) \
    X(avifDecoderNthImageTiming) \
    X(avifEncoderAddImage) \
    X(avifEncoderFinish) \
    X(avifDecoderParse) \
    X(avifDecoderSetIOMemory) \
    X(avifDiagnosticsClearError) \
    X(avifEncoderCreate) \
    X(avifEncoderDestroy) \
    X(avifEncoderWrite) \
    X(avifImageAllocatePlanes) \
    X(avifImageCreate) \
    X(avifImageCreateEmpty) \
    X(avifImageDestroy) \
    X(avifImageRGBToYUV) \
    X(avifImageSetMetadataExif) \
    X(avifImageSetMetadataXMP) \
    X(avifImageSetProfileICC) \
    X(avifImageSetViewRect) \
    X(avifImageYUVToRGB) \
    X(avifPixelFormatToString) \
    X(avifRGBImageSetDefaults) \
    X(avifRWDataFree) \
    X(avifResultToString)

struct fc_avif_functions {
    FC_AVIF_FUNCTIONS(FC_DYNAMIC_SLOT)
};
extern struct fc_avif_functions fc_libavif;

#endif
