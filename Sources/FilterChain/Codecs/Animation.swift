/// How an animation plays: its frames' delays and how often it repeats.
public struct AnimationInfo: Sendable, Hashable, CustomStringConvertible {
    /// Each frame's delay, in milliseconds, as stored (a GIF's hundredths of a second times 10).
    public var delays: [Int]
    /// How many times it plays: 0 forever, 1 once. A GIF without a NETSCAPE2.0 block plays
    /// once; one whose block says n repeats n more times (n + 1 plays), as browsers show it.
    public var loopCount: Int

    public init(delays: [Int], loopCount: Int) {
        self.delays = delays
        self.loopCount = loopCount
    }

    public var frameCount: Int { delays.count }

    /// Each frame's start in seconds (the delays before it summed).
    public func time(ofFrame index: Int) -> Double { Double(delays.prefix(index).reduce(0, +)) / 1000 }

    /// "12 frames, 1.2 s, loops forever".
    public var description: String {
        let total = Double(delays.reduce(0, +)) / 1000
        let loops = loopCount == 0 ? "loops forever" : loopCount == 1 ? "plays once" : "plays \(loopCount) times"
        return "\(frameCount) frame\(frameCount == 1 ? "" : "s"), \(JSONWriter.number((total * 1000).rounded() / 1000)) s, \(loops)"
    }
}

/// A decoder of an animation, frame by frame: each frame is the whole canvas as a browser
/// shows it (disposal, blending and transparency applied), in the same layout.
protocol FrameDecoder: AnyObject {
    var width: Int { get }
    var height: Int { get }
    var format: PixelFormat { get }
    var metadata: ImageMetadata { get }
    var animation: AnimationInfo { get }
    /// Harmless damage it went past (a truncated last frame, dropped).
    var harmlessDamage: [String] { get }
    /// Decodes the next frame's canvas into `destination`, rows `stride` bytes apart.
    func nextFrame(into destination: UnsafeMutableRawPointer, stride: Int) throws
}

/// A decoder whose library hands out whole frames only (GIF, JPEG XL): read as a still, it
/// gives its first frame, whole.
protocol WholeFrameDecoder: StoredDecoder, FrameDecoder {}

extension WholeFrameDecoder {
    var readsWholeImageOnly: Bool { true }

    func readRows(into destination: UnsafeMutableRawPointer, stride: Int, rows: Int) throws {
        preconditionFailure("\(Self.self) reads whole frames only")
    }

    func readWholeImage(into destination: UnsafeMutableRawPointer, stride: Int) throws {
        try nextFrame(into: destination, stride: stride)
    }

    func finish() throws {}
}

/// An encoder of an animation: whole canvases, one at a time, each with its delay; the file
/// appears only when `finish()` succeeds (its OutputFile's commit).
protocol FrameEncoder: AnyObject {
    var notes: [String] { get }
    /// Adds a frame (`header.format` rows, `stride` bytes apart) shown for `delay` milliseconds.
    func add(_ pixels: UnsafeRawPointer, stride: Int, delay: Int) throws
    func finish() throws
}

/// The first part of an animation file: the canvas, the frames' layout, the metadata and how
/// often it plays.
struct AnimationHeader {
    var width: Int
    var height: Int
    var format: PixelFormat
    var loopCount: Int
}

/// Reads an animation frame by frame, each frame the whole canvas (the memory of one or two
/// canvases, whatever the length). A still reads as one frame.
public final class AnimationReader {
    public let name: String
    /// The canvas's size and layout, and the metadata.
    public let info: ImageInfo
    public let animation: AnimationInfo
    private let decoder: FrameDecoder?
    private var still: ImageReader?
    public private(set) var nextFrameIndex = 0

