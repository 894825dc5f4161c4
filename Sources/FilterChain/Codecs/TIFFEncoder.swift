import CTIFF
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes TIFF through libtiff (the fc_tiff shim): 8- or 16-bit grey, grey+alpha, RGB or RGBA
/// (unassociated alpha), in strips of about 256 KiB streamed as the rows arrive. Each strip is
/// compressed on its own (in parallel when the caller runs the jobs on several threads) by
/// libtiff's codec, or for JPEG compression by the .jpg output's encoder (filterchain's tables,
/// so a TIFF's JPEG strips are what a .jpg of the same quality and chroma holds), and written
/// in order; strip boundaries depend only on the image's width and layout, so the bytes are
/// the same however the jobs are scheduled. ICC, XMP, resolution and EXIF go where TIFF keeps
/// them (EXIF as IFD0 tags and Exif and GPS sub-IFDs: see ``TIFFExif``).
final class TIFFEncoder: RowEncoder {
    enum Compression: String, CaseIterable {
        case none, lzw, deflate, zstd, jpeg

        var shim: fc_tiff_compression {
            switch self {
            case .none: FC_TIFF_COMPRESS_NONE
            case .lzw: FC_TIFF_COMPRESS_LZW
            case .deflate: FC_TIFF_COMPRESS_DEFLATE
            case .zstd: FC_TIFF_COMPRESS_ZSTD
            case .jpeg: FC_TIFF_COMPRESS_JPEG
            }
        }
    }

    /// About this many bytes of rows per strip: enough that the pieces compress in parallel
    /// with little overhead, small enough that a few in flight cost little memory.
    static let stripBytes = 1 << 18

    private let output: OutputFile
    private let handle: CHandle
    private var e: OpaquePointer { handle.pointer }
    private let layout: fc_tiff_layout
    /// JPEG compression's quality and chroma subsampling; nil for the others.
    private let jpeg: TIFFStrip.JPEG?
    private let rowBytes: Int
    private let rowsPerStrip: Int
    private let height: Int
    private var strip: TIFFStrip?
    private var rowsTaken = 0
    private var stripsMade = 0
    private var pending: [TIFFStrip] = []
    private var spare: [UnsafeMutableRawPointer] = []
    private(set) var notes: [String] = []

    /// Rows per strip for rows of `rowBytes` bytes: about `stripBytes`, a multiple of 16 (the
    /// height of JPEG's 4:2:0 blocks), or the whole image when it is shorter.
    /// Deflate's level when none is given: 6 for 8-bit samples, 1 for 16-bit and float ones. In 16-bit
    /// samples that carry real values (anything blurred, resampled or colour-converted) the
    /// low bytes are near noise: libdeflate's level 1 writes files within 2.5% of level 6's
    /// (smaller on W13's blurred photograph, 65.4 against 67.1 MB) in a third to a half of
    /// the time. 8-bit samples gain 4-11% from level 6, so they keep it (ImagesInAndOut.md in
    /// the DocC catalog; Benchmarks/README.md has the measurements).
    static func defaultLevel(_ depth: BitDepth) -> Int { depth == .eight ? 6 : 1 }

    static func rowsPerStrip(rowBytes: Int, height: Int) -> Int {
        let rows = (max(1, stripBytes / max(1, rowBytes)) + 15) / 16 * 16
        return min(rows, height)
    }

