import CPNG
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes PNG: the chunks here, the image data as pieces of rows that are filtered and
/// deflated independently (in parallel when the caller runs the jobs on several threads)
/// and join into one zlib stream. Piece boundaries depend only on the image width, so the
/// bytes are the same however the jobs are scheduled.
final class PNGEncoder: RowEncoder {
    private let output: OutputFile
    private let header: EncodeHeader
    private let level: Int32
    private let rowBytes: Int
    private let bytesPerPixel: Int32
    private let rowsPerPiece: Int
    private let contextRows: Int

    private var piece: PNGPiece?
    private var rowsTaken = 0
    private var piecesMade = 0
    /// The last rows of the image so far (up to contextRows), in PNG byte order.
    private var tail: [UInt8] = []
    private var tailRows = 0

    private var finished: [Int: PNGPiece] = [:]
    private var pending: [PNGPiece] = []
    private var nextToWrite = 0
    private var adler: UInt32 = 1
    private var wroteZlibHeader = false
    /// Buffers of pieces already written, for the next pieces: every piece's memory is
    /// allocated here once, so the heap does not grow with the image's height.
    private var spare: [PNGPiece.Buffers] = []
    private let rowsCapacity: Int
    private let outCapacity: Int

    /// About 512 KiB of raw rows per piece: enough to keep every core busy on big images, and
    /// large enough that the seams cost nothing measurable in size (+0.02% on a 14.7 MP
    /// photograph against 1 MiB pieces). Each output holds a few pieces with their deflated
    /// bytes, so this sets most of a PNG output's memory: with 1 MiB pieces `steps` (an
    /// output per step) needed 2.1 times `apply`'s memory on a 14.7 MP photo, with 512 KiB
    /// 1.9 times, for about 4% more time on W3.
    static let pieceBytes = 1 << 19

    /// Metadata that has no place in a PNG.
    private(set) var notes: [String] = []

    init(_ output: OutputFile, header: EncodeHeader, metadata: ImageMetadata, level: Int) throws {
        self.output = output
        self.header = header
        self.level = Int32(max(0, min(9, level)))
        rowBytes = header.width * header.format.bytesPerPixel
        bytesPerPixel = Int32(header.format.bytesPerPixel)
        rowsPerPiece = max(1, PNGEncoder.pieceBytes / max(1, rowBytes))
        contextRows = Int(fc_png_context_rows(rowBytes))
        // Every piece fits the first (the largest): small images get small buffers.
        let pieceRows = min(rowsPerPiece, header.height)
        rowsCapacity = (min(contextRows, header.height) + pieceRows) * rowBytes
        outCapacity = fc_png_piece_capacity(rowBytes, UInt32(pieceRows))
        try writeHead(metadata)
    }

    deinit { for b in spare { b.deallocate() } }

    private func chunk(_ type: String, _ data: [UInt8]) throws {
        try data.withUnsafeBytes { try chunk(type, $0) }
    }

    private func chunk(_ type: String, _ data: UnsafeRawBufferPointer) throws {
        let bytes = data.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let code = type.withCString { fc_png_write_chunk(output.file, $0, bytes, data.count) }
        if code != 0 { throw CodecError(output.name, .writeFailed(String(cString: strerror(code)))) }
    }

    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    private func writeHead(_ metadata: ImageMetadata) throws {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        if fwrite(signature, 1, 8, output.file) != 8 { throw output.writeError("write error") }
        let colorType: UInt8 = switch header.format.channels {
        case .grey: 0
        case .rgb: 2
        case .greyAlpha: 4
        case .rgba: 6
        }
        try chunk("IHDR", PNGEncoder.be32(UInt32(header.width)) + PNGEncoder.be32(UInt32(header.height))
                  + [UInt8(header.format.depth.rawValue), colorType, 0, 0, 0])
        let color = metadata.pngColor
        if let c = color?.chromaticities, c.count == 8 { try chunk("cHRM", c.flatMap(PNGEncoder.be32)) }
        if let g = color?.gamma { try chunk("gAMA", PNGEncoder.be32(g)) }
        if let icc = metadata.iccProfile {
            var length = 0
            guard let compressed = icc.withUnsafeBufferPointer({ fc_png_zlib_compress($0.baseAddress, $0.count, 9, &length) }) else {
                throw CodecError(output.name, .outOfMemory)
            }
            defer { fc_png_free(compressed) }
            let name = Array("ICC profile".utf8) + [0, 0]  // name, NUL, compression method 0
            try chunk("iCCP", name + Array(UnsafeBufferPointer(start: compressed, count: length)))
        } else if let intent = color?.srgbIntent {
            try chunk("sRGB", [UInt8(intent)])
        }
        if let r = metadata.resolution {
            let v = r.pngValues
            try chunk("pHYs", PNGEncoder.be32(v.x) + PNGEncoder.be32(v.y) + [v.unit])
        }
        if let exif = metadata.exif { try chunk("eXIf", exif) }
        try writeText(metadata)
    }

