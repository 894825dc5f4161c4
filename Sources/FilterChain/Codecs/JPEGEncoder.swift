import CJPEG
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// libjpeg(-turbo) through the fc_jpeg shim; rows are 8-bit grey or RGB.
final class JPEGEncoder: RowEncoder {
    private let e: OpaquePointer
    private let output: OutputFile
    /// Metadata that has no place in a JPEG.
    private(set) var notes: [String] = []
    /// Written after the primary image, with an MPF index (Ultra HDR).
    private let gainMap: GainMapImage?
    /// A map being made by the render, written after the primary once the image is complete;
    /// the primary's XMP directory is written with room for its length (`padding`).
    private let gainMapToCome: GainMapInProgress?
    /// Spaces after the primary's XMP packet, for the length of a map to come.
    static let padding = 24

    /// `metadata` is what is written (stripped or not).
    /// `effort` 0: one pass with JPEGTables' trained Huffman tables, streaming; 1: Huffman
    /// tables optimised for the image; 2 (or `progressive`): progressive with optimised tables.
    /// Optimised tables make libjpeg keep every block of the image for a second pass (128
    /// bytes per 8x8 block of each component).
    /// `standardTables`: the standard's example tables as libjpeg scales them, with its
    /// Huffman tables (the `tables` option; HDR gain maps).
    /// `restartInterval`: a restart marker every this many MCUs (0: none).
    init(_ output: OutputFile, header: EncodeHeader, metadata: ImageMetadata, quality: Int, progressive: Bool,
         effort: Int = 0, standardTables: Bool = false, restartInterval: Int = 0, chroma: ChromaSubsampling) throws {
        guard let e = fc_jpeg_encoder_new() else { throw CodecError(output.name, .outOfMemory) }
        self.e = e
        self.output = output
        var metadata = metadata
        // Ultra HDR: the map with hdrgm XMP beside ISO 21496-1's, and the primary's
        // directory for it with the map's length as written, as libultrahdr 1.x writes them.
        if let map = metadata.gainMap.map(UltraHDR.withHDRGM) {
            metadata.gainMap = map
            metadata.xmp = UltraHDR.primaryXMP(metadata.xmp, mapLength: map.jpeg.count,
                                               addingDirectory: UltraHDR.hasHDRGM(map.jpeg))
        }
        gainMap = metadata.gainMap
        gainMapToCome = metadata.gainMap == nil ? metadata.gainMapToCome : nil
        if gainMapToCome != nil {
            metadata.xmp = (UltraHDR.primaryXMP(metadata.xmp, mapLength: 0, addingDirectory: true) ?? [])
                + [UInt8](repeating: 0x20, count: Self.padding)
        }
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
                    o.progressive = progressive || effort >= 2 ? 1 : 0
                    o.optimize = effort >= 1 ? 1 : 0
                    o.subsample = Self.subsample(chroma)
                    o.restart_interval = Int32(max(0, min(65535, restartInterval)))
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
                    return Self.start(e, output.file, &o, standardTables: standardTables)
                }
            }
        }
        if status != FC_OK { throw failure(status) }
    }

    /// fc_jpeg_encode_options' code for `chroma`.
    static func subsample(_ chroma: ChromaSubsampling) -> Int32 {
        switch chroma {
        case .yuv420: 1
        case .yuv422: 2
        case .yuv444: 0
        }
    }

    /// Starts `e` with JPEGTables' quantisation and Huffman tables for `o.quality`: the one
    /// place they are chosen, for .jpg outputs and TIFF's JPEG strips alike.
    static func start(_ e: OpaquePointer, _ file: UnsafeMutablePointer<FILE>?, _ o: inout fc_jpeg_encode_options,
                      standardTables: Bool = false) -> fc_status {
        if standardTables { return fc_jpeg_encoder_start(e, file, &o) }
        let tables = JPEGTables.tables(quality: Int(o.quality))
        let huffman = JPEGTables.huffman(quality: Int(o.quality))
        return tables.luma.withUnsafeBufferPointer { luma in
            tables.chroma.withUnsafeBufferPointer { chroma in
                huffman.withUnsafeBufferPointer { huffman in
                    o.luma_table = luma.baseAddress
                    o.chroma_table = chroma.baseAddress
                    o.huffman = huffman.baseAddress
                    return fc_jpeg_encoder_start(e, file, &o)
                }
            }
        }
    }

    /// `height` rows of `width` pixels of `channels` 8-bit samples (rows `stride` bytes
    /// apart) as one whole JPEG in memory, SOI to EOI, as a JPEG-compressed TIFF's strip holds
    /// it: the encoder and tables of a .jpg output of the same quality and chroma (one pass,
    /// the trained Huffman tables), and no metadata (see fc_jpeg_encode_options.tiff_strip).
    /// `bytes` gets the malloc'd JPEG (the caller frees it) and `length` its size; on failure
    /// `message` says why.
    static func tiffStrip(_ rows: UnsafeRawPointer, stride: Int, width: Int, height: Int, channels: Int, inks: Bool,
                          quality: Int, chroma: ChromaSubsampling, into bytes: inout UnsafeMutablePointer<UInt8>?,
                          length bytesLength: inout Int, message: inout String) -> fc_status {
        guard let e = fc_jpeg_encoder_new() else { return FC_NO_MEMORY }
        defer { fc_jpeg_encoder_free(e) }
        var memory: UnsafeMutablePointer<CChar>?
        var length = 0
        guard let file = open_memstream(&memory, &length) else { return FC_NO_MEMORY }
        var o = fc_jpeg_encode_options()
        o.width = UInt32(width)
        o.height = UInt32(height)
        o.channels = Int32(channels)
        o.inks = inks ? 1 : 0
        o.quality = Int32(max(1, min(100, quality)))
        o.subsample = subsample(chroma)
        o.tiff_strip = 1
        var status = start(e, file, &o)
        if status == FC_OK { status = fc_jpeg_encoder_write(e, rows.assumingMemoryBound(to: UInt8.self), stride, UInt32(height)) }
        if status == FC_OK { status = fc_jpeg_encoder_finish(e) }
        // Closing the stream makes `memory` and `length` final (the stream flushes into them).
        let closed = fclose(file) == 0
        if status == FC_OK && !closed { status = FC_NO_MEMORY }
        if status != FC_OK {
            free(memory)
            message = reportString(fc_jpeg_encoder_report(e).pointee.message)
            return status
        }
        bytes = UnsafeMutableRawPointer(memory)?.assumingMemoryBound(to: UInt8.self)
        bytesLength = length
        return FC_OK
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
        if let source = metadata.gainMap?.map.source ?? metadata.gainMapToCome?.metadata.source {
            // ISO 21496-1's version box in the primary says that the map's metadata is ISO's.
            if source == .iso21496 { list.append((0xE2, GainMap.isoPrefix + [0, 0, 0, 0])) }
            list.append((0xE2, UltraHDR.mpfIndex(primarySize: 0, mapSize: 0, mapOffset: 0)))
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
        if let gainMap { try appendGainMap(gainMap) }
        if let gainMapToCome {
            let map = try gainMapToCome.encoded()
            try completeDirectory(mapLength: map.jpeg.count)
            try appendGainMap(map)
        }
    }

    /// The primary's XMP written for a map to come, rewritten in place with the map's length
    /// (the padding after the packet takes the difference).
    private func completeDirectory(mapLength: Int) throws {
        guard let file = output.file, fflush(file) == 0 else { throw CodecError.writing(output, FC_WRITE_FAILED, message: "", format: .jpeg) }
        let fd = fileno(file)
        var head = [UInt8](repeating: 0, count: min(Int(ftell(file)), 1 << 20))
        guard pread(fd, &head, head.count, 0) == head.count,
              let xmp = JPEGSegments(head, from: 0).payload(app: 0xe1, prefix: XMP.jpegPrefix) else {
            throw CodecError.writing(output, FC_FAILED, message: "the XMP of the primary image was not found to complete", format: .jpeg)
        }
        let packet = xmp.bytes
        guard let written = UltraHDR.primaryXMP(Array(packet.prefix(packet.count - Self.padding)), mapLength: mapLength, addingDirectory: true),
              written.count <= packet.count else {
            throw CodecError.writing(output, FC_FAILED, message: "the XMP of the primary image has no room for the map's length", format: .jpeg)
        }
        let patch = written + [UInt8](repeating: 0x20, count: packet.count - written.count)
        let at = xmp.offset
        guard pwrite(fd, patch, patch.count, off_t(at)) == patch.count, fseek(file, 0, SEEK_END) == 0 else {
            throw CodecError.writing(output, FC_WRITE_FAILED, message: String(cString: strerror(errno)), format: .jpeg)
        }
    }

    /// Ultra HDR: the map's JPEG, bytes for bytes, after the primary image, and the primary's
    /// MPF index (written with zero sizes) filled in now that the primary's size is known.
    private func appendGainMap(_ gainMap: GainMapImage) throws {
        guard let file = output.file, fflush(file) == 0 else { throw CodecError.writing(output, FC_WRITE_FAILED, message: "", format: .jpeg) }
        let fd = fileno(file)
        let primarySize = Int(ftell(file))
        var head = [UInt8](repeating: 0, count: min(primarySize, 1 << 20))
        guard pread(fd, &head, head.count, 0) == head.count,
              let mpf = JPEGSegments(head, from: 0).payload(app: 0xe2, prefix: Array("MPF\0".utf8)) else {
            throw CodecError.writing(output, FC_FAILED, message: "the MPF index of the primary image was not found to complete", format: .jpeg)
        }
        let index = UltraHDR.mpfIndex(primarySize: primarySize, mapSize: gainMap.jpeg.count, mapOffset: primarySize - mpf.offset)
        let patch = Array(index.dropFirst(4))   // after "MPF\0": from the TIFF header on
        guard pwrite(fd, patch, patch.count, off_t(mpf.offset)) == patch.count,
              pwrite(fd, gainMap.jpeg, gainMap.jpeg.count, off_t(primarySize)) == gainMap.jpeg.count,
              fseek(file, 0, SEEK_END) == 0 else {
            throw CodecError.writing(output, FC_WRITE_FAILED, message: String(cString: strerror(errno)), format: .jpeg)
        }
    }
}

