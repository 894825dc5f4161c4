import CJPEG
import CPNG

/// How images are read.
public struct DecodeOptions: Sendable, Hashable {
    /// The most pixels an image may have, checked from its header before any pixel memory
    /// is allocated; 0 means no limit.
    public var maxPixels: Int
    /// Turn images upright by their EXIF Orientation, in the formats that apply it (JPEG,
    /// WebP: `FormatCapabilities.exifOrientation`).
    public var autoOrient: Bool
    /// Decode damaged data as far as possible; the damage becomes warnings instead of errors.
    public var lenient: Bool
    /// Refuse a file for harmless damage too (`ImageReader.harmlessDamage`: a damaged EXIF
    /// block, stray bytes, a gain map that cannot be read, ...), which is otherwise dropped
    /// with a notice: for pipelines that must not accept a partial result. The opposite of
    /// `lenient`; the two cannot be set together.
    public var strict = false
    /// For a CMYK image that carries a CMYK ICC profile: deliver the ink amounts as stored
    /// (`ImageInfo.inks`) for a colour engine to convert with the profile, instead of RGB by
    /// the naive formula. The renderer sets it; its colour management converts them.
    public var keepsInks = false
    /// How a camera RAW is developed (`--raw-wb`, `--raw-demosaic`, `--raw-highlights`).
    public var raw = RAWDevelopment()

    public static let defaultMaxPixels = 178_956_970

    public init(maxPixels: Int = DecodeOptions.defaultMaxPixels, autoOrient: Bool = true,
                lenient: Bool = false, strict: Bool = false) {
        self.maxPixels = maxPixels
        self.autoOrient = autoOrient
        self.lenient = lenient
        self.strict = strict
    }
}

/// What a reader delivers: the upright size, the stored pixel layout and the metadata.
public struct ImageInfo: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public var format: PixelFormat
    public var metadata: ImageMetadata
    /// The format of the file or bytes decoded; nil for pixels already in memory (a
    /// `RasterImage` made in memory or by a render).
    public var sourceFormat: ImageFormat?
    /// The EXIF orientation that was applied to the pixels (nil when they are as stored).
    public var appliedOrientation: Orientation?
    /// The rows hold C, M, Y, K ink amounts (0: no ink), four 8-bit samples a pixel in
    /// `format`'s RGBA layout, and the metadata's ICC profile is the CMYK profile that says
    /// what they mean (`DecodeOptions.keepsInks`). `imageFormat` is what the image is.
    public var inks = false
    /// For a file that holds an animation: its frames' delays and loop count (the pixels
    /// are its first frame; `AnimationReader` reads them all).
    public var animation: AnimationInfo?

    /// What the image is once its colour is converted: `format`, or RGB of its depth for inks.
    public var imageFormat: PixelFormat { inks ? PixelFormat(.rgb, format.depth) : format }

    public init(width: Int, height: Int, format: PixelFormat, metadata: ImageMetadata = .none,
                sourceFormat: ImageFormat? = nil, appliedOrientation: Orientation? = nil) {
        self.width = width
        self.height = height
        self.format = format
        self.metadata = metadata
        self.sourceFormat = sourceFormat
        self.appliedOrientation = appliedOrientation
    }

    public var rowBytes: Int { width * format.bytesPerPixel }

    /// "4000 x 3000 RGB 8-bit from JPEG, turned upright (rotate90), ICC profile (RGB, 3144 bytes)";
    /// "in memory" for pixels that were never a file.
    public var description: String {
        var text = "\(width) x \(height) \(format) " + (sourceFormat.map { "from \($0.name)" } ?? "in memory")
        if let appliedOrientation { text += ", turned upright (\(appliedOrientation))" }
        return text + ", " + metadata.description
    }
}

