/// One image file directory (IFD) of a TIFF structure, with the Exif, GPS and
/// Interoperability directories its pointers lead to: read from a TIFF file or from EXIF data
/// (which is a TIFF structure), and laid out again at any offset, in either byte order.
/// TIFF's EXIF moves between the two: a TIFF file holds EXIF as tags of its own IFD0 and an
/// Exif sub-IFD, JPEG, PNG and WebP as one block of EXIF data.
///
/// Reading checks every offset and count against the bytes, follows pointers at most
/// `maxDepth` deep and copies no more value bytes in all than the data holds (entries may
/// point at the same bytes), so damaged data gives fewer entries, never a crash, a loop or a
/// blow-up. Entries of a type TIFF does not define are dropped (their size is unknown).
struct TIFFDirectory: Equatable {
    struct Entry: Equatable {
        var tag: UInt16
        var type: UInt16
        var count: UInt32
        /// The value's bytes, little-endian (each unit of the type swapped on reading).
        var value: [UInt8]
        /// The directory a pointer tag (Exif, GPS, Interoperability) leads to.
        var directory: TIFFDirectory?
    }

    var entries: [Entry]

    static let exifPointer: UInt16 = 34665
    static let gpsPointer: UInt16 = 34853
    static let interoperabilityPointer: UInt16 = 40965
    static let pointerTags: Set<UInt16> = [exifPointer, gpsPointer, interoperabilityPointer]
    static let maxDepth = 3

    init(entries: [Entry] = []) { self.entries = entries }

    /// Bytes per unit of `type` and units per value (a RATIONAL is two 4-byte units); nil for
    /// types TIFF 6 does not define.
    static func unit(of type: UInt16) -> (size: Int, perValue: Int)? {
        switch type {
        case 1, 2, 6, 7: (1, 1)       // BYTE, ASCII, SBYTE, UNDEFINED
        case 3, 8: (2, 1)             // SHORT, SSHORT
        case 4, 9, 11, 13: (4, 1)     // LONG, SLONG, FLOAT, IFD
        case 5, 10: (4, 2)            // RATIONAL, SRATIONAL
        case 12: (8, 1)               // DOUBLE
        default: nil
        }
    }

    /// The entry for `tag`.
    subscript(tag: UInt16) -> Entry? { entries.first { $0.tag == tag } }

    /// The value of a SHORT or LONG entry holding one number.
    func integer(_ tag: UInt16) -> Int? {
        guard let e = self[tag], e.count == 1 else { return nil }
        switch e.type {
        case 3: return Int(e.value[0]) | Int(e.value[1]) << 8
        case 4: return Int(e.value[0]) | Int(e.value[1]) << 8 | Int(e.value[2]) << 16 | Int(e.value[3]) << 24
        default: return nil
        }
    }

    /// The text of an ASCII entry: up to its first NUL.
    func text(_ tag: UInt16) -> String? {
        guard let e = self[tag], e.type == 2 else { return nil }
        return String(decoding: e.value.prefix { $0 != 0 }, as: UTF8.self)
    }

    // MARK: Reading

    /// How a TIFF structure lays out its directories: classic TIFF (version 42: 2-byte entry
    /// counts, 12-byte entries, 4-byte offsets) or BigTIFF (43: 8-byte counts, 20-byte
    /// entries, 8-byte offsets). EXIF data is always classic.
    struct Layout: Equatable {
        var bigEndian: Bool
        var wide = false
        var countSize: Int { wide ? 8 : 2 }
        var entrySize: Int { wide ? 20 : 12 }
        /// The bytes an entry holds its value in; longer values are at an offset.
        var valueSize: Int { wide ? 8 : 4 }

        func offset(_ b: some TIFFBytes, _ at: Int) -> Int {
            wide ? Int(clamping: TIFFDirectory.read64(b, at, bigEndian)) : Int(TIFFDirectory.read32(b, at, bigEndian))
        }
        func count(_ b: some TIFFBytes, _ at: Int) -> Int {
            wide ? Int(clamping: TIFFDirectory.read64(b, at, bigEndian)) : Int(TIFFDirectory.read16(b, at, bigEndian))
        }
    }

    /// The header of a TIFF structure: its layout and the offset of IFD0.
    static func header(_ bytes: some TIFFBytes) -> (layout: Layout, firstIFD: Int)? {
        guard bytes.count >= 8 else { return nil }
        let bigEndian: Bool
        switch (bytes[0], bytes[1]) {
        case (0x4D, 0x4D): bigEndian = true
        case (0x49, 0x49): bigEndian = false
        default: return nil
        }
        switch read16(bytes, 2, bigEndian) {
        case 42: return (Layout(bigEndian: bigEndian), Int(read32(bytes, 4, bigEndian)))
        case 43:
            // BigTIFF: the offset size (8) and a reserved 0, then IFD0's 8-byte offset.
            guard bytes.count >= 16, read16(bytes, 4, bigEndian) == 8, read16(bytes, 6, bigEndian) == 0 else { return nil }
            let layout = Layout(bigEndian: bigEndian, wide: true)
            return (layout, layout.offset(bytes, 8))
        default: return nil
        }
    }

