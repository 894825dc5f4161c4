/// An HDR gain map stored beside a JPEG's SDR image (Ultra HDR, ISO 21496-1, Apple's), as
/// the file describes it: where it is, its size and channels, and how it turns the SDR image
/// into the HDR one. Found by `GainMap.search(jpeg:)` from the file's bytes alone (the
/// map's pixels are not decoded).
///
/// Values are as ISO 21496-1 keeps them: gains and headrooms in stops (log2), gamma and
/// offsets as they are; each per channel has three entries (a one-channel map repeats its
/// one). The HDR rendition at full headroom is, per channel, with g the map's value in 0...1:
///
///     log2 gain = mix(gainMapMin, gainMapMax, g ^ (1 / gamma))
///     hdr = (sdr + baseOffset) 2^(log2 gain) - alternateOffset
public struct GainMap: Sendable, Hashable {
    /// Where the metadata came from.
    public enum Source: String, Sendable, Hashable {
        /// The ISO 21496-1 APP2 segment ("urn:iso:std:iso:ts:21496:-1") of the map's JPEG.
        case iso21496 = "iso21496-1"
        /// Adobe's and Google's `hdrgm` XMP of the map's JPEG (Ultra HDR version 1).
        case hdrgm
        /// Apple's: the map's XMP says it is one (`urn:com:apple:photo:2020:aux:hdrgainmap`);
        /// its headroom comes from that XMP, else from the primary's EXIF maker note.
        case apple

        /// How messages name it.
        public var title: String {
            switch self {
            case .iso21496: "ISO 21496-1"
            case .hdrgm: "Ultra HDR"
            case .apple: "Apple's"
            }
        }
    }

    public var width: Int
    public var height: Int
    public var channels: Int
    public var source: Source
    /// The gain map's JPEG, in bytes.
    public var byteCount: Int
    public var gainMapMin: [Double]
    public var gainMapMax: [Double]
    public var gamma: [Double]
    public var baseOffset: [Double]
    public var alternateOffset: [Double]
    /// The HDR capacity's low end, in stops: the headroom where the map starts to apply.
    public var baseHeadroom: Double
    /// Its high end, in stops: the headroom where the map applies fully.
    public var alternateHeadroom: Double
    /// The base image is the HDR rendition (the map takes it down to SDR).
    public var baseIsHDR: Bool
    /// The map applies in the base image's colour space.
    public var usesBaseColourSpace: Bool

    /// What a JPEG holds: no gain map, one, or one it points at that cannot be read (harmless
    /// damage: the SDR image is still whole), with the reason.
    public enum Search: Sendable, Hashable {
        case none
        case found(GainMap)
        case damaged(String)
    }
}

extension GainMap {
    /// The gain map a JPEG file's bytes hold, if any: the image its MPF index lists after the
    /// primary (of no MP type: a stereo pair's "disparity" image is not a map), whose own
    /// segments say it is one (ISO 21496-1 APP2, else `hdrgm` XMP, else Apple's XMP).
    public static func search(jpeg bytes: [UInt8]) -> Search {
        var range: Range<Int>?
        return find(bytes, map: &range)
    }

    /// `search(jpeg:)`, with the map's JPEG as the file holds it when one is found.
    static func read(jpeg bytes: [UInt8]) -> (search: Search, jpeg: [UInt8]?) {
        var range: Range<Int>?
        let search = find(bytes, map: &range)
        guard case .found = search, let range else { return (search, nil) }
        return (search, Array(bytes[range]))
    }

