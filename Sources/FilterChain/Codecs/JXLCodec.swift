#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CJXL

/// JPEG XL, declared once: libjxl through the fc_jxl shim reads and writes it, stills and
/// animations.
enum JXLCodec {
    static let declaration = FormatDeclaration(
        format: .jxl, name: "JPEG XL",
        summary: "8 to 16 bits and float (kept: values above 1 too), grey, alpha, animations frame by frame; orientation applied; 8 or 16 bits or float out, lossy or lossless",
        extensions: ["jxl"], mediaType: "image/jxl",
        capabilities: FormatCapabilities(
            alpha: true, depths: [.eight, .sixteen, .float32], grey: true, metadata: [.icc, .exif, .xmp], animation: true),
        options: [
            EncodeOption("quality", .integer(1...100), default: 90,
                         help: "quality, 1 to 100, mapped to libjxl's distance as cjxl maps it (90: distance 1.0; 100: lossless)"),
            EncodeOption("distance", .number(0...25), default: .number(1),
                         help: "butteraugli distance, 0 to 25 (1: visually lossless, cjxl's default; 0: lossless); instead of quality"),
            EncodeOption("lossless", .boolean, default: false, help: "lossless: the decoded samples are the image given"),
            EncodeOption("effort", .integer(1...9), default: 7, help: "compression effort, 1 (fastest) to 9 (smallest), as cjxl's"),
            EncodeOption("jpegReconstruction", .boolean, default: true,
                         help: "a JPEG through a chain of no steps is transcoded losslessly (about 20% smaller; djxl gives its bytes back); off: its pixels are encoded"),
        ],
        // A bare codestream (FF 0A) or the container's signature box.
        signature: {
            FormatDeclaration.starts($0, with: [0xFF, 0x0A])
                || FormatDeclaration.starts($0, with: [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A])
        },
        check: { settings, _ in
            if settings["quality"] != nil && settings["distance"] != nil {
                return OptionProblem("{quality} and {distance} both say how lossy; give one")
            }
            return settings["lossless"]?.boolean == true && (settings["quality"] != nil || settings["distance"] != nil)
                ? OptionProblem("{quality} and {distance} are for lossy JPEG XL; lossless JPEG XL takes {effort}") : nil
        },
        decoder: { input, options in try JXLDecoder(input, options: options) },
        encoder: { output, header, metadata, settings in
            try JXLEncoder(output, header: AnimationHeader(width: header.width, height: header.height, format: header.format, loopCount: 0),
                           metadata: metadata, settings: JXLSettings(settings), animated: false)
        },
        library: { fc_jxl_library_error().map { String(cString: $0) } },
        frameDecoder: { input, options, maxFrames in try JXLDecoder.frames(input, options: options, maxFrames: maxFrames) },
        frameEncoder: { output, header, metadata, settings in
            try JXLEncoder(output, header: header, metadata: metadata, settings: JXLSettings(settings), animated: true)
        },
        transcoder: { source, settings in
            guard source == .jpeg, settings.boolean("jpegReconstruction") else { return nil }
            let effort = settings.integer("effort")
            return { bytes, output in
                var report = fc_jxl_report()
                let status = fc_jxl_transcode_jpeg(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, Int32(effort),
                                                   Int32(clamping: WorkerPool.availableCores), output.file, &report)
                // A JPEG libjxl does not take so is refused as such (the render encodes its pixels).
                if status == FC_FAILED || status == FC_UNSUPPORTED { throw CodecError(output.name, .unsupported(reportString(report.message))) }
                if status != FC_OK { throw CodecError.writing(output, status, message: reportString(report.message), format: .jxl) }
            }
        })

    /// cjxl's mapping of a quality to a butteraugli distance: 0.1 + (100 - q) x 0.09 from 30 up
    /// (90 is 1.0), 6.24 + 2.5^((30 - q) / 5) / 6.25 below; 100 is lossless.
    static func distance(quality: Int) -> Float {
        quality >= 30 ? 0.1 + Float(100 - quality) * 0.09 : 6.24 + powf(2.5, Float(30 - quality) / 5) / 6.25
    }
}

