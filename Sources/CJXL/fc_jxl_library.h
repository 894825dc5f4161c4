// libjxl and libjxl_threads (Debian: libjxl0.7): the functions the shim calls, through
// `fc_libjxl` and `fc_libjxl_threads` (fc_dynamic.h: loaded when first needed on Linux,
// linked on macOS). Call `fc_jxl_library_error` before the first use.
#ifndef FC_JXL_LIBRARY_H
#define FC_JXL_LIBRARY_H

#include <jxl/decode.h>
#include <jxl/encode.h>
#include <jxl/thread_parallel_runner.h>
#include "fc_dynamic.h"

#define FC_JXL_FUNCTIONS(X) \
    X(JxlDecoderCreate) \
    X(JxlDecoderDestroy) \
    X(JxlDecoderSubscribeEvents) \
    X(JxlDecoderSetParallelRunner) \
    X(JxlDecoderSetInput) \
    X(JxlDecoderCloseInput) \
    X(JxlDecoderProcessInput) \
    X(JxlDecoderGetBasicInfo) \
    X(JxlDecoderGetICCProfileSize) \
    X(JxlDecoderGetColorAsICCProfile) \
    X(JxlDecoderImageOutBufferSize) \
    X(JxlDecoderSetImageOutBuffer) \
    X(JxlDecoderGetFrameHeader) \
    X(JxlDecoderSetDecompressBoxes) \
    X(JxlDecoderGetBoxType) \
    X(JxlDecoderSetBoxBuffer) \
    X(JxlDecoderReleaseBoxBuffer) \
    X(JxlEncoderCreate) \
    X(JxlEncoderDestroy) \
    X(JxlEncoderSetParallelRunner) \
    X(JxlEncoderInitBasicInfo) \
    X(JxlEncoderSetBasicInfo) \
    X(JxlEncoderSetICCProfile) \
    X(JxlEncoderSetColorEncoding) \
    X(JxlColorEncodingSetToSRGB) \
    X(JxlEncoderFrameSettingsCreate) \
    X(JxlEncoderSetFrameDistance) \
    X(JxlEncoderSetFrameLossless) \
    X(JxlEncoderFrameSettingsSetOption) \
    X(JxlEncoderInitFrameHeader) \
    X(JxlEncoderSetFrameHeader) \
    X(JxlEncoderAddImageFrame) \
    X(JxlEncoderUseBoxes) \
    X(JxlEncoderAddBox) \
    X(JxlEncoderCloseBoxes) \
    X(JxlEncoderCloseInput) \
    X(JxlEncoderProcessOutput) \
    X(JxlEncoderGetError) \
    X(JxlEncoderStoreJPEGMetadata) \
    X(JxlEncoderAddJPEGFrame)

#define FC_JXL_THREADS_FUNCTIONS(X) \
    X(JxlThreadParallelRunner) \
    X(JxlThreadParallelRunnerCreate) \
    X(JxlThreadParallelRunnerDestroy)

struct fc_jxl_functions {
    FC_JXL_FUNCTIONS(FC_DYNAMIC_SLOT)
};
struct fc_jxl_threads_functions {
    FC_JXL_THREADS_FUNCTIONS(FC_DYNAMIC_SLOT)
};
extern struct fc_jxl_functions fc_libjxl;
extern struct fc_jxl_threads_functions fc_libjxl_threads;

#endif
