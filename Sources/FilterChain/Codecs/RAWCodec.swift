#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CRAW

/// How a camera RAW is developed: LibRaw's own processing with these settings (filters.md,
/// "RAW input"), into 16-bit linear ProPhoto RGB.
public struct RAWDevelopment: Sendable, Hashable {
    /// The white balance: the camera's as-shot multipliers, LibRaw's grey-world estimate,
    /// daylight (the camera matrix's D65 white), or a light of a colour temperature in kelvin.
    public enum WhiteBalance: Sendable, Hashable, CustomStringConvertible {
        case camera, auto, daylight
        case kelvin(Int)

        /// `camera`, `auto`, `daylight` or a temperature 2000 to 25000 ("5500" or "5500K").
        public init?(parsing text: String) {
            switch text.lowercased() {
            case "camera": self = .camera
            case "auto": self = .auto
            case "daylight": self = .daylight
            default:
                var t = text.lowercased()
                if t.hasSuffix("k") { t.removeLast() }
                guard let k = Int(t), (2000...25000).contains(k) else { return nil }
                self = .kelvin(k)
            }
        }

        public var description: String {
            switch self {
            case .camera: "camera"
            case .auto: "auto"
            case .daylight: "daylight"
            case .kelvin(let k): "\(k)K"
            }
        }
    }

    /// LibRaw's demosaic algorithms (its `user_qual`).
    public enum Demosaic: String, Sendable, Hashable, CaseIterable {
        case ahd, dcb, dht, aahd, ppg, linear

        var libraw: Int32 {
            switch self {
            case .linear: 0
            case .ppg: 2
            case .ahd: 3
            case .dcb: 4
            case .dht: 11
            case .aahd: 12
            }
        }
    }

    /// What becomes of clipped highlights (LibRaw's `highlight`): clipped to white, left
    /// unclipped (tinted), blended, or rebuilt (LibRaw's level 5, rawpy's default rebuild).
    public enum Highlights: String, Sendable, Hashable, CaseIterable {
        case clip, unclip, blend, rebuild

        var libraw: Int32 {
            switch self {
            case .clip: 0
            case .unclip: 1
            case .blend: 2
            case .rebuild: 5
            }
        }
    }

    public var whiteBalance: WhiteBalance
    public var demosaic: Demosaic
    public var highlights: Highlights
    /// Use the camera's embedded JPEG preview instead of developing when it is at least the
    /// size the chain's first step needs (`--raw-preview`; contact sheets, photo managers).
    public var preview: Bool

    public init(whiteBalance: WhiteBalance = .camera, demosaic: Demosaic = .ahd, highlights: Highlights = .clip,
                preview: Bool = false) {
        self.whiteBalance = whiteBalance
        self.demosaic = demosaic
        self.highlights = highlights
        self.preview = preview
    }
}

/// What `filterchain info` shows of a camera RAW, from LibRaw.
public struct CameraRAWInfo: Sendable, Hashable, CustomStringConvertible {
    public var make: String
    public var model: String
    public var lens: String
    /// The colour filter pattern: "RGGB", "BGGR", "GRBG", "GBRG", "X-Trans" or "none".
    public var pattern: String
    public var blackLevel: Int
    public var whiteLevel: Int
    /// The camera's white balance multipliers (R, G, B), green 1; empty when it has none.
    public var asShot: [Double]
    /// "1.4.0.0" for a DNG.
    public var dngVersion: String?
    /// The sensor's samples.
    public var sensorWidth: Int
    public var sensorHeight: Int
    /// The orientation LibRaw applied (as an EXIF Orientation, 1 when upright as stored).
    public var orientation: Int
    /// The camera's embedded preview (0 x 0 when it has none) and whether it may be a JPEG
    /// (LibRaw tells for sure only once it reads it).
    public var previewWidth: Int
    public var previewHeight: Int
    public var previewIsJPEG: Bool
    /// How it was developed ("camera white balance, AHD, highlights clip").
    public var development: String

