/// Saturation, brightness and contrast, as Core Image's CIColorControls names them.
public struct ColorControls: Filter {
    public var saturation: Double
    public var brightness: Double
    public var contrast: Double

    /// Values are checked when a chain with this filter is rendered (see `validate()`).
    public init(saturation: Double = 1, brightness: Double = 0, contrast: Double = 1) {
        self.saturation = saturation
        self.brightness = brightness
        self.contrast = contrast
    }

    public init() { self.init(saturation: 1) }

    public static let declaration = FilterDeclaration<ColorControls>(
        type: "colorControls",
        group: .colour,
        summary: "Saturation, brightness and contrast.",
        documentation: """
            For each colour channel c of a pixel (r, g, b), in this order:

                L  = wr r + wg g + wb b                  (luminance: the working space's weights,
                                                          0.2126, 0.7152, 0.0722 in srgb and linear)
                c1 = L + s (c - L)                       (saturation s)
                c2 = (c1 - 0.5) k + 0.5                  (contrast k, pivot 0.5)
                out = c2 + b                             (brightness b)

            Alpha is unchanged. Works on straight (unpremultiplied) colour; values are not
            clamped, so a later filter sees what this one computed.
            """,
        parameters: [
            .number("saturation", \.saturation, in: 0...4, help: "0 is grey, 1 unchanged, above 1 more colourful"),
            .number("brightness", \.brightness, in: -1...1, help: "added to every channel after contrast"),
            .number("contrast", \.contrast, in: 0...4, help: "scales the distance from mid-grey 0.5; 1 unchanged"),
        ])

    public func operation() -> FilterOperation { operation(in: .srgb) }

    public func operation(in space: WorkingSpace) -> FilterOperation {
        if saturation == 1, brightness == 0, contrast == 1 { return .identity }
        let w = space.lumaWeights
        return .point(Kernel(s: Float(saturation), k: Float(contrast), b: Float(brightness),
                             weights: (Float(w.x), Float(w.y), Float(w.z))))
    }

    public var keepsNeutralNeutral: Bool { true }

    struct Kernel: PointKernel {
        let s: Float, k: Float, b: Float
        var weights: (Float, Float, Float) = (0.2126, 0.7152, 0.0722)

        func apply(_ p: PlanarPixels, count: Int) {
            let s = SIMD8<Float>(repeating: s), k = SIMD8<Float>(repeating: k), b = SIMD8<Float>(repeating: b)
            let half = SIMD8<Float>(repeating: 0.5)
            let wr = SIMD8<Float>(repeating: weights.0), wg = SIMD8<Float>(repeating: weights.1), wb = SIMD8<Float>(repeating: weights.2)
            var i = 0
            while i < count {
                let r = UnsafeRawPointer(p.red + i).load(as: SIMD8<Float>.self)
                let g = UnsafeRawPointer(p.green + i).load(as: SIMD8<Float>.self)
                let bl = UnsafeRawPointer(p.blue + i).load(as: SIMD8<Float>.self)
                let l = wr * r + wg * g + wb * bl
                UnsafeMutableRawPointer(p.red + i).storeBytes(of: ((l + s * (r - l)) - half) * k + half + b, as: SIMD8<Float>.self)
                UnsafeMutableRawPointer(p.green + i).storeBytes(of: ((l + s * (g - l)) - half) * k + half + b, as: SIMD8<Float>.self)
                UnsafeMutableRawPointer(p.blue + i).storeBytes(of: ((l + s * (bl - l)) - half) * k + half + b, as: SIMD8<Float>.self)
                i += 8
            }
        }
    }
}
