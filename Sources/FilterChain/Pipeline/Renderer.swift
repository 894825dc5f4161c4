import Synchronization

/// An image a render produces: the image after `step` filters (0 is the decoded input),
/// written to a file or kept in memory.
public struct RenderOutput: Sendable {
    public enum Target: Sendable {
        /// Encoded to a file or standard output; appears only when the whole render succeeds.
        case file(ImageDestination, EncodeOptions)
        /// Returned as a RasterImage, laid out as a PNG output would be (`depth` nil follows
        /// the input), in the colour `profile` says (the editor shows sRGB).
        case memory(depth: BitDepth? = nil, profile: OutputProfile = .source)
    }

    /// The position in the chain: 0 is the decoded input, n the image after step n.
    public var step: Int
    public var target: Target

    public init(step: Int, _ target: Target) {
        self.step = step
        self.target = target
    }
}

/// What a render did.
public struct RenderResult: Sendable {
    public var info: ImageInfo
    /// For each output in order: the image, when the output was kept in memory.
    public var images: [RasterImage?]
    /// For each output in order: the size of the image it took (geometry steps change it).
    public var sizes: [ImageSize]
    /// The image's size before any step: upright (its orientation applied) and at its full
    /// size, even when it was decoded shrunk (nil where no render ran: a lossless transcode).
    public var sourceSize: ImageSize?
    /// The JPEG was decoded at 1/shrunkOnLoad of its size (1: full size); see `Resize.fast`.
    public var shrunkOnLoad = 1
    /// Its Huffman decoding ran on a thread of its own (tests look at this).
    var decodedInParallel = false
    /// Rows handed to the outputs as decoded, no step having changed them (tests look at
    /// this; see `ImageRun.UntouchedRows`).
    var rowsPassedAsDecoded = 0
    /// Things that could not be kept (an ICC profile for another colour space, ...), and
    /// harmless damage to the input that was dropped (strict or lenient).
    public var notes: [String]
    /// Damage that lenient decoding went past.
    public var warnings: [String]
    /// What the chain's variables and expressions took for this image.
    public var values = ChainValues()
    /// For each output in order: what became of the source's HDR gain map (nil: the source
    /// had none, or the output is in memory).
    public var gainMaps: [GainMapOutcome?] = []
    /// For each output in order: the HDR it was written as (asked for, or an HDR source's
    /// kept, in a file or in memory), nil for SDR.
    public var hdr: [HDROutput?] = []

    public init(info: ImageInfo, images: [RasterImage?], sizes: [ImageSize], notes: [String], warnings: [String],
                values: ChainValues = ChainValues()) {
        self.info = info
        self.images = images
        self.sizes = sizes
        self.notes = notes
        self.warnings = warnings
        self.values = values
    }
}

/// Runs chains on images. One renderer's threads serve every image given to it, from any
/// number of calling threads, so images in parallel and strips in parallel share the cores.
public final class Renderer: Sendable {
    public let pool: WorkerPool
    /// Rows per strip. Results do not depend on it.
    public let stripHeight: Int

    /// Images being rendered from files or bytes now.
    private let inFlight = Atomic<Int>(0)

    public init(threads: Int = WorkerPool.availableCores, stripHeight: Int = 32) {
        pool = WorkerPool(threads: threads)
        self.stripHeight = max(1, stripHeight)
    }

    deinit { pool.shutdown() }

    /// Reads `source`, runs `chain` and produces `outputs` from one evaluation. On any
    /// failure nothing is written and no existing file is touched. `order` ranks this image
    /// among images rendered at once (lower goes first). `variables` sets the chain's
    /// variables (each declared, within its range) for this render.
    public func render(_ chain: Chain, source: ImageSource, decode: DecodeOptions = .init(),
                       outputs: [RenderOutput], cancel: CancellationFlag? = nil, order: Int = 0,
                       variables: [String: Double] = [:]) throws -> RenderResult {
        let chain = try chain.settingVariables(variables)
        let formats = try outputFormats(chain, outputs)
        if cancel?.isCancelled == true { throw RenderCancelled() }
        // Standard input is read once, so that the image can be read again.
        var source = source
        if source == .standardInput { source = .bytes(try OpenedInput.readStandardInput(), name: "-") }
        var transcodeNotes: [String] = []
        if let transcoded = try transcode(chain, source: source, decode: decode, outputs: outputs, formats: formats, notes: &transcodeNotes) {
            return transcoded
        }
        var shrunk = 1, parallel = false
        inFlight.add(1, ordering: .relaxed)
        defer { inFlight.subtract(1, ordering: .relaxed) }
        // CMYK inks come as stored, for the colour engine to convert with their profile.
        var decode = decode
        decode.keepsInks = true
        let open = { [self] () throws -> Opened in
            let reader = try ImageReader.open(source, options: decode)
            let size = ImageSize(width: reader.info.width, height: reader.info.height)
            // The chain resolved for the image's size, once: shrink-on-load reads its first step.
            let resolved = try Self.resolve(chain, size: size, image: reader.name)
            let shrink = try shrinkOnLoad(resolved.chain, reader: reader, outputs: outputs)
            shrunk = shrink?.denominator ?? 1
            // What the decoder may use to go faster; what it does with it is its own (a JPEG's
            // Huffman decoding on a thread of its own, see StoredDecoder.adopt).
            parallel = reader.adopt(DecodeHints(shrunk: shrink != nil, alone: inFlight.load(ordering: .relaxed) == 1,
                                                threads: pool.threadCount))
            return Opened(pixels: reader, logicalSize: shrink?.logicalSize, resolved: resolved)
        }
        var result = try render(open: open, formats: formats, outputs: outputs, cancel: cancel, order: order)
        result.notes = transcodeNotes + result.notes
        result.shrunkOnLoad = shrunk
        result.decodedInParallel = parallel
        return result
    }