    public var description: String {
        var parts = [RAWCodec.trimmed("\(make) \(model)")]
        if let dngVersion { parts.append("DNG \(dngVersion)") }
        parts.append("sensor \(sensorWidth) x \(sensorHeight), \(pattern)")
        parts.append("black \(blackLevel), white \(whiteLevel)")
        if !asShot.isEmpty { parts.append("as shot R \(fmt(asShot[0])) G 1 B \(fmt(asShot[2]))") }
        if !lens.isEmpty { parts.append("lens \(lens)") }
        parts.append(development)
        return parts.joined(separator: "; ")
    }

    private func fmt(_ v: Double) -> String { String(Double((v * 1000).rounded()) / 1000) }
}

/// Camera RAW, declared once: LibRaw (LGPL-2.1 or CDDL-1.0) through the fc_raw shim develops
/// DNG and the cameras' formats. Read only.
enum RAWCodec {
    static let declaration = FormatDeclaration(
        format: .raw, name: "camera RAW",
        summary: "DNG, CR2, CR3, NEF, ARW, RAF, ORF, RW2, PEF and the rest LibRaw reads; developed (black/white levels, white balance, demosaic, highlights, camera matrix) into 16-bit linear light; read only",
        extensions: ["dng", "cr2", "cr3", "crw", "nef", "nrw", "arw", "srf", "sr2", "raf", "orf", "rw2", "rwl", "pef", "srw",
                     "erf", "3fr", "fff", "iiq", "mos", "mrw", "x3f", "dcr", "kdc", "mef", "raw"],
        mediaType: "image/x-dcraw",
        capabilities: FormatCapabilities(alpha: false, depths: [.sixteen], grey: false, metadata: [.exif, .xmp]),
        options: [],
        // The formats with a signature of their own; TIFF-structured ones (DNG, CR2, NEF, ARW,
        // PEF, ...) are told from a TIFF by `claims`.
        signature: { b in
            let ascii = { (s: String) in Array(s.utf8) }
            return FormatDeclaration.starts(b, with: ascii("FUJIFILMCCD-RAW"))          // RAF
                || FormatDeclaration.starts(b, with: ascii("IIRO")) || FormatDeclaration.starts(b, with: ascii("IIRS"))
                || FormatDeclaration.starts(b, with: ascii("MMOR"))                     // ORF
                || FormatDeclaration.starts(b, with: [0x49, 0x49, 0x55, 0x00])          // RW2, RWL
                || (FormatDeclaration.starts(b, with: ascii("ftyp"), at: 4) && FormatDeclaration.starts(b, with: ascii("crx "), at: 8))  // CR3
                || FormatDeclaration.starts(b, with: [0x00, 0x4D, 0x52, 0x4D])          // MRW
                || FormatDeclaration.starts(b, with: ascii("FOVb"))                     // X3F
                || FormatDeclaration.starts(b, with: ascii("HEAPCCDR"), at: 6)          // CRW
        },
        decoder: { input, options in try RAWDecoder(input, options: options) },
        encoder: nil,
        library: { fc_raw_library_error().map { String(cString: $0) } },
        claim: FormatClaim(refines: .tiff, test: RAWCodec.claims))

