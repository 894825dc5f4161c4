/// Input and output levels with a mid-tone gamma, as the Levels dialog of photo editors.
public struct Levels: Filter {
    public var inBlack = 0.0
    public var inWhite = 1.0
    public var gamma = 1.0
    public var outBlack = 0.0
    public var outWhite = 1.0

    public init() {}

    public init(inBlack: Double = 0, inWhite: Double = 1, gamma: Double = 1, outBlack: Double = 0, outWhite: Double = 1) {
        self.inBlack = inBlack
        self.inWhite = inWhite
        self.gamma = gamma
        self.outBlack = outBlack
        self.outWhite = outWhite
    }

    public static let declaration = FilterDeclaration<Levels>(
        type: "levels",
        group: .tone,
        summary: "Input black and white points, mid-tone gamma, output black and white points.",
        documentation: """
            Each colour channel c of a pixel:

                t  = clamp((c - inBlack) / (inWhite - inBlack), 0, 1)
                c' = outBlack + (outWhite - outBlack) t^(1/gamma)

            inWhite must be above inBlack. outWhite may be below outBlack (an inverted
            ramp). The result always lies between outBlack and outWhite. Alpha is unchanged.
            Works on straight colour.
            """,
        parameters: [
            .number("inBlack", \.inBlack, in: 0...1, help: "input value that becomes outBlack; below it is clipped"),
            .number("inWhite", \.inWhite, in: 0...1, help: "input value that becomes outWhite; above it is clipped; must exceed inBlack"),
            .number("gamma", \.gamma, in: 0.1...10, help: "mid-tone gamma: above 1 lightens, below 1 darkens; 1 straight"),
            .number("outBlack", \.outBlack, in: 0...1, help: "output value for inBlack and below"),
            .number("outWhite", \.outWhite, in: 0...1, help: "output value for inWhite and above"),
        ],
        check: { f in
            f.inWhite > f.inBlack ? nil
                : "inWhite \(JSONWriter.number(f.inWhite)) is not above inBlack \(JSONWriter.number(f.inBlack)); inWhite must exceed inBlack"
        })

    public func operation() -> FilterOperation {
        .point(Kernel(inBlack: Float(inBlack), scale: Float(1 / (inWhite - inBlack)), exponent: Float(1 / gamma),
                      outBlack: Float(outBlack), outRange: Float(outWhite - outBlack)))
    }

    public var keepsNeutralNeutral: Bool { true }

    struct Kernel: PointKernel {
        let inBlack: Float, scale: Float, exponent: Float, outBlack: Float, outRange: Float

        func apply(_ p: PlanarPixels, count: Int) {
            let b = SIMD8<Float>(repeating: inBlack), s = SIMD8<Float>(repeating: scale)
            let ob = SIMD8<Float>(repeating: outBlack), or = SIMD8<Float>(repeating: outRange)
            for plane in [p.red, p.green, p.blue] {
                var i = 0
                while i < count {
                    var t = (UnsafeRawPointer(plane + i).load(as: SIMD8<Float>.self) - b) * s
                    t = t.replacing(with: 0, where: .!(t .> 0))   // NaN to 0
                    t = t.replacing(with: 1, where: t .> 1)
                    if exponent != 1 { t = power(t, exponent) }
                    UnsafeMutableRawPointer(plane + i).storeBytes(of: ob + or * t, as: SIMD8<Float>.self)
                    i += 8
                }
            }
        }
    }
}
