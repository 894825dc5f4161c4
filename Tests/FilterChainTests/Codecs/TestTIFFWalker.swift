import Foundation

/// The tests' own reader of TIFF structures (TIFF files and EXIF data), written from the TIFF
/// 6 specification and independent of the library's: IFD0's entries, the Exif, GPS and
/// Interoperability sub-IFDs they point to, and for TIFF files the strips as stored.
struct TestTIFFWalker {
    struct Entry: Equatable {
        var type: UInt16
        var count: UInt32
        /// The value's bytes in little-endian order (every unit swapped when the data is big-endian).
        var value: [UInt8]
    }

    struct IFD {
        var entries: [UInt16: Entry] = [:]
        var subIFDs: [UInt16: IFD] = [:]
        var next: Int = 0

        /// A SHORT or LONG entry's numbers.
        func numbers(_ tag: UInt16) -> [Int]? {
            guard let e = entries[tag] else { return nil }
            let size = e.type == 3 ? 2 : e.type == 4 || e.type == 13 ? 4 : 0
            guard size > 0 else { return nil }
            return stride(from: 0, to: e.value.count, by: size).map { i in
                (0..<size).reduce(0) { $0 | Int(e.value[i + $1]) << (8 * $1) }
            }
        }

        func number(_ tag: UInt16) -> Int? { numbers(tag)?.first }

        /// An ASCII entry's text, up to its first NUL.
        func text(_ tag: UInt16) -> String? {
            guard let e = entries[tag], e.type == 2 else { return nil }
            return String(decoding: e.value.prefix { $0 != 0 }, as: UTF8.self)
        }

        /// A RATIONAL entry's first value as (numerator, denominator).
        func rational(_ tag: UInt16) -> (UInt32, UInt32)? {
            guard let e = entries[tag], e.type == 5, e.value.count >= 8 else { return nil }
            let u = { (at: Int) in (0..<4).reduce(UInt32(0)) { $0 | UInt32(e.value[at + $1]) << (8 * UInt32($1)) } }
            return (u(0), u(4))
        }
    }

    let bytes: [UInt8]
    let bigEndian: Bool
    private(set) var ifd0 = IFD()

    static let sizes: [UInt16: Int] = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4]
    static let units: [UInt16: Int] = [3: 2, 4: 4, 5: 4, 8: 2, 9: 4, 10: 4, 11: 4, 12: 8, 13: 4]
    static let pointers: Set<UInt16> = [34665, 34853, 40965]

    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 8, bytes[0] == bytes[1], bytes[0] == 0x49 || bytes[0] == 0x4D else { return nil }
        self.bytes = bytes
        bigEndian = bytes[0] == 0x4D
        guard u16(2) == 42, let ifd = ifd(at: Int(u32(4)), depth: 0) else { return nil }
        ifd0 = ifd
    }

    func u16(_ o: Int) -> UInt16 {
        bigEndian ? UInt16(bytes[o]) << 8 | UInt16(bytes[o + 1]) : UInt16(bytes[o + 1]) << 8 | UInt16(bytes[o])
    }

    func u32(_ o: Int) -> UInt32 {
        bigEndian ? UInt32(u16(o)) << 16 | UInt32(u16(o + 2)) : UInt32(u16(o + 2)) << 16 | UInt32(u16(o))
    }

    func ifd(at offset: Int, depth: Int) -> IFD? {
        guard offset >= 8, offset + 2 <= bytes.count, depth < 4 else { return nil }
        let count = Int(u16(offset))
        guard offset + 2 + 12 * count + 4 <= bytes.count else { return nil }
        var out = IFD()
        for i in 0..<count {
            let e = offset + 2 + 12 * i
            let tag = u16(e), type = u16(e + 2), n = u32(e + 4)
            guard let size = Self.sizes[type] else { continue }
            let length = size * Int(n)
            let at = length > 4 ? Int(u32(e + 8)) : e + 8
            guard at + length <= bytes.count else { return nil }
            var value = Array(bytes[at..<at + length])
            if bigEndian, let unit = Self.units[type] {
                for u in stride(from: 0, to: length, by: unit) { value[u..<u + unit].reverse() }
            }
            out.entries[tag] = Entry(type: type, count: n, value: value)
            if Self.pointers.contains(tag), n == 1, let sub = ifd(at: Int(u32(e + 8)), depth: depth + 1) {
                out.subIFDs[tag] = sub
            }
        }
        out.next = Int(u32(offset + 2 + 12 * count))
        return out
    }

    /// The strips' bytes as stored, in order.
    var strips: [[UInt8]] {
        guard let offsets = ifd0.numbers(273), let counts = ifd0.numbers(279), offsets.count == counts.count else { return [] }
        return zip(offsets, counts).map { Array(bytes[$0..<$0 + $1]) }
    }
}
