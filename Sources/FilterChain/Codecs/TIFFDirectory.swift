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

    /// The header of a TIFF structure: its byte order and the offset of IFD0.
    static func header(_ bytes: UnsafeRawBufferPointer) -> (bigEndian: Bool, firstIFD: Int)? {
        guard bytes.count >= 8 else { return nil }
        let bigEndian: Bool
        switch (bytes[0], bytes[1]) {
        case (0x4D, 0x4D): bigEndian = true
        case (0x49, 0x49): bigEndian = false
        default: return nil
        }
        guard read16(bytes, 2, bigEndian) == 42 else { return nil }
        return (bigEndian, Int(read32(bytes, 4, bigEndian)))
    }

    /// The IFD at `offset`, following the pointer tags to sub-directories; `keeping` picks
    /// the entries of this directory (not of its sub-directories) worth reading. Nil when the
    /// offset or the entry count does not fit the bytes.
    init?(_ bytes: UnsafeRawBufferPointer, at offset: Int, bigEndian: Bool, keeping: (UInt16) -> Bool = { _ in true }) {
        var budget = bytes.count
        self.init(bytes, at: offset, bigEndian: bigEndian, depth: 0, budget: &budget, keeping: keeping)
    }

    private init?(_ bytes: UnsafeRawBufferPointer, at offset: Int, bigEndian: Bool, depth: Int, budget: inout Int,
                  keeping: (UInt16) -> Bool) {
        guard offset >= 8, offset + 2 <= bytes.count else { return nil }
        let count = Int(TIFFDirectory.read16(bytes, offset, bigEndian))
        // The table counts against the budget too: directories pointing at one another
        // cannot multiply it.
        guard offset + 2 + 12 * count <= bytes.count, 2 + 12 * count <= budget else { return nil }
        budget -= 2 + 12 * count
        var entries: [Entry] = []
        for i in 0..<count {
            let at = offset + 2 + 12 * i
            let tag = TIFFDirectory.read16(bytes, at, bigEndian)
            let type = TIFFDirectory.read16(bytes, at + 2, bigEndian)
            let n = TIFFDirectory.read32(bytes, at + 4, bigEndian)
            guard keeping(tag), let unit = TIFFDirectory.unit(of: type) else { continue }
            let (length, overflow) = Int(n).multipliedReportingOverflow(by: unit.size * unit.perValue)
            guard !overflow, length <= 4 || length <= budget else { continue }
            let start = length > 4 ? Int(TIFFDirectory.read32(bytes, at + 8, bigEndian)) : at + 8
            guard start + length <= bytes.count else { continue }
            if length > 4 { budget -= length }  // a value that fits the entry is in the table
            var value = Array(bytes[start..<start + length])
            if bigEndian && unit.size > 1 {
                for u in stride(from: 0, to: length, by: unit.size) { value[u..<u + unit.size].reverse() }
            }
            var entry = Entry(tag: tag, type: type, count: n, value: value)
            if TIFFDirectory.pointerTags.contains(tag) {
                // A pointer leads to a directory, or the entry goes: its offset means nothing elsewhere.
                guard (type == 4 || type == 13), n == 1, depth < TIFFDirectory.maxDepth,
                      let sub = TIFFDirectory(bytes, at: Int(TIFFDirectory.read32(bytes, at + 8, bigEndian)),
                                              bigEndian: bigEndian, depth: depth + 1, budget: &budget, keeping: { _ in true })
                else { continue }
                entry.directory = sub
                entry.type = 4  // LONG, as EXIF has it (libtiff writes IFD, 13)
            }
            entries.append(entry)
        }
        self.entries = entries
    }

    /// IFD0 of EXIF data (a TIFF structure), or nil when it is not one.
    init?(exif: [UInt8]) {
        guard let d = exif.withUnsafeBytes({ b -> TIFFDirectory? in
            guard let (bigEndian, first) = TIFFDirectory.header(b) else { return nil }
            return TIFFDirectory(b, at: first, bigEndian: bigEndian)
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

    static func read16(_ b: UnsafeRawBufferPointer, _ at: Int, _ bigEndian: Bool) -> UInt16 {
        bigEndian ? UInt16(b[at]) << 8 | UInt16(b[at + 1]) : UInt16(b[at + 1]) << 8 | UInt16(b[at])
    }

    static func read32(_ b: UnsafeRawBufferPointer, _ at: Int, _ bigEndian: Bool) -> UInt32 {
        bigEndian ? UInt32(read16(b, at, true)) << 16 | UInt32(read16(b, at + 2, true))
                  : UInt32(read16(b, at + 2, false)) << 16 | UInt32(read16(b, at, false))
    }

    static func bytes16(_ v: UInt16, _ bigEndian: Bool) -> [UInt8] {
        bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)]
    }

    static func bytes32(_ v: UInt32, _ bigEndian: Bool) -> [UInt8] {
        let le = (0..<4).map { UInt8((v >> (8 * UInt32($0))) & 0xFF) }
        return bigEndian ? le.reversed() : le
    }
}
