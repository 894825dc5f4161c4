import CTIFF
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// libtiff through the fc_tiff shim: the first image of the file, strip by strip (or one row
/// of tiles at a time), as 8- or 16-bit grey, grey+alpha, RGB or RGBA (floating-point samples
/// as 32-bit floats, unclamped); its ICC profile, XMP,
/// resolution and EXIF (see ``TIFFExif``). libtiff needs to seek: a regular file is read
/// with pread as libtiff asks (its directory, then each strip as it is decoded), so a 38 MB
/// file does not sit in memory beside its pixels; standard input and pipes are read whole
/// first (the bytes, not the pixels: the size limit is checked before any pixel memory).
/// libtiff's messages are kept by the shim, never printed; no single allocation may exceed
/// `TIFFDecoder.maxSingleAllocation`.
final class TIFFDecoder: StoredDecoder {
    private let handle: CHandle
    private var d: OpaquePointer { handle.pointer }
    private let input: OpenedInput
    let width: Int
    let height: Int
    let format: PixelFormat
    let metadata: ImageMetadata
    let readsWholeImageOnly = false
    let inks: Bool
    let notices: [String]
    let harmlessDamage: [String]
    private(set) var warnings: [String] = []
    let orientationTag: Orientation?

    /// The most one allocation may take, libtiff's or the shim's (a strip or tile of every plane).
    static let maxSingleAllocation = 1 << 30

    init(_ input: OpenedInput, options: DecodeOptions) throws {
        try TIFFCodec.declaration.requireLibrary(input.name)
        let file = input.regularFile()
        let bytes: any TIFFBytes
        let decoder: OpaquePointer?
        if let file {
            bytes = FileBytes(fd: file.fd, count: file.size)
            decoder = fc_tiff_decoder_new_file(input.name, file.fd, UInt64(file.size), TIFFDecoder.maxSingleAllocation)
        } else {
            let memory = try input.bytesInMemory()
            bytes = memory
            decoder = fc_tiff_decoder_new(input.name, memory.baseAddress?.assumingMemoryBound(to: UInt8.self), memory.count,
                                          TIFFDecoder.maxSingleAllocation)
        }
        guard let d = decoder else { throw CodecError(input.name, .outOfMemory) }
        self.handle = CHandle(d, free: fc_tiff_decoder_free)
        self.input = input
        var info = fc_tiff_info()
        let status = fc_tiff_decoder_open(d, &info)
        guard status == FC_OK else { throw TIFFDecoder.failure(d, status, input.name) }
        width = Int(info.width)
        height = Int(info.height)
        var metadata = ImageMetadata()
        var length = 0
        if let p = fc_tiff_decoder_icc(d, &length), length > 0 {
            metadata.iccProfile = Array(UnsafeBufferPointer(start: p, count: length))
        }
        // CMYK with its profile: the inks as stored, for the colour engine (see DecodeOptions).
        inks = options.keepsInks && metadata.iccColorSpace == "CMYK" && fc_tiff_decoder_keep_inks(d, &info) != 0
        let channels: Channels = switch info.channels {
        case 1: .grey
        case 2: .greyAlpha
        case 3: .rgb
        default: .rgba
        }
        format = PixelFormat(channels, info.depth == 32 ? .float32 : info.depth == 16 ? .sixteen : .eight)
        orientationTag = Orientation(rawValue: Int(info.orientation))
        if let p = fc_tiff_decoder_xmp(d, &length), length > 0 {
            metadata.xmp = Array(UnsafeBufferPointer(start: p, count: length))
        }
        // EXIF: IFD0's descriptive tags and the Exif and GPS sub-IFDs, gathered into EXIF data.
        metadata.exif = TIFFExif.exifData(fromTIFF: bytes)
        metadata.resolution = TIFFExif.resolution(fromTIFF: bytes)
        var notices: [String] = [], damage: [String] = []
        if info.pages > 1 {
            notices.append("a file of \(info.pages) pages: only the first page was read")
        }
        if info.loop != 0 {
            damage.append("the directory chain loops back after \(info.pages) page\(info.pages == 1 ? "" : "s"); the rest was ignored")
        } else if info.chain_damaged != 0 {
            damage.append("the directory chain points outside the file after \(info.pages) page\(info.pages == 1 ? "" : "s"); the rest was ignored")
        }
        self.metadata = metadata
        self.notices = notices
        harmlessDamage = damage
        collectWarnings()
        try ImageReader.checkLimit(input.name, width: width, height: height, options: options)
    }

    private func collectWarnings() {
        let text = reportString(fc_tiff_decoder_report(d).pointee.warnings)
        // Unprefixed, as the other decoders' warnings: the caller names the file.
        warnings = text.isEmpty ? [] : text.split(separator: "\n").map(String.init)
    }

    static func failure(_ d: OpaquePointer, _ status: fc_status, _ name: String) -> CodecError {
        // A read that failed (an I/O error, not the file's content) says so, as other inputs' do.
        let code = fc_tiff_decoder_read_errno(d)
        if code != 0 { return CodecError(name, .readFailed(String(cString: strerror(code)))) }
        return .reading(name, status, message: reportString(fc_tiff_decoder_report(d).pointee.message), format: .tiff)
    }

    func readRows(into destination: UnsafeMutableRawPointer, stride: Int, rows: Int) throws {
        let status = fc_tiff_decoder_read(d, destination.assumingMemoryBound(to: UInt8.self), stride, UInt32(rows))
        collectWarnings()
        if status != FC_OK { throw TIFFDecoder.failure(d, status, input.name) }
    }

    func readWholeImage(into destination: UnsafeMutableRawPointer, stride: Int) throws {
        try readRows(into: destination, stride: stride, rows: height)
    }

    func finish() throws {}
}
