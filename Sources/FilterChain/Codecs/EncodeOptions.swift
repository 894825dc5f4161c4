/// How images are written.
public struct EncodeOptions: Sendable, Hashable {
    /// The output format; nil takes it from the output's extension.
    public var format: ImageFormat?
    /// PNG bit depth; nil follows the input (16-bit input gives 16-bit output).
    public var depth: BitDepth?
    /// JPEG quality, 1...100; nil: the quality estimated from a JPEG source's quantisation
    /// tables, else 90.
    public var quality: Int?
    public var progressive: Bool
    /// JPEG chroma subsampling; nil: a JPEG source's own, else 4:2:0.
    public var chroma: ChromaSubsampling?
    /// PNG zlib level, 0...9.
    public var compressionLevel: Int
    /// Drop the metadata (EXIF, XMP, comments, text, resolution, time) but keep the colour
    /// description (ICC profile, PNG sRGB/gAMA/cHRM), which changes how the image looks.
    public var stripMetadata: Bool
    /// Drop the colour description too (ICC profile, PNG sRGB/gAMA/cHRM).
    public var stripColorProfile: Bool
    /// JPEG has no alpha: transparent pixels are composited over this colour.
    public var background: RGBColor

    public static let defaultQuality = 90
    public static let defaultChroma = ChromaSubsampling.yuv420

    public init(format: ImageFormat? = nil, depth: BitDepth? = nil, quality: Int? = nil,
                progressive: Bool = false, chroma: ChromaSubsampling? = nil,
                compressionLevel: Int = 6, stripMetadata: Bool = false, stripColorProfile: Bool = false,
                background: RGBColor = .white) {
        self.stripColorProfile = stripColorProfile
        self.format = format
        self.depth = depth
        self.quality = quality
        self.progressive = progressive
        self.chroma = chroma
        self.compressionLevel = compressionLevel
        self.stripMetadata = stripMetadata
        self.background = background
    }

    /// Throws RenderError for a value outside what it allows.
    public func validate() throws(RenderError) {
        if let quality, !(1...100).contains(quality) {
            throw RenderError(.badOption("quality \(quality) is out of range; allowed 1...100"))
        }
        guard (0...9).contains(compressionLevel) else {
            throw RenderError(.badOption("compressionLevel \(compressionLevel) is out of range; allowed 0...9"))
        }
        for (name, v) in [("red", background.red), ("green", background.green), ("blue", background.blue)] where !(v.isFinite && (0...1).contains(v)) {
            throw RenderError(.badOption("background \(name) \(v) is out of range; allowed 0...1"))
        }
    }

    /// The JPEG quality and chroma subsampling an image with `metadata` is written with:
    /// these options', else the source JPEG's, else 90 and 4:2:0.
    public func jpegSettings(for metadata: ImageMetadata) -> (quality: Int, chroma: ChromaSubsampling) {
        (quality ?? metadata.sourceJPEG?.quality ?? EncodeOptions.defaultQuality,
         chroma ?? metadata.sourceJPEG?.chroma ?? EncodeOptions.defaultChroma)
    }

    /// The format an output at `destination` gets: `format`, else the path's extension.
    public func resolvedFormat(for destination: ImageDestination) throws -> ImageFormat {
        if let format { return format }
        guard case .file(let path) = destination else {
            throw CodecError("-", .unsupportedOutputFormat(""))
        }
        let base = OutputFile.split(path).base
        let ext = base.lastIndex(of: ".").map { String(base[base.index(after: $0)...]) } ?? ""
        guard let format = ImageFormat(pathExtension: ext) else {
            throw CodecError(path, .unsupportedOutputFormat(ext))
        }
        return format
    }
}

public enum ChromaSubsampling: String, Sendable, Hashable, CaseIterable {
    case yuv420 = "4:2:0"
    case yuv422 = "4:2:2"
    case yuv444 = "4:4:4"
}

/// An sRGB colour, components in 0...1.
public struct RGBColor: Sendable, Hashable, CustomStringConvertible {
    public var red: Double
    public var green: Double
    public var blue: Double

    public init(red: Double, green: Double, blue: Double) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    public static let white = RGBColor(red: 1, green: 1, blue: 1)
    public static let black = RGBColor(red: 0, green: 0, blue: 0)

    /// "white", "black", "#RGB", "#RRGGBB" (the # is optional).
    public init?(parsing text: String) {
        let s = text.lowercased()
        if s == "white" { self = .white; return }
        if s == "black" { self = .black; return }
        var hex = Substring(s)
        if hex.hasPrefix("#") { hex = hex.dropFirst() }
        guard hex.allSatisfy(\.isHexDigit) else { return nil }
        let digits = hex.map { Int(String($0), radix: 16)! }
        switch digits.count {
        case 3: self.init(red: Double(digits[0] * 17) / 255, green: Double(digits[1] * 17) / 255,
                          blue: Double(digits[2] * 17) / 255)
        case 6: self.init(red: Double(digits[0] * 16 + digits[1]) / 255,
                          green: Double(digits[2] * 16 + digits[3]) / 255,
                          blue: Double(digits[4] * 16 + digits[5]) / 255)
        default: return nil
        }
    }

    public var description: String {
        let hex = [red, green, blue].map { v -> String in
            let s = String(Int((v * 255).rounded()), radix: 16)
            return s.count == 1 ? "0" + s : s
        }
        return "#" + hex.joined()
    }
}
