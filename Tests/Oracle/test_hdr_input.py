"""HDR inputs without a gain map (PQ and HLG by cICP or nclx) against the equations.

The inputs are made here: 16-bit PNGs of known light (a ramp from 0.05 to 4,000 cd/m² across,
grey and colours down), written with libvips and given a cICP chunk by this file; and the PQ
AVIF of ../shared/conformance/avif, decoded by libvips. Their expected outputs come from this
file's own implementation of SMPTE ST 2084, BT.2100 HLG (1,000 cd/m² display, system gamma
1.2), SDR white at 203 cd/m² (BT.2408) and ITU-R BT.2390's EETF (section 5.4.1) on the
largest BT.2020 component, as filters.md documents them:
- SDR outputs: the EETF from the source's peak (1,000 cd/m²) to 203 cd/m², BT.2020 to Display
  P3 (the default output colour of an HDR source), clipped, the sRGB curve;
- `--hdr pq`: the light as it came (no mapping: the source's peak is PQ's default headroom);
- `--hdr pq --hdr-headroom 1`: the EETF to 406 cd/m²;
- `--hdr hlg`: the light held at HLG's 1,000 cd/m² peak.

Run from the package root after `swift build`: python3 -m pytest Tests/Oracle -q
"""

import os
import struct
import subprocess
import tempfile
import zlib

import numpy as np
import pytest

pyvips = pytest.importorskip("pyvips") if not os.environ.get("CI") else __import__("pyvips")

from test_hdr_output import BIN, ROOT, hlg_to_nits, png_chunks, pq_to_nits, rgb_to_xyz, samples

SDR_WHITE = 203.0
PQ_AVIF = os.path.join(os.path.dirname(ROOT), "shared", "conformance", "avif", "files",
                       "gen_avifenc_10bit_422_pq_limited.avif")
REC2020 = rgb_to_xyz([(0.708, 0.292), (0.170, 0.797), (0.131, 0.046)])
DISPLAY_P3 = rgb_to_xyz([(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)])
REC2020_TO_P3 = np.linalg.inv(DISPLAY_P3) @ REC2020


def nits_to_pq(nits):
    m1, m2 = 2610 / 16384, 2523 / 4096 * 128
    c1, c2, c3 = 3424 / 4096, 2413 / 4096 * 32, 2392 / 4096 * 32
    y = np.power(np.clip(nits / 10000, 0, 1), m1)
    return np.power((c1 + c2 * y) / (1 + c3 * y), m2)


def nits_to_hlg(nits):
    """Display light (BT.2020, cd/m²) to HLG signals for a 1,000 cd/m² display."""
    fd = np.clip(nits, 0, 1000) / 1000
    yd = fd @ np.array([0.2627, 0.6780, 0.0593])
    es = fd * np.power(np.maximum(yd, 1e-12), (1 - 1.2) / 1.2)[..., None]
    a = 0.17883277
    b, c = 1 - 4 * a, 0.5 - a * np.log(4 * a)
    es = np.clip(es, 0, 1)
    return np.where(es <= 1 / 12, np.sqrt(3 * es), a * np.log(np.maximum(12 * es - b, 1e-12)) + c)


def eetf(nits, source_peak, target_peak):
    """BT.2390-8 section 5.4.1, black 0 at both ends, in cd/m²."""
    if target_peak >= source_peak:
        return nits
    top = nits_to_pq(np.float64(source_peak))
    e1 = np.clip(nits_to_pq(nits) / top, 0, 1)
    m = nits_to_pq(np.float64(target_peak)) / top
    ks = 1.5 * m - 0.5
    t = (e1 - ks) / (1 - ks)
    spline = (2 * t**3 - 3 * t**2 + 1) * ks + (t**3 - 2 * t**2 + t) * (1 - ks) + (-2 * t**3 + 3 * t**2) * m
    return np.where(e1 < ks, nits, pq_to_nits(np.where(e1 < ks, e1, spline) * top))


def tone_mapped(nits, source_peak, target_peak):
    """The EETF on each pixel's largest component, the pixel scaled by the ratio."""
    peak = nits.max(axis=-1, keepdims=True)
    mapped = eetf(peak, source_peak, target_peak)
    return nits * np.where(peak > 0, mapped / np.maximum(peak, 1e-12), 1)


def srgb_encode(v):
    return np.where(v <= 0.0031308, 12.92 * v, 1.055 * np.power(np.maximum(v, 0), 1 / 2.4) - 0.055)