    /// Opens `source`: an animation of a format that reads frames (GIF, WebP), else a still as
    /// one frame. `maxFrames` (0: none) is checked before any frame is decoded, as `maxPixels`
    /// is for each frame.
    public init(_ source: ImageSource, options: DecodeOptions = .init(), maxFrames: Int = 10_000) throws {
        guard maxFrames >= 0 else { throw RenderError(.badOption("maxFrames \(maxFrames) is negative; 0 means no limit")) }
        let input = try OpenedInput.open(source)
        name = input.name
        if let make = input.format.declaration.frameDecoder, let decoder = try make(input, options, maxFrames) {
            self.decoder = decoder
            animation = decoder.animation
            info = ImageInfo(width: decoder.width, height: decoder.height, format: decoder.format, metadata: decoder.metadata,
                             sourceFormat: input.format)
            harmlessDamage = decoder.harmlessDamage.map { "\(input.name): \($0)" }
            if options.strict, let first = decoder.harmlessDamage.first {
                throw CodecError(input.name, .corrupt(format: input.format, first))
            }
        } else {
            let reader = try ImageReader.open(source, options: options)
            still = reader
            decoder = nil
            info = reader.info
            animation = AnimationInfo(delays: [0], loopCount: 0)
            harmlessDamage = []
        }
    }

    /// Harmless damage that was dropped (a GIF truncated inside a frame gives the frames
    /// before it), named by the file.
    public let harmlessDamage: [String]

    /// The next frame, in order.
    public func nextFrame() throws -> RasterImage {
        guard nextFrameIndex < animation.frameCount else {
            throw RenderError(.mismatch("\(name): frame \(nextFrameIndex) is past the last (\(animation.frameCount) frames)"))
        }
        defer { nextFrameIndex += 1 }
        if let still {
            return try RasterImage(width: info.width, height: info.height, format: info.format, metadata: info.metadata,
                                   pixels: still.readAll())
        }
        let decoder = decoder!
        var pixels = [UInt8](repeating: 0, count: info.rowBytes * info.height)
        try pixels.withUnsafeMutableBytes { try decoder.nextFrame(into: $0.baseAddress!, stride: info.rowBytes) }
        return try RasterImage(width: info.width, height: info.height, format: info.format, metadata: info.metadata, pixels: pixels)
    }

    /// True when the source is read frame by frame (an animation, or a GIF of one frame);
    /// false for a still of a format without animations.
    public var isAnimation: Bool { decoder != nil }

    /// Whether a file may be an animation, from its first bytes: its format reads animations
    /// (GIF, WebP, AVIF, JPEG XL) and the bytes do not say it is a still (a WebP without the
    /// animation flag, an AVIF without the avis brand). False for a file that cannot be read
    /// (the render says why).
    public static func mayBeAnimation(_ source: ImageSource) -> Bool {
        guard let input = try? OpenedInput.open(source) else { return false }
        let declaration = input.format.declaration
        return declaration.readsAnimations && (declaration.mayHoldAnimation?(input.prefix) ?? true)
    }

    /// Skips the next frame (it is decoded: each frame is drawn on the ones before).
    public func skipFrame() throws { _ = try nextFrame() }
}

/// Writes an animation, frame by frame, to a file of a format that holds one (GIF, WebP);
/// the file appears only when `finish()` succeeds, and an existing file is untouched until
/// then.
public final class AnimationWriter {
    public let name: String
    public let format: ImageFormat
    let header: AnimationHeader
    private let output: OutputFile
    private let encoder: FrameEncoder
    public private(set) var framesWritten = 0
    /// Metadata that has no place in the format, and was not written.
    public let notes: [String]

    /// `loopCount`: how many times it plays, 0 forever.
    public init(_ destination: ImageDestination, format: ImageFormat, width: Int, height: Int, pixelFormat: PixelFormat,
                metadata: ImageMetadata = .none, loopCount: Int = 0, options: EncodeOptions = .init()) throws {
        let declaration = format.declaration
        guard let make = declaration.frameEncoder else {
            throw CodecError(destination.name, .unsupported("filterchain does not write \(declaration.name) animations"))
        }
        guard declaration.capabilities.holds(pixelFormat) else {
            throw RenderError(.mismatch("\(declaration.name) does not hold \(pixelFormat) frames"))
        }
        guard (0...65535).contains(loopCount) else {
            throw RenderError(.badOption("a loop count is 0 (forever) to 65535; \(loopCount) is not"))
        }
        try options.validate(for: format, depth: pixelFormat.depth)
        if let side = declaration.capabilities.maxSide, width > side || height > side {
            throw CodecError(destination.name, .unsupported(
                "\(declaration.name) holds at most \(side) pixels on a side; this image is \(width) x \(height)"))
        }
        _ = try RenderError.elementCount(width: width, height: height, perPixel: pixelFormat.bytesPerPixel)
        name = destination.name
        self.format = format
        header = AnimationHeader(width: width, height: height, format: pixelFormat, loopCount: loopCount)
        output = try OutputFile(destination)
        var kept = options.stripMetadata ? metadata.keepingColourOnly : metadata
        kept.gainMap = nil
        if options.stripColorProfile { kept.iccProfile = nil }
        do {
            encoder = try make(output, header, kept, EncodeSettings(declaration: declaration, options: options, source: metadata))
        } catch {
            output.abort()
            throw error
        }
        notes = encoder.notes
    }

