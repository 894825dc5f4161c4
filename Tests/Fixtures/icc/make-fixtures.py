#!/usr/bin/env python3
"""Writes the images of the colour tests (ColourProfileRuleTests) with Pillow, which embeds an
ICC profile as given, whole or damaged:

  lut-only.png, placeholder.png, placeholder.jpg  a 24x16 image tagged with make-profiles.c's
      profiles (they read device (r, g, b) as the sRGB colour (b, g, r)); the JPEG at quality
      100 without subsampling.
  p3-*.jpg, p3-*.png  the same image tagged with Display P3 (Compact-ICC-Profiles'
      DisplayP3-v4.icc, CC0, 480 bytes, ten tags), whole (p3-whole) or damaged:
      desc-outside  the 'desc' tag's offset past the end (lcms2 drops the tag unsaid; the
                    colour tags are whole);
      rxyz-outside  the 'rXYZ' tag's offset past the end (the profile then has no matrix);
      cut-short     the last 100 bytes cut off (the header still says 480);
      tag-count     a tag count of 1000 (libpng refuses it in a PNG).

Pixel (x, y): r = 10 * x + 5, g = 15 * y + 7, b = (x * y * 7) % 256.

    python3 -m venv v && v/bin/pip install pillow && v/bin/python make-fixtures.py
"""
import struct

from PIL import Image

W, H = 24, 16
image = Image.new("RGB", (W, H))
image.putdata([(10 * x + 5, 15 * y + 7, (x * y * 7) % 256) for y in range(H) for x in range(W)])

lut_only = open("lut-only.icc", "rb").read()
placeholder = open("placeholder.icc", "rb").read()
image.save("lut-only.png", icc_profile=lut_only)
image.save("placeholder.png", icc_profile=placeholder)
image.save("placeholder.jpg", icc_profile=placeholder, quality=100, subsampling=0)

p3 = open("../../../../shared/conformance/icc/profiles/DisplayP3-v4.icc", "rb").read()


def tag_offset_past_end(profile, signature):
    b = bytearray(profile)
    count = struct.unpack(">I", b[128:132])[0]
    for k in range(count):
        at = 132 + 12 * k
        if b[at:at + 4] == signature:
            b[at + 4:at + 8] = struct.pack(">I", len(profile) + 64)
    return bytes(b)


damaged = {
    "whole": p3,
    "desc-outside": tag_offset_past_end(p3, b"desc"),
    "rxyz-outside": tag_offset_past_end(p3, b"rXYZ"),
    "cut-short": p3[:-100],
    "tag-count": p3[:128] + struct.pack(">I", 1000) + p3[132:],
}
for name, profile in damaged.items():
    image.save(f"p3-{name}.jpg", icc_profile=profile, quality=100, subsampling=0)
for name in ("whole", "cut-short", "tag-count"):
    image.save(f"p3-{name}.png", icc_profile=damaged[name])
