import CJPEG

/// libjpeg(-turbo) through the fc_jpeg shim.
final class JPEGDecoder: StoredDecoder {
    private let handle: CHandle
    private var d: OpaquePointer { handle.pointer }
    private let input: OpenedInput
    let width: Int
    let height: Int
    let format: PixelFormat
    let metadata: ImageMetadata
    let readsWholeImageOnly = false

    init(_ input: OpenedInput, options: DecodeOptions) throws {
        guard let d = fc_jpeg_decoder_new(options.lenient ? 0 : 1) else {
            throw CodecError(input.name, .outOfMemory)
        }
        self.handle = CHandle(d, free: fc_jpeg_decoder_free)
        self.input = input
        var header = fc_jpeg_header()
        let status = fc_jpeg_decoder_open(d, input.file, input.memoryBase, input.memoryCount, &header)
        guard status == FC_JPEG_OK else { throw JPEGDecoder.failure(d, status, input.name) }
        width = Int(header.width)
        height = Int(header.height)
        guard header.output_channels == 1 || header.output_channels == 3 else {
            throw CodecError(input.name, .unsupported("unsupported JPEG colour space (\(header.components) components)"))
        }
        format = PixelFormat(header.output_channels == 1 ? .grey : .rgb, .eight)
        var metadata = ImageMetadata()
        var length = 0
        if let icc = fc_jpeg_decoder_icc(d, &length), length > 0 {
            metadata.iccProfile = Array(UnsafeBufferPointer(start: icc, count: length))
        }
        if let exif = fc_jpeg_decoder_exif(d, &length), length > 0 {
            metadata.exif = Array(UnsafeBufferPointer(start: exif, count: length))
        }
        // A CMYK profile describes the inks, not the RGB we deliver: keep it out.
        if header.color == FC_JPEG_COLOR_CMYK || header.color == FC_JPEG_COLOR_YCCK,
           metadata.iccColorSpace != "RGB " {
            metadata.iccProfile = nil
        }
        self.metadata = metadata
        try ImageReader.checkLimit(input.name, width: width, height: height, options: options)
        let started = fc_jpeg_decoder_start(d)
        guard started == FC_JPEG_OK else { throw JPEGDecoder.failure(d, started, input.name) }
    }

    static func failure(_ d: OpaquePointer, _ status: fc_jpeg_status, _ name: String) -> CodecError {
        if status == FC_JPEG_NO_MEMORY { return CodecError(name, .outOfMemory) }
        let message = reportString(fc_jpeg_decoder_report(d).pointee.message)
        return CodecError(name, .corrupt(format: .jpeg, message.isEmpty ? "unknown error" : message))
    }

    func readRows(into destination: UnsafeMutableRawPointer, stride: Int, rows: Int) throws {
        let status = fc_jpeg_decoder_read(d, destination.assumingMemoryBound(to: UInt8.self), stride, UInt32(rows))
        if status != FC_JPEG_OK { throw JPEGDecoder.failure(d, status, input.name) }
    }

    func readWholeImage(into destination: UnsafeMutableRawPointer, stride: Int) throws {
        try readRows(into: destination, stride: stride, rows: height)
    }

    func finish() throws {
        let status = fc_jpeg_decoder_finish(d)
        if status != FC_JPEG_OK { throw JPEGDecoder.failure(d, status, input.name) }
    }

    var notices: [String] {
        let flags = fc_jpeg_decoder_report(d).pointee.harmless
        var notices: [String] = []
        if flags & FC_JPEG_STRAY_BYTES.rawValue != 0 { notices.append("stray bytes between JPEG segments were skipped (harmless damage)") }
        if flags & FC_JPEG_BAD_ICC.rawValue != 0 { notices.append("the ICC profile's segments are damaged; the profile was dropped, so colours may look different") }
        if flags & FC_JPEG_BAD_EXIF.rawValue != 0 { notices.append("a damaged EXIF block was dropped") }
        if flags & FC_JPEG_DUPLICATE_EXIF.rawValue != 0 { notices.append("a second EXIF block was dropped (the first is kept)") }
        return notices
    }

    var warnings: [String] {
        let report = fc_jpeg_decoder_report(d).pointee
        return warningList(first: reportString(report.first_warning), count: UInt32(report.warning_count))
    }
}
