import CLCMS

/// An ICC profile, read once by lcms2: what it describes and, for matrix/TRC profiles,
/// everything a fused kernel needs (colorants, white, curves and their inverses as lcms2
/// evaluates them).
public struct ColorProfile: Sendable {
    public enum Space: String, Sendable {
        case rgb, grey, cmyk
    }

    /// How lcms2 converts with the profile: matrix and tone curves (RGB: rXYZ, gXYZ, bXYZ
    /// and rTRC, gTRC, bTRC; grey: kTRC), which the fused kernels do, or lookup tables
    /// (AToB/BToA, CMYK and the rest), which only lcms2 does.
    public enum Kind: String, Sendable {
        case matrixTRC, lut
    }

    public let space: Space
    public let kind: Kind
    /// The ICC device class signature: "mntr", "scnr", "prtr", "spac", ...
    public let deviceClass: String
    /// The ICC version, 2.1, 4.3, ...
    public let version: Double
    /// For RGB matrix/TRC profiles: linear RGB to the connection space (XYZ, D50), the
    /// columns being the colorant tags as lcms2 reads them (already adapted to D50).
    public let colorants: Matrix3?
    /// The media white as lcms2 uses it (D50 for version 2 display profiles and when absent).
    public let white: SIMD3<Double>
    /// Matrix/TRC profiles: the tone curves (three for RGB, one for grey), device to linear.
    public let curves: [TransferCurve]
    /// Their inverses as lcms2 builds them for the output direction: analytic for
    /// parametric curves, lcms2's sampled inverse (4096 entries) for tables.
    public let inverseCurves: [TransferCurve]
    /// True when the profile does what sRGB does (see `isSRGBEquivalent`).
    public let behavesAsSRGB: Bool
    /// Damage to the profile's structure that lcms2 reads past without a word (see
    /// `structuralDamage`): what it is, or nil when the structure is whole.
    public let damage: String?

    /// The profile's bytes: as read, or as lcms2 wrote a profile filterchain made (nil for the
    /// working spaces' own reference profiles).
    public let iccData: [UInt8]?

    let engine: LCMSProfile

    /// Reads ICC bytes. Throws `ColorProfileError.unreadable` (lcms2's message) when lcms2
    /// cannot read them, and `.unsupportedSpace` for spaces other than RGB, grey and CMYK.
    public init(iccData: [UInt8]) throws(ColorProfileError) {
        try self.init(engine: LCMSProfile.open(iccData), iccData: iccData, damage: ColorProfile.structuralDamage(iccData))
    }

