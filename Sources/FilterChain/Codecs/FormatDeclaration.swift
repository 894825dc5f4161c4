/// Everything said about a file format, once: its name, extensions and signature, what it
/// can hold, its encode options with their ranges and defaults, and its decoder and encoder.
/// Reading, writing, output layouts, the command line's options and `filterchain formats`
/// all read it.
public struct FormatDeclaration: Sendable {
    public let format: ImageFormat
    /// The display name ("WebP").
    public let name: String
    /// One line: what is read and written.
    public let summary: String
    /// File extensions, lower case; the first is what new files get.
    public let extensions: [String]
    /// The IANA media type ("image/webp").
    public let mediaType: String
    /// What the format can hold.
    public let capabilities: FormatCapabilities
    /// The options its encoder takes, in the order listings show them.
    public let options: [EncodeOption]
    /// Whether the data's first bytes are this format's (it sees up to 32 bytes).
    let signature: @Sendable ([UInt8]) -> Bool
    /// An option's default taken from the source image (a JPEG source's own quality for a
    /// JPEG output), before the declared default.
    let sourceDefault: (@Sendable (_ option: String, _ source: ImageMetadata) -> EncodeOptionValue?)?
    /// Rules across the options given and the output's depth (nil when not yet known): what
    /// is wrong with a combination ("{quality} is for lossy WebP"), options named in braces
    /// (see ``OptionProblem``).
    let check: (@Sendable ([String: EncodeOptionValue], BitDepth?) -> OptionProblem?)?
    let decoder: (@Sendable (OpenedInput, DecodeOptions) throws -> StoredDecoder)?
    let encoder: (@Sendable (OutputFile, EncodeHeader, ImageMetadata, EncodeSettings) throws -> RowEncoder)?
    /// Why the system library the codec needs cannot be used, or nil (see ``libraryProblem``).
    let library: (@Sendable () -> String?)?
    /// Reads a file frame by frame (`maxFrames`, 0 none, checked first); nil from it when the
    /// file is a still, which the decoder reads.
    let frameDecoder: (@Sendable (OpenedInput, DecodeOptions, _ maxFrames: Int) throws -> FrameDecoder?)?
    /// From a file's first bytes (up to 32): whether it may hold an animation, so that a
    /// still is not opened to find out (nil: any file of the format may).
    let mayHoldAnimation: (@Sendable ([UInt8]) -> Bool)?
    /// Writes an animation frame by frame.
    let frameEncoder: (@Sendable (OutputFile, AnimationHeader, ImageMetadata, EncodeSettings) throws -> FrameEncoder)?
    /// Writes a file of another format from its bytes, not its pixels, when nothing changes
    /// them (a chain of no steps): JPEG XL's lossless JPEG transcode. Nil from it when it does
    /// not take that format with these settings.
    let transcoder: (@Sendable (_ source: ImageFormat, EncodeSettings) -> (@Sendable (UnsafeRawBufferPointer, OutputFile) throws -> Void)?)?
    /// Files of another format's signature that are this format's (a DNG or NEF is a TIFF
    /// by its first bytes): tested once that format is sniffed.
    let claim: FormatClaim?