    static func trimmed(_ s: String) -> String {
        String(s.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }

    /// EXIF data made from what LibRaw parsed of a file's own (for RAWs that are not
    /// TIFF-structured): Make, Model, DateTime in IFD0; ExposureTime, FNumber, ISO,
    /// DateTimeOriginal, FocalLength, LensModel in the Exif IFD; the position in the GPS IFD.
    /// Nil when there is nothing to say.
    static func exif(_ info: fc_raw_info) -> [UInt8]? {
        typealias Entry = TIFFDirectory.Entry
        func ascii(_ tag: UInt16, _ text: String) -> Entry? {
            let bytes = Array(text.utf8) + [0]
            return text.isEmpty ? nil : Entry(tag: tag, type: 2, count: UInt32(bytes.count), value: bytes)
        }
        func u32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * UInt32($0))) & 0xFF) } }
        func rationals(_ tag: UInt16, _ values: [(UInt32, UInt32)]) -> Entry {
            Entry(tag: tag, type: 5, count: UInt32(values.count), value: values.flatMap { u32($0.0) + u32($0.1) })
        }
        /// A positive value as a rational: 1/n for exposures under a second, else thousandths.
        func rational(_ v: Float, reciprocal: Bool = false) -> (UInt32, UInt32) {
            if reciprocal && v > 0 && v < 1 { return (1, UInt32(min(Float(UInt32.max), (1 / v).rounded()))) }
            return (UInt32(min(Float(UInt32.max / 1000), max(0, v)) * 1000), 1000)
        }
        var date = ""
        if info.timestamp > 0 {
            var t = time_t(info.timestamp), parts = tm()
            localtime_r(&t, &parts)
            func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
            date = "\(parts.tm_year + 1900):\(two(parts.tm_mon + 1)):\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
        }
        var shot: [Entry] = []
        if info.shutter > 0 { shot.append(rationals(33434, [rational(info.shutter, reciprocal: true)])) }
        if info.aperture > 0 { shot.append(rationals(33437, [rational(info.aperture)])) }
        if info.iso > 0 {
            let iso = UInt16(min(65535, info.iso.rounded()))
            shot.append(Entry(tag: 34855, type: 3, count: 1, value: [UInt8(iso & 0xFF), UInt8(iso >> 8)]))
        }
        if let e = ascii(36867, date) { shot.append(e) }
        if info.focal_length > 0 { shot.append(rationals(37386, [rational(info.focal_length)])) }
        if let e = ascii(42036, RAWDecoder.string(info.lens)) { shot.append(e) }
        var ifd0 = [ascii(271, RAWDecoder.string(info.make)), ascii(272, RAWDecoder.string(info.model)), ascii(306, date)].compactMap { $0 }
        if !shot.isEmpty {
            ifd0.append(Entry(tag: TIFFDirectory.exifPointer, type: 4, count: 1, value: u32(0), directory: TIFFDirectory(entries: shot)))
        }
        if info.gps != 0 {
            let lat = [info.gps_latitude.0, info.gps_latitude.1, info.gps_latitude.2]
            let long = [info.gps_longitude.0, info.gps_longitude.1, info.gps_longitude.2]
            let gps: [Entry] = [
                Entry(tag: 0, type: 1, count: 4, value: [2, 2, 0, 0]),
                Entry(tag: 1, type: 2, count: 2, value: [UInt8(bitPattern: info.gps_latitude_ref), 0]),
                rationals(2, lat.map { rational($0) }),
                Entry(tag: 3, type: 2, count: 2, value: [UInt8(bitPattern: info.gps_longitude_ref), 0]),
                rationals(4, long.map { rational($0) }),
                Entry(tag: 5, type: 1, count: 1, value: [info.gps_altitude_ref == 1 ? 1 : 0]),
                rationals(6, [rational(abs(info.gps_altitude))]),
            ]
            ifd0.append(Entry(tag: TIFFDirectory.gpsPointer, type: 4, count: 1, value: u32(0), directory: TIFFDirectory(entries: gps)))
        }
        return ifd0.isEmpty ? nil : TIFFDirectory(entries: ifd0).exifData
    }

    static let dngVersionTag: UInt16 = 50706
    static let makeTag: UInt16 = 271
    static let whiteLevelTag: UInt16 = 50717

    /// Whether a file sniffed as TIFF is a camera's RAW: a DNG (its DNGVersion tag), a CR2
    /// ("CR" after the header), or a TIFF with a camera's Make that LibRaw opens as a RAW
    /// (NEF, ARW, PEF, SRW, ...; a camera's plain TIFF stays TIFF).
    static func claims(_ input: OpenedInput) -> Bool {
        if FormatDeclaration.starts(input.prefix, with: [0x43, 0x52, 0x02], at: 8) { return true }
        let wanted: Set<UInt16> = [dngVersionTag, makeTag]
        func ifd0(_ bytes: some TIFFBytes) -> TIFFDirectory? {
            guard let (layout, first) = TIFFDirectory.header(bytes) else { return nil }
            return TIFFDirectory(bytes, at: first, layout: layout, keeping: wanted.contains)
        }
        let directory: TIFFDirectory?
        if let (fd, size) = input.regularFile() {
            directory = ifd0(FileBytes(fd: fd, count: size))
        } else if let base = input.memoryBase {
            directory = ifd0(UnsafeRawBufferPointer(start: base, count: input.memoryCount))
        } else {
            directory = nil
        }
        guard let directory else { return false }
        if directory[dngVersionTag] != nil { return true }
        guard let make = directory.text(makeTag), !RAWCodec.trimmed(make).isEmpty,
              fc_raw_library_error() == nil else { return false }
        if input.regularFile() != nil { return fc_raw_identify_file(input.name) != 0 }
        return fc_raw_identify_buffer(input.memoryBase, input.memoryCount) != 0
    }
}

