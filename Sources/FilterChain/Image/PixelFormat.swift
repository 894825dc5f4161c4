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

/// Bits per stored sample.
public enum BitDepth: Int, Sendable, CaseIterable {
    case eight = 8
    case sixteen = 16

    public var bytes: Int { rawValue / 8 }
    /// The largest sample value: 255 or 65535.
    public var maxValue: Int { (1 << rawValue) - 1 }
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
    public var description: String { "\(channels) \(depth.rawValue)-bit" }
}
