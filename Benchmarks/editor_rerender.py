#!/usr/bin/env python3
"""The editor's re-render after an edit of a graph, measured as the page sees it.

Starts `filterchain edit` (a release build) on a copy of samples/chains/glow.json (a blur of
the source screened over it, then an exposure through a radial mask) and a photograph, then,
for each edit, does what the page does after a change: PUT the chain, GET the preview of the
edited node, GET the final preview, both at 1024 pixels on the long side (the page's size),
one after the other. Each edit changes a different value, so nothing comes from a cache
that the edit should have invalidated. Three kinds of edit, taken in turn: the blur's sigma
(step 1: every node renders again), the blend's opacity (step 2) and the mask's centre (step
3, as a handle drag sends it). The thumbnails (`/api/thumbnails`, which the page asks for
once the previews are in) are timed apart: they are not on the path from an edit to the
previews.

Prints the machine, the commit, and for each kind p50, p90 and the range in milliseconds of
the whole (PUT + edited node + final) and of each request.

  python3 Benchmarks/editor_rerender.py [--bin .build/release] [--image PHOTO] [--runs 60]

--image defaults to the benchmark's 14.7 MP JPEG (~/.cache/filterchain-bench/big.jpg, which
../shared/bench/compare fetches); any photograph larger than 1024 pixels will do. Build first:
swift build -c release --static-swift-stdlib --product filterchain, and --product
filterchain-edit. Run on an otherwise idle machine.
"""
import argparse
import copy
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def percentile(values, p):
    ordered = sorted(values)
    k = (len(ordered) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"))
    parser.add_argument("--image", default=os.path.expanduser("~/.cache/filterchain-bench/big.jpg"))
    parser.add_argument("--runs", type=int, default=60, help="edits of each kind")
    parser.add_argument("--threads", type=int, default=None, help="the editor's --threads (default: one per core)")
    args = parser.parse_args()
    if not os.path.exists(args.image):
        sys.exit(f"{args.image}: no such file; give --image a photograph larger than 1024 pixels")

    folder = tempfile.mkdtemp(prefix="filterchain-rerender-")
    chain_path = os.path.join(folder, "glow.json")
    with open(os.path.join(ROOT, "samples", "chains", "glow.json")) as f:
        glow = json.load(f)
    with open(chain_path, "w") as f:
        json.dump(glow, f)
    command = [os.path.join(args.bin, "filterchain"), "edit", chain_path, args.image, "--no-browser"]
    if args.threads:
        command += ["--threads", str(args.threads)]
    started = time.monotonic()
    editor = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = editor.stdout.readline().strip()
    if not url.startswith("http://"):
        sys.exit("the editor did not start: " + editor.stderr.read())
    opened = time.monotonic() - started
    base, token = url.split("?token=")
    headers = {"X-Filterchain-Token": token}

    def request(method, path, body=None):
        t = time.perf_counter()
        r = urllib.request.Request(base.rstrip("/") + path, data=body, method=method, headers=headers)
        with urllib.request.urlopen(r) as response:
            data = response.read()
        return data, (time.perf_counter() - t) * 1000

    info = json.loads(request("GET", "/api/info")[0])
    ids = [s["id"] for s in glow["filters"]]

    def edit(kind, n):
        c = copy.deepcopy(glow)
        if kind == "blur sigma":
            c["filters"][0]["parameters"]["sigma"] = 10 + (n % 50) * 0.05 + 0.01
            return c, ids[0]
        if kind == "blend opacity":
            c["filters"][1]["parameters"]["opacity"] = 0.3 + (n % 50) * 0.008 + 0.001
            return c, ids[1]
        c["filters"][2]["mask"]["center"] = [0.4 + (n % 50) * 0.004 + 0.0005, 0.45]
        return c, ids[2]

    def rerender(chain, node):
        _, put = request("PUT", "/api/chain", json.dumps(chain).encode())
        left, t_left = request("GET", f"/api/render?step={node}&size=1024")
        right, t_right = request("GET", "/api/render?step=3&size=1024")
        assert left[:8] == b"\x89PNG\r\n\x1a\n" and right[:8] == b"\x89PNG\r\n\x1a\n"
        return put, t_left, t_right

    kinds = ["blur sigma", "blend opacity", "mask centre"]
    for n in range(3):  # warm-up: caches, allocators, the first session
        for kind in kinds:
            rerender(*edit(kind, 1000 + n))
    times = {k: [] for k in kinds}
    thumbnails = []
    for n in range(args.runs):
        for kind in kinds:
            put, left, right = rerender(*edit(kind, n))
            times[kind].append((put + left + right, put, left, right))
        if n % 5 == 0:
            thumbnails.append(request("GET", "/api/thumbnails?size=152")[1])

    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), platform.processor()) \
        if os.path.exists("/proc/cpuinfo") else platform.processor()
    print(f"machine: {os.cpu_count()} cores ({cpu}), {platform.system()} {platform.release()}; commit {commit}; "
          f"editor threads: {args.threads or 'one per core'}")
    print(f"image: {args.image} ({info['width']} x {info['height']}), previews {info.get('previewWidth')} x "
          f"{info.get('previewHeight')}; editor ready in {opened:.1f} s; {args.runs} edits of each kind")
    print()
    print("| edit | whole p50 (ms) | p90 | range | PUT p50 | edited node p50 | final p50 |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    everything = []
    for kind in kinds:
        rows = times[kind]
        whole = [r[0] for r in rows]
        everything += whole
        print(f"| {kind} | {statistics.median(whole):.0f} | {percentile(whole, 90):.0f} | {min(whole):.0f}-{max(whole):.0f} | "
              f"{statistics.median(r[1] for r in rows):.1f} | {statistics.median(r[2] for r in rows):.0f} | "
              f"{statistics.median(r[3] for r in rows):.0f} |")
    print(f"| all | {statistics.median(everything):.0f} | {percentile(everything, 90):.0f} | "
          f"{min(everything):.0f}-{max(everything):.0f} | | | |")
    print()
    print(f"thumbnails of the 4 nodes (152 px, after an edit): p50 {statistics.median(thumbnails):.0f} ms")
    editor.terminate()
    editor.wait(timeout=20)


if __name__ == "__main__":
    main()
