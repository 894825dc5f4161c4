import CPNG

/// libpng through the fc_png shim.
final class PNGDecoder: StoredDecoder {
    private let handle: CHandle
    private var d: OpaquePointer { handle.pointer }
    private let input: OpenedInput
    let width: Int
    let height: Int
    let format: PixelFormat
    let metadata: ImageMetadata
    let readsWholeImageOnly: Bool

    init(_ input: OpenedInput, options: DecodeOptions) throws {
        // The limit is checked from IHDR in the first bytes, before libpng reads (and
        // allocates for) any other chunk.
        let p = input.prefix
        if p.count >= 24, Array(p[12..<16]) == Array("IHDR".utf8) {
            let be = { (i: Int) in Int(p[i]) << 24 | Int(p[i + 1]) << 16 | Int(p[i + 2]) << 8 | Int(p[i + 3]) }
            try ImageReader.checkLimit(input.name, width: be(16), height: be(20), options: options)
        }
        guard let d = fc_png_decoder_new(options.lenient ? 0 : 1) else {
            throw CodecError(input.name, .outOfMemory)
        }
        self.handle = CHandle(d, free: fc_png_decoder_free)
        self.input = input
        self.lenient = options.lenient
        var h = fc_png_header()
        let status = fc_png_decoder_open(d, input.file, 0, input.memoryBase, input.memoryCount, &h)
        guard status == FC_OK else { throw PNGDecoder.failure(d, status, input.name) }
        width = Int(h.width)
        height = Int(h.height)
        readsWholeImageOnly = h.interlaced != 0
        let channels = Channels(rawValue: Int(h.channels)) ?? .rgba
        format = PixelFormat(channels, h.depth == 16 ? .sixteen : .eight)
        var metadata = ImageMetadata()
        var length = 0
        if let icc = fc_png_decoder_icc(d, &length), length > 0 {
            metadata.iccProfile = Array(UnsafeBufferPointer(start: icc, count: length))
        }
        if let exif = fc_png_decoder_exif(d, &length), length > 0 {
            metadata.exif = Array(UnsafeBufferPointer(start: exif, count: length))
        }
        // libpng reports gAMA and cHRM values that sRGB implies as if stored: keep only the
        // chunks the file has, so that outputs add nothing.
        let scan = PNGChunkScan(input)
        var color = PNGColorChunks()
        if h.has_srgb != 0, scan.present.contains("sRGB") { color.srgbIntent = Int(h.srgb_intent) }
        if h.has_gamma != 0, scan.present.contains("gAMA") { color.gamma = h.gamma }
        if h.has_chrm != 0, scan.present.contains("cHRM") {
            color.chromaticities = withUnsafeBytes(of: h.chrm) { Array($0.bindMemory(to: UInt32.self)) }
        }
        if !color.isEmpty { metadata.pngColor = color }
        PNGDecoder.readTextAndResolution(scan.chunks, into: &metadata)
        self.metadata = metadata
        try ImageReader.checkLimit(input.name, width: width, height: height, options: options)
    }


    /// XMP (iTXt "XML:com.adobe.xmp"), pHYs, cICP (as the nclx it is: primaries, transfer,
    /// matrix, full range), and the other text and time chunks as stored.
    static func readTextAndResolution(_ chunks: [PNGChunk], into metadata: inout ImageMetadata) {
        for chunk in chunks {
            if chunk.type == "cICP" {
                guard chunk.data.count == 4, metadata.nclx == nil else { continue }
                let d = chunk.data
                metadata.nclx = NCLXColor(colourPrimaries: UInt16(d[0]), transferCharacteristics: UInt16(d[1]),
                                          matrixCoefficients: UInt16(d[2]), fullRange: d[3] == 1)
            } else if chunk.type == "pHYs" {
                guard chunk.data.count == 9, metadata.resolution == nil else { continue }
                let x = Double(XMP.read32(chunk.data, 0)), y = Double(XMP.read32(chunk.data, 4))
                guard x > 0, y > 0 else { continue }
                metadata.resolution = Resolution(x: x, y: y, unit: chunk.data[8] == 1 ? .perMetre : .aspectRatio)
            } else if chunk.type == "iTXt", metadata.xmp == nil, let text = chunk.text, text.keyword == XMP.pngKeyword {
                metadata.xmp = text.text
            } else {
                metadata.pngChunks.append(chunk)
            }
        }
    }

    static func failure(_ d: OpaquePointer, _ status: fc_status, _ name: String) -> CodecError {
        .reading(name, status, message: reportString(fc_png_decoder_report(d).pointee.message), format: .png)
    }

    private let lenient: Bool
    private var damage: [String] = []

    func readRows(into destination: UnsafeMutableRawPointer, stride: Int, rows: Int) throws {
        if !damage.isEmpty {
            // Leniently, rows after the damage are transparent black.
            for r in 0..<rows { (destination + r * stride).initializeMemory(as: UInt8.self, repeating: 0, count: width * format.bytesPerPixel) }
            return
        }
        let status = fc_png_decoder_read(d, destination.assumingMemoryBound(to: UInt8.self), stride, UInt32(rows))
        if status != FC_OK {
            let error = PNGDecoder.failure(d, status, input.name)
            guard lenient, case .corrupt(_, let why) = error.reason else { throw error }
            damage.append(why)
            // libpng stopped somewhere in this strip; which rows it finished is not known.
            for r in 0..<rows { (destination + r * stride).initializeMemory(as: UInt8.self, repeating: 0, count: width * format.bytesPerPixel) }
        }
    }

    func readWholeImage(into destination: UnsafeMutableRawPointer, stride: Int) throws {
        let status = fc_png_decoder_read_image(d, destination.assumingMemoryBound(to: UInt8.self), stride)
        if status != FC_OK { throw PNGDecoder.failure(d, status, input.name) }
    }

    func finish() throws {
        if !damage.isEmpty { return }
        let status = fc_png_decoder_finish(d)
        if status != FC_OK { throw PNGDecoder.failure(d, status, input.name) }
    }

    var harmlessDamage: [String] {
        let report = fc_png_decoder_report(d).pointee
        var notices: [String] = []
        let iccProblem = reportString(report.icc_problem)
        if !iccProblem.isEmpty {
            notices.append("its ICC profile cannot be used (libpng: \(iccProblem)); the pixels are taken as sRGB")
        }
        guard report.dropped_count > 0 else { return notices }
        let names = reportString(report.dropped_chunks).split(separator: " ").map(String.init)
        let more = Int(report.dropped_count) - names.count
        let list = names.joined(separator: ", ") + (more > 0 ? " and \(more) more" : "")
        return notices + ["ancillary chunks with a bad CRC were dropped: \(list)"
                          + (names.contains("iCCP") ? "; without the ICC profile colours may look different" : "")]
    }

    var warnings: [String] {
        let report = fc_png_decoder_report(d).pointee
        return damage + warningList(first: reportString(report.first_warning), count: UInt32(report.warning_count))
    }
}
