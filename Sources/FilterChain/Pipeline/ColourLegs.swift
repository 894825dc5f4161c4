/// How a source's samples become working-space values: integer samples to Float (through
/// the sRGB decoding table on the fast path into a linear sRGB space, or a matrix/TRC
/// profile's curves by table), then, when the source is described otherwise than the working
/// space, a conversion kernel. LUT-based profiles (CMYK among them) are converted from the
/// samples by lcms2's integer transform.
struct InputLeg: Sendable {
    /// The sRGB decoding table (an sRGB source into `linear`), else samples over their maximum.
    let decodesSRGB: Bool
    /// The source's profile to the working space (a fused matrix/TRC kernel or lcms2), on
    /// straight colour, before anything else.
    let kernel: (any PointKernel)?
    /// LUT-based profiles (CMYK, and RGB or grey ones with tables): lcms2's integer transform
    /// from the samples to 16-bit working-space values, optimised as lcms2 does by default
    /// (one precalculated table, as vips and Pillow use it; values outside the working space
    /// are clipped to it there, unlike the matrix/TRC path).
    let lut: LCMSTransform?
    /// The profile's curves (a channel each), applied to the integer samples by table before
    /// `kernel` (which then holds only the matrix and the working space's curve).
    var sampleCurves: [CurveEvaluator]? = nil

    /// The samples as stored, over their maximum.
    static let stored = InputLeg(decodesSRGB: false, kernel: nil, lut: nil)
    /// sRGB samples into linear light, through the table.
    static let srgbToLinear = InputLeg(decodesSRGB: true, kernel: nil, lut: nil)

    /// Every value it gives is in 0...1 (no conversion kernel can leave that range).
    var givesUnitRange: Bool { kernel == nil && lut == nil }

    /// The leg from `colour` into `space`: colorimetric (relative, no black-point
    /// compensation) for matrix/TRC profiles, fused; `intent` with black-point compensation
    /// through lcms2 for LUT-based ones (CMYK among them).
    static func into(_ space: WorkingSpace, from colour: ImageColour, intent: RenderingIntent,
                     sampleBytes: Int = 1) throws(ColorProfileError) -> InputLeg {
        switch colour {
        case .srgb:
            switch space {
            case .srgb: return .stored
            case .linear: return .srgbToLinear
            default: return try into(space, from: .profile(.srgb, origin: "sRGB"), intent: intent, sampleBytes: sampleBytes)
            }
        case .hdr(let transfer, let primaries):
            return try hdr(transfer, primaries: primaries, into: space)
        case .camera(let profile):
            return try into(space, from: .profile(profile, origin: "camera RAW"), intent: intent, sampleBytes: sampleBytes)
        case .profile(let profile, _):
            if profile.space != .cmyk, let fused = MatrixTRCKernel.input(from: profile, to: space) {
                return InputLeg(decodesSRGB: false, kernel: fused.withoutFirstCurves, lut: nil,
                                sampleCurves: fused.firstCurves)
            }
            return InputLeg(decodesSRGB: false, kernel: nil,
                            lut: try LCMSTransform(samplesFrom: profile, bytes: sampleBytes, to: ColorProfile(workingSpace: space),
                                                   intent: intent, blackPointCompensation: true))
        }
    }
}

/// How working-space values become an output's samples: a conversion kernel to the output's
/// profile (on straight colour, after compositing, before clamping), or on the fast path from
/// linear sRGB the sRGB encoding table; then clamping and rounding.
struct OutputLeg: Sendable {
    /// Linear sRGB to sRGB through the table.
    let encodesSRGB: Bool
    let kernel: (any PointKernel)?
    /// A CMYK output profile: lcms2's float transform from the working space to its inks
    /// (0 to 100), written as four samples a pixel.
    var inks: LCMSTransform? = nil

    static let stored = OutputLeg(encodesSRGB: false, kernel: nil)
    static let linearToSRGB = OutputLeg(encodesSRGB: true, kernel: nil)

    /// The leg from `space` to `colour` (`intent` with black-point compensation; lcms2
    /// ignores it for absolute colorimetric).
    static func from(_ space: WorkingSpace, to colour: ImageColour, intent: RenderingIntent) throws(ColorProfileError) -> OutputLeg {
        switch colour {
        case .srgb:
            switch space {
            case .srgb: return .stored
            case .linear: return .linearToSRGB
            default: return try from(space, to: .profile(.srgb, origin: "sRGB"), intent: intent)
            }
        case .hdr:
            // HDR outputs are made by their rendition (GainMapRendition), not by a leg.
            throw ColorProfileError.cannotUse("PQ and HLG are written with --hdr")
        case .camera(let profile):
            return try from(space, to: .profile(profile, origin: "camera RAW"), intent: intent)
        case .profile(let profile, _):
            if profile.space == .cmyk {
                return OutputLeg(encodesSRGB: false, kernel: nil,
                                 inks: try LCMSTransform(from: ColorProfile(workingSpace: space), to: profile, intent: intent,
                                                         blackPointCompensation: true))
            }
            // A matrix/TRC profile whose curves reach 0 at 0 is the fused kernel for every
            // intent but absolute: lcms2's black point is then 0 (compensation changes
            // nothing), and perceptual and saturation fall back to the colorimetric matrix
            // (MatrixTRCKernelTests.outputLegWithCompensationIsLCMS). The rest is lcms2's.
            if intent != .absolute, profile.curves.allSatisfy({ $0.value(0) == 0 }),
               let fused = MatrixTRCKernel.output(from: space, to: profile) {
                return OutputLeg(encodesSRGB: false, kernel: fused)
            }
            return OutputLeg(encodesSRGB: false, kernel: try LCMSKernel.output(from: space, to: profile, intent: intent))
        }
    }
}
