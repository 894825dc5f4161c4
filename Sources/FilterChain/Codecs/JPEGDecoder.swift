import CJPEG

/// libjpeg(-turbo) through the fc_jpeg shim.
final class JPEGDecoder: StoredDecoder {
    private let handle: CHandle
    private var d: OpaquePointer { handle.pointer }
    private let input: OpenedInput
    private(set) var width: Int
    private(set) var height: Int
    private var started = false
    let format: PixelFormat
    let metadata: ImageMetadata
    let readsWholeImageOnly = false
    let inks: Bool
    /// The HDR gain map an MPF index points at, looked for only when the primary image has
    /// one (a phone's photo; a stereo pair's second image is not a map). A found map goes on
    /// the metadata; a damaged one is a notice.
    let gainMap: GainMap.Search

    init(_ input: OpenedInput, options: DecodeOptions) throws {
        guard let d = fc_jpeg_decoder_new(options.lenient ? 0 : 1) else {
            throw CodecError(input.name, .outOfMemory)
        }
        self.handle = CHandle(d, free: fc_jpeg_decoder_free)
        self.input = input
        var header = fc_jpeg_header()
        let status = fc_jpeg_decoder_open(d, input.file, input.memoryBase, input.memoryCount, &header)
        guard status == FC_OK else { throw JPEGDecoder.failure(d, status, input.name) }
        width = Int(header.width)
        height = Int(header.height)
        guard header.output_channels == 1 || header.output_channels == 3 else {
            throw CodecError(input.name, .unsupported("unsupported JPEG colour space (\(header.components) components)"))
        }
        var metadata = ImageMetadata()
        var length = 0
        if let icc = fc_jpeg_decoder_icc(d, &length), length > 0 {
            metadata.iccProfile = Array(UnsafeBufferPointer(start: icc, count: length))
        }
        if let exif = fc_jpeg_decoder_exif(d, &length), length > 0 {
            metadata.exif = Array(UnsafeBufferPointer(start: exif, count: length))
        }
        let cmyk = header.color == FC_JPEG_COLOR_CMYK || header.color == FC_JPEG_COLOR_YCCK
        // Inks are kept for a colour engine when the file says what they mean; otherwise a
        // CMYK profile describes inks that are not delivered: it is kept out.
        inks = cmyk && options.keepsInks && metadata.iccColorSpace == "CMYK"
        if inks { fc_jpeg_decoder_keep_inks(d) }
        if cmyk && !inks && metadata.iccColorSpace != "RGB " {
            metadata.iccProfile = nil
        }
        format = inks ? PixelFormat(.rgba, .eight) : PixelFormat(header.output_channels == 1 ? .grey : .rgb, .eight)
        let hasMPF = JPEGDecoder.readMarkers(d, into: &metadata)
        let found = hasMPF ? input.allBytesAside().map { GainMap.read(jpeg: $0) } : nil
        gainMap = found?.search ?? .none
        if case .found(let map)? = found?.search, let jpeg = found?.jpeg { metadata.gainMap = GainMapImage(map: map, jpeg: jpeg) }
        self.metadata = metadata
        try ImageReader.checkLimit(input.name, width: width, height: height, options: options)
    }

    /// Decoding starts at the first read, so that a scale can be set before.
    private func start() throws {
        if started { return }
        let status = fc_jpeg_decoder_start(d)
        guard status == FC_OK else { throw JPEGDecoder.failure(d, status, input.name) }
        started = true
    }

    var canShrink: Bool { !started }

    // The input (its memory, its FILE) goes away with this object's properties, in no set
    // order: stop the entropy thread, which reads it, first.
    deinit { fc_jpeg_decoder_release_input(d) }

    /// Starts decoding now: the entropy thread then works while the pipeline is set up. A
    /// failure to start is thrown by the first read.
    func decodeInParallel(minimumMCUs: Int, chunkMCUs: Int, splitMCUs: Int) {
        guard !started else { return }
        fc_jpeg_decoder_parallel(d, UInt32(clamping: minimumMCUs), UInt32(clamping: chunkMCUs), UInt32(clamping: splitMCUs))
        try? start()
    }

    var decodesInParallel: Bool { fc_jpeg_decoder_is_parallel(d) != 0 }

    var entropyPath: (ownDecoderOnly: Bool, split: Bool) {
        let path = fc_jpeg_decoder_entropy_path(d)
        return (path & 1 != 0, path & 2 != 0)
    }

    func shrink(by denominator: Int) throws {
        var w: UInt32 = 0, h: UInt32 = 0
        let status = fc_jpeg_decoder_scale(d, UInt32(denominator), &w, &h)
        guard status == FC_OK else { throw JPEGDecoder.failure(d, status, input.name) }
        width = Int(w)
        height = Int(h)
    }


