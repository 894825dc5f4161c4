/// A lossless quarter or half turn.
public struct Rotate: Filter {
    /// Degrees clockwise: 90, 180 or 270 (or -90, -180, -270 counter-clockwise).
    public var angle = 90

    public init() {}

    public init(angle: Int) { self.angle = angle }

    public static let declaration = FilterDeclaration<Rotate>(
        type: "rotate",
        group: .geometry,
        summary: "Turn the image by 90, 180 or 270 degrees clockwise, losslessly.",
        documentation: """
            Turns the image clockwise by `angle` degrees; -90, -180 and -270 turn it
            counter-clockwise (the same as 270, 180 and 90). Pixels are moved, never
            resampled. For an image of w x h, output pixel (i, j) is input pixel

                 90:  (j, h - 1 - i)          (the output is h x w)
                180:  (w - 1 - i, h - 1 - j)
                270:  (w - 1 - j, i)          (the output is h x w)

            A quarter or half turn needs the whole image of its step in memory (one float per
            channel and pixel); the steps before and after it still stream.
            """,
        parameters: [
            .integerChoice("angle", \.angle, [90, 180, 270, -90, -180, -270], help: "degrees clockwise"),
        ])

    public func operation() -> FilterOperation { .geometry(self) }

    public var keepsNeutralNeutral: Bool { true }
}

extension Rotate: GeometryKernel {
    public func layout(for size: ImageSize) throws(GeometryError) -> GeometryLayout {
        switch (angle % 360 + 360) % 360 {
        case 90: .turn(.right)
        case 180: .turn(.down)
        case 270: .turn(.left)
        default: .turn(.up)
        }
    }
}
