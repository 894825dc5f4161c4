"""HDR gain maps kept through a chain, read back by the field's reference decoder.

The oracle is libultrahdr, through the newest libvips on PyPI (pyvips-binary 8.18:
`uhdrload`, `uhdr2scRGB`). For each Ultra HDR / ISO 21496-1 / Apple JPEG of
../shared/conformance/hdr, filterchain applies a tone step (exposure +0.5, which leaves a map
as it is) and writes a JPEG. libultrahdr must find the same map (its bytes and metadata) in
the output, and the output's HDR rendition must be what the rule says: HDR = edited SDR x
the input's gain, per ISO 21496-1 (hdr = (sdr + offset_sdr) G - offset_hdr), with G taken
from the input's own reconstruction, so a decoder defect cancels out. Compared in log2
luminance over 8x8 blocks, where the SDR image is not clipped.

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

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("FILTERCHAIN_BIN", os.path.join(ROOT, ".build", "debug"))
HDR = os.path.join(os.path.dirname(ROOT), "shared", "conformance", "hdr", "files")
CHAIN = {"version": 1, "filters": [{"id": "7FC24D02-BC43-416B-8469-02169C97D567", "type": "exposure",
                                    "parameters": {"ev": 0.5}}]}
FILES = ["gen_chelsea_300x451_s2.jpg", "gen_chelsea_xmp_only_s2.jpg", "gen_astronaut_rgbmap_255x341_s2.jpg",
         "gen_coffee_333x251_s4.jpg", "libultrahdr_apple_gainmap_new.jpg", "libultrahdr_apple_gainmap_old.jpg"]


def array(image):
    return np.ndarray(buffer=image.write_to_memory(), dtype=np.float32 if image.format == "float" else np.uint8,
                      shape=[image.height, image.width, image.bands])


def srgb_to_linear(v):
    v = v / 255.0
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def renditions(path):
    """The SDR primary (linear) and libultrahdr's HDR reconstruction (scRGB), and the metadata."""
    image = pyvips.Image.uhdrload(path)
    meta = {k: image.get(k) for k in image.get_fields() if k.startswith("gainmap-") and k != "gainmap-data"}
    sdr = srgb_to_linear(array(image.extract_band(0, n=3)).astype(np.float64))
    hdr = array(image.uhdr2scRGB()).astype(np.float64)[:, :, :3]
    return sdr, hdr, meta, image.get("gainmap-data")


def comparable(meta):
    """The metadata but `gainmap-use-base-cg`, which libvips 8.18.7 leaves unset for Apple's
    maps (a different number at each load of the same file)."""
    return {k: v for k, v in meta.items() if k != "gainmap-use-base-cg" or v in (0, 1)}


def without_added_xmp(out, source):
    """A written map with the hdrgm XMP segment that filterchain puts after SOI in an ISO
    21496-1 map without XMP (as libultrahdr 1.x writes both) taken out again; `out` as it is
    when the source map had its own XMP or nothing was added."""
    xmp = b"http://ns.adobe.com/xap/1.0/\0"
    if out == source or out[2:4] != b"\xff\xe1" or out[6:6 + len(xmp)] != xmp:
        return out
    length = int.from_bytes(out[4:6], "big")
    assert b"hdrgm:Version" in out[6:4 + length]
    return out[:2] + out[4 + length:]


