import CWebP

/// libwebp through the fc_webp shim. libwebp encodes a whole picture, so the rows are
/// gathered (8-bit RGB or RGBA) and encoded at the end; ICC, EXIF and XMP go in through the
/// muxer. What WebP has no place for (comments, text, resolution) is said in a note.
final class WebPEncoder: WholeImageEncoder {
    private let output: OutputFile
    private let header: EncodeHeader
    private let metadata: ImageMetadata
    private let quality: Int
    private let lossless: Bool
    private let effort: Int
    private let alphaQuality: Int
    let pixels: WholeImageRows
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
        pixels = try WholeImageRows(header, file: output.name)
        notes += metadata.notWritten(in: "WebP")
    }

    /// The shim's settings for images of `format`, `width` x `height` (the metadata apart).
    static func options(width: Int, height: Int, format: PixelFormat, quality: Int, lossless: Bool, effort: Int,
                        alphaQuality: Int) -> fc_webp_encode_options {
        var o = fc_webp_encode_options()
        o.width = UInt32(width)
        o.height = UInt32(height)
        o.channels = Int32(format.channels.count)
        o.quality = Int32(quality)
        o.lossless = lossless ? 1 : 0
        o.method = Int32(effort)
        o.alpha_quality = Int32(alphaQuality)
        return o
    }

    func finish() throws {
        var report = fc_webp_report()
        let status = metadata.withEmbedded { embedded in
            var o = WebPEncoder.options(width: header.width, height: header.height, format: header.format, quality: quality,
                                        lossless: lossless, effort: effort, alphaQuality: alphaQuality)
            o.metadata = embedded
            return fc_webp_encode(&o, pixels.bytes, pixels.rowBytes, output.file, &report)
        }
        if status != FC_OK { throw CodecError.writing(output, status, message: reportString(report.message), format: .webp) }
    }
}

/// An animated WebP: libwebpmux's WebPAnimEncoder, which encodes each frame against the one
/// before (the smallest rectangle that changed, blended or not, whichever is smaller), then
/// the metadata chunks through the muxer. The frames' encoded data is held until the end
/// (WebPAnimEncoder assembles the file at once); the pixels of one frame at a time.
final class WebPFrameEncoder: FrameEncoder {
    private let output: OutputFile
    private let header: AnimationHeader
    private let metadata: ImageMetadata
    private let animator: CHandle
    let notes: [String]

    init(_ output: OutputFile, header: AnimationHeader, metadata: ImageMetadata, quality: Int, lossless: Bool,
         effort: Int, alphaQuality: Int) throws {
        precondition(header.format.depth == .eight && !header.format.channels.isGrey, "WebP frames are 8-bit RGB or RGBA")
        self.output = output
        self.header = header
        self.metadata = metadata
        notes = metadata.notWritten(in: "WebP")
        var o = WebPEncoder.options(width: header.width, height: header.height, format: header.format, quality: quality,
                                    lossless: lossless, effort: effort, alphaQuality: alphaQuality)
        var report = fc_webp_report()
        guard let a = fc_webp_animator_new(&o, Int32(header.loopCount), &report) else {
            throw CodecError(output.name, .writeFailed(reportString(report.message)))
        }
        animator = CHandle(a, free: fc_webp_animator_free)
    }

    func add(_ pixels: UnsafeRawPointer, stride: Int, delay: Int) throws {
        let status = fc_webp_animator_add(animator.pointer, pixels.assumingMemoryBound(to: UInt8.self), stride, Int32(delay))
        if status != FC_OK { throw CodecError.writing(output, status, message: reportString(fc_webp_animator_report(animator.pointer).pointee.message), format: .webp) }
    }

    func finish() throws {
        let status = metadata.withEmbedded { embedded in
            fc_webp_animator_set_metadata(animator.pointer, embedded)
            return fc_webp_animator_finish(animator.pointer, output.file)
        }
        if status != FC_OK {
            throw CodecError.writing(output, status, message: reportString(fc_webp_animator_report(animator.pointer).pointee.message), format: .webp)
        }
    }
}
