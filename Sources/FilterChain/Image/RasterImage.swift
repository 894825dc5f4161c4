/// An image in memory: rows of stored samples (16-bit in host byte order), top row first.
/// Two images are equal when their size, pixel format, metadata and pixels are:
/// `sourceFormat` says where one came from, not what it is.
public struct RasterImage: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public var format: PixelFormat
    public var metadata: ImageMetadata
    public var pixels: [UInt8]
    /// The format of the file it was decoded from (JPEG, ...); nil for an image made in
    /// memory or by a render. A render of it reports it in `RenderResult.info`.
    public var sourceFormat: ImageFormat?

    public static func == (a: RasterImage, b: RasterImage) -> Bool {
        a.width == b.width && a.height == b.height && a.format == b.format && a.metadata == b.metadata && a.pixels == b.pixels
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(width)
        hasher.combine(height)
        hasher.combine(format)
        hasher.combine(metadata)
        hasher.combine(pixels)
    }

    /// Throws RenderError when the size is not at least 1 x 1 or `pixels` does not hold
    /// width x height x bytes per pixel bytes.
    public init(width: Int, height: Int, format: PixelFormat, metadata: ImageMetadata = .none, pixels: [UInt8]) throws(RenderError) {
        let expected = try RenderError.elementCount(width: width, height: height, perPixel: format.bytesPerPixel)
        guard pixels.count == expected else { throw RenderError(.wrongBufferSize(expected: expected, found: pixels.count)) }
        self.width = width
        self.height = height
        self.format = format
        self.metadata = metadata
        self.pixels = pixels
    }

    public var rowBytes: Int { width * format.bytesPerPixel }

    /// "640 x 480 RGB 8-bit, ICC profile (RGB, 3144 bytes)": never the pixels or metadata bytes.
    public var description: String { "\(width) x \(height) \(format), \(metadata)" }

    /// Throws RenderError when `pixels` no longer matches the size (it is a public var).
    func checked() throws(RenderError) {
        let expected = try RenderError.elementCount(width: width, height: height, perPixel: format.bytesPerPixel)
        guard pixels.count == expected else { throw RenderError(.wrongBufferSize(expected: expected, found: pixels.count)) }
    }

    /// Sample `channel` of pixel (x, y), as stored; throws for a pixel or channel outside
    /// the image.
    public func sample(x: Int, y: Int, channel: Int) throws(RenderError) -> Int {
        guard (0..<width).contains(x), (0..<height).contains(y), (0..<format.channels.count).contains(channel) else {
            throw RenderError(.mismatch("no sample (\(x), \(y)) channel \(channel) in a \(width) x \(height) \(format) image"))
        }
        try checked()
        let i = (y * width + x) * format.channels.count + channel
        switch format.depth {
        case .eight: return Int(pixels[i])
        case .sixteen: return pixels.withUnsafeBytes { Int($0.load(fromByteOffset: i * 2, as: UInt16.self)) }
        case .float32: return RasterImage.level(pixels.withUnsafeBytes { $0.load(fromByteOffset: i * 4, as: Float.self) })
        }
    }

    /// Every sample as an integer (float samples as 16-bit levels, see `sample`).
    public var samples: [Int] {
        switch format.depth {
        case .eight: return pixels.map(Int.init)
        case .sixteen: return pixels.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)).map(Int.init) }
        case .float32: return pixels.withUnsafeBytes { Array($0.bindMemory(to: Float.self)).map(RasterImage.level) }
        }
    }

    /// Every sample over its depth's full intensity (float samples as they are, unclamped).
    public var values: [Float] {
        switch format.depth {
        case .eight: return pixels.map { Float($0) / 255 }
        case .sixteen: return pixels.withUnsafeBytes { $0.bindMemory(to: UInt16.self).map { Float($0) / 65535 } }
        case .float32: return pixels.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        }
    }

    /// A float sample as a 16-bit level: clamped to [0, 1] (NaN to 0), times 65535, rounded.
    private static func level(_ v: Float) -> Int {
        Int(((v > 0 ? (v < 1 ? v : 1) : 0) * 65535).rounded())
    }

    /// An image from integer samples (clamped to the depth's range).
    public init(width: Int, height: Int, format: PixelFormat, samples: [Int], metadata: ImageMetadata = .none) throws(RenderError) {
        let expected = try RenderError.elementCount(width: width, height: height, perPixel: format.channels.count)
        guard samples.count == expected else { throw RenderError(.wrongBufferSize(expected: expected, found: samples.count)) }
        if format.depth.isFloat {
            throw RenderError(.mismatch("integer samples cannot make a float image: make it from its bytes (`pixels`)"))
        }
        let maxValue = format.depth.maxValue
        var bytes = [UInt8](repeating: 0, count: samples.count * format.depth.bytes)
        if format.depth == .eight {
            for (i, s) in samples.enumerated() { bytes[i] = UInt8(min(max(s, 0), maxValue)) }
        } else {
            bytes.withUnsafeMutableBytes { p in
                let u = p.bindMemory(to: UInt16.self)
                for (i, s) in samples.enumerated() { u[i] = UInt16(min(max(s, 0), maxValue)) }
            }
        }
        try self.init(width: width, height: height, format: format, metadata: metadata, pixels: bytes)
    }
}

/// Where the pipeline's rows come from: a decoder, or pixels already in memory.
public protocol PixelSource: AnyObject {
    var name: String { get }
    var info: ImageInfo { get }
    func read(into destination: UnsafeMutableRawPointer, stride: Int, rows: Int) throws
    func finish() throws
    var warnings: [String] { get }
    var notices: [String] { get }
}

extension PixelSource {
    /// Harmless damage the source went past (none, unless it decodes a file).
    public var notices: [String] { [] }
}

extension ImageReader: PixelSource {}

/// A RasterImage read as a PixelSource.
public final class RasterSource: PixelSource {
    public let name: String
    public let info: ImageInfo
    private let image: RasterImage
    private var next = 0

    public init(_ image: RasterImage, name: String = "<memory>") {
        self.image = image
        self.name = name
        info = ImageInfo(width: image.width, height: image.height, format: image.format, metadata: image.metadata,
                         sourceFormat: image.sourceFormat)
    }

    public func read(into destination: UnsafeMutableRawPointer, stride: Int, rows: Int) throws {
        let rowBytes = image.rowBytes
        image.pixels.withUnsafeBytes { p in
            for r in 0..<rows {
                (destination + r * stride).copyMemory(from: p.baseAddress! + (next + r) * rowBytes, byteCount: rowBytes)
            }
        }
        next += rows
    }

    public func finish() throws {}
    public var warnings: [String] { [] }
}
