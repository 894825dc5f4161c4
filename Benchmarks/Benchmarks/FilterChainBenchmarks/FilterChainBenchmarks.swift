import Benchmark
import FilterChain
import Foundation

// One iteration processes one whole 4000 x 3000 (12 MP) image, so `throughput` is images per
// second and `wallClock` is the time for one image. `pixels/s` is the same rate in pixels
// (useful where throughput rounds to a small whole number or to 0 for images slower than 2 s).

let width = 4000
let height = 3000
let pixelCount = width * height

let pixelsPerSecond = BenchmarkMetric.custom("pixels/s", polarity: .prefersLarger, useScalingFactor: false)

/// Runs `work` once, timing it, and records the rate in pixels per second.
func measured(_ benchmark: Benchmark, _ work: () throws -> Void) rethrows {
    let start = ContinuousClock.now
    try work()
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    if seconds > 0 {
        benchmark.measurement(pixelsPerSecond, Int((Double(pixelCount) / seconds).rounded()))
    }
}

// MARK: - Test images

/// A photo-like test image: smooth gradients and blobs plus a little noise, so blurs and
/// codecs see realistic data (noise keeps PNG from compressing it to nothing).
func syntheticImage(alpha: Bool) throws -> RasterImage {
    let channels = alpha ? 4 : 3
    var pixels = [UInt8](repeating: 0, count: pixelCount * channels)
    // Separable smooth pattern from per-column and per-row tables.
    let cols = (0..<width).map { x in sin(Double(x) / 310.0) }
    let rows = (0..<height).map { y in cos(Double(y) / 230.0) }
    var rng: UInt64 = 0x9E37_79B9_7F4A_7C15
    pixels.withUnsafeMutableBufferPointer { p in
        var i = 0
        for y in 0..<height {
            let ry = rows[y]
            let fy = Double(y) / Double(height)
            for x in 0..<width {
                let cx = cols[x]
                let fx = Double(x) / Double(width)
                rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17
                let n = Double(Int(rng & 15) - 8)
                let r = 128 + 90 * cx * ry + 30 * fx + n
                let g = 110 + 80 * fy + 40 * cx + n
                let b = 100 + 70 * ry - 40 * fx * fy + n
                p[i] = UInt8(max(0, min(255, r)))
                p[i + 1] = UInt8(max(0, min(255, g)))
                p[i + 2] = UInt8(max(0, min(255, b)))
                if alpha {
                    // Opaque over most of the image, fading to transparent at the right edge,
                    // with a transparent hole: exercises premultiplied blurring.
                    let dx = fx - 0.3, dy = fy - 0.5
                    let hole = dx * dx + dy * dy < 0.01
                    let a = hole ? 0 : min(255, max(0, (1 - fx) * 400))
                    p[i + 3] = UInt8(a)
                }
                i += channels
            }
        }
    }
    return try RasterImage(width: width, height: height,
                       format: PixelFormat(alpha ? .rgba : .rgb, .eight), pixels: pixels)
}

// MARK: - Filters

func colorControls() -> ColorControls {
    var f = ColorControls()
    f.saturation = 1.2
    f.brightness = 0.02
    f.contrast = 1.1
    return f
}

func toneCurve() -> ToneCurve {
    var f = ToneCurve()
    f.points = [CurvePoint(0, 0), CurvePoint(0.25, 0.2), CurvePoint(0.5, 0.5),
                CurvePoint(0.75, 0.82), CurvePoint(1, 1)]
    return f
}

func gaussianBlur(_ sigma: Double) -> GaussianBlur {
    var f = GaussianBlur()
    f.sigma = sigma
    return f
}

/// The whole chain the in-memory and file benchmarks run.
func fullChain() -> Chain {
    Chain([colorControls(), toneCurve(), gaussianBlur(2)])
}

