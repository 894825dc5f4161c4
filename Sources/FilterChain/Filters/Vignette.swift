#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Darkens (or lightens) towards the edges of the image.
public struct Vignette: Filter {
    public var intensity = 0.5
    public var radius = 1.0
    public var softness = 0.5
    public var center = ImagePoint(0.5, 0.5)

    public init() {}

    public init(intensity: Double = 0.5, radius: Double = 1, softness: Double = 0.5, center: ImagePoint = ImagePoint(0.5, 0.5)) {
        self.intensity = intensity
        self.radius = radius
        self.softness = softness
        self.center = center
    }

    public static let declaration = FilterDeclaration<Vignette>(
        type: "vignette",
        group: .tone,
        summary: "Darkens the image towards its edges (or lightens, with a negative intensity).",
        documentation: """
            For the pixel in column i and row j of the current step's image, W x H:

                d  = distance from (i + 0.5, j + 0.5) to (x W, y H), divided by sqrt(W² + H²) / 2
                e0 = radius (1 - softness),  e1 = radius
                t  = clamp((d - e0) / (e1 - e0), 0, 1), or (d >= e1 ? 1 : 0) when e1 = e0
                f  = t² (3 - 2 t)
                c' = c (1 - intensity f)

            for each colour channel c, with center = [x, y]. d is 1 at the corners of a
            centred vignette, so radius 1 reaches them. Alpha is unchanged. Works on straight
            colour; the size is that of the image at this step.
            """,
        parameters: [
            .number("intensity", \.intensity, in: -1...1, help: "how much the edges darken: 1 black, negative lightens; 0 unchanged"),
            .number("radius", \.radius, in: 0...2, help: "where the effect is full, in half-diagonals from the centre"),
            .number("softness", \.softness, in: 0...1, help: "the fraction of the radius over which it fades in; 0 a hard edge"),
            .point("center", \.center, in: 0...1, help: "the centre [x, y] as fractions of the width and height"),
        ])

    public func operation() -> FilterOperation {
        if intensity == 0 { return .identity }
        return .positional(Kernel(intensity: Float(intensity), inner: radius * (1 - softness), outer: radius,
                             centerX: center.x, centerY: center.y))
    }

    public var keepsNeutralNeutral: Bool { true }

    struct Kernel: PositionalKernel {
        let intensity: Float
        let inner: Double
        let outer: Double
        let centerX: Double
        let centerY: Double

        func apply(_ p: PlanarPixels, count: Int, row: Int, column: Int, size: ImageSize) {
            let falloff = RadialFalloff(center: ImagePoint(centerX, centerY), inner: inner, outer: outer, row: row, size: size)
            let k = SIMD8<Float>(repeating: intensity), one = SIMD8<Float>(repeating: 1)
            var i = 0
            while i < count {
                guard let f = falloff.at(column + i) else {
                    i += 8
                    continue
                }
                let factor = one - k * f
                for plane in [p.red, p.green, p.blue] {
                    let c = UnsafeRawPointer(plane + i).load(as: SIMD8<Float>.self)
                    UnsafeMutableRawPointer(plane + i).storeBytes(of: c * factor, as: SIMD8<Float>.self)
                }
                i += 8
            }
        }
    }
}

/// The vignette's falloff along a row, shared with radial masks: for the pixel in column i of
/// row j, d = distance from (i + 0.5, j + 0.5) to the centre in half-diagonals,
/// t = clamp((d - inner) / (outer - inner), 0, 1) (a hard edge when they are equal), and
/// f = t² (3 - 2 t).
struct RadialFalloff {
    private let dy2: SIMD8<Float>
    private let step: Float
    private let e0: SIMD8<Float>
    private let e1: SIMD8<Float>
    private let width: SIMD8<Float>
    private let hard: Bool
    private let offset: SIMD8<Float>
    private let untouched: SIMD8<Float>

    init(center: ImagePoint, inner: Double, outer: Double, row: Int, size: ImageSize) {
        let w = Double(size.width), h = Double(size.height)
        let scale = 2 / (w * w + h * h).squareRoot()
        // Distances in half-diagonals; the row's vertical offset squared once.
        let dy = (Double(row) + 0.5 - center.y * h) * scale
        dy2 = SIMD8<Float>(repeating: Float(dy * dy))
        step = Float(scale)
        e0 = SIMD8<Float>(repeating: Float(inner))
        e1 = SIMD8<Float>(repeating: Float(outer))
        hard = inner == outer
        width = SIMD8<Float>(repeating: Float(outer - inner))
        offset = SIMD8<Float>(repeating: Float(0.5 - center.x * w))
        // Inside the inner circle f is exactly 0: eight pixels all well inside it (d² below
        // e0², less a margin) are skipped. sqrt is correctly rounded and monotonic, so
        // d² <= fl(e0²) gives d <= e0 and t = 0.
        untouched = SIMD8<Float>(repeating: Float(inner) * Float(inner) * (1 - 0x1p-20))
    }

    /// f for the eight pixels from column `x`; nil when all eight have f = 0. Each lane's
    /// horizontal distance comes from its absolute column alone (exact in Float), so values
    /// do not depend on where a row is cut.
    @inline(__always)
    func at(_ x: Int) -> SIMD8<Float>? {
        let lanes = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7)
        let dx = (SIMD8<Float>(repeating: Float(x)) + lanes + offset) * step
        let d2 = dx * dx + dy2
        if !any(d2 .>= untouched) { return nil }
        let d = d2.squareRoot()
        var t: SIMD8<Float>
        if hard {
            t = SIMD8<Float>(repeating: 0).replacing(with: 1, where: d .>= e1)
        } else {
            t = (d - e0) / width
            t = t.replacing(with: 0, where: t .< 0)
            t = t.replacing(with: 1, where: t .> 1)
        }
        return t * t * (3 - 2 * t)
    }
}
