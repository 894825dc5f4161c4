import CHEIF

/// libheif through the fc_heif shim: the primary image of an HEIF file. libheif decodes a
/// whole image at once, so the image is decoded once, at the first read (after the pixel
/// limit is checked against its header, and after a fast resize has asked for it smaller or
/// the renderer for a parallel decode), and its rows are handed out strip by strip. libheif
/// applies the clean aperture, rotation and mirror boxes (clap, irot, imir: part of the image,
/// per MIAF), always; the EXIF Orientation is never applied (HEIF readers must not: irot and
/// imir say how the image is shown) and is reset to 1 in the kept EXIF and XMP, so that
/// nothing turns the pixels again. Depth and other auxiliary images are ignored. libheif
/// parses the file in memory, so it is read whole first.
final class HEIFDecoder: StoredDecoder {
    private let handle: CHandle
    private var d: OpaquePointer { handle.pointer }
    private let input: OpenedInput
    private(set) var width: Int
    private(set) var height: Int
    let format: PixelFormat
    let metadata: ImageMetadata
    let readsWholeImageOnly = false
    let notices: [String]
    let harmlessDamage: [String]
    private var started = false
    private var parallel = false

    init(_ input: OpenedInput, options: DecodeOptions) throws {
        try HEIFCodec.declaration.requireLibrary(input.name)
        let bytes = try input.bytesInMemory()
        guard let d = fc_heif_decoder_new(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count) else {
            throw CodecError(input.name, .outOfMemory)
        }
        self.handle = CHandle(d, free: fc_heif_decoder_free)
        self.input = input
        var info = fc_heif_info()
        var status = fc_heif_decoder_open(d, &info)
        guard status == FC_OK else { throw HEIFDecoder.failure(d, status, input.name) }

        var metadata = ImageMetadata()
        var notices: [String] = [], damage: [String] = []
        var length = 0
        if let p = fc_heif_decoder_icc(d, &length), length > 0 {
            metadata.iccProfile = Array(UnsafeBufferPointer(start: p, count: length))
        }
        var damaged: Int32 = 0
        if let p = fc_heif_decoder_exif(d, &length, &damaged), length > 0 {
            metadata.exif = Exif.withOrientationReset(Array(UnsafeBufferPointer(start: p, count: length)))
        } else if damaged != 0 {
            damage.append("a damaged EXIF block was dropped")
        }
        if let p = fc_heif_decoder_xmp(d, &length), length > 0 {
            metadata.xmp = XMP.withOrientationReset(Array(UnsafeBufferPointer(start: p, count: length)))
        }
        if info.has_nclx != 0 {
            metadata.nclx = NCLXColor(colourPrimaries: info.colour_primaries, transferCharacteristics: info.transfer_characteristics,
                                      matrixCoefficients: info.matrix_coefficients, fullRange: info.full_range != 0)
        }
        if info.images > 1 {
            notices.append("a file of \(info.images) images: only the primary image was read")
        }

        // The coded image is what libheif allocates (a clean aperture crops it afterwards).
        let shown = (Int(info.width), Int(info.height)), coded = (Int(info.stored_width), Int(info.stored_height))
        let larger = coded.0 * coded.1 > shown.0 * shown.1 ? coded : shown
        try ImageReader.checkLimit(input.name, width: larger.0, height: larger.1, options: options)

        var layout = fc_heif_layout()
        status = fc_heif_decoder_layout(d, options.lenient ? 0 : 1, &layout)
        guard status == FC_OK else { throw HEIFDecoder.failure(d, status, input.name) }
        width = Int(layout.width)
        height = Int(layout.height)
        let channels: Channels = switch layout.channels {
        case 1: .grey
        case 2: .greyAlpha
        case 3: .rgb
        default: .rgba
        }
        format = PixelFormat(channels, layout.depth == 16 ? .sixteen : .eight)
        self.metadata = metadata
        self.notices = notices
        harmlessDamage = damage
    }

    static func failure(_ d: OpaquePointer, _ status: fc_status, _ name: String) -> CodecError {
        .reading(name, status, message: reportString(fc_heif_decoder_report(d).pointee.message), format: .heif)
    }

    /// libheif's decoding warnings (lenient decoding), known once the image is decoded.
    var warnings: [String] {
        let text = reportString(fc_heif_decoder_report(d).pointee.warnings)
        return text.isEmpty ? [] : text.split(separator: "\n").map(String.init)
    }

    /// Averaging blocks of the decoded image (a fast resize's shrink-on-load), before the first row.
    var canShrink: Bool { !started }

    /// The image is decoded whole before its first row, with the pipeline idle: on two threads
    /// (libde265's worker threads, or libheif's for a grid's tiles) when asked, before the image
    /// is decoded. The sizes do not matter here.
    func decodeInParallel(minimumMCUs: Int, chunkMCUs: Int, splitMCUs: Int) {
        guard !started, fc_heif_decoder_decoded(d) == 0 else { return }
        fc_heif_decoder_set_threads(d, 2)
        parallel = true
    }

    var decodesInParallel: Bool { parallel }

    func shrink(by denominator: Int) throws {
        var layout = fc_heif_layout()
        let status = fc_heif_decoder_shrink(d, Int32(denominator), &layout)
        guard status == FC_OK else { throw HEIFDecoder.failure(d, status, input.name) }
        width = Int(layout.width)
        height = Int(layout.height)
    }

    func readRows(into destination: UnsafeMutableRawPointer, stride: Int, rows: Int) throws {
        started = true
        let status = fc_heif_decoder_read(d, destination.assumingMemoryBound(to: UInt8.self), stride, UInt32(rows))
        if status != FC_OK { throw HEIFDecoder.failure(d, status, input.name) }
    }

    func readWholeImage(into destination: UnsafeMutableRawPointer, stride: Int) throws {
        try readRows(into: destination, stride: stride, rows: height)
    }

    func finish() throws {}
}
