import CGIF

/// GIF, declared once: giflib (MIT) through the fc_gif shim, which composites frames as
/// browsers show them and quantises to palettes of its own (median cut, then k-means;
/// ImagesInAndOut.md in the DocC catalog, "Writing a GIF").
enum GIFCodec {
    static let declaration = FormatDeclaration(
        format: .gif, name: "GIF",
        summary: "animations frame by frame (disposal and transparency as browsers show them); 8-bit RGB or RGBA out, 256 colours a frame",
        extensions: ["gif"], mediaType: "image/gif",
        capabilities: FormatCapabilities(
            alpha: true, depths: [.eight], grey: false, metadata: [.icc, .xmp],
            animation: true, maxSide: 65535),
        options: [],
        signature: { FormatDeclaration.starts($0, with: Array("GIF87a".utf8)) || FormatDeclaration.starts($0, with: Array("GIF89a".utf8)) },
        decoder: { input, options in try GIFDecoder(input, options: options, maxFrames: 0) },
        encoder: { output, header, metadata, _ in try GIFStillEncoder(output, header: header, metadata: metadata) },
        frameDecoder: { input, options, maxFrames in try GIFDecoder(input, options: options, maxFrames: maxFrames) },
        frameEncoder: { output, header, metadata, _ in try GIFFrameEncoder(output, header: header, metadata: metadata) })

    /// A GIF's loop block as plays: none plays once, 0 forever, n repeats n more times.
    static func plays(loopBlock: Int32) -> Int { loopBlock < 0 ? 1 : loopBlock == 0 ? 0 : Int(loopBlock) + 1 }
    /// The loop block for `plays`: -1 (none) for once.
    static func loopBlock(plays: Int) -> Int32 { plays == 1 ? -1 : plays == 0 ? 0 : Int32(min(plays - 1, 65535)) }
}

/// giflib through the fc_gif shim. The file is read whole (the bytes, not the pixels) and
/// scanned once without decompressing: the frame count, delays, loop count and damage are
/// known before any pixel memory. Frames are then decoded one at a time onto one canvas.
final class GIFDecoder: WholeFrameDecoder {
    private let handle: CHandle
    private var d: OpaquePointer { handle.pointer }
    private let input: OpenedInput
    let width: Int
    let height: Int
    let format: PixelFormat
    let metadata: ImageMetadata
    let animation: AnimationInfo
    var animationInfo: AnimationInfo? { animation }
    let notices: [String]
    let harmlessDamage: [String]
    let warnings: [String] = []

    init(_ input: OpenedInput, options: DecodeOptions, maxFrames: Int) throws {
        let bytes = try input.bytesInMemory()
        guard let d = fc_gif_decoder_new(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count) else {
            throw CodecError(input.name, .outOfMemory)
        }
        handle = CHandle(d, free: fc_gif_decoder_free)
        self.input = input
        var info = fc_gif_info()
        let status = fc_gif_decoder_open(d, &info, Int32(clamping: maxFrames))
        if status == FC_LIMIT {
            throw CodecError(input.name, .unsupported("an animation of more than \(maxFrames) frames, over the limit (raise maxFrames; 0 for none)"))
        }
        guard status == FC_OK else { throw GIFDecoder.failure(d, status, input.name) }
        width = Int(info.width)
        height = Int(info.height)
        format = PixelFormat(info.channels == 4 ? .rgba : .rgb, .eight)
        let frames = Int(info.frame_count)
        animation = AnimationInfo(delays: (0..<frames).map { Int(fc_gif_decoder_delay(d, Int32($0))) * 10 },
                                  loopCount: GIFCodec.plays(loopBlock: info.loop_count))
        var metadata = ImageMetadata()
        var length = 0
        if let p = fc_gif_decoder_icc(d, &length), length > 0 { metadata.iccProfile = Array(UnsafeBufferPointer(start: p, count: length)) }
        if let p = fc_gif_decoder_xmp(d, &length), length > 0 { metadata.xmp = Array(UnsafeBufferPointer(start: p, count: length)) }
        self.metadata = metadata
        var damage: [String] = []
        if info.truncated != 0 {
            damage.append("the file ends inside frame \(frames + 1) (truncated); the \(frames) frame\(frames == 1 ? "" : "s") before it were read")
        }
        if info.clipped_frames > 0 {
            damage.append("\(info.clipped_frames) frame\(info.clipped_frames == 1 ? " reaches" : "s reach") outside the \(width) x \(height) canvas; the part outside was dropped")
        }
        harmlessDamage = damage
        notices = frames > 1 ? ["an animation of \(frames) frames: only the first frame was read"] : []
        try ImageReader.checkLimit(input.name, width: width, height: height, options: options)
    }

