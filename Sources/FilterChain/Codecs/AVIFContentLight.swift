import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An HDR output's content light levels (CTA-861.3), measured as its rows are rendered
/// (`GainMapRendition`): MaxCLL, the brightest pixel's largest component, and MaxFALL, the
/// image's average of each pixel's largest component, in cd/m². Rows come from any thread.
final class ContentLightMeter: @unchecked Sendable, Hashable {
    private let lock = Mutex<(max: Double, sum: Double, count: Int)>((0, 0, 0))

    func add(rowMax: Double, rowSum: Double, count: Int) {
        lock.withLock { $0 = (Swift.max($0.max, rowMax), $0.sum + rowSum, $0.count + count) }
    }

    /// (MaxCLL, MaxFALL), rounded up to whole cd/m², within 16 bits.
    var levels: (maxCLL: UInt16, maxFALL: UInt16) {
        lock.withLock { v in
            let fall = v.count > 0 ? v.sum / Double(v.count) : 0
            return (UInt16(min(v.max.rounded(.up), 65535)), UInt16(min(fall.rounded(.up), 65535)))
        }
    }

    static func == (a: ContentLightMeter, b: ContentLightMeter) -> Bool { a === b }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// The content light level box (`clli`, ISO/IEC 23008-12's ContentLightLevelBox) put into an
/// AVIF file that libavif wrote, which Debian's libavif 0.11 cannot write itself: the box
/// appended to the item properties (`ipco`), associated with the primary item in `ipma`
/// (not essential), the boxes that hold them grown, and the file offsets of items stored
/// after the meta box (`iloc`, construction method 0) moved by as much.
enum AVIFContentLight {
    /// `file` with the box, or nil when its layout is not the one libavif writes (ftyp, meta,
    /// then the items' data; 32-bit box sizes).
    static func inserting(maxCLL: UInt16, maxFALL: UInt16, into file: [UInt8]) -> [UInt8]? {
        func u(_ at: Int, _ n: Int) -> Int? {
            guard at >= 0, n >= 0, at + n <= file.count else { return nil }
            return (0..<n).reduce(0) { $0 << 8 | Int(file[at + $1]) }
        }
        func boxes(_ range: Range<Int>) -> [(type: String, start: Int, body: Range<Int>)]? {
            var out: [(String, Int, Range<Int>)] = []
            var i = range.lowerBound
            while i + 8 <= range.upperBound {
                guard let size = u(i, 4), size >= 8, i + size <= range.upperBound else { return nil }
                out.append((String(decoding: file[(i + 4)..<(i + 8)], as: UTF8.self), i, (i + 8)..<(i + size)))
                i += size
            }
            return i == range.upperBound ? out : nil
        }
        guard let top = boxes(0..<file.count), let meta = top.first(where: { $0.type == "meta" }),
              let children = boxes((meta.body.lowerBound + 4)..<meta.body.upperBound),
              let pitm = children.first(where: { $0.type == "pitm" }),
              let iloc = children.first(where: { $0.type == "iloc" }),
              let iprp = children.first(where: { $0.type == "iprp" }),
              let properties = boxes(iprp.body),
              let ipco = properties.first(where: { $0.type == "ipco" }),
              let ipma = properties.first(where: { $0.type == "ipma" }),
              let items = boxes(ipco.body) else { return nil }
        // Nothing after meta that the shift would miss but item data (mdat).
        guard top.allSatisfy({ $0.start < meta.start || $0.type == "mdat" || $0.type == "free" || $0.start == meta.start }) else { return nil }
        let primary = file[pitm.body.lowerBound] == 0 ? u(pitm.body.lowerBound + 4, 2) : u(pitm.body.lowerBound + 4, 4)
        guard let primary else { return nil }

        // The ipma entry of the primary gets one more association.
        let ipmaVersion = Int(file[ipma.body.lowerBound])
        let wideIndex = file[ipma.body.lowerBound + 3] & 1 != 0
        let index = items.count + 1
        guard index < (wideIndex ? 0x8000 : 0x80), let entries = u(ipma.body.lowerBound + 4, 4) else { return nil }
        var at = ipma.body.lowerBound + 8
        var insertAt: Int?, countAt = 0
        for _ in 0..<entries {
            let idSize = ipmaVersion < 1 ? 2 : 4
            guard let id = u(at, idSize), let count = u(at + idSize, 1) else { return nil }
            if id == primary { countAt = at + idSize; insertAt = at + idSize + 1 + count * (wideIndex ? 2 : 1) }
            at += idSize + 1 + count * (wideIndex ? 2 : 1)
        }
        guard let insertAt, file[countAt] < 255 else { return nil }
        let association: [UInt8] = wideIndex ? [UInt8(index >> 8), UInt8(index & 0xff)] : [UInt8(index)]
        let clli: [UInt8] = [0, 0, 0, 12] + Array("clli".utf8)
            + [UInt8(maxCLL >> 8), UInt8(maxCLL & 0xff), UInt8(maxFALL >> 8), UInt8(maxFALL & 0xff)]
        let delta = clli.count + association.count

        var out = file
        // The items' data after meta moves by delta: iloc's offsets (before any insertion, so
        // the offsets of the boxes read above still hold).
        guard shiftLocations(&out, iloc: iloc.body, by: delta, after: meta.body.upperBound) else { return nil }
        out[countAt] += 1
        // Insertions from the back, so earlier positions stay true; then the sizes, at the
        // boxes' starts as the insertions before them moved them.
        let clliAt = ipco.body.upperBound
        for (position, bytes) in [(insertAt, association), (clliAt, clli)].sorted(by: { $0.0 > $1.0 }) {
            out.insert(contentsOf: bytes, at: position)
        }
        func grow(_ start: Int, by n: Int) {
            let size = (Int(out[start]) << 24 | Int(out[start + 1]) << 16 | Int(out[start + 2]) << 8 | Int(out[start + 3])) + n
            out[start] = UInt8(size >> 24); out[start + 1] = UInt8((size >> 16) & 0xff)
            out[start + 2] = UInt8((size >> 8) & 0xff); out[start + 3] = UInt8(size & 0xff)
        }
        grow(ipma.start + (clliAt <= ipma.start ? clli.count : 0), by: association.count)
        grow(ipco.start + (insertAt <= ipco.start ? association.count : 0), by: clli.count)
        grow(iprp.start, by: delta)
        grow(meta.start, by: delta)
        return out
    }

