"""Float files out, read back by other tools: a 32-bit float TIFF (made by tifffile, values
below 0 and above 1) through a chain, written as a float TIFF (every lossless compression,
the floating-point predictor) read by tifffile with imagecodecs, and as a lossless float
JPEG XL read by djxl (libjxl's own tool) as PFM. The chain is exposure -1 (a halving in the
sRGB working space: filters.md's exposure), so the expected floats are the input's halves.

Run from the package root after `swift build`: python3 -m pytest Tests/Oracle -q
(FILTERCHAIN_BIN: the folder of the built programs, default .build/debug).
"""

import os
import shutil
import subprocess
import tempfile

import numpy as np
import pytest

tifffile = pytest.importorskip("tifffile") if not os.environ.get("CI") else __import__("tifffile")
pytest.importorskip("imagecodecs") if not os.environ.get("CI") else __import__("imagecodecs")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("FILTERCHAIN_BIN", os.path.join(ROOT, ".build", "debug"))


def source(channels):
    rng = np.random.default_rng(7 + channels)
    a = rng.uniform(-0.5, 2.5, size=(23, 37, channels)).astype(np.float32)
    if channels in (2, 4):
        a[..., -1] = rng.uniform(0, 1, size=(23, 37)).astype(np.float32)
    return a


def run(*args):
    r = subprocess.run([os.path.join(BIN, "filterchain"), *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("compression", ["none", "lzw", "deflate", "zstd"])
@pytest.mark.parametrize("channels", [1, 3, 4])
def test_float_tiff_through_a_chain_reads_back_in_tifffile(compression, channels):
    with tempfile.TemporaryDirectory() as d:
        a = source(channels)
        src = os.path.join(d, "in.tif")
        tifffile.imwrite(src, a if channels > 1 else a[..., 0],
                         photometric="minisblack" if channels == 1 else "rgb",
                         extrasamples=["unassalpha"] if channels == 4 else None)
        out = os.path.join(d, "out.tif")
        run("apply", "--step", "exposure ev=-1", src, out, "--tiff-compression", compression)
        with tifffile.TiffFile(out) as t:
            page = t.pages[0]
            assert page.dtype == np.float32 and page.tags["SampleFormat"].value in (3, (3,) * channels)
            b = page.asarray()
        b = b.reshape(a.shape)
        expected = a.copy()
        colour = channels if channels in (1, 3) else channels - 1
        expected[..., :colour] /= 2
        # Straight alpha in and out: colour goes through premultiplied float and back (a
        # rounding of a float multiply and divide), alpha unchanged.
        assert np.abs(b - expected).max() <= 1e-6 * np.abs(expected).max() + 1e-7


@pytest.mark.skipif(shutil.which("djxl") is None and not os.environ.get("CI"), reason="djxl (libjxl-tools) not installed")
def test_float_jpeg_xl_reads_back_in_djxl():
    with tempfile.TemporaryDirectory() as d:
        a = source(3)
        src = os.path.join(d, "in.tif")
        tifffile.imwrite(src, a, photometric="rgb")
        out = os.path.join(d, "out.jxl")
        run("apply", "--step", "exposure ev=-1", src, out, "--lossless")
        pfm = os.path.join(d, "out.pfm")
        subprocess.run(["djxl", out, pfm], check=True, capture_output=True)
        data = open(pfm, "rb").read()
        kind, size, scale, rest = data.split(b"\n", 3)
        w, h = map(int, size.split())
        order = ">" if float(scale) > 0 else "<"
        b = np.frombuffer(rest, dtype=order + "f4").reshape(h, w, 3)[::-1]
        assert kind == b"PF" and (w, h) == (37, 23)
        assert np.abs(b - a / 2).max() <= 1e-6 * np.abs(a).max()