    /// Outputs written from the source's bytes, not its pixels: when the chain has no step
    /// that runs, every output is a file whose format transcodes the source's
    /// (`FormatDeclaration.transcoder`: a JPEG to JPEG XL, losslessly), and no option changes
    /// the pixels or the metadata. Nil when not (the render decodes); a transcode the library
    /// refuses (a JPEG libjxl cannot take so) falls back to the pixels, with a note.
    private func transcode(_ chain: Chain, source: ImageSource, decode: DecodeOptions, outputs: [RenderOutput],
                           formats: [ImageFormat?], notes: inout [String]) throws -> RenderResult? {
        guard !outputs.isEmpty, !chain.steps.contains(where: \.enabled) else { return nil }
        var jobs: [(destination: ImageDestination, options: EncodeOptions, format: ImageFormat)] = []
        for (i, output) in outputs.enumerated() {
            guard case .file(let destination, let options) = output.target, let format = formats[i], format.declaration.transcoder != nil,
                  options.depth == nil, options.outputProfile == .source, !options.stripMetadata, !options.stripColorProfile,
                  options.hdr == nil, !options.standardDynamicRange else { return nil }
            jobs.append((destination, options, format))
        }
        let input = try OpenedInput.open(source)
        let sourceFormat = input.format
        var writers: [(@Sendable (UnsafeRawBufferPointer, OutputFile) throws -> Void, ImageDestination, ImageFormat)] = []
        for job in jobs {
            let settings = EncodeSettings(declaration: job.format.declaration, options: job.options, source: .none)
            guard let write = job.format.declaration.transcoder?(sourceFormat, settings) else { return nil }
            writers.append((write, job.destination, job.format))
        }
        // The header, for what the result says (and the pixel limit, as a render checks it).
        let reader = try ImageReader.open(source, options: decode)
        let bytes = try input.bytesInMemory()
        var files: [OutputFile] = []
        do {
            for (write, destination, _) in writers {
                let output = try OutputFile(destination)
                files.append(output)
                try write(bytes, output)
            }
        } catch let error as CodecError {
            for file in files { file.abort() }
            guard case .unsupported(let why) = error.reason else { throw error }
            notes.append("\(input.name): not transcoded losslessly (\(why)); its pixels were encoded")
            return nil
        }
        for file in files { try file.commit() }
        let size = ImageSize(width: reader.info.width, height: reader.info.height)
        return RenderResult(info: reader.info, images: outputs.map { _ in nil }, sizes: outputs.map { _ in size },
                            notes: [], warnings: [])
    }

    /// Runs `chain` on an image in memory (`variables` as for a file).
    public func render(_ chain: Chain, image: RasterImage, outputs: [RenderOutput],
                       cancel: CancellationFlag? = nil, order: Int = 0, variables: [String: Double] = [:]) throws -> RenderResult {
        try image.checked()
        let chain = try chain.settingVariables(variables)
        let formats = try outputFormats(chain, outputs)
        return try render(open: { try Opened(RasterSource(image), resolving: chain) }, formats: formats, outputs: outputs,
                          cancel: cancel, order: order)
    }

    /// Runs a chain already resolved (the editor's preview, which resolves it for the
    /// full-size image and runs it on a smaller copy) on an image in memory.
    func render(_ chain: ResolvedChain, image: RasterImage, outputs: [RenderOutput], cancel: CancellationFlag?) throws -> RenderResult {
        try image.checked()
        try checkSteps(chain, outputs)
        return try render(open: { Opened(pixels: RasterSource(image), resolved: (chain, ChainValues())) },
                          formats: outputs.map { _ in nil }, outputs: outputs, cancel: cancel, order: 0)
    }

    /// Runs `chain` on rows from any pixel source (one that reports progress, say). The
    /// source is read once: a grey source's file outputs whose chain may not keep pixels
    /// neutral are written in colour (the other renders find out with a second reading).
    public func render(_ chain: Chain, pixels source: PixelSource, outputs: [RenderOutput],
                       cancel: CancellationFlag? = nil, order: Int = 0) throws -> RenderResult {
        try render(open: { try Opened(source, resolving: chain) }, readsOnce: true, formats: try outputFormats(chain, outputs),
                   outputs: outputs, cancel: cancel, order: order)
    }

    /// The image after `step` steps of `chain` (by default all of them).
    public func apply(_ chain: Chain, to image: RasterImage, step: Int? = nil, depth: BitDepth? = nil,
                      variables: [String: Double] = [:]) throws -> RasterImage {
        let result = try render(chain, image: image, outputs: [RenderOutput(step: step ?? chain.steps.count, .memory(depth: depth))],
                                variables: variables)
        return result.images[0]!
    }

