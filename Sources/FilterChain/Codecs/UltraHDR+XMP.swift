/// Ultra HDR version 1's XMP, written beside ISO 21496-1's metadata as libultrahdr 1.x does,
/// for the readers that know only it (Android 14 and older viewers): the map's values as
/// `hdrgm:` attributes in the map's own XMP, and in the primary's XMP `hdrgm:Version` with a
/// Google container directory that gives the map's length.
extension UltraHDR {
    static let hdrgmNamespace = "http://ns.adobe.com/hdr-gain-map/1.0/"

    /// The map's JPEG with an XMP packet of its metadata put after SOI, when it has ISO
    /// 21496-1 metadata and no XMP of its own; otherwise as it is (an Ultra HDR v1 map has
    /// its XMP already; Apple's maps keep Apple's).
    static func withHDRGM(_ image: GainMapImage) -> GainMapImage {
        guard image.map.source == .iso21496, image.jpeg.starts(with: [0xff, 0xd8]),
              JPEGSegments(image.jpeg, from: 0).payload(app: 0xe1, prefix: XMP.jpegPrefix) == nil else { return image }
        let payload = XMP.jpegPrefix + hdrgmPacket(image.map)
        guard payload.count <= 65533 else { return image }
        let segment: [UInt8] = [0xff, 0xe1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xff)] + payload
        var out = image
        out.jpeg.insert(contentsOf: segment, at: 2)
        out.map.byteCount = out.jpeg.count
        return out
    }

    /// The map's metadata as Ultra HDR v1 writes it: log2 values for the gains and the
    /// capacity, one value or a sequence of three where the channels differ.
    static func hdrgmPacket(_ m: GainMap) -> [UInt8] {
        var attributes = #" hdrgm:Version="1.0""#
        var elements = ""
        // Six decimals, as few digits as that takes ("5.622446", "0", "1").
        func number(_ v: Double) -> String {
            let r = (v * 1e6).rounded() / 1e6
            if r == r.rounded(), abs(r) < 1e15 { return String(Int(r)) }
            return "\(r)"
        }
        func put(_ name: String, _ values: [Double]) {
            if Set(values).count == 1 || m.channels == 1 {
                attributes += " hdrgm:\(name)=\"\(number(values[0]))\""
            } else {
                elements += "<hdrgm:\(name)><rdf:Seq>" + values.map { "<rdf:li>\(number($0))</rdf:li>" }.joined() + "</rdf:Seq></hdrgm:\(name)>"
            }
        }
        put("GainMapMin", m.gainMapMin)
        put("GainMapMax", m.gainMapMax)
        put("Gamma", m.gamma)
        put("OffsetSDR", m.baseOffset)
        put("OffsetHDR", m.alternateOffset)
        attributes += " hdrgm:HDRCapacityMin=\"\(number(m.baseHeadroom))\" hdrgm:HDRCapacityMax=\"\(number(m.alternateHeadroom))\""
        attributes += " hdrgm:BaseRenditionIsHDR=\"\(m.baseIsHDR ? "True" : "False")\""
        let description = #"<rdf:Description rdf:about="" xmlns:hdrgm=""# + hdrgmNamespace + "\"" + attributes
            + (elements.isEmpty ? "/>" : ">" + elements + "</rdf:Description>")
        return Array(packet(description).utf8)
    }

    /// The primary's directory: hdrgm:Version and the two items, the map's `length` given.
    static func primaryDescription(mapLength length: Int) -> String {
        #"<rdf:Description rdf:about="" xmlns:hdrgm=""# + hdrgmNamespace + "\""
            + #" xmlns:Container="http://ns.google.com/photos/1.0/container/" xmlns:Item="http://ns.google.com/photos/1.0/container/item/""#
            + #" hdrgm:Version="1.0"><Container:Directory><rdf:Seq>"#
            + #"<rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="Primary" Item:Mime="image/jpeg"/></rdf:li>"#
            + #"<rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="GainMap" Item:Mime="image/jpeg" Item:Length=""#
            + String(length) + #""/></rdf:li></rdf:Seq></Container:Directory></rdf:Description>"#
    }

    static func packet(_ description: String) -> String {
        #"<x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="filterchain"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">"#
            + description + "</rdf:RDF></x:xmpmeta>"
    }

    /// Whether a map's JPEG has Ultra HDR v1 (hdrgm) metadata in its XMP.
    static func hasHDRGM(_ jpeg: [UInt8]) -> Bool {
        guard let xmp = JPEGSegments(jpeg, from: 0).payload(app: 0xe1, prefix: XMP.jpegPrefix) else { return false }
        return XMP.find(Array(hdrgmNamespace.utf8), in: xmp.bytes, from: 0) != nil
    }

    /// The primary's XMP for a map of `length` bytes: a directory it has made true
    /// (`XMP.withGainMapDirectory`); with `addingDirectory` (the map has Ultra HDR v1
    /// metadata), one added where it has none, as a description of its own (a new packet when
    /// there was none). A packet without `</rdf:RDF>` gets none.
    static func primaryXMP(_ xmp: [UInt8]?, mapLength: Int, addingDirectory: Bool) -> [UInt8]? {
        if let xmp, XMP.find(Array("hdrgm:Version".utf8), in: xmp, from: 0) != nil {
            return XMP.withGainMapDirectory(xmp, mapLength: mapLength)
        }
        guard addingDirectory else { return xmp }
        guard let xmp else { return Array(packet(primaryDescription(mapLength: mapLength)).utf8) }
        guard let end = XMP.lastIndex(of: Array("</rdf:RDF>".utf8), in: xmp, before: xmp.count) else { return xmp }
        var out = xmp
        out.insert(contentsOf: Array(primaryDescription(mapLength: mapLength).utf8), at: end)
        return out
    }
}
