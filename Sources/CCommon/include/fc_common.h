// fc_common: what every filterchain C shim (fc_png, fc_jpeg, fc_webp, fc_tiff, fc_avif,
// fc_heif) shares with the others: the status each call returns and
// the metadata an encoder embeds. One status means one mapping to a typed error
// on the Swift side (CodecError+Status.swift), whatever the library.
#ifndef FC_COMMON_H
#define FC_COMMON_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    FC_OK = 0,
    FC_FAILED = 1,        // damaged, or the library refused: the reason is in the report
    FC_NO_MEMORY = 2,
    FC_UNSUPPORTED = 3,   // a valid file or request the library cannot serve: the reason is in the report
    FC_WRITE_FAILED = 4,  // writing the file failed: errno says why
    FC_LIMIT = 5,         // over one of the library's own limits: its words are in the report
} fc_status;


/// The metadata an encoder writes beside the pixels; a NULL pointer or a zero length: none.
typedef struct {
    const uint8_t *icc;
    size_t icc_length;
    const uint8_t *exif;   // a TIFF structure, without the "Exif\0\0" header
    size_t exif_length;
    const uint8_t *xmp;
    size_t xmp_length;
} fc_metadata;

#endif
