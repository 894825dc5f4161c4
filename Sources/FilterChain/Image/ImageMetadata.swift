/// What an image carries besides its pixels, kept from input to output.
public struct ImageMetadata: Hashable, Sendable, CustomStringConvertible {
    /// The embedded ICC colour profile (PNG iCCP, JPEG APP2).
    public var iccProfile: [UInt8]?
    /// EXIF data: the TIFF structure (JPEG APP1 after "Exif\0\0", PNG eXIf).
    public var exif: [UInt8]?
    /// PNG colour chunks, written back to PNG outputs (only those the source had).
    public var pngColor: PNGColorChunks?
    /// The XMP packet (JPEG APP1 "http://ns.adobe.com/xap/1.0/", PNG iTXt
    /// "XML:com.adobe.xmp"), UTF-8 XML as stored.
    public var xmp: [UInt8]?
    /// JPEG extended XMP: the part of the XMP too large for one segment, reassembled.
    public var extendedXMP: ExtendedXMP?
    /// Comments: JPEG COM segments as stored. PNG outputs write them as "Comment" text.
    public var comments: [[UInt8]]
    /// Pixel density (JFIF density, PNG pHYs).
    public var resolution: Resolution?
    /// PNG text and time chunks (tEXt, zTXt, iTXt other than XMP, tIME), as stored; written
    /// back to PNG outputs, and their "Comment" texts to JPEG outputs as COM.
    public var pngChunks: [PNGChunk]
    /// How the source JPEG was encoded (estimated quality, chroma subsampling): JPEG outputs
    /// follow it when their options leave quality or chroma unset. Not written as such.
    public var sourceJPEG: JPEGEncoding?
    /// A HEIF or AVIF file's nclx colour description (colour primaries, transfer
    /// characteristics, matrix coefficients and range, as ITU-T H.273 numbers them), kept for
    /// colour management; formats without nclx get the nearest ICC description instead.
    public var nclx: NCLXColor?
    /// An HDR file's content light levels (an AVIF's clli box): what its brightest pixel and
    /// its average reach, in cd/m². A PQ source is tone-mapped from its MaxCLL.
    public var contentLightLevel: ContentLightLevel?
    /// An HDR gain map beside the image (a JPEG's Ultra HDR, ISO 21496-1 or Apple's map), kept
    /// to outputs while every step leaves it as it is (see filters.md, "HDR gain maps").
    public var gainMap: GainMapImage?
    /// A camera RAW's development (LibRaw's): its samples are linear ProPhoto RGB from the
    /// camera's matrix, and what `filterchain info` shows of the camera. Never written as such.
    public var cameraRAW: CameraRAWInfo?
    /// A gain map a render is making beside the image (`--gain-map create`), written after
    /// the image when it is complete (JPEG); never read from a file.
    var gainMapToCome: GainMapInProgress?
    /// The content light levels of an HDR output, measured as it is rendered, for a format
    /// that says them after the image (AVIF's clli box); never read from a file.
    var contentLight: ContentLightMeter?

    public init(iccProfile: [UInt8]? = nil, exif: [UInt8]? = nil, pngColor: PNGColorChunks? = nil,
                xmp: [UInt8]? = nil, extendedXMP: ExtendedXMP? = nil, comments: [[UInt8]] = [],
                resolution: Resolution? = nil, pngChunks: [PNGChunk] = []) {
        self.iccProfile = iccProfile
        self.exif = exif
        self.pngColor = pngColor
        self.xmp = xmp
        self.extendedXMP = extendedXMP
        self.comments = comments
        self.resolution = resolution
        self.pngChunks = pngChunks
    }

    /// Everything but the colour description (ICC profile, PNG colour chunks) left out,
    /// as `--strip` writes it.
    public var keepingColourOnly: ImageMetadata {
        var kept = ImageMetadata(iccProfile: iccProfile, pngColor: pngColor)
        kept.nclx = nclx
        // PNG's cICP chunk (an HDR output's) is a colour description too.
        kept.pngChunks = pngChunks.filter { $0.type == "cICP" }
        return kept
    }

    public static let none = ImageMetadata()

    /// What of this metadata a format that holds neither comments nor text nor extended XMP
    /// (WebP, TIFF, AVIF) must leave out: "comments", "text", "the extended XMP", in that
    /// order; encoders say it in a note.
    var withoutPlaceInBinaryFormats: [String] {
        var dropped: [String] = []
        if !comments.isEmpty || pngChunks.contains(where: { $0.text?.keyword == "Comment" }) { dropped.append("comments") }
        if pngChunks.contains(where: { $0.text != nil && $0.text?.keyword != "Comment" }) { dropped.append("text") }
        if extendedXMP != nil { dropped.append("the extended XMP") }
        return dropped
    }

    /// The note a format that holds neither comments nor text nor extended XMP writes for
    /// what it leaves out ("WebP has no place for comments and text; not written"), or none.
    func notWritten(in format: String) -> [String] {
        let dropped = withoutPlaceInBinaryFormats
        return dropped.isEmpty ? [] : ["\(format) has no place for \(CodecRegistry.list(dropped)); not written"]
    }

    /// What is present, with sizes, never the bytes: "ICC profile (RGB, 3144 bytes), EXIF (220 bytes)".
    public var description: String {
        var parts: [String] = []
        if let icc = iccProfile {
            parts.append("ICC profile (" + (iccColorSpace.map { $0.trimmingWhitespace + ", " } ?? "") + "\(icc.count) bytes)")
        }
        if let exif { parts.append("EXIF (\(exif.count) bytes)") }
        if let xmp { parts.append("XMP (\(xmp.count) bytes)") }
        if let extendedXMP { parts.append("extended XMP (\(extendedXMP.packet.count) bytes)") }
        if !comments.isEmpty { parts.append("\(comments.count) comment\(comments.count == 1 ? "" : "s")") }
        if let resolution { parts.append("\(resolution)") }
        if !pngChunks.isEmpty { parts.append(pngChunks.map(\.type).joined(separator: " ")) }
        if let nclx { parts.append("\(nclx)") }
        if let contentLightLevel { parts.append("\(contentLightLevel)") }
        if let gainMap { parts.append("HDR gain map (\(gainMap.map.source.title), \(gainMap.map.width)x\(gainMap.map.height), \(gainMap.jpeg.count) bytes)") }
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

/// An HDR gain map as a file holds it: its JPEG, bytes for bytes, and what it says.
public struct GainMapImage: Hashable, Sendable {
    public var map: GainMap
    /// The map's JPEG (its own segments: the ISO 21496-1 or hdrgm metadata, Apple's XMP).
    public var jpeg: [UInt8]
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

/// Content light levels (CTA-861.3), as an AVIF's clli box or a PNG's cLLi chunk holds them.
public struct ContentLightLevel: Hashable, Sendable, CustomStringConvertible {
    /// MaxCLL: the largest component of the brightest pixel, in cd/m².
    public var maxCLL: Int
    /// MaxFALL: the largest frame average of each pixel's largest component, in cd/m².
    public var maxFALL: Int

    public init(maxCLL: Int, maxFALL: Int) {
        self.maxCLL = maxCLL
        self.maxFALL = maxFALL
    }

    /// "content light MaxCLL 1000, MaxFALL 180 cd/m²".
    public var description: String { "content light MaxCLL \(maxCLL), MaxFALL \(maxFALL) cd/m²" }
}
