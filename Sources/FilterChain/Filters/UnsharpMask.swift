/// Sharpening by unsharp masking: the image plus its difference from a Gaussian blur.
public struct UnsharpMask: Filter {
    public var sigma = 2.0
    public var amount = 0.5
    public var threshold = 0.0

    public init() {}

    public init(sigma: Double = 2, amount: Double = 0.5, threshold: Double = 0) {
        self.sigma = sigma
        self.amount = amount
        self.threshold = threshold
    }

    public static let declaration = FilterDeclaration<UnsharpMask>(
        type: "unsharpMask",
        group: .detail,
        summary: "Sharpens: adds amount times the difference between the image and its Gaussian blur.",
        documentation: """
            On premultiplied colour P (colour times alpha), with B = gaussianBlur(P, sigma)
            exactly as the gaussianBlur filter defines it (including its fast paths):

                d  = P - B                                  (each colour channel)
                P' = P + amount d   where |d| >= threshold, else P

            Alpha is unchanged; colour is then divided by alpha as after every neighbourhood
            filter. Results may leave [0, 1] (written images are clamped). The blur's fast
            paths keep it within 1 + 2 amount levels of the exact definition at most, and
            0.25 max(1, amount) levels on average.
            """,
        parameters: [
            .number("sigma", \.sigma, in: 0.1...100, help: "the blur's standard deviation in pixels: the size of the details sharpened")
                .measured(in: .pixels),
            .number("amount", \.amount, in: 0...10, help: "how much of the difference is added; 0 unchanged"),
            .number("threshold", \.threshold, in: 0...1, help: "differences below this (in 0...1 units) are left alone, sparing noise"),
        ])

    public func operation() -> FilterOperation {
        if amount == 0 { return .identity }
        return .combine(GaussianKernel(sigma: sigma), Combine(amount: Float(amount), threshold: Float(threshold)))
    }

    public var keepsNeutralNeutral: Bool { true }

    /// P' = P + amount (P - B) where |P - B| >= threshold; alpha from the input.
    struct Combine: CombineKernel {
        let amount: Float
        let threshold: Float

        func combine(input: PlanarPixels, into result: PlanarPixels, count: Int) {
            let k = SIMD8<Float>(repeating: amount), t = SIMD8<Float>(repeating: threshold)
            for (p, b) in [(input.red, result.red), (input.green, result.green), (input.blue, result.blue)] {
                var i = 0
                while i < count {
                    let x = UnsafeRawPointer(p + i).load(as: SIMD8<Float>.self)
                    let d = x - UnsafeRawPointer(b + i).load(as: SIMD8<Float>.self)
                    let sharpened = x + k * d
                    let out = threshold == 0 ? sharpened : x.replacing(with: sharpened, where: lanesMagnitude(d) .>= t)
                    UnsafeMutableRawPointer(b + i).storeBytes(of: out, as: SIMD8<Float>.self)
                    i += 8
                }
            }
            result.alpha.update(from: input.alpha, count: count)
        }
    }
}
