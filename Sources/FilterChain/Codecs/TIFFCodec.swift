import CTIFF

/// TIFF, declared once: libtiff through the fc_tiff shim reads and writes it.
enum TIFFCodec {
    static let declaration = FormatDeclaration(
        format: .tiff, name: "TIFF",
        summary: "grey, grey+alpha, RGB, RGBA, palette and CMYK, 1 to 16 bits, strips or tiles, none/LZW/deflate/PackBits/JPEG/zstd/CCITT; the first page; written as 8 or 16 bits or float (a float image), deflate by default",
        extensions: ["tif", "tiff"], mediaType: "image/tiff",
        capabilities: FormatCapabilities(
            alpha: true, depths: [.eight, .sixteen, .float32], grey: true, metadata: [.icc, .exif, .xmp, .resolution],
            exifOrientation: true, cmyk: true),
        options: [
            EncodeOption("tiffCompression", .choice(TIFFEncoder.Compression.allCases.map(\.rawValue)), default: "deflate",
                         help: "how the strips are compressed: none; lzw, deflate or zstd (lossless, with the horizontal predictor); jpeg (lossy, 8 bits only)"),
            // Deflate's level: PNG's option of the same name, so --compression means one thing.
            EncodeOption("compression", .integer(0...9), default: 6, defaultNote: "1 for 16-bit samples",
                         help: "level of --tiff-compression deflate, 0 (stored) to 9 (smallest); at 16 bits level 1 is within 2.5% of 6's size in a third to half the time"),
            // JPEG compression's quality and chroma mean what they mean for a .jpg output, with
            // the same defaults: a JPEG input's own, else 90 and 4:2:0.
            EncodeOption("quality", .integer(1...100), default: .integer(EncodeOptions.defaultQuality),
                         defaultNote: "a JPEG input's own, estimated from its quantisation tables",
                         help: "quality of --tiff-compression jpeg, 1 to 100, as for JPEG output"),
            EncodeOption("chroma", .choice(ChromaSubsampling.allCases.map(\.rawValue)),
                         default: .choice(EncodeOptions.defaultChroma.rawValue),
                         defaultNote: "a JPEG input's own where the output keeps its 8x8 blocks",
                         help: "chroma subsampling of --tiff-compression jpeg (RGB is stored as YCbCr), as for JPEG output"),
        ],
        // Classic TIFF (version 42) and BigTIFF (43, 64-bit offsets), little- or big-endian:
        // "II*\0", "MM\0*", "II+\0", "MM\0+".
        signature: {
            FormatDeclaration.starts($0, with: [0x49, 0x49, 0x2A, 0x00]) || FormatDeclaration.starts($0, with: [0x4D, 0x4D, 0x00, 0x2A])
                || FormatDeclaration.starts($0, with: [0x49, 0x49, 0x2B, 0x00]) || FormatDeclaration.starts($0, with: [0x4D, 0x4D, 0x00, 0x2B])
        },
        // As JPEG's: a JPEG source's own quality and subsampling are the defaults.
        sourceDefault: { name, source in
            switch name {
            case "quality": source.sourceJPEG?.quality.map(EncodeOptionValue.integer)
            case "chroma": source.sourceJPEG?.chroma.map { .choice($0.rawValue) }
            default: nil
            }
        },
        check: { settings, depth in
            let jpeg = settings["tiffCompression"]?.choice == TIFFEncoder.Compression.jpeg.rawValue
            if !jpeg && settings["quality"] != nil {
                return OptionProblem("{quality} is for TIFF's jpeg compression ({tiffCompression jpeg}); the others are lossless")
            }
            if !jpeg && settings["chroma"] != nil {
                return OptionProblem("{chroma} is for TIFF's jpeg compression ({tiffCompression jpeg}); the others keep every sample")
            }
            let deflate = (settings["tiffCompression"]?.choice ?? TIFFEncoder.Compression.deflate.rawValue) == TIFFEncoder.Compression.deflate.rawValue
            if !deflate && settings["compression"] != nil {
                return OptionProblem("{compression} is the level of TIFF's deflate compression ({tiffCompression deflate})")
            }
            if jpeg && depth == .sixteen {
                return OptionProblem("{tiffCompression jpeg} holds 8-bit samples only, and this output is 16-bit: add {depth 8}, or choose another {tiffCompression}")
            }
            return nil
        },
        decoder: { input, options in try TIFFDecoder(input, options: options) },
        encoder: { output, header, metadata, settings in
            try TIFFEncoder(output, header: header, metadata: metadata,
                            compression: TIFFEncoder.Compression(rawValue: settings.choice("tiffCompression"))!,
                            quality: settings.integer("quality"),
                            chroma: ChromaSubsampling(rawValue: settings.choice("chroma"))!,
                            level: settings.options.settings["compression"]?.integer)
        },
        library: { fc_tiff_library_error().map { String(cString: $0) } })
}
