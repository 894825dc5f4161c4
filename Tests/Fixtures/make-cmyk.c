// Writes the CMYK and YCCK JPEG fixtures with libjpeg:
//   cc make-cmyk.c -ljpeg -o /tmp/make-cmyk && /tmp/make-cmyk
// Eight 16x16 patches of known ink (C, M, Y, K in percent) in a 64x32 image, quality 100,
// no subsampling. cmyk-adobe.jpg and ycck-adobe.jpg store the ink inverted (255 = no ink)
// with an Adobe marker, as Photoshop does; cmyk-plain.jpg stores it plainly, no marker.
#include <stdio.h>
#include <jpeglib.h>

static const int ink[8][4] = {
    {0, 0, 0, 0}, {100, 0, 0, 0}, {0, 100, 0, 0}, {0, 0, 100, 0},
    {0, 0, 0, 100}, {20, 40, 60, 10}, {75, 25, 50, 30}, {50, 50, 50, 50},
};

static void write(const char *path, J_COLOR_SPACE stored, int inverted, int adobe) {
    FILE *f = fopen(path, "wb");
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr err;
    c.err = jpeg_std_error(&err);
    jpeg_create_compress(&c);
    jpeg_stdio_dest(&c, f);
    c.image_width = 64;
    c.image_height = 32;
    c.input_components = 4;
    c.in_color_space = JCS_CMYK;
    jpeg_set_defaults(&c);
    jpeg_set_colorspace(&c, stored);
    jpeg_set_quality(&c, 100, TRUE);
    for (int i = 0; i < c.num_components; i++) c.comp_info[i].h_samp_factor = c.comp_info[i].v_samp_factor = 1;
    c.write_Adobe_marker = adobe;
    jpeg_start_compress(&c, TRUE);
    unsigned char row[64 * 4];
    for (int y = 0; y < 32; y++) {
        for (int x = 0; x < 64; x++) {
            const int *p = ink[(y / 16) * 4 + x / 16];
            for (int k = 0; k < 4; k++) {
                int v = (p[k] * 255 + 50) / 100;
                row[x * 4 + k] = (unsigned char)(inverted ? 255 - v : v);
            }
        }
        JSAMPROW r = row;
        jpeg_write_scanlines(&c, &r, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    fclose(f);
}

int main(void) {
    write("cmyk-adobe.jpg", JCS_CMYK, 1, 1);
    write("ycck-adobe.jpg", JCS_YCCK, 1, 1);
    write("cmyk-plain.jpg", JCS_CMYK, 0, 0);
    return 0;
}
