#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Exposure in stops, as a camera's exposure compensation.
public struct Exposure: Filter {
    public var ev = 0.0

    public init() {}

    public init(ev: Double = 0) {
        self.ev = ev
    }

    public static let declaration = FilterDeclaration<Exposure>(
        type: "exposure",
        group: .tone,
        summary: "Exposure compensation in stops: each stop doubles the light.",
        documentation: """
            Each colour channel c of a pixel:

                c' = c 2^ev

            Alpha is unchanged. Works on straight colour; values are not clamped, so a later
            filter sees what this one computed. In the linear working space this is a true
            exposure change; in sRGB it scales the stored values.
            """,
        parameters: [
            .number("ev", \.ev, in: -10...10, help: "stops: +1 doubles every channel, -1 halves it; 0 unchanged"),
        ])

    public func operation() -> FilterOperation {
        if ev == 0 { return .identity }
        let k = exp2(ev)
        return .point(MatrixKernel(rgb: [[k, 0, 0, 0], [0, k, 0, 0], [0, 0, k, 0]]))
    }

    public var keepsNeutralNeutral: Bool { true }
}
