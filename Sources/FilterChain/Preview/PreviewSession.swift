/// Fast, repeated renders of a chain that is being edited, on a small copy of one image: what
/// an interactive editor needs to redraw "the image after step N" and "the final image" while
/// a slider moves.
///
/// - The image is scaled down once, to `maxSize` pixels on its long side (16-bit).
/// - Parameters measured in pixels are scaled with it (`Chain.scaledForPreview(by:)`), so the
///   preview looks like the full-size result scaled down. Expressions are evaluated for the
///   full-size image first (`fullSize`), so a value computed from `width` is scaled too.
/// - The images after steps are cached, keyed by the steps before them (type, parameters,
///   enabled; in a graph also ids, names, inputs, masks and the chain's images; never where
///   the editor draws a node). A render
///   starts from the longest cached prefix of the chain and runs only the steps after it; it
///   also keeps the image before the earliest position asked for, so the next edit of that
///   step starts there. A graph (`Chain.usesGraph`), whose steps may read any step above
///   them, renders from the scaled input instead, tapping every position asked for at once.
/// - Renders run one at a time. A render for a chain that differs from the one a render in
///   flight (or waiting) is for cancels that one at its next strip: it throws
///   `RenderCancelled`. Dragging a slider therefore never queues work.
///
/// Cached images are 16-bit RGB(A) or grey as the input: values outside 0...1 between steps
/// are clamped at a cached position (a full render keeps them in float), and a linear working
/// space is encoded to sRGB and decoded again there.
///
/// (@unchecked Sendable: its cache and queue of renders are guarded by `monitor`; the rest is
/// `let`.)
public final class PreviewSession: @unchecked Sendable {
    public let renderer: Renderer
    /// The scaled copy every render starts from.
    public let image: RasterImage
    /// preview width / full width (1 when the image already fits).
    public let scale: Double
    /// The full-size image's size: expressions are evaluated for it (`width`, `height`,
    /// `sourceWidth`, ... as the full-size render sees them), then scaled with the rest.
    public let fullSize: ImageSize

    private struct Entry {
        var keys: [String]
        var image: RasterImage
        var lastUse: Int
    }

    private struct Ticket {
        var id: Int
        var chainKey: [String]
        var flag: CancellationFlag
    }

    private let monitor = Monitor()
    private var cache: [Int: Entry] = [:]
    private var tickets: [Ticket] = []
    private var nextTicket = 0
    private var busy = false
    private var clock = 0
    private var started = 0
    /// How many images are kept besides the scaled input.
    public let cacheLimit: Int

    /// A session on `image` (already decoded), scaled to fit `maxSize`.
    public convenience init(image: RasterImage, maxSize: Int = 1024, renderer: Renderer, cacheLimit: Int = 8) throws {
        try self.init(image: image, fullSize: ImageSize(width: image.width, height: image.height), maxSize: maxSize,
                      renderer: renderer, cacheLimit: cacheLimit)
    }

    /// `image` may already be smaller than the image the chain is for (`fullSize`).
    init(image: RasterImage, fullSize: ImageSize, maxSize: Int, renderer: Renderer, cacheLimit: Int) throws {
        self.renderer = renderer
        self.image = try image.downscaled(toFit: maxSize)
        scale = Double(self.image.width) / Double(fullSize.width)
        self.fullSize = fullSize
        self.cacheLimit = max(2, cacheLimit)
    }

    /// A session on an image file (or bytes), decoded once here. A camera RAW at least twice
    /// the preview's size is developed at half size (one pixel per 2x2 block of the sensor, no
    /// demosaic: several times faster), which the preview's scaling then takes down.
    public convenience init(source: ImageSource, decode: DecodeOptions = .init(), maxSize: Int = 1024,
                            renderer: Renderer, cacheLimit: Int = 8) throws {
        var source = source
        if source == .standardInput { source = .bytes(try OpenedInput.readStandardInput(), name: "-") }
        // Only a RAW's header is read first (its size, for the half-size chain): the sniff alone
        // says which it is, so other formats are opened once, as before.
        var chain = Chain(), step = 0, full: ImageSize? = nil
        if try OpenedInput.open(source).format == .raw {
            let header = try ImageReader.open(source, options: decode).info
            let size = ImageSize(width: header.width, height: header.height)
            full = size
            if max(size.width, size.height) >= 2 * maxSize {
                chain = try Chain.parse(Array(PreviewSession.halfSize(size).utf8), file: "half size")
                step = 1
            }
        }
        let decoded = try renderer.render(chain, source: source, decode: decode, outputs: [RenderOutput(step: step, .memory())])
        let image = decoded.images[0]!
        try self.init(image: image, fullSize: full ?? ImageSize(width: image.width, height: image.height), maxSize: maxSize,
                      renderer: renderer, cacheLimit: cacheLimit)
    }

