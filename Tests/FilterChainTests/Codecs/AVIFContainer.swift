/// An AVIF (ISO base media) file read here, independently of libavif: the primary item's
/// properties (colr, ispe, pixi, irot, imir, clap) and the payloads of the Exif and XMP items,
/// found through meta's pitm, iinf, iloc, iprp/ipco and ipma boxes. Enough for the files
/// libavif writes (items stored in the file, construction method 0).
struct AVIFContainer {
    var brands: [String] = []
    var primaryItem = 0
    /// Item id to (type, content type).
    var items: [Int: (type: String, contentType: String)] = [:]
    /// Item id to its bytes.
    var data: [Int: [UInt8]] = [:]
    /// The property boxes (type, body), 1-based as ipma counts them.
    var properties: [(type: String, body: [UInt8])] = []
    /// Item id to the indices (1-based) of its properties.
    var associations: [Int: [Int]] = [:]

    enum Failure: Error { case malformed(String) }

    init(_ b: [UInt8]) throws {
        func u(_ at: Int, _ n: Int) throws -> Int {
            guard at >= 0, at + n <= b.count else { throw Failure.malformed("read past the end at \(at)") }
            return (0..<n).reduce(0) { $0 << 8 | Int(b[at + $1]) }
        }
        func text(_ r: Range<Int>) -> String { String(decoding: b[r], as: UTF8.self) }
        func boxes(_ range: Range<Int>) throws -> [(type: String, body: Range<Int>)] {
            var out: [(String, Range<Int>)] = []
            var i = range.lowerBound
            while i + 8 <= range.upperBound {
                var size = try u(i, 4), header = 8
                if size == 1 { size = try u(i + 8, 8); header = 16 } else if size == 0 { size = range.upperBound - i }
                guard size >= header, i + size <= range.upperBound else { throw Failure.malformed("box at \(i) of size \(size)") }
                out.append((text(i + 4..<i + 8), i + header..<i + size))
                i += size
            }
            return out
        }
        let top = try boxes(0..<b.count)
        guard let ftyp = top.first, ftyp.type == "ftyp" else { throw Failure.malformed("no ftyp first") }
        brands = [text(ftyp.body.lowerBound..<ftyp.body.lowerBound + 4)]
            + stride(from: ftyp.body.lowerBound + 8, to: ftyp.body.upperBound, by: 4).map { text($0..<$0 + 4) }
        guard let meta = top.first(where: { $0.type == "meta" }) else { throw Failure.malformed("no meta") }
        let children = try boxes(meta.body.lowerBound + 4..<meta.body.upperBound)  // a full box
        func child(_ type: String) throws -> Range<Int> {
            guard let c = children.first(where: { $0.type == type }) else { throw Failure.malformed("no \(type)") }
            return c.body
        }
        let pitm = try child("pitm")
        primaryItem = try b[pitm.lowerBound] == 0 ? u(pitm.lowerBound + 4, 2) : u(pitm.lowerBound + 4, 4)

        let iinf = try child("iinf")
        let iinfVersion = Int(b[iinf.lowerBound])
        let entriesStart = iinf.lowerBound + 4 + (iinfVersion == 0 ? 2 : 4)
        for infe in try boxes(entriesStart..<iinf.upperBound) where infe.type == "infe" {
            let version = Int(b[infe.body.lowerBound])
            guard version >= 2 else { throw Failure.malformed("infe version \(version)") }
            var i = infe.body.lowerBound + 4
            let id = try u(i, version == 2 ? 2 : 4)
            i += (version == 2 ? 2 : 4) + 2
            let type = text(i..<i + 4)
            i += 4
            let nameEnd = b[i..<infe.body.upperBound].firstIndex(of: 0) ?? infe.body.upperBound
            i = nameEnd + 1
            var contentType = ""
            if type == "mime", i < infe.body.upperBound {
                let end = b[i..<infe.body.upperBound].firstIndex(of: 0) ?? infe.body.upperBound
                contentType = text(i..<end)
            }
            items[id] = (type, contentType)
        }

        let iloc = try child("iloc")
        let version = Int(b[iloc.lowerBound])
        var i = iloc.lowerBound + 4
        let offsetSize = Int(b[i] >> 4), lengthSize = Int(b[i] & 15), baseSize = Int(b[i + 1] >> 4)
        let indexSize = version >= 1 ? Int(b[i + 1] & 15) : 0
        i += 2
        let count = try u(i, version < 2 ? 2 : 4)
        i += version < 2 ? 2 : 4
        for _ in 0..<count {
            let id = try u(i, version < 2 ? 2 : 4)
            i += version < 2 ? 2 : 4
            if version >= 1 {
                guard try u(i, 2) & 15 == 0 else { throw Failure.malformed("item \(id) not stored in the file") }
                i += 2
            }
            i += 2  // data reference index
            let base = try u(i, baseSize)
            i += baseSize
            let extents = try u(i, 2)
            i += 2
            var bytes: [UInt8] = []
            for _ in 0..<extents {
                i += indexSize
                let offset = try u(i, offsetSize), length = try u(i + offsetSize, lengthSize)
                i += offsetSize + lengthSize
                guard base + offset + length <= b.count else { throw Failure.malformed("item \(id) past the end") }
                bytes += b[base + offset..<base + offset + length]
            }
            data[id] = bytes
        }

        let iprp = try child("iprp")
        let iprpChildren = try boxes(iprp)
        guard let ipco = iprpChildren.first(where: { $0.type == "ipco" }),
              let ipma = iprpChildren.first(where: { $0.type == "ipma" }) else { throw Failure.malformed("no ipco or ipma") }
        properties = try boxes(ipco.body).map { ($0.type, Array(b[$0.body])) }
        let ipmaVersion = Int(b[ipma.body.lowerBound]), wide = b[ipma.body.lowerBound + 3] & 1 != 0
        i = ipma.body.lowerBound + 4
        let entries = try u(i, 4)
        i += 4
        for _ in 0..<entries {
            let id = try u(i, ipmaVersion < 1 ? 2 : 4)
            i += ipmaVersion < 1 ? 2 : 4
            let n = Int(b[i])
            i += 1
            var indices: [Int] = []
            for _ in 0..<n {
                indices.append(wide ? try u(i, 2) & 0x7FFF : Int(b[i] & 0x7F))
                i += wide ? 2 : 1
            }
            associations[id] = indices
        }
    }

