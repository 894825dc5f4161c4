// libtiff 4.5 or newer (Debian: libtiff6): the functions the shim calls, through `fc_libtiff` (see fc_dynamic.h: loaded when
// first needed on Linux, linked on macOS). Call `fc_tiff_library_error` before the first use.
#ifndef FC_TIFF_LIBRARY_H
#define FC_TIFF_LIBRARY_H

#include <tiffio.h>
#include "fc_dynamic.h"

#define FC_TIFF_FUNCTIONS(X) \
    X(TIFFClientOpenExt) \
    X(TIFFClose) \
    X(TIFFComputeStrip) \
    X(TIFFComputeTile) \
    X(TIFFFindCODEC) \
    X(TIFFFindField) \
    X(TIFFGetField) \
    X(TIFFGetFieldDefaulted) \
    X(TIFFIsCODECConfigured) \
    X(TIFFIsTiled) \
    X(TIFFOpenOptionsAlloc) \
    X(TIFFOpenOptionsFree) \
    X(TIFFOpenOptionsSetErrorHandlerExtR) \
    X(TIFFOpenOptionsSetMaxSingleMemAlloc) \
    X(TIFFOpenOptionsSetWarningHandlerExtR) \
    X(TIFFReadEncodedStrip) \
    X(TIFFReadEncodedTile) \
    X(TIFFSetField) \
    X(TIFFTileRowSize) \
    X(TIFFTileSize) \
    X(TIFFWriteDirectory) \
    X(TIFFWriteEncodedStrip) \
    X(TIFFWriteRawStrip)

struct fc_tiff_functions {
    FC_TIFF_FUNCTIONS(FC_DYNAMIC_SLOT)
};
extern struct fc_tiff_functions fc_libtiff;

#endif