    /// The IFD at `offset`, following the pointer tags to sub-directories; `keeping` picks
    /// the entries of this directory (not of its sub-directories) worth reading. Nil when the
    /// offset or the entry count does not fit the bytes.
    init?(_ bytes: some TIFFBytes, at offset: Int, bigEndian: Bool, keeping: (UInt16) -> Bool = { _ in true }) {
        self.init(bytes, at: offset, layout: Layout(bigEndian: bigEndian), keeping: keeping)
    }

    /// The same for a directory of either layout (a BigTIFF file's IFD0).
    init?(_ bytes: some TIFFBytes, at offset: Int, layout: Layout, keeping: (UInt16) -> Bool = { _ in true }) {
        var budget = bytes.count
        self.init(bytes, at: offset, layout: layout, depth: 0, budget: &budget, keeping: keeping)
    }

    private init?(_ bytes: some TIFFBytes, at offset: Int, layout: Layout, depth: Int, budget: inout Int,
                  keeping: (UInt16) -> Bool) {
        guard offset >= 8, offset <= bytes.count - layout.countSize else { return nil }
        let count = layout.count(bytes, offset)
        // The table counts against the budget too: directories pointing at one another
        // cannot multiply it.
        guard count <= bytes.count / layout.entrySize else { return nil }
        let table = layout.countSize + layout.entrySize * count
        guard offset + table <= bytes.count, table <= budget else { return nil }
        budget -= table
        var entries: [Entry] = []
        for i in 0..<count {
            let at = offset + layout.countSize + layout.entrySize * i
            let tag = TIFFDirectory.read16(bytes, at, layout.bigEndian)
            let type = TIFFDirectory.read16(bytes, at + 2, layout.bigEndian)
            let units = layout.offset(bytes, at + 4)
            let field = at + (layout.wide ? 12 : 8)
            if TIFFDirectory.pointerTags.contains(tag) {
                // A pointer leads to a directory, or the entry goes: its offset means nothing
                // elsewhere. (BigTIFF's may be LONG8 or IFD8.)
                let pointerTypes: Set<UInt16> = layout.wide ? [4, 13, 16, 18] : [4, 13]
                guard keeping(tag), pointerTypes.contains(type), units == 1, depth < TIFFDirectory.maxDepth else { continue }
                let target = type == 16 || type == 18 ? layout.offset(bytes, field) : Int(TIFFDirectory.read32(bytes, field, layout.bigEndian))
                guard let sub = TIFFDirectory(bytes, at: target, layout: layout, depth: depth + 1, budget: &budget,
                                              keeping: { _ in true })
                else { continue }
                // LONG, as EXIF has it (libtiff writes IFD, 13); the value is the offset as
                // stored (classic TIFF; writing lays it out anew).
                var value = layout.wide ? [0, 0, 0, 0] : bytes.bytes(field..<field + 4)
                if layout.bigEndian { value.reverse() }
                entries.append(Entry(tag: tag, type: 4, count: 1, value: value, directory: sub))
                continue
            }
            // Types beyond TIFF 6 (BigTIFF's 8-byte integers) are dropped: EXIF has no place for them.
            guard keeping(tag), let unit = TIFFDirectory.unit(of: type), units <= UInt32.max else { continue }
            let (length, overflow) = units.multipliedReportingOverflow(by: unit.size * unit.perValue)
            guard !overflow, length <= layout.valueSize || length <= budget else { continue }
            let start = length > layout.valueSize ? layout.offset(bytes, field) : field
            guard start >= 0, start <= bytes.count, length <= bytes.count - start else { continue }
            if length > layout.valueSize { budget -= length }  // a value that fits the entry is in the table
            var value = bytes.bytes(start..<start + length)
            if layout.bigEndian && unit.size > 1 {
                for u in stride(from: 0, to: length, by: unit.size) { value[u..<u + unit.size].reverse() }
            }
            entries.append(Entry(tag: tag, type: type, count: UInt32(units), value: value))
        }
        self.entries = entries
    }

    /// IFD0 of EXIF data (a TIFF structure), or nil when it is not one.
    init?(exif: [UInt8]) {
        guard let d = exif.withUnsafeBytes({ b -> TIFFDirectory? in
            guard let (layout, first) = TIFFDirectory.header(b), !layout.wide else { return nil }
            return TIFFDirectory(b, at: first, layout: layout)
        }) else { return nil }
        self = d
    }

    // MARK: Writing

    /// The directory laid out to start at `base` in a file (offsets count from the file's
    /// start): the entries in tag order, then the values that do not fit an entry, then the
    /// sub-directories, each at an even offset.
    func encoded(at base: Int, bigEndian: Bool) -> [UInt8] {
        var out: [UInt8] = []
        append(to: &out, base: base, bigEndian: bigEndian)
        return out
    }