    /// Checks the chain's values and the outputs' steps and options before anything is read.
    private func outputFormats(_ chain: Chain, _ outputs: [RenderOutput]) throws -> [ImageFormat?] {
        try chain.validate()
        try checkSteps(chain, outputs)
        return try outputs.map { output in
            switch output.target {
            case .file(let destination, let options):
                // Each check once: the settings, the format, the settings for it; what depends
                // on the output's depth is checked again when the output is laid out (Job).
                try options.validate()
                let format = try options.resolvedFormat(for: destination)
                try options.validate(settingsFor: format, depth: nil)
                return format
            case .memory: return nil
            }
        }
    }


    /// Each output's step is one of the chain's positions.
    private func checkSteps(_ chain: some StepGraph, _ outputs: [RenderOutput]) throws(RenderError) {
        for output in outputs where !(0...chain.steps.count).contains(output.step) {
            throw RenderError(.noSuchStep(output.step, count: chain.steps.count))
        }
    }

    /// Shrink-on-load: when the chain's first enabled step is a geometry step that allows it
    /// (a fast resize) and no output takes the image before that step, the decoder delivers
    /// the image reduced as its `ShrinkOnLoad` says: a JPEG at 1/2, 1/4 or 1/8 of its size
    /// (DCT scaling averages encoded values: not in a linear working space), the largest
    /// reduction that keeps at least twice the resized size (before a cover crop) on both
    /// axes; a camera RAW at half size (one pixel per 2x2 block of the sensor, in any working
    /// space) when that keeps the resized size. Returns, when the decoder shrank the image, the size the
    /// chain takes the image to have and the reduction.
    private func shrinkOnLoad(_ chain: ResolvedChain, reader: ImageReader, outputs: [RenderOutput]) throws
        -> (logicalSize: ImageSize, denominator: Int)?
    {
        guard let first = chain.steps.firstIndex(where: \.enabled),
              outputs.allSatisfy({ $0.step > first }),
              chain.readsSourceOnlyAt(first),
              case .geometry(let kernel) = chain.steps[first].filter.operation(), kernel.allowsShrinkOnLoad
        else { return nil }
        let size = ImageSize(width: reader.info.width, height: reader.info.height)
        // A step that cannot apply is reported by the plan.
        guard case .resample(let to, _)? = try? kernel.layout(for: size) else { return nil }
        let denominator = try reader.shrink(toward: to, linearLight: chain.workingSpace.isLinear)
        return denominator > 1 ? (size, denominator) : nil
    }

    /// What an output stores, decided before its pixels exist: the layout, or, for a file
    /// from a grey input whose chain may not keep pixels neutral, a layout that depends on
    /// whether every stored pixel turns out neutral.
    private struct OutputPolicy {
        var layout: OutputLayout
        /// Grey if every stored pixel of `layout` is neutral.
        var greyIfNeutral: Bool
    }

    private func policy(for output: RenderOutput, format: ImageFormat?, info: ImageInfo, chain: ResolvedChain,
                        hdr: Bool, gainsAlpha: Bool) -> OutputPolicy {
        var input = info.imageFormat
        if gainsAlpha { input.channels = Channels(grey: input.channels.isGrey, alpha: true) }
        // A blend whose layer is one of the chain's images in colour brings colour in.
        let colourImages = Set(chain.images.indices.filter { chain.images[$0].image?.format.channels.isGrey != true })
        let keepsNeutral = chain.steps.prefix(output.step).enumerated().allSatisfy { i, step in
            guard step.enabled else { return true }
            for layer in step.filter.layerReferences {
                if case .image(let k)? = chain.resolve(layer, from: i), colourImages.contains(k) { return false }
            }
            return step.filter.keepsNeutralNeutral
        }
        let isGrey = info.imageFormat.channels.isGrey
        switch output.target {
        case .file(_, let options) where options.hdr != nil:
            // HDR: colour, 16-bit samples (BT.2020 with its transfer; AVIF stores 10 bits).
            let alpha = input.channels.hasAlpha && format?.capabilities.alpha != false
            return OutputPolicy(layout: OutputLayout(format: PixelFormat(Channels(grey: false, alpha: alpha), .sixteen),
                                                     background: input.channels.hasAlpha && !alpha ? options.background : nil),
                                greyIfNeutral: false)
        case .file(_, let options):
            let bg = options.background
            let neutralKnown = keepsNeutral
                && (format?.capabilities.alpha != false || !input.channels.hasAlpha || (bg.red == bg.green && bg.green == bg.blue))
            // Grey only where the format holds grey (WebP and AVIF do not): no first pass for
            // the others (it made a grey layout WebP cannot write, an internal error).
            return OutputPolicy(layout: OutputLayout.resolve(input: input, output: format, depth: options.depth,
                                                             background: bg, neutral: neutralKnown),
                                greyIfNeutral: isGrey && !neutralKnown && format?.capabilities.grey != false)
        case .memory where hdr:
            // An HDR source's samples as they are: colour, 16-bit.
            return OutputPolicy(layout: OutputLayout(format: PixelFormat(Channels(grey: false, alpha: input.channels.hasAlpha), .sixteen),
                                                     background: nil),
                                greyIfNeutral: false)
        case .memory(let depth, _):
            return OutputPolicy(layout: OutputLayout.resolve(input: input, output: nil, depth: depth,
                                                             background: .white, neutral: keepsNeutral),
                                greyIfNeutral: isGrey && !keepsNeutral)
        }
    }