def blocks(v, n=8):
    h, w = (v.shape[0] // n) * n, (v.shape[1] // n) * n
    return v[:h, :w].reshape(h // n, n, w // n, n).mean(axis=(1, 3))


@pytest.mark.parametrize("name", FILES)
def test_a_tone_step_keeps_the_map_and_hdr_is_edited_sdr_times_gain(name):
    with tempfile.TemporaryDirectory() as folder:
        chain = os.path.join(folder, "chain.json")
        with open(chain, "w") as f:
            json.dump(CHAIN, f)
        out = os.path.join(folder, "out.jpg")
        r = subprocess.run([os.path.join(BIN, "filterchain"), "apply", chain, os.path.join(HDR, name), out],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert "gain map" not in r.stderr, r.stderr
        sdr_in, hdr_in, meta_in, map_in = renditions(os.path.join(HDR, name))
        sdr_out, hdr_out, meta_out, map_out = renditions(out)
    assert without_added_xmp(map_out, map_in) == map_in
    assert comparable(meta_out) == comparable(meta_in)
    o_sdr = np.array(meta_in["gainmap-offset-sdr"])
    o_hdr = np.array(meta_in["gainmap-offset-hdr"])
    # Black pixels (sdr + offset = 0, an Apple map has no offsets) say nothing of the gain.
    base = sdr_in + o_sdr
    gain = np.where(base > 1e-6, (hdr_in + o_hdr) / np.maximum(base, 1e-6), 1.0)
    predicted = (sdr_out + o_sdr) * gain - o_hdr
    weights = np.array([0.2126, 0.7152, 0.0722])
    lum = lambda v: np.log2(np.maximum(blocks(v @ weights), 1e-4))
    # Where neither SDR image clips (the tone step pushes highlights to 1.0, where the edit is lost).
    usable = (blocks(sdr_out.max(axis=2)) < 0.95) & (blocks(sdr_in.max(axis=2)) < 0.95) & (blocks(sdr_in.min(axis=2)) > 1e-3)
    assert usable.mean() > 0.3
    error = np.abs(lum(hdr_out) - lum(predicted))[usable]
    assert np.percentile(error, 99) < 0.1, (np.percentile(error, 50), np.percentile(error, 99), error.max())
    # And the edit shows in the HDR rendition: brighter than the input's.
    assert np.median((lum(hdr_out) - lum(hdr_in))[usable]) > 0.4


def apply(chain_steps, name, folder):
    chain = os.path.join(folder, "chain.json")
    with open(chain, "w") as f:
        json.dump({"version": 1, "filters": [dict(id=f"{k + 1}FC24D02-BC43-416B-8469-02169C97D567", **s)
                                             for k, s in enumerate(chain_steps)]}, f)
    out = os.path.join(folder, "out.jpg")
    r = subprocess.run([os.path.join(BIN, "filterchain"), "apply", chain, os.path.join(HDR, name), out],
                       capture_output=True, text=True)   # an absolute `name` is taken as it is
    assert r.returncode == 0, r.stderr
    assert "gain map" not in r.stderr, r.stderr
    return out


def gain_of(path):
    sdr, hdr, meta, _ = renditions(path)
    o_sdr, o_hdr = np.array(meta["gainmap-offset-sdr"]), np.array(meta["gainmap-offset-hdr"])
    base = sdr + o_sdr
    return np.where(base > 1e-6, (hdr + o_hdr) / np.maximum(base, 1e-6), 1.0), sdr, hdr, meta


def held_to_rule(out, gain, meta, limit):
    """The output's HDR rendition against (its SDR + offset) x `gain` - offset, in log2
    luminance over 8x8 blocks where the SDR image is neither clipped nor black."""
    sdr, hdr, meta_out, _ = renditions(out)
    assert comparable(meta_out) == comparable(meta)
    o_sdr, o_hdr = np.array(meta["gainmap-offset-sdr"]), np.array(meta["gainmap-offset-hdr"])
    predicted = (sdr + o_sdr) * gain - o_hdr
    weights = np.array([0.2126, 0.7152, 0.0722])
    lum = lambda v: np.log2(np.maximum(blocks(v @ weights), 1e-4))
    usable = (blocks(sdr.max(axis=2)) < 0.95) & (blocks(sdr.min(axis=2)) > 1e-3)
    assert usable.mean() > 0.3
    error = np.abs(lum(hdr) - lum(predicted))[usable]
    assert np.percentile(error, 90) < limit, (np.percentile(error, 50), np.percentile(error, 90), error.max())
    return error


@pytest.mark.parametrize("name", FILES)
def test_the_map_follows_a_crop_a_turn_and_a_flip(name):
    """Pixel for pixel in the base's coordinates: the input's gain cropped, turned 90 degrees
    clockwise and mirrored left-right by numpy must be the gain of the output."""
    gain, sdr_in, _, meta = gain_of(os.path.join(HDR, name))
    with tempfile.TemporaryDirectory() as folder:
        out = apply([{"type": "crop", "parameters": {"x": 37, "y": 51, "width": 161, "height": 150}},
                     {"type": "rotate", "parameters": {"angle": 90}},
                     {"type": "flip", "parameters": {"direction": "horizontal"}}], name, folder)
        moved = np.flip(np.rot90(gain[51:201, 37:198], k=-1), axis=1)
        held_to_rule(out, moved, meta, 0.15)
        # A map left as it was (only cropped) must fail the same check.
        with pytest.raises(AssertionError):
            held_to_rule(out, np.ascontiguousarray(np.resize(gain[51:212, 37:187], moved.shape)), meta, 0.15)


@pytest.mark.parametrize("name", FILES)
def test_the_map_follows_a_resize(name):
    gain, _, _, meta = gain_of(os.path.join(HDR, name))
    with tempfile.TemporaryDirectory() as folder:
        width = gain.shape[1] * 2 // 3
        out = apply([{"type": "resize", "parameters": {"width": width}}], name, folder)
        h = pyvips.Image.new_from_file(out).height
        g = pyvips.Image.new_from_memory(np.ascontiguousarray(gain.astype(np.float32)).tobytes(),
                                         gain.shape[1], gain.shape[0], 3, "float")
        resized = array(g.resize(width / gain.shape[1], vscale=h / gain.shape[0], kernel="linear")).astype(np.float64)
        held_to_rule(out, resized, meta, 0.15)
        # The input's gain not resized (its top-left corner) must fail the same check.
        with pytest.raises(AssertionError):
            held_to_rule(out, gain[:h, :width], meta, 0.15)


def test_the_map_follows_an_exif_orientation():
    """The primary's EXIF Orientation set to 6 (turn 90 degrees clockwise) in a copy: the
    output is upright, and so is its map."""
    source = os.path.join(HDR, "gen_chelsea_300x451_s2.jpg")
    with open(source, "rb") as f:
        data = f.read()
    tag = bytes([0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00])   # little-endian Orientation = 1
    assert data.count(tag) == 1
    gain, _, _, meta = gain_of(source)
    with tempfile.TemporaryDirectory() as folder:
        turned = os.path.join(folder, "turned.jpg")
        with open(turned, "wb") as f:
            f.write(data.replace(tag, tag[:8] + bytes([0x06, 0x00])))
        chain = os.path.join(folder, "chain.json")
        with open(chain, "w") as f:
            json.dump({"version": 1, "filters": []}, f)
        out = os.path.join(folder, "out.jpg")
        r = subprocess.run([os.path.join(BIN, "filterchain"), "apply", chain, turned, out], capture_output=True, text=True)
        assert r.returncode == 0 and "gain map" not in r.stderr, r.stderr
        assert pyvips.Image.new_from_file(out).width == 451
        held_to_rule(out, np.rot90(gain, k=-1), meta, 0.15)
        with pytest.raises(AssertionError):
            held_to_rule(out, np.ascontiguousarray(np.resize(gain, (300, 451, 3))), meta, 0.15)


def test_a_map_libultrahdr_writes_is_read_and_kept():
    """An Ultra HDR JPEG written by libultrahdr itself (uhdrsave: its ISO 21496-1 metadata
    with one common denominator) is read, its map kept through a tone step and a resize."""
    with tempfile.TemporaryDirectory() as folder:
        base = pyvips.Image.new_from_file(os.path.join(ROOT, "samples", "coffee.png"))[0:3].resize(0.5)
        ramp = (pyvips.Image.xyz(base.width // 4, base.height // 4)[0] * (255 / (base.width // 4))).cast("uchar")
        for n, v in (("gainmap-max-content-boost", [8.0] * 3), ("gainmap-min-content-boost", [1.0] * 3),
                     ("gainmap-gamma", [1.0] * 3), ("gainmap-offset-sdr", [0.0] * 3), ("gainmap-offset-hdr", [0.0] * 3)):
            base.set_type(pyvips.GValue.array_double_type, n, v)
        base.set_type(pyvips.GValue.gdouble_type, "gainmap-hdr-capacity-min", 1.0)
        base.set_type(pyvips.GValue.gdouble_type, "gainmap-hdr-capacity-max", 8.0)
        base.set_type(pyvips.GValue.gint_type, "gainmap-use-base-cg", 1)
        base.set_type(pyvips.GValue.image_type, "gainmap", ramp)
        made = os.path.join(folder, "made.jpg")
        base.uhdrsave(made, Q=92)
        info = subprocess.run([os.path.join(BIN, "filterchain"), "info", made, "--json"], capture_output=True, text=True)
        assert info.returncode == 0, info.stderr
        assert '"gainMap"' in info.stdout and "not usable" not in info.stdout, info.stdout
        gain, _, _, meta = gain_of(made)
        out = apply([{"type": "exposure", "parameters": {"ev": 0.5}}, {"type": "resize", "parameters": {"width": base.width // 2}}],
                    made, folder)
        h = pyvips.Image.new_from_file(out).height
        g = pyvips.Image.new_from_memory(np.ascontiguousarray(gain.astype(np.float32)).tobytes(),
                                         gain.shape[1], gain.shape[0], 3, "float")
        resized = array(g.resize((base.width // 2) / gain.shape[1], vscale=h / gain.shape[0], kernel="linear")).astype(np.float64)
        held_to_rule(out, resized, meta, 0.15)


def test_a_step_that_lays_an_image_over_writes_sdr_without_a_map():
    """A layer whose map lies otherwise (a half-size copy of the source) is not followed."""
    with tempfile.TemporaryDirectory() as folder:
        chain = os.path.join(folder, "chain.json")
        with open(chain, "w") as f:
            json.dump({"version": 2, "filters": [{"id": "7FC24D02-BC43-416B-8469-02169C97D567", "type": "resize",
                                                  "name": "small", "parameters": {"scale": 0.5}},
                                                 {"id": "8FC24D02-BC43-416B-8469-02169C97D567", "type": "blend",
                                                  "input": "source", "parameters": {"layer": "small", "mode": "screen"}}]}, f)
        out = os.path.join(folder, "out.jpg")
        r = subprocess.run([os.path.join(BIN, "filterchain"), "apply", chain, os.path.join(HDR, FILES[0]), out],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert "its HDR gain map is not kept (step 2 (blend) lays an image whose gain map lies otherwise" in r.stderr
        image = pyvips.Image.new_from_file(out)
        assert "gainmap-data" not in image.get_fields()


def test_ultra_hdr_v1_metadata_alone_reads_the_same():
    """An output from an ISO 21496-1-only source carries Ultra HDR v1's hdrgm XMP too (for
    readers that know only it): with every ISO 21496-1 segment of the output blanked (turned
    into APP15 segments of the same length), libultrahdr reads the same metadata from the XMP."""
    name = "gen_chelsea_300x451_s2.jpg"
    with tempfile.TemporaryDirectory() as folder:
        out = apply([{"type": "exposure", "parameters": {"ev": 0.5}}], name, folder)
        with open(out, "rb") as f:
            data = bytearray(f.read())
        iso = b"urn:iso:std:iso:ts:21496:-1\0"
        blanked, at = 0, data.find(iso)
        while at >= 0:
            assert data[at - 4:at - 2] == b"\xff\xe2"
            data[at - 3] = 0xef
            blanked += 1
            at = data.find(iso, at + 1)
        assert blanked == 2   # the primary's version box and the map's metadata
        v1 = os.path.join(folder, "v1.jpg")
        with open(v1, "wb") as f:
            f.write(bytes(data))
        _, _, meta_v1, _ = renditions(v1)
        _, _, meta_in, _ = renditions(os.path.join(HDR, name))
    for key, value in comparable(meta_in).items():
        assert np.allclose(meta_v1[key], value, rtol=1e-4, atol=1e-5), (key, meta_v1[key], value)
