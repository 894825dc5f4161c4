import CPNG
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A PNG chunk as stored: its four-letter type and its data (without length and CRC).
public struct PNGChunk: Sendable, Hashable {
    public var type: String
    public var data: [UInt8]

    public init(type: String, data: [UInt8]) {
        self.type = type
        self.data = data
    }

    /// A text chunk's keyword and text (as UTF-8; tEXt and zTXt are Latin-1), decompressed;
    /// nil for other chunks and damaged text.
    public var text: (keyword: String, text: [UInt8])? {
        guard let nul = data.firstIndex(of: 0) else { return nil }
        let keyword = String(decoding: data[..<nul], as: UTF8.self)
        let rest = Array(data[(nul + 1)...])
        switch type {
        case "tEXt": return (keyword, PNGChunk.latin1ToUTF8(rest))
        case "zTXt":
            guard rest.first == 0, let text = PNGChunk.inflate(Array(rest.dropFirst())) else { return nil }
            return (keyword, PNGChunk.latin1ToUTF8(text))
        case "iTXt":
            guard rest.count >= 2 else { return nil }
            let compressed = rest[0] == 1
            var i = 2
            for _ in 0..<2 {  // language tag and translated keyword, each NUL-terminated
                guard let end = rest[i...].firstIndex(of: 0) else { return nil }
                i = end + 1
            }
            let body = Array(rest[i...])
            if !compressed { return (keyword, body) }
            return PNGChunk.inflate(body).map { (keyword, $0) }
        default: return nil
        }
    }

    /// Text as the smallest chunk that holds it: tEXt for ASCII (and for bytes that are
    /// not UTF-8, taken as Latin-1), iTXt for other UTF-8.
    static func text(_ keyword: String, _ text: [UInt8]) -> PNGChunk {
        let key = Array(keyword.utf8) + [0]
        let isUTF8 = String(validating: text, as: UTF8.self) != nil
        if text.allSatisfy({ $0 < 0x80 }) || !isUTF8 { return PNGChunk(type: "tEXt", data: key + text) }
        return PNGChunk(type: "iTXt", data: key + [0, 0, 0, 0] + text)
    }

    static func latin1ToUTF8(_ bytes: [UInt8]) -> [UInt8] {
        Array(String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) })).utf8)
    }

    /// Text chunks inflate to at most this many bytes (a zip bomb is not metadata).
    static let inflateLimit = 64 << 20

    static func inflate(_ bytes: [UInt8]) -> [UInt8]? {
        var length = 0
        guard let p = bytes.withUnsafeBufferPointer({ fc_png_zlib_uncompress($0.baseAddress, $0.count, PNGChunk.inflateLimit, &length) }) else {
            return nil
        }
        defer { fc_png_free(p) }
        return Array(UnsafeBufferPointer(start: p, count: length))
    }
}

/// The metadata chunks of a PNG that libpng does not hand over as stored: text (before and
/// after the image data), tIME, pHYs, cICP (PNG third edition), and which colour chunks were really there (libpng
/// reports gAMA and cHRM values implied by sRGB too). Chunks with a bad CRC are left out.
struct PNGChunkScan {
    var chunks: [PNGChunk] = []
    var present: Set<String> = []

    static let kept: Set<String> = ["tEXt", "zTXt", "iTXt", "tIME", "pHYs", "cICP"]

    /// Walks the chunk list of `input` without reading image data (a file is read with
    /// pread, so its position does not move).
    init(_ input: OpenedInput) {
        let fd = input.file.map { fileno($0) }
        let memory = input.memoryBase.map { UnsafeBufferPointer(start: $0, count: input.memoryCount) }
        func read(_ offset: Int, _ count: Int) -> [UInt8]? {
            if let memory {
                guard offset >= 0, offset + count <= memory.count else { return nil }
                return Array(memory[offset..<offset + count])
            }
            guard let fd else { return nil }
            var bytes = [UInt8](repeating: 0, count: count)
            var got = 0
            while got < count {
                let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + got, count - got, off_t(offset + got)) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return nil }
                got += n
            }
            return bytes
        }
        var offset = 8
        while let head = read(offset, 8) {
            let length = Int(XMP.read32(head, 0))
            let type = String(decoding: head[4..<8], as: UTF8.self)
            guard length < 0x7FFF_FFFF, type != "IEND" else { break }
            present.insert(type)
            if PNGChunkScan.kept.contains(type), length <= 64 << 20, let body = read(offset + 8, length + 4) {
                let data = Array(body[0..<length])
                let stored = XMP.read32(body, length)
                let crc = (Array(head[4..<8]) + data).withUnsafeBufferPointer { fc_png_crc32(0, $0.baseAddress, $0.count) }
                if crc == stored { chunks.append(PNGChunk(type: type, data: data)) }
            }
            offset += 12 + length
        }
    }
}