    /// A fast resize to half of `size`: the decoder's half size, nothing more.
    static func halfSize(_ size: ImageSize) -> String {
        """
        {"version": 1, "filters": [{"id": "0F6B1C2E-8A4D-4E2B-9F3A-5C7D1E9B2A40", "type": "resize",
          "parameters": {"width": \((size.width + 1) / 2), "height": \((size.height + 1) / 2), "fit": "fill", "fast": true}}]}
        """
    }

    /// The position the latest render started from (0: the scaled input), for callers that
    /// report or test how much was recomputed.
    public var lastStart: Int { monitor.locked { started } }

    /// The images after positions `positions` of `chain` (0 is the scaled input, n the image
    /// after step n), in the order asked. Throws `RenderCancelled` when a render for another
    /// chain superseded this one, and whatever the render throws.
    public func render(_ chain: Chain, at positions: [Int]) throws -> [RasterImage] {
        precondition(positions.allSatisfy { (0...chain.steps.count).contains($0) }, "no such step in the chain")
        // Checked as a render checks it; expressions take their full-size values (the cache
        // keys then see them).
        try chain.validate()
        let chain = try chain.resolved(sourceSize: fullSize).chain
        let keys = PreviewSession.keys(chain)
        let flag = CancellationFlag()
        let ticket: Int = monitor.locked {
            for t in tickets where t.chainKey != keys { t.flag.cancel() }
            nextTicket += 1
            tickets.append(Ticket(id: nextTicket, chainKey: keys, flag: flag))
            while busy && !flag.isCancelled { monitor.wait() }
            if !flag.isCancelled { busy = true }
            return nextTicket
        }
        defer {
            monitor.locked {
                tickets.removeAll { $0.id == ticket }
                monitor.broadcast()
            }
        }
        if flag.isCancelled { throw RenderCancelled() }
        defer { monitor.locked { busy = false; monitor.broadcast() } }
        return try renderAlone(chain, keys: keys, positions: positions, cancel: flag)
    }

    /// Forgets every cached image (the next render starts from the scaled input).
    public func clearCache() {
        monitor.locked { cache.removeAll() }
    }

    // For tests: act as if a render were running, so that calls queue up behind it.
    func holdForTesting() { monitor.locked { busy = true } }
    func releaseForTesting() { monitor.locked { busy = false; monitor.broadcast() } }
    /// Calls in flight or waiting.
    var waitingRenders: Int { monitor.locked { tickets.count } }

    private func renderAlone(_ chain: ResolvedChain, keys: [String], positions: [Int], cancel: CancellationFlag) throws -> [RasterImage] {
        var found: [Int: RasterImage] = [0: image]
        let cachedPositions: [Int] = monitor.locked {
            clock += 1
            var valid: [Int] = []
            for (p, entry) in cache where entry.keys == Array(keys.prefix(p + 1)) {
                cache[p]!.lastUse = clock
                found[p] = entry.image
                valid.append(p)
            }
            return valid
        }
        let missing = Set(positions.filter { found[$0] == nil }).sorted()
        if let first = missing.first {
            // A graph's steps may read the source, its images and any step above them, so its
            // renders start from the scaled input with the whole chain (its images scaled too).
            let graph = chain.usesGraph
            let start = graph ? 0 : ([0] + cachedPositions).filter { $0 < first }.max()!
            var taps = missing
            if first - 1 > start { taps.insert(first - 1, at: 0) }
            monitor.locked { started = start }
            let rest = chain.slice(start..<missing.last!, images: graph ? chain.images : []).scaledForPreview(by: scale)
            let result = try renderer.render(rest, image: found[start]!,
                                             outputs: taps.map { RenderOutput(step: $0 - start, .memory(depth: .sixteen)) },
                                             cancel: cancel)
            monitor.locked {
                for (p, image) in zip(taps, result.images) {
                    found[p] = image!
                    clock += 1
                    cache[p] = Entry(keys: Array(keys.prefix(p + 1)), image: image!, lastUse: clock)
                }
                while cache.count > cacheLimit {
                    let oldest = cache.min { $0.value.lastUse < $1.value.lastUse }!.key
                    cache[oldest] = nil
                }
            }
        } else {
            monitor.locked { started = positions.max() ?? 0 }
        }
        return positions.map { found[$0]! }
    }

    /// The working space (with a graph's images), then one key per step: what the images
    /// after it depend on. In a graph that includes each step's id, name, input and mask,
    /// since references name steps and a step may read any above it.
    static func keys(_ chain: ResolvedChain) -> [String] {
        guard chain.usesGraph else {
            return [chain.workingSpace.rawValue] + chain.steps.map { step in
                "\(step.enabled) \(step.type) " + JSONWriter.compact(step.filter.parametersJSON)
            }
        }
        let images = chain.images.map { image in
            JSONWriter.compact(image.jsonNode) + (image.image.map { " \($0.width)x\($0.height) \($0.format)" } ?? " not loaded")
        }
        return ["\(chain.workingSpace.rawValue) " + images.joined(separator: "; ")] + chain.steps.map { step in
            JSONWriter.compact(step.written.jsonNode)
        }
    }
}
