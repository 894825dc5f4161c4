/// The colorimetry of the working spaces: primaries, the D65 white, and an encoding (the
/// sRGB curve, or linear light).
extension WorkingSpace {

    /// Chromaticities (x, y) of the red, green and blue primaries.
    public var primaries: (red: (Double, Double), green: (Double, Double), blue: (Double, Double)) {
        switch self {
        case .srgb, .linear: ((0.64, 0.33), (0.30, 0.60), (0.15, 0.06))
        case .displayP3, .linearDisplayP3: ((0.680, 0.320), (0.265, 0.690), (0.150, 0.060))
        case .linearRec2020: ((0.708, 0.292), (0.170, 0.797), (0.131, 0.046))
        }
    }

    /// The white, D65, as chromaticity.
    public var white: (x: Double, y: Double) { Colorimetry.d65xy }

    /// True when values are linear light; otherwise they carry the sRGB curve.
    public var isLinear: Bool {
        switch self {
        case .srgb, .displayP3: false
        case .linear, .linearDisplayP3, .linearRec2020: true
        }
    }

    /// From linear light to the encoding: the sRGB curve (lcms2's parametric type 4 with
    /// sRGB's constants), or the identity (type 1, gamma 1).
    public var curve: TransferCurve {
        isLinear ? .parametric(type: 1, params: [1]) : .sRGB
    }

    /// Linear RGB to XYZ relative to D65 (Y of white = 1).
    public var rgbToXYZ: Matrix3 {
        let p = primaries
        return Colorimetry.rgbToXYZ(red: p.red, green: p.green, blue: p.blue, white: white)
    }

    /// Linear RGB to the ICC connection space (XYZ, D50), adapted with Bradford as lcms2
    /// does for a profile made from primaries and a white (cmsCreateRGBProfile).
    public var rgbToPCS: Matrix3 {
        let w = Colorimetry.xyz(x: white.x, y: white.y)
        return Colorimetry.bradfordAdaptation(from: w, to: Colorimetry.d50) * rgbToXYZ
    }

    /// The weights of red, green and blue in luminance: the Y row of `rgbToXYZ` (sRGB's:
    /// 0.2126, 0.7152, 0.0722 to four places). They sum to 1.
    public var luminanceWeights: SIMD3<Double> { rgbToXYZ.row(1) }

    /// The weights filters use where they weigh channels by luminance (colorControls'
    /// saturation, monochrome, vibrance, luminance masks): `luminanceWeights` to four places,
    /// as filters.md gives them. sRGB primaries (srgb, linear): 0.2126, 0.7152, 0.0722 (Rec.
    /// 709's, as before colour management); Display P3: 0.2290, 0.6917, 0.0793; Rec. 2020:
    /// 0.2627, 0.6780, 0.0593.
    public var lumaWeights: SIMD3<Double> {
        switch self {
        case .srgb, .linear: SIMD3(0.2126, 0.7152, 0.0722)
        case .displayP3, .linearDisplayP3: SIMD3(0.2290, 0.6917, 0.0793)
        case .linearRec2020: SIMD3(0.2627, 0.6780, 0.0593)
        }
    }

    /// An sRGB colour (a background, say) as this space's values: sRGB through the input leg
    /// an sRGB image takes.
    func values(ofSRGB colour: RGBColor) -> (Float, Float, Float) {
        guard let leg = try? InputLeg.into(self, from: .srgb, intent: .relative) else {
            preconditionFailure("sRGB converts into every working space")
        }
        let n = 8
        var planes = [Float](repeating: 0, count: 4 * n)
        planes[0] = Float(colour.red); planes[n] = Float(colour.green); planes[2 * n] = Float(colour.blue)
        return planes.withUnsafeMutableBufferPointer { q -> (Float, Float, Float) in
            let p = PlanarPixels(red: q.baseAddress!, green: q.baseAddress! + n, blue: q.baseAddress! + 2 * n,
                                 alpha: q.baseAddress! + 3 * n)
            if leg.decodesSRGB {
                for i in 0..<3 { p.red[i * n] = Float(SRGB.decode(Double(p.red[i * n]))) }
            }
            leg.kernel?.apply(p, count: n)
            return (p.red[0], p.green[0], p.blue[0])
        }
    }
}
