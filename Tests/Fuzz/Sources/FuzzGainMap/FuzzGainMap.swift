import FilterChain

/// The gain map's parsers (GainMap.search): the MPF index, ISO 21496-1's binary metadata, the
/// `hdrgm` XMP and Apple's XMP. An input that starts as a JPEG does is a whole file; any other
/// is one parser's payload, put by this harness into a small Ultra HDR JPEG that is right
/// but for it (first byte 0: the map's ISO 21496-1 APP2, 1: the map's XMP, 2: the primary's
/// MPF index after "MPF\0"), so that the fuzzer's mutations land where the parsers read.
/// A map the search accepts has usable metadata, else the run stops.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let file: [UInt8]
    if bytes.starts(with: [0xFF, 0xD8]) {
        file = bytes
    } else if let mode = bytes.first, mode < 3 {
        let payload = Array(bytes.dropFirst())
        switch mode {
        case 0: file = ultraHDR(map: segment(0xE2, isoPrefix + payload))
        case 1: file = ultraHDR(map: segment(0xE1, xmpPrefix + payload))
        default: file = ultraHDR(map: segment(0xE2, isoPrefix + [0, 0, 0, 0, 0]), mpf: payload)
        }
    } else {
        return -1  // not kept in the corpus
    }
    switch GainMap.search(jpeg: file) {
    case .none: break
    case .damaged(let why): if why.isEmpty { fatalError("damage without a reason") }
    case .found(let map): check(map)
    }
    return 0
}

/// What every accepted map must be: a size, one or three channels, finite values, min <= max,
/// a positive gamma and finite headrooms.
func check(_ m: GainMap) {
    guard m.width > 0, m.height > 0, [1, 3].contains(m.channels) else { fatalError("a map of \(m.width) x \(m.height), \(m.channels) channels") }
    for values in [m.gainMapMin, m.gainMapMax, m.gamma, m.baseOffset, m.alternateOffset] {
        guard values.count == 3, values.allSatisfy(\.isFinite) else { fatalError("accepted values \(values)") }
    }
    for c in 0..<3 {
        if m.gainMapMin[c] > m.gainMapMax[c] { fatalError("accepted min \(m.gainMapMin[c]) > max \(m.gainMapMax[c])") }
        if !(m.gamma[c] > 0) { fatalError("accepted gamma \(m.gamma[c])") }
    }
    guard m.baseHeadroom.isFinite, m.alternateHeadroom.isFinite else { fatalError("accepted headrooms \(m.baseHeadroom), \(m.alternateHeadroom)") }
}

let isoPrefix = Array("urn:iso:std:iso:ts:21496:-1\0".utf8)
let xmpPrefix = Array("http://ns.adobe.com/xap/1.0/\0".utf8)

func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
func be32(_ v: Int) -> [UInt8] { be16(v >> 16) + be16(v) }

/// A marker segment; a payload too long for one is cut to fit.
func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
    let p = Array(payload.prefix(65533))
    return [0xFF, marker] + be16(p.count + 2) + p
}

/// A JPEG of segments only: SOI, `segments`, a 4 x 3 one-component frame header, EOI.
func jpeg(_ segments: [UInt8]) -> [UInt8] {
    [0xFF, 0xD8] + segments + [0xFF, 0xC0, 0, 11, 8, 0, 3, 0, 4, 1, 1, 0x11, 0] + [0xFF, 0xD9]
}

/// A primary JPEG whose MPF index (`mpf`, or a right one) lists `map`'s JPEG after it.
func ultraHDR(map segments: [UInt8], mpf: [UInt8]? = nil) -> [UInt8] {
    let map = jpeg(segments)
    // The MPF APP2 is 4 + 86 bytes of payload; the primary is SOI, that segment, the frame
    // and EOI. Offsets count from the TIFF header after "MPF\0" (byte 2 + 4 + 4 = 10).
    let primarySize = 2 + 4 + 4 + 86 + 13 + 2
    var index = Array("MM".utf8) + be16(42) + be32(8) + be16(3)
    index += be16(0xB000) + be16(7) + be32(4) + Array("0100".utf8)
    index += be16(0xB001) + be16(4) + be32(1) + be32(2)
    index += be16(0xB002) + be16(7) + be32(32) + be32(8 + 2 + 3 * 12 + 4)
    index += be32(0)
    index += be32(0x0003_0000) + be32(primarySize) + be32(0) + be16(0) + be16(0)
    index += be32(0) + be32(map.count) + be32(primarySize - 10) + be16(0) + be16(0)
    return jpeg(segment(0xE2, Array("MPF\0".utf8) + (mpf ?? index))) + map
}
