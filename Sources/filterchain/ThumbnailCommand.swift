import ArgumentParser
import FilterChain

/// `filterchain thumbnail`: the most common job, with vipsthumbnail's habits, as a chain of
/// one resize run by the same batch as `apply` (FilterChain's `Thumbnail`).
struct ThumbnailCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnail",
        abstract: "Make thumbnails: each image shrunk to fit a box (or to fill it, cropped), in sRGB, metadata left out.",
        discussion: """
            Every image made to fit 800 x 800, as WebP, into the folder thumbs:

              filterchain thumbnail photos/*.png -s 800 -o thumbs --format webp

            Filling 400 x 300 exactly, cropped where the image is most interesting:

              filterchain thumbnail photo.jpg -s 400x300 --crop attention -o thumbs

            -s takes N (a box of N x N), WxH, Wx (a width) or xH (a height). Images are never enlarged, and are shrunk while they are decoded where the format allows it (a JPEG at 1/2, 1/4 or 1/8, a HEIC by averaging), keeping at least twice the thumbnail's size for the Lanczos3 resize. It is 'filterchain apply --step' with one resize (fit contain, or cover with --crop; enlarge false, fast true), so everything apply does holds: upright by the EXIF orientation, nothing written unless complete, one image failing does not stop the others.

            --crop centre fills the box and cuts equally from both ends; --crop attention places the box where the most interest is, summed over the box: on the image made at most 256 pixels on its long side, a pixel's interest is its Sobel edge strength times 1 plus its saturation, plus 1 where its chromaticity is skin's and it has some edge (the formula: FilterChain's Thumbnail.interest, and README). Attention decodes each image twice: once small, to look.

            Colour: written in sRGB (--export-profile srgb, tagged), the web's colour, converted from the image's own profile (a Display P3 or Adobe RGB photo keeps its look); --export-profile source keeps the image's profile. Metadata: EXIF (with GPS), XMP, comments and text are left out, the colour profile and an HDR gain map (moved and scaled with the image) are kept; --keep-metadata keeps the metadata too.

            Names: with -o DIR, DIR/NAME.EXT; without, tn_NAME.EXT beside each image. EXT is --format's, else the image's own where filterchain writes that format, else jpg (a camera RAW). Exit status: 0 success; 1 an image could not be read, processed or written; 64 usage error; 130 interrupted.
            """)

    @Argument(help: ArgumentHelp("The images.", valueName: "image"))
    var inputs: [String] = []

    @Option(name: [.customShort("s"), .customLong("size")], help: ArgumentHelp("The box: N (N x N), WxH, Wx (a width) or xH (a height).", valueName: "size"))
    var size: String

    @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp("The folder thumbnails go into (created if missing); default: beside each image, named tn_NAME.", valueName: "dir"))
    var output: String?

    @Option(help: ArgumentHelp("none (fit in the box), centre (fill it, cut equally from both ends) or attention (fill it where the interest is).", valueName: "none|centre|attention"))
    var crop: String = "none"

    @Option(name: .customLong("export-profile"), help: ArgumentHelp("The colour thumbnails are written in: srgb (the default, tagged), source (the image's own), displayP3, or an ICC profile file; as apply's --output-profile.", valueName: "srgb|source|displayP3|FILE.icc"))
    var exportProfile: String = "srgb"

    @Flag(name: .customLong("keep-metadata"), help: "Keep EXIF (with GPS), XMP, comments and text, which thumbnails leave out by default.")
    var keepMetadata = false

    @OptionGroup(title: "Batch")
    var batch: BatchOptions

    @OptionGroup(title: "Reading and writing")
    var codec: CodecOptions

    @OptionGroup(title: "Rendering")
    var rendering: ThreadOptions

    @OptionGroup(title: "Across machines (Slurm, Kubernetes) and reports")
    var sharding: ShardOptions

    /// -s: (width, height), either nil for one side alone.
    static func parseSize(_ text: String) -> (width: Int?, height: Int?)? {
        func side(_ s: Substring) -> Int?? {
            if s.isEmpty { return .some(nil) }
            guard s.allSatisfy(\.isASCII), let n = Int(s), (1...65535).contains(n) else { return nil }
            return .some(n)
        }
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        switch parts.count {
        case 1:
            guard let n = side(parts[0]), let n else { return nil }
            return (n, n)
        case 2:
            guard let w = side(parts[0]), let h = side(parts[1]), w != nil || h != nil else { return nil }
            return (w, h)
        default:
            return nil
        }
    }

    func validate() throws {
        guard let box = Self.parseSize(size) else {
            throw ValidationError("-s \(size): give N, WxH, Wx or xH, with whole numbers 1 to 65535, like -s 800 or -s 400x300")
        }
        guard let crop = Thumbnail.Crop(rawValue: crop == "center" ? "centre" : crop) else {
            throw ValidationError("--crop \(crop): give none, centre or attention")
        }
        if crop != .none && (box.width == nil || box.height == nil) {
            throw ValidationError("--crop \(crop.rawValue) fills a box: give both sides, like -s 400x300 or -s 400")
        }
        if output != nil && batch.outputDir != nil { throw ValidationError("-o and --output-dir say the same; give one") }
        if codec.outputProfile != "source" { throw ValidationError("thumbnail takes --export-profile (default srgb), not --output-profile") }
        if keepMetadata && (codec.strip || codec.stripAll) { throw ValidationError("--keep-metadata and --strip contradict each other") }
    }

    func run() throws {
        Console.quiet = batch.quiet
        guard !inputs.isEmpty || batch.filesFrom != nil else { throw Failure.usage("give the images to make thumbnails of") }
        let box = Self.parseSize(size)!
        let crop = Thumbnail.Crop(rawValue: self.crop == "center" ? "centre" : self.crop)!
        var batch = self.batch
        if let output { batch.outputDir = output }
        var codec = self.codec
        codec.outputProfile = exportProfile
        if !keepMetadata && !codec.stripAll { codec.strip = true }
        let thumbnail = box.width.flatMap { w in box.height.map { Thumbnail(width: w, height: $0, crop: crop) } }
        // One side alone: a resize to that width or height (never enlarging, shrunk on load).
        let chain = thumbnail?.chain() ?? Chain([Resize(width: box.width, height: box.height, enlarge: false, fast: true)])
        var run = BatchRun(chainPath: "thumbnail", chain: chain, paths: inputs, options: batch, sharding: sharding, codec: codec,
                           animation: try AnimationOptions.parse([]), threads: rendering.count)
        run.prefix = batch.outputDir == nil ? "tn_" : ""
        run.fallbackExtension = "jpg"
        run.outputOption = "-o"
        run.stripKeepsGainMap = !codec.stripAll
        if let thumbnail, crop == .attention {
            let decode = codec.decodeOptions
            run.chainForInput = { input, renderer in
                try thumbnail.chain(for: .file(input), renderer: renderer, decode: decode, cancel: Signals.cancel)
            }
        }
        try run.run()
    }
}
