/// How images are written: the output format, what every format shares (depth, metadata
/// stripping, the background for formats without alpha), and the per-format settings by the
/// option names the formats declare (`filterchain formats` lists them with their ranges and
/// defaults). A setting the output format does not take is ignored here; the command-line
/// tool refuses it.
public struct EncodeOptions: Sendable, Hashable {
    /// The output format; nil takes it from the output's extension.
    public var format: ImageFormat?
    /// Bit depth, for formats that hold 16 bits; nil follows the input (16-bit input gives
    /// 16-bit output where the format holds it).
    public var depth: BitDepth?
    /// Per-format settings by option name ("quality": 85, "lossless": true), each checked
    /// against the declarations of the formats that take it.
    public var settings: [String: EncodeOptionValue]
    /// Drop the metadata (EXIF, XMP, comments, text, resolution, time) but keep the colour
    /// description (ICC profile, PNG sRGB/gAMA/cHRM), which changes how the image looks.
    public var stripMetadata: Bool
    /// With `stripMetadata`: an HDR gain map is kept (moved with the image, where the format
    /// holds one) as the colour description is (`filterchain thumbnail`); without, stripping
    /// leaves it out.
    public var stripKeepsGainMap = false
    /// Drop the colour description too (ICC profile, PNG sRGB/gAMA/cHRM, nclx).
    public var stripColorProfile: Bool
    /// For formats without alpha: transparent pixels are composited over this colour.
    public var background: RGBColor
    /// The colour the output is written in (default: the input's own).
    public var outputProfile: OutputProfile = .source
    /// How colours the output's profile cannot hold are mapped (default: relative
    /// colorimetric, with black-point compensation).
    public var intent: RenderingIntent = .relative
    /// Write the HDR rendition (the source's gain map applied) as PQ or HLG, BT.2020, 16-bit
    /// samples, in a format that can say so (`FormatCapabilities.hdr`: AVIF, PNG); nil: SDR,
    /// except from a PQ or HLG source, which such a format gets in its own transfer unless
    /// `standardDynamicRange` or an 8-bit `depth` says otherwise.
    public var hdr: HDROutput?
    /// Write SDR (an HDR source tone-mapped) even where the source is PQ or HLG and the format
    /// holds HDR (`--hdr sdr`).
    public var standardDynamicRange = false

    /// JPEG's declared default quality (90) and chroma subsampling (4:2:0).
    public static let defaultQuality = 90
    public static let defaultChroma = ChromaSubsampling.yuv420

    /// `quality`, `progressive`, `chroma` and `compressionLevel` are shorthands for the
    /// settings of those names (`compressionLevel` is PNG's "compression").
    public init(format: ImageFormat? = nil, depth: BitDepth? = nil, quality: Int? = nil,
                progressive: Bool = false, chroma: ChromaSubsampling? = nil,
                compressionLevel: Int? = nil, settings: [String: EncodeOptionValue] = [:],
                stripMetadata: Bool = false, stripColorProfile: Bool = false,
                background: RGBColor = .white, outputProfile: OutputProfile = .source,
                intent: RenderingIntent = .relative) {
        self.format = format
        self.outputProfile = outputProfile
        self.intent = intent
        self.depth = depth
        self.settings = settings
        self.stripMetadata = stripMetadata
        self.stripColorProfile = stripColorProfile
        self.background = background
        if let quality { self.quality = quality }
        if progressive { self.progressive = true }
        if let chroma { self.chroma = chroma }
        if let compressionLevel { self.compressionLevel = compressionLevel }
    }

    /// The "quality" setting (JPEG, WebP); nil: the format's default.
    public var quality: Int? {
        get { settings["quality"]?.integer }
        set { settings["quality"] = newValue.map(EncodeOptionValue.integer) }
    }

    /// The "progressive" setting (JPEG).
    public var progressive: Bool {
        get { settings["progressive"]?.boolean ?? false }
        set { settings["progressive"] = newValue ? .boolean(true) : nil }
    }

    /// The "chroma" setting (JPEG); nil: the format's default.
    public var chroma: ChromaSubsampling? {
        get { settings["chroma"]?.choice.flatMap(ChromaSubsampling.init(rawValue:)) }
        set { settings["chroma"] = newValue.map { .choice($0.rawValue) } }
    }

    /// PNG's "compression" setting, the zlib level 0...9 (6 when unset).
    public var compressionLevel: Int {
        get { settings["compression"]?.integer ?? 6 }
        set { settings["compression"] = .integer(newValue) }
    }

