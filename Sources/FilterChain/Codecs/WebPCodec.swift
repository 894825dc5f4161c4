/// WebP, declared once: libwebp, libwebpdemux and libwebpmux through the fc_webp shim.
enum WebPCodec {
    /// libwebp's pairs of method and quality for lossless compression (WebPConfigLosslessPreset's
    /// levels 0, 1, 2, 4, 6, 8 and 9), one per effort: effort 4 is cwebp's default (4, 75).
    static let losslessQuality = [0, 20, 25, 50, 75, 90, 100]

    static let declaration = FormatDeclaration(
        format: .webp, name: "WebP",
        summary: "lossy, lossless and alpha; animations frame by frame; 8-bit RGB or RGBA out",
        extensions: ["webp"], mediaType: "image/webp",
        capabilities: FormatCapabilities(
            alpha: true, depths: [.eight], grey: false, metadata: [.icc, .exif, .xmp],
            animation: true, exifOrientation: true, maxSide: 16383),
        options: [
            EncodeOption("quality", .integer(1...100), default: 80, help: "lossy quality, 1 to 100"),
            EncodeOption("lossless", .boolean, default: false,
                         help: "lossless: the decoded pixels are the image given, colour under transparent pixels too"),
            EncodeOption("effort", .integer(0...6), default: 4,
                         help: "compression effort (libwebp's method), 0 (fastest) to 6 (smallest)"),
            EncodeOption("alphaQuality", .integer(0...100), default: 100,
                         help: "quality of the alpha channel, 0 to 100 (100: lossless alpha)"),
        ],
        // "RIFF", the size, "WEBP".
        signature: { FormatDeclaration.starts($0, with: Array("RIFF".utf8)) && FormatDeclaration.starts($0, with: Array("WEBP".utf8), at: 8) },
        check: { settings, _ in
            settings["lossless"]?.boolean == true && settings["quality"] != nil
                ? OptionProblem("{quality} is for lossy WebP; lossless WebP takes {effort}") : nil
        },
        decoder: { input, options in try WebPDecoder(input, options: options) },
        encoder: { output, header, metadata, settings in
            try WebPEncoder(output, header: header, metadata: metadata,
                            quality: settings.boolean("lossless") ? losslessQuality[settings.integer("effort")] : settings.integer("quality"),
                            lossless: settings.boolean("lossless"), effort: settings.integer("effort"),
                            alphaQuality: settings.integer("alphaQuality"))
        },
        frameDecoder: { input, options, maxFrames in try WebPFrameDecoder.open(input, options: options, maxFrames: maxFrames) },
        // An animation is an extended file (VP8X) whose flags byte says ANIM (0x02).
        mayHoldAnimation: { $0.count > 20 && FormatDeclaration.starts($0, with: Array("VP8X".utf8), at: 12) && $0[20] & 0x02 != 0 },
        frameEncoder: { output, header, metadata, settings in
            try WebPFrameEncoder(output, header: header, metadata: metadata,
                                 quality: settings.boolean("lossless") ? losslessQuality[settings.integer("effort")] : settings.integer("quality"),
                                 lossless: settings.boolean("lossless"), effort: settings.integer("effort"),
                                 alphaQuality: settings.integer("alphaQuality"))
        })
}
