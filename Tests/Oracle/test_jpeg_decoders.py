"""filterchain's JPEGs (its own quantisation tables, its trained Huffman tables, and the
optimised and progressive modes) decode to the same pixels in three decoders: Pillow's
libjpeg-turbo, libvips (pyvips-binary, its own libjpeg-turbo) and filterchain's decoder (the
system libjpeg-turbo), for RGB at each chroma subsampling and grey, odd sizes, across the
quality bands; also with restart markers, asked with `--restart-interval N`, in baseline
and progressive files. djpeg (the system's libjpeg-turbo tool) reads the same files without a
warning.

Run from the package root after `swift build`: python3 -m pytest Tests/Oracle -q
(FILTERCHAIN_BIN: the folder of the built programs, default .build/debug).
"""

import os
import shutil
import subprocess
import tempfile

import numpy as np
import pytest
from PIL import Image

pyvips = pytest.importorskip("pyvips") if not os.environ.get("CI") else __import__("pyvips")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("FILTERCHAIN_BIN", os.path.join(ROOT, ".build", "debug"))
PHOTO = os.path.join(ROOT, "samples", "coffee.png")


def run(*args):
    r = subprocess.run([os.path.join(BIN, "filterchain"), *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r


@pytest.fixture(scope="module")
def work():
    d = tempfile.mkdtemp(prefix="fc-jpeg-decoders-")
    # An odd-sized crop of a photograph (edges, texture and flat areas), and its grey.
    im = Image.open(PHOTO).convert("RGB")
    im.crop((37, 21, 37 + 301, 21 + 203)).save(os.path.join(d, "rgb.png"))
    im.crop((37, 21, 37 + 301, 21 + 203)).convert("L").save(os.path.join(d, "grey.png"))
    open(os.path.join(d, "empty.json"), "w").write('{"version": 1, "filters": []}')
    yield d
    shutil.rmtree(d, ignore_errors=True)


def decoded_by_filterchain(work, path):
    out = path + ".png"
    run("apply", os.path.join(work, "empty.json"), path, out)
    return np.asarray(Image.open(out))


@pytest.mark.parametrize("mode", [[], ["--effort", "1"], ["--effort", "2"], ["--progressive"]],
                         ids=["single-pass", "optimised", "progressive-effort", "progressive-flag"])
@pytest.mark.parametrize("source,chroma", [("rgb", "4:2:0"), ("rgb", "4:2:2"), ("rgb", "4:4:4"), ("grey", None)])
@pytest.mark.parametrize("quality", [20, 60, 77, 90, 98])
def test_three_decoders_agree(work, mode, source, chroma, quality):
    src = os.path.join(work, source + ".png")
    out = os.path.join(work, "%s-%s-%s-%d.jpg" % (source, (chroma or "").replace(":", ""), "-".join(mode), quality))
    run("apply", os.path.join(work, "empty.json"), src, out, "--quality", str(quality),
        *(["--chroma", chroma] if chroma else []), *mode)
    data = open(out, "rb").read()
    sof = next(data[i + 1] for i in range(2, len(data) - 1) if data[i] == 0xFF and data[i + 1] in (0xC0, 0xC1, 0xC2))
    assert sof == (0xC2 if mode and mode != ["--effort", "1"] else 0xC0)
    pillow = np.asarray(Image.open(out))
    vips = pyvips.Image.new_from_file(out, access="sequential").numpy()
    if vips.ndim == 3 and vips.shape[2] == 1:
        vips = vips[..., 0]
    assert_decoders_agree(work, out, source)


def assert_decoders_agree(work, out, source):
    pillow = np.asarray(Image.open(out))
    vips = pyvips.Image.new_from_file(out, access="sequential").numpy()
    if vips.ndim == 3 and vips.shape[2] == 1:
        vips = vips[..., 0]
    ours = decoded_by_filterchain(work, out)
    assert pillow.shape == vips.shape == ours.shape == ((203, 301, 3) if source == "rgb" else (203, 301))
    assert np.array_equal(pillow, vips), "Pillow and libvips differ"
    assert np.array_equal(pillow, ours), "Pillow and filterchain differ"
    if shutil.which("djpeg"):
        r = subprocess.run(["djpeg", "-outfile", os.devnull, out], capture_output=True, text=True)
        assert r.returncode == 0 and r.stderr == "", r.stderr


def segments(data):
    """The markers before the first scan, with their payloads (a walk of the file)."""
    i, found = 2, []
    while i + 4 <= len(data) and data[i] == 0xFF and data[i + 1] != 0xDA:
        length = data[i + 2] << 8 | data[i + 3]
        found.append((data[i + 1], data[i + 4:i + 2 + length]))
        i += 2 + length
    return found


@pytest.mark.parametrize("progressive", [False, True], ids=["baseline", "progressive"])
@pytest.mark.parametrize("interval", [1, 5])
@pytest.mark.parametrize("source,chroma", [("rgb", "4:2:0"), ("rgb", "4:2:2"), ("rgb", "4:4:4"), ("grey", None)])
def test_restart_markers_when_asked(work, progressive, interval, source, chroma):
    src = os.path.join(work, source + ".png")
    out = os.path.join(work, "rst-%s-%s-%d-%d.jpg" % (source, (chroma or "").replace(":", ""), interval, progressive))
    run("apply", os.path.join(work, "empty.json"), src, out, "--quality", "85", "--restart-interval", str(interval),
        *(["--chroma", chroma] if chroma else []), *(["--progressive"] if progressive else []))
    data = open(out, "rb").read()
    dri = [payload for marker, payload in segments(data) if marker == 0xDD]
    assert dri == [bytes([interval >> 8, interval & 255])]
    assert any(data[i] == 0xFF and 0xD0 <= data[i + 1] <= 0xD7 for i in range(len(data) - 1)), "no RSTn marker"
    assert_decoders_agree(work, out, source)
    # The markers change no coefficient: the same file without them decodes to the same pixels.
    plain = out.replace(".jpg", "-plain.jpg")
    run("apply", os.path.join(work, "empty.json"), src, plain, "--quality", "85",
        *(["--chroma", chroma] if chroma else []), *(["--progressive"] if progressive else []))
    assert not any(marker == 0xDD for marker, _ in segments(open(plain, "rb").read()))
    assert np.array_equal(np.asarray(Image.open(out)), np.asarray(Image.open(plain)))