    /// What opening the source gave: its pixels, the size the chain takes the image to have
    /// when the decoder shrank it, and the chain resolved for the image (once; shrink-on-load
    /// reads its first step).
    struct Opened {
        var pixels: PixelSource
        var logicalSize: ImageSize? = nil
        var resolved: (chain: ResolvedChain, values: ChainValues)

        init(pixels: PixelSource, logicalSize: ImageSize? = nil, resolved: (chain: ResolvedChain, values: ChainValues)) {
            self.pixels = pixels
            self.logicalSize = logicalSize
            self.resolved = resolved
        }

        /// `pixels`, with `chain` resolved for their size.
        init(_ pixels: PixelSource, resolving chain: Chain) throws(RenderError) {
            let size = ImageSize(width: pixels.info.width, height: pixels.info.height)
            self.init(pixels: pixels, resolved: try Renderer.resolve(chain, size: size, image: pixels.name))
        }
    }

    /// Opens the image (again, for a second pass whose first kept more than `recordingLimit`).
    typealias Open = () throws -> Opened

    /// The most a grey decision's first pass keeps of the decoded rows for the run to read
    /// again (a 64-megapixel 8-bit grey image); a larger image is decoded twice.
    static let recordingLimit = 64 << 20

    /// The chain with its expressions evaluated for a source of `size`; a value they take
    /// that their parameter refuses fails this image, named `image`.
    static func resolve(_ chain: Chain, size: ImageSize, image: String) throws(RenderError) -> (chain: ResolvedChain, values: ChainValues) {
        do throws(ChainError) { return try chain.resolved(sourceSize: size) } catch {
            throw RenderError(.chainValue(error), file: image)
        }
    }

    /// A render once its source is open, in the phases before any pixel moves: the chain
    /// resolved for the image (once), the colour it comes in with, the plan, and what each
    /// output stores.
    private struct Job {
        var chain: ResolvedChain
        var values: ChainValues
        /// The source as first opened (a second reading gives the same).
        var info: ImageInfo
        /// The source's size as the chain sees it: `info`'s, or the size before the decoder
        /// shrank it on load.
        var sourceSize: ImageSize
        var name: String
        var images: [RasterImage]
        var colour: InputColour
        var plan: Plan
        var policies: [OutputPolicy]
        /// File outputs of a grey input whose chain may not keep pixels neutral: grey or
        /// colour is decided by a first pass (`decideNeutrality`).
        var undecided: [Int]
    }

    /// The phases of a render: open and resolve (`open`, which gives the chain resolved for
    /// the image) -> colour in, plan, output layouts (`prepare`) -> grey or colour for the
    /// outputs that wait on the pixels (`decideNeutrality`) -> run.
    func render(open: Open, readsOnce: Bool = false, formats: [ImageFormat?], outputs: [RenderOutput],
                cancel: CancellationFlag?, order: Int) throws -> RenderResult {
        var opened = try open()
        let outputs = Self.keepingSourceHDR(outputs, metadata: opened.pixels.info.metadata, formats: formats)
        var job = try prepare(opened, formats: formats, outputs: outputs)
        if !job.undecided.isEmpty {
            // The first pass's rows are kept (a grey image: one or two samples a pixel), so the
            // run reads them again without a second decode; past the limit, the image is
            // opened again.
            let recording = RecordingSource(opened.pixels, limit: Self.recordingLimit)
            try decideNeutrality(&job, reader: recording, readsOnce: readsOnce, formats: formats, outputs: outputs,
                                 cancel: cancel, order: order)
            if !readsOnce { opened.pixels = try recording.replay() ?? open().pixels }
        }
        return try run(job, reader: opened.pixels, formats: formats, outputs: outputs, cancel: cancel, order: order)
    }

    /// The HDR an output is made as: a file's `EncodeOptions.hdr`; an image in memory in the
    /// source's own colour keeps a PQ or HLG source's samples, and says so (its nclx), so
    /// that rendering it again (the editor's previews, which start from such images) sees
    /// the same light.
    static func hdrOutput(_ output: RenderOutput, source: ImageColour) -> HDROutput? {
        switch output.target {
        case .file(_, let options): return options.hdr
        case .memory(_, .source): if case .hdr(let transfer, _) = source { return HDROutput(transfer) }; return nil
        case .memory: return nil
        }
    }

    /// A PQ or HLG source stays HDR, in its own transfer, in the outputs whose format holds
    /// HDR and that ask for nothing else (`EncodeOptions.hdr`).
    static func keepingSourceHDR(_ outputs: [RenderOutput], metadata: ImageMetadata, formats: [ImageFormat?]) -> [RenderOutput] {
        guard let nclx = metadata.nclx, let transfer = HDRTransfer(codePoint: nclx.transferCharacteristics),
              case .hdr = ImageColour.of(metadata).colour else { return outputs }
        return outputs.indices.map { i in
            var output = outputs[i]
            if case .file(let destination, var options) = output.target, options.hdr == nil, !options.standardDynamicRange,
               options.depth != .eight, case .source = options.outputProfile, formats[i]?.declaration.capabilities.hdr != nil {
                options.hdr = HDROutput(transfer)
                output.target = .file(destination, options)
            }
            return output
        }
    }