def scene():
    """BT.2020 light in cd/m²: 96 columns from 0.05 to 4,000 (log spaced), rows of grey and of
    colours (saturated ones outside Display P3 among them)."""
    ramp = np.geomspace(0.05, 4000, 96)
    colours = np.array([[1, 1, 1], [1, 0.5, 0.2], [0.2, 0.6, 1], [0.05, 1, 0.05], [1, 0.02, 0.3], [0.7, 0.7, 0.1]])
    rows = np.repeat(colours, 8, axis=0)
    return rows[:, None, :] * ramp[None, :, None]


def write_png(signals, path, transfer):
    """16-bit RGB samples (0...1) as a PNG with cICP 9/transfer/0/1, written by libvips."""
    h, w, _ = signals.shape
    a = np.round(signals * 65535).astype(np.uint16)
    image = pyvips.Image.new_from_memory(a.tobytes(), w, h, 3, "ushort").copy(interpretation="rgb16")
    data = image.write_to_buffer(".png", compression=1, strip=True)
    assert data[12:16] == b"IHDR"
    end = 8 + 12 + struct.unpack(">I", data[8:12])[0]
    body = b"cICP" + bytes([9, transfer, 0, 1])
    chunk = struct.pack(">I", 4) + body + struct.pack(">I", zlib.crc32(body))
    with open(path, "wb") as f:
        f.write(data[:end] + chunk + data[end:])


def apply(src, dst, *args):
    chain = os.path.join(os.path.dirname(dst), "empty.json")
    with open(chain, "w") as f:
        f.write('{"version": 1, "filters": []}')
    run = subprocess.run([os.path.join(BIN, "filterchain"), "apply", chain, src, dst, *args],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return run


def sdr_expected(nits, source_peak=1000.0):
    mapped = tone_mapped(nits, source_peak, SDR_WHITE) / SDR_WHITE
    p3 = np.clip(mapped @ REC2020_TO_P3.T, 0, 1)
    return srgb_encode(p3)


@pytest.fixture(scope="module")
def inputs():
    with tempfile.TemporaryDirectory() as d:
        light = scene()
        pq = os.path.join(d, "pq.png")
        write_png(nits_to_pq(light), pq, 16)
        hlg = os.path.join(d, "hlg.png")
        hlg_light = np.clip(light, 0, 1000)
        write_png(nits_to_hlg(hlg_light), hlg, 18)
        yield d, {"pq": (pq, pq_to_nits(samples(pq))), "hlg": (hlg, hlg_to_nits(samples(hlg)))}


@pytest.mark.parametrize("transfer", ["pq", "hlg"])
def test_sdr_output_is_the_eetf_of_the_light(inputs, transfer):
    d, files = inputs
    src, nits = files[transfer]
    out = os.path.join(d, f"{transfer}-sdr.png")
    run = apply(src, out, "--hdr", "sdr")
    assert "taken as sRGB" not in run.stderr, run.stderr
    got = samples(out)
    expected = sdr_expected(nits)
    worst = np.abs(got - expected).max()
    assert worst < 2e-3, (transfer, worst, np.unravel_index(np.abs(got - expected).argmax(), got.shape))
    # Written as Display P3 (an ICC profile), and no cICP left to say PQ or HLG.
    with open(out, "rb") as f:
        chunks = [k for k, _ in png_chunks(f.read())]
    assert "iCCP" in chunks and "cICP" not in chunks, chunks


@pytest.mark.parametrize("extra", [[], ["--hdr", "pq"]])
def test_pq_round_trip_keeps_the_light(inputs, extra):
    # A PNG holds HDR: a PQ source stays PQ by default.
    d, files = inputs
    src, nits = files["pq"]
    out = os.path.join(d, "pq-again.png")
    apply(src, out, *extra)
    with open(out, "rb") as f:
        assert dict(png_chunks(f.read())).get("cICP") == bytes([9, 16, 0, 1])
    back = pq_to_nits(samples(out))
    # Within 0.2% (a 16-bit PQ step is about 0.03% of the light), from 0.1 cd/m² up.
    bright = nits > 0.1
    assert np.abs(back[bright] / nits[bright] - 1).max() < 2e-3


def test_pq_to_a_smaller_headroom_is_tone_mapped(inputs):
    d, files = inputs
    src, nits = files["pq"]
    out = os.path.join(d, "pq-one-stop.png")
    apply(src, out, "--hdr", "pq", "--hdr-headroom", "1")
    back = pq_to_nits(samples(out))
    expected = tone_mapped(nits, 1000.0, 2 * SDR_WHITE)
    bright = expected > 0.1
    assert np.abs(back[bright] / expected[bright] - 1).max() < 3e-3
    assert back.max() <= 2 * SDR_WHITE * 1.003


def test_pq_to_hlg_holds_the_light_at_its_peak(inputs):
    d, files = inputs
    src, nits = files["pq"]
    out = os.path.join(d, "pq-hlg.png")
    apply(src, out, "--hdr", "hlg")
    back = hlg_to_nits(samples(out))
    # Grey: the light as it came up to 1,000 cd/m², held there above it.
    grey = nits[:8]
    expected = np.minimum(grey, 1000)
    bright = expected > 1
    assert np.abs(back[:8][bright] / expected[bright] - 1).max() < 5e-3


def test_pq_avif_reads_as_the_equations_say():
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "avif-sdr.png")
        run = apply(PQ_AVIF, out, "--hdr", "sdr")
        assert "taken as sRGB" not in run.stderr, run.stderr
        nits = pq_to_nits(samples_any(PQ_AVIF))
        expected = sdr_expected(nits)
        got = samples(out)
        diff = np.abs(got - expected)
        # Two YUV to RGB conversions of 4:2:2 chroma (filterchain's libavif upsamples it
        # bilinearly, libvips's libheif takes the nearest) differ at colour edges, and PQ's
        # steps are large: 0.0035 on average (under one 8-bit level), 0.025 at the 99th
        # percentile. The same file taken as sRGB is 0.15 off on average.
        assert diff.mean() < 5e-3 and np.quantile(diff, 0.99) < 4e-2, (diff.mean(), np.quantile(diff, 0.99))


