/// PNG, declared once: libpng through the fc_png shim reads it, PNGEncoder writes it.
enum PNGCodec {
    static let declaration = FormatDeclaration(
        format: .png, name: "PNG",
        summary: "every colour type and depth (1 to 16 bits, palette, tRNS, Adam7); 8 or 16 bits out, alpha and grey kept",
        extensions: ["png"], mediaType: "image/png",
        capabilities: FormatCapabilities(
            alpha: true, depths: [.eight, .sixteen], grey: true,
            metadata: [.icc, .exif, .xmp, .comments, .resolution, .text, .time, .colourChunks], hdr: .cicp),
        options: [
            // Level 2 by default: with each row filtered, smaller than libvips's and sharp's
            // default PNGs (level 6, rows unfiltered) on photographs, in about 70% of level
            // 6's time (ImagesInAndOut.md in the DocC catalog).
            EncodeOption("compression", .integer(0...9), default: 2,
                         help: "zlib level, 0 (none) to 9 (smallest); the default 2 is fast with files smaller than unfiltered level 6; levels 3-6 cut the match search to 16 candidates (about 6% larger than zlib's own, twice as fast on photographs)"),
        ],
        signature: { FormatDeclaration.starts($0, with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) },
        decoder: { input, options in try PNGDecoder(input, options: options) },
        encoder: { output, header, metadata, settings in
            try PNGEncoder(output, header: header, metadata: metadata, level: settings.integer("compression"))
        })
}
