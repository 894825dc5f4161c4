/// The negative image.
public struct Invert: Filter {
    public init() {}

    public static let declaration = FilterDeclaration<Invert>(
        type: "invert",
        group: .colour,
        summary: "The negative: every colour channel becomes 1 minus itself.",
        documentation: """
            Each colour channel c of a pixel:

                c' = 1 - c

            Alpha is unchanged. Works on straight colour, so transparent areas keep their
            transparency. In the linear working space the inversion is of linear light.
            """,
        parameters: [])

    public func operation() -> FilterOperation {
        .point(MatrixKernel(rgb: [[-1, 0, 0, 1], [0, -1, 0, 1], [0, 0, -1, 1]]))
    }

    public var keepsNeutralNeutral: Bool { true }
}
