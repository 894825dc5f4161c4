// The HEVC decoder fc_heif registers on each of its libheif contexts (heif_register_decoder:
// per context, so nothing global changes): libde265, as libheif's own plugin drives it, with
// worker threads of the caller's choosing (libheif 1.15 always starts one), and a probe mode
// that reads an image's SPS (is it monochrome?) without decoding.
#ifndef FC_HEIF_HEVC_H
#define FC_HEIF_HEVC_H

#include <libheif/heif_plugin.h>

typedef struct {
    int probing;        // record the SPS of the first stream pushed, decode nothing
    int chroma_format;  // what the probe found: 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4; -1 unknown
    int threads;        // libde265 worker threads for streams decoded on the calling thread
} fc_heif_hevc_call;

/// The plugin, and the call the current thread is making (NULL on libheif's tile threads,
/// which then decode with one worker thread, as libheif's plugin does).
extern const struct heif_decoder_plugin fc_heif_hevc_plugin;
void fc_heif_hevc_begin(fc_heif_hevc_call *call);
void fc_heif_hevc_end(void);

/// libde265 loaded and initialised for our decoder (once); 0 when it could not be.
int fc_de265_ready(void);

#endif