/// A decoder of one stored image, as the C shims deliver it.
protocol StoredDecoder: AnyObject {
    var width: Int { get }
    var height: Int { get }
    var format: PixelFormat { get }
    var metadata: ImageMetadata { get }
    /// Interlaced images can only be read whole.
    var readsWholeImageOnly: Bool { get }
    /// The rows are CMYK ink amounts in an RGBA layout (see `ImageInfo.inks`).
    var inks: Bool { get }
    /// An animation's frames, delays and loop count (the still reader gives its first frame).
    var animationInfo: AnimationInfo? { get }
    func readRows(into: UnsafeMutableRawPointer, stride: Int, rows: Int) throws
    func readWholeImage(into: UnsafeMutableRawPointer, stride: Int) throws
    func finish() throws
    var warnings: [String] { get }
    /// What a reader should know that is no damage (only the first frame or page was read).
    var notices: [String] { get }
    /// Harmless damage the decoder went past, whether lenient or not: damage that touches no
    /// pixel, and what it damaged was dropped. Strict decoding refuses the file for it.
    var harmlessDamage: [String] { get }
    /// True when the decoder can still deliver the image smaller (before the first read).
    var canShrink: Bool { get }
    /// An orientation the format stores outside EXIF (TIFF's Orientation tag), applied as an
    /// EXIF Orientation is; nil when the format has none.
    var orientationTag: Orientation? { get }
    /// Delivers the image at 1/denominator of its size (JPEG DCT scaling).
    func shrink(by denominator: Int) throws
    /// The reductions `shrink(by:)` takes and what they do (`ShrinkOnLoad`).
    var shrinkOnLoad: ShrinkOnLoad { get }
    /// Before the first read: delivers a smaller image the file holds instead (a camera RAW's
    /// embedded preview) when it is at least `minimum` upright and the options allow it. Its
    /// size, format, metadata and orientation (`orientationTag`) then describe that image.
    func substitute(atLeast minimum: ImageSize) throws -> Bool
    /// Before the first read: entropy-decode on a thread of its own (JPEG), when the image
    /// has at least `minimumMCUs` MCUs; the thread hands over `chunkMCUs` at a time, and
    /// takes a second thread for the scan's second half from `splitMCUs` MCUs.
    func decodeInParallel(minimumMCUs: Int, chunkMCUs: Int, splitMCUs: Int)
    /// Whether decoding took a thread of its own (known after the first read).
    var decodesInParallel: Bool { get }
    /// After the finish: how a parallel decode's entropy decoding went (JPEG; tests).
    var entropyPath: (ownDecoderOnly: Bool, split: Bool) { get }
}

extension StoredDecoder {
    var notices: [String] { [] }
    var harmlessDamage: [String] { [] }
    var inks: Bool { false }
    var animationInfo: AnimationInfo? { nil }
    var canShrink: Bool { false }
    var orientationTag: Orientation? { nil }
    func shrink(by denominator: Int) throws {}
    var shrinkOnLoad: ShrinkOnLoad { .dctScaling }
    func substitute(atLeast minimum: ImageSize) throws -> Bool { false }
    func decodeInParallel(minimumMCUs: Int, chunkMCUs: Int, splitMCUs: Int) {}
    var decodesInParallel: Bool { false }
    var entropyPath: (ownDecoderOnly: Bool, split: Bool) { (false, false) }

    /// What a decoder with entropy decoding of its own to spread (JPEG's Huffman decoding,
    /// HEIF's HEVC) does with the render's hints. Decoded at a reduced scale, a large JPEG's
    /// Huffman decoding is most of the work (the inverse DCT, colour conversion and every
    /// later step see 1/4 of the pixels or fewer), and it is serial: an image alone on the
    /// renderer gives it a thread of its own beside the pool's (W6: 57 -> 50 ms). At full
    /// scale it is not (W1, W7, W6x measured slower with the extra thread), nor in a batch,
    /// whose images keep every core busy already. The second Huffman thread (a plain scan's
    /// second half, speculatively) only with cores to spare: on two, the three decoding
    /// threads and the pool's took longer than the entropy thread alone (W11 0.100 against
    /// 0.094 s, W6 0.053 against 0.049 s), the work being the same and the cores busy either way.
    func adopt(_ hints: DecodeHints) {
        guard hints.shrunk, hints.threads >= 2, hints.alone else { return }
        let spare = hints.threads >= 4 && WorkerPool.availableCores >= 4
        decodeInParallel(minimumMCUs: 2048, chunkMCUs: 512, splitMCUs: spare ? 8192 : 0)
    }
}

