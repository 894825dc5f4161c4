/// The classic sepia tone.
public struct Sepia: Filter {
    public var intensity = 1.0

    public init() {}

    public init(intensity: Double = 1) {
        self.intensity = intensity
    }

    public static let declaration = FilterDeclaration<Sepia>(
        type: "sepia",
        group: .colour,
        summary: "Sepia toning, blended with the original by intensity.",
        documentation: """
            With S = [[.393, .769, .189], [.349, .686, .168], [.272, .534, .131]]:

                (r', g', b') = c + intensity (S (r, g, b) - c)

            for each colour channel c. Alpha is unchanged. Works on straight colour; values
            are not clamped (a white pixel becomes (1.351, 1.203, 0.937) at intensity 1).
            """,
        parameters: [
            .number("intensity", \.intensity, in: 0...1, help: "0 unchanged, 1 full sepia"),
        ])

    static let s: [[Double]] = [[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]]

    public func operation() -> FilterOperation {
        if intensity == 0 { return .identity }
        let t = intensity
        let m = (0..<3).map { i in (0..<3).map { j in (i == j ? 1 - t : 0) + t * Sepia.s[i][j] } + [0] }
        return .point(MatrixKernel(rgb: m))
    }

    public var keepsNeutralNeutral: Bool { intensity == 0 }
}
