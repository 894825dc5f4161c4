import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a tap's rows are stored: the output's layout, the conversion into it, and the size
/// of the image and of its strips.
struct SinkRows {
    let layout: OutputLayout
    let conversion: OutputConversion
    let width: Int
    let height: Int
    let stripHeight: Int
    let imageHasAlpha: Bool
    /// What the output makes of the working-space values before `conversion`: an HDR
    /// output's signal (GainMapRendition; the leg is then `.stored`), or an HDR source's SDR
    /// rendition (SDRRendition).
    var rendition: (any RowRendition)?

    /// `colour`: the output leg, and the working space (the background is converted into it).
    init(layout: OutputLayout, width: Int, height: Int, stripHeight: Int, colour: (leg: OutputLeg, space: WorkingSpace),
         imageHasAlpha: Bool) {
        self.layout = layout
        self.width = width
        self.height = height
        self.stripHeight = stripHeight
        self.imageHasAlpha = imageHasAlpha
        conversion = OutputConversion(channels: layout.format.channels, depth: layout.format.depth, leg: colour.leg,
                                      background: layout.background.map { colour.space.values(ofSRGB: $0) })
    }

    var rowBytes: Int { width * layout.format.bytesPerPixel }
}

/// Where a tap's rows go: converted to stored samples by the tap (in parallel, any rows),
/// then handed on in order by `enqueue`. The scheduler decides when; a sink only stores.
protocol Sink: AnyObject {
    var rows: SinkRows { get }
    /// Where row `row` (0..<stripHeight) of strip `strip` is to be stored.
    func destination(strip: Int, row: Int) -> UnsafeMutableRawPointer
    /// Converts row `row` of strip `strip` into its destination (any thread, any order).
    func convert(strip: Int, row: Int, _ pixels: PlanarPixels)
    /// Stores row `row` of strip `strip` as given: bytes already in the output's stored
    /// layout (decoded 8-bit RGB that no step changed, where the conversion would give the
    /// same bytes back; see `ImageRun`'s untouched rows).
    func store(strip: Int, row: Int, bytes: UnsafeRawPointer)
    /// Whether `store` may stand for `convert`: the rows' conversion stores 8-bit RGB as it
    /// is, with no rendition between.
    var storesEightBitRGB: Bool { get }
    /// Queues a converted strip to be handed on, in order, on `pool`.
    func enqueue(strip: Int, rows: Int, pool: WorkerPool, priority: WorkerPool.Priority)
    /// Blocks until the buffer that strip `strip` converts into is free again.
    func waitForBuffer(strip: Int)
    /// Waits until every queued strip has been handed on; throws what went wrong there.
    func drain() throws
    /// Ends the output after the last strip (still invisible at its destination).
    func complete() throws
    /// Makes the output appear.
    func commit() throws
    func abort()
    var notes: [String] { get }
}

extension Sink {
    func store(strip: Int, row: Int, bytes: UnsafeRawPointer) {
        destination(strip: strip, row: row).copyMemory(from: bytes, byteCount: rows.rowBytes)
    }

    var storesEightBitRGB: Bool { rows.rendition == nil && rows.conversion.storesEightBitRGB }

    func convert(strip: Int, row: Int, _ pixels: PlanarPixels) {
        let destination = destination(strip: strip, row: row)
        guard let rendition = rows.rendition else {
            rows.conversion.convert(pixels, hasAlpha: rows.imageHasAlpha, width: rows.width, into: destination)
            return
        }
        let width = rows.width
        // Planes as the conversion's kernels take them: 32-byte aligned, padded to 8 (zeros).
        let padded = max((width + 7) & ~7, 8)
        withUnsafeTemporaryAllocation(byteCount: 3 * padded * MemoryLayout<Float>.stride, alignment: 32) { scratch in
            let p = scratch.baseAddress!.bindMemory(to: Float.self, capacity: 3 * padded)
            p.initialize(repeating: 0, count: 3 * padded)
            let rendered = PlanarPixels(red: p, green: p + padded, blue: p + 2 * padded, alpha: pixels.alpha)
            rendition.render(pixels, row: strip * rows.stripHeight + row, width: width, into: rendered)
            rows.conversion.convert(rendered, hasAlpha: rows.imageHasAlpha, width: width, into: destination)
        }
    }
}