/// LibRaw through the fc_raw shim. The file's headers are read when it opens (size, camera,
/// levels; no raw data); the raw data is unpacked and developed at the first row, once the
/// render has chosen half size or not, into LibRaw's buffer, from which rows are copied
/// upright as they are asked for (no second copy of the image).
final class RAWDecoder: StoredDecoder {
    private let handle: CHandle
    private var d: OpaquePointer { handle.pointer }
    private let input: OpenedInput
    private let development: RAWDevelopment
    private let lenient: Bool
    private var developedWidth: Int
    private var developedHeight: Int
    var width: Int { preview?.width ?? developedWidth }
    var height: Int { preview?.height ?? developedHeight }
    private let halfSize: (width: Int, height: Int)
    private let mosaic: Bool
    private var half = false
    private var developed = false
    private var nextRow = 0
    var format: PixelFormat { preview?.format ?? PixelFormat(.rgb, .sixteen) }
    var metadata: ImageMetadata { previewMetadata ?? rawMetadata }
    private var rawMetadata: ImageMetadata
    private var rawWarnings: [String] = []
    let harmlessDamage: [String] = []

    init(_ input: OpenedInput, options: DecodeOptions) throws {
        try RAWCodec.declaration.requireLibrary(input.name)
        let bytes = try input.bytesInMemory()
        guard let d = fc_raw_decoder_new(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count) else {
            throw CodecError(input.name, .outOfMemory)
        }
        handle = CHandle(d, free: fc_raw_decoder_free)
        self.input = input
        development = options.raw
        lenient = options.lenient
        var info = fc_raw_info()
        // LibRaw's own cap on its raw buffer follows the pixel limit (8 bytes a pixel at most).
        let capMB = options.maxPixels > 0 ? UInt32(clamping: max(64, options.maxPixels / (1 << 17))) : 0
        let status = fc_raw_decoder_open(d, &info, 0, capMB)
        guard status == FC_OK else { throw RAWDecoder.failure(d, status, input.name) }
        // LibRaw takes a DNG's WhiteLevel of 0 as none given (and develops against 16 bits); the
        // specification has it above the black level, so such a file is refused (IFD0's, where
        // the raw image of a one-image DNG is).
        if info.dng_version != 0, let (layout, first) = TIFFDirectory.header(bytes),
           TIFFDirectory(bytes, at: first, layout: layout, keeping: { $0 == RAWCodec.whiteLevelTag })?.integer(RAWCodec.whiteLevelTag) == 0 {
            throw CodecError(input.name, .corrupt(format: .raw, "its WhiteLevel tag is 0 (a white level must be above the black level)"))
        }
        try ImageReader.checkLimit(input.name, width: Int(info.raw_width), height: Int(info.raw_height), options: options)
        try ImageReader.checkLimit(input.name, width: Int(info.width), height: Int(info.height), options: options)
        developedWidth = Int(info.width)
        developedHeight = Int(info.height)
        halfSize = (Int(info.half_width), Int(info.half_height))
        mosaic = info.bayer != 0
        var metadata = ImageMetadata()
        var length = 0
        if let p = fc_raw_decoder_xmp(d, &length), length > 0 {
            metadata.xmp = XMP.withOrientationReset(Array(UnsafeBufferPointer(start: p, count: length)))
        }
        // EXIF as the file holds it where it is TIFF-structured (DNG, CR2, NEF, ARW, PEF, ...);
        // LibRaw applies the orientation, so the kept EXIF says upright.
        if let exif = TIFFExif.exifData(fromTIFF: bytes) {
            metadata.exif = Exif.withOrientationReset(exif)
        } else {
            // CR3, RAF, ORF, RW2, ...: LibRaw parses their EXIF into fields and gives no block;
            // the fields that describe the shot are written back as EXIF.
            metadata.exif = RAWCodec.exif(info)
        }
        let asShot = [info.as_shot.0, info.as_shot.1, info.as_shot.2]
        metadata.cameraRAW = CameraRAWInfo(
            make: RAWDecoder.string(info.make), model: RAWDecoder.string(info.model), lens: RAWDecoder.string(info.lens),
            pattern: info.xtrans != 0 ? "X-Trans" : info.bayer != 0 ? RAWDecoder.string(info.cfa) : "none",
            blackLevel: Int(info.black), whiteLevel: Int(info.white),
            asShot: asShot.allSatisfy { $0 > 0 } ? asShot.map { Double($0 / asShot[1]) } : [],
            dngVersion: info.dng_version == 0 ? nil : (0..<4).map { String((info.dng_version >> (24 - 8 * $0)) & 0xFF) }.joined(separator: "."),
            sensorWidth: Int(info.raw_width), sensorHeight: Int(info.raw_height), orientation: Int(info.orientation),
            previewWidth: Int(info.thumb_width), previewHeight: Int(info.thumb_height), previewIsJPEG: info.thumb_jpeg != 0,
            development: "\(development.whiteBalance) white balance, \(development.demosaic.rawValue.uppercased()), highlights \(development.highlights.rawValue)")
        if development.whiteBalance == .camera && !asShot.allSatisfy({ $0 > 0 }) {
            rawWarnings.append("\(input.name): the file has no as-shot white balance; LibRaw's daylight balance was used")
        }
        rawMetadata = metadata
    }

