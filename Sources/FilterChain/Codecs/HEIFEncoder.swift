import CHEIF

/// libheif's HEVC encoder (x265) through the fc_heif shim. libheif encodes a whole image, so
/// the rows are gathered (grey, grey+alpha, RGB or RGBA; 8 bits as 8-bit HEVC, 16 as 10-bit)
/// and encoded at the end. ICC goes in a colr prof box beside an nclx one (the nclx's matrix
/// is the one the RGB is converted with), EXIF and XMP as items. What HEIF has no place for
/// (comments, text, resolution) is said in a note.
final class HEIFEncoder: WholeImageEncoder {
    private let output: OutputFile
    private let header: EncodeHeader
    private let metadata: ImageMetadata
    private let quality: Int
    private let chroma: ChromaSubsampling
    private let effort: Int
    let pixels: WholeImageRows
    private(set) var notes: [String] = []

    init(_ output: OutputFile, header: EncodeHeader, metadata: ImageMetadata, quality: Int, chroma: ChromaSubsampling,
         effort: Int) throws {
        try HEIFCodec.declaration.requireLibrary(output.name)
        self.output = output
        self.header = header
        var metadata = metadata
        notes += metadata.keepTIFFExifOnly()
        self.metadata = metadata
        self.quality = quality
        self.chroma = chroma
        self.effort = effort
        pixels = try WholeImageRows(header, file: output.name)
        notes += metadata.notWritten(in: "HEIF")
    }

    func finish() throws {
        let grey = header.format.channels.isGrey
        let (primaries, transfer, matrix) = AVIFEncoder.colour(source: metadata.nclx, icc: metadata.iccProfile?.isEmpty == false,
                                                               lossless: false, grey: grey)
        var report = fc_heif_report()
        let status = metadata.withEmbedded { embedded in
            var o = fc_heif_encode_options()
            o.width = UInt32(header.width)
            o.height = UInt32(header.height)
            o.channels = Int32(header.format.channels.count)
            o.depth = header.format.depth == .sixteen ? 16 : 8
            o.quality = Int32(quality)
            o.chroma444 = chroma == .yuv444 ? 1 : 0
            o.preset = Int32(effort)
            o.colour_primaries = primaries
            o.transfer_characteristics = transfer
            o.matrix_coefficients = matrix
            o.metadata = embedded
            return fc_heif_encode(&o, pixels.bytes, pixels.rowBytes, output.file, &report)
        }
        var message = reportString(report.message)
        if message.contains("Invalid image size") {
            // x265 refuses pictures that HEVC's levels cannot hold (over about 8,192 pixels
            // wide for a picture a few rows high, or over 16,888 on a side), and its placebo
            // preset (effort 9) pictures smaller than 64 x 64.
            message = "x265 cannot encode a \(header.width) x \(header.height) picture at effort \(effort) (HEVC's size limits"
                + (effort == 9 ? "; effort 9 needs 64 x 64 or more" : "") + ")"
        }
        if status != FC_OK { throw CodecError.writing(output, status, message: message, format: .heif) }
    }
}
