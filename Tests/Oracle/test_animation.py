"""Animations through a chain, read back by libvips 8.18 (its GIF loader is libnsgif, NetSurf's
browser decoder; its WebP loader is libwebp's animation decoder) and by Pillow.

GIFs and animated WebPs are made here by Pillow (an encoder independent of ours): every
disposal mode, transparency, local palettes, frames that cover part of the canvas. For each,
filterchain runs an empty chain to GIF and to lossless WebP, and the frames libvips decodes
from the output must be the frames libvips decodes from the input, pixel for pixel (colour
where opaque, and alpha), with the same delays and loop count. Few colours, so a GIF's
palette loses nothing. Pillow must read our GIFs to the same frames too.

Run from the package root after `swift build`: python3 -m pytest Tests/Oracle -q
(FILTERCHAIN_BIN: the folder of the built programs, default .build/debug).
"""

import json
import os
import subprocess
import tempfile

import numpy as np
import pytest

pyvips = pytest.importorskip("pyvips") if not os.environ.get("CI") else __import__("pyvips")
from PIL import Image, ImageDraw, ImageSequence  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("FILTERCHAIN_BIN", os.path.join(ROOT, ".build", "debug"))
EMPTY = {"version": 1, "filters": []}


def filterchain(*args):
    return subprocess.run([os.path.join(BIN, "filterchain"), *args], capture_output=True, text=True)


def vips_frames(path):
    """Every frame as libvips shows it: RGBA arrays, delays (ms) and loop count."""
    image = pyvips.Image.new_from_file(path, n=-1, access="sequential")
    height = image.get("page-height") if "page-height" in image.get_fields() else image.height
    if image.bands == 3:
        image = image.bandjoin(255)
    a = np.ndarray(buffer=image.write_to_memory(), dtype=np.uint8, shape=[image.height, image.width, image.bands])
    frames = [a[i * height:(i + 1) * height] for i in range(image.height // height)]
    fields = image.get_fields()
    delays = list(image.get("delay")) if "delay" in fields else None
    loop = image.get("loop") if "loop" in fields else None
    return frames, delays, loop


def same_pixels(a, b):
    """Alpha equal everywhere, colour equal where opaque."""
    if not np.array_equal(a[..., 3], b[..., 3]):
        return False
    shown = a[..., 3] > 0
    return np.array_equal(a[..., :3][shown], b[..., :3][shown])


def scene(i, size=(64, 48)):
    """Frame i of a few-colour animation: a moving box, a moving disc, on transparency."""
    im = Image.new("RGBA", size, (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    d.rectangle((i * 5, 4, i * 5 + 22, 30), fill=(200, 40 + 25 * (i % 4), 60, 255))
    d.ellipse((40 - i * 3, 18, 58 - i * 3, 44), fill=(20, 180, 230, 255))
    return im


def make_gifs(folder):
    gifs = {}
    frames = [scene(i) for i in range(8)]
    for disposal in (0, 1, 2, 3):
        path = os.path.join(folder, "disposal%d.gif" % disposal)
        frames[0].save(path, save_all=True, append_images=frames[1:], duration=[60, 80, 100, 40, 60, 70, 90, 120],
                       loop=0 if disposal != 1 else 2, disposal=disposal, transparency=0, optimize=False)
        gifs["disposal%d" % disposal] = path
    # Opaque frames of many small changes: Pillow writes only the changed rectangles.
    opaque = [Image.alpha_composite(Image.new("RGBA", (64, 48), (240, 240, 240, 255)), scene(i)).convert("RGB")
              for i in range(10)]
    path = os.path.join(folder, "opaque.gif")
    opaque[0].save(path, save_all=True, append_images=opaque[1:], duration=50, loop=0)
    gifs["opaque"] = path
    return gifs


@pytest.fixture(scope="module")
def folder():
    with tempfile.TemporaryDirectory() as f:
        yield f


@pytest.mark.parametrize("name", ["disposal0", "disposal1", "disposal2", "disposal3", "opaque"])
@pytest.mark.parametrize("out", ["gif", "webp"])
def test_frames_come_back_as_libvips_shows_the_source(folder, name, out):
    source = make_gifs(folder)[name]
    chain = os.path.join(folder, "empty.json")
    json.dump(EMPTY, open(chain, "w"))
    target = os.path.join(folder, "%s-out.%s" % (name, out))
    args = ["apply", chain, source, target] + (["--lossless"] if out == "webp" else [])
    run = filterchain(*args)
    assert run.returncode == 0, run.stderr
    want, delays, loop = vips_frames(source)
    got, got_delays, got_loop = vips_frames(target)
    assert len(got) == len(want)
    for k, (a, b) in enumerate(zip(want, got)):
        assert same_pixels(a, b), "frame %d" % k
    assert got_delays == delays
    assert got_loop == loop
    if out == "gif":
        # A second decoder: Pillow's frames of our GIF, composited as it does, are libvips's.
        with Image.open(target) as im:
            pillow = [np.array(f.convert("RGBA")) for f in ImageSequence.Iterator(im)]
        assert len(pillow) == len(got)
        for k, (a, b) in enumerate(zip(got, pillow)):
            assert same_pixels(a, b), "Pillow's frame %d" % k


def test_an_animated_webp_becomes_a_gif(folder):
    frames = [scene(i) for i in range(6)]
    source = os.path.join(folder, "anim.webp")
    frames[0].save(source, save_all=True, append_images=frames[1:], duration=[30, 60, 90, 30, 60, 90], loop=3,
                   lossless=True)
    chain = os.path.join(folder, "empty.json")
    json.dump(EMPTY, open(chain, "w"))
    target = os.path.join(folder, "from-webp.gif")
    run = filterchain("apply", chain, source, target)
    assert run.returncode == 0, run.stderr
    want, delays, loop = vips_frames(source)
    got, got_delays, got_loop = vips_frames(target)
    assert len(got) == len(want) == 6
    for k, (a, b) in enumerate(zip(want, got)):
        assert same_pixels(a, b), "frame %d" % k
    assert got_delays == delays and got_loop == loop


def test_a_resize_gives_every_frame_the_same_geometry(folder):
    source = make_gifs(folder)["opaque"]
    chain = os.path.join(folder, "half.json")
    json.dump({"version": 1, "filters": [{"id": "2C0D7A5E-7B1F-4E53-8D0B-4A0C2B9E6F11", "type": "resize",
                                          "parameters": {"scale": 0.5}}]}, open(chain, "w"))
    target = os.path.join(folder, "half.gif")
    run = filterchain("apply", chain, source, target)
    assert run.returncode == 0, run.stderr
    got, delays, _ = vips_frames(target)
    want, want_delays, _ = vips_frames(source)
    assert len(got) == len(want) and delays == want_delays
    for k, frame in enumerate(got):
        assert frame.shape[:2] == (24, 32)
        # Each frame is its source frame halved: close to a 2x2 box average of it.
        box = want[k][..., :3].astype(float).reshape(24, 2, 32, 2, 3).mean(axis=(1, 3))
        assert np.abs(frame[..., :3].astype(float) - box).mean() < 6, "frame %d" % k
