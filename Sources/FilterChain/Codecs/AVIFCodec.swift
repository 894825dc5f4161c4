import CAVIF

/// AVIF, declared once: libavif (the reference implementation; AV1 through libaom to write,
/// dav1d or libaom to read) through the fc_avif shim.
enum AVIFCodec {
    static let declaration = FormatDeclaration(
        format: .avif, name: "AVIF",
        summary: "8, 10 and 12 bits, 4:4:4/4:2:2/4:2:0/4:0:0, alpha; clap, irot and imir applied; sequences frame by frame; 8 or 10 bits out (10 for 16-bit images)",
        extensions: ["avif"], mediaType: "image/avif",
        capabilities: FormatCapabilities(
            alpha: true, depths: [.eight, .sixteen], grey: true, metadata: [.icc, .exif, .xmp, .nclx],
            // irot/imir are applied by the decoder itself; an EXIF Orientation is not (HEIF's rule).
            animation: true, exifOrientation: false, maxSide: AVIFCodec.maxSide, hdr: .nclx),
        options: [
            EncodeOption("quality", .integer(0...100), default: 50,
                         help: "quality, 0 to 100 (100: lossless, with 4:4:4); libavif's quantizer (100 - quality) * 63 / 100"),
            EncodeOption("effort", .integer(0...9), default: 4,
                         help: "compression effort, 0 (fastest) to 9 (smallest): libavif's speed 9 - effort"),
            EncodeOption("chroma", .choice([ChromaSubsampling.yuv420.rawValue, ChromaSubsampling.yuv444.rawValue]),
                         default: .choice(ChromaSubsampling.yuv444.rawValue), help: "chroma subsampling"),
            EncodeOption("alphaQuality", .integer(0...100), default: 100,
                         help: "quality of the alpha channel, 0 to 100 (100: lossless alpha)"),
        ],
        signature: isAVIF,
        check: { settings, _ in
            settings["quality"]?.integer == 100 && settings["chroma"]?.choice == ChromaSubsampling.yuv420.rawValue
                ? OptionProblem("{quality 100} is lossless AVIF, which needs {chroma 4:4:4} (the default)") : nil
        },
        decoder: { input, options in try AVIFDecoder(input, options: options) },
        encoder: { output, header, metadata, settings in
            try AVIFEncoder(output, header: header, metadata: metadata,
                            quality: settings.integer("quality"), effort: settings.integer("effort"),
                            chroma: ChromaSubsampling(rawValue: settings.choice("chroma"))!,
                            alphaQuality: settings.integer("alphaQuality"))
        },
        library: { fc_avif_library_error().map { String(cString: $0) } },
        frameDecoder: { input, options, maxFrames in try AVIFDecoder.frames(input, options: options, maxFrames: maxFrames) },
        // A sequence names the brand avis (as major or compatible brand).
        mayHoldAnimation: { HEIFCodec.ftypBrands($0)?.contains("avis") ?? true },
        frameEncoder: { output, header, metadata, settings in
            try AVIFFrameEncoder(output, header: header, metadata: metadata,
                                 quality: settings.integer("quality"), effort: settings.integer("effort"),
                                 chroma: ChromaSubsampling(rawValue: settings.choice("chroma"))!,
                                 alphaQuality: settings.integer("alphaQuality"))
        })

    /// AV1's largest frame side (16 bits for the width and height minus one).
    static let maxSide = 65536

    /// An ISO base media file whose `ftyp` box names the brand `avif` (still image) or `avis`
    /// (sequence), as major or compatible brand, within the bytes seen. Everything else of
    /// the family (heic, mif1 without avif, ...) is HEIF's.
    static func isAVIF(_ prefix: [UInt8]) -> Bool {
        guard prefix.count >= 12, FormatDeclaration.starts(prefix, with: Array("ftyp".utf8), at: 4) else { return false }
        let size = Int(prefix[0]) << 24 | Int(prefix[1]) << 16 | Int(prefix[2]) << 8 | Int(prefix[3])
        // Major brand, minor version, then compatible brands up to the box's end.
        var offsets = [8]
        if size >= 16 { offsets += Array(stride(from: 16, to: min(size, prefix.count) - 3, by: 4)) }
        return offsets.contains { at in
            FormatDeclaration.starts(prefix, with: Array("avif".utf8), at: at) || FormatDeclaration.starts(prefix, with: Array("avis".utf8), at: at)
        }
    }
}