    /// `level`: deflate's, 0 (stored) to 9; nil chooses by depth (`defaultLevel`).
    init(_ output: OutputFile, header: EncodeHeader, metadata: ImageMetadata, compression: Compression, quality: Int,
         chroma: ChromaSubsampling = EncodeOptions.defaultChroma, level: Int? = nil) throws {
        precondition(compression != .jpeg || header.format.depth == .eight, "TIFF's JPEG compression takes 8-bit rows")
        try TIFFCodec.declaration.requireLibrary(output.name)
        self.output = output
        rowBytes = header.width * header.format.bytesPerPixel
        height = header.height
        rowsPerStrip = TIFFEncoder.rowsPerStrip(rowBytes: rowBytes, height: header.height)
        layout = fc_tiff_layout(width: UInt32(header.width), height: UInt32(header.height), rows_per_strip: UInt32(rowsPerStrip),
                                channels: Int32(header.format.channels.count), inks: header.inks ? 1 : 0,
                                depth: Int32(header.format.depth.rawValue),
                                compression: compression.shim,
                                chroma_h: chroma == .yuv444 ? 1 : 2, chroma_v: chroma == .yuv420 ? 2 : 1,
                                level: Int32(level ?? TIFFEncoder.defaultLevel(header.format.depth)))
        jpeg = compression == .jpeg ? TIFFStrip.JPEG(quality: quality, chroma: chroma, inks: header.inks) : nil
        guard let e = output.name.withCString({ fc_tiff_encoder_new($0, output.file) }) else {
            throw CodecError(output.name, .outOfMemory)
        }
        handle = CHandle(e, free: fc_tiff_encoder_free)
        try writeHead(metadata)
    }

    deinit { for b in spare { b.deallocate() } }

    private func check(_ status: fc_status) throws {
        guard status != FC_OK else { return }
        throw CodecError.writing(output, status, message: reportString(fc_tiff_encoder_report(e).pointee.message), format: .tiff,
                                 errno: fc_tiff_encoder_errno(e))
    }


    /// The header and IFD0's tags; the Exif and GPS sub-IFDs go right after the header.
    private func writeHead(_ metadata: ImageMetadata) throws {
        var placement = TIFFExif.Placement()
        if let exif = metadata.exif {
            if let p = TIFFExif.placement(of: exif) {
                placement = p
            } else {
                notes.append("the EXIF data is not a TIFF structure and was not written")
            }
        }
        var m = fc_tiff_metadata()
        if let r = metadata.resolution ?? placement.resolution {
            switch r.unit {
            case .aspectRatio: (m.resolution_unit, m.x_resolution, m.y_resolution) = (1, r.x, r.y)
            case .perInch: (m.resolution_unit, m.x_resolution, m.y_resolution) = (2, r.x, r.y)
            case .perCentimetre: (m.resolution_unit, m.x_resolution, m.y_resolution) = (3, r.x, r.y)
            case .perMetre: (m.resolution_unit, m.x_resolution, m.y_resolution) = (3, r.x / 100, r.y / 100)
            }
        }
        m.orientation = Int32(placement.orientation ?? 0)
        let icc = metadata.iccProfile ?? [], xmp = metadata.xmp ?? []
        let status = icc.withUnsafeBufferPointer { i in
            xmp.withUnsafeBufferPointer { x in
                m.icc = icc.isEmpty ? nil : i.baseAddress
                m.icc_length = icc.count
                m.xmp = xmp.isEmpty ? nil : x.baseAddress
                m.xmp_length = xmp.count
                return withUnsafePointer(to: layout) { fc_tiff_encoder_open(e, $0, &m) }
            }
        }
        try check(status)
        for (tag, bytes) in placement.texts {
            try check((bytes + [0]).withUnsafeBufferPointer { p in
                p.withMemoryRebound(to: CChar.self) { fc_tiff_encoder_set_text(e, tag, $0.baseAddress) }
            })
        }
        for (tag, directory) in [(TIFFDirectory.exifPointer, placement.exif), (TIFFDirectory.gpsPointer, placement.gps)] {
            guard let directory else { continue }
            var offset: UInt64 = 0
            try check(fc_tiff_encoder_end(e, &offset))
            let bytes = directory.encoded(at: Int(offset), bigEndian: UInt16(1).bigEndian == 1)
            try check(bytes.withUnsafeBufferPointer { fc_tiff_encoder_append(e, $0.baseAddress, $0.count) })
            try check(fc_tiff_encoder_set_ifd(e, tag, offset))
        }
        if !placement.dropped.isEmpty {
            let tags = placement.dropped.map { "0x" + String($0, radix: 16, uppercase: true) }
            notes.append("EXIF IFD0 tag\(tags.count == 1 ? "" : "s") \(CodecRegistry.list(tags)) ha\(tags.count == 1 ? "s" : "ve") no place in a TIFF's IFD0; not written")
        }
        notes += metadata.notWritten(in: "TIFF")
    }