    /// The primary item's property boxes of `type`.
    func primaryProperties(_ type: String) -> [[UInt8]] {
        (associations[primaryItem] ?? []).compactMap { $0 >= 1 && $0 <= properties.count ? properties[$0 - 1] : nil }
            .filter { $0.type == type }.map(\.body)
    }

    /// The ICC profile of a colr 'prof' box of the primary item.
    var icc: [UInt8]? {
        primaryProperties("colr").first { $0.count >= 4 && String(decoding: $0[0..<4], as: UTF8.self) == "prof" }.map { Array($0.dropFirst(4)) }
    }

    /// The primary item's colr 'nclx' box.
    var nclx: NCLXColorBox? {
        guard let c = primaryProperties("colr").first(where: { $0.count >= 11 && String(decoding: $0[0..<4], as: UTF8.self) == "nclx" }) else { return nil }
        let v = { (k: Int) in Int(c[4 + 2 * k]) << 8 | Int(c[5 + 2 * k]) }
        return NCLXColorBox(primaries: v(0), transfer: v(1), matrix: v(2), fullRange: c[10] & 0x80 != 0)
    }

    struct NCLXColorBox: Equatable { var primaries, transfer, matrix: Int; var fullRange: Bool }

    /// Bits per channel (pixi) of the primary item.
    var bitsPerChannel: [Int]? {
        guard let p = primaryProperties("pixi").first, p.count >= 5 else { return nil }
        return Array(p[5..<min(p.count, 5 + Int(p[4]))]).map(Int.init)
    }

    /// irot's quarter turns (counter-clockwise), imir's mode.
    var rotation: Int? { primaryProperties("irot").first.map { Int($0[0] & 3) } }
    var mirror: Int? { primaryProperties("imir").first.map { Int($0[0] & 1) } }

    /// The payload of the first item of `type` (and content type, for mime items).
    func item(_ type: String, contentType: String = "") -> [UInt8]? {
        guard let id = items.keys.sorted().first(where: { items[$0]!.type == type && items[$0]!.contentType == contentType }) else { return nil }
        return data[id]
    }

    /// The EXIF item's TIFF data (after its 4-byte header offset and what it skips).
    var exif: [UInt8]? {
        guard let e = item("Exif"), e.count >= 4 else { return nil }
        let skip = Int(e[0]) << 24 | Int(e[1]) << 16 | Int(e[2]) << 8 | Int(e[3])
        return 4 + skip <= e.count ? Array(e[(4 + skip)...]) : nil
    }

    var xmp: [UInt8]? { item("mime", contentType: "application/rdf+xml") }

    /// The alpha auxiliary item exists (an item referring to the primary by auxl with the alpha URN).
    var hasAlphaItem: Bool {
        properties.contains { $0.type == "auxC" && String(decoding: $0.body, as: UTF8.self).contains("alpha") }
    }
}
