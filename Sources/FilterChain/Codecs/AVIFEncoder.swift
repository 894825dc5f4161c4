#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CAVIF

/// libavif through the fc_avif shim, with libaom. libavif encodes a whole image, so the rows
/// are gathered as handed over (grey, grey+alpha, RGB or RGBA, 8 or 16 bits) and encoded at
/// the end: 8-bit rows as 8-bit AVIF, 16-bit rows as 10-bit AVIF. ICC, EXIF and XMP go in as
/// libavif places them; an nclx box describes the colour too (see `colour`). What AVIF has no
/// place for (comments, text, resolution) is said in a note.
final class AVIFEncoder: WholeImageEncoder {
    private let output: OutputFile
    private let header: EncodeHeader
    private let metadata: ImageMetadata
    private let quality: Int
    private let effort: Int
    private let chroma: ChromaSubsampling
    private let alphaQuality: Int
    let pixels: WholeImageRows
    private(set) var notes: [String] = []

    init(_ output: OutputFile, header: EncodeHeader, metadata: ImageMetadata, quality: Int, effort: Int,
         chroma: ChromaSubsampling, alphaQuality: Int) throws {
        try AVIFCodec.declaration.requireLibrary(output.name)
        self.output = output
        self.header = header
        var metadata = metadata
        // libavif refuses the whole file for EXIF data without a TIFF header: that EXIF alone is left out.
        notes += metadata.keepTIFFExifOnly()
        self.metadata = metadata
        self.quality = quality
        self.effort = effort
        self.chroma = chroma
        self.alphaQuality = alphaQuality
        pixels = try WholeImageRows(header, file: output.name)
        notes += metadata.notWritten(in: "AVIF")
    }

    /// libavif's quantizer for a quality, 0 (lossless) to 63, as libavif 1.x and libheif map it.
    static func quantizer(quality: Int) -> Int32 { Int32(((100 - quality) * 63 + 50) / 100) }

    /// Matrices libavif converts RGB with, kept from a source's nclx (BT.709, BT.470BG,
    /// BT.601, BT.2020 NCL); others become BT.601 (6), libavif's default.
    static let keptMatrices: Set<UInt16> = [1, 5, 6, 9]

    /// The nclx code points written (libavif writes them in an nclx box, beside the ICC
    /// profile when there is one, and in the AV1 sequence header): (primaries, transfer,
    /// matrix). The source's primaries and transfer when it had an nclx; else unspecified
    /// (2/2) when an ICC profile describes the colour; else sRGB's (1/13). The matrix is the
    /// one the RGB is converted with: identity (0) for lossless colour, else the source's
    /// when libavif converts with it, else BT.601 (6).
    static func colour(source: NCLXColor?, icc: Bool, lossless: Bool, grey: Bool) -> (UInt16, UInt16, UInt16) {
        let matrix: UInt16 = lossless && !grey ? 0 : source.map(\.matrixCoefficients).flatMap { keptMatrices.contains($0) ? $0 : nil } ?? 6
        if let source { return (source.colourPrimaries, source.transferCharacteristics, matrix) }
        if icc { return (2, 2, matrix) }
        return (1, 13, matrix)
    }

    /// The shim's settings for images of `format`, `width` x `height` (the metadata apart).
    static func options(width: Int, height: Int, format: PixelFormat, metadata: ImageMetadata, quality: Int, effort: Int,
                        chroma: ChromaSubsampling, alphaQuality: Int) -> fc_avif_encode_options {
        let lossless = quality == 100
        let (primaries, transfer, matrix) = colour(source: metadata.nclx, icc: metadata.iccProfile?.isEmpty == false, lossless: lossless,
                                                   grey: format.channels.isGrey)
        var o = fc_avif_encode_options()
        o.width = UInt32(width)
        o.height = UInt32(height)
        o.channels = Int32(format.channels.count)
        o.sample_bytes = format.depth == .sixteen ? 2 : 1
        o.depth = format.depth == .sixteen ? 10 : 8
        o.yuv_format = chroma == .yuv420 && !lossless ? 420 : 444
        o.quantizer = quantizer(quality: quality)
        o.alpha_quantizer = quantizer(quality: alphaQuality)
        o.speed = Int32(9 - effort)
        // libaom's own threads, one per core: its row-based multithreading (on from 2
        // threads) gives the same bytes for every count from 2 up, so a single core still
        // gets 2, and the file is the same on every machine.
        o.threads = Int32(clamping: max(2, WorkerPool.availableCores))
        o.colour_primaries = primaries
        o.transfer_characteristics = transfer
        o.matrix_coefficients = matrix
        return o
    }