    /// What lcms2 reads past in a profile's structure: a profile shorter than its header says
    /// (cut short), or a tag table entry pointing outside the profile (lcms2 then drops that
    /// tag silently). nil when neither; what lcms2 cannot read at all it refuses itself.
    static func structuralDamage(_ b: [UInt8]) -> String? {
        guard b.count >= 132 else { return nil }
        func u32(_ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
        let declared = u32(0)
        if declared > b.count { return "it is cut short: \(b.count) of the \(declared) bytes its header gives" }
        let size = declared
        let count = u32(128)
        guard count <= (size - 132) / 12 else { return "its tag table of \(count) entries runs past its \(size) bytes" }
        for k in 0..<count {
            let at = 132 + 12 * k
            let offset = u32(at + 4), length = u32(at + 8)
            if offset + length > size {
                return "its tag '\(signature(UInt32(u32(at))))' lies outside it (bytes \(offset) to \(offset + length) of \(size))"
            }
        }
        return nil
    }

    /// What the profile calls itself (its description tag, in English where it has several
    /// languages, as lcms2 reads it): "Display P3", "sRGB IEC61966-2.1"; nil when it has none.
    public var profileDescription: String? {
        engine.access { p in
            var text = [CChar](repeating: 0, count: 512)
            guard fc_lcms_profile_description(p, &text, text.count) != 0 else { return nil }
            return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// How far the profile's output direction is from undoing its input direction in
    /// `intent` (see fc_lcms_profile_round_trip), 0 to 1; nil when it has no output direction
    /// (an input profile with only AToB tags) or is not RGB or grey. 0 for matrix/TRC profiles,
    /// whose output direction is the exact inverse by construction.
    public func roundTripError(intent: RenderingIntent) -> Double? {
        if kind == .matrixTRC { return 0 }
        guard space != .cmyk else { return nil }
        let e = engine.access { p in fc_lcms_profile_round_trip(p, Int32(intent.rawValue)) }
        return e < 0 ? nil : e
    }

    /// Whether lcms2 can convert from the profile in `intent` (the tags its input direction
    /// needs are there and readable): what a damaged profile must show before it is used.
    public func usableAsInput(intent: RenderingIntent = .relative) -> Bool {
        engine.access { p in fc_lcms_profile_usable_as_input(p, Int32(intent.rawValue)) != 0 }
    }

    /// Whether an output may be written with this profile as its description, the image's
    /// colours converted into it: its output direction exists and undoes its input direction
    /// to within two 8-bit levels everywhere on the grid, in `intent`. (The ICC's sRGB v4
    /// preference profile, a LUT profile, comes back within 0.6 levels; jpegli's XYB profile,
    /// whose BToA0 is a placeholder, hundreds of levels away.)
    public func servesAsOutput(intent: RenderingIntent) -> Bool {
        guard let e = roundTripError(intent: intent) else { return false }
        return e <= ColorProfile.outputRoundTripLimit
    }

    /// See `servesAsOutput`.
    public static let outputRoundTripLimit = 2.0 / 255

    /// The profile lcms2 makes for a working space (cmsCreateRGBProfile from its primaries,
    /// D65 white and curve): the other end of LUT transforms, and the reference in tests.
    public init(workingSpace: WorkingSpace) throws(ColorProfileError) {
        try self.init(engine: LCMSProfile.make(workingSpace))
    }

    init(engine: LCMSProfile, iccData: [UInt8]? = nil, damage: String? = nil) throws(ColorProfileError) {
        self.engine = engine
        self.iccData = iccData
        self.damage = damage
        var info = fc_lcms_info()
        var white = [Double](repeating: 0, count: 3)
        var colorants: [Double]? = [Double](repeating: 0, count: 9)
        var curves: [TransferCurve] = []
        var inverses: [TransferCurve] = []
        engine.access { p in
            fc_lcms_profile_info(p, &info)
            fc_lcms_profile_white(p, &white)
            if info.space != FC_LCMS_SPACE_RGB || fc_lcms_profile_colorants(p, &colorants!) == 0 { colorants = nil }
            guard info.is_matrix_trc != 0 else { return }
            for channel in 0..<(info.space == FC_LCMS_SPACE_GREY ? 1 : 3) {
                var curve = fc_lcms_curve_info()
                guard fc_lcms_profile_curve(p, Int32(channel), &curve) != 0 else { return }
                if curve.parametric_type != 0 {
                    let params = withUnsafeBytes(of: curve.params) { Array($0.bindMemory(to: Double.self)) }
                    let type = Int(curve.parametric_type)
                    let n = (1...5).contains(abs(type)) ? TransferCurve.parameterCount(abs(type)) : params.count
                    curves.append(.parametric(type: type, params: Array(params.prefix(n))))
                    inverses.append(.parametric(type: -type, params: Array(params.prefix(n))))
                } else {
                    func table(inverse: Bool) -> [UInt16] {
                        let n = fc_lcms_profile_curve_table(p, Int32(channel), inverse ? 1 : 0, nil, 0)
                        var t = [UInt16](repeating: 0, count: Int(n))
                        _ = t.withUnsafeMutableBufferPointer { fc_lcms_profile_curve_table(p, Int32(channel), inverse ? 1 : 0, $0.baseAddress, n) }
                        return t
                    }
                    curves.append(.table(table(inverse: false)))
                    inverses.append(.table(table(inverse: true)))
                }
            }
        }
        deviceClass = ColorProfile.signature(info.device_class)
        version = info.version
        self.white = SIMD3(white[0], white[1], white[2])
        switch info.space {
        case FC_LCMS_SPACE_RGB: space = .rgb
        case FC_LCMS_SPACE_GREY: space = .grey
        case FC_LCMS_SPACE_CMYK: space = .cmyk
        default: throw .unsupportedSpace(ColorProfile.signature(info.color_space))
        }
        let expected = space == .grey ? 1 : 3
        let fused = info.is_matrix_trc != 0 && curves.count == expected
            && (curves + inverses).allSatisfy(\.isSupported) && (space == .grey || colorants != nil)
        kind = fused ? .matrixTRC : .lut
        self.colorants = colorants.map { c in Matrix3(columns: SIMD3(c[0], c[1], c[2]), SIMD3(c[3], c[4], c[5]), SIMD3(c[6], c[7], c[8])) }
        self.curves = fused ? curves : []
        inverseCurves = fused ? inverses : []
        behavesAsSRGB = ColorProfile.isSRGBEquivalent(space: space, kind: kind, colorants: self.colorants,
                                                      white: self.white, curves: self.curves)
    }

    static func signature(_ value: UInt32) -> String {
        let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// How far a profile is from sRGB: the largest difference of its colorants from sRGB's
    /// (the sRGB primaries adapted to D50 with Bradford), of its white from D50, and of its
    /// curves from the sRGB curve at 4096 equally spaced points of [0, 1] (tables
    /// interpolated as the ICC defines them). nil unless it is an RGB matrix/TRC profile.
    public var srgbDistance: (colorants: Double, white: Double, curves: Double)? {
        ColorProfile.srgbDistance(space: space, kind: kind, colorants: colorants, white: white, curves: curves)
    }

    static func srgbDistance(space: Space, kind: Kind, colorants: Matrix3?, white: SIMD3<Double>,
                             curves: [TransferCurve]) -> (colorants: Double, white: Double, curves: Double)? {
        guard space == .rgb, kind == .matrixTRC, let colorants, curves.count == 3 else { return nil }
        let srgb = WorkingSpace.srgb.rgbToPCS
        let c = zip(colorants.m, srgb.m).map { abs($0 - $1) }.max()!
        let dw = white - Colorimetry.d50
        let w = max(abs(dw.x), abs(dw.y), abs(dw.z))
        let points = 4096
        var curve = 0.0
        for f in curves {
            for i in 0..<points {
                let x = Double(i) / Double(points - 1)
                curve = max(curve, abs(f.exactValue(x) - TransferCurve.sRGB.exactValue(x)))
            }
        }
        return (c, w, curve)
    }

    /// Whether a profile behaves as sRGB, judged by what it does, not its name or bytes: an
    /// RGB matrix/TRC profile whose colorants are within 5e-4 of sRGB's (the sRGB primaries
    /// adapted to D50 with Bradford), whose white is within 1e-4 of D50, and whose curves are
    /// within 3e-4 of the sRGB curve at 4096 points (see `srgbDistance`). The sRGB profiles in
    /// circulation differ from the standard by their makers' rounding, and by no more: the
    /// classic 3144-byte sRGB IEC61966-2.1 profile (and the ICC's black-scaled one) has
    /// colorants 1.8e-4 away, colord's 2.2e-4, the compact v2 "micro" profile's 42-point
    /// curve is 1.9e-4 away. Taking their literal values would shift a photograph tagged
    /// with one of them from the same photograph untagged by up to 1.4 8-bit levels in the
    /// darkest tones, an artefact of the rounding; so they are sRGB. Nothing else comes
    /// near: Display P3's colorants are 0.09 away, scRGB's curve 0.29.
    static func isSRGBEquivalent(space: Space, kind: Kind, colorants: Matrix3?, white: SIMD3<Double>,
                                 curves: [TransferCurve]) -> Bool {
        guard let d = srgbDistance(space: space, kind: kind, colorants: colorants, white: white, curves: curves) else { return false }
        return d.colorants <= 5e-4 && d.white <= 1e-4 && d.curves <= 3e-4
    }

    /// Evaluates curve `channel` (or its inverse) with lcms2 itself, as its float transforms
    /// do: the reference the kernels are tested against.
    public func lcmsCurve(_ channel: Int, inverse: Bool, at values: [Float]) -> [Float]? {
        engine.evaluateCurve(channel, inverse: inverse, at: values)
    }
}
