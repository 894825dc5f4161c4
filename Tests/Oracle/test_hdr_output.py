"""HDR outputs (`--hdr pq|hlg`) against their own equations and libultrahdr's reconstruction.

The input is an Ultra HDR / Apple JPEG of ../shared/conformance/hdr whose map has one
channel (libvips 8.18.7's uhdr2scRGB decodes three-channel maps through the sRGB curve, see
that folder's README). filterchain writes the HDR rendition as a 16-bit PNG (cICP) and a
10-bit AVIF (nclx). The test reads the samples back with libvips, undoes the transfer with
its own implementation of SMPTE ST 2084 and BT.2100 HLG (1,000 cd/m² display, system gamma
1.2), takes SDR white as 203 cd/m² (BT.2408), converts BT.2020 to the input's primaries (Display P3) with a
matrix made here from the primaries, and holds the result to libultrahdr's HDR reconstruction of
the input (`uhdr2scRGB`, full capacity) in log2 luminance over 8x8 blocks. The colour
signalling (cICP chunk, nclx box) is read with this file's own chunk and box walkers.

Run from the package root after `swift build`: python3 -m pytest Tests/Oracle -q
"""

import json
import os
import struct
import subprocess
import tempfile

import numpy as np
import pytest

pyvips = pytest.importorskip("pyvips") if not os.environ.get("CI") else __import__("pyvips")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("FILTERCHAIN_BIN", os.path.join(ROOT, ".build", "debug"))
HDR = os.path.join(os.path.dirname(ROOT), "shared", "conformance", "hdr", "files")
ONE_CHANNEL = ["gen_chelsea_300x451_s2.jpg", "gen_coffee_333x251_s4.jpg", "libultrahdr_apple_gainmap_new.jpg"]
SDR_WHITE = 203.0


def pq_to_nits(e):
    m1, m2 = 2610 / 16384, 2523 / 4096 * 128
    c1, c2, c3 = 3424 / 4096, 2413 / 4096 * 32, 2392 / 4096 * 32
    p = np.power(np.clip(e, 0, 1), 1 / m2)
    return 10000 * np.power(np.maximum(p - c1, 0) / (c2 - c3 * p), 1 / m1)


def hlg_to_nits(e):
    a = 0.17883277
    b, c = 1 - 4 * a, 0.5 - a * np.log(4 * a)
    e = np.clip(e, 0, 1)
    scene = np.where(e <= 0.5, e * e / 3, (np.exp((e - c) / a) + b) / 12)
    ys = scene @ np.array([0.2627, 0.6780, 0.0593])
    return 1000 * scene * np.power(np.maximum(ys, 1e-12), 0.2)[..., None]


def rgb_to_xyz(primaries, white=(0.3127, 0.3290)):
    xyz = lambda x, y: np.array([x / y, 1.0, (1 - x - y) / y])
    m = np.stack([xyz(*p) for p in primaries], axis=1)
    s = np.linalg.solve(m, xyz(*white))
    return m * s


# The three inputs' primaries are Display P3 (their ICC profiles), and libultrahdr's
# reconstruction is in the base's primaries: the outputs are taken there to compare.
DISPLAY_P3 = rgb_to_xyz([(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)])
REC2020_TO_BASE = np.linalg.inv(DISPLAY_P3) @ rgb_to_xyz([(0.708, 0.292), (0.170, 0.797), (0.131, 0.046)])


def samples(path):
    image = pyvips.Image.new_from_file(path)
    assert image.format == "ushort" and image.bands == 3, (image.format, image.bands)
    a = np.ndarray(buffer=image.write_to_memory(), dtype=np.uint16, shape=[image.height, image.width, 3])
    # libvips gives a 10-bit AVIF's samples scaled to 16 bits.
    return a.astype(np.float64) / 65535.0


def png_chunks(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    i, out = 8, []
    while i + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[i:i + 8])
        out.append((kind.decode("latin-1"), data[i + 8:i + 8 + length]))
        i += 12 + length
    return out


