/// A one-colour image: luma carried by a tint.
public struct Monochrome: Filter {
    public var color = ColorRGB(0.6, 0.45, 0.3)
    public var intensity = 1.0

    public init() {}

    public init(color: ColorRGB = ColorRGB(0.6, 0.45, 0.3), intensity: Double = 1) {
        self.color = color
        self.intensity = intensity
    }

    public static let declaration = FilterDeclaration<Monochrome>(
        type: "monochrome",
        group: .colour,
        summary: "Replaces colour by a tint of the pixel's luma, blended with the original by intensity.",
        documentation: """
            With L = wr r + wg g + wb b (the working space's weights: 0.2126, 0.7152, 0.0722 in srgb
            and linear) and luma(color) the same sum for the
            tint colour (it must be above 0):

                m  = L color / luma(color)
                c' = c + intensity (m - c)

            for each colour channel c, so every pixel keeps its luma and takes the tint's hue.
            color [1, 1, 1] gives plain greyscale. Alpha is unchanged. Works on straight colour.
            """,
        parameters: [
            .color("color", \.color, in: 0...1, positiveLuma: true, help: "the tint [r, g, b]; its luma must be above 0"),
            .number("intensity", \.intensity, in: 0...1, help: "0 unchanged, 1 fully tinted"),
        ])

    public func operation() -> FilterOperation { operation(in: .srgb) }

    public func operation(in space: WorkingSpace) -> FilterOperation {
        if intensity == 0 { return .identity }
        let weights = space.lumaWeights
        let w = [weights.x, weights.y, weights.z]
        let t = intensity, luma = w[0] * color.red + w[1] * color.green + w[2] * color.blue
        guard luma > 0 else { return .identity }
        let tint = [color.red, color.green, color.blue].map { $0 / luma }
        let m = (0..<3).map { i in (0..<3).map { j in (i == j ? 1 - t : 0) + t * tint[i] * w[j] } + [0] }
        return .point(MatrixKernel(rgb: m))
    }

    public var keepsNeutralNeutral: Bool { intensity == 0 || (color.red == color.green && color.green == color.blue) }
}