    /// Throws RenderError for a setting no format declares, or a value no format that
    /// takes it allows, and for a background outside 0...1.
    public func validate() throws(RenderError) {
        for (name, value) in settings.sorted(by: { $0.key < $1.key }) {
            let takers = CodecRegistry.formats(taking: name)
            guard !takers.isEmpty else {
                let known = Set(CodecRegistry.writable.flatMap { $0.options.map(\.name) }).sorted()
                throw RenderError(.badOption("unknown encode option '\(name)'; the formats take \(known.joined(separator: ", "))"))
            }
            let problems = takers.compactMap { $0.option(named: name)!.problem(with: value) }
            if problems.count == takers.count { throw RenderError(.badOption(problems[0])) }
        }
        for (name, v) in [("red", background.red), ("green", background.green), ("blue", background.blue)] where !(v.isFinite && (0...1).contains(v)) {
            throw RenderError(.badOption("background \(name) \(v) is out of range; allowed 0...1"))
        }
        if let headroom = hdr?.headroom, !(headroom.isFinite && HDROutput.headroomRange.contains(headroom)) {
            let r = HDROutput.headroomRange
            throw RenderError(.badOption("HDR headroom \(headroom) stops is out of range; allowed \(Int(r.lowerBound))...\(Int(r.upperBound))"))
        }
        if hdr != nil, depth == .eight { throw RenderError(.badOption("an HDR output has 16-bit samples (10-bit in AVIF); depth 8 cannot hold it")) }
        if hdr != nil, outputProfile != .source {
            throw RenderError(.badOption("an HDR output is BT.2020 with its own transfer; it takes no output profile"))
        }
    }

    /// Like `validate()`, and each setting `format` takes is checked against its declaration,
    /// for an output of `depth` bits (nil: `self.depth`, or not yet known).
    public func validate(for format: ImageFormat, depth: BitDepth? = nil) throws(RenderError) {
        try validate()
        try validate(settingsFor: format, depth: depth)
    }

    /// `validate(for:depth:)` without `validate()`: each setting against `format`'s
    /// declaration, then the settings together.
    func validate(settingsFor format: ImageFormat, depth: BitDepth?) throws(RenderError) {
        let declaration = format.declaration
        if hdr != nil, declaration.capabilities.hdr == nil {
            let holders = CodecRegistry.writable.filter { $0.capabilities.hdr != nil }.map(\.name)
            throw RenderError(.badOption("\(declaration.name) cannot say that its samples are HDR; HDR is written as \(CodecRegistry.list(holders, and: "or"))"))
        }
        for (name, value) in settings.sorted(by: { $0.key < $1.key }) {
            if let problem = declaration.option(named: name)?.problem(with: value) {
                throw RenderError(.badOption("\(declaration.name) \(problem)"))
            }
        }
        try validate(combinationsFor: format, depth: depth)
    }

    /// What `validate(for:depth:)` checks last, alone: the settings together, for an output
    /// of `depth` bits (nil: `self.depth`, or not yet known). A render checks the rest before
    /// reading and this once its output's depth is known.
    func validate(combinationsFor format: ImageFormat, depth: BitDepth?) throws(RenderError) {
        if let problem = format.declaration.combinationProblem(settings, depth: depth ?? self.depth) {
            throw RenderError(.options(problem))
        }
    }

    /// Every option of `format` with the value an output of it gets for a source with
    /// `metadata`: the setting given, else the source's own (a JPEG source's quality for a
    /// JPEG output), else the declared default. What `--json` reports.
    public func settingsUsed(by format: ImageFormat, source metadata: ImageMetadata) -> [(name: String, value: EncodeOptionValue)] {
        EncodeSettings(declaration: format.declaration, options: self, source: metadata).all
    }

    /// The format an output at `destination` gets: `format`, else the path's extension.
    public func resolvedFormat(for destination: ImageDestination) throws -> ImageFormat {
        if let format { return format }
        guard case .file(let path) = destination else {
            throw CodecError("-", .unsupportedOutputFormat(""))
        }
        let base = OutputFile.split(path).base
        let ext = base.lastIndex(of: ".").map { String(base[base.index(after: $0)...]) } ?? ""
        guard let format = ImageFormat(pathExtension: ext), format.declaration.writes else {
            throw CodecError(path, .unsupportedOutputFormat(ext))
        }
        return format
    }
}

public enum ChromaSubsampling: String, Sendable, Hashable, CaseIterable {
    case yuv420 = "4:2:0"
    case yuv422 = "4:2:2"
    case yuv444 = "4:4:4"
}

/// An sRGB colour, components in 0...1.
public struct RGBColor: Sendable, Hashable, CustomStringConvertible {
    public var red: Double
    public var green: Double
    public var blue: Double

    public init(red: Double, green: Double, blue: Double) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    public static let white = RGBColor(red: 1, green: 1, blue: 1)
    public static let black = RGBColor(red: 0, green: 0, blue: 0)

    /// "white", "black", "#RGB", "#RRGGBB" (the # is optional).
    public init?(parsing text: String) {
        let s = text.lowercased()
        if s == "white" { self = .white; return }
        if s == "black" { self = .black; return }
        var hex = Substring(s)
        if hex.hasPrefix("#") { hex = hex.dropFirst() }
        guard hex.allSatisfy(\.isHexDigit) else { return nil }
        let digits = hex.map { Int(String($0), radix: 16)! }
        switch digits.count {
        case 3: self.init(red: Double(digits[0] * 17) / 255, green: Double(digits[1] * 17) / 255,
                          blue: Double(digits[2] * 17) / 255)
        case 6: self.init(red: Double(digits[0] * 16 + digits[1]) / 255,
                          green: Double(digits[2] * 16 + digits[3]) / 255,
                          blue: Double(digits[4] * 16 + digits[5]) / 255)
        default: return nil
        }
    }

    public var description: String {
        let hex = [red, green, blue].map { v -> String in
            let s = String(Int((v * 255).rounded()), radix: 16)
            return s.count == 1 ? "0" + s : s
        }
        return "#" + hex.joined()
    }
}
