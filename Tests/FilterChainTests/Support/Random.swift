@testable import FilterChain

/// A small seeded generator (SplitMix64), so test images are the same on every run.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(_ seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
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