def samples_any(path):
    image = pyvips.Image.new_from_file(path)
    if image.format != "ushort":
        image = image.cast("ushort") * 257
    a = np.ndarray(buffer=image.cast("ushort").write_to_memory(), dtype=np.uint16, shape=[image.height, image.width, image.bands])
    return a[..., :3].astype(np.float64) / 65535.0


def test_gain_map_create_gives_the_light_back(inputs):
    """`--gain-map create` from a PQ source: an Ultra HDR JPEG that libultrahdr reads back
    (uhdrload, uhdr2scRGB at full capacity, 1.0 = SDR white, the base's Display P3) as the
    source's light, held at its 1,000 cd/m² peak. The expected reconstruction is made here: the
    SDR pixel (the EETF's scale s on the largest BT.2020 component, in Display P3, clipped)
    times the gain 1 / s. Compared in log2 luminance over 8x8 blocks."""
    d, files = inputs
    src, nits = files["pq"]
    out = os.path.join(d, "created.jpg")
    run = apply(src, out, "--gain-map", "create", "--quality", "95", "--chroma", "4:4:4", "--gain-map-quality", "95", "--json")
    assert '"gainMap":"created"' in run.stdout, run.stdout
    image = pyvips.Image.uhdrload(out)
    assert image.get("gainmap-max-content-boost")[0] == pytest.approx(1000 / SDR_WHITE, rel=1e-4)
    hdr = image.uhdr2scRGB()
    hdr = np.ndarray(buffer=hdr.write_to_memory(), dtype=np.float32, shape=[hdr.height, hdr.width, hdr.bands])[:, :, :3]
    peak = nits.max(axis=-1, keepdims=True)
    s = np.where(peak > 0, eetf(peak, 1000.0, SDR_WHITE) / np.maximum(peak, 1e-12), 1)
    sdr = np.clip((nits * s / SDR_WHITE) @ REC2020_TO_P3.T, 0, 1)
    expected = sdr * np.minimum(1 / s, 1000.0 / SDR_WHITE)
    weights = DISPLAY_P3[1]
    got_y = blocks(hdr.astype(np.float64) @ weights)
    want_y = blocks(expected @ weights)
    sdr_y = blocks(sdr @ weights)
    lit = want_y > 0.01
    error = np.abs(np.log2(np.maximum(got_y[lit], 1e-6) / want_y[lit]))
    sdr_error = np.abs(np.log2(np.maximum(sdr_y[lit], 1e-6) / want_y[lit]))
    # 4:4:4 at quality 95 (this scene's colours change every 8 rows, where 4:2:0 chroma
    # alone moves a block by 0.1 stop): within 0.1 stop at the 90th percentile.
    assert np.quantile(error, 0.9) < 0.1 and error.max() < 0.3, (np.quantile(error, 0.9), error.max())
    # The SDR image alone is off by up to the headroom (2.3 stops).
    assert sdr_error.max() > 2


