/// A mirror image, left-right or top-bottom.
public struct Flip: Filter {
    public enum Direction: String, CaseIterable, Sendable {
        /// Left and right swap.
        case horizontal
        /// Top and bottom swap.
        case vertical
    }

    public var direction = Direction.horizontal

    public init() {}

    public init(direction: Direction) { self.direction = direction }

    public static let declaration = FilterDeclaration<Flip>(
        type: "flip",
        group: .geometry,
        summary: "Mirror the image left-right (horizontal) or top-bottom (vertical).",
        documentation: """
            For an image of w x h, output pixel (i, j) is input pixel (w - 1 - i, j) for
            `horizontal` and (i, h - 1 - j) for `vertical`. Pixels are moved, never resampled.
            A horizontal flip streams; a vertical flip needs the whole image of its step in
            memory.
            """,
        parameters: [
            .choice("direction", \.direction, help: "horizontal (left-right) or vertical (top-bottom)"),
        ])

    public func operation() -> FilterOperation { .geometry(self) }

    public var keepsNeutralNeutral: Bool { true }
}

extension Flip: GeometryKernel {
    public func layout(for size: ImageSize) throws(GeometryError) -> GeometryLayout {
        .turn(direction == .horizontal ? .upMirrored : .downMirrored)
    }
}
