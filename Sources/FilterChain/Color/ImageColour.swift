/// What an image's samples mean, read from its metadata in this order: an embedded ICC
/// profile (RGB, grey or CMYK); else PNG cHRM and gAMA (a profile made from them; an sRGB
/// chunk means sRGB); else a HEIF/AVIF nclx description; else sRGB.
package enum ImageColour: Sendable {
    /// sRGB: no description, an sRGB chunk, or a profile that behaves as sRGB (judged by what
    /// it does: `ColorProfile.behavesAsSRGB`).
    case srgb
    /// Anything else, with where the description came from ("its ICC profile").
    case profile(ColorProfile, origin: String)
    /// High dynamic range by nclx or cICP: PQ or HLG samples, and the linear profile of their
    /// primaries. They come in as linear light with SDR white (203 cd/m²) at 1.0
    /// (`InputLeg.into`, HDRInput.swift).
    case hdr(HDRTransfer, primaries: ColorProfile)
    /// A camera RAW developed by LibRaw: linear ProPhoto RGB (`ColorProfile.linearProPhoto`)
    /// from the camera's matrix, scene light with the sensor's white at 1.0. It comes in as
    /// that profile says; `--output-profile source` writes it as untagged sRGB (the profile
    /// describes the development, not a look to keep).
    case camera(ColorProfile)

    /// The profile, or nil for sRGB.
    public var profile: ColorProfile? {
        if case .profile(let p, _) = self { return p }
        if case .camera(let p) = self { return p }
        return nil
    }

    /// The description of an image with `metadata`, and a warning when a description was
    /// there but cannot be used (sRGB is then assumed, as for a damaged profile).
    public static func of(_ metadata: ImageMetadata) -> (colour: ImageColour, warning: String?) {
        if metadata.cameraRAW != nil { return (.camera(.linearProPhoto), nil) }
        if let icc = metadata.iccProfile {
            do {
                let profile = try ProfileCache.shared.profile(icc)
                // Damage lcms2 read past: the rest of the profile is used when it can convert,
                // and either way the file is named.
                if let damage = profile.damage {
                    guard profile.usableAsInput() else {
                        return (.srgb, "its ICC profile is damaged (\(damage)) and cannot be used; the pixels are taken as sRGB")
                    }
                    return (profile.behavesAsSRGB ? .srgb : .profile(profile, origin: "its ICC profile"),
                            "its ICC profile is damaged (\(damage)); the rest of it was used")
                }
                return (profile.behavesAsSRGB ? .srgb : .profile(profile, origin: "its ICC profile"), nil)
            } catch {
                return (.srgb, "its ICC profile cannot be used (\(error)); the pixels are taken as sRGB")
            }
        }
        if let png = metadata.pngColor, !png.isEmpty {
            if png.srgbIntent != nil { return (.srgb, nil) }
            return pngChunks(png)
        }
        if let nclx = metadata.nclx { return nclxColour(nclx) }
        return (.srgb, nil)
    }

    /// cHRM and gAMA: the white and primaries of cHRM (sRGB's without it) and the curve
    /// v^(1/gamma). A gAMA of 1/2.2 (45455, libpng's sRGB gamma) with sRGB's chromaticities or
    /// none is taken as sRGB, as libpng and browsers take it.
    static func pngChunks(_ png: PNGColorChunks) -> (colour: ImageColour, warning: String?) {
        let srgb = WorkingSpace.srgb
        var white = srgb.white
        var primaries = [srgb.primaries.red, srgb.primaries.green, srgb.primaries.blue]
        var chromaticitiesAreSRGB = true
        if let c = png.chromaticities, c.count == 8 {
            let v = c.map { Double($0) / 100_000 }
            let given = (white: (x: v[0], y: v[1]), primaries: [(v[2], v[3]), (v[4], v[5]), (v[6], v[7])])
            chromaticitiesAreSRGB = zip([given.white.x, given.white.y] + given.primaries.flatMap { [$0.0, $0.1] },
                                        [white.x, white.y] + primaries.flatMap { [$0.0, $0.1] })
                .allSatisfy { abs($0 - $1) <= 0.0001 }
            if !chromaticitiesAreSRGB {
                guard v.allSatisfy({ $0 > 0 && $0 < 1 }) else {
                    return (.srgb, "its cHRM chunk is not a usable white and primaries; the pixels are taken as sRGB")
                }
                white = given.white
                primaries = given.primaries
            }
        }
        let gamma = png.gamma.map { Double($0) / 100_000 }
        if chromaticitiesAreSRGB && (gamma == nil || png.gamma == 45455 || png.gamma == 45454) { return (.srgb, nil) }
        // gAMA holds the encoding exponent (1/2.2 as 45455); the profile's curve decodes.
        let curve: (type: Int, params: [Double])
        if let gamma {
            guard gamma > 0.01 && gamma < 100 else {
                return (.srgb, "its gAMA chunk (\(png.gamma!)) is not a usable gamma; the pixels are taken as sRGB")
            }
            curve = (1, [1 / gamma])
        } else {
            curve = (4, [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045])
        }
        do {
            let profile = try ColorProfile.rgb(white: white, primaries: primaries, curve: curve,
                                               description: "PNG cHRM/gAMA (filterchain)")
            return (.profile(profile, origin: "its cHRM and gAMA chunks"), nil)
        } catch {
            return (.srgb, "its cHRM and gAMA chunks cannot be used (\(error)); the pixels are taken as sRGB")
        }
    }

    /// An nclx description: the primaries and transfer curve it names, as a profile; PQ and
    /// HLG (high dynamic range, which no ICC curve holds) as `.hdr`.
    static func nclxColour(_ nclx: NCLXColor) -> (colour: ImageColour, warning: String?) {
        let primaries: (white: (x: Double, y: Double), rgb: [(Double, Double)])
        switch nclx.colourPrimaries {
        case 0, 1, 2: primaries = (Colorimetry.d65xy, [(0.64, 0.33), (0.30, 0.60), (0.15, 0.06)])
        case 5: primaries = (Colorimetry.d65xy, [(0.64, 0.33), (0.29, 0.60), (0.15, 0.06)])
        case 6, 7: primaries = (Colorimetry.d65xy, [(0.63, 0.34), (0.31, 0.595), (0.155, 0.07)])
        case 9: primaries = (Colorimetry.d65xy, [(0.708, 0.292), (0.170, 0.797), (0.131, 0.046)])
        case 11: primaries = ((0.314, 0.351), [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)])
        case 12: primaries = (Colorimetry.d65xy, [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)])
        default:
            return (.srgb, "its \(nclx) names colour primaries \(nclx.colourPrimaries), which filterchain does not know; the pixels are taken as sRGB")
        }
        let srgbCurve = (type: 4, params: [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045])
        if let transfer = HDRTransfer(codePoint: nclx.transferCharacteristics) {
            do {
                let linear = try ColorProfile.rgb(white: primaries.white, primaries: primaries.rgb, curve: (1, [1]),
                                                  description: "\(nclx) linear (filterchain)")
                return (.hdr(transfer, primaries: linear), nil)
            } catch {
                return (.srgb, "its \(nclx) cannot be used (\(error)); the pixels are taken as sRGB")
            }
        }
        let curve: (type: Int, params: [Double])
        switch nclx.transferCharacteristics {
        case 0, 2, 13: curve = srgbCurve
        // BT.709 (and 601, 2020): the inverse of its camera curve, as browsers and libavif use it.
        case 1, 6, 14, 15: curve = (4, [1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081])
        case 4: curve = (1, [2.2])
        case 5: curve = (1, [2.8])
        case 8: curve = (1, [1])
        default:
            return (.srgb, "its \(nclx) names transfer characteristics \(nclx.transferCharacteristics), which filterchain does not convert; the pixels are taken as sRGB")
        }
        if [0, 1, 2].contains(nclx.colourPrimaries) && curve.params == srgbCurve.params { return (.srgb, nil) }
        do {
            let profile = try ColorProfile.rgb(white: primaries.white, primaries: primaries.rgb, curve: curve,
                                               description: "\(nclx) (filterchain)")
            return (.profile(profile, origin: "its nclx colour description"), nil)
        } catch {
            return (.srgb, "its \(nclx) cannot be used (\(error)); the pixels are taken as sRGB")
        }
    }
}

/// Profiles read from ICC bytes, kept by their bytes: a batch of photographs from one camera
/// or phone reads its profile once. Holds the last few. (@unchecked Sendable: `entries` is
/// guarded by `lock`, a Monitor.)
final class ProfileCache: @unchecked Sendable {
    static let shared = ProfileCache()
    private let lock = Monitor()
    private var entries: [(bytes: [UInt8], profile: ColorProfile)] = []
    private let capacity = 8

    func profile(_ bytes: [UInt8]) throws(ColorProfileError) -> ColorProfile {
        if let hit = lock.locked({ entries.first { $0.bytes == bytes }?.profile }) { return hit }
        let profile = try ColorProfile(iccData: bytes)
        lock.locked {
            entries.insert((bytes, profile), at: 0)
            if entries.count > capacity { entries.removeLast() }
        }
        return profile
    }
}
