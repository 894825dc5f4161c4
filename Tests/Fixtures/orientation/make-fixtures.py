#!/usr/bin/env python3
"""Writes JPEG image layers stored on their side (EXIF Orientation 6: turned 90 degrees
clockwise to be upright), for ImageLayerOrientationTests, with Pillow from samples/rocket.jpg
(public domain):

  layer-420.jpg          640x427 as stored (427x640 upright), quality 90, 4:2:0
  layer-422.jpg          161x107, 4:2:2
  layer-progressive.jpg  161x107, 4:2:0, progressive
  layer-p3.jpg           161x107, 4:4:4, with Compact-ICC-Profiles' Display P3 profile (CC0)

    python3 -m venv v && v/bin/pip install pillow && v/bin/python make-fixtures.py
"""
from PIL import Image

rocket = Image.open("../../../samples/rocket.jpg").convert("RGB")


def save(image, name, **options):
    exif = Image.Exif()
    exif[0x0112] = 6
    image.save(name, exif=exif, **options)


save(rocket.crop((0, 0, 640, 427)), "layer-420.jpg", quality=90, subsampling=2)
small = rocket.crop((200, 100, 361, 207))
save(small, "layer-422.jpg", quality=90, subsampling=1)
save(small, "layer-progressive.jpg", quality=90, subsampling=2, progressive=True)
p3 = open("../../../../shared/conformance/icc/profiles/DisplayP3-v4.icc", "rb").read()
save(small, "layer-p3.jpg", quality=90, subsampling=0, icc_profile=p3)