    /// A fixed C string field as a Swift string.
    static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            RAWCodec.trimmed(String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self))
        }
    }

    static func failure(_ d: OpaquePointer, _ status: fc_status, _ name: String) -> CodecError {
        .reading(name, status, message: reportString(fc_raw_decoder_report(d).pointee.message), format: .raw)
    }

    /// The camera's JPEG preview, read instead of the development (`--raw-preview`).
    private var preview: StoredDecoder?
    private var previewOrientation: Orientation?

    var orientationTag: Orientation? { previewOrientation }
    var readsWholeImageOnly: Bool { preview?.readsWholeImageOnly ?? false }
    var canShrink: Bool { preview == nil && mosaic && !developed }

    /// `--raw-preview`: the embedded JPEG, when it is at least `minimum` upright and of the
    /// image's shape (within 2%). It is what the camera made of the scene (sRGB, its own
    /// development), turned by the RAW's orientation; its EXIF and XMP are the RAW's.
    func substitute(atLeast minimum: ImageSize) throws -> Bool {
        guard development.preview, preview == nil, !developed, let camera = metadata.cameraRAW, camera.previewIsJPEG else { return false }
        let orientation = Orientation(rawValue: camera.orientation) ?? .up
        let (w, h) = orientation.swapsAxes ? (camera.previewHeight, camera.previewWidth) : (camera.previewWidth, camera.previewHeight)
        guard w >= minimum.width, h >= minimum.height, w > 0, h > 0,
              abs(Double(w) / Double(h) - Double(width) / Double(height)) <= 0.02 * Double(width) / Double(height)
        else { return false }
        var bytes: UnsafePointer<UInt8>?
        var length = 0
        let status = fc_raw_decoder_thumbnail(d, &bytes, &length)
        // A preview that is not a JPEG after all: the RAW is developed.
        if status == FC_UNSUPPORTED { return false }
        guard status == FC_OK, let bytes else { throw RAWDecoder.failure(d, status, input.name) }
        let jpeg = try OpenedInput.open(.bytes(Array(UnsafeBufferPointer(start: bytes, count: length)), name: input.name + " (its preview)"))
        guard jpeg.format == .jpeg, let make = jpeg.format.declaration.decoder else {
            throw CodecError(input.name, .corrupt(format: .raw, "its embedded preview is not a JPEG"))
        }
        let decoder = try make(jpeg, DecodeOptions(maxPixels: 0, autoOrient: false, lenient: lenient))
        var kept = decoder.metadata
        kept.exif = metadata.exif
        kept.xmp = metadata.xmp
        preview = decoder
        previewOrientation = orientation
        previewMetadata = kept
        return true
    }
    private var previewMetadata: ImageMetadata?
    /// Half size: LibRaw takes one pixel per 2x2 block of the mosaic (no demosaic), exact in
    /// linear light; worth it whenever the chain's first step shrinks by 2 or more.
    var shrinkOnLoad: ShrinkOnLoad { ShrinkOnLoad(factors: [2], margin: 1, averagesEncodedValues: false) }

    func shrink(by denominator: Int) throws {
        precondition(denominator == 2 && canShrink, "a RAW shrinks by 2 only, before its first row")
        half = true
        developedWidth = halfSize.width
        developedHeight = halfSize.height
        rawMetadata.cameraRAW?.development += ", half size"
    }

    private func develop() throws {
        var s = fc_raw_settings()
        switch development.whiteBalance {
        case .camera: s.white_balance = FC_RAW_WB_CAMERA
        case .auto: s.white_balance = FC_RAW_WB_AUTO
        case .daylight: s.white_balance = FC_RAW_WB_DAYLIGHT
        case .kelvin(let k):
            s.white_balance = FC_RAW_WB_KELVIN
            s.kelvin = Int32(k)
        }
        s.demosaic = development.demosaic.libraw
        s.highlights = development.highlights.libraw
        s.half_size = half ? 1 : 0
        let status = fc_raw_decoder_develop(d, &s, lenient ? 1 : 0)
        guard status == FC_OK else { throw RAWDecoder.failure(d, status, input.name) }
        if fc_raw_decoder_damage(d) > 0 {
            rawWarnings.append("\(input.name): \(reportString(fc_raw_decoder_report(d).pointee.message)); decoded as far as it goes (--lenient)")
        }
        var w: UInt32 = 0, h: UInt32 = 0
        fc_raw_decoder_size(d, &w, &h)
        guard Int(w) == width && Int(h) == height else {
            throw CodecError(input.name, .unsupported("LibRaw developed \(w) x \(h) pixels where its header said \(width) x \(height) (a sensor layout filterchain does not handle)"))
        }
        developed = true
    }

    func readRows(into destination: UnsafeMutableRawPointer, stride: Int, rows: Int) throws {
        if let preview { return try preview.readRows(into: destination, stride: stride, rows: rows) }
        if !developed { try develop() }
        let status = fc_raw_decoder_rows(d, destination.assumingMemoryBound(to: UInt16.self), stride, UInt32(nextRow), UInt32(rows))
        guard status == FC_OK else { throw RAWDecoder.failure(d, status, input.name) }
        nextRow += rows
    }

    func readWholeImage(into destination: UnsafeMutableRawPointer, stride: Int) throws {
        if let preview { return try preview.readWholeImage(into: destination, stride: stride) }
        try readRows(into: destination, stride: stride, rows: height - nextRow)
    }

    var warnings: [String] { rawWarnings + (preview?.warnings ?? []) }

    func finish() throws { try preview?.finish() }
}