    /// XMP, extended XMP and comments from the saved markers; JFIF density; the quality
    /// estimated from the quantisation tables and the chroma subsampling. True when an MPF
    /// index says that more images follow the primary.
    static func readMarkers(_ d: OpaquePointer, into metadata: inout ImageMetadata) -> Bool {
        var hasMPF = false
        var extensionSegments: [[UInt8]] = []
        var index: Int32 = 0
        var marker: Int32 = 0
        var length = 0
        while let p = fc_jpeg_decoder_marker(d, index, &marker, &length) {
            index += 1
            let bytes = Array(UnsafeBufferPointer(start: p, count: length))
            if marker == 0xE2 {
                hasMPF = true
            } else if marker == 0xFE {
                metadata.comments.append(bytes)
            } else if bytes.starts(with: XMP.jpegPrefix), metadata.xmp == nil {
                metadata.xmp = Array(bytes[XMP.jpegPrefix.count...])
            } else if bytes.starts(with: XMP.jpegExtensionPrefix) {
                extensionSegments.append(bytes)
            }
        }
        metadata.extendedXMP = XMP.extended(fromJPEGSegments: extensionSegments)
        var unit: Int32 = 0, x: Int32 = 0, y: Int32 = 0
        // 1:1 with no unit says nothing (it is what libjpeg writes by default).
        if fc_jpeg_decoder_density(d, &unit, &x, &y) != 0, x > 0, y > 0, !(unit == 0 && x == y) {
            let u: Resolution.Unit = switch unit {
            case 1: .perInch
            case 2: .perCentimetre
            default: .aspectRatio
            }
            metadata.resolution = Resolution(x: Double(x), y: Double(y), unit: u)
        }
        var tables: [[UInt16]?] = []
        for i in Int32(0)..<4 {
            var table = [UInt16](repeating: 0, count: 64)
            tables.append(fc_jpeg_decoder_quant_table(d, i, &table) != 0 ? table : nil)
        }
        while tables.count > 1, tables.last! == nil { tables.removeLast() }
        var h: Int32 = 0, v: Int32 = 0
        var chroma: ChromaSubsampling?
        if fc_jpeg_decoder_sampling(d, &h, &v) != 0 {
            switch (h, v) {
            case (1, 1): chroma = .yuv444
            case (2, 1): chroma = .yuv422
            case (2, 2): chroma = .yuv420
            default: chroma = nil
            }
        }
        let quality = JPEGEncoding.estimateQuality(tables)
        metadata.sourceJPEG = JPEGEncoding(quality: quality, chroma: chroma,
                                           standardTables: quality.map { JPEGEncoding.areStandard(tables, quality: $0) } ?? false)
        return hasMPF
    }

    static func failure(_ d: OpaquePointer, _ status: fc_status, _ name: String) -> CodecError {
        .reading(name, status, message: reportString(fc_jpeg_decoder_report(d).pointee.message), format: .jpeg)
    }

    func readRows(into destination: UnsafeMutableRawPointer, stride: Int, rows: Int) throws {
        try start()
        let status = fc_jpeg_decoder_read(d, destination.assumingMemoryBound(to: UInt8.self), stride, UInt32(rows))
        if status != FC_OK { throw JPEGDecoder.failure(d, status, input.name) }
    }

    func readWholeImage(into destination: UnsafeMutableRawPointer, stride: Int) throws {
        try readRows(into: destination, stride: stride, rows: height)
    }

    func finish() throws {
        try start()
        let status = fc_jpeg_decoder_finish(d)
        if status != FC_OK { throw JPEGDecoder.failure(d, status, input.name) }
    }

    var harmlessDamage: [String] {
        let flags = fc_jpeg_decoder_report(d).pointee.harmless
        var notices: [String] = []
        if flags & FC_JPEG_STRAY_BYTES.rawValue != 0 { notices.append("stray bytes between JPEG segments were skipped (harmless damage)") }
        if flags & FC_JPEG_BAD_ICC.rawValue != 0 { notices.append("the ICC profile's segments are damaged; the profile was dropped, so colours may look different") }
        if flags & FC_JPEG_BAD_EXIF.rawValue != 0 { notices.append("a damaged EXIF block was dropped") }
        if flags & FC_JPEG_DUPLICATE_EXIF.rawValue != 0 { notices.append("a second EXIF block was dropped (the first is kept)") }
        switch gainMap {
        case .none, .found: break
        case .damaged(let why):
            notices.append("an HDR gain map was left out: \(why) (harmless damage: the SDR image is whole)")
        }
        return notices
    }

    var warnings: [String] {
        let report = fc_jpeg_decoder_report(d).pointee
        return warningList(first: reportString(report.first_warning), count: UInt32(report.warning_count))
    }
}
