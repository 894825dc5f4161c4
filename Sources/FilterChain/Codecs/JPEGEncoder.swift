import CJPEG

/// libjpeg(-turbo) through the fc_jpeg shim; rows are 8-bit grey or RGB.
final class JPEGEncoder: RowEncoder {
    private let e: OpaquePointer
    private let output: OutputFile
    /// Metadata that has no place in a JPEG.
    private(set) var notes: [String] = []

    /// `metadata` is what is written (stripped or not).
    init(_ output: OutputFile, header: EncodeHeader, metadata: ImageMetadata, quality: Int, progressive: Bool,
         chroma: ChromaSubsampling) throws {
        guard let e = fc_jpeg_encoder_new() else { throw CodecError(output.name, .outOfMemory) }
        self.e = e
        self.output = output
        let icc = metadata.iccProfile ?? []
        let exif = metadata.exif ?? []
        let payloads = markers(metadata)
        let density = metadata.resolution?.jfifValues
        let status = icc.withUnsafeBufferPointer { iccBuffer in
            exif.withUnsafeBufferPointer { exifBuffer in
                withMarkers(payloads) { markers in
                    var o = fc_jpeg_encode_options()
                    o.width = UInt32(header.width)
                    o.height = UInt32(header.height)
                    o.channels = Int32(header.format.channels.count)
                    o.inks = header.inks ? 1 : 0
                    o.quality = Int32(max(1, min(100, quality)))
                    o.progressive = progressive ? 1 : 0
                    o.subsample = switch chroma {
                    case .yuv420: 1
                    case .yuv422: 2
                    case .yuv444: 0
                    }
                    o.icc = icc.isEmpty ? nil : iccBuffer.baseAddress
                    o.icc_length = icc.count
                    o.exif = exif.isEmpty ? nil : exifBuffer.baseAddress
                    o.exif_length = exif.count
                    if let density {
                        o.density_unit = density.unit
                        o.x_density = density.x
                        o.y_density = density.y
                    }
                    o.markers = markers.baseAddress
                    o.marker_count = Int32(markers.count)
                    return fc_jpeg_encoder_start(e, output.file, &o)
                }
            }
        }
        if status != FC_OK { throw failure(status) }
    }

    /// The APP1 (XMP, extended XMP) and COM payloads for `metadata`, in order.
    private func markers(_ metadata: ImageMetadata) -> [(Int32, [UInt8])] {
        var list: [(Int32, [UInt8])] = []
        if let xmp = metadata.xmp {
            if XMP.jpegPrefix.count + xmp.count <= 65533 {
                list.append((0xE1, XMP.jpegPrefix + xmp))
            } else {
                notes.append("the XMP (\(xmp.count) bytes) is too large for a JPEG segment and was not written")
            }
        }
        if let ext = metadata.extendedXMP {
            for segment in XMP.jpegExtensionSegments(ext) { list.append((0xE1, segment)) }
        }
        // PNG "Comment" texts become COM segments when the source had no COM of its own.
        var comments = metadata.comments
        if comments.isEmpty {
            comments = metadata.pngChunks.compactMap { $0.text }.filter { $0.keyword == "Comment" }.map(\.text)
        }
        for comment in comments {
            if comment.count <= 65533 { list.append((0xFE, comment)) } else {
                notes.append("a comment of \(comment.count) bytes is too large for a JPEG segment and was not written")
            }
        }
        return list
    }

    private func withMarkers<R>(_ payloads: [(Int32, [UInt8])], _ body: (UnsafeBufferPointer<fc_jpeg_marker>) -> R) -> R {
        // Payloads are copied to memory that stays put for the call.
        let buffers = payloads.map { _, bytes -> UnsafeMutableBufferPointer<UInt8> in
            let b = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, bytes.count))
            _ = b.initialize(from: bytes)
            return b
        }
        defer { for b in buffers { b.deallocate() } }
        let markers = zip(payloads, buffers).map { payload, buffer in
            fc_jpeg_marker(marker: payload.0, data: UnsafePointer(buffer.baseAddress), length: payload.1.count)
        }
        return markers.withUnsafeBufferPointer(body)
    }

    deinit { fc_jpeg_encoder_free(e) }

    private func failure(_ status: fc_status) -> CodecError {
        let message = reportString(fc_jpeg_encoder_report(e).pointee.message)
        // libjpeg's stdio destination says "Output file write error --- out of disk space?";
        // errno says what really happened.
        return .writing(output, status == FC_FAILED && message.contains("write error") ? FC_WRITE_FAILED : status,
                        message: message, format: .jpeg)
    }

    func write(rows: UnsafeRawPointer, stride: Int, count: Int) throws -> [EncoderJob] {
        let status = fc_jpeg_encoder_write(e, rows.assumingMemoryBound(to: UInt8.self), stride, UInt32(count))
        if status != FC_OK { throw failure(status) }
        return []
    }

    func flush() throws {}

    func finish() throws {
        let status = fc_jpeg_encoder_finish(e)
        if status != FC_OK { throw failure(status) }
    }
}