/// An encoder job that runs exactly once: on the pool, or inline by whoever needs it done.
final class JobSlot: Sendable {
    let job: EncoderJob
    private let claimed = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)
    private let done = Monitor()
    private let budget: JobBudget

    init(_ job: EncoderJob, budget: JobBudget) {
        self.job = job
        self.budget = budget
        budget.take()
    }

    /// Runs the job unless someone else has claimed it; true if this call ran it.
    @discardableResult
    func runIfUnclaimed() -> Bool {
        guard claimed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return false
        }
        job.run()
        budget.give()
        finish()
        return true
    }

    var isFinished: Bool { finished.load(ordering: .acquiring) }
    var isClaimed: Bool { claimed.load(ordering: .relaxed) }

    private func finish() {
        done.locked {
            finished.store(true, ordering: .releasing)
            done.broadcast()
        }
    }

    /// Waits while another thread runs the job: briefly by polling, then asleep, so a core is
    /// not spent spinning through a whole strip's compression (it was 14% of W13's samples).
    private func waitUntilFinished() {
        if pollBriefly(microseconds: 50, until: { isFinished }) { return }
        done.locked { while !isFinished { done.wait() } }
    }

    /// Makes sure the job has run: runs it here, or waits while another thread runs it.
    func complete() {
        if runIfUnclaimed() { return }
        waitUntilFinished()
    }

    /// Claims the job without running it (the output is being thrown away), or waits for it
    /// if another thread is running it.
    func cancel() {
        if claimed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
            budget.give()
        } else {
            waitUntilFinished()
        }
    }
}

/// The encoder jobs in flight across all of one render's outputs. `steps` writes an image per
/// step, each a PNG whose pieces (about 2 MiB each with their output) are deflated in the
/// background: their jobs share the same cores, so they share one bound too, instead of each
/// output holding its own.
final class JobBudget: Sendable {
    let limit: Int
    private let inFlight = Atomic<Int>(0)

    init(limit: Int) { self.limit = max(1, limit) }

    var count: Int { inFlight.load(ordering: .relaxed) }

    func take() { inFlight.add(1, ordering: .relaxed) }
    func give() { inFlight.subtract(1, ordering: .relaxed) }
    var isExceeded: Bool { inFlight.load(ordering: .relaxed) > limit }
}

/// Streams strips to an image writer. Strips are encoded in order by one task at a time on
/// the pool, decoupled from the ticks: a ring of `bufferCount` strip buffers lets encoding
/// lag the filters by a few strips, so several outputs and the decoder overlap freely. The
/// writer's own jobs (PNG pieces to deflate) run in the background too; while more than the
/// budget's limit are in flight (counting every output of the render), the encoder runs its
/// own oldest itself, so memory stays bounded whatever the image's height and the number of
/// outputs.
final class FileSink: Sink {
    let rows: SinkRows
    private let writer: ImageWriter
    private let buffers: [UnsafeMutableRawPointer]
    static let bufferCount = 4
    private var inFlight: [JobSlot] = []
    private let budget: JobBudget

    private let monitor = Monitor()
    private var queue: [(strip: Int, rows: Int)] = []
    private var encoding = false
    private var encoded = 0
    private var failure: (any Error)?