    /// The search; `map` is set to where the map's JPEG lies in `bytes`.
    private static func find(_ bytes: [UInt8], map range: inout Range<Int>?) -> Search {
        let primary = JPEGSegments(bytes, from: 0)
        guard let mpf = primary.payload(app: 0xe2, prefix: Array("MPF\0".utf8)) else { return .none }
        let tiff = mpf.offset
        guard let entries = MPFIndex.entries(mpf.bytes), entries.count >= 2 else { return .none }
        let entry = entries[1]
        // MP types (CIPA DC-007): 0x020002 disparity, 0x020003 multi-angle; a gain map has none.
        guard entry.attribute & 0x00ff_ffff == 0 else { return .none }
        let start = tiff + entry.offset
        guard entry.offset > 0, start < bytes.count else {
            return .damaged("the gain map's offset in the MPF index (\(entry.offset)) lies past the end of the file")
        }
        guard start + entry.size <= bytes.count else {
            return .damaged("the gain map (\(entry.size) bytes from byte \(start)) runs past the end of the file (\(bytes.count) bytes)")
        }
        let map = Array(bytes[start..<(start + entry.size)])
        range = start..<(start + entry.size)
        guard map.starts(with: [0xff, 0xd8]) else { return .damaged("the MPF index points at byte \(start), where no JPEG starts") }
        let segments = JPEGSegments(map, from: 0)
        guard let frame = segments.frame else { return .damaged("the gain map's JPEG has no frame header") }
        // (Found by fuzzing: a map's frame of four components, which no gain map has.)
        guard [1, 3].contains(frame.components) else {
            return .damaged("the gain map's JPEG has \(frame.components) components (a gain map has 1 or 3)")
        }
        guard frame.width > 0, frame.height > 0 else {
            return .damaged("the gain map's JPEG is \(frame.width) x \(frame.height) pixels")
        }
        var found = GainMap(width: frame.width, height: frame.height, channels: frame.components, source: .iso21496,
                            byteCount: map.count, gainMapMin: [0, 0, 0], gainMapMax: [0, 0, 0], gamma: [1, 1, 1],
                            baseOffset: [0, 0, 0], alternateOffset: [0, 0, 0], baseHeadroom: 0, alternateHeadroom: 0,
                            baseIsHDR: false, usesBaseColourSpace: true)
        let iso = segments.payload(app: 0xe2, prefix: isoPrefix)
        let xmp = segments.payload(app: 0xe1, prefix: Array("http://ns.adobe.com/xap/1.0/\0".utf8))
            .map { String(decoding: $0.bytes, as: UTF8.self) }
        if let iso {
            if let why = found.readISO(iso.bytes) { return .damaged("its gain map's ISO 21496-1 metadata \(why)") }
        } else if let xmp, xmp.contains("http://ns.adobe.com/hdr-gain-map/1.0/") {
            found.source = .hdrgm
            if let why = found.readHDRGM(xmp) { return .damaged("its gain map's hdrgm XMP \(why)") }
        } else if let xmp, xmp.contains("urn:com:apple:photo:2020:aux:hdrgainmap") {
            found.source = .apple
            let stops = XMPValue.element("HDRGainMap:HDRGainMapHeadroom", in: xmp).flatMap(Double.init)
                ?? AppleMakerNote.headroom(primary.payload(app: 0xe1, prefix: Array("Exif\0\0".utf8))?.bytes ?? [])
            guard let stops, stops.isFinite else { return .damaged("its Apple gain map gives no headroom (neither in its XMP nor in the EXIF maker note)") }
            let s = max(stops, 0)
            found.gainMapMax = [s, s, s]
            found.alternateHeadroom = s
        } else {
            return .none
        }
        if let why = found.problem { return .damaged("its gain map's metadata \(why)") }
        return .found(found)
    }

    /// The gain map of the JPEG file at `path` (see `search(jpeg:)`).
    public static func search(jpegFile path: String) -> Search {
        do throws(Chain.ReadError) { return search(jpeg: try Chain.readFile(path)) } catch {
            return .damaged("the file cannot be read again to find its gain map: \(error.why)")
        }
    }

    /// The start of ISO 21496-1's APP2 segment.
    static let isoPrefix = Array("urn:iso:std:iso:ts:21496:-1\0".utf8)

    /// What makes the values unusable, or nil.
    var problem: String? {
        for c in 0..<3 {
            guard [gainMapMin[c], gainMapMax[c], gamma[c], baseOffset[c], alternateOffset[c]].allSatisfy(\.isFinite) else {
                return "holds a value that is not a number"
            }
            if gainMapMax[c] < gainMapMin[c] { return "says the largest gain (\(gainMapMax[c]) stops) is below the smallest (\(gainMapMin[c]))" }
            if gamma[c] <= 0 { return "gives a gamma of \(gamma[c])" }
        }
        if !baseIsHDR && alternateHeadroom < baseHeadroom {
            return "gives an HDR capacity from \(baseHeadroom) down to \(alternateHeadroom) stops"
        }
        return nil
    }