    static func failure(_ d: OpaquePointer, _ status: fc_status, _ name: String) -> CodecError {
        .reading(name, status, message: reportString(fc_gif_decoder_report(d).pointee.message), format: .gif)
    }

    func nextFrame(into destination: UnsafeMutableRawPointer, stride: Int) throws {
        let status = fc_gif_decoder_next(d, destination.assumingMemoryBound(to: UInt8.self), stride)
        if status != FC_OK { throw GIFDecoder.failure(d, status, input.name) }
    }
}

/// A GIF of frames: fc_gif quantises each frame (its changed rectangle) to a palette, the
/// global one when it serves nearly as well, and leaves unchanged pixels transparent.
final class GIFFrameEncoder: FrameEncoder {
    private let output: OutputFile
    private let header: AnimationHeader
    private let encoder: CHandle
    private let metadata: ImageMetadata
    let notes: [String]

    init(_ output: OutputFile, header: AnimationHeader, metadata: ImageMetadata) throws {
        precondition(header.format.depth == .eight && !header.format.channels.isGrey, "GIF frames are 8-bit RGB or RGBA")
        self.output = output
        self.header = header
        var kept = metadata
        kept.exif = nil
        self.metadata = kept
        var notes = metadata.notWritten(in: "GIF")
        if metadata.exif != nil { notes.append("GIF has no place for EXIF; not written") }
        self.notes = notes
        // The shim copies the metadata.
        let made: OpaquePointer? = kept.withEmbedded { embedded in
            var o = fc_gif_encode_options()
            o.width = UInt32(header.width)
            o.height = UInt32(header.height)
            o.loop_count = GIFCodec.loopBlock(plays: header.loopCount)
            o.metadata = embedded
            return fc_gif_encoder_new(&o, output.file)
        }
        guard let made else { throw CodecError(output.name, .outOfMemory) }
        encoder = CHandle(made, free: fc_gif_encoder_free)
    }

    private func failure(_ status: fc_status) -> CodecError {
        .writing(output, status, message: reportString(fc_gif_encoder_report(encoder.pointer).pointee.message), format: .gif)
    }

    func add(_ pixels: UnsafeRawPointer, stride: Int, delay: Int) throws {
        // Hundredths of a second, rounded to the nearest.
        let centiseconds = Int32(min(65535, (delay + 5) / 10))
        let status = fc_gif_encoder_add(encoder.pointer, pixels.assumingMemoryBound(to: UInt8.self), stride,
                                        Int32(header.format.channels.count), centiseconds)
        if status != FC_OK { throw failure(status) }
    }

    func finish() throws {
        let status = fc_gif_encoder_finish(encoder.pointer)
        if status != FC_OK { throw failure(status) }
    }
}

/// A still GIF: one frame, no loop block.
final class GIFStillEncoder: WholeImageEncoder {
    private let frames: GIFFrameEncoder
    let pixels: WholeImageRows
    var notes: [String] { frames.notes }

    init(_ output: OutputFile, header: EncodeHeader, metadata: ImageMetadata) throws {
        frames = try GIFFrameEncoder(output, header: AnimationHeader(width: header.width, height: header.height,
                                                                    format: header.format, loopCount: 1), metadata: metadata)
        pixels = try WholeImageRows(header, file: output.name)
    }

    func finish() throws {
        try frames.add(UnsafeRawPointer(pixels.bytes), stride: pixels.rowBytes, delay: 0)
        try frames.finish()
    }
}