/// How a decoder delivers an image smaller before its first row: the reductions it offers
/// (largest first), how many times the size a render needs the reduced image must keep, and
/// whether a reduction averages encoded values (so that a chain in linear light cannot use it).
struct ShrinkOnLoad: Sendable {
    var factors: [Int]
    var margin: Int
    var averagesEncodedValues: Bool

    /// JPEG's DCT scaling and HEIF's block averages: 1/2, 1/4, 1/8 of encoded values, keeping
    /// twice the size needed for the resize that follows.
    static let dctScaling = ShrinkOnLoad(factors: [8, 4, 2], margin: 2, averagesEncodedValues: true)
}

/// What a render knows that may make a decoder faster, never different: whether the image is
/// decoded at a reduced scale, whether it is the only image on the renderer now, and the
/// renderer's threads. Each decoder decides what to do with them (`ImageReader.adopt`).
public struct DecodeHints: Sendable, Equatable {
    public var shrunk: Bool
    public var alone: Bool
    public var threads: Int

    public init(shrunk: Bool, alone: Bool, threads: Int) {
        self.shrunk = shrunk
        self.alone = alone
        self.threads = threads
    }
}

/// Reads an image top to bottom in strips of rows, upright. Used from one thread at a time.
/// (@unchecked Sendable: it has no lock; a render hands it between threads, reading it from one
/// task a tick.)
public final class ImageReader: @unchecked Sendable {
    public let name: String
    public private(set) var info: ImageInfo
    private let decoder: StoredDecoder
    private var orientation: Orientation
    private let lenient: Bool
    private let strict: Bool
    private var whole: [UInt8]?
    private var nextRow = 0

    init(name: String, decoder: StoredDecoder, sourceFormat: ImageFormat, options: DecodeOptions) {
        self.name = name
        self.decoder = decoder
        self.lenient = options.lenient
        self.strict = options.strict
        var metadata = decoder.metadata
        var orientation = Orientation.up
        if options.autoOrient, sourceFormat.capabilities.exifOrientation {
            // The format's own tag (TIFF's) first: it is what the pixels are stored by.
            let stored = decoder.orientationTag ?? metadata.exif.flatMap(Exif.orientation(in:))
            if let stored, stored != .up {
                orientation = stored
                metadata.exif = metadata.exif.map(Exif.withOrientationReset)
                metadata.xmp = metadata.xmp.map(XMP.withOrientationReset)
            }
        }
        self.orientation = orientation
        let (w, h) = orientation.swapsAxes ? (decoder.height, decoder.width) : (decoder.width, decoder.height)
        info = ImageInfo(width: w, height: h, format: decoder.format, metadata: metadata,
                         sourceFormat: sourceFormat,
                         appliedOrientation: orientation == .up ? nil : orientation)
        info.inks = decoder.inks
        info.animation = decoder.animationInfo
    }

    /// Opens an image, sniffing its format from its first bytes and checking its size
    /// against the pixel limit before any pixel memory is allocated.
    public static func open(_ source: ImageSource, options: DecodeOptions = .init()) throws -> ImageReader {
        guard options.maxPixels >= 0 else {
            throw RenderError(.badOption("maxPixels \(options.maxPixels) is negative; 0 means no limit"))
        }
        guard !(options.lenient && options.strict) else {
            throw RenderError(.badOption("lenient and strict decoding cannot both be set"))
        }
        let input = try OpenedInput.open(source)
        guard let makeDecoder = input.format.declaration.decoder else {
            throw CodecError(input.name, .unsupported("filterchain does not read \(input.format.name)"))
        }
        let decoder = try makeDecoder(input, options)
        return ImageReader(name: input.name, decoder: decoder, sourceFormat: input.format, options: options)
    }

    static func checkLimit(_ name: String, width: Int, height: Int, options: DecodeOptions) throws {
        // Header sizes are up to 2^32 - 1 each: their product can overflow (found by fuzzing).
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if options.maxPixels > 0, overflow || pixels > options.maxPixels {
            throw CodecError(name, .tooManyPixels(width: width, height: height, limit: options.maxPixels))
        }
    }

