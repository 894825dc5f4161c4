/// Profiles filterchain makes itself: the ones `--output-profile srgb` and `displayP3` write,
/// and the ones that stand for a PNG's cHRM and gAMA chunks or a HEIF/AVIF nclx description.
extension ColorProfile {
    /// sRGB as outputs carry it: lcms2's matrix/TRC sRGB (the sRGB primaries adapted to D50
    /// with Bradford, the parametric sRGB curve), about 500 bytes.
    public static let srgb: ColorProfile = try! made(.srgb, description: "sRGB (filterchain)")
    /// Display P3 (P3 primaries, D65 white, the sRGB curve) as outputs carry it.
    public static let displayP3: ColorProfile = try! made(.displayP3, description: "Display P3 (filterchain)")

    /// ProPhoto RGB (ROMM: its primaries, D50 white) with a linear curve: what LibRaw's
    /// `output_color = 4` develops a camera RAW into (dcraw's matrix from linear sRGB,
    /// Bradford-adapted to D50; white stays white). It holds every colour of sRGB, Display P3
    /// and nearly all of Rec. 2020 within 0...1.
    public static let linearProPhoto: ColorProfile = try! rgb(
        white: (0.3457, 0.3585), primaries: [(0.7347, 0.2653), (0.1596, 0.8404), (0.0366, 0.0001)],
        curve: (1, [1.0]), description: "ProPhoto RGB, linear (filterchain)")

    /// Grey with the sRGB curve (sGrey), for grey outputs tagged as sRGB.
    public static let srgbGrey: ColorProfile = try! grey(curve: (4, [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]),
                                                         description: "sGrey (filterchain)")

    private static func made(_ space: WorkingSpace, description: String) throws(ColorProfileError) -> ColorProfile {
        guard case .parametric(let type, let params) = space.curve else { preconditionFailure("parametric") }
        let p = space.primaries
        return try rgb(white: space.white, primaries: [p.red, p.green, p.blue], curve: (type, params), description: description)
    }

    /// An RGB matrix/TRC profile from primaries and a white (chromaticities) and one
    /// parametric curve (lcms2's type and parameters), with its ICC bytes.
    static func rgb(white: (x: Double, y: Double), primaries: [(Double, Double)], curve: (type: Int, params: [Double]),
                    description: String) throws(ColorProfileError) -> ColorProfile {
        let engine = try LCMSProfile.makeRGB(white: (white.x, white.y), primaries: primaries,
                                             curveType: curve.type, curveParameters: curve.params)
        let bytes = engine.iccData(description: description, copyright: "No copyright, use freely")
        return try ColorProfile(engine: engine, iccData: bytes)
    }

    /// A grey profile with one parametric curve, with its ICC bytes.
    static func grey(curve: (type: Int, params: [Double]), description: String) throws(ColorProfileError) -> ColorProfile {
        let engine = try LCMSProfile.makeGrey(curveType: curve.type, curveParameters: curve.params)
        let bytes = engine.iccData(description: description, copyright: "No copyright, use freely")
        return try ColorProfile(engine: engine, iccData: bytes)
    }
}
