@testable import FilterChain

/// A small seeded generator (SplitMix64, `SeedEntropy` of RandomChain.swift), so test images
/// are the same on every run.
struct SeededRandom: RandomNumberGenerator {
    var entropy: SeedEntropy
    init(_ seed: UInt64) { entropy = SeedEntropy(seed) }
    mutating func next() -> UInt64 { entropy.next() }
}

extension Pixels {
    static func random(width: Int, height: Int, format: PixelFormat, seed: UInt64 = 1) -> Pixels {
        var rng = SeededRandom(seed)
        let count = width * height * format.channels.count
        let maxValue = format.depth.maxValue
        return Pixels(width: width, height: height, format: format,
                      samples: (0..<count).map { _ in Int.random(in: 0...maxValue, using: &rng) })
    }
}
