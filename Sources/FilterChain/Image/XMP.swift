/// XMP as JPEG and PNG carry it: the packet (UTF-8 XML), and JPEG's extended XMP.
public enum XMP {
    /// The prefix of a JPEG APP1 segment holding the XMP packet.
    static let jpegPrefix = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
    /// The prefix of a JPEG APP1 segment holding a part of the extended XMP.
    static let jpegExtensionPrefix = Array("http://ns.adobe.com/xmp/extension/\0".utf8)
    /// The PNG iTXt keyword of the XMP packet.
    static let pngKeyword = "XML:com.adobe.xmp"

    /// The packet with tiff:Orientation set to 1 (pixels were turned upright), as an
    /// attribute (`tiff:Orientation="6"`) or an element (`<tiff:Orientation>6<`).
    public static func withOrientationReset(_ packet: [UInt8]) -> [UInt8] {
        var bytes = packet
        for opening in [Array("tiff:Orientation=\"".utf8), Array("tiff:Orientation='".utf8), Array("<tiff:Orientation>".utf8)] {
            var i = 0
            while let found = find(opening, in: bytes, from: i) {
                var j = found + opening.count
                while j < bytes.count, bytes[j] == 0x20 { j += 1 }
                let start = j
                while j < bytes.count, (0x30...0x39).contains(bytes[j]) { j += 1 }
                if j > start { bytes.replaceSubrange(start..<j, with: [0x31]) }
                i = found + opening.count
            }
        }
        return bytes
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        var i = from
        while i + needle.count <= haystack.count {
            if haystack[i] == needle[0] && Array(haystack[i..<i + needle.count]) == needle { return i }
            i += 1
        }
        return nil
    }

    /// The JPEG APP1 payloads that carry `extension`: each the prefix, the GUID (32 ASCII
    /// hex digits), the full length and this part's offset (32-bit big-endian), and the part.
    static func jpegExtensionSegments(_ ext: ExtendedXMP) -> [[UInt8]] {
        let guid = Array(ext.guid.utf8)
        let room = 65533 - jpegExtensionPrefix.count - 32 - 8
        var segments: [[UInt8]] = []
        var offset = 0
        let total = ext.packet.count
        while offset < total {
            let end = min(total, offset + room)
            segments.append(jpegExtensionPrefix + guid + PNGEncoder.be32(UInt32(total)) + PNGEncoder.be32(UInt32(offset)) + Array(ext.packet[offset..<end]))
            offset = end
        }
        return segments
    }

    /// Reassembles extended XMP from APP1 payloads that start with the extension prefix;
    /// nil when there are none or their parts do not fit together.
    static func extended(fromJPEGSegments segments: [[UInt8]]) -> ExtendedXMP? {
        let header = jpegExtensionPrefix.count + 32 + 8
        var guid: [UInt8]?
        var packet: [UInt8] = []
        var filled = 0
        for s in segments where s.count > header {
            let g = Array(s[jpegExtensionPrefix.count..<jpegExtensionPrefix.count + 32])
            if guid == nil { guid = g } else if guid != g { continue }
            let total = Int(read32(s, jpegExtensionPrefix.count + 32))
            let offset = Int(read32(s, jpegExtensionPrefix.count + 36))
            if packet.isEmpty { packet = [UInt8](repeating: 0, count: total) }
            let part = s[header...]
            guard total == packet.count, offset + part.count <= total else { return nil }
            packet.replaceSubrange(offset..<offset + part.count, with: part)
            filled += part.count
        }
        guard let guid, filled == packet.count, !packet.isEmpty else { return nil }
        return ExtendedXMP(guid: String(decoding: guid, as: UTF8.self), packet: packet)
    }

    static func read32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }
}

/// The extended part of a JPEG's XMP: its GUID (the MD5 of the packet, in hex, named by
/// the main packet's xmpNote:HasExtendedXMP) and the packet.
public struct ExtendedXMP: Sendable, Hashable {
    public var guid: String
    public var packet: [UInt8]

    public init(guid: String, packet: [UInt8]) {
        self.guid = guid
        self.packet = packet
    }
}

extension XMP {
    /// A primary image's XMP as Ultra HDR version 1 describes its gain map (`hdrgm:Version`
    /// and a Google `Container:Directory` whose `GainMap` item gives the map's length), made
    /// true for what is written: with `mapLength`, that item's `Item:Length` says it (a map
    /// moved with the image has another length); with nil (no map written), the version and
    /// the directory are taken out, so that no reader looks for a map that is not there.
    /// A packet without them is returned as it is.
    static func withGainMapDirectory(_ packet: [UInt8], mapLength: Int?) -> [UInt8] {
        var bytes = packet
        if let mapLength {
            guard let semantic = find(Array("Item:Semantic=\"GainMap\"".utf8), in: bytes, from: 0) else { return bytes }
            // The item's element: from its start before the semantic to the next end of element.
            let start = lastIndex(of: Array("<Container:Item".utf8), in: bytes, before: semantic) ?? semantic
            let end = find(Array("</Container:Item>".utf8), in: bytes, from: semantic)
                ?? find(Array("/>".utf8), in: bytes, from: semantic) ?? bytes.count
            for opening in [Array("Item:Length=\"".utf8), Array("<Item:Length>".utf8)] {
                guard let found = find(opening, in: bytes, from: start), found < end else { continue }
                var j = found + opening.count
                while j < bytes.count, (0x30...0x39).contains(bytes[j]) { j += 1 }
                bytes.replaceSubrange((found + opening.count)..<j, with: Array(String(mapLength).utf8))
                return bytes
            }
            return bytes
        }
        if let open = find(Array("<Container:Directory".utf8), in: bytes, from: 0),
           let close = find(Array("</Container:Directory>".utf8), in: bytes, from: open) {
            bytes.removeSubrange(open..<(close + "</Container:Directory>".utf8.count))
        }
        for quote in ["\"", "'"] {
            let opening = Array(" hdrgm:Version=\(quote)".utf8)
            if let found = find(opening, in: bytes, from: 0),
               let closing = bytes[(found + opening.count)...].firstIndex(of: UInt8(ascii: quote == "\"" ? "\"" : "'")) {
                bytes.removeSubrange(found...closing)
            }
        }
        return bytes
    }

    static func lastIndex(of needle: [UInt8], in haystack: [UInt8], before end: Int) -> Int? {
        var i = min(end, haystack.count) - needle.count
        while i >= 0 {
            if haystack[i] == needle[0] && Array(haystack[i..<i + needle.count]) == needle { return i }
            i -= 1
        }
        return nil
    }
}