    func finish() throws {
        var report = fc_avif_report()
        let status = metadata.withEmbedded { embedded in
            var o = Self.options(width: header.width, height: header.height, format: header.format, metadata: metadata,
                                 quality: quality, effort: effort, chroma: chroma, alphaQuality: alphaQuality)
            o.metadata = embedded
            return fc_avif_encode(&o, pixels.bytes, pixels.rowBytes, output.file, &report)
        }
        if status != FC_OK { throw CodecError.writing(output, status, message: reportString(report.message), format: .avif) }
        if let meter = metadata.contentLight { try writeContentLight(meter.levels) }
    }

    /// An HDR output's clli box, put into the file libavif wrote (AVIFContentLight).
    private func writeContentLight(_ levels: (maxCLL: UInt16, maxFALL: UInt16)) throws {
        guard let file = output.file, fflush(file) == 0 else { throw CodecError.writing(output, FC_WRITE_FAILED, message: "", format: .avif) }
        let fd = fileno(file)
        let size = Int(ftell(file))
        var bytes = [UInt8](repeating: 0, count: size)
        guard pread(fd, &bytes, size, 0) == size else {
            throw CodecError.writing(output, FC_WRITE_FAILED, message: String(cString: strerror(errno)), format: .avif)
        }
        guard let with = AVIFContentLight.inserting(maxCLL: levels.maxCLL, maxFALL: levels.maxFALL, into: bytes) else {
            throw CodecError.writing(output, FC_FAILED, message: "libavif's file has a layout the content light level box cannot be put into", format: .avif)
        }
        guard pwrite(fd, with, with.count, 0) == with.count, fseek(file, 0, SEEK_END) == 0 else {
            throw CodecError.writing(output, FC_WRITE_FAILED, message: String(cString: strerror(errno)), format: .avif)
        }
    }
}

/// An AVIF image sequence (libavif's avifEncoderAddImage through fc_avif): every frame with
/// the output's quality, effort, chroma and alpha quality, and the colour description of a
/// still AVIF; the metadata with the first frame. libaom encodes each frame as it comes
/// (against the ones before); libavif holds the encoded frames until the end.
final class AVIFFrameEncoder: FrameEncoder {
    private let output: OutputFile
    private let header: AnimationHeader
    private let sequence: CHandle
    let notes: [String]

    init(_ output: OutputFile, header: AnimationHeader, metadata: ImageMetadata, quality: Int, effort: Int,
         chroma: ChromaSubsampling, alphaQuality: Int) throws {
        try AVIFCodec.declaration.requireLibrary(output.name)
        self.output = output
        self.header = header
        var metadata = metadata
        var notes: [String] = []
        notes += metadata.keepTIFFExifOnly()
        notes += metadata.notWritten(in: "AVIF")
        if header.loopCount != 0 { notes.append("an AVIF sequence plays forever here (libavif 0.11 writes no loop count)") }
        self.notes = notes
        var report = fc_avif_report()
        // The metadata goes in with the first frame (`add`).
        var o = AVIFEncoder.options(width: header.width, height: header.height, format: header.format, metadata: metadata,
                                    quality: quality, effort: effort, chroma: chroma, alphaQuality: alphaQuality)
        let made = fc_avif_sequence_new(&o, &report)
        guard let made else { throw CodecError.writing(output, FC_FAILED, message: reportString(report.message), format: .avif) }
        sequence = CHandle(made, free: fc_avif_sequence_free)
        firstMetadata = metadata
    }

    /// The metadata the first frame carries (the shim reads it when that frame is added).
    private let firstMetadata: ImageMetadata
    private var added = 0

    private func failure(_ status: fc_status) -> CodecError {
        .writing(output, status, message: reportString(fc_avif_sequence_report(sequence.pointer).pointee.message), format: .avif)
    }

    func add(_ pixels: UnsafeRawPointer, stride: Int, delay: Int) throws {
        let status = firstMetadata.withEmbedded { embedded in
            if added == 0 { fc_avif_sequence_set_metadata(sequence.pointer, embedded) }
            return fc_avif_sequence_add(sequence.pointer, pixels.assumingMemoryBound(to: UInt8.self), stride, Int32(delay))
        }
        if status != FC_OK { throw failure(status) }
        added += 1
    }

    func finish() throws {
        let status = fc_avif_sequence_finish(sequence.pointer, output.file)
        if status != FC_OK { throw failure(status) }
    }
}