    /// The phases before the pixels, once the source is open and the chain resolved: colour
    /// in, plan, each output's layout (options that depend on the depth the image gets
    /// checked before any work).
    private func prepare(_ opened: Opened, formats: [ImageFormat?], outputs: [RenderOutput]) throws -> Job {
        let reader = opened.pixels
        let info = reader.info
        let (chain, values) = opened.resolved
        let images = try chain.images.map { image throws(RenderError) -> RasterImage in
            guard let raster = image.image else { throw RenderError(.imageNotLoaded(image.label)) }
            return raster
        }
        // LUT-based input profiles (CMYK) are converted with the intent the outputs ask for
        // (the first output's).
        let inputIntent: RenderingIntent = outputs.lazy.compactMap { output -> RenderingIntent? in
            if case .file(_, let options) = output.target { return options.intent }
            return nil
        }.first ?? .relative
        let colour = try Self.inputColour(space: chain.workingSpace, metadata: info.metadata, format: info.imageFormat,
                                          inks: info.inks, name: reader.name, images: chain.images, intent: inputIntent)
        let plan = try self.plan(chain, info: info, logicalSize: opened.logicalSize, images: images, outputs: outputs, name: reader.name)
        let policies = outputs.indices.map { i in
            policy(for: outputs[i], format: formats[i], info: info, chain: chain, hdr: Self.hdrOutput(outputs[i], source: colour.source) != nil,
                   gainsAlpha: plan.tapAlpha[i] && !info.imageFormat.channels.hasAlpha)
        }
        for (i, output) in outputs.enumerated() {
            if case .file(let destination, let options) = output.target, let format = formats[i] {
                do { try options.validate(combinationsFor: format, depth: policies[i].layout.format.depth) } catch {
                    throw RenderError(error.reason, file: destination.name)
                }
            }
        }
        let undecided = outputs.indices.filter { i in
            if case .file = outputs[i].target { return policies[i].greyIfNeutral }
            return false
        }
        return Job(chain: chain, values: values, info: info,
                   sourceSize: opened.logicalSize ?? ImageSize(width: info.width, height: info.height),
                   name: reader.name, images: images, colour: colour, plan: plan, policies: policies, undecided: undecided)
    }

    /// The most the row buffers of a plan at the renderer's strip height may take before it
    /// plans again with strips of `shortStripHeight` rows.
    static let bufferBudget = 24 << 20
    static let shortStripHeight = 16

    /// The plan `make` builds at `stripHeight`, or at `shortStripHeight` when that one's
    /// buffers exceed the budget and the shorter strips' are smaller. A wide image through a
    /// graph that holds several rings (W9's glow: a blur of the source blended back over it,
    /// 42 MB of rings at 14.7 MP) gets shorter strips, and every ring shrinks with them (to
    /// 26 MB there; its peak 64 -> 49 MiB in the same time). Chains within the budget keep
    /// the longer strips, which cost less per row (W13 is 9% slower at 16). Results do not
    /// depend on the strips.
    static func plan(stripHeight: Int, _ make: (Int) throws(Plan.StepFailure) -> Plan) throws(Plan.StepFailure) -> Plan {
        let planned = try make(stripHeight)
        guard stripHeight > shortStripHeight, planned.bufferBytes > bufferBudget else { return planned }
        let shorter = try make(shortStripHeight)
        return shorter.bufferBytes < planned.bufferBytes ? shorter : planned
    }

    /// The plan for the resolved chain; a step that cannot apply names itself and the file.
    private func plan(_ chain: ResolvedChain, info: ImageInfo, logicalSize: ImageSize?, images: [RasterImage], outputs: [RenderOutput],
                      name: String) throws(RenderError) -> Plan {
        do throws(Plan.StepFailure) {
            func plan(strips: Int) throws(Plan.StepFailure) -> Plan {
                try Plan(chain: chain, size: ImageSize(width: info.width, height: info.height),
                         logicalSize: logicalSize, hasAlpha: info.imageFormat.channels.hasAlpha,
                         images: images.map { (ImageSize(width: $0.width, height: $0.height), $0.format.channels.hasAlpha) },
                         taps: outputs.map(\.step), stripHeight: strips)
            }
            return try Self.plan(stripHeight: stripHeight, plan)
        } catch {
            let step = chain.steps[error.position - 1]
            throw RenderError(.stepFailed(position: error.position, label: step.label, reason: error.error.reason), file: name)
        }
    }