    init(writer: ImageWriter, rows: SinkRows, budget: JobBudget) {
        self.writer = writer
        self.budget = budget
        self.rows = rows
        let bytes = rows.rowBytes * rows.stripHeight
        buffers = (0..<FileSink.bufferCount).map { _ in UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64) }
    }

    deinit { for b in buffers { b.deallocate() } }

    func destination(strip: Int, row: Int) -> UnsafeMutableRawPointer {
        buffers[strip % FileSink.bufferCount] + row * rows.rowBytes
    }

    func enqueue(strip: Int, rows: Int, pool: WorkerPool, priority: WorkerPool.Priority) {
        let start: Bool = monitor.locked {
            queue.append((strip, rows))
            if encoding { return false }
            encoding = true
            return true
        }
        if start { pool.submit(priority) { [self] in encodeQueued(pool: pool, priority: priority) } }
    }

    /// Encodes queued strips in order until the queue is empty.
    private func encodeQueued(pool: WorkerPool, priority: WorkerPool.Priority) {
        while true {
            let next: (strip: Int, rows: Int)? = monitor.locked {
                if queue.isEmpty || failure != nil {
                    queue.removeAll()
                    encoding = false
                    monitor.broadcast()
                    return nil
                }
                return queue.removeFirst()
            }
            guard let next else { return }
            do {
                try encode(strip: next.strip, rows: next.rows, pool: pool, priority: priority)
            } catch {
                monitor.locked { if failure == nil { failure = error } }
            }
            monitor.locked {
                encoded += 1
                monitor.broadcast()
            }
        }
    }

    private func encode(strip: Int, rows: Int, pool: WorkerPool, priority: WorkerPool.Priority) throws {
        try writer.flush()
        for job in try writer.write(rows: buffers[strip % FileSink.bufferCount], stride: self.rows.rowBytes, count: rows) {
            let slot = JobSlot(job, budget: budget)
            inFlight.append(slot)
            pool.submit(priority) { slot.runIfUnclaimed() }
        }
        inFlight.removeAll { $0.isFinished }
        // Backpressure: while too many wait, this output's jobs are done here, those no
        // thread has started first; only when all are running does it wait for the oldest.
        while !inFlight.isEmpty && budget.isExceeded {
            if let i = inFlight.firstIndex(where: { !$0.isClaimed }), inFlight[i].runIfUnclaimed() {
                inFlight.remove(at: i)
            } else {
                inFlight.removeFirst().complete()
            }
        }
    }

    /// Its encoder's progress (diagnostics).
    var stateDescription: String {
        let text: String = monitor.locked {
            "\(encoded) strips encoded, \(queue.count) queued, " + (encoding ? "encoder task submitted or running" : "no encoder task")
                + (failure != nil ? ", failed" : "")
        }
        return text + "; \(budget.count) encoder jobs in flight in the render (limit \(budget.limit))"
    }

    func waitForBuffer(strip: Int) {
        monitor.locked {
            while encoded < strip - FileSink.bufferCount + 1 && failure == nil { monitor.wait() }
        }
    }

    func drain() throws {
        let error: (any Error)? = monitor.locked {
            while encoding { monitor.wait() }
            return failure
        }
        if let error { throw error }
    }

    func complete() throws {
        try drain()
        for slot in inFlight { slot.complete() }
        inFlight.removeAll()
        try writer.complete()
    }

    func commit() throws { try writer.commit() }

    func abort() {
        monitor.locked {
            if failure == nil { failure = RenderCancelled() }
            while encoding { monitor.wait() }
        }
        for slot in inFlight { slot.cancel() }
        inFlight.removeAll()
        writer.abort()
    }

    var notes: [String] { writer.notes }
}

/// Keeps the whole image in memory, for callers that want pixels. A grey input whose chain
/// may not keep pixels neutral comes back grey if every pixel turns out neutral.
final class MemorySink: Sink {
    let rows: SinkRows
    private let base: UnsafeMutableRawPointer
    private let greyIfNeutral: Bool
    private let metadata: ImageMetadata
    private(set) var image: RasterImage?

    init(rows: SinkRows, greyIfNeutral: Bool, metadata: ImageMetadata) {
        self.rows = rows
        self.greyIfNeutral = greyIfNeutral
        self.metadata = metadata
        base = UnsafeMutableRawPointer.allocate(byteCount: max(1, rows.rowBytes * rows.height), alignment: 64)
    }

    deinit { base.deallocate() }

    func destination(strip: Int, row: Int) -> UnsafeMutableRawPointer {
        base + (strip * rows.stripHeight + row) * rows.rowBytes
    }

    func enqueue(strip: Int, rows: Int, pool: WorkerPool, priority: WorkerPool.Priority) {}
    func waitForBuffer(strip: Int) {}
    func drain() throws {}

    func complete() throws {
        var format = rows.layout.format
        var bytes = [UInt8](UnsafeRawBufferPointer(start: base, count: rows.rowBytes * rows.height))
        if greyIfNeutral, let grey = NeutralityProbe.greyVersion(of: bytes, format: format) {
            bytes = grey
            format.channels = Channels(grey: true, alpha: format.channels.hasAlpha)
        }
        image = try RasterImage(width: rows.width, height: rows.height, format: format, metadata: metadata, pixels: bytes)
    }