// MARK: - Benchmarks

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .peakMemoryResident, pixelsPerSecond],
        timeUnits: .milliseconds,
        units: [.peakMemoryResident: .mega, pixelsPerSecond: .kilo],
        warmupIterations: 1,
        maxDuration: .seconds(5),
        maxIterations: 20)

    // In memory: RasterImage in, RasterImage out (8-bit RGB, 12 MP), all cores.
    let memoryCases: [(String, Chain)] = [
        ("colorControls", Chain([colorControls()])),
        ("toneCurve", Chain([toneCurve()])),
        ("gaussianBlur sigma 2", Chain([gaussianBlur(2)])),
        ("gaussianBlur sigma 20", Chain([gaussianBlur(20)])),
        ("chain colorControls+toneCurve+blur2", fullChain()),
    ]
    for (name, chain) in memoryCases {
        Benchmark("Memory 12MP RGB8: \(name)") { benchmark, state in
            let (renderer, image) = state
            try measured(benchmark) {
                blackHole(try renderer.apply(chain, to: image))
            }
        } setup: {
            (Renderer(stripHeight: 32), try syntheticImage(alpha: false))
        }
    }

    // File to file: decode, run the chain, encode. Input files are written once per benchmark
    // (in setup, not measured) into a temporary folder that teardown removes.
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("filterchain-benchmarks-\(ProcessInfo.processInfo.processIdentifier)").path
    // PNG iterations take seconds (zlib on noisy RGBA), so they get a longer budget.
    let fileCases: [(name: String, input: String, alpha: Bool, output: String, chain: Chain, seconds: Int64)] = [
        ("JPEG RGB -> JPEG: chain", "in.jpg", false, "out.jpg", fullChain(), 8),
        ("PNG RGBA -> PNG: chain", "in.png", true, "out.png", fullChain(), 15),
        ("JPEG RGB -> JPEG: no filters (codecs only)", "in.jpg", false, "out.jpg", Chain(steps: []), 8),
        ("PNG RGBA -> PNG: no filters (codecs only)", "in.png", true, "out.png", Chain(steps: []), 15),
    ]
    for c in fileCases {
        let input = folder + "/" + c.input
        let output = folder + "/" + c.output
        Benchmark("File 12MP \(c.name)",
                  configuration: .init(maxDuration: .seconds(c.seconds), maxIterations: 10)) { (benchmark: Benchmark, renderer: Renderer) in
            try measured(benchmark) {
                let result = try renderer.render(c.chain, source: .file(input), outputs: [
                    RenderOutput(step: c.chain.steps.count, .file(.file(output), EncodeOptions())),
                ])
                blackHole(result)
            }
        } setup: { () throws -> Renderer in
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let renderer = Renderer(stripHeight: 32)
            _ = try renderer.render(Chain(steps: []), image: try syntheticImage(alpha: c.alpha), outputs: [
                RenderOutput(step: 0, .file(.file(input), EncodeOptions())),
            ])
            return renderer
        } teardown: {
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    // The editor's re-render: an edit of step 3 of a five-step chain, on the 12 MP image's
    // 1024-pixel preview (PreviewSession), both previews ("after step 3" and "final"). Each
    // iteration changes the blur's sigma, so steps 3 to 5 run again from the cached image
    // after step 2, as when a slider moves.
    // With each preview encoded as the editor's server sends it: 8-bit PNG, zlib level 0 or 1.
    for encode in [nil, 0, 1] as [Int?] {
        Benchmark("Preview 1024: edit step 3 of 5, both previews" + (encode.map { " + PNG level \($0)" } ?? ""),
                  configuration: .init(metrics: [.wallClock, .throughput, .peakMemoryResident],
                                       maxDuration: .seconds(5), maxIterations: 200)) { benchmark, edit in
            for _ in benchmark.scaledIterations {
                blackHole(try edit.next(encode: encode))
            }
        } setup: {
            try PreviewEdit()
        }
    }
}

/// One slider step after another on a preview session.
final class PreviewEdit: @unchecked Sendable {
    let session: PreviewSession
    var chain: Chain
    var count = 0
    let folder: String

    init() throws {
        session = try PreviewSession(image: try syntheticImage(alpha: false), maxSize: 1024, renderer: Renderer(stripHeight: 32))
        chain = Chain([colorControls(), toneCurve(), gaussianBlur(8), colorControls(), toneCurve()])
        folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("filterchain-preview-benchmark-\(ProcessInfo.processInfo.processIdentifier)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = try session.render(chain, at: [3, 5])
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    func next(encode: Int?) throws -> [RasterImage] {
        count += 1
        chain.steps[2].filter = gaussianBlur(8 + Double(count % 8) / 4)
        let images = [try session.render(chain, at: [3])[0], try session.render(chain, at: [5])[0]]
        if let level = encode {
            for (i, image) in images.enumerated() {
                _ = try session.renderer.render(Chain(), image: image, outputs: [
                    RenderOutput(step: 0, .file(.file(folder + "/preview\(i).png"),
                                                 EncodeOptions(format: .png, depth: .eight, compressionLevel: level))),
                ])
            }
        }
        return images
    }
}
