import CWebP

/// libwebp through the fc_webp shim. libwebp encodes a whole picture, so the rows are
/// gathered (8-bit RGB or RGBA) and encoded at the end; ICC, EXIF and XMP go in through the
/// muxer. What WebP has no place for (comments, text, resolution) is said in a note.
final class WebPEncoder: RowEncoder {
    private let output: OutputFile
    private let header: EncodeHeader
    private let metadata: ImageMetadata
    private let quality: Int
    private let lossless: Bool
    private let effort: Int
    private let alphaQuality: Int
    private var pixels: UnsafeMutableRawBufferPointer
    private let rowBytes: Int
    private var rows = 0
    private(set) var notes: [String] = []

    init(_ output: OutputFile, header: EncodeHeader, metadata: ImageMetadata, quality: Int, lossless: Bool,
         effort: Int, alphaQuality: Int) throws {
        precondition(header.format.depth == .eight && !header.format.channels.isGrey, "WebP rows are 8-bit RGB or RGBA")
        self.output = output
        self.header = header
        self.metadata = metadata
        self.quality = quality
        self.lossless = lossless
        self.effort = effort
        self.alphaQuality = alphaQuality
        rowBytes = header.width * header.format.bytesPerPixel
        pixels = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, rowBytes * header.height), alignment: 16)
        let dropped = metadata.withoutPlaceInBinaryFormats
        if !dropped.isEmpty {
            notes.append("WebP has no place for \(dropped.joined(separator: ", ")); not written")
        }
    }

    deinit { pixels.deallocate() }

    func write(rows source: UnsafeRawPointer, stride: Int, count: Int) throws -> [EncoderJob] {
        for r in 0..<count {
            (pixels.baseAddress! + (rows + r) * rowBytes).copyMemory(from: source + r * stride, byteCount: rowBytes)
        }
        rows += count
        return []
    }

    func flush() throws {}

    func finish() throws {
        let icc = metadata.iccProfile ?? [], exif = metadata.exif ?? [], xmp = metadata.xmp ?? []
        var report = fc_webp_report()
        let status = icc.withUnsafeBufferPointer { i in
            exif.withUnsafeBufferPointer { e in
                xmp.withUnsafeBufferPointer { x in
                    var o = fc_webp_encode_options()
                    o.width = UInt32(header.width)
                    o.height = UInt32(header.height)
                    o.channels = Int32(header.format.channels.count)
                    o.quality = Int32(quality)
                    o.lossless = lossless ? 1 : 0
                    o.method = Int32(effort)
                    o.alpha_quality = Int32(alphaQuality)
                    o.icc = icc.isEmpty ? nil : i.baseAddress
                    o.icc_length = icc.count
                    o.exif = exif.isEmpty ? nil : e.baseAddress
                    o.exif_length = exif.count
                    o.xmp = xmp.isEmpty ? nil : x.baseAddress
                    o.xmp_length = xmp.count
                    return fc_webp_encode(&o, pixels.baseAddress!.assumingMemoryBound(to: UInt8.self), rowBytes,
                                          output.file, &report)
                }
            }
        }
        switch status {
        case FC_WEBP_OK: return
        case FC_WEBP_NO_MEMORY: throw CodecError(output.name, .outOfMemory)
        case FC_WEBP_WRITE_FAILED: throw output.writeError("write error")
        default: throw CodecError(output.name, .writeFailed(reportString(report.message)))
        }
    }
}
