import Foundation
@testable import FilterChain

/// The ICC profiles of ../shared/conformance/icc and helpers to run kernels and lcms2 on the
/// same colours.
enum ICCData {
    static let folder = TestData.conformance.appendingPathComponent("icc/profiles")

    static var names: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".icc") }.sorted()
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
    }

    static func profile(_ name: String) throws -> ColorProfile {
        try ColorProfile(iccData: bytes(name))
    }

    /// Every profile of the folder lcms2 reads, by space.
    static func names(in space: ColorProfile.Space) -> [String] {
        names.filter { (try? profile($0))?.space == space }
    }

    /// RGB triples covering the cube and beyond it: a grid of 11 levels per channel from
    /// -0.25 to 1.25 (out-of-range values must survive where lcms2's curves let them), then
    /// random colours in [0, 1] and in [-0.3, 1.3].
    static func colours(seed: UInt64 = 22) -> [Float] {
        let levels: [Float] = [-0.25, -0.01, 0, 0.002, 0.03, 0.2, 0.5, 0.8, 0.99, 1, 1.25]
        var out: [Float] = []
        for r in levels { for g in levels { for b in levels { out += [r, g, b] } } }
        var rng = SeededRandom(seed)
        for _ in 0..<2000 { out += (0..<3).map { _ in Float.random(in: 0...1, using: &rng) } }
        for _ in 0..<1000 { out += (0..<3).map { _ in Float.random(in: -0.3...1.3, using: &rng) } }
        return out
    }

    /// Runs a point kernel over interleaved RGB triples (planes 32-byte aligned, the count
    /// padded to a multiple of 8); returns interleaved RGB.
    static func run(_ kernel: any PointKernel, rgb: [Float]) -> [Float] {
        let n = rgb.count / 3
        let padded = (n + 7) / 8 * 8
        let raw = UnsafeMutableRawPointer.allocate(byteCount: 4 * padded * 4, alignment: 32)
        defer { raw.deallocate() }
        let base = raw.bindMemory(to: Float.self, capacity: 4 * padded)
        base.initialize(repeating: 0.5, count: 4 * padded)
        let p = PlanarPixels(red: base, green: base + padded, blue: base + 2 * padded, alpha: base + 3 * padded)
        for i in 0..<n { p.red[i] = rgb[3 * i]; p.green[i] = rgb[3 * i + 1]; p.blue[i] = rgb[3 * i + 2] }
        kernel.apply(p, count: padded)
        var out = [Float](repeating: 0, count: 3 * n)
        for i in 0..<n { out[3 * i] = p.red[i]; out[3 * i + 1] = p.green[i]; out[3 * i + 2] = p.blue[i] }
        return out
    }

    /// The largest difference between two arrays of the same length, and where it is.
    static func maxDifference(_ a: [Float], _ b: [Float]) -> (error: Float, index: Int) {
        precondition(a.count == b.count)
        var worst: (Float, Int) = (0, 0)
        for i in a.indices {
            let d = abs(a[i] - b[i])
            if d > worst.0 || d.isNaN { worst = (d.isNaN ? .infinity : d, i) }
        }
        return worst
    }

    /// Compares a kernel's output with lcms2's, value by value, within `tolerance`, with one
    /// allowance: where the last curve is a table, lcms2 rounds that curve's input to 16 bits,
    /// and an input within a float rounding of a step's boundary may land on the other side
    /// of it in lcms2 and in the kernel. A difference above the tolerance is then accepted
    /// only when both values are the table's values at neighbouring 16-bit inputs. Returns the
    /// largest difference, the number of such neighbouring steps, and a description of the
    /// first difference that is neither.
    static func compare(_ ours: [Float], _ theirs: [Float], lastCurves: [TransferCurve], channels: Int,
                        tolerance: Float = 1e-4) -> (error: Float, steps: Int, failure: String?) {
        precondition(ours.count == theirs.count)
        let tables: [[Float]?] = lastCurves.map { curve in
            guard case .table(let t) = curve else { return nil }
            return (0...65535).map { Float(Double(TransferCurve.lcmsTable(t, word: $0)) / 65535) }
        }
        var worst: Float = 0, steps = 0
        var failure: String?
        for i in ours.indices {
            let d = abs(ours[i] - theirs[i])
            worst = max(worst, d.isNaN ? .infinity : d)
            guard !(d <= tolerance) else { continue }
            if let table = tables[tables.count == 1 ? 0 : i % channels] {
                let words = table.indices.filter { table[$0] == theirs[i] }
                if words.contains(where: { w in (w > 0 && table[w - 1] == ours[i]) || (w < 65535 && table[w + 1] == ours[i]) }) {
                    steps += 1
                    continue
                }
            }
            if failure == nil { failure = "value \(i): \(ours[i]) vs lcms2 \(theirs[i])" }
        }
        return (worst, steps, failure)
    }

    /// Prints a line when COLOUR_REPORT is set: the figures for a report, not a check.
    static func report(_ line: @autoclosure () -> String) {
        if ProcessInfo.processInfo.environment["COLOUR_REPORT"] != nil { print(line()) }
    }
}
