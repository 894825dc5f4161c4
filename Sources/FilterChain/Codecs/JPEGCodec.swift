/// JPEG, declared once: libjpeg(-turbo) through the fc_jpeg shim reads and writes it.
enum JPEGCodec {
    static let declaration = FormatDeclaration(
        format: .jpeg, name: "JPEG",
        summary: "grey, YCbCr, RGB, CMYK and YCCK; baseline, progressive and arithmetic; 8-bit grey or RGB out",
        extensions: ["jpg", "jpeg"], mediaType: "image/jpeg",
        capabilities: FormatCapabilities(
            alpha: false, depths: [.eight], grey: true,
            metadata: [.icc, .exif, .xmp, .extendedXMP, .comments, .resolution, .gainMap],
            exifOrientation: true, maxSide: 65500, cmyk: true),
        options: [
            EncodeOption("quality", .integer(1...100), default: .integer(EncodeOptions.defaultQuality),
                         defaultNote: "a JPEG input's own, estimated from its quantisation tables",
                         help: "quality, 1 to 100"),
            EncodeOption("progressive", .boolean, default: false, help: "write progressive JPEG (with Huffman tables optimised for the image)"),
            EncodeOption("tables", .choice(["filterchain", "standard"]), default: "filterchain",
                         defaultNote: "a JPEG input's own kind: standard when its tables are exactly the standard's and the output keeps its 8x8 blocks (its size, nothing turned, flipped or cropped)",
                         help: "quantisation tables: filterchain's (smaller at the same quality), or the JPEG standard's example tables as libjpeg scales them (what most tools write; finer at the lowest frequencies, which smooth images such as HDR gain maps need)"),
            EncodeOption("effort", .integer(0...2), default: 0,
                         help: "0, one streaming pass with Huffman tables trained for filterchain's quantisation; 1, tables optimised for the image (a second pass, every block kept in memory: about 8% smaller, 2.8 times the encoding time); 2, progressive with optimised tables (about 11% smaller, 5.7 times)"),
            EncodeOption("restartInterval", .integer(0...65535), default: 0,
                         help: "a restart marker every this many MCUs (16x16 pixels at 4:2:0, 8x8 at 4:4:4 and grey), so that a decoder can resynchronise after damage or decode parts apart; 0, none (a few bytes smaller)"),
            EncodeOption("chroma", .choice(ChromaSubsampling.allCases.map(\.rawValue)),
                         default: .choice(EncodeOptions.defaultChroma.rawValue),
                         defaultNote: "a JPEG input's own where the output keeps its 8x8 blocks (its size, nothing turned, flipped or cropped)", help: "chroma subsampling"),
            EncodeOption("gainMap", .choice(GainMapChoice.allCases.map(\.rawValue)), default: .choice(GainMapChoice.keep.rawValue),
                         help: "an HDR input's gain map: keep it (Ultra HDR JPEG), drop it (SDR only), or create one from a PQ or HLG input (Ultra HDR JPEG: its tone-mapped SDR image and the map that gives its light back)", about: .gainMap),
            EncodeOption("gainMapQuality", .integer(1...100), default: .integer(GainMapImage.quality),
                         defaultNote: "a map the chain does not move is copied as it is",
                         help: "quality of the gain map's JPEG, 1 to 100", about: .gainMap),
        ],
        signature: { FormatDeclaration.starts($0, with: [0xFF, 0xD8, 0xFF]) },
        // A JPEG source's own quality and subsampling are the defaults for JPEG outputs only.
        sourceDefault: { name, source in
            switch name {
            case "quality": source.sourceJPEG?.quality.map(EncodeOptionValue.integer)
            case "chroma": source.sourceJPEG?.chroma.map { .choice($0.rawValue) }
            case "tables": source.sourceJPEG.flatMap { $0.standardTables ? .choice("standard") : nil }
            default: nil
            }
        },
        decoder: { input, options in try JPEGDecoder(input, options: options) },
        encoder: { output, header, metadata, settings in
            try JPEGEncoder(output, header: header, metadata: metadata,
                            quality: settings.integer("quality"),
                            progressive: settings.boolean("progressive"), effort: settings.integer("effort"),
                            standardTables: settings.choice("tables") == "standard",
                            restartInterval: settings.integer("restartInterval"),
                            chroma: ChromaSubsampling(rawValue: settings.choice("chroma"))!)
        })
}

extension EncodeOptions {
    /// The JPEG quality and chroma subsampling an image with `metadata` is written with:
    /// these options', else the source JPEG's, else 90 and 4:2:0.
    public func jpegSettings(for metadata: ImageMetadata) -> (quality: Int, chroma: ChromaSubsampling) {
        let s = EncodeSettings(declaration: JPEGCodec.declaration, options: self, source: metadata)
        return (s.integer("quality"), ChromaSubsampling(rawValue: s.choice("chroma"))!)
    }
}

/// What an output does with the source's HDR gain map (the `gainMap` option).
public enum GainMapChoice: String, CaseIterable, Sendable {
    /// Written beside the image where the format holds one (Ultra HDR JPEG), moved with it.
    case keep
    /// Left out: the output is the SDR image only.
    case drop
    /// Made from a PQ or HLG source (which has none): its SDR rendition with a map that
    /// gives the HDR back (`GainMapInProgress`); as `keep` for a source with a map.
    case create
}

/// What became of the source's HDR gain map at an output (`RenderResult.gainMaps`).
public enum GainMapOutcome: String, Sendable {
    /// Written beside the image.
    case kept
    /// Left out, as asked or because the output cannot hold it (the notes say which).
    case dropped
    /// Applied: the output is the HDR rendition it makes (`EncodeOptions.hdr`).
    case applied
    /// Made from a PQ or HLG source's light (`GainMapChoice.create`).
    case created
}

extension EncodeOptions {
    /// The `gainMap` setting for an output of `format` (nil: the format holds no map).
    func gainMapChoice(for format: ImageFormat, source: ImageMetadata) -> GainMapChoice? {
        guard format.declaration.option(named: "gainMap") != nil else { return nil }
        return GainMapChoice(rawValue: EncodeSettings(declaration: format.declaration, options: self, source: source).choice("gainMap"))
    }
}
