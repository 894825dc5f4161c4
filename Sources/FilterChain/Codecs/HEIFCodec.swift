import CHEIF

/// HEIF (HEIC), declared once: libheif through the fc_heif shim reads it (with libde265) and
/// writes it (HEVC by libheif's x265 plugin).
enum HEIFCodec {
    static let declaration = FormatDeclaration(
        format: .heif, name: "HEIF",
        summary: "HEIC: the primary image, 8 to 16 bits, alpha, grey, grids; clap, irot and imir applied (AV1 in a HEIF without the avif brand is refused: AVIF is read by libavif); HEVC out, 8 or 10 bits (10 for 16-bit images)",
        extensions: ["heic", "heif"], mediaType: "image/heic",
        capabilities: FormatCapabilities(
            alpha: true, depths: [.eight, .sixteen], grey: true, metadata: [.icc, .exif, .xmp, .nclx]),
        options: [
            EncodeOption("quality", .integer(0...100), default: 50,
                         help: "quality, 0 to 100: libheif's lossy quality for x265"),
            EncodeOption("chroma", .choice([ChromaSubsampling.yuv420.rawValue, ChromaSubsampling.yuv444.rawValue]),
                         default: .choice(ChromaSubsampling.yuv420.rawValue), help: "chroma subsampling"),
            EncodeOption("effort", .integer(0...9), default: .integer(HEIFCodec.defaultEffort),
                         help: "compression effort, 0 (fastest) to 9 (smallest): x265's presets ultrafast to placebo"),
        ],
        signature: { isHEIF(ftypBrands($0)) },
        decoder: { input, options in try HEIFDecoder(input, options: options) },
        encoder: { output, header, metadata, settings in
            try HEIFEncoder(output, header: header, metadata: metadata, quality: settings.integer("quality"),
                            chroma: ChromaSubsampling(rawValue: settings.choice("chroma"))!, effort: settings.integer("effort"))
        },
        library: { fc_heif_library_error().map { String(cString: $0) } })

    /// x265's preset "medium" (its own default; libheif's is "slow").
    static let defaultEffort = 5

    /// The brands an HEIF reader takes (ISO/IEC 23008-12: image items, image sequences, and
    /// their HEVC variants).
    static let brands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"]
    /// The brands that make a file AVIF, which the AVIF codec reads (libavif), whatever else it says.
    static let avifBrands: Set<String> = ["avif", "avis"]

    /// A file whose ftyp names an HEIF brand as major or compatible brand, and neither AVIF brand.
    static func isHEIF(_ brands: [String]?) -> Bool {
        guard let brands else { return false }
        return !brands.contains(where: avifBrands.contains) && brands.contains(where: self.brands.contains)
    }

    /// The major and compatible brands of an ISO base media file's leading ftyp box, as far
    /// as `prefix` holds them; nil when it does not start with one.
    static func ftypBrands(_ prefix: [UInt8]) -> [String]? {
        guard prefix.count >= 12, FormatDeclaration.starts(prefix, with: Array("ftyp".utf8), at: 4) else { return nil }
        let size = Int(prefix[0]) << 24 | Int(prefix[1]) << 16 | Int(prefix[2]) << 8 | Int(prefix[3])
        // size 1 is a 64-bit size after the type (never for an ftyp in practice), 0 "to the end".
        let end = size >= 16 ? min(size, prefix.count) : (size == 0 ? prefix.count : 12)
        var brands = [String(decoding: prefix[8..<12], as: UTF8.self)]
        var at = 16
        while at + 4 <= end {
            brands.append(String(decoding: prefix[at..<at + 4], as: UTF8.self))
            at += 4
        }
        return brands
    }
}