struct JXLSettings {
    var distance: Float
    var lossless: Bool
    var effort: Int

    init(_ settings: EncodeSettings) {
        // A distance given wins; else the quality's (the default quality 90 is distance 1).
        let distance = settings.given("distance") ? Float(settings.number("distance")) : JXLCodec.distance(quality: settings.integer("quality"))
        lossless = settings.boolean("lossless") || (!settings.given("distance") && settings.integer("quality") == 100) || distance == 0
        self.distance = lossless ? 0 : distance
        effort = settings.integer("effort")
    }
}

/// libjxl through the fc_jxl shim. The file is read whole (the bytes); open reads the basic
/// information, the colour and the metadata boxes; each frame is decoded whole (libjxl
/// coalesces an animation's frames into full canvases and applies the orientation).
final class JXLDecoder: WholeFrameDecoder {
    private let handle: CHandle
    private var d: OpaquePointer { handle.pointer }
    private let input: OpenedInput
    let width: Int
    let height: Int
    let format: PixelFormat
    let metadata: ImageMetadata
    let notices: [String]
    let harmlessDamage: [String] = []
    let warnings: [String] = []
    let animation: AnimationInfo
    var animationInfo: AnimationInfo? { animation.frameCount > 1 ? animation : nil }

    static func frames(_ input: OpenedInput, options: DecodeOptions, maxFrames: Int) throws -> JXLDecoder? {
        let decoder = try JXLDecoder(input, options: options)
        guard decoder.animation.frameCount > 1 else { return nil }
        if maxFrames > 0, decoder.animation.frameCount > maxFrames {
            throw CodecError(input.name, .unsupported("an animation of more than \(maxFrames) frames, over the limit (raise maxFrames; 0 for none)"))
        }
        return decoder
    }

    init(_ input: OpenedInput, options: DecodeOptions) throws {
        try JXLCodec.declaration.requireLibrary(input.name)
        let bytes = try input.bytesInMemory()
        let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        guard let d = fc_jxl_decoder_new(base, bytes.count, Int32(clamping: WorkerPool.availableCores)) else {
            throw CodecError(input.name, .outOfMemory)
        }
        handle = CHandle(d, free: fc_jxl_decoder_free)
        self.input = input
        var info = fc_jxl_info()
        let status = fc_jxl_decoder_open(d, &info, UInt64(max(0, options.maxPixels)))
        if status == FC_LIMIT {
            throw CodecError(input.name, .tooManyPixels(width: Int(info.width), height: Int(info.height), limit: options.maxPixels))
        }
        guard status == FC_OK else { throw JXLDecoder.failure(d, status, input.name) }
        width = Int(info.width)
        height = Int(info.height)
        let channels: Channels = switch info.channels {
        case 1: .grey
        case 2: .greyAlpha
        case 3: .rgb
        default: .rgba
        }
        format = PixelFormat(channels, info.depth == 32 ? .float32 : info.depth == 16 ? .sixteen : .eight)
        var metadata = ImageMetadata()
        var length = 0
        if let p = fc_jxl_decoder_icc(d, &length), length > 0 { metadata.iccProfile = Array(UnsafeBufferPointer(start: p, count: length)) }
        if let p = fc_jxl_decoder_exif(d, &length), length > 0 {
            let exif = Array(UnsafeBufferPointer(start: p, count: length))
            // libjxl applied the orientation: the kept EXIF says so.
            if Exif.isTIFF(exif) { metadata.exif = Exif.withOrientationReset(exif) }
        }
        if let p = fc_jxl_decoder_xmp(d, &length), length > 0 {
            metadata.xmp = XMP.withOrientationReset(Array(UnsafeBufferPointer(start: p, count: length)))
        }
        self.metadata = metadata
        var count = 1
        var delays = [0]
        if info.animated != 0 {
            // The frame headers are walked (no pixel is decoded); again with room for every
            // frame's duration when there are more than 256.
            var durations = [Int32](repeating: 0, count: 256)
            count = Int(fc_jxl_count_frames(base, bytes.count, &durations, Int32(durations.count)))
            if count > durations.count {
                durations = [Int32](repeating: 0, count: count)
                count = Int(fc_jxl_count_frames(base, bytes.count, &durations, Int32(durations.count)))
            }
            guard count > 0 else { throw CodecError(input.name, .corrupt(format: .jxl, "the animation's frames cannot be read")) }
            delays = durations.prefix(count).map(Int.init)
        }
        animation = AnimationInfo(delays: delays, loopCount: Int(info.loop_count))
        notices = count > 1 ? ["an animation of \(count) frames: only the first frame was read"] : []
        try ImageReader.checkLimit(input.name, width: width, height: height, options: options)
    }

