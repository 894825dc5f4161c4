import Foundation

/// filterchain's JPEG quantisation tables: what decides a JPEG's bits (libjpeg-turbo does the
/// DCT, the rounding and the Huffman coding with them).
///
/// The JPEG standard's example tables (Annex K, libjpeg's default) quantise high frequencies
/// 7 to 8 times more coarsely than the DC term; measured by SSIMULACRA2 on photographs that
/// loses fine detail early and spends bits on low frequencies. These tables grow linearly
/// with the radial frequency f = sqrt(u² + v²) of coefficient (u, v), at quality 50:
///
///     luma(u, v)   = 14 × (1 + 1.2 f)        chroma(u, v) = 20 × (1 + 0.8 f)
///
/// scaled as libjpeg scales its own (s = 5000 / q′ below q′ = 50, else 200 − 2q′, in percent;
/// each entry rounded, then kept in 1...255), at an effective quality q′ that keeps
/// `--quality` meaning what it meant with libjpeg's tables: at each quality the median
/// SSIMULACRA2 of the test photographs is the same as before (`calibration`, measured with
/// Benchmarks/jpeg-tables/rd-curves and calibrate). The shape was chosen by the same
/// measurement (Benchmarks/README.md, "JPEG size at equal quality"): a steeper luma slope,
/// 4:4:4, a dead zone and per-block adaptive quantisation were each tried and lost.
public enum JPEGTables {
    /// The table at quality 50, in natural order (row v, column u).
    public static func base(chroma: Bool) -> [Double] {
        (0..<64).map { k in
            let f = (Double((k / 8) * (k / 8) + (k % 8) * (k % 8))).squareRoot()
            return chroma ? 20 * (1 + 0.8 * f) : 14 * (1 + 1.2 * f)
        }
    }

    /// `--quality` q against the effective quality q′ of these tables at which the test
    /// photographs' median SSIMULACRA2 equals that of libjpeg's tables at q (interpolated
    /// linearly between the points).
    public static let calibration: [(quality: Double, effective: Double)] = [
        (1, 1), (5, 5.6), (10, 14.7), (15, 25.6), (20, 37.6), (25, 51.1), (30, 59.8), (35, 66.1),
        (40, 70.4), (45, 73.4), (50, 75.7), (55, 77.7), (60, 79.7), (65, 81.7), (70, 84.4),
        (75, 86.8), (80, 89.1), (85, 91.6), (90, 94.5), (92, 95.4), (94, 96.6), (96, 97.8),
        (100, 100),
    ]

    /// The effective quality for `quality` (1...100).
    public static func effectiveQuality(_ quality: Int) -> Double {
        let q = Double(max(1, min(100, quality)))
        for (a, b) in zip(calibration, calibration.dropFirst()) where q <= b.quality {
            return a.effective + (q - a.quality) / (b.quality - a.quality) * (b.effective - a.effective)
        }
        return 100
    }

    /// The standard's example tables (JPEG Annex K.1) as libjpeg's jpeg_set_quality scales
    /// them at `quality` (1...100, each entry 1...255): what `--tables standard` writes.
    public static func standard(quality: Int) -> (luma: [UInt16], chroma: [UInt16]) {
        let luma = [16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56,
                    14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
                    49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99]
        let chroma = [17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99,
                      47, 66, 99, 99, 99, 99, 99, 99] + [Int](repeating: 99, count: 32)
        let q = max(1, min(100, quality))
        let scale = q < 50 ? 5000 / q : 200 - 2 * q
        func scaled(_ t: [Int]) -> [UInt16] { t.map { UInt16(max(1, min(255, ($0 * scale + 50) / 100))) } }
        return (scaled(luma), scaled(chroma))
    }

    /// The luma and chroma tables for `quality` (1...100), natural order, each entry 1...255.
    public static func tables(quality: Int) -> (luma: [UInt16], chroma: [UInt16]) {
        byQuality[max(1, min(100, quality)) - 1]
    }

    /// Every quality's tables, made once: each JPEG read looks for its tables among them
    /// (`JPEGEncoding.estimateQuality`), which made them anew at each quality (113 µs a file).
    private static let byQuality: [(luma: [UInt16], chroma: [UInt16])] = (1...100).map { quality in
        let q = effectiveQuality(quality)
        let scale = q < 50 ? 5000 / q : 200 - 2 * q
        func table(_ chroma: Bool) -> [UInt16] {
            base(chroma: chroma).map { UInt16(max(1, min(255, ($0 * scale / 100).rounded()))) }
        }
        return (table(false), table(true))
    }
}

/// A JPEG Huffman table as a DHT segment holds it: how many codes of each length 1...16,
/// then the symbols in code order.
struct HuffmanTable: Sendable {
    let counts: [UInt8]
    let symbols: [UInt8]

    /// Whether the counts make a prefix code that leaves the all-ones code free (the
    /// standard's rule) and name each symbol once.
    var isValid: Bool {
        guard counts.count == 16, counts.reduce(0, { $0 + Int($1) }) == symbols.count, Set(symbols).count == symbols.count else { return false }
        var room = 1.0
        for (i, n) in counts.enumerated() { room -= Double(n) / Double(1 << (i + 1)) }
        return room > 0
    }
}

extension JPEGTables {
    /// The Huffman tables for a single pass at `quality`, packed for fc_jpeg_encode_options
    /// (DC luma, DC chroma, AC luma, AC chroma).
    static func huffman(quality: Int) -> [UInt8] {
        let band = huffmanBands.first { $0.qualities.contains(quality) } ?? huffmanBands[huffmanBands.count - 1]
        return [band.dcLuma, band.dcChroma, band.acLuma, band.acChroma].flatMap { $0.counts + $0.symbols }
    }
}