    func write(rows source: UnsafeRawPointer, stride: Int, count: Int) throws -> [EncoderJob] {
        var jobs: [EncoderJob] = []
        var done = 0
        while done < count {
            if strip == nil {
                let rows = min(rowsPerStrip, height - rowsTaken)
                let buffer = spare.popLast() ?? UnsafeMutableRawPointer.allocate(byteCount: max(1, rowsPerStrip * rowBytes), alignment: 64)
                strip = TIFFStrip(index: stripsMade, rows: rows, buffer: buffer, layout: layout, jpeg: jpeg, name: output.name)
                stripsMade += 1
            }
            let s = strip!
            let n = min(count - done, s.rows - s.filled)
            for r in 0..<n {
                (s.buffer + (s.filled + r) * rowBytes).copyMemory(from: source + (done + r) * stride, byteCount: rowBytes)
            }
            s.filled += n
            done += n
            rowsTaken += n
            if s.filled == s.rows {
                jobs.append(s)
                pending.append(s)
                strip = nil
            }
        }
        return jobs
    }

    func flush() throws {
        while let first = pending.first, first.isComplete {
            pending.removeFirst()
            defer { spare.append(first.handBackBuffer()) }
            guard first.status == FC_OK else {
                throw CodecError.writing(output, first.status, message: first.message, format: .tiff, errno: 0)
            }
            try check(fc_tiff_encoder_write_strip(e, UInt32(first.index), first.bytes, first.length))
        }
    }

    func finish() throws {
        precondition(pending.isEmpty && strip == nil, "TIFF strips left unwritten")
        try check(fc_tiff_encoder_finish(e))
    }
}

/// One strip of a TIFF: its rows, compressed by `run()` into what the file stores.
/// (@unchecked Sendable: the encoder fills it before handing it out, `run` writes the result
/// once, and the encoder reads that only after `completed` is set.)
final class TIFFStrip: EncoderJob, @unchecked Sendable {
    /// What a JPEG strip is compressed with, beyond the layout.
    struct JPEG {
        let quality: Int
        let chroma: ChromaSubsampling
        let inks: Bool
    }

    let index: Int
    let rows: Int
    let buffer: UnsafeMutableRawPointer
    let layout: fc_tiff_layout
    let jpeg: JPEG?
    let name: String
    var filled = 0
    /// The compressed strip, as the compressor made it (malloc'd; freed with the strip).
    private(set) var bytes: UnsafeMutablePointer<UInt8>?
    private(set) var length = 0
    private(set) var status = FC_FAILED
    private(set) var message = ""
    private let completed = Atomic<Bool>(false)
    private var handedBack = false

    init(index: Int, rows: Int, buffer: UnsafeMutableRawPointer, layout: fc_tiff_layout, jpeg: JPEG?, name: String) {
        self.index = index
        self.rows = rows
        self.buffer = buffer
        self.layout = layout
        self.jpeg = jpeg
        self.name = name
    }

    deinit {
        if !handedBack { buffer.deallocate() }
        free(bytes)   // malloc'd by either compressor (fc_tiff_free is free)
    }

    var isComplete: Bool { completed.load(ordering: .acquiring) }

    func run() {
        if let jpeg {
            // A whole JPEG per strip, as TIFF Technical Note 2 has it (no JPEGTables tag).
            let channels = Int(layout.channels)
            status = JPEGEncoder.tiffStrip(buffer, stride: Int(layout.width) * channels, width: Int(layout.width), height: rows,
                                           channels: channels, inks: jpeg.inks, quality: jpeg.quality, chroma: jpeg.chroma,
                                           into: &bytes, length: &length, message: &message)
        } else {
            var report = fc_tiff_report()
            status = withUnsafePointer(to: layout) { l in
                name.withCString { fc_tiff_compress_strip($0, l, buffer.assumingMemoryBound(to: UInt8.self), UInt32(rows), &bytes, &length, &report) }
            }
            message = reportString(report.message)
        }
        completed.store(true, ordering: .releasing)
    }

    /// Hands the row buffer back for another strip (once the strip is written).
    func handBackBuffer() -> UnsafeMutableRawPointer {
        handedBack = true
        return buffer
    }
}
