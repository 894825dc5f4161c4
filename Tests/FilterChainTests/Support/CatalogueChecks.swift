import Foundation
import Testing
@testable import FilterChain

/// Shared checks for the catalogue's filters: through the pipeline against the Double
/// reference, kernels called directly on buffers, and chain-file refusals.
enum Catalogue {
    static let id = "0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41"

    /// Every 8-bit value in every channel (with alpha or not), as FilterReferenceTests uses.
    static func allValues(alpha: Bool) -> Pixels { FilterReferenceTests.allValues(alpha: alpha) }

    /// A 16-bit RGBA image whose channels run through all of 0...65535 (red in order, green
    /// and blue permuted), alpha varied and never 0.
    static func ramp16() -> Pixels {
        var samples: [Int] = []
        samples.reserveCapacity(65536 * 4)
        for v in 0..<65536 {
            samples += [v, (v &* 40_503) & 0xFFFF, 65535 - v, 1 + (v &* 7919) % 65535]
        }
        return Pixels(width: 256, height: 256, format: PixelFormat(.rgba, .sixteen), samples: samples)
    }

    /// Within a level of the formula at 8 bits (exact away from rounding ties).
    static func check(_ filter: any Filter, _ input: Pixels, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try FilterReferenceTests().check(Chain([filter]), input, tieWindow: 0.01, maxDiff: 1, sourceLocation: sourceLocation)
    }

    /// Within `maxDiff` levels of the formula (8 of 65535 at 16 bits).
    static func checkWithin(_ filter: any Filter, _ input: Pixels, maxDiff: Int,
                            sourceLocation: SourceLocation = #_sourceLocation) throws {
        try FilterReferenceTests().checkTolerance(Chain([filter]), input, maxDiff: maxDiff, meanDiff: Double(maxDiff),
                                                  sourceLocation: sourceLocation)
    }

    /// The image through the filter equals the input, sample for sample.
    static func expectIdentity(_ filter: any Filter, times: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for alpha in [false, true] {
            let input = allValues(alpha: alpha)
            let out = try FilterReferenceTests.renderer.apply(Chain(Array(repeating: filter, count: times)), to: input.raster)
            #expect(Pixels(out).samples == input.samples, sourceLocation: sourceLocation)
        }
    }

    /// The message for a chain of one step of `type` with these parameters (JSON members).
    static func refusal(_ type: String, _ parameters: String, file: String = "look.json") -> String? {
        let text = "{\"version\": 1, \"filters\": [{\"id\": \"\(id)\", \"type\": \"\(type)\", \"parameters\": {\(parameters)}}]}"
        do {
            _ = try Chain.parse(Array(text.utf8), file: file)
            return nil
        } catch {
            return error.description
        }
    }

    /// Runs a point kernel on pixels given as (r, g, b, a) in Double; returns what it wrote.
    static func run(_ kernel: any PointKernel, _ pixels: [SIMD4<Double>]) -> [SIMD4<Double>] {
        let planes = Planes(pixels)
        kernel.apply(planes.pixels, count: planes.count)
        return planes.values(pixels.count)
    }

    /// The filter's point kernel (the filter must be a point filter).
    static func kernel(_ filter: any Filter) -> any PointKernel {
        guard case .point(let k) = filter.operation() else { fatalError("\(filter.type) is not a point filter here") }
        return k
    }

    /// Random pixels, colour in -0.25...1.25 (values between steps are not clamped), alpha in 0...1.
    static func randomPixels(_ count: Int, seed: UInt64) -> [SIMD4<Double>] {
        var random = SeededRandom(seed)
        return (0..<count).map { _ in
            SIMD4(Double.random(in: -0.25...1.25, using: &random), Double.random(in: -0.25...1.25, using: &random),
                  Double.random(in: -0.25...1.25, using: &random), Double.random(in: 0...1, using: &random))
        }
    }
}

/// Four 32-byte aligned planes of Float, padded to a multiple of 8 pixels.
final class Planes {
    let count: Int
    let red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>
    let blue: UnsafeMutablePointer<Float>, alpha: UnsafeMutablePointer<Float>

