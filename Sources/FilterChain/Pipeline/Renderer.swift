/// An image a render produces: the image after `step` filters (0 is the decoded input),
/// written to a file or kept in memory.
public struct RenderOutput: Sendable {
    public enum Target: Sendable {
        /// Encoded to a file or standard output; appears only when the whole render succeeds.
        case file(ImageDestination, EncodeOptions)
        /// Returned as a RasterImage, laid out as a PNG output would be (`depth` nil follows
        /// the input).
        case memory(depth: BitDepth? = nil)
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
    /// Things that could not be kept (an ICC profile for another colour space, ...), and
    /// harmless damage to the input that was dropped (strict or lenient).
    public var notes: [String]
    /// Damage that lenient decoding went past.
    public var warnings: [String]
}

/// Runs chains on images. One renderer's threads serve every image given to it, from any
/// number of calling threads, so images in parallel and strips in parallel share the cores.
public final class Renderer: @unchecked Sendable {
    public let pool: WorkerPool
    /// Rows per strip. Results do not depend on it.
    public let stripHeight: Int

    public init(threads: Int = WorkerPool.availableCores, stripHeight: Int = 32) {
        pool = WorkerPool(threads: threads)
        self.stripHeight = max(1, stripHeight)
    }

    deinit { pool.shutdown() }

    /// Reads `source`, runs `chain` and produces `outputs` from one evaluation. On any
    /// failure nothing is written and no existing file is touched. `order` ranks this image
    /// among images rendered at once (lower goes first).
    public func render(_ chain: Chain, source: ImageSource, decode: DecodeOptions = .init(),
                       outputs: [RenderOutput], cancel: CancellationFlag? = nil, order: Int = 0) throws -> RenderResult {
        let formats = try outputFormats(outputs)
        if cancel?.isCancelled == true { throw RenderCancelled() }
        let reader = try ImageReader.open(source, options: decode)
        return try render(chain, reader: reader, formats: formats, outputs: outputs, cancel: cancel, order: order)
    }

    /// Runs `chain` on an image in memory.
    public func render(_ chain: Chain, image: RasterImage, outputs: [RenderOutput],
                       cancel: CancellationFlag? = nil, order: Int = 0) throws -> RenderResult {
        let formats = try outputFormats(outputs)
        return try render(chain, reader: RasterSource(image), formats: formats, outputs: outputs, cancel: cancel, order: order)
    }

    /// The image after `step` steps of `chain` (by default all of them).
    public func apply(_ chain: Chain, to image: RasterImage, step: Int? = nil, depth: BitDepth? = nil) throws -> RasterImage {
        let result = try render(chain, image: image, outputs: [RenderOutput(step: step ?? chain.steps.count, .memory(depth: depth))])
        return result.images[0]!
    }

    private func outputFormats(_ outputs: [RenderOutput]) throws -> [ImageFormat?] {
        try outputs.map { output in
            switch output.target {
            case .file(let destination, let options): try options.resolvedFormat(for: destination)
            case .memory: nil
            }
        }
    }

    func render(_ chain: Chain, reader: PixelSource, formats: [ImageFormat?], outputs: [RenderOutput],
                cancel: CancellationFlag?, order: Int) throws -> RenderResult {
        let info = reader.info
        let linear = chain.workingSpace == .linear
        let hasAlpha = info.format.channels.hasAlpha
        var sinks: [Sink] = []
        do {
            for (i, output) in outputs.enumerated() {
                precondition((0...chain.steps.count).contains(output.step), "no step \(output.step) in the chain")
                let keepsNeutral = chain.steps.prefix(output.step).allSatisfy { !$0.enabled || $0.filter.keepsNeutralNeutral }
                let isGrey = info.format.channels.isGrey
                switch output.target {
                case .file(let destination, let options):
                    let format = formats[i]!
                    let bg = options.background
                    let neutralKnown = keepsNeutral
                        && (format != .jpeg || !hasAlpha || (bg.red == bg.green && bg.green == bg.blue))
                    let layout = OutputLayout.resolve(input: info.format, output: format, depth: options.depth,
                                                      background: bg, neutral: neutralKnown)
                    if isGrey && !neutralKnown {
                        sinks.append(MemorySink(layout: layout, greyIfNeutral: true,
                                                file: (destination, format, options, info.metadata),
                                                width: info.width, height: info.height, stripHeight: stripHeight,
                                                linear: linear, imageHasAlpha: hasAlpha))
                    } else {
                        let writer = try ImageWriter(destination, format: format,
                                                     header: EncodeHeader(width: info.width, height: info.height,
                                                                          format: layout.format, metadata: info.metadata),
                                                     options: options)
                        sinks.append(FileSink(writer: writer, layout: layout, width: info.width, height: info.height,
                                              stripHeight: stripHeight, linear: linear, imageHasAlpha: hasAlpha,
                                              jobLimit: 2 * pool.threadCount))
                    }
                case .memory(let depth):
                    let layout = OutputLayout.resolve(input: info.format, output: nil, depth: depth,
                                                      background: .white, neutral: keepsNeutral)
                    sinks.append(MemorySink(layout: layout, greyIfNeutral: isGrey && !keepsNeutral, file: nil,
                                            width: info.width, height: info.height, stripHeight: stripHeight,
                                            linear: linear, imageHasAlpha: hasAlpha))
                }
            }
            let plan = Plan(chain: chain, width: info.width, hasAlpha: hasAlpha, taps: outputs.map(\.step))
            let run = ImageRun(plan: plan, source: reader, sinks: sinks, linear: linear, stripHeight: stripHeight,
                               pool: pool, imageIndex: order, cancel: cancel)
            try run.run()
            for sink in sinks { try sink.complete() }
            if cancel?.isCancelled == true { throw RenderCancelled() }
            for sink in sinks { try sink.commit() }
        } catch {
            for sink in sinks { sink.abort() }
            throw error
        }
        return RenderResult(info: info,
                            images: zip(outputs, sinks).map { output, sink in
                                if case .memory = output.target { return (sink as? MemorySink)?.image }
                                return nil
                            },
                            notes: reader.notices + sinks.flatMap(\.notes),
                            warnings: reader.warnings)
    }
}
