"""GIF quantisation against libvips 8.18's cgifsave and ImageMagick: PSNR per frame and size.

Each encoder gets the same 24-bit frames (W21's 200-frame animation, every frame resized to
240 wide by libvips and kept losslessly), so that only the palettes, the frame optimisation
and the dithering differ. Each GIF is decoded by libvips (libnsgif) and compared with those
frames, frame by frame (PSNR over RGB).

    .build-venv/bin/python Benchmarks/gif_palette.py [FILTERCHAIN] [INPUT.gif]

FILTERCHAIN defaults to .build/release/filterchain; INPUT to ~/.cache/filterchain-bench/anim200.gif
(made by ../shared/bench/compare --only W21). ImageMagick: `convert` (Debian's imagemagick).
"""
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import pyvips

fc = sys.argv[1] if len(sys.argv) > 1 else ".build/release/filterchain"
source = sys.argv[2] if len(sys.argv) > 2 else os.path.expanduser("~/.cache/filterchain-bench/anim200.gif")


def frames(path):
    image = pyvips.Image.new_from_file(path, n=-1)
    h = image.get("page-height")
    if image.bands == 3:
        image = image.bandjoin(255)
    a = np.ndarray(buffer=image.write_to_memory(), dtype=np.uint8, shape=[image.height, image.width, image.bands])
    return [a[i * h:(i + 1) * h] for i in range(image.height // h)]


def psnr(a, b):
    mse = np.mean((a[..., :3].astype(float) - b[..., :3].astype(float)) ** 2)
    return 99.0 if mse == 0 else 10 * np.log10(255 ** 2 / mse)


with tempfile.TemporaryDirectory() as work:
    ref = os.path.join(work, "ref.webp")
    pyvips.Image.thumbnail(source + "[n=-1]", 240, height=100000).webpsave(ref, lossless=True)
    reference = frames(ref)
    pngs = []
    for k, f in enumerate(reference):
        p = os.path.join(work, "f%03d.png" % k)
        pyvips.Image.new_from_array(f[..., :3]).copy(interpretation="srgb").pngsave(p)
        pngs.append(p)
    empty = os.path.join(work, "empty.json")
    json.dump({"version": 1, "filters": []}, open(empty, "w"))
    runs = {
        "filterchain": lambda out: subprocess.run([fc, "apply", empty, ref, out], check=True),
        "libvips %d.%d gifsave (cgif, defaults)" % (pyvips.version(0), pyvips.version(1)):
            lambda out: pyvips.Image.new_from_file(ref, n=-1).gifsave(out),
        "ImageMagick (convert -layers Optimize)":
            lambda out: subprocess.run(["convert", "-delay", "5", *pngs, "-layers", "Optimize", out], check=True),
    }
    print("%-40s %9s %8s %8s %8s %7s" % ("encoder", "bytes", "mean dB", "min dB", "max dB", "s"))
    for n, (name, run) in enumerate(runs.items()):
        out = os.path.join(work, "out%d.gif" % n)  # a name of its own: libvips caches loads by name
        start = time.time()
        run(out)
        seconds = time.time() - start
        got = frames(out)
        assert len(got) == len(reference), name
        values = [psnr(a, b) for a, b in zip(reference, got)]
        print("%-40s %9d %8.2f %8.2f %8.2f %7.2f" % (name, os.path.getsize(out), np.mean(values), min(values), max(values), seconds))