    init(_ pixels: [SIMD4<Double>]) {
        let count = max(8, (pixels.count + 7) / 8 * 8)
        self.count = count
        func plane() -> UnsafeMutablePointer<Float> {
            let raw = UnsafeMutableRawPointer.allocate(byteCount: count * 4, alignment: 32)
            return raw.initializeMemory(as: Float.self, repeating: 0, count: count)
        }
        (red, green, blue, alpha) = (plane(), plane(), plane(), plane())
        for (i, p) in pixels.enumerated() {
            red[i] = Float(p[0]); green[i] = Float(p[1]); blue[i] = Float(p[2]); alpha[i] = Float(p[3])
        }
    }

    deinit {
        for p in [red, green, blue, alpha] { UnsafeMutableRawPointer(p).deallocate() }
    }

    var pixels: PlanarPixels { PlanarPixels(red: red, green: green, blue: blue, alpha: alpha) }

    func values(_ n: Int) -> [SIMD4<Double>] {
        (0..<n).map { SIMD4(Double(red[$0]), Double(green[$0]), Double(blue[$0]), Double(alpha[$0])) }
    }
}

/// Pixels as a one-row Reference.Image.
func referenceImage(_ pixels: [SIMD4<Double>]) -> Reference.Image {
    Reference.Image(width: pixels.count, height: 1, r: pixels.map { $0[0] }, g: pixels.map { $0[1] },
                    b: pixels.map { $0[2] }, a: pixels.map { $0[3] })
}

func pixels(_ img: Reference.Image) -> [SIMD4<Double>] {
    (0..<img.r.count).map { SIMD4(img.r[$0], img.g[$0], img.b[$0], img.a[$0]) }
}

/// The largest difference between two pixel lists, over all four channels.
func largestDifference(_ a: [SIMD4<Double>], _ b: [SIMD4<Double>]) -> Double {
    zip(a, b).map { x, y in
        let d = x - y
        return max(abs(d[0]), abs(d[1]), abs(d[2]), abs(d[3]))
    }.max() ?? 0
}

extension Catalogue {
    /// The filter's point kernel against its formula on unclamped random values (and alpha),
    /// to float precision: |kernel - formula| <= 2e-5 max(1, |formula|).
    static func checkKernel(_ filter: any Filter, seed: UInt64 = 7, sourceLocation: SourceLocation = #_sourceLocation) {
        let input = randomPixels(203, seed: seed)
        let out = run(kernel(filter), input)
        let expected = pixels(Reference.step(referenceImage(input), filter))
        var worst = 0.0
        for (o, e) in zip(out, expected) {
            for k in 0..<4 { worst = max(worst, abs(o[k] - e[k]) / max(1, abs(e[k]))) }
        }
        #expect(worst <= 2e-5, "\(filter.type): relative difference \(worst)", sourceLocation: sourceLocation)
    }

    /// `keepsNeutralNeutral` says what the formula does: grey pixels (any level, also beyond
    /// [0, 1]) stay grey exactly when it is true.
    static func checkNeutral(_ filter: any Filter, sourceLocation: SourceLocation = #_sourceLocation) {
        let greys = stride(from: -0.2, through: 1.2, by: 0.05).map { SIMD4($0, $0, $0, 1) }
        let out = pixels(Reference.step(referenceImage(greys), filter))
        let staysGrey = out.allSatisfy { abs($0[0] - $0[1]) < 1e-9 && abs($0[1] - $0[2]) < 1e-9 }
        #expect(staysGrey == filter.keepsNeutralNeutral, "\(filter.type): keepsNeutralNeutral \(filter.keepsNeutralNeutral), formula \(staysGrey)",
                sourceLocation: sourceLocation)
    }

    /// A chain with this step is refused with a message starting `expected`.
    static func expectRefusal(_ type: String, _ parameters: String, _ expected: String,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        let message = refusal(type, parameters)
        #expect(message?.hasPrefix(expected) == true, "\(message ?? "accepted")", sourceLocation: sourceLocation)
    }
}
