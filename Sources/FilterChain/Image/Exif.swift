/// Reading and rewriting the Orientation tag (0x0112) in EXIF data (a TIFF structure).
/// Only IFD0 is read; every offset is bounds-checked, so damaged EXIF is simply ignored.
public enum Exif {
    /// The Orientation in IFD0, if present and valid.
    public static func orientation(in exif: [UInt8]) -> Orientation? {
        guard let (offset, bigEndian) = orientationValueOffset(in: exif) else { return nil }
        return Orientation(rawValue: Int(read16(exif, offset, bigEndian)))
    }

    /// The same EXIF with Orientation set to 1 (pixels were turned upright).
    public static func withOrientationReset(_ exif: [UInt8]) -> [UInt8] {
        guard let (offset, bigEndian) = orientationValueOffset(in: exif) else { return exif }
        var copy = exif
        copy[offset] = bigEndian ? 0 : 1
        copy[offset + 1] = bigEndian ? 1 : 0
        return copy
    }

    /// Whether the data starts as a TIFF structure does ("II*\0" or "MM\0*").
    static func isTIFF(_ d: [UInt8]) -> Bool {
        d.count >= 8 && (d.starts(with: [0x49, 0x49, 0x2A, 0x00]) || d.starts(with: [0x4D, 0x4D, 0x00, 0x2A]))
    }

    /// Where the Orientation's SHORT value is stored, and the byte order.
    static func orientationValueOffset(in d: [UInt8]) -> (Int, Bool)? {
        guard d.count >= 8 else { return nil }
        let bigEndian: Bool
        switch (d[0], d[1]) {
        case (0x4D, 0x4D): bigEndian = true
        case (0x49, 0x49): bigEndian = false
        default: return nil
        }
        guard read16(d, 2, bigEndian) == 42 else { return nil }
        let ifd = Int(read32(d, 4, bigEndian))
        guard ifd >= 8, ifd + 2 <= d.count else { return nil }
        let count = Int(read16(d, ifd, bigEndian))
        for i in 0..<count {
            let entry = ifd + 2 + 12 * i
            guard entry + 12 <= d.count else { return nil }
            guard read16(d, entry, bigEndian) == 0x0112 else { continue }
            // type SHORT (3), count 1: the value sits in the first two bytes of the field.
            guard read16(d, entry + 2, bigEndian) == 3, read32(d, entry + 4, bigEndian) == 1
            else { return nil }
            return (entry + 8, bigEndian)
        }
        return nil
    }

    static func read16(_ d: [UInt8], _ at: Int, _ bigEndian: Bool) -> UInt16 {
        let a = UInt16(d[at]), b = UInt16(d[at + 1])
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    static func read32(_ d: [UInt8], _ at: Int, _ bigEndian: Bool) -> UInt32 {
        let bytes = (0..<4).map { UInt32(d[at + $0]) }
        return bigEndian
            ? bytes[0] << 24 | bytes[1] << 16 | bytes[2] << 8 | bytes[3]
            : bytes[3] << 24 | bytes[2] << 16 | bytes[1] << 8 | bytes[0]
    }
}
