#!/usr/bin/env python3
"""Writes samples/gamma-stripes.png: the left half alternates black and white rows, one pixel
each; the right half is the sRGB grey (188) whose light equals their average. Downscaled in
sRGB the stripes turn to grey 128, darker than the right half; in linear light they match it.
Run from the repository root: python3 samples/make-gamma-demo.py"""
import struct, zlib

W, H = 480, 240
rows = []
for y in range(H):
    stripe = 255 if y % 2 == 0 else 0
    row = bytes([stripe] * (W // 2) + [188] * (W - W // 2))
    rows.append(b"\x00" + row)

def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 0, 0, 0, 0))
png += chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + chunk(b"IEND", b"")
with open("samples/gamma-stripes.png", "wb") as f:
    f.write(png)