    /// Adds a frame (the whole canvas, in the writer's layout) shown for `delay` milliseconds.
    public func add(_ image: RasterImage, delay: Int) throws {
        guard image.width == header.width, image.height == header.height, image.format == header.format else {
            throw RenderError(.mismatch("a \(image.width) x \(image.height) \(image.format) frame does not match the animation's \(header.width) x \(header.height) \(header.format)"))
        }
        try image.pixels.withUnsafeBytes { try add($0.baseAddress!, stride: image.rowBytes, delay: delay) }
    }

    func add(_ pixels: UnsafeRawPointer, stride: Int, delay: Int) throws {
        guard delay >= 0 else { throw RenderError(.badOption("a frame's delay is 0 ms or more; \(delay) is not")) }
        try encoder.add(pixels, stride: stride, delay: delay)
        framesWritten += 1
    }

    /// Ends the file and makes it appear.
    public func finish() throws {
        guard framesWritten > 0 else { throw RenderError(.mismatch("\(name): an animation needs a frame; none was given")) }
        try encoder.finish()
        try output.commit()
    }

    /// Throws the output away; an existing file at the destination is untouched.
    public func abort() { output.abort() }
}

/// Where a render of an animation sends one output's frames (`ImageDestination.frame`): each
/// frame comes laid out and coloured as a file of the animation's format would be, and goes
/// to the animation's writer, made at the first frame. Used by one render, one frame at a
/// time. (@unchecked Sendable: it has no lock; the render that made it hands it from frame
/// to frame, never to two threads at once.)
public final class AnimationFrameSlot: @unchecked Sendable, Hashable {
    public let name: String
    let destination: ImageDestination
    let format: ImageFormat
    let options: EncodeOptions
    let loopCount: Int
    /// The delay of the frame being rendered, in milliseconds; and its index (for messages).
    var delay = 0
    var frame = 0
    private(set) var writer: AnimationWriter?

    init(_ destination: ImageDestination, format: ImageFormat, options: EncodeOptions, loopCount: Int) {
        name = destination.name
        self.destination = destination
        self.format = format
        self.options = options
        self.loopCount = loopCount
    }

    public static func == (a: AnimationFrameSlot, b: AnimationFrameSlot) -> Bool { a === b }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// Throws the animation away (its temporary file goes now).
    func abandon() {
        writer?.abort()
        writer = nil
    }

    /// Lets go of the finished writer.
    func release() { writer = nil }

    func take(_ header: EncodeHeader, pixels: UnsafeRawPointer, stride: Int) throws {
        if let writer {
            let first = writer.header
            guard header.width == first.width, header.height == first.height, header.format == first.format else {
                throw RenderError(.mismatch("frame \(frame) comes out \(header.width) x \(header.height) \(header.format), the first \(first.width) x \(first.height) \(first.format): every frame of an animation has one size (an expression that reads frame or time may not change the size)"))
            }
        } else {
            writer = try AnimationWriter(destination, format: format, width: header.width, height: header.height,
                                         pixelFormat: header.format, metadata: header.metadata, loopCount: loopCount,
                                         options: options)
        }
        try writer!.add(pixels, stride: stride, delay: delay)
    }
}

/// The rows of one frame, gathered for its animation's writer (an ImageWriter's encoder for
/// `ImageDestination.frame`).
final class FrameRows: WholeImageEncoder {
    private let slot: AnimationFrameSlot
    private let header: EncodeHeader
    let pixels: WholeImageRows
    let notes: [String] = []

    init(_ slot: AnimationFrameSlot, header: EncodeHeader, options: EncodeOptions) throws {
        self.slot = slot
        self.header = header
        pixels = try WholeImageRows(header, file: slot.name)
    }

    func finish() throws {
        try slot.take(header, pixels: UnsafeRawPointer(pixels.bytes), stride: pixels.rowBytes)
    }
}
