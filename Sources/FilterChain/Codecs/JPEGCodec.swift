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
            EncodeOption("progressive", .boolean, default: false, help: "write progressive JPEG"),
            EncodeOption("chroma", .choice(ChromaSubsampling.allCases.map(\.rawValue)),
                         default: .choice(EncodeOptions.defaultChroma.rawValue),
                         defaultNote: "a JPEG input's own", help: "chroma subsampling"),
        ],
        signature: { FormatDeclaration.starts($0, with: [0xFF, 0xD8, 0xFF]) },
        // A JPEG source's own quality and subsampling are the defaults for JPEG outputs only.
        sourceDefault: { name, source in
            switch name {
            case "quality": source.sourceJPEG?.quality.map(EncodeOptionValue.integer)
            case "chroma": source.sourceJPEG?.chroma.map { .choice($0.rawValue) }
            default: nil
            }
        },
        decoder: { input, options in try JPEGDecoder(input, options: options) },
        encoder: { output, header, metadata, settings in
            try JPEGEncoder(output, header: header, metadata: metadata,
                            quality: settings.integer("quality"), progressive: settings.boolean("progressive"),
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
