import ArgumentParser
import FilterChain

/// How images are read and written: shared by every command that does either.
struct CodecOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Output format: png or jpeg (default: from the output's extension; required when writing to stdout).", valueName: "png|jpeg"))
    var format: String?

    @Option(help: ArgumentHelp("JPEG quality, 1 to 100 (default: a JPEG input's own, estimated from its quantisation tables as ImageMagick does; else 90).", valueName: "1-100"))
    var quality: Int?

    @Flag(help: "Write progressive JPEG.")
    var progressive = false

    @Option(help: ArgumentHelp("JPEG chroma subsampling (default: a JPEG input's own; else 4:2:0).", valueName: "4:2:0|4:2:2|4:4:4"))
    var chroma: String?

    @Option(help: ArgumentHelp("PNG compression level, 0 (none) to 9 (smallest): zlib's levels, with the match search of levels 3-6 cut to 16 candidates (about 6% larger, twice as fast on photographs).", valueName: "0-9"))
    var compression: Int = 6

    @Option(help: ArgumentHelp("PNG bit depth (default: as the input, so 16-bit stays 16-bit).", valueName: "8|16"))
    var depth: Int?

    @Flag(help: "Drop metadata (EXIF, XMP, comments, text, resolution, time) but keep the colour profile (ICC, PNG sRGB/gAMA/cHRM), which changes how the image looks.")
    var strip = false

    @Flag(name: .customLong("strip-all"), help: "Drop all metadata, the colour profile too (a wide-gamut photo then looks different).")
    var stripAll = false

    @Option(help: ArgumentHelp("Colour transparent pixels are composited over for JPEG: white, black, #rgb or #rrggbb.", valueName: "colour"))
    var background: String = "white"

    @Option(name: .customLong("max-pixels"), help: ArgumentHelp("Refuse images with more pixels than this, checked from the header before decoding (0: no limit).", valueName: "n"))
    var maxPixels: Int = DecodeOptions.defaultMaxPixels

    @Flag(name: .customLong("no-auto-orient"), help: "Keep JPEG pixels as stored instead of turning them upright by their EXIF Orientation.")
    var noAutoOrient = false

    @Flag(help: "Decode damaged images as far as possible (the damage is reported as a warning) instead of refusing them.")
    var lenient = false

    func validate() throws {
        if let format, ImageFormat(pathExtension: format) == nil {
            throw ValidationError("--format: '\(format)' is not a format filterchain writes; use png or jpeg")
        }
        if let quality, !(1...100).contains(quality) { throw ValidationError("--quality: \(quality) is out of range; allowed 1 to 100") }
        if let chroma, ChromaSubsampling(rawValue: chroma) == nil { throw ValidationError("--chroma: '\(chroma)'; allowed 4:2:0, 4:2:2 or 4:4:4") }
        if !(0...9).contains(compression) { throw ValidationError("--compression: \(compression) is out of range; allowed 0 to 9") }
        if let depth, depth != 8 && depth != 16 { throw ValidationError("--depth: \(depth); allowed 8 or 16") }
        if RGBColor(parsing: background) == nil {
            throw ValidationError("--background: '\(background)' is not a colour; use white, black, #rgb or #rrggbb")
        }
        if maxPixels < 0 { throw ValidationError("--max-pixels: must be 0 (no limit) or more") }
        if depth == 16, let format, ImageFormat(pathExtension: format) == .jpeg {
            throw ValidationError("--depth 16: JPEG is 8-bit only; write PNG for 16-bit output")
        }
    }

    var imageFormat: ImageFormat? { format.flatMap(ImageFormat.init(pathExtension:)) }

    var encodeOptions: EncodeOptions {
        EncodeOptions(format: imageFormat, depth: depth.map { $0 == 16 ? .sixteen : .eight }, quality: quality,
                      progressive: progressive, chroma: chroma.flatMap(ChromaSubsampling.init(rawValue:)),
                      compressionLevel: compression, stripMetadata: strip || stripAll, stripColorProfile: stripAll,
                      background: RGBColor(parsing: background) ?? .white)
    }

    var decodeOptions: DecodeOptions {
        DecodeOptions(maxPixels: maxPixels, autoOrient: !noAutoOrient, lenient: lenient)
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
            if path == "-" { throw Failure.usage("-: writing to standard output needs --format png or --format jpeg") }
            throw Failure.usage("\(error)")
        }
        if format == .jpeg && depth == 16 {
            throw Failure.usage("\(path): JPEG is 8-bit only; --depth 16 needs a PNG output")
        }
        return (destination, options, format)
    }
}
