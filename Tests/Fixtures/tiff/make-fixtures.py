#!/usr/bin/env python3
"""Writes the TIFF fixtures of TIFFPlanarTests and TIFFBigTests with tifffile (an encoder
independent of libtiff), from formulas the tests compute again:

  planar-DEPTH-LAYOUT-ALPHA.tif  37x29 RGB or RGBA, PlanarConfiguration 2 (one plane per
      sample), DEPTH 8 or 16 bits, LAYOUT tiles (16x16: three tiles across, the last ones
      partial) or strips (8 rows), ALPHA none, unassociated or associated (the colour stored
      premultiplied: round(s * a / max)), LZW with the horizontal predictor.
  big-BYTEORDER.tif  37x29 RGB 8-bit BigTIFF (version 43), II or MM, deflate, with a
      resolution of 300 dpi and a Software tag.

Sample s of channel c at (x, y): 8-bit (x*37 + y*91 + c*53 + (x*y) % 17) % 256, 16-bit
(x*1237 + y*4091 + c*7919 + (x*y*31) % 257) % 65536; alpha is channel 3.

    python3 -m venv v && v/bin/pip install numpy tifffile imagecodecs pyvips-binary pyvips
    v/bin/python make-fixtures.py
"""
import numpy as np
import tifffile

W, H = 37, 29


def sample(depth, c):
    y, x = np.mgrid[0:H, 0:W].astype(np.int64)
    if depth == 8:
        return (x * 37 + y * 91 + c * 53 + (x * y) % 17) % 256
    return (x * 1237 + y * 4091 + c * 7919 + (x * y * 31) % 257) % 65536


for depth in (8, 16):
    top = 255 if depth == 8 else 65535
    dtype = np.uint8 if depth == 8 else np.uint16
    for layout in ("tiles", "strips"):
        for alpha in ("none", "unassociated", "associated"):
            planes = [sample(depth, c) for c in range(3 if alpha == "none" else 4)]
            if alpha == "associated":
                a = planes[3]
                planes = [(s * a + top // 2) // top for s in planes[:3]] + [a]
            data = np.stack(planes).astype(dtype)
            extra = {"none": None, "unassociated": ["unassalpha"], "associated": ["assocalpha"]}[alpha]
            where = {"tile": (16, 16)} if layout == "tiles" else {"rowsperstrip": 8}
            tifffile.imwrite(f"planar-{depth}-{layout}-{alpha}.tif", data, photometric="rgb", planarconfig="separate",
                             extrasamples=extra, compression="lzw", predictor=True, **where)

for order, name in (("<", "II"), (">", "MM")):
    data = np.stack([sample(8, c) for c in range(3)], axis=-1).astype(np.uint8)
    tifffile.imwrite(f"big-{name}.tif", data, bigtiff=True, byteorder=order, photometric="rgb",
                     compression="zlib", resolution=(300, 300), resolutionunit="INCH", software="make-fixtures.py")

# References for Pillow's planar files (copied from Pillow's Tests/images): tifffile's decode,
# the samples as stored (associated alpha not divided out), as 16-bit PNG (pyvips writes it).
import pyvips  # noqa: E402

for name in ("tiff_tiled_planar_16bit_RGB", "tiff_tiled_planar_16bit_RGBa"):
    data = tifffile.imread(name + ".tiff")
    if data.shape[0] in (3, 4):
        data = np.moveaxis(data, 0, -1)
    data = np.ascontiguousarray(data)
    image = pyvips.Image.new_from_memory(data.tobytes(), data.shape[1], data.shape[0], data.shape[2], "ushort")
    image.copy(interpretation="rgb16").pngsave(name + ".stored.png")