    /// ISO 21496-1's binary metadata: minimum and writer version (16 bits each), flags (bit 7
    /// several channels, bit 6 the base colour space, bit 3 one common denominator, bit 2 the
    /// base is HDR), then fractions (32-bit numerator,
    /// signed where the value may be negative, over a 32-bit denominator): base and alternate
    /// headroom, then per channel gain map min, max, gamma, base offset, alternate offset.
    /// The reason it cannot be read, or nil.
    mutating func readISO(_ b: [UInt8]) -> String? {
        guard b.count >= 5 else { return "is cut short (\(b.count) bytes)" }
        guard b[0] == 0, b[1] == 0 else { return "needs version \(Int(b[0]) << 8 | Int(b[1])) to be read" }
        let channels = b[4] & 0x80 != 0 ? 3 : 1
        usesBaseColourSpace = b[4] & 0x40 != 0
        // Bit 3: one denominator, written once first, for every value (libultrahdr writes so
        // when they share one); else each value has its own.
        let common = b[4] & 0x08 != 0
        let needed = common ? 5 + 4 + 8 + channels * 20 : 5 + 16 + channels * 40
        guard b.count >= needed else { return "is cut short (\(b.count) of \(needed) bytes)" }
        var at = 5
        func u32() -> UInt32 {
            defer { at += 4 }
            return UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
        }
        let shared: UInt32? = common ? u32() : nil
        func fraction(signed: Bool) -> Double? {
            let n = u32()
            let d = shared ?? u32()
            guard d != 0 else { return nil }
            return (signed ? Double(Int32(bitPattern: n)) : Double(n)) / Double(d)
        }
        guard let base = fraction(signed: false), let alternate = fraction(signed: false) else { return "has a zero denominator" }
        baseHeadroom = base
        alternateHeadroom = alternate
        for c in 0..<channels {
            guard let lo = fraction(signed: true), let hi = fraction(signed: true), let g = fraction(signed: false),
                  let bo = fraction(signed: true), let ao = fraction(signed: true) else { return "has a zero denominator" }
            (gainMapMin[c], gainMapMax[c], gamma[c], baseOffset[c], alternateOffset[c]) = (lo, hi, g, bo, ao)
        }
        if channels == 1 { spreadFirstChannel() }
        // The direction: bit 2 says the base is the HDR rendition; so does a base above the
        // alternate's headroom.
        baseIsHDR = b[4] & 0x04 != 0 || baseHeadroom > alternateHeadroom
        return nil
    }

    /// Ultra HDR version 1's XMP (`hdrgm:` attributes or elements, one value or an `rdf:Seq`
    /// of three). The reason it cannot be read, or nil.
    mutating func readHDRGM(_ xmp: String) -> String? {
        func values(_ name: String) -> [Double]? { XMPValue.values("hdrgm:" + name, in: xmp)?.compactMap(Double.init) }
        guard let hi = values("GainMapMax"), !hi.isEmpty else { return "gives no GainMapMax" }
        guard let capacity = values("HDRCapacityMax"), let top = capacity.first else { return "gives no HDRCapacityMax" }
        func fill(_ v: [Double]?, _ fallback: Double) -> [Double] {
            guard let v, !v.isEmpty else { return [fallback, fallback, fallback] }
            return v.count >= 3 ? Array(v.prefix(3)) : [v[0], v[0], v[0]]
        }
        gainMapMax = fill(hi, 0)
        gainMapMin = fill(values("GainMapMin"), 0)
        gamma = fill(values("Gamma"), 1)
        baseOffset = fill(values("OffsetSDR"), 1.0 / 64)
        alternateOffset = fill(values("OffsetHDR"), 1.0 / 64)
        baseHeadroom = values("HDRCapacityMin")?.first ?? 0
        alternateHeadroom = top
        baseIsHDR = XMPValue.values("hdrgm:BaseRenditionIsHDR", in: xmp)?.first?.lowercased() == "true"
        return nil
    }

    private mutating func spreadFirstChannel() {
        for c in 1..<3 {
            (gainMapMin[c], gainMapMax[c], gamma[c], baseOffset[c], alternateOffset[c])
                = (gainMapMin[0], gainMapMax[0], gamma[0], baseOffset[0], alternateOffset[0])
        }
    }
}

/// A JPEG's marker segments before its first scan, and its frame header.
struct JPEGSegments {
    /// Each segment: its marker (0xe1 for APP1), where its payload starts, the payload.
    private(set) var segments: [(marker: UInt8, offset: Int, bytes: ArraySlice<UInt8>)] = []
    private(set) var frame: (width: Int, height: Int, components: Int)?

    init(_ b: [UInt8], from start: Int) {
        var i = start + 2
        while i + 4 <= b.count, b[i] == 0xff {
            let marker = b[i + 1]
            if marker == 0xff { i += 1; continue }
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length >= 2, i + 2 + length <= b.count else { break }
            let payload = b[(i + 4)..<(i + 2 + length)]
            segments.append((marker, i + 4, payload))
            if (0xc0...0xcf).contains(marker), ![0xc4, 0xc8, 0xcc].contains(marker), payload.count >= 6 {
                let p = Array(payload)
                frame = (Int(p[3]) << 8 | Int(p[4]), Int(p[1]) << 8 | Int(p[2]), Int(p[5]))
            }
            if marker == 0xda { break }
            i += 2 + length
        }
    }

    /// The first APPn segment `app` whose payload starts with `prefix`: where the rest
    /// starts in the file, and the rest.
    func payload(app: UInt8, prefix: [UInt8]) -> (offset: Int, bytes: [UInt8])? {
        guard let s = segments.first(where: { $0.marker == app && $0.bytes.starts(with: prefix) }) else { return nil }
        return (s.offset + prefix.count, Array(s.bytes.dropFirst(prefix.count)))
    }
}

