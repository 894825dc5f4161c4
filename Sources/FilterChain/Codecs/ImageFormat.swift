/// The file formats filterchain reads and writes.
public enum ImageFormat: String, Sendable, CaseIterable {
    case png
    case jpeg

    public var name: String { self == .png ? "PNG" : "JPEG" }
    public var preferredExtension: String { self == .png ? "png" : "jpg" }

    /// The output format named by a path's extension (.png, .jpg, .jpeg, any case).
    public init?(pathExtension ext: String) {
        switch ext.lowercased() {
        case "png": self = .png
        case "jpg", "jpeg": self = .jpeg
        default: return nil
        }
    }

    /// The format of data from its first bytes (never from a file name), or what the data
    /// looks like instead.
    public static func sniff(_ b: [UInt8]) -> Result<ImageFormat, SniffFailure> {
        func starts(_ s: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + s.count && Array(b[offset..<offset + s.count]) == s
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .success(.png) }
        if starts([0xFF, 0xD8, 0xFF]) { return .success(.jpeg) }
        return .failure(SniffFailure(looksLike: describe(b, starts: starts)))
    }

    public struct SniffFailure: Error, Sendable { public var looksLike: String }

    private static func describe(_ b: [UInt8], starts: ([UInt8], Int) -> Bool) -> String {
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