    func commit() throws {}
    func abort() {}
    var notes: [String] { [] }
}

/// The first pass for a grey input's file output whose chain may not keep pixels neutral:
/// converts each strip as the output would store it and looks for a pixel with R, G, B not
/// all equal. Two strip buffers: a strip is checked when the scheduler hands it on, at the
/// start of the next tick, before its buffer is converted into again.
final class NeutralityProbe: Sink {
    let rows: SinkRows
    /// False for outputs whose layout is already decided (they only take part in the plan).
    private let checks: Bool
    private let buffers: [UnsafeMutableRawPointer]
    private let found = Atomic<Bool>(false)
    var foundColour: Bool { found.load(ordering: .relaxed) }
    /// Called (on the scheduler's thread) when the first non-neutral pixel is found.
    var onFound: () -> Void = {}

    init(rows: SinkRows, checks: Bool) {
        self.rows = rows
        self.checks = checks
        buffers = (0..<2).map { _ in
            UnsafeMutableRawPointer.allocate(byteCount: checks ? max(1, rows.rowBytes * rows.stripHeight) : 1, alignment: 64)
        }
    }

    deinit { for b in buffers { b.deallocate() } }

    func destination(strip: Int, row: Int) -> UnsafeMutableRawPointer {
        checks ? buffers[strip & 1] + row * rows.rowBytes : buffers[0]
    }

    func convert(strip: Int, row: Int, _ pixels: PlanarPixels) {
        if checks && !foundColour {
            rows.conversion.convert(pixels, hasAlpha: rows.imageHasAlpha, width: rows.width,
                                    into: destination(strip: strip, row: row))
        }
    }

    func store(strip: Int, row: Int, bytes: UnsafeRawPointer) {
        if checks && !foundColour {
            destination(strip: strip, row: row).copyMemory(from: bytes, byteCount: rows.rowBytes)
        }
    }

    func enqueue(strip: Int, rows count: Int, pool: WorkerPool, priority: WorkerPool.Priority) {
        guard checks, !foundColour else { return }
        let bytes = UnsafeRawBufferPointer(start: buffers[strip & 1], count: rows.rowBytes * count)
        if NeutralityProbe.greyVersion(of: Array(bytes), format: rows.layout.format) == nil {
            found.store(true, ordering: .relaxed)
            onFound()
        }
    }

    func waitForBuffer(strip: Int) {}
    func drain() throws {}
    func complete() throws {}
    func commit() throws {}
    func abort() {}
    var notes: [String] { [] }

    /// The samples with R, G, B reduced to one grey sample, or nil if some pixel is not
    /// neutral.
    static func greyVersion(of bytes: [UInt8], format: PixelFormat) -> [UInt8]? {
        switch format.depth {
        case .eight: greyVersion(of: bytes, format: format, as: UInt8.self)
        case .sixteen: greyVersion(of: bytes, format: format, as: UInt16.self)
        // Floats compared by their bits (-0 and 0 differ: not neutral, which is only slower).
        case .float32: greyVersion(of: bytes, format: format, as: UInt32.self)
        }
    }

    private static func greyVersion<Sample: FixedWidthInteger>(of bytes: [UInt8], format: PixelFormat,
                                                               as: Sample.Type) -> [UInt8]? {
        let n = format.channels.count
        let alpha = format.channels.hasAlpha
        let pixelCount = bytes.count / (n * MemoryLayout<Sample>.size)
        let out = alpha ? 2 : 1
        var result = [UInt8](repeating: 0, count: pixelCount * out * MemoryLayout<Sample>.size)
        let neutral = bytes.withUnsafeBytes { src -> Bool in
            result.withUnsafeMutableBytes { dst -> Bool in
                let s = src.bindMemory(to: Sample.self), d = dst.bindMemory(to: Sample.self)
                for i in 0..<pixelCount {
                    let r = s[i * n], g = s[i * n + 1], b = s[i * n + 2]
                    if r != g || g != b { return false }
                    d[i * out] = r
                    if alpha { d[i * out + 1] = s[i * n + 3] }
                }
                return true
            }
        }
        return neutral ? result : nil
    }
}
