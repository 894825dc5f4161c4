/// A colour lookup table from a .cube file (Adobe Cube LUT 1.0, Resolve's shaper form).
public struct LUT: Filter {
    /// The file, as the chain names it, and its table; nil only before a file is given.
    public var file: CubeFile?
    public var intensity = 1.0

    public init() {}

    /// Reads `file` (relative to `directory` unless absolute) once per process.
    public init(file: String, intensity: Double = 1, relativeTo directory: String = ".") throws(CubeLUTError) {
        self.file = try CubeFile(file, relativeTo: directory)
        self.intensity = intensity
    }

    public static let declaration = FilterDeclaration<LUT>(
        type: "lut",
        group: .colour,
        summary: "A colour look-up table from a .cube file, blended with the original by intensity.",
        documentation: """
            For each pixel, with LUT(r, g, b) the table's colour:

                c' = c + intensity (LUT(r, g, b) - c)

            **The file.** `file` is a .cube file (Adobe Cube LUT 1.0), relative to the chain
            file's folder or absolute; chain edits keep it as written. It is read once per
            process, so a batch parses it once. Accepted, in any order before the data:
            `TITLE "..."`, `LUT_3D_SIZE N` (2 to 256) or `LUT_1D_SIZE N` (2 to 65536) or both,
            `DOMAIN_MIN r g b` and `DOMAIN_MAX r g b` (default 0 0 0 and 1 1 1, min below max
            on each channel), and Resolve's `LUT_1D_INPUT_RANGE lo hi` / `LUT_3D_INPUT_RANGE
            lo hi` as the domain of that table on all three channels (not together with
            DOMAIN_MIN/MAX). `#` comments, blank lines, CRLF and a missing final newline are
            fine. Data: rows of three numbers, red changing fastest, then green, then blue;
            values may lie outside [0, 1]. Unknown keywords, repeated keywords, wrong counts,
            sizes out of range, non-finite numbers and min >= max are errors naming the
            file's line.

            **3D table** (size N): each input channel is clamped to the domain and scaled to
            [0, N-1]; with p = floor (at most N-2), d = fraction and c_xyz the corners
            (x for red, y green, z blue), tetrahedral interpolation, as ffmpeg's lut3d and darktable:

                d_r > d_g >= d_b:          (1-d_r) c000 + (d_r-d_g) c100 + (d_g-d_b) c110 + d_b c111
                d_r > d_b > d_g:           (1-d_r) c000 + (d_r-d_b) c100 + (d_b-d_g) c101 + d_g c111
                d_b >= d_r > d_g:          (1-d_b) c000 + (d_b-d_r) c001 + (d_r-d_g) c101 + d_g c111
                d_g >= d_r, d_b > d_g:     (1-d_b) c000 + (d_b-d_g) c001 + (d_g-d_r) c011 + d_r c111
                d_g >= d_r, d_g >= d_b > d_r: (1-d_g) c000 + (d_g-d_b) c010 + (d_b-d_r) c011 + d_r c111
                otherwise:                 (1-d_g) c000 + (d_g-d_r) c010 + (d_r-d_b) c110 + d_b c111

            **1D table** (size N): each channel clamped to its domain, scaled to [0, N-1] and
            interpolated linearly in its own column. **Both** (Resolve's shaper form): the 1D
            table comes first in the data and is applied first; its output is the 3D table's
            input. Alpha is unchanged. Works on straight colour.
            """,
        parameters: [
            .cubeFile("file", \.file, help: "the .cube file, relative to the chain file's folder or absolute"),
            .number("intensity", \.intensity, in: 0...1, help: "0 unchanged, 1 the table's colours"),
        ])

    public func operation() -> FilterOperation {
        guard let file, intensity != 0 else { return .identity }
        return .point(Kernel(lut: file.lut, intensity: Float(intensity)))
    }

    public var keepsNeutralNeutral: Bool { file == nil || intensity == 0 }

    struct Kernel: PointKernel {
        let lut: CubeLUT
        let intensity: Float

        func apply(_ p: PlanarPixels, count: Int) {
            lut.apply(p, count: count, intensity: intensity)
        }
    }
}
