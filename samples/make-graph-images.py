#!/usr/bin/env python3
"""Writes the extra images of the graph samples:
- samples/logo.png: a 400 x 120 RGBA logo, a translucent dark plate with opaque white text,
  laid over photographs by samples/chains/watermark.json;
- samples/blend-layer.png: a 480 x 320 RGB layer for the blend-mode grid, hue across
  (red, yellow, green, cyan, blue, magenta, red) and lightness down (light at the top,
  full colour in the middle, dark at the bottom), so every mode shows what it does with
  light, mid and dark values of every hue.
Needs Pillow (for documentation only; filterchain does not use it). Run from the repository
root: python3 samples/make-graph-images.py"""
import colorsys
from PIL import Image, ImageDraw, ImageFont

logo = Image.new("RGBA", (400, 120), (0, 0, 0, 0))
draw = ImageDraw.Draw(logo)
draw.rounded_rectangle((0, 0, 399, 119), radius=24, fill=(20, 24, 40, 150))
font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", 56)
draw.text((200, 60), "filterchain", font=font, fill=(255, 255, 255, 255), anchor="mm")
logo.save("samples/logo.png", optimize=True)

W, H = 480, 320
layer = Image.new("RGB", (W, H))
pixels = layer.load()
for y in range(H):
    lightness = 0.9 - 0.8 * y / (H - 1)
    for x in range(W):
        r, g, b = colorsys.hls_to_rgb(x / W, lightness, 1.0)
        pixels[x, y] = (round(r * 255), round(g * 255), round(b * 255))
layer.save("samples/blend-layer.png", optimize=True)