/// The container of an Ultra HDR JPEG (CIPA DC-007 Multi-Picture Format, as libultrahdr
/// writes it).
enum UltraHDR {
    /// The APP2 payload of an MPF index of two images: the primary (attribute 0x030000,
    /// "baseline MP primary image", at offset 0) and the gain map (attribute 0: no MP type,
    /// which is what tells a map from a stereo pair's other eye), each with its size; offsets
    /// count from the TIFF header that follows "MPF\0". Big-endian, 86 bytes.
    static func mpfIndex(primarySize: Int, mapSize: Int, mapOffset: Int) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
        func u32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
        var b = Array("MPF\0".utf8) + Array("MM".utf8) + u16(42) + u32(8)
        b += u16(3)
        b += u16(0xB000) + u16(7) + u32(4) + Array("0100".utf8)          // MPFVersion
        b += u16(0xB001) + u16(4) + u32(1) + u32(2)                       // NumberOfImages
        b += u16(0xB002) + u16(7) + u32(32) + u32(8 + 2 + 3 * 12 + 4)     // MPEntry, after the IFD
        b += u32(0)                                                       // no next IFD
        b += u32(0x0003_0000) + u32(primarySize) + u32(0) + u16(0) + u16(0)
        b += u32(0) + u32(mapSize) + u32(mapOffset) + u16(0) + u16(0)
        return b
    }
}