    /// Output `i`'s colour: its leg, the metadata written with it, its layout.
    private func outputColour(_ i: Int, layout: OutputLayout, job: Job, formats: [ImageFormat?], outputs: [RenderOutput])
        throws(RenderError) -> (leg: OutputLeg, metadata: ImageMetadata, layout: OutputLayout, note: String?, inks: Bool) {
        switch outputs[i].target {
        case .file(_, let options) where options.hdr != nil:
            // The HDR rendition makes the samples (GainMapRendition); the format says what they are.
            return (.stored, Self.hdrDescribed(job.info.metadata, transfer: options.hdr!.transfer,
                                               by: formats[i]!.declaration.capabilities.hdr ?? .nclx),
                    layout, nil, false)
        case .file(_, let options):
            let declaration = formats[i]!.declaration
            let caps = declaration.capabilities
            let cmyk = CodecRegistry.writable.filter(\.capabilities.cmyk).map(\.name)
            return try Self.outputColour(options.outputProfile, intent: options.intent, input: job.colour,
                                         metadata: job.info.metadata, layout: layout,
                                         holdsColourChunks: caps.metadata.contains(.colourChunks),
                                         holdsNCLX: caps.metadata.contains(.nclx),
                                         cmykRefusal: caps.cmyk ? nil : "\(declaration.name) holds no CMYK; write \(CodecRegistry.list(cmyk, and: "or"))",
                                         background: options.background)
        case .memory(_, let profile):
            if let hdr = Self.hdrOutput(outputs[i], source: job.colour.source) {
                return (.stored, Self.hdrDescribed(job.info.metadata, transfer: hdr.transfer, by: .nclx), layout, nil, false)
            }
            return try Self.outputColour(profile, intent: .relative, input: job.colour, metadata: job.info.metadata,
                                         layout: layout, holdsColourChunks: true, holdsNCLX: true,
                                         cmykRefusal: "an image in memory holds no CMYK", background: .white)
        }
    }

    /// Files from grey inputs whose chain may not keep pixels neutral: a first pass finds
    /// out (it stops at the first pixel that is not), and each such output becomes grey or
    /// colour; the caller then runs from the rows this pass decoded (`RecordingSource`), or
    /// reads the image again when they were too many to keep. Only such images pay for the
    /// extra pass. A source read only once (`readsOnce`) is written in colour.
    private func decideNeutrality(_ job: inout Job, reader: PixelSource, readsOnce: Bool, formats: [ImageFormat?],
                                  outputs: [RenderOutput], cancel: CancellationFlag?, order: Int) throws {
        var probeLegs: [OutputLeg] = []
        for i in outputs.indices {
            probeLegs.append(try outputColour(i, layout: job.policies[i].layout, job: job, formats: formats, outputs: outputs).leg)
        }
        let neutral = readsOnce ? job.undecided.map { _ in false }
            : try neutrality(plan: job.plan, reader: reader, images: job.images, outputs: job.undecided, policies: job.policies,
                             colour: ((job.colour.sourceLeg, job.colour.imageLegs), probeLegs, job.chain.workingSpace),
                             cancel: cancel, order: order)
        for (i, isNeutral) in zip(job.undecided, neutral) {
            let layout = job.policies[i].layout
            job.policies[i] = OutputPolicy(layout: OutputLayout(format: PixelFormat(
                Channels(grey: isNeutral, alpha: layout.format.channels.hasAlpha), layout.format.depth),
                background: layout.background), greyIfNeutral: false)
        }
        job.undecided = []
    }

    /// The last phase: a sink for each output, the run, and the outputs completed and
    /// committed; on any failure every sink is aborted (nothing is written).
    private func run(_ job: Job, reader: PixelSource, formats: [ImageFormat?], outputs: [RenderOutput],
                     cancel: CancellationFlag?, order: Int) throws -> RenderResult {
        var sinks: [Sink] = []
        var gainMaps: [GainMapOutcome?] = []
        var colourNotes = job.colour.notes
        var passed = 0
        let budget = JobBudget(limit: 2 * pool.threadCount)
        do {
            for i in outputs.indices {
                let (sink, notes, gainMap) = try makeSink(i, job: job, budget: budget, formats: formats, outputs: outputs)
                colourNotes += notes.map { "\(reader.name): \($0)" }
                sinks.append(sink)
                gainMaps.append(gainMap)
            }
            let run = ImageRun(plan: job.plan, source: reader, images: job.images, sinks: sinks,
                               colour: (job.colour.sourceLeg, job.colour.imageLegs),
                               pool: pool, order: order, cancel: [cancel].compactMap { $0 })
            try run.run()
            passed = run.rowsPassedAsDecoded
            try pool.watching({ "image order \(order): completing its outputs" }) {
                for sink in sinks { try sink.complete() }
            }
            if cancel?.isCancelled == true { throw RenderCancelled() }
            for sink in sinks { try sink.commit() }
        } catch {
            for sink in sinks { sink.abort() }
            throw error
        }
        var result = RenderResult(info: job.info,
                            images: sinks.map { ($0 as? MemorySink)?.image },
                            sizes: outputs.indices.map(job.plan.size(ofOutput:)),
                            notes: reader.notices + colourNotes + sinks.flatMap(\.notes),
                            warnings: reader.warnings, values: job.values)
        result.gainMaps = gainMaps
        result.sourceSize = job.sourceSize
        result.hdr = outputs.map { Self.hdrOutput($0, source: job.colour.source) }
        result.rowsPassedAsDecoded = passed
        return result
    }