    /// The primary item's clli box in an AVIF file (any file: every offset and size is
    /// checked), or nil.
    static func read(_ file: UnsafeRawBufferPointer) -> ContentLightLevel? {
        func u(_ at: Int, _ n: Int) -> Int? {
            guard at >= 0, n >= 0, at <= file.count - n else { return nil }
            return (0..<n).reduce(0) { $0 << 8 | Int(file[at + $1]) }
        }
        func boxes(_ range: Range<Int>) -> [(type: UInt32, body: Range<Int>)] {
            var out: [(UInt32, Range<Int>)] = []
            var i = range.lowerBound
            while i + 8 <= range.upperBound, out.count < 4096, let size = u(i, 4), let type = u(i + 4, 4) {
                var end = i + size, start = i + 8
                if size == 1 {
                    guard let large = u(i + 8, 8), large >= 16, large <= range.upperBound - i else { break }
                    end = i + large; start = i + 16
                } else if size == 0 {
                    end = range.upperBound
                }
                guard end >= start, end <= range.upperBound else { break }
                out.append((UInt32(type), start..<end))
                i = end
            }
            return out
        }
        func fourCC(_ s: String) -> UInt32 { s.utf8.reduce(0) { $0 << 8 | UInt32($1) } }
        guard let meta = boxes(0..<file.count).first(where: { $0.type == fourCC("meta") }), meta.body.count >= 4 else { return nil }
        let children = boxes((meta.body.lowerBound + 4)..<meta.body.upperBound)
        guard let pitm = children.first(where: { $0.type == fourCC("pitm") }), let version = u(pitm.body.lowerBound, 1),
              let primary = u(pitm.body.lowerBound + 4, version == 0 ? 2 : 4),
              let iprp = children.first(where: { $0.type == fourCC("iprp") }) else { return nil }
        let parts = boxes(iprp.body)
        guard let ipco = parts.first(where: { $0.type == fourCC("ipco") }),
              let ipma = parts.first(where: { $0.type == fourCC("ipma") }),
              let ipmaVersion = u(ipma.body.lowerBound, 1), let flags = u(ipma.body.lowerBound + 3, 1),
              let entries = u(ipma.body.lowerBound + 4, 4) else { return nil }
        let properties = boxes(ipco.body)
        let wide = flags & 1 != 0, idSize = ipmaVersion < 1 ? 2 : 4
        var at = ipma.body.lowerBound + 8
        for _ in 0..<min(entries, 65536) {
            guard let id = u(at, idSize), let count = u(at + idSize, 1) else { return nil }
            at += idSize + 1
            for _ in 0..<count {
                guard let value = u(at, wide ? 2 : 1) else { return nil }
                at += wide ? 2 : 1
                let index = value & (wide ? 0x7fff : 0x7f)
                guard id == primary, index >= 1, index <= properties.count else { continue }
                let box = properties[index - 1]
                if box.type == fourCC("clli"), box.body.count >= 4, let cll = u(box.body.lowerBound, 2), let fall = u(box.body.lowerBound + 2, 2) {
                    return ContentLightLevel(maxCLL: cll, maxFALL: fall)
                }
            }
        }
        return nil
    }