    /// XMP as iTXt "XML:com.adobe.xmp", the source PNG's text and time chunks as stored, and
    /// a JPEG source's comments as "Comment" text.
    private func writeText(_ metadata: ImageMetadata) throws {
        if let xmp = metadata.xmp {
            try chunk("iTXt", Array(XMP.pngKeyword.utf8) + [0, 0, 0, 0, 0] + xmp)
        }
        if metadata.extendedXMP != nil {
            notes.append("the extended XMP has no place in a PNG and was not written (the main XMP was)")
        }
        for c in metadata.pngChunks { try chunk(c.type, c.data) }
        for comment in metadata.comments {
            let c = PNGChunk.text("Comment", comment)
            try chunk(c.type, c.data)
        }
    }

    func write(rows: UnsafeRawPointer, stride: Int, count: Int) throws -> [EncoderJob] {
        var jobs: [EncoderJob] = []
        var done = 0
        while done < count {
            if piece == nil {
                let remaining = header.height - rowsTaken
                let rows = min(rowsPerPiece, remaining)
                let context = min(contextRows, rowsTaken)
                let buffers = spare.popLast()
                    ?? PNGPiece.Buffers(rowsCapacity: rowsCapacity, outCapacity: outCapacity)
                let p = PNGPiece(index: piecesMade, rowBytes: rowBytes, contextRows: context, rows: rows,
                                 bytesPerPixel: bytesPerPixel, level: level,
                                 last: rowsTaken + rows == header.height, buffers: buffers)
                piecesMade += 1
                // The context: the last rows before this piece.
                if context > 0 {
                    tail.withUnsafeBytes { t in
                        p.buffer.copyMemory(from: t.baseAddress! + (tailRows - context) * rowBytes,
                                            byteCount: context * rowBytes)
                    }
                }
                piece = p
            }
            let p = piece!
            let n = min(count - done, p.rows - p.filled)
            for r in 0..<n {
                let dst = p.buffer + (p.contextRows + p.filled + r) * rowBytes
                let src = rows + (done + r) * stride
                if header.format.depth == .sixteen {
                    let s = src.assumingMemoryBound(to: UInt16.self)
                    let d = dst.assumingMemoryBound(to: UInt16.self)
                    for i in 0..<(rowBytes / 2) { d[i] = s[i].bigEndian }
                } else {
                    dst.copyMemory(from: src, byteCount: rowBytes)
                }
            }
            p.filled += n
            done += n
            rowsTaken += n
            if p.filled == p.rows {
                keepTail(p)
                jobs.append(p)
                pending.append(p)
                piece = nil
            }
        }
        return jobs
    }

    private func keepTail(_ p: PNGPiece) {
        let keep = min(contextRows, p.contextRows + p.rows)
        let start = p.contextRows + p.rows - keep
        tail = Array(UnsafeRawBufferPointer(start: p.buffer + start * rowBytes, count: keep * rowBytes))
        tailRows = keep
    }

    func flush() throws {
        while let first = pending.first, first.isComplete {
            pending.removeFirst()
            try writePiece(first)
        }
    }