    init(format: ImageFormat, name: String, summary: String, extensions: [String], mediaType: String,
         capabilities: FormatCapabilities, options: [EncodeOption],
         signature: @escaping @Sendable ([UInt8]) -> Bool,
         sourceDefault: (@Sendable (String, ImageMetadata) -> EncodeOptionValue?)? = nil,
         check: (@Sendable ([String: EncodeOptionValue], BitDepth?) -> OptionProblem?)? = nil,
         decoder: (@Sendable (OpenedInput, DecodeOptions) throws -> StoredDecoder)?,
         encoder: (@Sendable (OutputFile, EncodeHeader, ImageMetadata, EncodeSettings) throws -> RowEncoder)?,
         library: (@Sendable () -> String?)? = nil,
         frameDecoder: (@Sendable (OpenedInput, DecodeOptions, Int) throws -> FrameDecoder?)? = nil,
         mayHoldAnimation: (@Sendable ([UInt8]) -> Bool)? = nil,
         frameEncoder: (@Sendable (OutputFile, AnimationHeader, ImageMetadata, EncodeSettings) throws -> FrameEncoder)? = nil,
         transcoder: (@Sendable (ImageFormat, EncodeSettings) -> (@Sendable (UnsafeRawBufferPointer, OutputFile) throws -> Void)?)? = nil,
         claim: FormatClaim? = nil) {
        precondition(!extensions.isEmpty, "\(name): a format needs an extension")
        self.format = format
        self.name = name
        self.summary = summary
        self.extensions = extensions
        self.mediaType = mediaType
        self.capabilities = capabilities
        self.options = options
        self.signature = signature
        self.sourceDefault = sourceDefault
        self.check = check
        self.decoder = decoder
        self.encoder = encoder
        self.library = library
        self.frameDecoder = frameDecoder
        self.mayHoldAnimation = mayHoldAnimation
        self.frameEncoder = frameEncoder
        self.transcoder = transcoder
        self.claim = claim
    }

    /// filterchain reads this format's animations frame by frame.
    public var readsAnimations: Bool { frameDecoder != nil }
    /// filterchain writes this format's animations.
    public var writesAnimations: Bool { frameEncoder != nil }

    /// Why the system library this format needs cannot be used here (not installed, or older
    /// than the one built with), or nil. On Linux, libtiff, libavif and libheif are loaded the
    /// first time a file needs them (or this is asked), not at every start.
    public var libraryProblem: String? { library?() }

    /// Throws ``CodecError/Reason/libraryUnavailable(format:_:)`` naming `file` when the
    /// library cannot be used.
    func requireLibrary(_ file: String) throws {
        if let why = libraryProblem { throw CodecError(file, .libraryUnavailable(format: name, why)) }
    }

    /// filterchain can read files of this format.
    public var reads: Bool { decoder != nil }
    /// filterchain can write files of this format.
    public var writes: Bool { encoder != nil }

    /// The option called `name`, when this format takes it.
    public func option(named name: String) -> EncodeOption? { options.first { $0.name == name } }

    func matches(_ prefix: [UInt8]) -> Bool { signature(prefix) }

    /// What is wrong with these settings together for this format, for an output of `depth`
    /// bits (nil: not yet known), or nil.
    public func combinationProblem(_ settings: [String: EncodeOptionValue], depth: BitDepth? = nil) -> OptionProblem? {
        check?(settings, depth)
    }

    /// True when `prefix` holds `bytes` at `offset`.
    static func starts(_ prefix: [UInt8], with bytes: [UInt8], at offset: Int = 0) -> Bool {
        prefix.count >= offset + bytes.count && Array(prefix[offset..<offset + bytes.count]) == bytes
    }
}

/// A format whose files carry another format's signature: which one, and the test that tells
/// its files from that format's (it may read the file's structure, not only its first bytes).
struct FormatClaim: Sendable {
    let refines: ImageFormat
    let test: @Sendable (OpenedInput) -> Bool
}

/// What a format can hold. Outputs are laid out from it: alpha is composited over the
/// background where the format has none, 16-bit images are written at 8 bits where it
/// holds only 8, grey is written as RGB where it holds no grey.
public struct FormatCapabilities: Sendable, Hashable {
    /// Holds an alpha channel.
    public var alpha: Bool
    /// The sample depths it stores.
    public var depths: [BitDepth]
    /// Holds grey images as grey (one channel, or grey and alpha).
    public var grey: Bool
    /// The metadata it holds.
    public var metadata: Set<MetadataKind>
    /// Files may hold an animation (see `FormatDeclaration.readsAnimations` and
    /// `writesAnimations` for what filterchain does with one).
    public var animation: Bool
    /// Reading turns the pixels upright by the EXIF Orientation (unless told not to).
    public var exifOrientation: Bool
    /// The largest width or height a file can have; nil: no limit below 2^31.
    public var maxSide: Int?
    /// Holds CMYK images (an output whose profile is a CMYK one is written as its inks).
    public var cmyk: Bool
    /// How it says that its samples are HDR (PQ or HLG, BT.2020), when it can.
    public var hdr: HDRSignalling?

