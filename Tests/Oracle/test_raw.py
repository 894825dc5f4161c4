"""Camera RAW against LibRaw's own processing: rawpy (PyPI; LibRaw 0.21 inside, the same lineage
as Debian's 0.20 that filterchain loads) develops each DNG with the settings filterchain's
options mirror, and the two must agree in 16-bit linear light.

The DNGs are made here (rawfixtures.py: a photograph turned into what a sensor records, written by
pidng, uncompressed or as lossless JPEG): every 2x2 pattern, 12 and 14 bits, black levels, odd
sizes, orientations. filterchain writes a 16-bit TIFF in sRGB (what `apply` writes for a RAW);
its samples are decoded with the sRGB function and compared with rawpy's linear sRGB
(gamma=(1, 1)). The issue's bar is 45 dB PSNR; the figures are printed (pytest -s).

The mapping, as README's "Camera RAW" shows it:
  --raw-wb camera | auto | daylight   use_camera_wb=True | use_auto_wb=True | neither
  --raw-demosaic ahd | dcb | dht | aahd | ppg | linear   demosaic_algorithm=AHD | DCB | DHT | AAHD | PPG | LINEAR
  --raw-highlights clip | unclip | blend | rebuild   highlight_mode=Clip | Ignore | Blend | Reconstruct(5)
  half size (a chain whose first step halves the image, fast)   half_size=True
and always no_auto_bright=True, output_bps=16, gamma=(1, 1).

Run from the package root after `swift build`: python3 -m pytest Tests/Oracle -q
(FILTERCHAIN_BIN: the folder of the built programs, default .build/debug).
"""

import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import pytest

rawpy = pytest.importorskip("rawpy") if not os.environ.get("CI") else __import__("rawpy")
tifffile = pytest.importorskip("tifffile") if not os.environ.get("CI") else __import__("tifffile")
pytest.importorskip("pidng") if not os.environ.get("CI") else __import__("pidng")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rawfixtures  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("FILTERCHAIN_BIN", os.path.join(ROOT, ".build", "debug"))
EMPTY = {"version": 1, "filters": []}
BAR = 45.0


def filterchain(*args):
    return subprocess.run([os.path.join(BIN, "filterchain"), *args], capture_output=True, text=True)


def develop(dng, folder, *options, chain=EMPTY):
    path = os.path.join(folder, "chain.json")
    with open(path, "w") as f:
        json.dump(chain, f)
    out = os.path.join(folder, "out.tif")
    r = filterchain("apply", path, dng, out, "--depth", "16", *options)
    assert r.returncode == 0, r.stderr
    return rawfixtures.srgb_to_linear(tifffile.imread(out).astype(np.float64) / 65535)


def reference(dng, **settings):
    with rawpy.imread(dng) as raw:
        rgb = raw.postprocess(no_auto_bright=True, output_bps=16, gamma=(1, 1), **settings)
    return rgb.astype(np.float64) / 65535


def psnr(a, b):
    assert a.shape == b.shape, (a.shape, b.shape)
    mse = float(np.mean((a - b) ** 2))
    return float("inf") if mse == 0 else 10 * np.log10(1 / mse)


CASES = [
    # pattern, bits, black, size, orientation, compressed
    ("RGGB", 14, 512, (600, 400), 1, False),
    ("BGGR", 14, 2048, (600, 400), 1, True),
    ("GRBG", 12, 256, (601, 401), 6, False),
    ("GBRG", 12, 128, (400, 600), 8, True),
    ("RGGB", 12, 64, (333, 257), 3, False),
]


@pytest.mark.parametrize("pattern,bits,black,size,orientation,compressed", CASES)
def test_development_matches_rawpy(pattern, bits, black, size, orientation, compressed):
    with tempfile.TemporaryDirectory() as folder:
        dng = rawfixtures.make_dng(os.path.join(folder, "in.dng"), size[0], size[1], pattern, bits, black,
                                   orientation, compressed)
        ours = develop(dng, folder)
        ref = reference(dng, use_camera_wb=True)
        score = psnr(ours, ref)
        print("%s %d-bit black %d %dx%d orientation %d %s: %.1f dB" % (
            pattern, bits, black, size[0], size[1], orientation, "LJ92" if compressed else "uncompressed", score))
        assert score >= BAR


@pytest.mark.parametrize("name,algorithm", [("ahd", "AHD"), ("dcb", "DCB"), ("dht", "DHT"), ("aahd", "AAHD"),
                                            ("ppg", "PPG"), ("linear", "LINEAR")])