    /// Adds `delta` to the file offsets iloc gives for items stored at or past `after`.
    private static func shiftLocations(_ b: inout [UInt8], iloc: Range<Int>, by delta: Int, after: Int) -> Bool {
        func u(_ at: Int, _ n: Int) -> Int? {
            guard at >= 0, at + n <= iloc.upperBound else { return nil }
            return (0..<n).reduce(0) { $0 << 8 | Int(b[at + $1]) }
        }
        func put(_ at: Int, _ n: Int, _ v: Int) -> Bool {
            guard n > 0, v >= 0, n == 8 || v < 1 << (8 * n) else { return false }
            for k in 0..<n { b[at + k] = UInt8((v >> (8 * (n - 1 - k))) & 0xff) }
            return true
        }
        let version = Int(b[iloc.lowerBound])
        var at = iloc.lowerBound + 4
        guard let sizes = u(at, 2) else { return false }
        let offsetSize = sizes >> 12, lengthSize = (sizes >> 8) & 0xf, baseSize = (sizes >> 4) & 0xf
        let indexSize = version >= 1 ? sizes & 0xf : 0
        at += 2
        let countSize = version < 2 ? 2 : 4
        guard let itemCount = u(at, countSize) else { return false }
        at += countSize
        for _ in 0..<itemCount {
            at += version < 2 ? 2 : 4                      // item_ID
            var method = 0
            if version >= 1 { guard let m = u(at, 2) else { return false }; method = m & 0xf; at += 2 }
            at += 2                                        // data_reference_index
            guard let base = baseSize > 0 ? u(at, baseSize) : 0 else { return false }
            let baseAt = at
            at += baseSize
            guard let extents = u(at, 2) else { return false }
            at += 2
            var baseMoved = false
            for _ in 0..<extents {
                at += indexSize
                guard let offset = offsetSize > 0 ? u(at, offsetSize) : 0 else { return false }
                if method == 0 {
                    if baseSize > 0 && base >= after {
                        if !baseMoved { guard put(baseAt, baseSize, base + delta) else { return false }; baseMoved = true }
                    } else if offsetSize > 0 && base + offset >= after {
                        guard put(at, offsetSize, offset + delta) else { return false }
                    } else if offsetSize == 0 && base == 0 {
                        return false   // data at offset 0 of the file: not libavif's layout
                    }
                }
                at += offsetSize + lengthSize
            }
        }
        return at <= iloc.upperBound
    }
}
