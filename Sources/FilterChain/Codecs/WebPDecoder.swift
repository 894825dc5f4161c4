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
