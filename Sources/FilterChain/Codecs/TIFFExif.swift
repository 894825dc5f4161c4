/// Where EXIF goes in a TIFF file and where it comes from. JPEG, PNG and WebP hold EXIF as one
/// block (a TIFF structure of its own); a TIFF file holds the same tags in place: the
/// descriptive ones (Make, Model, DateTime, ...) in its own IFD0, the rest in an Exif
/// sub-IFD (tag 34665) and a GPS sub-IFD (34853), with the Interoperability IFD under the Exif
/// IFD. Reading gathers them into EXIF data; writing spreads EXIF data over them.
enum TIFFExif {
    /// IFD0's descriptive text tags, which EXIF's IFD0 and a TIFF's IFD0 share:
    /// DocumentName, ImageDescription, Make, Model, PageName, Software, DateTime, Artist,
    /// HostComputer, Copyright.
    static let textTags: [UInt16] = [269, 270, 271, 272, 285, 305, 306, 315, 316, 33432]
    static let orientationTag: UInt16 = 274
    /// XResolution, YResolution, ResolutionUnit.
    static let resolutionTags: [UInt16] = [282, 283, 296]
    /// EXIF IFD0 tags that describe a JPEG's compressed data, not the picture
    /// (YCbCrPositioning): nothing to keep in a TIFF of RGB samples.
    static let compressionTags: [UInt16] = [531]

    // MARK: Reading

    /// EXIF data from a TIFF file's IFD0: its descriptive text tags, its Orientation, and its
    /// Exif and GPS sub-IFDs; nil when it has none of the text tags or sub-IFDs.
    static func exifData(fromTIFF bytes: some TIFFBytes) -> [UInt8]? {
        let wanted = Set(textTags + [orientationTag, TIFFDirectory.exifPointer, TIFFDirectory.gpsPointer])
        guard let (layout, first) = TIFFDirectory.header(bytes),
              let ifd0 = TIFFDirectory(bytes, at: first, layout: layout, keeping: wanted.contains)
        else { return nil }
        let entries = ifd0.entries.filter { e in
            (textTags.contains(e.tag) && e.type == 2) || (e.tag == orientationTag && e.type == 3 && e.count == 1)
                || e.directory != nil
        }
        guard entries.contains(where: { $0.tag != orientationTag }) else { return nil }
        return TIFFDirectory(entries: entries).exifData
    }

    /// A TIFF file's resolution (XResolution, YResolution, ResolutionUnit: none, inch by
    /// default, or centimetre), the rationals as stored.
    static func resolution(fromTIFF bytes: some TIFFBytes) -> Resolution? {
        guard let (layout, first) = TIFFDirectory.header(bytes),
              let ifd0 = TIFFDirectory(bytes, at: first, layout: layout, keeping: Set(resolutionTags).contains)
        else { return nil }
        return resolution(in: ifd0)
    }

    /// The resolution an IFD's XResolution, YResolution and ResolutionUnit give. libtiff keeps
    /// them as 32-bit floats and writes a float's exact fraction (28.35 as 14863565/524288):
    /// a value that is exactly a float is taken as the shortest decimal of that float.
    static func resolution(in ifd: TIFFDirectory) -> Resolution? {
        func decimal(_ v: Double) -> Double {
            let f = Float(v)
            return Double(f) == v ? Double("\(f)") ?? v : v
        }
        guard let x = rational(ifd[282]).map(decimal), let y = rational(ifd[283]).map(decimal), x > 0, y > 0 else { return nil }
        let unit: Resolution.Unit = switch ifd.integer(296) ?? 2 {
        case 1: .aspectRatio
        case 3: .perCentimetre
        default: .perInch
        }
        return Resolution(x: x, y: y, unit: unit)
    }

    // MARK: Writing

    /// EXIF data spread over a TIFF file.
    struct Placement {
        /// IFD0 text tags, as stored (up to their first NUL).
        var texts: [(tag: UInt16, bytes: [UInt8])] = []
        /// The Orientation (1 once the pixels were turned upright).
        var orientation: Int?
        /// XResolution, YResolution and ResolutionUnit, for a TIFF whose image has no
        /// resolution of its own.
        var resolution: Resolution?
        var exif: TIFFDirectory?
        var gps: TIFFDirectory?
        /// IFD0 tags with no place in a TIFF's IFD0 (not written).
        var dropped: [UInt16] = []
    }

    /// Where the tags of `exif` go; nil when it is not EXIF data (a TIFF structure).
    static func placement(of exif: [UInt8]) -> Placement? {
        guard let ifd0 = TIFFDirectory(exif: exif) else { return nil }
        var p = Placement()
        for e in ifd0.entries {
            switch e.tag {
            case _ where textTags.contains(e.tag) && e.type == 2:
                p.texts.append((e.tag, Array(e.value.prefix { $0 != 0 })))
            case orientationTag:
                if let v = ifd0.integer(orientationTag), (1...8).contains(v) { p.orientation = v }
            case TIFFDirectory.exifPointer: p.exif = e.directory
            case TIFFDirectory.gpsPointer: p.gps = e.directory
            case _ where resolutionTags.contains(e.tag) || compressionTags.contains(e.tag): break
            default: p.dropped.append(e.tag)
            }
        }
        p.resolution = resolution(in: ifd0)
        return p
    }

    /// A RATIONAL entry's value.
    static func rational(_ e: TIFFDirectory.Entry?) -> Double? {
        guard let e, e.type == 5, e.count >= 1 else { return nil }
        let v = e.value.prefix(8).enumerated().reduce(into: [UInt64](repeating: 0, count: 2)) { r, b in
            r[b.offset / 4] |= UInt64(b.element) << (8 * UInt64(b.offset % 4))
        }
        return v[1] == 0 ? nil : Double(v[0]) / Double(v[1])
    }
}