    /// Before the first read: lets the decoder take a thread of its own for a JPEG with one
    /// Huffman-coded scan of at least `minimumMCUs` MCUs (8 x 8 to 16 x 16 pixels each), whose
    /// Huffman decoding then overlaps the rest of decoding; the thread hands over `chunkMCUs`
    /// MCUs at a time, at most eight chunks ahead. The pixels, warnings and errors are the
    /// same as on one thread. Worth it when a core is free and the image is decoded at a
    /// reduced scale (the renderer decides this for its own reads). Decoding starts at once.
    /// A plain scan (baseline, no restart markers) of at least `splitMCUs` MCUs is
    /// Huffman-decoded on a second thread besides (its second half, speculatively, from the
    /// middle of the scan; see fc_jpeg_huffman.h); 0: never. Returns whether it did.
    @discardableResult
    public func decodeInParallel(minimumMCUs: Int = 2048, chunkMCUs: Int = 512, splitMCUs: Int = 0) -> Bool {
        guard nextRow == 0 else { return false }
        decoder.decodeInParallel(minimumMCUs: minimumMCUs, chunkMCUs: chunkMCUs, splitMCUs: splitMCUs)
        return decoder.decodesInParallel
    }

    /// After the finish: how a parallel JPEG decode's Huffman decoding went (tests).
    var entropyPath: (ownDecoderOnly: Bool, split: Bool) { decoder.entropyPath }

    /// Whether decoding took a thread of its own.
    public var decodesInParallel: Bool { decoder.decodesInParallel }

    /// Before the first read: the decoder takes what helps it from `hints` (JPEG and HEIF:
    /// entropy decoding on threads of their own). Returns whether decoding took a thread of
    /// its own.
    @discardableResult
    public func adopt(_ hints: DecodeHints) -> Bool {
        guard nextRow == 0 else { return false }
        decoder.adopt(hints)
        return decoder.decodesInParallel
    }

    /// Shrink-on-load toward `target`, the size the chain's first step makes: the largest
    /// reduction the decoder offers that keeps its margin (`ShrinkOnLoad`), unless it averages
    /// encoded values and the chain works in linear light. Returns the denominator (1: none).
    func shrink(toward target: ImageSize, linearLight: Bool) throws -> Int {
        guard nextRow == 0 else { return 1 }
        // A smaller image the file holds (a camera RAW's preview), when the decoder takes it.
        let stored = ImageSize(width: info.width, height: info.height)
        if try decoder.substitute(atLeast: target) {
            let turned = decoder.orientationTag ?? .up
            orientation = turned
            let (w, h) = turned.swapsAxes ? (decoder.height, decoder.width) : (decoder.width, decoder.height)
            info.width = w
            info.height = h
            info.format = decoder.format
            info.metadata = decoder.metadata
            info.appliedOrientation = turned == .up ? nil : turned
            return max(2, Int((Double(stored.width) / Double(max(1, w))).rounded()))
        }
        let kind = decoder.shrinkOnLoad
        guard !(linearLight && kind.averagesEncodedValues) else { return 1 }
        return try shrink(keepingAtLeast: ImageSize(width: kind.margin * target.width, height: kind.margin * target.height))
    }

    /// Shrink-on-load: has a JPEG decoded at 1/2, 1/4 or 1/8 of its size (libjpeg's DCT
    /// scaling), the largest reduction that keeps at least `minimum` pixels on both axes,
    /// before any row is read. Returns the denominator used (1: none).
    @discardableResult
    func shrink(keepingAtLeast minimum: ImageSize) throws -> Int {
        guard decoder.canShrink, nextRow == 0 else { return 1 }
        for d in decoder.shrinkOnLoad.factors {
            // libjpeg's scaled size is ceil(size / d).
            if (info.width + d - 1) / d >= minimum.width && (info.height + d - 1) / d >= minimum.height {
                try decoder.shrink(by: d)
                info.metadata.cameraRAW = decoder.metadata.cameraRAW
                let (w, h) = orientation.swapsAxes ? (decoder.height, decoder.width) : (decoder.width, decoder.height)
                info.width = w
                info.height = h
                return d
            }
        }
        return 1
    }

