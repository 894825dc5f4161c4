#!/usr/bin/env python3
"""Writes samples/luts/warm-film.cube: a 17^3 "warm film" look for the lut filter.

Part of filterchain, under the project's licence. The look, on values in [0, 1]:
  1. a gentle S-curve on luma (contrast around mid-grey),
  2. shadows pushed towards teal and highlights towards warm orange (split toning),
  3. saturation lowered by 15%, as film stocks render it.
Run from the repository root: python3 samples/make-look-cube.py
"""
import math

N = 17


def s_curve(v):
    # smoothstep blended 40% with the identity: more contrast, ends fixed.
    v = min(max(v, 0.0), 1.0)
    return 0.6 * v + 0.4 * v * v * (3 - 2 * v)


def look(r, g, b):
    luma = 0.2126 * r + 0.7152 * g + 0.0722 * b
    target = s_curve(luma)
    # Contrast on luma, carried to each channel.
    r, g, b = (c + (target - luma) for c in (r, g, b))
    # Split toning: teal (-, +, +) in the shadows, warm (+, 0, -) in the highlights.
    shadow = (1 - target) ** 2
    highlight = target ** 2
    r += -0.04 * shadow + 0.06 * highlight
    g += 0.015 * shadow + 0.01 * highlight
    b += 0.05 * shadow - 0.07 * highlight
    # Film-like saturation.
    luma = 0.2126 * r + 0.7152 * g + 0.0722 * b
    r, g, b = (luma + 0.85 * (c - luma) for c in (r, g, b))
    return r, g, b


def main():
    lines = [
        "# A warm film look, made by samples/make-look-cube.py (filterchain).",
        'TITLE "filterchain warm film"',
        "LUT_3D_SIZE %d" % N,
        "",
    ]
    for bi in range(N):
        for gi in range(N):
            for ri in range(N):  # red changes fastest
                out = look(ri / (N - 1), gi / (N - 1), bi / (N - 1))
                assert all(math.isfinite(v) for v in out)
                lines.append("%.6f %.6f %.6f" % out)
    with open("samples/luts/warm-film.cube", "w", newline="\n") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