    private func append(to out: inout [UInt8], base: Int, bigEndian: Bool) {
        if out.count % 2 == 1 { out.append(0) }
        let sorted = entries.sorted { $0.tag < $1.tag }
        let table = out.count
        out += TIFFDirectory.bytes16(UInt16(sorted.count), bigEndian)
        out += [UInt8](repeating: 0, count: 12 * sorted.count + 4)  // entries, next IFD 0
        for (i, e) in sorted.enumerated() {
            var value = e.value
            let unit = TIFFDirectory.unit(of: e.type)!.size
            if bigEndian && unit > 1 {
                for u in stride(from: 0, to: value.count, by: unit) { value[u..<u + unit].reverse() }
            }
            let field: [UInt8]
            if let sub = e.directory {
                if out.count % 2 == 1 { out.append(0) }
                let at = out.count
                sub.append(to: &out, base: base, bigEndian: bigEndian)
                field = TIFFDirectory.bytes32(UInt32(base + at), bigEndian)
            } else if value.count > 4 {
                if out.count % 2 == 1 { out.append(0) }
                field = TIFFDirectory.bytes32(UInt32(base + out.count), bigEndian)
                out += value
            } else {
                field = value + [UInt8](repeating: 0, count: 4 - value.count)
            }
            let at = table + 2 + 12 * i
            out.replaceSubrange(at..<at + 12, with: TIFFDirectory.bytes16(e.tag, bigEndian) + TIFFDirectory.bytes16(e.type, bigEndian)
                                + TIFFDirectory.bytes32(e.count, bigEndian) + field)
        }
    }

    /// EXIF data: a little-endian TIFF header, then this directory as IFD0.
    var exifData: [UInt8] {
        [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0] + encoded(at: 8, bigEndian: false)
    }

    // MARK: Bytes

    static func read16(_ b: some TIFFBytes, _ at: Int, _ bigEndian: Bool) -> UInt16 {
        bigEndian ? UInt16(b[at]) << 8 | UInt16(b[at + 1]) : UInt16(b[at + 1]) << 8 | UInt16(b[at])
    }

    static func read32(_ b: some TIFFBytes, _ at: Int, _ bigEndian: Bool) -> UInt32 {
        bigEndian ? UInt32(read16(b, at, true)) << 16 | UInt32(read16(b, at + 2, true))
                  : UInt32(read16(b, at + 2, false)) << 16 | UInt32(read16(b, at, false))
    }

    static func read64(_ b: some TIFFBytes, _ at: Int, _ bigEndian: Bool) -> UInt64 {
        bigEndian ? UInt64(read32(b, at, true)) << 32 | UInt64(read32(b, at + 4, true))
                  : UInt64(read32(b, at + 4, false)) << 32 | UInt64(read32(b, at, false))
    }

    static func bytes16(_ v: UInt16, _ bigEndian: Bool) -> [UInt8] {
        bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)]
    }

    static func bytes32(_ v: UInt32, _ bigEndian: Bool) -> [UInt8] {
        let le = (0..<4).map { UInt8((v >> (8 * UInt32($0))) & 0xFF) }
        return bigEndian ? le.reversed() : le
    }
}

/// Bytes a TIFF structure is read from: the file in memory, or the file itself (``FileBytes``),
/// read in pages as the directories are walked.
protocol TIFFBytes {
    var count: Int { get }
    subscript(_ i: Int) -> UInt8 { get }
    /// The bytes of a range within 0..<count.
    func bytes(_ range: Range<Int>) -> [UInt8]
}

extension UnsafeRawBufferPointer: TIFFBytes {
    func bytes(_ range: Range<Int>) -> [UInt8] { Array(self[range]) }
}

/// A regular file's bytes read with pread, 4 KiB pages at a time, each read once: a TIFF's
/// directories without reading its strips. A page that cannot be read reads as zeros (the
/// directory walker bounds everything by `count`; libtiff reports the read itself).
final class FileBytes: TIFFBytes {
    let count: Int
    private let fd: Int32
    private var pages: [Int: [UInt8]] = [:]
    static let pageSize = 4096

    init(fd: Int32, count: Int) {
        self.fd = fd
        self.count = count
    }

    private func page(_ n: Int) -> [UInt8] {
        if let p = pages[n] { return p }
        let start = n * FileBytes.pageSize
        var p = [UInt8](repeating: 0, count: min(FileBytes.pageSize, count - start))
        _ = p.withUnsafeMutableBytes { OpenedInput.readFully(fd, into: $0, at: start) }
        pages[n] = p
        return p
    }

    subscript(_ i: Int) -> UInt8 { page(i / FileBytes.pageSize)[i % FileBytes.pageSize] }

    func bytes(_ range: Range<Int>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(range.count)
        var i = range.lowerBound
        while i < range.upperBound {
            let n = i / FileBytes.pageSize, within = i % FileBytes.pageSize
            let take = min(FileBytes.pageSize - within, range.upperBound - i)
            out += page(n)[within..<within + take]
            i += take
        }
        return out
    }
}
