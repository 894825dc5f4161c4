/// Any affine map of straight RGBA: a 4x5 matrix, as SVG feColorMatrix and Core Image's CIColorMatrix.
public struct ColorMatrix: Filter {
    public var matrix: [[Double]] = ColorMatrix.identity

    public static let identity: [[Double]] = [[1, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 1, 0]]

    public init() {}

    /// `matrix`: 4 rows (r', g', b', a') of 5 numbers (the coefficients of r, g, b, a, and a constant).
    public init(matrix: [[Double]] = ColorMatrix.identity) {
        self.matrix = matrix
    }

    public static let declaration = FilterDeclaration<ColorMatrix>(
        type: "colorMatrix",
        group: .colour,
        summary: "A 4x5 matrix applied to straight RGBA: channel mixing, tints, alpha from colour.",
        documentation: """
            With the matrix M of 4 rows of 5 numbers, on straight (unpremultiplied) colour:

                (r', g', b', a') = M (r, g, b, a, 1)

            that is r' = M[0][0] r + M[0][1] g + M[0][2] b + M[0][3] a + M[0][4], and so on.
            Colour is not clamped, so a later filter sees what this one computed. When the
            alpha row is not (0, 0, 0, 1, 0) the filter writes alpha, clamped to [0, 1], and
            an opaque image gains an alpha channel.
            """,
        parameters: [
            .matrix("matrix", \.matrix, rows: 4, columns: 5, in: -10...10,
                    help: "rows for r', g', b', a'; columns multiply r, g, b, a, then a constant"),
        ])

    public func operation() -> FilterOperation {
        if matrix == ColorMatrix.identity { return .identity }
        return .point(MatrixKernel(changesAlpha ? matrix : Array(matrix.prefix(3))))
    }

    public var changesAlpha: Bool { matrix[3] != [0, 0, 0, 1, 0] }

    /// Grey stays grey when the three colour rows give the same value for every r = g = b
    /// (and any alpha): equal row sums of the colour columns, equal alpha and constant terms.
    public var keepsNeutralNeutral: Bool {
        let rows = matrix.prefix(3)
        let sums = rows.map { $0[0] + $0[1] + $0[2] }
        return Set(sums).count == 1 && Set(rows.map { $0[3] }).count == 1 && Set(rows.map { $0[4] }).count == 1
    }
}
