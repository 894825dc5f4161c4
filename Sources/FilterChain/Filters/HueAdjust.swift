#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Rotates hues around the grey axis, keeping luma.
public struct HueAdjust: Filter {
    public var angle = 0.0

    public init() {}

    public init(angle: Double = 0) {
        self.angle = angle
    }

    public static let declaration = FilterDeclaration<HueAdjust>(
        type: "hueAdjust",
        group: .colour,
        summary: "Rotates every hue by an angle, keeping luma (SVG feColorMatrix hueRotate).",
        documentation: """
            (r', g', b') = M (r, g, b) with M = A + cos(angle) B + sin(angle) C:

                A = [[.213, .715, .072], [.213, .715, .072], [.213, .715, .072]]
                B = [[.787, -.715, -.072], [-.213, .285, -.072], [-.213, -.715, .928]]
                C = [[-.213, -.715, .928], [.143, .140, -.283], [-.787, .715, .072]]

            This is SVG's feColorMatrix type="hueRotate". Every row of M sums to 1, so grey
            stays grey, and luma (.213 r + .715 g + .072 b) is kept to the rounding of the
            three-decimal coefficients (it moves by at most 0.0015 max(r, g, b)). Alpha is unchanged.
            Works on straight colour; values are not clamped.
            """,
        parameters: [
            .number("angle", \.angle, in: -180...180, help: "degrees; 0 unchanged, 180 the opposite hues"),
        ])

    /// M for an angle in degrees.
    static func matrix(degrees: Double) -> [[Double]] {
        let a = [0.213, 0.715, 0.072]
        let b = [[0.787, -0.715, -0.072], [-0.213, 0.285, -0.072], [-0.213, -0.715, 0.928]]
        let c = [[-0.213, -0.715, 0.928], [0.143, 0.140, -0.283], [-0.787, 0.715, 0.072]]
        let cs = cos(degrees * .pi / 180), sn = sin(degrees * .pi / 180)
        return (0..<3).map { i in (0..<3).map { j in a[j] + cs * b[i][j] + sn * c[i][j] } }
    }

    public func operation() -> FilterOperation {
        if angle == 0 { return .identity }
        return .point(MatrixKernel(rgb: HueAdjust.matrix(degrees: angle).map { $0 + [0] }))
    }

    public var keepsNeutralNeutral: Bool { true }
}
