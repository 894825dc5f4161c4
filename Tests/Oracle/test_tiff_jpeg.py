"""JPEG-compressed TIFF out, read by other tools: each strip is a whole JPEG made by
filterchain's JPEG encoder (its own tables), and tifffile with imagecodecs (libjpeg-turbo
on each strip), Pillow and libvips (both through libtiff) must read the file as
filterchain's own decoder does: its PNG output of the TIFF, within 1 level. RGB at 4:2:0,
4:2:2 and 4:4:4 (YCbCr, YCbCrSubsampling as the JPEG's sampling factors) and grey, at an
odd size in one strip and in three strips (the last one shorter, not a multiple of 16 rows).

Run from the package root after `swift build`: python3 -m pytest Tests/Oracle -q -k tiff
(FILTERCHAIN_BIN: the folder of the built programs, default .build/debug).
"""

import os
import subprocess
import tempfile

import numpy as np
import pytest

tifffile = pytest.importorskip("tifffile") if not os.environ.get("CI") else __import__("tifffile")
pytest.importorskip("imagecodecs") if not os.environ.get("CI") else __import__("imagecodecs")
pyvips = pytest.importorskip("pyvips") if not os.environ.get("CI") else __import__("pyvips")
from PIL import Image  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("FILTERCHAIN_BIN", os.path.join(ROOT, ".build", "debug"))


def run(*args):
    r = subprocess.run([os.path.join(BIN, "filterchain"), *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def source(width, height, channels):
    """Smooth ramps with noise, 8-bit."""
    y, x = np.mgrid[0:height, 0:width]
    ramps = np.stack([x * 255 // width, y * 255 // height, (x + y) * 255 // (width + height)], -1)[..., :channels]
    noise = np.random.default_rng(width + channels).integers(-20, 21, size=ramps.shape)
    a = np.clip(ramps + noise, 0, 255).astype(np.uint8)
    return a[..., 0] if channels == 1 else a


# (width, height): one strip; three strips of 96 rows (about 3,000 bytes a row), 71 in the last.
SIZES = {1: [(37, 53), (3001, 263)], 3: [(37, 53), (1001, 263)]}
CASES = [(3, chroma, size) for chroma in ["4:2:0", "4:2:2", "4:4:4"] for size in SIZES[3]] + [(1, None, s) for s in SIZES[1]]


@pytest.mark.parametrize("channels,chroma,size", CASES)
def test_jpeg_tiff_reads_as_filterchain_reads_it(channels, chroma, size):
    width, height = size
    with tempfile.TemporaryDirectory() as d:
        src, out, png = (os.path.join(d, n) for n in ("in.png", "out.tif", "out.png"))
        chain = os.path.join(d, "none.json")
        with open(chain, "w") as f:
            f.write('{"version": 1, "filters": []}')
        Image.fromarray(source(width, height, channels)).save(src)
        options = ["--tiff-compression", "jpeg", "--quality", "85"] + (["--chroma", chroma] if chroma else [])
        run("apply", chain, src, out, *options)
        run("apply", chain, out, png)
        ours = np.asarray(Image.open(png)).astype(int)
        assert ours.shape[:2] == (height, width)

        with tifffile.TiffFile(out) as t:
            page = t.pages[0]
            assert page.compression == 7
            assert page.photometric == (6 if channels == 3 else 1)
            rows = page.tags["RowsPerStrip"].value
            assert rows == height or rows % 16 == 0
            assert len(page.dataoffsets) == -(-height // rows)
            if channels == 3:
                assert page.tags[530].value == {"4:2:0": (2, 2), "4:2:2": (2, 1), "4:4:4": (1, 1)}[chroma]
                assert 532 in page.tags  # ReferenceBlackWhite
            with open(out, "rb") as f:
                data = f.read()
            for offset, count in zip(page.dataoffsets, page.databytecounts):
                strip = data[offset:offset + count]
                assert strip[:2] == b"\xff\xd8" and strip[-2:] == b"\xff\xd9"
                assert b"JFIF\0" not in strip[:64]
            theirs = page.asarray().astype(int).reshape(ours.shape)
        assert np.abs(theirs - ours).max() <= 1, "tifffile"

        pil = np.asarray(Image.open(out).convert("RGB" if channels == 3 else "L")).astype(int)
        assert np.abs(pil - ours).max() <= 1, "Pillow"

        v = pyvips.Image.new_from_file(out)
        vips = np.ndarray(buffer=v.write_to_memory(), dtype=np.uint8, shape=(v.height, v.width, v.bands)).astype(int)
        assert np.abs(vips.reshape(ours.shape) - ours).max() <= 1, "libvips"
