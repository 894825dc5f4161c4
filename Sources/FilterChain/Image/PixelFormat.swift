/// The channels of stored pixels, in memory order.
public enum Channels: Int, Sendable, CaseIterable, CustomStringConvertible {
    case grey = 1
    case greyAlpha = 2
    case rgb = 3
    case rgba = 4

    public var count: Int { rawValue }
    public var hasAlpha: Bool { self == .greyAlpha || self == .rgba }
    public var isGrey: Bool { self == .grey || self == .greyAlpha }

    public init(grey: Bool, alpha: Bool) {
        switch (grey, alpha) {
        case (true, false): self = .grey
        case (true, true): self = .greyAlpha
        case (false, false): self = .rgb
        case (false, true): self = .rgba
        }
    }

    public var description: String {
        switch self {
        case .grey: "grey"
        case .greyAlpha: "grey+alpha"
        case .rgb: "RGB"
        case .rgba: "RGBA"
        }
    }
}

/// Bits per stored sample: unsigned integers of 8 or 16 bits, or 32-bit IEEE floats.
///
/// Float samples (a 32-bit float TIFF, or an image in memory made from one) are read
/// unclamped: 1 is full intensity, and values below 0 or above 1 reach the filters as they
/// are. A file output of a float image is float where its format holds float (TIFF, JPEG XL),
/// else 16-bit where its format holds 16 bits, else 8-bit; an output in memory keeps float,
/// unclamped.
public enum BitDepth: Int, Sendable, CaseIterable {
    case eight = 8
    case sixteen = 16
    case float32 = 32

    public var bytes: Int { rawValue / 8 }
    /// The sample value of full intensity: 255, 65535, or 1 for float (which may exceed it).
    public var maxValue: Int { self == .float32 ? 1 : (1 << rawValue) - 1 }
    /// Samples are 32-bit floats.
    public var isFloat: Bool { self == .float32 }
    /// The integer depths an image file is written with (float is written only where a format
    /// declares it: `FormatCapabilities.depths`).
    public static let stored: [BitDepth] = [.eight, .sixteen]
}

/// How pixels are stored: channels and depth. 16-bit samples are in host byte order.
public struct PixelFormat: Hashable, Sendable, CustomStringConvertible {
    public var channels: Channels
    public var depth: BitDepth

    public init(_ channels: Channels, _ depth: BitDepth) {
        self.channels = channels
        self.depth = depth
    }

    public var bytesPerPixel: Int { channels.count * depth.bytes }
    public var description: String { "\(channels) \(depth.rawValue)-bit\(depth.isFloat ? " float" : "")" }
}