    static func failure(_ d: OpaquePointer, _ status: fc_status, _ name: String) -> CodecError {
        .reading(name, status, message: reportString(fc_jxl_decoder_report(d).pointee.message), format: .jxl)
    }

    func nextFrame(into destination: UnsafeMutableRawPointer, stride: Int) throws {
        var duration: Int32 = 0
        let status = fc_jxl_decoder_next_frame(d, destination.assumingMemoryBound(to: UInt8.self), stride, &duration)
        if status != FC_OK { throw JXLDecoder.failure(d, status, input.name) }
    }
}

/// libjxl's encoder through fc_jxl: a still (the rows gathered, then encoded) or an
/// animation (each frame added as it comes, 1 tick a millisecond). ICC (else sRGB's enum
/// encoding), EXIF and XMP boxes.
final class JXLEncoder: WholeImageEncoder, FrameEncoder {
    private let output: OutputFile
    private let header: AnimationHeader
    private let encoder: CHandle
    private let rows: WholeImageRows?
    let notes: [String]

    var pixels: WholeImageRows { rows! }

    init(_ output: OutputFile, header: AnimationHeader, metadata: ImageMetadata, settings: JXLSettings, animated: Bool) throws {
        try JXLCodec.declaration.requireLibrary(output.name)
        self.output = output
        self.header = header
        var metadata = metadata
        var notes: [String] = []
        notes += metadata.keepTIFFExifOnly()
        notes += metadata.notWritten(in: "JPEG XL")
        self.notes = notes
        var report = fc_jxl_report()
        let made: OpaquePointer? = metadata.withEmbedded { embedded in
            var o = fc_jxl_encode_options()
            o.width = UInt32(header.width)
            o.height = UInt32(header.height)
            o.channels = Int32(header.format.channels.count)
            o.depth = Int32(header.format.depth.rawValue)
            o.distance = settings.distance
            o.lossless = settings.lossless ? 1 : 0
            o.effort = Int32(settings.effort)
            o.threads = Int32(clamping: WorkerPool.availableCores)
            o.animated = animated ? 1 : 0
            o.loop_count = Int32(header.loopCount)
            o.metadata = embedded
            return fc_jxl_encoder_new(&o, &report)
        }
        guard let made else { throw CodecError.writing(output, FC_FAILED, message: reportString(report.message), format: .jxl) }
        encoder = CHandle(made, free: fc_jxl_encoder_free)
        rows = animated ? nil : try WholeImageRows(EncodeHeader(width: header.width, height: header.height, format: header.format),
                                                   file: output.name)
    }

    private func failure(_ status: fc_status) -> CodecError {
        .writing(output, status, message: reportString(fc_jxl_encoder_report(encoder.pointer).pointee.message), format: .jxl)
    }

    func add(_ pixels: UnsafeRawPointer, stride: Int, delay: Int) throws {
        let status = fc_jxl_encoder_add(encoder.pointer, pixels.assumingMemoryBound(to: UInt8.self), stride, Int32(delay))
        if status != FC_OK { throw failure(status) }
    }

    func finish() throws {
        if let rows { try add(UnsafeRawPointer(rows.bytes), stride: rows.rowBytes, delay: 0) }
        let status = fc_jxl_encoder_finish(encoder.pointer, output.file)
        if status != FC_OK { throw failure(status) }
    }
}
