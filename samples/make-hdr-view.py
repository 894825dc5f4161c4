"""Writes samples/filters/hdr-edit-view.jpg: the SDR image of samples/filters/hdr-edit.jpg
beside its HDR rendition two stops darker (libultrahdr's reconstruction through pyvips 8.18,
divided by 4 and encoded as sRGB), so that a screen without HDR shows where the map boosts.
Run from the repository root in the venv of Tests/Oracle: python samples/make-hdr-view.py"""
import pyvips

path = "samples/filters/hdr-edit.jpg"
sdr = pyvips.Image.new_from_file(path)
hdr = pyvips.Image.uhdrload(path).uhdr2scRGB()
sdr.join((hdr[0:3] / 4).colourspace("srgb"), "horizontal", shim=8, background=[255, 255, 255]) \
    .write_to_file("samples/filters/hdr-edit-view.jpg[Q=85,strip]")