/// The MP Index IFD of an MPF segment (CIPA DC-007): its MP entries.
enum MPFIndex {
    /// Each image's attribute, size and offset (from the MPF's TIFF header; 0 for the
    /// primary), from the MPF segment's TIFF structure (`tiff`: the bytes after "MPF\0").
    static func entries(_ tiff: [UInt8]) -> [(attribute: Int, size: Int, offset: Int)]? {
        // MPEntry is UNDEFINED: its bytes are as stored, in the structure's byte order.
        guard let entry = TIFFDirectory(exif: tiff)?[0xb002] else { return nil }
        let v = entry.value, bigEndian = tiff[0] == 0x4d
        func u32(_ i: Int) -> Int {
            let b = v[i..<(i + 4)].map(Int.init)
            return bigEndian ? b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3] : b[3] << 24 | b[2] << 16 | b[1] << 8 | b[0]
        }
        return stride(from: 0, to: v.count - 15, by: 16).map { (u32($0), u32($0 + 4), u32($0 + 8)) }
    }
}

/// Apple's HDR headroom from the EXIF maker note of an iPhone photo, when its gain map's XMP
/// does not give it: maker tags 33 (HDRHeadroom) and 48 (HDRGain), through Apple's published
/// formula (as libultrahdr reads it):
///
///     tag 33 < 1:  stops = 1.8 - 20 tag48      (tag48 <= 0.01), else 1.601 - 0.101 tag48
///     tag 33 >= 1: stops = 3.0 - 70 tag48      (tag48 <= 0.01), else 2.303 - 0.303 tag48
enum AppleMakerNote {
    static func headroom(_ exif: [UInt8]) -> Double? {
        // The note: "Apple iOS\0", a version, its byte order at 12 and its IFD at 14, with
        // offsets from the note's start.
        guard let note = TIFFDirectory(exif: exif)?[TIFFDirectory.exifPointer]?.directory?[0x927c]?.value,
              note.count > 16, note.starts(with: Array("Apple iOS\0".utf8)),
              let ifd = note.withUnsafeBytes({ TIFFDirectory($0, at: 14, bigEndian: note[12] == 0x4d) }) else { return nil }
        // A RATIONAL or SRATIONAL, its two 4-byte units little-endian as TIFFDirectory keeps them.
        func rational(_ tag: UInt16) -> Double? {
            guard let e = ifd[tag], e.type == 10 || e.type == 5, e.value.count == 8 else { return nil }
            let u = { (i: Int) in UInt32(e.value[i]) | UInt32(e.value[i + 1]) << 8 | UInt32(e.value[i + 2]) << 16 | UInt32(e.value[i + 3]) << 24 }
            let (n, d) = (u(0), u(4))
            guard d != 0 else { return nil }
            return e.type == 10 ? Double(Int32(bitPattern: n)) / Double(Int32(bitPattern: d)) : Double(n) / Double(d)
        }
        guard let headroom = rational(0x21), let gain = rational(0x30) else { return nil }
        if headroom < 1 { return gain <= 0.01 ? 1.8 - 20 * gain : 1.601 - 0.101 * gain }
        return gain <= 0.01 ? 3.0 - 70 * gain : 2.303 - 0.303 * gain
    }
}

/// A value of an XMP property, written as an attribute (`ns:Name="v"`), an element
/// (`<ns:Name>v</ns:Name>`) or an `rdf:Seq` of `rdf:li` elements.
enum XMPValue {
    static func values(_ name: String, in xmp: String) -> [String]? {
        if let v = attribute(name, in: xmp) { return [v] }
        guard let inner = element(name, in: xmp) else { return nil }
        guard inner.contains("<rdf:li") else { return [inner] }
        return inner.split(separator: "<rdf:li", omittingEmptySubsequences: false).dropFirst().compactMap { item in
            guard let open = item.firstIndex(of: ">"), let close = item.firstRange(of: "</rdf:li>") else { return nil }
            return String(item[item.index(after: open)..<close.lowerBound]).trimmingWhitespace
        }
    }

    static func attribute(_ name: String, in xmp: String) -> String? {
        guard let r = xmp.firstRange(of: name + "=\"") else { return nil }
        let rest = xmp[r.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }

    static func element(_ name: String, in xmp: String) -> String? {
        guard let open = xmp.firstRange(of: "<" + name + ">"),
              let close = xmp[open.upperBound...].firstRange(of: "</" + name + ">") else { return nil }
        return String(xmp[open.upperBound..<close.lowerBound]).trimmingWhitespace
    }
}
