import CWebP

/// libwebp through the fc_webp shim: the container is checked and its ICCP, EXIF and XMP
/// chunks read by the demuxer; a still is decoded incrementally (WebPIDecoder), fed only as
/// much of the file as the rows asked for need; an animation gives its first frame on the
/// canvas, with a notice. libwebp parses the container in memory, so a file is read whole
/// first (the bytes, not the pixels: the size limit is checked before any pixel memory).
final class WebPDecoder: StoredDecoder {
    private let handle: CHandle
    private var d: OpaquePointer { handle.pointer }
    private let input: OpenedInput
    let width: Int
    let height: Int
    let format: PixelFormat
    let metadata: ImageMetadata
    let readsWholeImageOnly = false
    let notices: [String]
    let harmlessDamage: [String]
    let warnings: [String] = []
    /// An animation's frames, delays and loop count (nil for a still).
    let animation: AnimationInfo?
    var animationInfo: AnimationInfo? { animation }

    init(_ input: OpenedInput, options: DecodeOptions) throws {
        let bytes = try input.bytesInMemory()
        guard let d = fc_webp_decoder_new(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count) else {
            throw CodecError(input.name, .outOfMemory)
        }
        self.handle = CHandle(d, free: fc_webp_decoder_free)
        self.input = input
        var info = fc_webp_info()
        let status = fc_webp_decoder_open(d, &info)
        guard status == FC_OK else { throw WebPDecoder.failure(d, status, input.name) }
        width = Int(info.width)
        height = Int(info.height)
        format = PixelFormat(info.channels == 4 ? .rgba : .rgb, .eight)
        var metadata = ImageMetadata()
        func chunk(_ fourcc: String) -> [UInt8]? {
            var length = 0
            guard let p = fc_webp_decoder_chunk(d, fourcc, &length), length > 0 else { return nil }
            return Array(UnsafeBufferPointer(start: p, count: length))
        }
        var notices: [String] = [], damage: [String] = []
        metadata.iccProfile = chunk("ICCP")
        if var exif = chunk("EXIF") {
            // Some writers keep JPEG's "Exif\0\0" before the TIFF data.
            if exif.starts(with: WebPDecoder.exifPrefix) { exif.removeFirst(WebPDecoder.exifPrefix.count) }
            if Exif.isTIFF(exif) { metadata.exif = exif } else { damage.append("a damaged EXIF chunk was dropped") }
        }
        metadata.xmp = chunk("XMP ")
        animation = info.animated == 0 ? nil : AnimationInfo(
            delays: (0..<Int(info.frame_count)).map { Int(fc_webp_decoder_duration(d, Int32($0))) },
            loopCount: Int(fc_webp_decoder_loop_count(d)))
        if info.animated != 0 {
            notices.append("an animation of \(info.frame_count) frame\(info.frame_count == 1 ? "" : "s"): only the first frame was read")
        }
        self.metadata = metadata
        self.notices = notices
        harmlessDamage = damage
        try ImageReader.checkLimit(input.name, width: width, height: height, options: options)
    }

    static let exifPrefix: [UInt8] = Array("Exif".utf8) + [0, 0]

    static func failure(_ d: OpaquePointer, _ status: fc_status, _ name: String) -> CodecError {
        .reading(name, status, message: reportString(fc_webp_decoder_report(d).pointee.message), format: .webp)
    }

    func readRows(into destination: UnsafeMutableRawPointer, stride: Int, rows: Int) throws {
        let status = fc_webp_decoder_read(d, destination.assumingMemoryBound(to: UInt8.self), stride, UInt32(rows))
        if status != FC_OK { throw WebPDecoder.failure(d, status, input.name) }
    }

    func readWholeImage(into destination: UnsafeMutableRawPointer, stride: Int) throws {
        try readRows(into: destination, stride: stride, rows: height)
    }

    func finish() throws {
        let status = fc_webp_decoder_finish(d)
        if status != FC_OK { throw WebPDecoder.failure(d, status, input.name) }
    }
}

/// An animated WebP frame by frame, through libwebpdemux's animation decoder (blending and
/// disposal as browsers apply them): each frame the whole canvas, RGBA.
final class WebPFrameDecoder: FrameDecoder {
    private let handle: CHandle
    private var d: OpaquePointer { handle.pointer }
    private let input: OpenedInput
    let width: Int
    let height: Int
    let format = PixelFormat(.rgba, .eight)
    let metadata: ImageMetadata
    let animation: AnimationInfo
    let harmlessDamage: [String]

    /// Nil for a still WebP (the still decoder reads it).
    static func open(_ input: OpenedInput, options: DecodeOptions, maxFrames: Int) throws -> WebPFrameDecoder? {
        let still = try WebPDecoder(input, options: options)
        guard still.animation != nil else { return nil }
        return try WebPFrameDecoder(input, options: options, maxFrames: maxFrames, metadata: still.metadata, damage: still.harmlessDamage)
    }

    private init(_ input: OpenedInput, options: DecodeOptions, maxFrames: Int, metadata: ImageMetadata, damage: [String]) throws {
        let bytes = try input.bytesInMemory()
        guard let d = fc_webp_decoder_new(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count) else {
            throw CodecError(input.name, .outOfMemory)
        }
        handle = CHandle(d, free: fc_webp_decoder_free)
        self.input = input
        var info = fc_webp_info()
        let status = fc_webp_decoder_open(d, &info)
        guard status == FC_OK else { throw WebPDecoder.failure(d, status, input.name) }
        width = Int(info.width)
        height = Int(info.height)
        let frames = Int(info.frame_count)
        if maxFrames > 0, frames > maxFrames {
            throw CodecError(input.name, .unsupported("an animation of more than \(maxFrames) frames, over the limit (raise maxFrames; 0 for none)"))
        }
        animation = AnimationInfo(delays: (0..<frames).map { Int(fc_webp_decoder_duration(d, Int32($0))) },
                                  loopCount: Int(fc_webp_decoder_loop_count(d)))
        self.metadata = metadata
        harmlessDamage = damage
    }

    func nextFrame(into destination: UnsafeMutableRawPointer, stride: Int) throws {
        let status = fc_webp_decoder_next_frame(d, destination.assumingMemoryBound(to: UInt8.self), stride)
        if status != FC_OK { throw WebPDecoder.failure(d, status, input.name) }
    }
}
