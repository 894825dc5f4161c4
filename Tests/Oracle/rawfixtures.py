"""Camera RAW test files made at test time (no camera RAW can be committed): a photograph from
../shared/images (or the repository's samples) turned into what a sensor records, and written as a
DNG with pidng (PyPI, MIT).

The scene: the photograph's sRGB values decoded to linear light, to XYZ (D65), then to the
camera's RGB through CAMERA_MATRIX (Adobe's D65 XYZ-to-camera matrix of a Canon EOS 5D Mark IV,
as dcraw lists it) under LIGHT (a warm light, so that the white balance matters), scaled so that
the scene's white sits at `headroom` of the range above the black level; then mosaiced with a 2x2
pattern and rounded. Tags: the pattern, BlackLevel, WhiteLevel, ColorMatrix1 (D65),
AsShotNeutral (the light's white in camera RGB) and Orientation."""
import os

import numpy as np

CAMERA_MATRIX = [[0.6446, -0.0366, -0.0864], [-0.4436, 1.2204, 0.2513], [-0.0952, 0.2496, 0.6348]]
LIGHT = (1.3, 1.0, 0.7)
SRGB_TO_XYZ = np.array([[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750],
                        [0.0193339, 0.1191920, 0.9503041]])
PATTERNS = {"RGGB": [0, 1, 1, 2], "BGGR": [2, 1, 1, 0], "GRBG": [1, 0, 2, 1], "GBRG": [1, 2, 0, 1]}
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def photograph(width, height, name="chelsea.png"):
    """A photograph as float sRGB values 0..1, resized to width x height (Pillow, Lanczos)."""
    from PIL import Image
    for folder in (os.path.join(ROOT, "..", "shared", "images"), os.path.join(ROOT, "samples")):
        path = os.path.join(folder, name)
        if os.path.exists(path):
            im = Image.open(path).convert("RGB").resize((width, height), Image.LANCZOS)
            return np.asarray(im, dtype=np.float64) / 255.0
    raise FileNotFoundError(name)


def srgb_to_linear(v):
    v = np.asarray(v, dtype=np.float64)
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(v):
    v = np.clip(np.asarray(v, dtype=np.float64), 0, 1)
    return np.where(v <= 0.0031308, v * 12.92, 1.055 * v ** (1 / 2.4) - 0.055)


def camera_samples(rgb, black, white, headroom=0.85):
    """Linear camera RGB samples (float, before the mosaic) of an sRGB photograph."""
    lin = srgb_to_linear(rgb)
    cam_from_srgb = np.diag(LIGHT) @ np.asarray(CAMERA_MATRIX) @ SRGB_TO_XYZ
    wn = np.asarray(CAMERA_MATRIX) @ np.asarray([0.95047, 1.0, 1.08883]) * np.asarray(LIGHT)
    scale = headroom * (white - black) / wn.max()
    cam = lin @ cam_from_srgb.T * scale + black
    return np.clip(cam, 0, white), wn / wn.max()


def mosaic(cam, pattern):
    h, w, _ = cam.shape
    out = np.empty((h, w), np.uint16)
    colours = PATTERNS[pattern]
    for k, (dy, dx) in enumerate(((0, 0), (0, 1), (1, 0), (1, 1))):
        out[dy::2, dx::2] = np.rint(cam[dy::2, dx::2, colours[k]]).astype(np.uint16)
    return out


def write_dng(path, raw, pattern="RGGB", black=512, white=16383, neutral=(1, 1, 1), orientation=1,
              compress=False, make="Filterchain", model="Test Camera", as_shot=True):
    """A DNG of the mosaic `raw` (uint16, H x W), stored as 16-bit samples (white level `white`:
    12 or 14 bits of range), uncompressed or lossless JPEG (pidng's LJ92)."""
    from pidng.core import RAW2DNG, DNGTags, Tag
    from pidng.defs import PhotometricInterpretation, CalibrationIlluminant
    h, w = raw.shape
    t = DNGTags()
    t.set(Tag.ImageWidth, w)
    t.set(Tag.ImageLength, h)
    t.set(Tag.TileWidth, w)
    t.set(Tag.TileLength, h)
    t.set(Tag.Orientation, orientation)
    t.set(Tag.PhotometricInterpretation, PhotometricInterpretation.Color_Filter_Array)
    t.set(Tag.SamplesPerPixel, 1)
    t.set(Tag.BitsPerSample, 16)
    t.set(Tag.CFARepeatPatternDim, [2, 2])
    t.set(Tag.CFAPattern, PATTERNS[pattern])
    t.set(Tag.BlackLevel, black)
    t.set(Tag.WhiteLevel, white)
    t.set(Tag.ColorMatrix1, [[int(round(v * 10000)), 10000] for row in CAMERA_MATRIX for v in row])
    t.set(Tag.CalibrationIlluminant1, CalibrationIlluminant.D65)
    if as_shot:
        t.set(Tag.AsShotNeutral, [[int(round(v * 1000000)), 1000000] for v in neutral])
    t.set(Tag.Make, make)
    t.set(Tag.Model, model)
    t.set(Tag.UniqueCameraModel, "%s %s" % (make, model))
    _LJ92["raw"], _LJ92["bits"] = raw, 16
    r = RAW2DNG()
    r.options(t, path="", compress=compress)
    data = bytes(r.convert(raw))
    with open(path, "wb") as f:
        f.write(data)
    return path


def make_dng(path, width=600, height=400, pattern="RGGB", bits=14, black=512, orientation=1, compress=False,
             headroom=0.85, name="chelsea.png", as_shot=True):
    white = (1 << bits) - 1
    rgb = photograph(width, height, name)
    cam, neutral = camera_samples(rgb, black, white, headroom)
    return write_dng(path, mosaic(cam, pattern), pattern, black, white, neutral, orientation, compress, as_shot=as_shot)