    /// Whether reading needs the whole image in memory first (rotation, interlacing).
    public var buffersWholeImage: Bool { orientation != .up || decoder.readsWholeImageOnly }

    /// Reads the next `rows` rows into `destination`, rows `stride` bytes apart.
    public func read(into destination: UnsafeMutableRawPointer, stride: Int, rows: Int) throws {
        guard rows >= 0 && nextRow + rows <= info.height else {
            throw RenderError(.mismatch("reading \(rows) rows from row \(nextRow) goes past the last row (\(info.height))"))
        }
        guard stride >= info.rowBytes else {
            throw RenderError(.mismatch("rows \(stride) bytes apart are shorter than a row (\(info.rowBytes) bytes)"))
        }
        if buffersWholeImage {
            if whole == nil { try loadWhole() }
            let rowBytes = info.rowBytes
            whole!.withUnsafeBytes { src in
                for r in 0..<rows {
                    (destination + r * stride).copyMemory(from: src.baseAddress! + (nextRow + r) * rowBytes,
                                                          byteCount: rowBytes)
                }
            }
        } else {
            try decoder.readRows(into: destination, stride: stride, rows: rows)
        }
        nextRow += rows
    }

    private func loadWhole() throws {
        let rowBytes = decoder.width * decoder.format.bytesPerPixel
        var stored = [UInt8](repeating: 0, count: rowBytes * decoder.height)
        try stored.withUnsafeMutableBytes { p in
            if decoder.readsWholeImageOnly {
                try decoder.readWholeImage(into: p.baseAddress!, stride: rowBytes)
            } else {
                try decoder.readRows(into: p.baseAddress!, stride: rowBytes, rows: decoder.height)
            }
        }
        whole = orientation.apply(to: stored, width: decoder.width, height: decoder.height,
                                  bytesPerPixel: decoder.format.bytesPerPixel).pixels
    }

    /// Reads to the end of the file, so that damage after the last row is found too.
    /// Leniently, damage there becomes a warning; strictly, harmless damage anywhere in the
    /// file is an error.
    public func finish() throws {
        do { try decoder.finish() } catch {
            if !lenient { throw error }
            extraWarnings.append((error as? CodecError)?.message ?? "\(error)")
        }
        if strict, case let damage = decoder.harmlessDamage, !damage.isEmpty, let format = info.sourceFormat {
            throw CodecError(name, .corrupt(format: format, damage.joined(separator: "; ") + " (refused: strict decoding)"))
        }
    }

    private var extraWarnings: [String] = []

    /// Problems the library reported that did not stop decoding (lenient mode).
    public var warnings: [String] { decoder.warnings + extraWarnings }

    /// Harmless damage, unless strict: damage that touches no pixel (stray bytes between
    /// JPEG segments, a bad or duplicated ICC or EXIF block, an ancillary PNG chunk with a
    /// bad CRC, a gain map that cannot be read), each once, naming the file; what it damaged
    /// was dropped. Then what is no damage but worth knowing (only the first page was read).
    public var notices: [String] { (decoder.harmlessDamage + decoder.notices).map { "\(name): \($0)" } }

    /// Reads the whole image into memory.
    public func readAll() throws -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: info.rowBytes * info.height)
        let rowBytes = info.rowBytes
        let height = info.height
        try pixels.withUnsafeMutableBytes { p in
            try read(into: p.baseAddress!, stride: rowBytes, rows: height)
        }
        try finish()
        return pixels
    }
}

/// The text of a C char array inside a report struct.
func reportString<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { raw in
        let bytes = raw.prefix(while: { $0 != 0 })
        return String(decoding: bytes, as: UTF8.self)
    }
}

func warningList(first: String, count: UInt32) -> [String] {
    if count == 0 { return [] }
    if count == 1 { return [first] }
    return ["\(first) (and \(count - 1) more)"]
}

/// Owns a C decoder, so every path out of a decoder's init frees it exactly once.
final class CHandle {
    let pointer: OpaquePointer
    private let free: (OpaquePointer?) -> Void

    init(_ pointer: OpaquePointer, free: @escaping (OpaquePointer?) -> Void) {
        self.pointer = pointer
        self.free = free
    }

    deinit { free(pointer) }
}