def blocks(v, n=8):
    h, w = (v.shape[0] // n) * n, (v.shape[1] // n) * n
    return v[:h, :w].reshape(h // n, n, w // n, n).mean(axis=(1, 3))


def clli_of_avif(data):
    """The primary item's clli box (MaxCLL, MaxFALL), read here: meta > pitm, iprp > ipco
    (the properties, 1-based) and ipma (the primary's associations)."""
    from test_hdr_output import boxes
    for kind, s, e in boxes(data, 0, len(data)):
        if kind != "meta":
            continue
        children = list(boxes(data, s + 4, e))
        pitm = next((s2, e2) for k2, s2, e2 in children if k2 == "pitm")
        primary = struct.unpack(">H" if data[pitm[0]] == 0 else ">I", data[pitm[0] + 4:pitm[0] + (6 if data[pitm[0]] == 0 else 8)])[0]
        iprp = next((s2, e2) for k2, s2, e2 in children if k2 == "iprp")
        parts = {k3: (s3, e3) for k3, s3, e3 in boxes(data, *iprp)}
        properties = [(k4, data[s4:e4]) for k4, s4, e4 in boxes(data, *parts["ipco"])]
        s3, e3 = parts["ipma"]
        version, flags = data[s3], data[s3 + 3]
        count = struct.unpack(">I", data[s3 + 4:s3 + 8])[0]
        i = s3 + 8
        for _ in range(count):
            item = struct.unpack(">H" if version < 1 else ">I", data[i:i + (2 if version < 1 else 4)])[0]
            i += 2 if version < 1 else 4
            n = data[i]
            i += 1
            for _ in range(n):
                index = (struct.unpack(">H", data[i:i + 2])[0] & 0x7fff) if flags & 1 else data[i] & 0x7f
                i += 2 if flags & 1 else 1
                if item == primary and properties[index - 1][0] == "clli":
                    return struct.unpack(">HH", properties[index - 1][1])
    return None


@pytest.mark.parametrize("extra,peak", [([], None), (["--hdr", "pq", "--hdr-headroom", "1"], 2 * SDR_WHITE)])
def test_an_hdr_avif_says_its_content_light_levels(inputs, extra, peak):
    """The clli box of an HDR AVIF: MaxCLL, the largest component of the brightest pixel, and
    MaxFALL, the image's mean of each pixel's largest component (CTA-861.3), in cd/m², from the
    light made here (tone-mapped to 406 cd/m² for a one-stop headroom)."""
    d, files = inputs
    src, nits = files["pq"]
    out = os.path.join(d, "light.avif")
    apply(src, out, "--quality", "90", *extra)
    with open(out, "rb") as f:
        data = f.read()
    light = nits if peak is None else tone_mapped(nits, 1000.0, peak)
    largest = np.minimum(light.max(axis=-1), 10000)
    max_cll, max_fall = clli_of_avif(data)
    assert max_cll == pytest.approx(np.ceil(largest.max()), rel=5e-3, abs=1), (max_cll, largest.max())
    assert max_fall == pytest.approx(np.ceil(largest.mean()), rel=5e-3, abs=1), (max_fall, largest.mean())
    # Still an AVIF libvips reads, with its pixels where they were (quality 90: this scene's
    # steep ramps cost 0.02 stop at the median).
    back = pq_to_nits(samples(out))
    assert back.shape == nits.shape
    bright = light > 1
    assert np.median(np.abs(np.log2(np.maximum(back[bright], 1e-6) / light[bright]))) < 0.05


def test_a_pq_avif_is_tone_mapped_from_its_own_peak(inputs):
    """A PQ AVIF with a clli box (written by filterchain from the scene, MaxCLL 4,000) is
    tone-mapped from its MaxCLL, not from the 1,000 cd/m² taken without one: the SDR output
    against the EETF from 4,000 cd/m² of the light libvips decodes from the AVIF."""
    d, files = inputs
    src, _ = files["pq"]
    avif = os.path.join(d, "peak.avif")
    apply(src, avif, "--quality", "95")
    info = subprocess.run([os.path.join(BIN, "filterchain"), "info", avif, "--json"], capture_output=True, text=True)
    assert '"contentLight":{"maxCLL":4000' in info.stdout.replace(" ", ""), info.stdout
    nits = pq_to_nits(samples(avif))
    out = os.path.join(d, "peak-sdr.png")
    apply(avif, out, "--hdr", "sdr")
    got = samples(out)
    diff = np.abs(got - sdr_expected(nits, 4000.0))
    wrong = np.abs(got - sdr_expected(nits, 1000.0))
    assert diff.mean() < 2e-3 and np.quantile(diff, 0.99) < 1e-2, (diff.mean(), np.quantile(diff, 0.99))
    assert wrong.mean() > 5 * diff.mean(), (wrong.mean(), diff.mean())