def boxes(data, start, end):
    i = start
    while i + 8 <= end:
        size, kind = struct.unpack(">I4s", data[i:i + 8])
        header = 8
        if size == 1:
            size, header = struct.unpack(">Q", data[i + 8:i + 16])[0], 16
        size = size or end - i
        yield kind.decode("latin-1"), i + header, i + size
        i += size


def nclx_of_avif(data):
    """The colr nclx of the primary item: meta > iprp > ipco > colr (the only one here)."""
    for kind, s, e in boxes(data, 0, len(data)):
        if kind != "meta":
            continue
        for k2, s2, e2 in boxes(data, s + 4, e):
            if k2 != "iprp":
                continue
            for k3, s3, e3 in boxes(data, s2, e2):
                if k3 != "ipco":
                    continue
                for k4, s4, e4 in boxes(data, s3, e3):
                    if k4 == "colr" and data[s4:s4 + 4] == b"nclx":
                        p, t, m = struct.unpack(">HHH", data[s4 + 4:s4 + 10])
                        return p, t, m, data[s4 + 10] >> 7
    return None


def reconstruction(name, headroom=None):
    """The SDR primary (as stored, 0...1) and libultrahdr's HDR reconstruction at full
    capacity, or for a display of `headroom` stops: the gain it applied, G = (hdr + o_hdr) /
    (sdr + o_sdr), raised to the ISO 21496-1 weight w = clamp((H - Hb) / (Ha - Hb), 0, 1)."""
    image = pyvips.Image.uhdrload(os.path.join(HDR, name))
    sdr = np.ndarray(buffer=image.extract_band(0, n=3).write_to_memory(), dtype=np.uint8,
                     shape=[image.height, image.width, 3]).astype(np.float64) / 255
    hdr = image.uhdr2scRGB()
    hdr = np.ndarray(buffer=hdr.write_to_memory(), dtype=np.float32, shape=[hdr.height, hdr.width, hdr.bands])
    hdr = hdr[:, :, :3].astype(np.float64)
    if headroom is None:
        return sdr, hdr
    o_sdr, o_hdr = np.array(image.get("gainmap-offset-sdr")), np.array(image.get("gainmap-offset-hdr"))
    hb, ha = np.log2(image.get("gainmap-hdr-capacity-min")), np.log2(image.get("gainmap-hdr-capacity-max"))
    w = float(np.clip((headroom - hb) / (ha - hb), 0, 1))
    linear = np.where(sdr <= 0.04045, sdr / 12.92, ((sdr + 0.055) / 1.055) ** 2.4)
    gain = (hdr + o_hdr) / np.maximum(linear + o_sdr, 1e-6)
    return sdr, (linear + o_sdr) * np.power(np.maximum(gain, 1e-6), w) - o_hdr


