/// A power curve on every colour channel.
public struct Gamma: Filter {
    public var power = 1.0

    public init() {}

    public init(power: Double = 1) {
        self.power = power
    }

    public static let declaration = FilterDeclaration<Gamma>(
        type: "gamma",
        group: .tone,
        summary: "Raises every colour channel to a power: above 1 darkens the mid-tones, below 1 lightens them.",
        documentation: """
            Each colour channel c of a pixel:

                c' = sign(c) |c|^power

            so 0 and 1 stay where they are and values below 0 (from an earlier filter) mirror
            those above. Alpha is unchanged. Works on straight colour.
            """,
        parameters: [
            .number("power", \.power, in: 0.1...10, help: "the exponent; 1 unchanged, 2.2 darker mid-tones, 0.45 lighter"),
        ])

    public func operation() -> FilterOperation {
        power == 1 ? .identity : .point(Kernel(power: Float(power)))
    }

    public var keepsNeutralNeutral: Bool { true }

    struct Kernel: PointKernel {
        let power: Float

        func apply(_ p: PlanarPixels, count: Int) {
            for plane in [p.red, p.green, p.blue] {
                var i = 0
                while i < count {
                    let c = UnsafeRawPointer(plane + i).load(as: SIMD8<Float>.self)
                    let v = FilterChain.power(lanesMagnitude(c), power)
                    UnsafeMutableRawPointer(plane + i).storeBytes(of: v.replacing(with: -v, where: c .< 0), as: SIMD8<Float>.self)
                    i += 8
                }
            }
        }
    }
}