    private func writePiece(_ p: PNGPiece) throws {
        defer { spare.append(p.handBackBuffers()) }
        guard p.status == FC_OK, let data = p.result.data else {
            throw CodecError.writing(output, p.status == FC_OK ? FC_FAILED : p.status, message: "deflate failed", format: .png)
        }
        // The deflated bytes sit `PNGPiece.headRoom` bytes into the output buffer, with room
        // after them: the zlib header goes before the first piece, the Adler-32 after the last.
        var start = UnsafeMutableRawPointer(data)
        var length = p.result.length
        if !wroteZlibHeader {
            // CMF: deflate, 32 KiB window. FLG: the level class, and a check making
            // CMF*256+FLG a multiple of 31.
            let cmf: UInt8 = 0x78
            let flevel: UInt8 = level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3
            var flg = flevel << 6
            flg += UInt8(31 - (Int(cmf) * 256 + Int(flg)) % 31)
            start -= 2
            start.storeBytes(of: cmf, as: UInt8.self)
            start.storeBytes(of: flg, toByteOffset: 1, as: UInt8.self)
            length += 2
            wroteZlibHeader = true
        }
        adler = fc_png_adler32_combine(adler, p.result.adler, p.result.filtered_length)
        if p.last {
            for (i, byte) in PNGEncoder.be32(adler).enumerated() { start.storeBytes(of: byte, toByteOffset: length + i, as: UInt8.self) }
            length += 4
        }
        try chunk("IDAT", UnsafeRawBufferPointer(start: start, count: length))
        nextToWrite += 1
    }

    func finish() throws {
        precondition(pending.isEmpty && piece == nil, "PNG pieces left unwritten")
        try chunk("IEND", [])
    }
}

/// One piece of a PNG's rows: its context rows and its own rows, filtered and deflated by
/// `run()`. (@unchecked Sendable: the encoder fills it before handing it out, `run` writes the
/// result once, and the encoder reads that only after `completed` is set.)
final class PNGPiece: EncoderJob, @unchecked Sendable {
    let index: Int
    let rowBytes: Int
    let contextRows: Int
    let rows: Int
    let bytesPerPixel: Int32
    let level: Int32
    let last: Bool
    var filled = 0
    var result = fc_png_piece()
    var status = FC_FAILED
    private let completed = Atomic<Bool>(false)
    private let buffers: Buffers
    private var handedBack = false

    /// Room before the deflated bytes (the zlib header) and after them (the Adler-32).
    static let headRoom = 2, tailRoom = 4

    /// A piece's memory: its raw rows (context first), and the space its deflated bytes go.
    struct Buffers {
        let rows: UnsafeMutableRawPointer
        let out: UnsafeMutableRawPointer
        let outCapacity: Int

        init(rowsCapacity: Int, outCapacity: Int) {
            rows = .allocate(byteCount: max(1, rowsCapacity), alignment: 64)
            out = .allocate(byteCount: PNGPiece.headRoom + outCapacity + PNGPiece.tailRoom, alignment: 64)
            self.outCapacity = outCapacity
        }

        func deallocate() {
            rows.deallocate()
            out.deallocate()
        }
    }

    /// `buffers` must hold `contextRows + rows` rows and the output of `rows` rows.
    init(index: Int, rowBytes: Int, contextRows: Int, rows: Int, bytesPerPixel: Int32, level: Int32, last: Bool,
         buffers: Buffers) {
        self.index = index
        self.rowBytes = rowBytes
        self.contextRows = contextRows
        self.rows = rows
        self.bytesPerPixel = bytesPerPixel
        self.level = level
        self.last = last
        self.buffers = buffers
    }

    deinit { if !handedBack { buffers.deallocate() } }

    /// Where the piece's rows go: its context rows first.
    var buffer: UnsafeMutableRawPointer { buffers.rows }

    var isComplete: Bool { completed.load(ordering: .acquiring) }

    func run() {
        let first = (buffer + contextRows * rowBytes).assumingMemoryBound(to: UInt8.self)
        let out = buffers.out + PNGPiece.headRoom
        status = fc_png_compress_piece(first, rowBytes, rowBytes, UInt32(rows), UInt32(contextRows),
                                       bytesPerPixel, level, last ? 1 : 0,
                                       out.assumingMemoryBound(to: UInt8.self), buffers.outCapacity, &result)
        completed.store(true, ordering: .releasing)
    }

    /// Hands the buffers back for another piece (once the piece is written).
    func handBackBuffers() -> Buffers {
        handedBack = true
        return buffers
    }
}