    /// Output `i`'s sink: a file's encoder, or an image in memory; and the notes it has (its
    /// colour's, its gain map's).
    private func makeSink(_ i: Int, job: Job, budget: JobBudget, formats: [ImageFormat?], outputs: [RenderOutput])
        throws -> (Sink, [String], GainMapOutcome?) {
        let plan = job.plan
        let size = plan.size(ofOutput: i)
        var out = try outputColour(i, layout: job.policies[i].layout, job: job, formats: formats, outputs: outputs)
        var hdr: GainMapRendition?
        var gainMap: (note: String?, outcome: GainMapOutcome?) = (nil, nil)
        if case .memory = outputs[i].target, let wanted = Self.hdrOutput(outputs[i], source: job.colour.source) {
            hdr = try hdrRendition(wanted, output: i, size: size, job: job, outputs: outputs, meter: nil)
        } else if case .file(_, let options) = outputs[i].target, let wanted = options.hdr {
            // AVIF: the clli box, from the light as it is rendered.
            let meter = formats[i]?.declaration.capabilities.hdr == .nclx ? ContentLightMeter() : nil
            hdr = try hdrRendition(wanted, output: i, size: size, job: job, outputs: outputs, meter: meter)
            out.metadata.contentLight = meter
            if job.info.metadata.gainMap != nil { gainMap.outcome = .applied }
            out.metadata.gainMap = nil
        } else {
            gainMap = gainMapFate(i, metadata: &out.metadata, job: job, formats: formats, outputs: outputs)
        }
        // A file written without the source's map says so in its Ultra HDR XMP (no version, no
        // directory); where the map is written, the JPEG encoder gives its length. (An image in
        // memory keeps the source's, for a later write with the map to make true.)
        if job.info.metadata.gainMap != nil, out.metadata.gainMap == nil, case .file = outputs[i].target, let xmp = out.metadata.xmp {
            out.metadata.xmp = XMP.withGainMapDirectory(xmp, mapLength: nil)
        }
        // `--gain-map create`: an HDR source's SDR rendition makes the map beside the image.
        var created: GainMapInProgress?
        if hdr == nil, let peak = job.colour.hdrPeak, peak > HDRSignal.sdrWhite, case .file(_, let options) = outputs[i].target,
           let format = formats[i], !(options.stripMetadata && !options.stripKeepsGainMap), options.gainMapChoice(for: format, source: job.info.metadata) == .create {
            created = GainMapInProgress(width: size.width, height: size.height, headroom: HDRSignal.headroom(of: peak),
                                        quality: options.settings["gainMapQuality"]?.integer ?? GainMapImage.quality)
            out.metadata.gainMapToCome = created
            gainMap.outcome = .created
        }
        if gainMap.outcome == nil, case .file(_, let options) = outputs[i].target, let format = formats[i],
           options.gainMapChoice(for: format, source: job.info.metadata) == .create {
            if job.colour.hdrPeak == nil {
                gainMap.note = "--gain-map create makes a map from a PQ or HLG input, and this one is SDR: written without one"
            } else if options.stripMetadata && !options.stripKeepsGainMap {
                gainMap = (ImageWriter.stripLeavesOutGainMap, .dropped)
            } else {
                gainMap.note = "--gain-map create: its light does not pass SDR white (its clli says so), so there is no gain to map: written without one"
            }
        }
        if out.metadata.sourceJPEG != nil, !Self.keepsSourceBlocks(i, size: size, job: job, outputs: outputs) {
            out.metadata.sourceJPEG = out.metadata.sourceJPEG?.onOtherBlocks
        }
        let notes = [out.note, gainMap.note].compactMap { $0 }
        var rows = SinkRows(layout: out.layout, width: size.width, height: size.height,
                            stripHeight: plan.stages[plan.tapStages[i]].stripHeight,
                            colour: (out.leg, job.chain.workingSpace), imageHasAlpha: plan.tapAlpha[i])
        if let hdr {
            rows.rendition = hdr
        } else if let peak = job.colour.hdrPeak {
            rows.rendition = SDRRendition(space: job.chain.workingSpace, sourcePeak: peak, map: created)
        }
        switch outputs[i].target {
        case .file(let destination, let options):
            let writer = try ImageWriter(destination, format: formats[i]!,
                                         header: EncodeHeader(width: size.width, height: size.height,
                                                              format: rows.layout.format, metadata: out.metadata,
                                                              inks: out.inks),
                                         options: options, optionsChecked: true)
            return (FileSink(writer: writer, rows: rows, budget: budget), notes, gainMap.outcome)
        case .memory:
            // Turned grey at the end if neutral, unless its profile describes colour only.
            var greyLayout = out.layout
            greyLayout.format.channels = Channels(grey: true, alpha: greyLayout.format.channels.hasAlpha)
            let greyAllowed = try outputColour(i, layout: greyLayout, job: job, formats: formats, outputs: outputs)
                .layout.format.channels.isGrey
            return (MemorySink(rows: rows, greyIfNeutral: job.policies[i].greyIfNeutral && greyAllowed,
                               metadata: out.metadata), notes, nil)
        }
    }

    /// Whether output `i`'s pixels lie on the source's own 8x8 blocks: the source's size, not
    /// turned by its EXIF orientation, and no geometry step before the output. Only then do a
    /// JPEG source's chroma subsampling and (standard) quantisation tables stay the defaults
    /// (a re-encode quantises again on the same grid and loses next to nothing); a thumbnail,
    /// a crop or a turned image gets 4:2:0 and filterchain's tables, as a new image does, and
    /// the source's quality (`JPEGEncoding.onOtherBlocks`).
    private static func keepsSourceBlocks(_ i: Int, size: ImageSize, job: Job, outputs: [RenderOutput]) -> Bool {
        guard size == job.sourceSize, job.info.appliedOrientation == nil else { return false }
        if case .follows(let steps) = job.chain.gainMapPath(upTo: outputs[i].step, source: job.sourceSize) {
            return !steps.contains { if case .geometry = $0 { true } else { false } }
        }
        return true
    }

