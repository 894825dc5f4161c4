// Huffman decoding of a plain baseline scan, on two threads (fc_jpeg.c's entropy thread and
// a helper), for the cases where it gives exactly libjpeg's blocks; fc_jpeg.c drives it.
//
// A plain scan: sequential Huffman coding, 8-bit samples, one scan holding every component,
// no restart interval. The entropy-coded bytes are read once, their stuffed zero bytes
// removed. The entropy thread decodes MCUs in order; once the scan is large enough, a helper
// thread decodes its second half at the same time, starting at an arbitrary byte as if an
// MCU began there. A decoder started at the wrong bit falls into step with the true decoding
// within a few dozen blocks (a Huffman code's end is soon the same bit either way); from the
// first MCU where both threads start at the same bit, the helper's MCUs are the true ones
// (the decoding is a function of the bit position alone), with DC differences that the
// entropy thread turns into DC values with its own predictors.
//
// Every MCU handed over is the one libjpeg-turbo's decode_mcu would produce (same tables,
// same coefficient order, including its clamping of runs past the 63rd coefficient to it,
// and its DC arithmetic). Anything else ends this decoder at that MCU: a code no table
// holds, data that ends before the last MCU, a marker inside the scan. The caller then has
// libjpeg decode from there, with libjpeg's own warnings and its own handling.
#ifndef FC_JPEG_HUFFMAN_H
#define FC_JPEG_HUFFMAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jpeglib.h>

typedef struct fc_huff_scan fc_huff_scan;

/// A decoder for `cinfo`'s scan, from a decompressor after jpeg_start_decompress whose
/// source is at the first byte of the scan; NULL when the scan is not plain (see above) or
/// memory is short. `split_mcus`: the least MCUs for which the helper thread is used (0:
/// never). The tables are copied; nothing of `cinfo` is kept.
fc_huff_scan *fc_huff_scan_new(j_decompress_ptr cinfo, size_t split_mcus);

/// Reads the scan's bytes: from `data` (size bytes) starting at `offset`, or, when `file`
/// is not NULL, from that file at `offset`. Starts the helper thread. 0 when the bytes
/// cannot be read (the caller then decodes with libjpeg, which reports why).
int fc_huff_scan_load(fc_huff_scan *s, const uint8_t *data, size_t size, FILE *file, uint64_t offset);

/// The next MCU's blocks (zeroed by the caller; only non-zero coefficients are written).
/// 0: this MCU is not one this decoder can give (the blocks are then zeroed again); every
/// later call returns 0 too.
int fc_huff_scan_next(fc_huff_scan *s, JBLOCKROW *blocks);

/// After the last MCU: whether the scan ended as libjpeg expects it to, without a warning
/// (at most the last byte's padding bits left, then EOI).
int fc_huff_scan_ended_cleanly(const fc_huff_scan *s);

/// Whether the helper thread's MCUs were used (for tests).
int fc_huff_scan_was_split(const fc_huff_scan *s);

/// Memory for megabytes written once: from 1 MiB, aligned to 2 MiB and offered to the kernel
/// for transparent huge pages (a page fault per 2 MiB rather than per 4 KiB). Freed by free().
void *fc_jpeg_big_alloc(size_t size);

/// Stops the helper thread and frees everything.
void fc_huff_scan_free(fc_huff_scan *s);

#endif
