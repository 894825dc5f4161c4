/// What an image carries besides its pixels, kept from input to output.
public struct ImageMetadata: Hashable, Sendable, CustomStringConvertible {
    /// The embedded ICC colour profile (PNG iCCP, JPEG APP2).
    public var iccProfile: [UInt8]?
    /// EXIF data: the TIFF structure (JPEG APP1 after "Exif\0\0", PNG eXIf).
    public var exif: [UInt8]?
    /// PNG colour chunks, written back to PNG outputs.
    public var pngColor: PNGColorChunks?

    public init(iccProfile: [UInt8]? = nil, exif: [UInt8]? = nil, pngColor: PNGColorChunks? = nil) {
        self.iccProfile = iccProfile
        self.exif = exif
        self.pngColor = pngColor
    }

    public static let none = ImageMetadata()

    /// What is present, with sizes, never the bytes: "ICC profile (RGB, 3144 bytes), EXIF (220 bytes)".
    public var description: String {
        var parts: [String] = []
        if let icc = iccProfile {
            parts.append("ICC profile (" + (iccColorSpace.map { $0.trimmingWhitespace + ", " } ?? "") + "\(icc.count) bytes)")
        }
        if let exif { parts.append("EXIF (\(exif.count) bytes)") }
        if let c = pngColor {
            if let intent = c.srgbIntent { parts.append("sRGB (intent \(intent))") }
            if let g = c.gamma { parts.append("gAMA \(g)") }
            if c.chromaticities != nil { parts.append("cHRM") }
        }
        return parts.isEmpty ? "no metadata" : parts.joined(separator: ", ")
    }

    /// The colour space an ICC profile describes ("RGB ", "GRAY", "CMYK", ...), from its header.
    public var iccColorSpace: String? {
        guard let icc = iccProfile, icc.count >= 20 else { return nil }
        return String(decoding: icc[16..<20], as: UTF8.self)
    }
}

/// sRGB, gAMA and cHRM, as stored (fixed point, times 100000).
public struct PNGColorChunks: Hashable, Sendable {
    public var srgbIntent: Int?
    public var gamma: UInt32?
    public var chromaticities: [UInt32]?

    public init(srgbIntent: Int? = nil, gamma: UInt32? = nil, chromaticities: [UInt32]? = nil) {
        self.srgbIntent = srgbIntent
        self.gamma = gamma
        self.chromaticities = chromaticities
    }

    var isEmpty: Bool { srgbIntent == nil && gamma == nil && chromaticities == nil }
}