    /// What becomes of the source's HDR gain map at output `i`: written where the output's
    /// format holds one, as it is or moved by the geometry before the output
    /// (`ResolvedChain.gainMapPath`, GainMap+Geometry.swift); otherwise left out, with the note
    /// that says why. An image in memory holds no map.
    private func gainMapFate(_ i: Int, metadata: inout ImageMetadata, job: Job, formats: [ImageFormat?],
                             outputs: [RenderOutput]) -> (note: String?, outcome: GainMapOutcome?) {
        guard let gainMap = metadata.gainMap else { return (nil, nil) }
        metadata.gainMap = nil
        guard case .file(_, let options) = outputs[i].target, let format = formats[i] else { return (nil, nil) }
        if options.stripMetadata && !options.stripKeepsGainMap { return (ImageWriter.stripLeavesOutGainMap, .dropped) }
        if options.gainMapChoice(for: format, source: job.info.metadata) == .drop { return (nil, .dropped) }   // as asked
        let why: String
        if !format.declaration.capabilities.metadata.contains(.gainMap) {
            why = "\(format.declaration.name) has no place for one"
        } else {
            switch job.chain.gainMapPath(upTo: outputs[i].step, source: job.sourceSize) {
            case .blocked(let reason):
                why = reason
            case .follows(let layouts):
                do {
                    metadata.gainMap = try gainMap.following(layouts, orientation: job.info.appliedOrientation, images: job.images,
                                                             quality: options.settings["gainMapQuality"]?.integer)
                    return (nil, .kept)
                } catch let blocked as GainMapBlocked {
                    why = blocked.reason
                } catch {
                    why = "it could not be moved with the image: \(error)"
                }
            }
        }
        return ("its HDR gain map is not kept (\(why)); the output is the SDR image only", .dropped)
    }

    /// Output `i`'s HDR rendition: the source's gain map moved as the image was up to the
    /// output's step, at its own scale. A map that cannot follow the chain fails the output:
    /// what was asked for cannot be made.
    private func hdrRendition(_ wanted: HDROutput, output i: Int, size: ImageSize, job: Job, outputs: [RenderOutput],
                              meter: ContentLightMeter?) throws -> GainMapRendition {
        guard let gainMap = job.info.metadata.gainMap else {
            return GainMapRendition(wanted, space: job.chain.workingSpace, width: size.width, height: size.height, map: nil,
                                    sourcePeak: job.colour.hdrPeak, meter: meter)
        }
        switch job.chain.gainMapPath(upTo: outputs[i].step, source: job.sourceSize) {
        case .blocked(let reason):
            throw RenderError(.colour("cannot render HDR: its gain map cannot follow the chain (\(reason))"), file: job.name)
        case .follows(let layouts):
            let pixels: RasterImage
            do { pixels = try gainMap.movedPixels(layouts, orientation: job.info.appliedOrientation, images: job.images) } catch let blocked as GainMapBlocked {
                throw RenderError(.colour("cannot render HDR: \(blocked.reason)"), file: job.name)
            }
            return GainMapRendition(wanted, space: job.chain.workingSpace, width: size.width, height: size.height,
                                    map: (gainMap.map, pixels), meter: meter)
        }
    }

    /// The first pass for grey inputs: for each of `outputs`, whether every pixel it would
    /// store is neutral (R = G = B). Stops as soon as none of them can be.
    private func neutrality(plan: Plan, reader: PixelSource, images: [RasterImage], outputs: [Int], policies: [OutputPolicy],
                            colour: (inputs: (source: InputLeg, images: [InputLeg]), outputs: [OutputLeg], space: WorkingSpace),
                            cancel: CancellationFlag?, order: Int) throws -> [Bool] {
        let done = CancellationFlag()
        var probes: [NeutralityProbe] = []
        for i in plan.tapStages.indices {
            let size = plan.size(ofOutput: i)
            let rows = SinkRows(layout: policies[i].layout, width: size.width, height: size.height,
                                stripHeight: plan.stages[plan.tapStages[i]].stripHeight,
                                colour: (colour.outputs[i], colour.space), imageHasAlpha: plan.tapAlpha[i])
            probes.append(NeutralityProbe(rows: rows, checks: outputs.contains(i)))
        }
        let watched = outputs.map { probes[$0] }
        for probe in watched { probe.onFound = { if watched.allSatisfy(\.foundColour) { done.cancel() } } }
        // Each probe's closure holds them all: break the cycle when the pass ends.
        defer { for probe in watched { probe.onFound = {} } }
        do {
            try ImageRun(plan: plan, source: reader, images: images, sinks: probes, colour: colour.inputs, pool: pool, order: order,
                         cancel: [cancel, done].compactMap { $0 }).run()
        } catch is RenderCancelled where cancel?.isCancelled != true {
            // Every output is known to be in colour.
        }
        return watched.map { !$0.foundColour }
    }
}
