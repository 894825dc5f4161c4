/// A rectangle of the image, in pixels or as fractions of its size.
public struct Crop: Filter {
    public enum Unit: String, CaseIterable, Sendable {
        case pixels
        /// Fractions 0...1 of the current width (x, width) or height (y, height).
        case fraction
    }

    public var x = 0.0
    public var y = 0.0
    public var width: Double?
    public var height: Double?
    public var unit = Unit.pixels

    public init() {}

    public init(x: Double = 0, y: Double = 0, width: Double, height: Double, unit: Unit = .pixels) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.unit = unit
    }

    public static let declaration = FilterDeclaration<Crop>(
        type: "crop",
        group: .geometry,
        summary: "Keep a rectangle of the image, in pixels or as fractions of its size.",
        documentation: """
            Keeps the pixels x <= i < x + width, y <= j < y + height of the image as it stands
            (after the steps before it). With `unit: "pixels"` (the default) the four values are
            whole numbers; with `unit: "fraction"` they are numbers 0...1 of the current width
            (x, width) or height (y, height), each rounded half up: round(v W) = floor(v W + 0.5).
            A rectangle that reaches outside the image, or is empty after rounding, fails that
            image (exit status 1) with a message naming the step, the rectangle and the image's
            size; in a batch the other images go on.
            """,
        parameters: [
            .number("x", \.x, in: 0...65535, help: "left edge: pixels, or a fraction of the width").measured(in: .pixels),
            .number("y", \.y, in: 0...65535, help: "top edge: pixels, or a fraction of the height").measured(in: .pixels),
            .optionalNumber("width", \.width, in: 0...65535, help: "required: pixels, or a fraction of the width")
                .measured(in: .pixels),
            .optionalNumber("height", \.height, in: 0...65535, help: "required: pixels, or a fraction of the height")
                .measured(in: .pixels),
            .choice("unit", \.unit, help: "pixels (whole numbers) or fraction (0...1 of the size)"),
        ],
        check: { c in
            guard let width = c.width, let height = c.height else {
                return "width and height are required; x and y default to 0"
            }
            let values = [("x", c.x), ("y", c.y), ("width", width), ("height", height)]
            switch c.unit {
            case .pixels:
                for (name, v) in values where v != v.rounded() {
                    return "\(name) \(JSONWriter.number(v)) is not a whole number; with unit \"pixels\" all four are whole numbers (unit \"fraction\" takes 0...1)"
                }
                if width < 1 || height < 1 { return "width and height must be at least 1 pixel" }
            case .fraction:
                for (name, v) in values where v > 1 {
                    return "\(name) \(JSONWriter.number(v)) is outside 0...1; with unit \"fraction\" all four are fractions of the size"
                }
                if width == 0 || height == 0 { return "width and height must be above 0" }
            }
            return nil
        })

    public func operation() -> FilterOperation { .geometry(self) }

    public var keepsNeutralNeutral: Bool { true }
}

extension Crop {
    /// For a copy of the image scaled by `scale`: a rectangle in pixels scaled with it,
    /// rounded down (so that it still fits the scaled image), at least 1 pixel wide and
    /// high; fractions stay as they are.
    public func scaled(by scale: Double) -> Crop {
        guard unit == .pixels, scale != 1 else { return self }
        var copy = self
        copy.x = (x * scale).rounded(.down)
        copy.y = (y * scale).rounded(.down)
        copy.width = width.map { max(1, ($0 * scale).rounded(.down)) }
        copy.height = height.map { max(1, ($0 * scale).rounded(.down)) }
        return copy
    }
}

extension Crop: GeometryKernel {
    /// The rectangle in pixels of an image of `size`.
    public func rectangle(in size: ImageSize) -> PixelRect {
        func px(_ v: Double, _ side: Int) -> Int {
            unit == .pixels ? Int(v) : Int((v * Double(side) + 0.5).rounded(.down))
        }
        return PixelRect(x: px(x, size.width), y: px(y, size.height),
                         width: px(width ?? 0, size.width), height: px(height ?? 0, size.height))
    }

    public func layout(for size: ImageSize) throws(GeometryError) -> GeometryLayout {
        let r = rectangle(in: size)
        if r.width < 1 || r.height < 1 {
            throw GeometryError("the rectangle \(r) is empty in the \(size) image")
        }
        if r.x + r.width > size.width || r.y + r.height > size.height {
            throw GeometryError("the rectangle \(r) reaches outside the \(size) image")
        }
        return .crop(r)
    }
}
