/// TIFF, declared once: libtiff through the fc_tiff shim reads it (writing is not done yet).
enum TIFFCodec {
    static let declaration = FormatDeclaration(
        format: .tiff, name: "TIFF",
        summary: "grey, grey+alpha, RGB, RGBA, palette and CMYK, 1 to 16 bits, strips or tiles, none/LZW/deflate/PackBits/JPEG/zstd/CCITT; the first page",
        extensions: ["tif", "tiff"], mediaType: "image/tiff",
        capabilities: FormatCapabilities(
            alpha: true, depths: [.eight, .sixteen], grey: true, metadata: [.icc, .exif, .xmp],
            exifOrientation: true),
        options: [],
        // Classic TIFF, little- or big-endian ("II*\0", "MM\0*").
        signature: {
            FormatDeclaration.starts($0, with: [0x49, 0x49, 0x2A, 0x00]) || FormatDeclaration.starts($0, with: [0x4D, 0x4D, 0x00, 0x2A])
        },
        decoder: { input, options in try TIFFDecoder(input, options: options) },
        encoder: nil)
}
