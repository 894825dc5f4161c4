/// A file format filterchain reads or writes: a name the ``CodecRegistry`` knows. Everything
/// about the format (its extensions, how it is recognised, what it can hold, its encode
/// options) is in its ``FormatDeclaration``; code asks the declaration what the format can
/// hold, never which format it is.
public struct ImageFormat: Sendable, Hashable, CustomStringConvertible {
    /// The registry's name: what `--format` takes and `filterchain formats` lists ("png").
    public let id: String

    init(id: String) { self.id = id }

    public static let png = ImageFormat(id: "png")
    public static let jpeg = ImageFormat(id: "jpeg")
    public static let webp = ImageFormat(id: "webp")
    public static let tiff = ImageFormat(id: "tiff")
    public static let avif = ImageFormat(id: "avif")
    public static let heif = ImageFormat(id: "heif")
    public static let gif = ImageFormat(id: "gif")
    public static let jxl = ImageFormat(id: "jxl")
    public static let raw = ImageFormat(id: "raw")

    /// Every registered format, in the registry's order.
    public static var allCases: [ImageFormat] { CodecRegistry.declarations.map(\.format) }

    /// The format's declaration in the registry.
    public var declaration: FormatDeclaration { CodecRegistry.declaration(of: self) }

    /// What the format can hold.
    public var capabilities: FormatCapabilities { declaration.capabilities }

    /// The format's display name ("PNG", "WebP").
    public var name: String { declaration.name }
    /// The extension new files get ("jpg").
    public var preferredExtension: String { declaration.extensions[0] }
    /// Same as `id`.
    public var rawValue: String { id }
    public var description: String { name }

    /// The format whose id or one of whose extensions is `text` (any case): what `--format`
    /// takes ("png", "jpeg", "jpg", "webp").
    public init?(rawValue text: String) {
        let lower = text.lowercased()
        guard let d = CodecRegistry.declarations.first(where: { $0.format.id == lower || $0.extensions.contains(lower) })
        else { return nil }
        self = d.format
    }

    /// The output format named by a path's extension (.png, .jpg, .jpeg, .webp, any case).
    public init?(pathExtension ext: String) {
        let lower = ext.lowercased()
        guard let d = CodecRegistry.declarations.first(where: { $0.extensions.contains(lower) }) else { return nil }
        self = d.format
    }

    /// The format of data from its first bytes (never from a file name), or what the data
    /// looks like instead.
    public static func sniff(_ b: [UInt8]) -> Result<ImageFormat, SniffFailure> {
        if let d = CodecRegistry.declarations.first(where: { $0.matches(b) }) { return .success(d.format) }
        return .failure(SniffFailure(looksLike: describe(b)))
    }

    public struct SniffFailure: Error, Sendable { public var looksLike: String }

    /// What data no registered format recognises looks like, to say so in the error.
    private static func describe(_ b: [UInt8]) -> String {
        func starts(_ s: [UInt8], _ offset: Int) -> Bool {
            b.count >= offset + s.count && Array(b[offset..<offset + s.count]) == s
        }
        let ascii = { (s: String) in Array(s.utf8) }
        if starts(ascii("GIF87a"), 0) || starts(ascii("GIF89a"), 0) { return "GIF" }
        if starts(ascii("RIFF"), 0) && starts(ascii("WEBP"), 8) { return "WebP" }
        if starts(ascii("BM"), 0) { return "BMP" }
        if starts([0x49, 0x49, 0x2A, 0x00], 0) || starts([0x4D, 0x4D, 0x00, 0x2A], 0) { return "TIFF" }
        if starts(ascii("ftyp"), 4) {
            for brand in ["avif", "avis"] where starts(ascii(brand), 8) { return "AVIF" }
            for brand in ["heic", "heix", "mif1", "msf1", "hevc"] where starts(ascii(brand), 8) { return "HEIF" }
            return "an ISO media file (MP4, MOV or HEIF)"
        }
        if starts([0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20], 0) || starts([0xFF, 0x4F, 0xFF, 0x51], 0) { return "JPEG 2000" }
        if starts([0xFF, 0x0A], 0) || starts([0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20], 0) { return "JPEG XL" }
        if starts(ascii("8BPS"), 0) { return "Photoshop PSD" }
        if starts(ascii("%PDF"), 0) { return "PDF" }
        if starts(ascii("%!"), 0) { return "PostScript" }
        if starts([0x00, 0x00, 0x01, 0x00], 0) { return "ICO" }
        if starts(ascii("PK"), 0) { return "a ZIP archive" }
        if starts([0x1F, 0x8B], 0) { return "gzip data" }
        if starts([0x50, 0x36], 0) || starts([0x50, 0x35], 0) || starts([0x50, 0x33], 0) { return "PNM" }
        if starts([0xFF, 0xD8], 0) { return "a damaged JPEG (no marker after the start of image)" }
        if starts([0x89, 0x50, 0x4E, 0x47], 0) { return "a damaged PNG (bad signature)" }
        if starts(ascii("RIFF"), 0) { return "a RIFF file that is not WebP" }
        let text = b.prefix(64)
        if !text.isEmpty, text.allSatisfy({ $0 == 9 || $0 == 10 || $0 == 13 || (32..<127).contains($0) || $0 >= 0x80 }),
           isUTF8(Array(text)) {
            let s = String(decoding: text, as: UTF8.self).trimmingWhitespace
            if s.hasPrefix("<svg") || (s.hasPrefix("<?xml") && s.contains("svg")) { return "SVG" }
            if s.hasPrefix("{") || s.hasPrefix("[") { return "text (JSON?)" }
            return "text"
        }
        let hex = b.prefix(8).map { String($0, radix: 16, uppercase: true) }
            .map { $0.count == 1 ? "0" + $0 : $0 }.joined(separator: " ")
        return "unrecognised data (starts with \(hex))"
    }

    /// Whether the bytes are UTF-8, allowing a character cut off at the end (0xFF, for
    /// one, never occurs in UTF-8).
    static func isUTF8(_ bytes: [UInt8]) -> Bool {
        (0...min(3, bytes.count - 1)).contains { cut in String(validating: bytes.dropLast(cut), as: UTF8.self) != nil }
    }
}

extension String {
    var trimmingWhitespace: String {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return String(s)
    }
}
