// Symbol counts of the Huffman coding a sequential JPEG's coefficients need: DC size
// categories and AC run/size symbols (with EOB 0x00 and ZRL 0xF0), luma and chroma apart,
// for every JPEG named on the command line, summed. Prints JSON:
// {"dc": [[luma 12 counts], [chroma 12]], "ac": [[luma 256], [chroma 256]]}.
// Build: cc -O2 huffstats.c -ljpeg -o huffstats
#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>

static long dc[2][12], ac[2][256];

static int category(int v) {
    int a = v < 0 ? -v : v, n = 0;
    while (a) { n++; a >>= 1; }
    return n;
}

int main(int argc, char **argv) {
    static const int zigzag[64] = {0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48,
        41, 34, 27, 20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59,
        52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63};
    for (int f = 1; f < argc; f++) {
        FILE *file = fopen(argv[f], "rb");
        if (!file) { perror(argv[f]); return 1; }
        struct jpeg_decompress_struct cinfo;
        struct jpeg_error_mgr err;
        cinfo.err = jpeg_std_error(&err);
        jpeg_create_decompress(&cinfo);
        jpeg_stdio_src(&cinfo, file);
        jpeg_read_header(&cinfo, TRUE);
        jvirt_barray_ptr *arrays = jpeg_read_coefficients(&cinfo);
        for (int c = 0; c < cinfo.num_components; c++) {
            jpeg_component_info *ci = &cinfo.comp_info[c];
            int t = c == 0 ? 0 : 1, previous = 0;
            for (JDIMENSION y = 0; y < ci->height_in_blocks; y++) {
                JBLOCKARRAY row = (*cinfo.mem->access_virt_barray)((j_common_ptr)&cinfo, arrays[c], y, 1, FALSE);
                for (JDIMENSION x = 0; x < ci->width_in_blocks; x++) {
                    JCOEF *b = row[0][x];
                    dc[t][category(b[0] - previous)]++;
                    previous = b[0];
                    int run = 0;
                    for (int k = 1; k < 64; k++) {
                        int v = b[zigzag[k]];
                        if (!v) { run++; continue; }
                        while (run > 15) { ac[t][0xF0]++; run -= 16; }
                        ac[t][(run << 4) | category(v)]++;
                        run = 0;
                    }
                    if (run) ac[t][0x00]++;
                }
            }
        }
        jpeg_destroy_decompress(&cinfo);
        fclose(file);
    }
    printf("{\"dc\": [");
    for (int t = 0; t < 2; t++) {
        printf("%s[", t ? ", " : "");
        for (int i = 0; i < 12; i++) printf("%s%ld", i ? ", " : "", dc[t][i]);
        printf("]");
    }
    printf("], \"ac\": [");
    for (int t = 0; t < 2; t++) {
        printf("%s[", t ? ", " : "");
        for (int i = 0; i < 256; i++) printf("%s%ld", i ? ", " : "", ac[t][i]);
        printf("]");
    }
    printf("]}\n");
    return 0;
}
