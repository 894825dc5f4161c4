/// Saturation that spares colours already saturated.
public struct Vibrance: Filter {
    public var amount = 0.0

    public init() {}

    public init(amount: Double = 0) {
        self.amount = amount
    }

    public static let declaration = FilterDeclaration<Vibrance>(
        type: "vibrance",
        group: .colour,
        summary: "Raises (or lowers) the saturation of muted colours more than of vivid ones.",
        documentation: """
            For each pixel (r, g, b), with L = wr r + wg g + wb b (the working space's weights:
            0.2126, 0.7152, 0.0722 in srgb and linear):

                s  = clamp(max(r, g, b) - min(r, g, b), 0, 1)
                c' = L + (1 + amount (1 - s)) (c - L)

            so grey (s = 0) and fully saturated colours (s = 1) are unchanged, and muted
            colours change most. amount -1 makes a pixel grey in proportion to how muted it
            was. Alpha is unchanged. Works on straight colour.
            """,
        parameters: [
            .number("amount", \.amount, in: -1...1, help: "above 0 more colourful, below 0 less; 0 unchanged"),
        ])

    public func operation() -> FilterOperation { operation(in: .srgb) }

    public func operation(in space: WorkingSpace) -> FilterOperation {
        let w = space.lumaWeights
        return amount == 0 ? .identity : .point(Kernel(amount: Float(amount), weights: (Float(w.x), Float(w.y), Float(w.z))))
    }

    public var keepsNeutralNeutral: Bool { true }

    struct Kernel: PointKernel {
        let amount: Float
        var weights: (Float, Float, Float) = (0.2126, 0.7152, 0.0722)

        func apply(_ p: PlanarPixels, count: Int) {
            let amount = SIMD8<Float>(repeating: amount), one = SIMD8<Float>(repeating: 1)
            let wr = SIMD8<Float>(repeating: weights.0), wg = SIMD8<Float>(repeating: weights.1), wb = SIMD8<Float>(repeating: weights.2)
            var i = 0
            while i < count {
                let r = UnsafeRawPointer(p.red + i).load(as: SIMD8<Float>.self)
                let g = UnsafeRawPointer(p.green + i).load(as: SIMD8<Float>.self)
                let b = UnsafeRawPointer(p.blue + i).load(as: SIMD8<Float>.self)
                let l = wr * r + wg * g + wb * b
                var s = lanesMax(r, lanesMax(g, b)) - lanesMin(r, lanesMin(g, b))
                s = s.replacing(with: 0, where: .!(s .> 0))
                s = s.replacing(with: 1, where: s .> 1)
                let k = one + amount * (one - s)
                UnsafeMutableRawPointer(p.red + i).storeBytes(of: l + k * (r - l), as: SIMD8<Float>.self)
                UnsafeMutableRawPointer(p.green + i).storeBytes(of: l + k * (g - l), as: SIMD8<Float>.self)
                UnsafeMutableRawPointer(p.blue + i).storeBytes(of: l + k * (b - l), as: SIMD8<Float>.self)
                i += 8
            }
        }
    }
}
