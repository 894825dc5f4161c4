/// Why a colour profile cannot be used.
public enum ColorProfileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// lcms2 cannot read the bytes as an ICC profile; its message.
    case unreadable(String)
    /// The profile's colour space is not RGB, grey or CMYK (its ICC signature).
    case unsupportedSpace(String)
    /// lcms2 could not make a transform between two profiles; its message.
    case noTransform(String)
    /// A profile file that cannot serve where it was given (unreadable, or of the wrong kind).
    case cannotUse(String)

    public var description: String {
        switch self {
        case .unreadable(let m): "the ICC profile cannot be read (lcms2: \(m))"
        case .unsupportedSpace(let s): "ICC profiles of colour space \"\(s)\" are not supported (only RGB, grey and CMYK)"
        case .noTransform(let m): "no colour transform between the profiles (lcms2: \(m))"
        case .cannotUse(let m): m
        }
    }
}