    public init(alpha: Bool, depths: [BitDepth], grey: Bool, metadata: Set<MetadataKind>,
                animation: Bool = false, exifOrientation: Bool = false, maxSide: Int? = nil, cmyk: Bool = false,
                hdr: HDRSignalling? = nil) {
        self.hdr = hdr
        self.alpha = alpha
        self.depths = depths
        self.grey = grey
        self.metadata = metadata
        self.animation = animation
        self.exifOrientation = exifOrientation
        self.maxSide = maxSide
        self.cmyk = cmyk
    }

    /// Holds 16-bit samples.
    public var sixteenBit: Bool { depths.contains(.sixteen) }

    /// Whether rows laid out as `format` can be written as they are.
    public func holds(_ format: PixelFormat) -> Bool {
        depths.contains(format.depth) && (alpha || !format.channels.hasAlpha) && (grey || !format.channels.isGrey)
    }
}

/// The kinds of metadata a format can hold (see the metadata table of ImagesInAndOut.md).
public enum MetadataKind: String, Sendable, Hashable, CaseIterable, Comparable {
    case icc
    case exif
    case xmp
    /// JPEG extended XMP (the part of an XMP packet too large for one segment).
    case extendedXMP
    case comments
    case resolution
    /// PNG text chunks other than XMP and comments.
    case text
    /// PNG tIME.
    case time
    /// PNG sRGB, gAMA and cHRM.
    case colourChunks
    /// A HEIF/AVIF nclx colour description (see ``NCLXColor``).
    case nclx
    /// An HDR gain map beside the image (JPEG: Ultra HDR, MPF with ISO 21496-1 metadata).
    case gainMap

    /// Whether `metadata` has something of this kind.
    func present(in metadata: ImageMetadata) -> Bool {
        switch self {
        case .icc: metadata.iccProfile != nil
        case .exif: metadata.exif != nil
        case .xmp: metadata.xmp != nil
        case .extendedXMP: metadata.extendedXMP != nil
        case .comments: !metadata.comments.isEmpty
        case .resolution: metadata.resolution != nil
        case .text: metadata.pngChunks.contains { $0.text != nil }
        case .time: metadata.pngChunks.contains { $0.type == "tIME" }
        case .colourChunks: metadata.pngColor.map { !$0.isEmpty } ?? false
        case .nclx: metadata.nclx != nil
        // A PQ or HLG source can have one made (`--gain-map create`).
        case .gainMap: metadata.gainMap != nil || metadata.nclx.flatMap { HDRTransfer(codePoint: $0.transferCharacteristics) } != nil
        }
    }

    public var displayName: String {
        switch self {
        case .icc: "ICC profile"
        case .exif: "EXIF"
        case .xmp: "XMP"
        case .extendedXMP: "extended XMP"
        case .comments: "comments"
        case .resolution: "resolution"
        case .text: "text"
        case .time: "time"
        case .colourChunks: "sRGB/gAMA/cHRM"
        case .nclx: "nclx"
        case .gainMap: "HDR gain map"
        }
    }

