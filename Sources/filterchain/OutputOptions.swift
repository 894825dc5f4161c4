import ArgumentParser
import FilterChain

/// How images are read and written: shared by every command that does either.
struct CodecOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Output format: \(CodecRegistry.writable.map(\.format.id).joined(separator: ", ")) (default: from the output's extension; required when writing to stdout). 'filterchain formats' lists what each holds and its options.", valueName: CodecRegistry.writable.map(\.format.id).joined(separator: "|")))
    var format: String?

    // Each format's own options, as the registry declares them (help, ranges, defaults):
    // `settings` maps them to their names; an option the output format does not take is a
    // usage error.
    @Option(help: CodecOptions.help("quality"))
    var quality: Int?

    @Flag(help: CodecOptions.flagHelp("progressive"))
    var progressive = false

    @Option(help: CodecOptions.help("chroma"))
    var chroma: String?

    @Option(help: CodecOptions.help("compression"))
    var compression: Int?

    @Flag(help: CodecOptions.flagHelp("lossless"))
    var lossless = false

    @Option(help: CodecOptions.help("effort"))
    var effort: Int?

    @Option(help: CodecOptions.help("tables"))
    var tables: String?

    @Option(name: .customLong("restart-interval"), help: CodecOptions.help("restartInterval"))
    var restartInterval: Int?

    @Option(name: .customLong("alpha-quality"), help: CodecOptions.help("alphaQuality"))
    var alphaQuality: Int?

    @Option(name: .customLong("tiff-compression"), help: CodecOptions.help("tiffCompression"))
    var tiffCompression: String?

    @Option(name: .customLong("gain-map"), help: CodecOptions.help("gainMap"))
    var gainMap: String?

    @Option(name: .customLong("gain-map-quality"), help: CodecOptions.help("gainMapQuality"))
    var gainMapQuality: Int?

    @Option(help: CodecOptions.help("distance"))
    var distance: Double?

    @Flag(name: .customLong("no-jpeg-reconstruction"), help: "JPEG XL: encode a JPEG input's pixels instead of transcoding its bytes losslessly (which a chain of no steps does by default).")
    var noJPEGReconstruction = false

    // `--encode NAME=VALUE`: every option of every format by its registry name, no flag of
    // its own needed: a new codec's options work here, in `formats` and in validation with
    // no edit to the tool.
    @Option(name: .customLong("encode"), help: CodecOptions.encodeHelp)
    var encode: [String] = []

    @Option(help: ArgumentHelp("Bit depth, for formats that hold 16 bits: \(listText(CodecRegistry.writable.filter(\.capabilities.sixteenBit).map(\.name))) (default: as the input, so 16-bit stays 16-bit, and float stays float in \(listText(CodecRegistry.writable.filter { $0.capabilities.depths.contains(.float32) }.map(\.name))); else 16-bit).", valueName: "8|16"))
    var depth: Int?

    @Option(help: ArgumentHelp("Write the HDR rendition: an HDR input's gain map applied (moved with the image), BT.2020, PQ or HLG (a 1,000 cd/m² display), SDR white at 203 cd/m², 16-bit samples (10-bit AVIF), in \(listText(CodecRegistry.writable.filter { $0.capabilities.hdr != nil }.map(\.name), and: "or")). An input without a map is placed with its white at 203 cd/m². A PQ or HLG input is written so by default where the format holds HDR; sdr writes it tone-mapped to SDR (ITU-R BT.2390's EETF).", valueName: "pq|hlg|sdr"))
    var hdr: String?

    @Option(name: .customLong("hdr-headroom"), help: ArgumentHelp("With --hdr: the headroom to render, in stops above SDR white (the display's peak over 203 cd/m²; default: the gain map's full capacity).", valueName: "stops"))
    var hdrHeadroom: Double?

    @Flag(help: "Drop metadata (EXIF, XMP, comments, text, resolution, time) but keep the colour profile (ICC, PNG sRGB/gAMA/cHRM), which changes how the image looks.")
    var strip = false

    @Flag(name: .customLong("strip-all"), help: "Drop all metadata, the colour profile too (a wide-gamut photo then looks different).")
    var stripAll = false

    @Option(name: .customLong("output-profile"), help: ArgumentHelp("The colour outputs are written in: source (the input's own profile and colours; an untagged input stays untagged sRGB; CMYK, and a profile that cannot describe an output such as an XYB JPEG's, become sRGB with a note), srgb (tagged: PNG's sRGB chunk, a compact ICC profile elsewhere), displayP3, or an RGB or grey ICC profile file (written with the output).", valueName: "source|srgb|displayP3|FILE.icc"))
    var outputProfile: String = "source"

    @Option(help: ArgumentHelp("How colours the output profile cannot hold are mapped, with black-point compensation: perceptual, relative (colorimetric, clipped at the encode), saturation, absolute (colorimetric, with the source's white).", valueName: "perceptual|relative|saturation|absolute"))
    var intent: String = "relative"

    @Option(help: ArgumentHelp("Colour transparent pixels are composited over for formats without alpha (\(listText(CodecRegistry.writable.filter { !$0.capabilities.alpha }.map(\.name)))): white, black, #rgb or #rrggbb.", valueName: "colour"))
    var background: String = "white"

    @Option(name: .customLong("max-pixels"), help: ArgumentHelp("Refuse images with more pixels than this, checked from the header before decoding (0: no limit).", valueName: "n"))
    var maxPixels: Int = DecodeOptions.defaultMaxPixels

    @Flag(name: .customLong("no-auto-orient"), help: "Keep the pixels as stored instead of turning them upright by their EXIF Orientation (\(listText(CodecRegistry.readable.filter(\.capabilities.exifOrientation).map(\.name)))).")
    var noAutoOrient = false

    @Option(name: .customLong("raw-wb"), help: ArgumentHelp("A camera RAW's white balance: camera (as shot), auto (LibRaw's grey world), daylight (the camera matrix's D65), or a light's colour temperature in kelvin (2000 to 25000).", valueName: "camera|auto|daylight|KELVIN"))
    var rawWhiteBalance: String = "camera"

    @Option(name: .customLong("raw-demosaic"), help: ArgumentHelp("A camera RAW's demosaic (LibRaw's): ahd, dcb, dht, aahd, ppg or linear.", valueName: "algorithm"))
    var rawDemosaic: String = "ahd"

    @Option(name: .customLong("raw-highlights"), help: ArgumentHelp("A camera RAW's clipped highlights: clip (to white), unclip (as the sensor saw them, tinted), blend, or rebuild (LibRaw's reconstruction, level 5).", valueName: "clip|unclip|blend|rebuild"))
    var rawHighlights: String = "clip"

    @Flag(name: .customLong("raw-preview"), help: "For a camera RAW: use its embedded JPEG preview instead of developing it, when the preview is at least the size the chain's first step (a resize) needs.")
    var rawPreview = false

    @Flag(help: "Decode damaged images as far as possible (the damage is reported as a warning) instead of refusing them.")
    var lenient = false

    @Flag(help: "Refuse images with harmless damage too (a damaged EXIF block, stray bytes, a gain map that cannot be read), which are otherwise read without what was damaged and a warning; the opposite of --lenient.")
    var strict = false

    /// The format options given, by their registry names: their own flags, then `--encode`.
    var settings: [String: EncodeOptionValue] {
        var s = flagSettings
        for text in encode { if case .success(let (name, value)) = CodecOptions.setting(text) { s[name] = value } }
        return s
    }

    /// The options given with flags of their own.
    private var flagSettings: [String: EncodeOptionValue] {
        var s: [String: EncodeOptionValue] = [:]
        if let quality { s["quality"] = .integer(quality) }
        if progressive { s["progressive"] = .boolean(true) }
        if let chroma { s["chroma"] = .choice(chroma) }
        if let compression { s["compression"] = .integer(compression) }
        if lossless { s["lossless"] = .boolean(true) }
        if let effort { s["effort"] = .integer(effort) }
        if let tables { s["tables"] = .choice(tables) }
        if let restartInterval { s["restartInterval"] = .integer(restartInterval) }
        if let alphaQuality { s["alphaQuality"] = .integer(alphaQuality) }
        if let tiffCompression { s["tiffCompression"] = .choice(tiffCompression) }
        if let gainMap { s["gainMap"] = .choice(gainMap) }
        if let gainMapQuality { s["gainMapQuality"] = .integer(gainMapQuality) }
        if noJPEGReconstruction { s["jpegReconstruction"] = .boolean(false) }
        if let distance { s["distance"] = .number(distance) }
        return s
    }

    /// The format options with a flag of their own, by registry name, read off this type's
    /// declarations (`_quality` is quality's): every other option is given with `--encode`.
    static let ownFlags: Set<String> = {
        let labels = Mirror(reflecting: CodecOptions()).children.compactMap { $0.label.map { String($0.dropFirst()) } }
        return Set(labels).intersection(CodecRegistry.optionNames)
    }()

    /// How the tool names format option `name` (with `value`, when given): its own flag
    /// (`--quality`, `--tiff-compression jpeg`), else `--encode` (`--encode effort`,
    /// `--encode effort=3`). A name that is no format option is a flag (`--depth 8`).
    static func spelled(_ name: String, _ value: String? = nil, ownFlags: Set<String> = CodecOptions.ownFlags) -> String {
        let flag = EncodeOption.flag(for: name)
        guard CodecRegistry.optionNames.contains(name), !ownFlags.contains(name) else { return flag + (value.map { " " + $0 } ?? "") }
        return "--encode " + flag.dropFirst(2) + (value.map { "=" + $0 } ?? "")
    }

    /// `--encode`'s help: every option of every writable format, with the formats that take it.
    static var encodeHelp: ArgumentHelp {
        let list = CodecRegistry.optionNames.map { "\(EncodeOption.flag(for: $0).dropFirst(2)) (\(listText(CodecRegistry.formats(taking: $0).map(\.name))))" }
        return ArgumentHelp("A format option as NAME=VALUE, repeatable: \(list.joined(separator: ", ")). The same as the option's own flag; 'filterchain formats' lists each format's values and defaults.",
                            valueName: "name=value")
    }

    /// An `--encode` value read by the registry: the option (by the flag's name, `alpha-quality`,
    /// or the registry's, `alphaQuality`) and its value in the option's kind.
    static func setting(_ text: String) -> Result<(String, EncodeOptionValue), ValidationError> {
        guard let equals = text.firstIndex(of: "=") else {
            return .failure(ValidationError("--encode \(text): give NAME=VALUE, as in --encode quality=85"))
        }
        let given = String(text[..<equals]), raw = String(text[text.index(after: equals)...])
        guard let (name, exact) = CodecRegistry.option(named: given), exact else {
            let flags = CodecRegistry.optionNames.map { String(EncodeOption.flag(for: $0).dropFirst(2)) }
            let guess = CodecRegistry.option(named: given).map { " (did you mean \(EncodeOption.flag(for: $0.name).dropFirst(2))?)" } ?? ""
            return .failure(ValidationError("--encode \(text): '\(given)' is no format's option\(guess); the options are \(listText(flags))"))
        }
        let option = CodecRegistry.formats(taking: name)[0].option(named: name)!
        switch option.kind {
        case .integer:
            guard let v = Int(raw) else { return .failure(ValidationError("--encode \(text): \(name) takes a whole number")) }
            return .success((name, .integer(v)))
        case .boolean:
            guard let v = Bool(raw) else { return .failure(ValidationError("--encode \(text): \(name) takes true or false")) }
            return .success((name, .boolean(v)))
        case .number:
            guard let v = Double(raw), v.isFinite else { return .failure(ValidationError("--encode \(text): \(name) takes a number")) }
            return .success((name, .number(v)))
        default:
            return .success((name, .choice(raw)))
        }
    }

    /// An option's help from the registry: what it does, the formats that take it, the
    /// values allowed and each format's default. Formats that say it differently (their own
    /// ranges, their library's terms) are each given their own sentence.
    static func help(_ name: String) -> ArgumentHelp {
        let takers = CodecRegistry.formats(taking: name)
        precondition(!takers.isEmpty, "no format declares \(name)")
        let options = takers.map { $0.option(named: name)! }
        func defaultText(_ o: EncodeOption) -> String { (o.defaultNote.map { "\($0); else " } ?? "") + o.defaultValue.description }
        let text: String
        if Set(options.map(\.help)).count == 1 {
            let defaults = zip(takers, options).map { d, o in (takers.count > 1 ? d.name + " " : "") + defaultText(o) }
            text = "\(listText(takers.map(\.name))): \(options[0].help) (default: \(defaults.joined(separator: "; ")))."
        } else {
            text = zip(takers, options).map { d, o in "\(d.name): \(o.help) (default: \(defaultText(o)))." }.joined(separator: " ")
        }
        let value: String
        switch options[0].kind {
        case .integer:
            let ranges = options.compactMap { o -> ClosedRange<Int>? in if case .integer(let r) = o.kind { r } else { nil } }
            value = Set(ranges.map { "\($0.lowerBound)-\($0.upperBound)" }).count == 1
                ? "\(ranges[0].lowerBound)-\(ranges[0].upperBound)" : "n"
        case .choice:
            var values: [String] = []
            for o in options { if case .choice(let v) = o.kind { values += v.filter { !values.contains($0) } } }
            value = values.sorted().joined(separator: "|")
        default: value = "value"
        }
        return ArgumentHelp(text, valueName: value)
    }

    /// A boolean option's help from the registry.
    static func flagHelp(_ name: String) -> ArgumentHelp {
        let takers = CodecRegistry.formats(taking: name)
        precondition(!takers.isEmpty, "no format declares \(name)")
        let help = takers[0].option(named: name)!.help
        return ArgumentHelp("\(listText(takers.map(\.name))): \(help).")
    }

    static var formatIDs: String { listText(CodecRegistry.writable.map(\.format.id), and: "or") }

    func validate() throws {
        if let hdr, HDRTransfer(rawValue: hdr) == nil && hdr != "sdr" { throw ValidationError("--hdr: '\(hdr)' is not pq, hlg or sdr") }
        if hdrHeadroom != nil && (hdr == nil || hdr == "sdr") { throw ValidationError("--hdr-headroom goes with --hdr pq or --hdr hlg") }
        if let h = hdrHeadroom, !(h.isFinite && HDROutput.headroomRange.contains(h)) {
            let r = HDROutput.headroomRange
            throw ValidationError("--hdr-headroom \(h) is out of range; allowed \(Int(r.lowerBound))...\(Int(r.upperBound)) stops")
        }
        if hdr != nil && hdr != "sdr" && depth == 8 { throw ValidationError("--hdr writes 16-bit samples (10-bit AVIF); --depth 8 cannot hold them") }
        if strict && lenient { throw ValidationError("--strict and --lenient contradict each other; give one") }
        if let format, ImageFormat(rawValue: format)?.declaration.writes != true {
            throw ValidationError("--format: '\(format)' is not a format filterchain writes; use \(CodecOptions.formatIDs)")
        }
        var fromEncode: [String: String] = [:]
        for text in encode {
            let (name, _) = try CodecOptions.setting(text).get()
            if flagSettings[name] != nil || fromEncode[name] != nil {
                throw ValidationError("--encode \(text): \(fromEncode[name].map { "--encode \($0)" } ?? CodecOptions.spelled(name)) gives \(name) too; give it once")
            }
            fromEncode[name] = text
        }
        for (name, value) in settings.sorted(by: { $0.key < $1.key }) {
            let takers = CodecRegistry.formats(taking: name)
            let problems = takers.compactMap { d in d.option(named: name)!.problem(with: value).map { (d, $0) } }
            if problems.count == takers.count {
                let option = problems[0].0.option(named: name)!
                let allowed = Set(takers.map { $0.option(named: name)!.allowed }).count == 1
                    ? option.allowed : takers.map { "\($0.option(named: name)!.allowed) (\($0.name))" }.joined(separator: ", ")
                throw ValidationError("\(CodecOptions.spelled(option.name)): \(value) is out of range; allowed \(allowed)")
            }
        }
        if let depth, depth != 8 && depth != 16 { throw ValidationError("--depth: \(depth); allowed 8 or 16") }
        if RGBColor(parsing: background) == nil {
            throw ValidationError("--background: '\(background)' is not a colour; use white, black, #rgb or #rrggbb")
        }
        if maxPixels < 0 { throw ValidationError("--max-pixels: must be 0 (no limit) or more") }
        if RAWDevelopment.WhiteBalance(parsing: rawWhiteBalance) == nil {
            throw ValidationError("--raw-wb: '\(rawWhiteBalance)' is not a white balance; use camera, auto, daylight or a temperature from 2000 to 25000 (kelvin)")
        }
        if RAWDevelopment.Demosaic(rawValue: rawDemosaic.lowercased()) == nil {
            throw ValidationError("--raw-demosaic: '\(rawDemosaic)' is not one of \(RAWDevelopment.Demosaic.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if RAWDevelopment.Highlights(rawValue: rawHighlights.lowercased()) == nil {
            throw ValidationError("--raw-highlights: '\(rawHighlights)' is not one of \(RAWDevelopment.Highlights.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if CodecOptions.intents[intent] == nil {
            throw ValidationError("--intent: '\(intent)' is not an intent; use perceptual, relative, saturation or absolute")
        }
        _ = try resolvedOutputProfile()
        if let format = imageFormat {
            if let problem = problem(with: format) { throw ValidationError(problem) }
        }
    }

    var imageFormat: ImageFormat? { format.flatMap(ImageFormat.init(rawValue:)) }

    /// What in these options an output of `format` cannot take: --depth 16 where it holds 8
    /// bits only, an option it does not take (naming the formats that take it).
    /// `options`: false for a preview or contact sheet in a format of its own, which takes
    /// what of the options fits it.
    func problem(with format: ImageFormat, options: Bool = true) -> String? {
        let declaration = format.declaration
        if case .icc(let name, let data)? = try? resolvedOutputProfile(), !declaration.capabilities.cmyk,
           (try? ColorProfile(iccData: data))?.space == .cmyk {
            let cmyk = CodecRegistry.writable.filter(\.capabilities.cmyk).map(\.name)
            return "--output-profile \(name) is a CMYK profile; \(declaration.name) holds no CMYK (write \(listText(cmyk, and: "or")))"
        }
        if depth == 16 && !declaration.capabilities.sixteenBit {
            let deep = CodecRegistry.writable.filter(\.capabilities.sixteenBit).map(\.name)
            return "--depth 16: \(declaration.name) holds 8 bits only; write \(listText(deep, and: "or")) for 16-bit output"
        }
        for name in settings.keys.sorted() where options && declaration.option(named: name) == nil {
            let takers = CodecRegistry.formats(taking: name)
            return "\(CodecOptions.spelled(name)) is not an option of \(declaration.name) output; \(listText(takers.map(\.name))) take\(takers.count == 1 ? "s" : "") it"
        }
        // A value another format allows but this one does not (`--chroma 4:2:2` for AVIF).
        for (name, value) in settings.sorted(by: { $0.key < $1.key }) where options {
            if let option = declaration.option(named: name), option.problem(with: value) != nil {
                let others = CodecRegistry.formats(taking: name).filter { $0.format != format && $0.option(named: name)!.problem(with: value) == nil }
                return "\(CodecOptions.spelled(name, value.description)): \(declaration.name) output takes \(option.allowed)"
                    + (others.isEmpty ? "" : " (\(value) is for \(listText(others.map(\.name))))")
            }
        }
        if options, let problem = declaration.combinationProblem(settings, depth: depth.map { $0 == 16 ? .sixteen : .eight }) {
            return problem.commandLine { CodecOptions.spelled($0, $1) }
        }
        return nil
    }

    static let intents: [String: RenderingIntent] = [
        "perceptual": .perceptual, "relative": .relative, "saturation": .saturation, "absolute": .absolute,
    ]

    /// `--output-profile` as the library takes it; a file is read (once: the result is kept).
    func resolvedOutputProfile() throws -> OutputProfile {
        switch outputProfile {
        case "source": return .source
        case "srgb": return .srgb
        case "displayP3": return .displayP3
        default:
            if let cached = OutputProfileCache.shared.profile(for: outputProfile) { return cached }
            do {
                let profile = try OutputProfile.file(outputProfile)
                OutputProfileCache.shared.keep(profile, for: outputProfile)
                return profile
            } catch {
                throw ValidationError("--output-profile: \(outputProfile): \(error) (give source, srgb, displayP3 or an RGB or grey ICC profile file)")
            }
        }
    }

    var encodeOptions: EncodeOptions {
        var options = EncodeOptions(format: imageFormat, depth: depth.map { $0 == 16 ? .sixteen : .eight }, settings: settings,
                                    stripMetadata: strip || stripAll, stripColorProfile: stripAll,
                                    background: RGBColor(parsing: background) ?? .white,
                                    outputProfile: (try? resolvedOutputProfile()) ?? .source,
                                    intent: CodecOptions.intents[intent] ?? .relative)
        options.hdr = hdr.flatMap(HDRTransfer.init(rawValue:)).map { HDROutput($0, headroom: hdrHeadroom) }
        options.standardDynamicRange = hdr == "sdr"
        return options
    }

    var decodeOptions: DecodeOptions {
        var options = DecodeOptions(maxPixels: maxPixels, autoOrient: !noAutoOrient, lenient: lenient, strict: strict)
        options.raw = RAWDevelopment(whiteBalance: RAWDevelopment.WhiteBalance(parsing: rawWhiteBalance) ?? .camera,
                                     demosaic: RAWDevelopment.Demosaic(rawValue: rawDemosaic.lowercased()) ?? .ahd,
                                     highlights: RAWDevelopment.Highlights(rawValue: rawHighlights.lowercased()) ?? .clip,
                                     preview: rawPreview)
        return options
    }

    /// The destination for a path ("-" is stdout), checked for a format it can be written in.
    func destination(_ path: String) throws -> ImageDestination {
        try output(path).destination
    }

    /// A path ("-" is stdout) with the options and format it is written with, checked.
    /// `ownFormat`: the path's extension decides even when --format is given (a preview or
    /// a contact sheet beside the main output).
    func output(_ path: String, ownFormat: Bool = false) throws
        -> (destination: ImageDestination, options: EncodeOptions, format: ImageFormat) {
        if path != "-" && isDirectory(path) {
            throw Failure.usage("\(path): is a folder; give an output file name like \(joinPath(path, "out.png")) (or --output-dir for many inputs)")
        }
        let destination: ImageDestination = path == "-" ? .standardOutput : .file(path)
        var options = encodeOptions
        if ownFormat && path != "-" { options.format = nil }
        let format: ImageFormat
        do { format = try options.resolvedFormat(for: destination) } catch {
            if path == "-" {
                throw Failure.usage("-: writing to standard output needs --format (\(CodecOptions.formatIDs))")
            }
            throw Failure.usage(describe(error))
        }
        let ownOptions = !ownFormat || options.format != nil
        if let problem = problem(with: format, options: ownOptions) {
            throw Failure.usage("\(path): \(problem)")
        }
        if !ownOptions { options.settings = CodecOptions.fitting(options.settings, format.declaration, depth: options.depth) }
        return (destination, options, format)
    }

    /// What of `settings` an output in a format of its own takes: the options it declares
    /// with values it allows (an AVIF sheet beside a JPEG output drops `--chroma 4:2:2`), less
    /// any that do not go together for it (a TIFF preview beside a JPEG output drops the
    /// JPEG's --quality, which TIFF would take only with --tiff-compression jpeg).
    static func fitting(_ settings: [String: EncodeOptionValue], _ declaration: FormatDeclaration,
                        depth: BitDepth?) -> [String: EncodeOptionValue] {
        var kept = settings.filter { name, value in declaration.option(named: name).map { $0.problem(with: value) == nil } ?? false }
        while declaration.combinationProblem(kept, depth: depth) != nil, let first = kept.keys.sorted().first {
            // The setting whose removal alone fits, else the first.
            let drop = kept.keys.sorted().first { name in
                var without = kept
                without[name] = nil
                return declaration.combinationProblem(without, depth: depth) == nil
            } ?? first
            kept[drop] = nil
        }
        return kept
    }
}

/// The `--output-profile` file, read once per process (validation reads it first).
/// (@unchecked Sendable: its entries are guarded by `lock`.)
final class OutputProfileCache: @unchecked Sendable {
    static let shared = OutputProfileCache()
    private var entries: [String: OutputProfile] = [:]
    private let lock = Lock()

    func profile(for path: String) -> OutputProfile? {
        lock.lock(); defer { lock.unlock() }
        return entries[path]
    }

    func keep(_ profile: OutputProfile, for path: String) {
        lock.lock(); defer { lock.unlock() }
        entries[path] = profile
    }
}