def repack(path, bits):
    """The DNG at `path` with its 16-bit samples packed to `bits` bits, most significant bit
    first and each row from a byte boundary, as the DNG specification packs them (BitsPerSample
    changed to match); what cameras and converters write. Uncompressed, one tile or strip."""
    import struct
    data = bytearray(open(path, "rb").read())
    assert data[:4] == b"II*\x00"
    (ifd,) = struct.unpack_from("<I", data, 4)
    (count,) = struct.unpack_from("<H", data, ifd)
    tags = {}
    for i in range(count):
        at = ifd + 2 + 12 * i
        tag, typ, n = struct.unpack_from("<HHI", data, at)
        tags[tag] = (at, typ, n)
    def value(tag):
        at, typ, n = tags[tag]
        return struct.unpack_from("<H" if typ == 3 else "<I", data, at + 8)[0]
    width, height = value(256), value(257)
    offset_tag, count_tag = (324, 325) if 324 in tags else (273, 279)
    offset = value(offset_tag)
    samples = np.frombuffer(bytes(data[offset:offset + width * height * 2]), "<u2").reshape(height, width).astype(np.uint64)
    row_bytes = (width * bits + 7) // 8
    packed = bytearray()
    for row in samples:
        acc, have, out = 0, 0, bytearray()
        for v in row.tolist():
            acc = (acc << bits) | v
            have += bits
            while have >= 8:
                have -= 8
                out.append((acc >> have) & 0xFF)
            acc &= (1 << have) - 1
        if have:
            out.append((acc << (8 - have)) & 0xFF)
        assert len(out) == row_bytes
        packed += out
    # BitsPerSample (a SHORT in the entry), the byte count, and the data in place (shorter).
    at, _, _ = tags[258]
    struct.pack_into("<H", data, at + 8, bits)
    at, typ, _ = tags[count_tag]
    struct.pack_into("<H" if typ == 3 else "<I", data, at + 8, len(packed))
    data[offset:offset + width * height * 2] = packed
    out_path = path[:-4] + "-%dbit.dng" % bits
    open(out_path, "wb").write(bytes(data))
    return out_path


def lj92(raw, bits=16):
    """Lossless JPEG (ITU T.81 process 14, SOF3) of a mosaic, as DNG's compression 7 holds it: two
    components (a row's samples in pairs, so each is predicted from the last of its own colour),
    predictor 1 (left; a row's first sample from the one above), one Huffman table of 5-bit codes
    for the 17 difference categories. Written here because pidng's own encoder (a C extension)
    fails on Python 3.10 and newer."""
    h, w = raw.shape
    assert w % 2 == 0
    clrs, wide = 2, w // 2
    out = bytearray(b"\xff\xd8")
    # DHT: class 0, table 0; 17 codes of length 5 (none of them all ones).
    counts = [0] * 16
    counts[4] = 17
    dht = bytes([0x00]) + bytes(counts) + bytes(range(17))
    out += b"\xff\xc4" + (2 + len(dht)).to_bytes(2, "big") + dht
    sof = bytes([bits]) + h.to_bytes(2, "big") + wide.to_bytes(2, "big") + bytes([clrs])
    sof += b"".join(bytes([c, 0x11, 0]) for c in range(clrs))
    out += b"\xff\xc3" + (2 + len(sof)).to_bytes(2, "big") + sof
    sos = bytes([clrs]) + b"".join(bytes([c, 0x00]) for c in range(clrs)) + bytes([1, 0, 0])
    out += b"\xff\xda" + (2 + len(sos)).to_bytes(2, "big") + sos
    # Differences, all at once: left neighbour of the same colour, the first column from above.
    a = raw.astype(np.int64)
    pred = np.empty_like(a)
    pred[:, clrs:] = a[:, :-clrs]
    pred[0, :clrs] = 1 << (bits - 1)
    pred[1:, :clrs] = a[:-1, :clrs]
    diff = (a - pred) & 0xFFFF
    diff = np.where(diff >= 0x8000, diff - 0x10000, diff)  # -32768 ... 32767
    mag = np.abs(diff)
    ssss = np.zeros_like(mag)
    nz = mag > 0
    ssss[nz] = np.floor(np.log2(mag[nz])).astype(np.int64) + 1
    ssss[diff == -32768] = 16
    extra = np.where(diff < 0, diff - 1, diff) & ((1 << ssss) - 1)
    # Bits: each sample's 5-bit category code, then its ssss extra bits (none for 16).
    acc, nbits, data = 0, 0, bytearray()
    for s, e in zip(ssss.ravel().tolist(), extra.ravel().tolist()):
        acc = (acc << 5) | s
        nbits += 5
        if s and s < 16:
            acc = (acc << s) | e
            nbits += s
        while nbits >= 8:
            nbits -= 8
            byte = (acc >> nbits) & 0xFF
            data.append(byte)
            if byte == 0xFF:
                data.append(0)
        acc &= (1 << nbits) - 1
    if nbits:
        byte = ((acc << (8 - nbits)) | ((1 << (8 - nbits)) - 1)) & 0xFF
        data.append(byte)
        if byte == 0xFF:
            data.append(0)
    out += data + b"\xff\xd9"
    return bytes(out)


def _install_lj92():
    """pidng imports `pack16tolj` from its C extension when asked to compress: ours instead."""
    import sys
    import types
    module = types.ModuleType("ljpegCompress")
    state = {}

    def pack16tolj(frame, *args):
        return lj92(state["raw"], state["bits"])
    module.pack16tolj = pack16tolj
    sys.modules["ljpegCompress"] = module
    return state


_LJ92 = _install_lj92()