def test_each_demosaic_matches_rawpy(name, algorithm):
    enum = getattr(rawpy.DemosaicAlgorithm, algorithm)
    if not enum.isSupported:
        pytest.skip("rawpy's LibRaw lacks %s" % algorithm)
    with tempfile.TemporaryDirectory() as folder:
        dng = rawfixtures.make_dng(os.path.join(folder, "in.dng"), 400, 300, "GRBG")
        score = psnr(develop(dng, folder, "--raw-demosaic", name), reference(dng, use_camera_wb=True, demosaic_algorithm=enum))
        print("demosaic %s: %.1f dB" % (name, score))
        assert score >= BAR


@pytest.mark.parametrize("name,mode", [("clip", "Clip"), ("unclip", "Ignore"), ("blend", "Blend"), ("rebuild", None)])
def test_each_highlight_mode_matches_rawpy(name, mode):
    highlight = rawpy.HighlightMode.Reconstruct(5) if mode is None else getattr(rawpy.HighlightMode, mode)
    with tempfile.TemporaryDirectory() as folder:
        # Overexposed: the scene's white at 1.4 of the range, so highlights clip.
        dng = rawfixtures.make_dng(os.path.join(folder, "in.dng"), 400, 300, "RGGB", headroom=1.4)
        score = psnr(develop(dng, folder, "--raw-highlights", name), reference(dng, use_camera_wb=True, highlight_mode=highlight))
        print("highlights %s: %.1f dB" % (name, score))
        assert score >= BAR


@pytest.mark.parametrize("name,settings", [("camera", {"use_camera_wb": True}), ("auto", {"use_auto_wb": True}),
                                           ("daylight", {})])
def test_each_white_balance_matches_rawpy(name, settings):
    with tempfile.TemporaryDirectory() as folder:
        dng = rawfixtures.make_dng(os.path.join(folder, "in.dng"), 400, 300, "BGGR")
        score = psnr(develop(dng, folder, "--raw-wb", name), reference(dng, **settings))
        print("white balance %s: %.1f dB" % (name, score))
        assert score >= BAR


def halve(w, h):
    return {"version": 1, "filters": [{"id": "2B0F5C3E-6D0A-4E55-9E7A-3C1D2B4A5F60", "type": "resize",
                                       "parameters": {"width": (w + 1) // 2, "height": (h + 1) // 2, "fit": "fill", "fast": True}}]}


# Uncompressed DNGs take filterchain's own half-size path (no LibRaw unpacker); lossless JPEG
# ones LibRaw's. Both must agree with rawpy, and with each other on the same mosaic.
@pytest.mark.parametrize("pattern,bits,size,orientation,wb", [
    ("RGGB", 14, (600, 400), 1, "camera"), ("GBRG", 12, (601, 401), 6, "camera"), ("BGGR", 16, (400, 300), 3, "daylight"),
    ("GRBG", 14, (333, 257), 8, "camera")])
def test_half_size_matches_rawpys(pattern, bits, size, orientation, wb):
    w, h = size
    with tempfile.TemporaryDirectory() as folder:
        dng = rawfixtures.make_dng(os.path.join(folder, "in.dng"), w, h, pattern, bits, 256, orientation)
        if bits != 16:
            # 10/12/14-bit samples packed as DNG packs them (pidng writes 16-bit containers).
            dng = rawfixtures.repack(dng, bits)
        ours = develop(dng, folder, "--raw-wb", wb, chain=halve(w, h) if orientation < 5 else halve(h, w))
        settings = {"use_camera_wb": True} if wb == "camera" else {}
        ref = reference(dng, half_size=True, **settings)
        score = psnr(ours, ref)
        print("half size %s %d-bit %dx%d orientation %d %s: %.1f dB" % (pattern, bits, w, h, orientation, wb, score))
        assert score >= BAR


def test_own_half_size_equals_librawss_on_the_same_mosaic():
    w, h = 600, 400
    with tempfile.TemporaryDirectory() as folder:
        plain = rawfixtures.make_dng(os.path.join(folder, "plain.dng"), w, h, "RGGB", 14, 512)
        lj92 = rawfixtures.make_dng(os.path.join(folder, "lj92.dng"), w, h, "RGGB", 14, 512, compress=True)
        a = develop(plain, folder, chain=halve(w, h))
        b = develop(lj92, folder, chain=halve(w, h))
        score = psnr(a, b)
        print("own half size against LibRaw's: %.1f dB" % score)
        assert score >= 80
