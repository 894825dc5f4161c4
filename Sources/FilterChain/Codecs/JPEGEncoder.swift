import CJPEG

/// libjpeg(-turbo) through the fc_jpeg shim; rows are 8-bit grey or RGB.
final class JPEGEncoder: RowEncoder {
    private let e: OpaquePointer
    private let output: OutputFile

    init(_ output: OutputFile, header: EncodeHeader, metadata: ImageMetadata, options: EncodeOptions) throws {
        guard let e = fc_jpeg_encoder_new() else { throw CodecError(output.name, .outOfMemory) }
        self.e = e
        self.output = output
        let icc = metadata.iccProfile ?? []
        let exif = metadata.exif ?? []
        let status = icc.withUnsafeBufferPointer { iccBuffer in
            exif.withUnsafeBufferPointer { exifBuffer in
                var o = fc_jpeg_encode_options()
                o.width = UInt32(header.width)
                o.height = UInt32(header.height)
                o.channels = Int32(header.format.channels.count)
                o.quality = Int32(max(1, min(100, options.quality)))
                o.progressive = options.progressive ? 1 : 0
                o.subsample = options.chroma == .yuv420 ? 1 : 0
                o.icc = icc.isEmpty ? nil : iccBuffer.baseAddress
                o.icc_length = icc.count
                o.exif = exif.isEmpty ? nil : exifBuffer.baseAddress
                o.exif_length = exif.count
                return fc_jpeg_encoder_start(e, output.file, &o)
            }
        }
        if status != FC_JPEG_OK { throw failure(status) }
    }

    deinit { fc_jpeg_encoder_free(e) }

    private func failure(_ status: fc_jpeg_status) -> CodecError {
        if status == FC_JPEG_NO_MEMORY { return CodecError(output.name, .outOfMemory) }
        let message = reportString(fc_jpeg_encoder_report(e).pointee.message)
        // libjpeg's stdio destination says "Output file write error --- out of disk space?";
        // errno says what really happened.
        if message.contains("write error") { return output.writeError(message) }
        return CodecError(output.name, .writeFailed(message))
    }

    func write(rows: UnsafeRawPointer, stride: Int, count: Int) throws -> [EncoderJob] {
        let status = fc_jpeg_encoder_write(e, rows.assumingMemoryBound(to: UInt8.self), stride, UInt32(count))
        if status != FC_JPEG_OK { throw failure(status) }
        return []
    }

    func flush() throws {}

    func finish() throws {
        let status = fc_jpeg_encoder_finish(e)
        if status != FC_JPEG_OK { throw failure(status) }
    }
}