    public static func < (a: MetadataKind, b: MetadataKind) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// A value of an encode option.
public enum EncodeOptionValue: Sendable, Hashable, CustomStringConvertible,
    ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral, ExpressibleByStringLiteral {
    case integer(Int)
    case boolean(Bool)
    case choice(String)
    /// A number with a fraction (JPEG XL's distance).
    case number(Double)

    public init(integerLiteral value: Int) { self = .integer(value) }
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
    public init(stringLiteral value: String) { self = .choice(value) }

    public var integer: Int? { if case .integer(let v) = self { v } else { nil } }
    public var boolean: Bool? { if case .boolean(let v) = self { v } else { nil } }
    public var choice: String? { if case .choice(let v) = self { v } else { nil } }
    /// A number, or a whole number as one.
    public var number: Double? {
        switch self {
        case .number(let v): v
        case .integer(let v): Double(v)
        default: nil
        }
    }

    public var description: String {
        switch self {
        case .integer(let v): String(v)
        case .boolean(let v): String(v)
        case .choice(let v): v
        case .number(let v): JSONWriter.number(v)
        }
    }

    /// The value as JSON (a number, true or false, or a string).
    public var jsonNode: JSONNode {
        switch self {
        case .integer(let v): JSONNode(.number(Double(v)))
        case .boolean(let v): JSONNode(.bool(v))
        case .choice(let v): JSONNode(.string(v))
        case .number(let v): JSONNode(.number(v))
        }
    }
}

/// An option a format's encoder takes: its name (the command line's flag is
/// `--` + the name in kebab case), what it allows, its default and one line of help.
public struct EncodeOption: Sendable {
    public let name: String
    /// `.integer(range)`, `.boolean` or `.choice(values)`.
    public let kind: ParameterKind
    public let defaultValue: EncodeOptionValue
    /// Where the default comes from when not only from `defaultValue` ("a JPEG input's own").
    public let defaultNote: String?
    public let help: String
    /// The kind of metadata the option is about, when it is about one a source may lack
    /// (the HDR gain map's options): it is reported for sources that have it only.
    public let about: MetadataKind?

    public init(_ name: String, _ kind: ParameterKind, default defaultValue: EncodeOptionValue,
                defaultNote: String? = nil, help: String, about: MetadataKind? = nil) {
        self.name = name
        self.kind = kind
        self.defaultValue = defaultValue
        self.defaultNote = defaultNote
        self.help = help
        self.about = about
    }

    /// The command line's flag: `--alpha-quality` for alphaQuality.
    public var flag: String { Self.flag(for: name) }

    /// The command line's flag for an option name: `--` and the name in kebab case.
    public static func flag(for name: String) -> String {
        "--" + name.map { $0.isUppercase ? "-" + $0.lowercased() : String($0) }.joined()
    }

    /// What is wrong with `value` for this option, or nil.
    public func problem(with value: EncodeOptionValue) -> String? {
        switch (kind, value) {
        case (.integer(let range), .integer(let v)) where range.contains(v): return nil
        case (.boolean, .boolean): return nil
        case (.choice(let values), .choice(let v)) where values.contains(v): return nil
        case (.number(let range), _) where value.number.map(range.contains) == true: return nil
        default:
            return "\(name) \(value) is out of range; allowed \(allowed)"
        }
    }

    /// What is allowed, as messages and listings say it.
    public var allowed: String {
        switch kind {
        case .integer(let r): "\(r.lowerBound)...\(r.upperBound)"
        case .boolean: "true or false"
        case .choice(let values): values.joined(separator: ", ")
        case .number(let r): "\(JSONWriter.number(r.lowerBound))...\(JSONWriter.number(r.upperBound))"
        default: kind.allowed
        }
    }
}

/// The options an encoder works with: what was given, else the source's own (a JPEG
/// source's quality for a JPEG output), else the declared defaults.
struct EncodeSettings {
    let declaration: FormatDeclaration
    let options: EncodeOptions
    let source: ImageMetadata

    func value(_ name: String) -> EncodeOptionValue {
        guard let option = declaration.option(named: name) else {
            preconditionFailure("\(declaration.name) declares no option \(name)")
        }
        if let given = options.settings[name] { return given }
        if let own = declaration.sourceDefault?(name, source) { return own }
        return option.defaultValue
    }

    func integer(_ name: String) -> Int { value(name).integer! }
    func boolean(_ name: String) -> Bool { value(name).boolean! }
    func choice(_ name: String) -> String { value(name).choice! }
    func number(_ name: String) -> Double { value(name).number! }
    /// Whether the option was given (not a source's or the declared default).
    func given(_ name: String) -> Bool { options.settings[name] != nil }

    /// Every option of the format with the value used, in declaration order; an option about
    /// a kind of metadata only when the source has it.
    var all: [(name: String, value: EncodeOptionValue)] {
        declaration.options.filter { $0.about?.present(in: source) ?? true }.map { ($0.name, value($0.name)) }
    }
}
