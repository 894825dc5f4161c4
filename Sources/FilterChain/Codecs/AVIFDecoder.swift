import CAVIF

/// libavif through the fc_avif shim: the container is parsed first (its size checked against
/// the pixel limit before any decoding), then the primary image (or a sequence's first frame)
/// is decoded whole and converted to RGB, RGBA, grey or grey+alpha once, 10 and 12 bits to
/// 16; rows are then delivered with the clean aperture, rotation and mirror applied (libavif
/// leaves them to the caller), so the picture is upright as AVIF readers show it. An EXIF
/// Orientation is not applied (HEIF's rule) and is reset to 1 in the kept EXIF and XMP, so
/// that no later reader turns the image again. libavif reads from memory, so the file is read
/// whole first (the bytes, not the pixels).
final class AVIFDecoder: StoredDecoder, FrameDecoder {
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
    /// What the container said (sizes before the transformations, bits, layout).
    let info: fc_avif_info
    /// A sequence's frames and their durations; libavif 0.11 reads no loop count (the
    /// sequence's edit list), so it is taken as forever, as browsers play sequences.
    let animation: AnimationInfo
    var animationInfo: AnimationInfo? { info.image_count > 1 ? animation : nil }

    /// A sequence frame by frame; nil for a still (the still decoder reads it).
    static func frames(_ input: OpenedInput, options: DecodeOptions, maxFrames: Int) throws -> AVIFDecoder? {
        let decoder = try AVIFDecoder(input, options: options)
        guard decoder.info.image_count > 1 else { return nil }
        if maxFrames > 0, Int(decoder.info.image_count) > maxFrames {
            throw CodecError(input.name, .unsupported("an animation of more than \(maxFrames) frames, over the limit (raise maxFrames; 0 for none)"))
        }
        return decoder
    }

    func nextFrame(into destination: UnsafeMutableRawPointer, stride: Int) throws {
        let status = fc_avif_decoder_next_frame(d, destination.assumingMemoryBound(to: UInt8.self), stride)
        if status != FC_OK { throw AVIFDecoder.failure(d, status, input.name) }
    }

    /// How YUV becomes RGB: `fast` (what the tool uses) is libyuv where libavif has it, with
    /// bilinear chroma upsampling; `reference` is libavif's own arithmetic with nearest chroma,
    /// as libheif converts (the conformance references are libheif's).
    enum Conversion { case fast, reference }

    init(_ input: OpenedInput, options: DecodeOptions, conversion: Conversion = .fast) throws {
        try AVIFCodec.declaration.requireLibrary(input.name)
        let bytes = try input.bytesInMemory()
        guard let d = fc_avif_decoder_new(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count,
                                          UInt64(max(0, options.maxPixels)), Int32(clamping: WorkerPool.availableCores),
                                          conversion == .reference ? FC_AVIF_CONVERSION_REFERENCE : FC_AVIF_CONVERSION_FAST) else {
            throw CodecError(input.name, .outOfMemory)
        }
        self.handle = CHandle(d, free: fc_avif_decoder_free)
        self.input = input
        var info = fc_avif_info()
        let status = fc_avif_decoder_open(d, &info)
        guard status == FC_OK else { throw AVIFDecoder.failure(d, status, input.name) }
        self.info = info
        animation = AnimationInfo(delays: (0..<Int(max(1, info.image_count))).map { Int(fc_avif_decoder_duration(d, Int32($0))) },
                                  loopCount: 0)
        width = Int(info.width)
        height = Int(info.height)
        let channels: Channels = switch info.channels {
        case 1: .grey
        case 2: .greyAlpha
        case 3: .rgb
        default: .rgba
        }
        format = PixelFormat(channels, info.sample_bytes == 2 ? .sixteen : .eight)

        var metadata = ImageMetadata()
        var notices: [String] = [], damage: [String] = []
        func item(_ kind: fc_avif_metadata) -> [UInt8]? {
            var length = 0
            guard let p = fc_avif_decoder_metadata(d, kind, &length), length > 0 else { return nil }
            return Array(UnsafeBufferPointer(start: p, count: length))
        }
        metadata.iccProfile = item(FC_AVIF_ICC)
        if var exif = item(FC_AVIF_EXIF) {
            // Some writers keep JPEG's "Exif\0\0" before the TIFF data.
            if exif.starts(with: WebPDecoder.exifPrefix) { exif.removeFirst(WebPDecoder.exifPrefix.count) }
            if Exif.isTIFF(exif) { metadata.exif = Exif.withOrientationReset(exif) } else { damage.append("a damaged EXIF item was dropped") }
        }
        metadata.xmp = item(FC_AVIF_XMP).map(XMP.withOrientationReset)
        if info.has_nclx != 0 {
            metadata.nclx = NCLXColor(colourPrimaries: info.colour_primaries, transferCharacteristics: info.transfer_characteristics,
                                      matrixCoefficients: info.matrix_coefficients, fullRange: info.full_range != 0)
        }
        metadata.contentLightLevel = AVIFContentLight.read(bytes)
        if info.image_count > 1 {
            notices.append("a sequence of \(info.image_count) frames: only the first frame was read")
        }
        if info.clap_invalid != 0 {
            notices.append("the clean aperture (clap) box describes no crop inside the image; the whole image was read")
        }
        self.metadata = metadata
        self.notices = notices
        harmlessDamage = damage
        // The coded size is what is decoded and held.
        try ImageReader.checkLimit(input.name, width: Int(info.stored_width), height: Int(info.stored_height), options: options)
    }

    static func failure(_ d: OpaquePointer, _ status: fc_status, _ name: String) -> CodecError {
        .reading(name, status, message: reportString(fc_avif_decoder_report(d).pointee.message), format: .avif)
    }

    func readRows(into destination: UnsafeMutableRawPointer, stride: Int, rows: Int) throws {
        let status = fc_avif_decoder_read(d, destination.assumingMemoryBound(to: UInt8.self), stride, UInt32(rows))
        if status != FC_OK { throw AVIFDecoder.failure(d, status, input.name) }
    }

    func readWholeImage(into destination: UnsafeMutableRawPointer, stride: Int) throws {
        try readRows(into: destination, stride: stride, rows: height)
    }

    func finish() throws {}
}