def blocks(v, n=8):
    h, w = (v.shape[0] // n) * n, (v.shape[1] // n) * n
    return v[:h, :w].reshape(h // n, n, w // n, n).mean(axis=(1, 3))


def log_luminance_error(linear, reference, sdr):
    lum = lambda v: np.log2(np.maximum(blocks(v @ DISPLAY_P3[1]), 1e-4))
    usable = (blocks(sdr.max(axis=2)) < 0.95) & (blocks(sdr.min(axis=2)) > 0.01)
    assert usable.mean() > 0.3
    return np.abs(lum(linear) - lum(reference))[usable]


def render(name, output, folder, *extra):
    chain = os.path.join(folder, "chain.json")
    with open(chain, "w") as f:
        json.dump({"version": 1, "filters": []}, f)
    out = os.path.join(folder, output)
    r = subprocess.run([os.path.join(BIN, "filterchain"), "apply", chain, os.path.join(HDR, name), out, *extra],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out


@pytest.mark.parametrize("name", ONE_CHANNEL)
@pytest.mark.parametrize("transfer", ["pq", "hlg"])
@pytest.mark.parametrize("extension", ["png", "avif"])
def test_an_hdr_output_is_the_reconstruction_in_its_own_equations(name, transfer, extension):
    # HLG is for a 1,000 cd/m² display: the map rendered for its headroom, log2(1000 / 203).
    sdr, reference = reconstruction(name, None if transfer == "pq" else np.log2(1000 / SDR_WHITE))
    icc = pyvips.Image.new_from_file(os.path.join(HDR, name)).get("icc-profile-data")
    assert b"P3" in icc or "P3".encode("utf-16-be") in icc   # its description (desc or mluc)
    with tempfile.TemporaryDirectory() as folder:
        out = render(name, "out." + extension, folder, "--hdr", transfer)
        with open(out, "rb") as f:
            data = f.read()
        signal = samples(out)
    if extension == "png":
        cicp = [body for kind, body in png_chunks(data) if kind == "cICP"]
        assert cicp == [bytes([9, 16 if transfer == "pq" else 18, 0, 1])]
        assert not any(kind in ("iCCP", "sRGB", "gAMA", "cHRM") for kind, _ in png_chunks(data))
    else:
        assert nclx_of_avif(data) == (9, 16 if transfer == "pq" else 18, 9, 1)
    nits = pq_to_nits(signal) if transfer == "pq" else hlg_to_nits(signal)
    linear = (nits / SDR_WHITE) @ REC2020_TO_BASE.T
    # The map's upsampling is the decoder's choice (ISO 21496-1 leaves it open; libvips
    # resamples it its own way), which shows at the map's edges; AVIF is 10-bit and lossy
    # (quality 50, its default).
    limits = (0.06, 0.2) if extension == "png" else (0.1, 0.25)

    def held(candidate):
        error = log_luminance_error(candidate, reference, sdr)
        p90, p99 = np.percentile(error, 90), np.percentile(error, 99)
        assert p90 < limits[0] and p99 < limits[1], (np.percentile(error, 50), p90, p99)

    held(linear)
    # The SDR image placed at 203 cd/m² (the map left out) must fail the same check.
    with pytest.raises(AssertionError):
        held(np.where(sdr <= 0.04045, sdr / 12.92, ((sdr + 0.055) / 1.055) ** 2.4))


def test_sdr_white_is_203_nits_and_75_percent_hlg():
    """A white SDR input without a map: PQ's signal for 203 cd/m² (0.5806) and HLG's 75%."""
    with tempfile.TemporaryDirectory() as folder:
        white = os.path.join(folder, "white.png")
        pyvips.Image.black(16, 16, bands=3).invert().cast("uchar").write_to_file(white)
        chain = os.path.join(folder, "chain.json")
        with open(chain, "w") as f:
            json.dump({"version": 1, "filters": []}, f)
        for transfer, expected in [("pq", 0.5806), ("hlg", 0.75)]:
            out = os.path.join(folder, transfer + ".png")
            r = subprocess.run([os.path.join(BIN, "filterchain"), "apply", chain, white, out, "--hdr", transfer],
                               capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            assert np.allclose(samples(out), expected, atol=2e-4), samples(out)[0, 0]


@pytest.mark.parametrize("headroom", [0.0, 1.0, 2.5])
def test_a_headroom_renders_the_map_for_that_display(headroom):
    """`--hdr-headroom H`: the map's gain raised to ISO 21496-1's weight for a display of H
    stops (0: the SDR image itself, at 203 cd/m²)."""
    name = "gen_chelsea_300x451_s2.jpg"
    sdr, reference = reconstruction(name, headroom)
    with tempfile.TemporaryDirectory() as folder:
        out = render(name, "out.png", folder, "--hdr", "pq", "--hdr-headroom", str(headroom))
        linear = (pq_to_nits(samples(out)) / SDR_WHITE) @ REC2020_TO_BASE.T
    error = log_luminance_error(linear, reference, sdr)
    assert np.percentile(error, 90) < 0.06 and np.percentile(error, 99) < 0.2, np.percentile(error, [50, 90, 99])
    if headroom > 0:
        full = log_luminance_error(linear, reconstruction(name)[1], sdr)
        assert np.percentile(full, 90) > 0.1   # not the full capacity
