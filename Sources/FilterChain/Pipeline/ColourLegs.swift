/// How a source's samples become working-space values: integer samples to Float (through
/// the sRGB decoding table on the fast path into a linear sRGB space), then, when the source
/// is described otherwise than the working space, a conversion kernel. CMYK sources are
/// converted by lcms2 from their four samples.
struct InputLeg: Sendable {
    /// The sRGB decoding table (an sRGB source into `linear`), else samples over their maximum.
    let decodesSRGB: Bool
    /// The source's profile to the working space (a fused matrix/TRC kernel or lcms2), on
    /// straight colour, before anything else.
    let kernel: (any PointKernel)?
    /// CMYK sources: lcms2 from CMYK (lcms2's float CMYK, 0 to 100) to the working space.
    let cmyk: LCMSTransform?

    /// The samples as stored, over their maximum.
    static let stored = InputLeg(decodesSRGB: false, kernel: nil, cmyk: nil)
    /// sRGB samples into linear light, through the table.
    static let srgbToLinear = InputLeg(decodesSRGB: true, kernel: nil, cmyk: nil)

    /// Every value it gives is in 0...1 (no conversion kernel can leave that range).
    var givesUnitRange: Bool { kernel == nil && cmyk == nil }

    /// The leg from `colour` into `space`: colorimetric (relative, no black-point
    /// compensation) for matrix/TRC profiles, fused; `intent` with black-point compensation
    /// through lcms2 for LUT-based ones (CMYK among them).
    static func into(_ space: WorkingSpace, from colour: ImageColour, intent: RenderingIntent) throws(ColorProfileError) -> InputLeg {
        switch colour {
        case .srgb:
            switch space {
            case .srgb: return .stored
            case .linear: return .srgbToLinear
            default: return try into(space, from: .profile(.srgb, origin: "sRGB"), intent: intent)
            }
        case .profile(let profile, _):
            if profile.space == .cmyk {
                return InputLeg(decodesSRGB: false, kernel: nil,
                                cmyk: try LCMSTransform(from: profile, to: ColorProfile(workingSpace: space),
                                                        intent: intent, blackPointCompensation: true))
            }
            if let fused = MatrixTRCKernel.input(from: profile, to: space) {
                return InputLeg(decodesSRGB: false, kernel: fused, cmyk: nil)
            }
            return InputLeg(decodesSRGB: false, kernel: try LCMSKernel.input(from: profile, to: space, intent: intent), cmyk: nil)
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
        case .profile(let profile, _):
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
