import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Planes of Float rows: red, green, blue, alpha, each `capacity` rows of `stride` floats,
/// 32-byte aligned: a ring of rows addressed by absolute row number (row y lives in slot
/// y % capacity). Callers never compute slots: they ask for a row, or for the pixels of rows
/// that `runs(_:)` has cut where the ring wraps, so a read that crosses the ring's end cannot
/// be expressed. In debug builds every slot remembers the row written into it, and reading a
/// row the ring does not hold (already overwritten, or not yet written) stops with the
/// ring's name, the row and the rows held. (@unchecked Sendable: its fields are set at init, and
/// ImageRun's schedule keeps tasks from writing rows another task reads or writes at once.)
final class PlaneBuffer: @unchecked Sendable {
    let capacity: Int
    let stride: Int
    /// Names the ring in messages: the stage that writes it.
    let name: String
    private let base: UnsafeMutablePointer<Float>
    /// Mapped from the system (zero pages, touched only when first written) rather than
    /// allocated and cleared: a large ring is then set up without delaying the image's first
    /// strip, and its pages are faulted in by the threads that fill them. From 2 MiB, the
    /// ring starts on a 2 MiB boundary and is offered to the kernel for transparent huge
    /// pages: a page fault per 2 MiB instead of per 4 KiB (W11's rings: some 1,100 faults
    /// fewer), where the kernel grants them.
    private let mapping: UnsafeMutableRawPointer?
    private let mapped: Int
    #if DEBUG
    /// The absolute row each slot holds (-1: none yet).
    private let held: UnsafeMutablePointer<Int>
    #endif

    /// Buffers from this size up are mapped.
    static let mappedBytes = 1 << 20

    /// `opaque`: the alpha plane starts at 1 (for rings whose writers leave alpha alone).
    init(capacity: Int, stride: Int, opaque: Bool, name: String) {
        self.capacity = capacity
        self.stride = stride
        self.name = name
        let count = 4 * capacity * stride
        let bytes = count * 4
        let huge = 2 << 20
        let extra = bytes >= huge ? huge : 0
        if bytes >= PlaneBuffer.mappedBytes,
           let memory = mmap(nil, bytes + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
           memory != MAP_FAILED {
            mapping = memory
            mapped = bytes + extra
            let start = extra > 0 ? memory.alignedUp(toMultipleOf: huge) : memory
            #if os(Linux)
            if extra > 0 { _ = madvise(start, bytes, MADV_HUGEPAGE) }
            #endif
            base = start.bindMemory(to: Float.self, capacity: count)
        } else {
            mapping = nil
            mapped = 0
            base = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
                .bindMemory(to: Float.self, capacity: count)
            base.initialize(repeating: 0, count: 3 * capacity * stride)
        }
        if opaque || mapped == 0 {
            (base + 3 * capacity * stride).initialize(repeating: opaque ? 1 : 0, count: capacity * stride)
        }
        #if DEBUG
        held = .allocate(capacity: capacity)
        held.initialize(repeating: -1, count: capacity)
        #endif
    }

    deinit {
        if let mapping { munmap(mapping, mapped) } else { base.deallocate() }
        #if DEBUG
        held.deallocate()
        #endif
    }

    /// Records that rows `rows` are being written (their slots' earlier rows are gone).
    @inline(__always)
    func hold(_ rows: Range<Int>) {
        #if DEBUG
        for y in rows { held[y % capacity] = y }
        #endif
    }

    @inline(__always)
    private func check(_ y: Int) {
        #if DEBUG
        precondition(y >= 0 && held[y % capacity] == y, "\(name): row \(y) is not held (\(heldDescription))")
        #endif
    }

    #if DEBUG
    private var heldDescription: String {
        let rows = (0..<capacity).map { held[$0] }.filter { $0 >= 0 }
        guard let low = rows.min(), let high = rows.max() else { return "no rows written yet" }
        return "holds \(rows.count) rows of \(low)...\(high) in \(capacity) slots"
    }
    #endif

    /// Row `y` of plane `plane`.
    @inline(__always)
    func row(_ plane: Int, _ y: Int) -> UnsafeMutablePointer<Float> {
        check(y)
        return base + (plane * capacity + y % capacity) * stride
    }

    /// The pixels of `count` rows from row `y` on, which must lie in consecutive slots (a run
    /// from `runs(_:)`); checked in every build.
    @inline(__always)
    func pixels(_ y: Int, rows count: Int = 1) -> PlanarPixels {
        precondition(count >= 1 && y % capacity + count <= capacity,
                     "\(name): rows \(y)..<\(y + count) cross the end of a ring of \(capacity)")
        #if DEBUG
        for r in y..<(y + count) { check(r) }
        #endif
        let slot = y % capacity
        return PlanarPixels(red: base + slot * stride, green: base + (capacity + slot) * stride,
                            blue: base + (2 * capacity + slot) * stride, alpha: base + (3 * capacity + slot) * stride)
    }

    /// Plane `plane` of `count` rows from row `y` on, which must lie in consecutive slots (a
    /// run from `runs(_:)`); checked in every build.
    @inline(__always)
    func rows(_ plane: Int, _ y: Int, count: Int) -> UnsafeMutablePointer<Float> {
        precondition(count >= 1 && y % capacity + count <= capacity,
                     "\(name): rows \(y)..<\(y + count) cross the end of a ring of \(capacity)")
        #if DEBUG
        for r in y..<(y + count) { check(r) }
        #endif
        return base + (plane * capacity + y % capacity) * stride
    }

    /// `rows` cut into runs that lie in consecutive slots of every buffer of `buffers`.
    static func runs(_ rows: Range<Int>, in buffers: [PlaneBuffer]) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        var y = rows.lowerBound
        while y < rows.upperBound {
            var end = rows.upperBound
            for b in buffers { end = min(end, (y / b.capacity + 1) * b.capacity) }
            runs.append(y..<end)
            y = end
        }
        return runs
    }
}

/// One image through a plan, strip by strip, in ticks. Each stage works on strips of its
/// own rows. At each tick every stage whose next strip can run does so: its input rows were
/// finished in earlier ticks, and the ring it writes has room (its consumer no longer needs
/// the rows it would overwrite). The decoder reads ahead into one of two buffers. All of a
/// tick's work runs in parallel on the pool (split by rows, or by columns for a vertical
/// pass) and the tick ends when all of it is done; which strips run in a tick depends only
/// on the plan, never on timing. Outputs encode their strips in order alongside, a few
/// strips behind, at the lowest priority. Every value is computed by the same arithmetic
/// whatever the split, so results do not depend on threads or strip height. Memory holds a
/// ring per stage of the rows its consumer reaches, whatever the image's height (a quarter
/// turn or a vertical flip reaches every row, and so holds its whole input). (@unchecked Sendable:
/// only the scheduler's thread changes its state, between ticks; tasks read what init set, and
/// the diagnostics are atomics.)
final class ImageRun: @unchecked Sendable {
    private final class StageRun {
        let stage: Plan.Stage
        let stride: Int
        /// The input stage's rows (its ring), and what it saved for a combination.
        var input: PlaneBuffer?
        var saved: PlaneBuffer?
        /// Where this stage's rows live: its ring, or a strip of its own when nothing reads it.
        var work: PlaneBuffer!
        /// Where `.saveInput` copies the rows (the vertical pass's stage's `saved`).
        var save: PlaneBuffer?
        /// Strips finished in earlier ticks.
        var done = 0

        init(_ stage: Plan.Stage) {
            self.stage = stage
            stride = (stage.size.width + 7) & ~7
        }

        var isFinished: Bool { done >= stage.stripCount }
        func rows(in strip: Int) -> Int { min(stage.stripHeight, stage.size.height - strip * stage.stripHeight) }
    }

    private let source: PixelSource
    private let images: [RasterImage]
    private let pool: WorkerPool
    private let order: Int
    private let cancel: [CancellationFlag]
    private let sinks: [Sink]
    private let tapStages: [Int]
    private let stages: [StageRun]
    private let schedule: Schedule
    private let inputConversion: InputConversion
    private let imageConversions: [InputConversion]
    private let rowBytes: Int
    private let decodeBuffers: [UnsafeMutableRawPointer]
    private let untouched: UntouchedRows?
    private let passedRows = Atomic<Int>(0)
    /// Rows handed to the taps as decoded (`UntouchedRows`).
    var rowsPassedAsDecoded: Int { passedRows.load(ordering: .relaxed) }

    /// The decoder's stage's rows that no operation changes, handed to its taps as decoded.
    /// Where the stage holds 8-bit RGB samples that become their value over 255, every
    /// operation but one blend leaves them be outside the blended layer's rows (a watermark's
    /// few rows of a photograph), and each tap's output stores 8-bit RGB with no conversion,
    /// those rows come out as the same bytes they went in as: they are copied, without the
    /// round trip through float (W10: unpacking and packing were 5% of its samples). Nothing
    /// else reads the stage's rows, so their buffer is not filled there.
    struct UntouchedRows {
        /// The rows the blend's layer covers (empty when there is no blend).
        var touched: Range<Int>
        /// The outputs the stage taps.
        var taps: [Int]

        /// Tests turn it off to compare with the rows converted.
        static let allowed = Atomic<Bool>(true)

        init?(plan: Plan, input: InputConversion, sinks: [Sink]) {
            guard UntouchedRows.allowed.load(ordering: .relaxed), let stage = plan.stages.first,
                  case .decoder = stage.source, plan.ringRows[0] == 0, stage.planes == 3, !stage.fillsAlpha,
                  input.givesEightBitRGB else { return nil }
            var taps: [Int] = [], touched = 0..<0, blends = 0
            for op in stage.ops {
                switch op {
                case .tap(let i):
                    guard sinks[i].storesEightBitRGB else { return nil }
                    taps.append(i)
                case .blend(_, let side):
                    // One blend: outside its layer's rows it lays nothing and only passes the
                    // backdrop (runBlend), which leaves opaque samples in 0...1 as they are.
                    blends += 1
                    touched = side.y..<(side.y + plan.stages[side.stage].size.height)
                default:
                    return nil
                }
            }
            guard !taps.isEmpty, blends <= 1 else { return nil }
            self.touched = touched
            self.taps = taps
        }
    }

    /// Point kernels run over this many floats of a plane at a time, so that fused
    /// kernels find the pixels in cache.
    static let pointChunk = 2048

    /// `images`: the chain's images, as the plan's image stages read them. `colour`: how the
    /// source's and each image's samples come into the working space.
    init(plan: Plan, source: PixelSource, images: [RasterImage] = [], sinks: [Sink],
         colour: (source: InputLeg, images: [InputLeg]),
         pool: WorkerPool, order: Int, cancel: [CancellationFlag]) {
        self.source = source
        self.images = images
        self.pool = pool
        self.order = order
        self.cancel = cancel
        self.sinks = sinks
        tapStages = plan.tapStages
        schedule = Schedule(stages: plan.stages, capacity: plan.ringRows)
        let info = source.info
        inputConversion = InputConversion(format: info.format, leg: colour.source)
        imageConversions = zip(images, colour.images).map { InputConversion(format: $0.format, leg: $1) }
        rowBytes = info.rowBytes
        let firstStrip = plan.stages[0].stripHeight
        decodeBuffers = (0..<2).map { _ in
            UnsafeMutableRawPointer.allocate(byteCount: max(1, info.rowBytes * firstStrip), alignment: 64)
        }
        let stages = plan.stages.map(StageRun.init)
        for (j, stage) in stages.enumerated() {
            let rows = plan.ringRows[j] > 0 ? plan.ringRows[j] : stage.stage.stripHeight
            let what = plan.ringRows[j] > 0 ? "the ring" : "the strip"
            stage.work = PlaneBuffer(capacity: rows, stride: stage.stride, opaque: stage.stage.planes == 3,
                                     name: "\(what) of stage \(j) (rows from \(stage.stage.label))")
            for case .saveInput(let planes) in stage.stage.ops {
                stage.save = PlaneBuffer(capacity: rows, stride: stage.stride, opaque: planes == 3,
                                         name: "the rows stage \(j) saved for its vertical pass")
            }
        }
        for stage in stages {
            if let p = stage.stage.input {
                stage.input = stages[p].work
                stage.saved = stages[p].save
            }
        }
        self.stages = stages
        untouched = UntouchedRows(plan: plan, input: inputConversion, sinks: sinks)
    }

    deinit { for b in decodeBuffers { b.deallocate() } }

    /// Which of an image's tasks a free thread takes first: the tick's own work (the decoder,
    /// then the stages' row sources, then their row work) before the outputs' encoders.
    /// Encoders may lag the filters by their ring of strips, so they fill the moments when
    /// the rest of a tick cannot keep every core busy (measured: W5 1.16 -> 1.13 x W1).
    private enum Lane: Int { case decode = 1, source, rows, encode }

    private func priority(_ lane: Lane, _ index: Int) -> WorkerPool.Priority {
        WorkerPool.Priority(order: order, lane: lane.rawValue, rank: index)
    }

    // Diagnostics (`WorkerPool.stateDescription`): a few relaxed stores a tick.
    private let ticks = Atomic<Int>(0)
    private let decodedStrips = Atomic<Int>(0)
    /// What the scheduler's thread is doing: see `stateDescription`.
    private let waitingFor = Atomic<Int>(Waiting.setUp)
    private enum Waiting {
        static let setUp = -1, tasks = -2, draining = -3
        // 0 and up: the buffer of output n.
    }

    private func stateDescription(_ group: TaskGroup) -> String {
        let what = switch waitingFor.load(ordering: .relaxed) {
        case Waiting.setUp: "setting up a tick"
        case Waiting.tasks: "waiting for the tick's \(group.outstandingCount) outstanding tasks"
        case Waiting.draining: "draining the outputs"
        case let n: "waiting for a free buffer of output \(n)"
        }
        var text = "image order \(order): tick \(ticks.load(ordering: .relaxed)), "
            + "\(decodedStrips.load(ordering: .relaxed)) of \(stages[0].stage.stripCount) strips decoded, \(what)"
        for (i, sink) in sinks.enumerated() {
            if let file = sink as? FileSink { text += "; output \(i): \(file.stateDescription)" }
        }
        return text
    }

    /// True when stage `j` can run its next strip in this tick.
    private func canRun(_ j: Int, decoded: Int) -> Bool {
        schedule.blocked(j, done: stages.map(\.done), decoded: decoded) == nil
    }

    /// Runs every tick; on failure throws the first error and leaves the sinks to the caller.
    func run() throws {
        // One group for every tick (a group can be waited on again).
        let group = TaskGroup(pool: pool)
        try pool.watching({ [self] in stateDescription(group) }) { try run(group) }
    }

    private func run(_ group: TaskGroup) throws {
        let first = stages[0]
        var decoded = 0
        var finished: [(stage: Int, strip: Int)] = []
        while true {
            waitingFor.store(Waiting.setUp, ordering: .relaxed)
            if cancel.contains(where: \.isCancelled) { throw RenderCancelled() }
            for (j, k) in finished {
                for (i, sink) in sinks.enumerated() where tapStages[i] == j {
                    sink.enqueue(strip: k, rows: stages[j].rows(in: k), pool: pool, priority: priority(.encode, i))
                }
            }
            var started: [(stage: Int, strip: Int)] = []
            let done = stages.map(\.done)
            let decodes = schedule.decodes(decoded: decoded, done: done)
            if decodes {
                let strip = decoded
                let rows = first.rows(in: strip)
                let last = strip == first.stage.stripCount - 1
                group.submit(priority(.decode, 0)) { [self] in
                    try source.read(into: decodeBuffers[strip & 1], stride: rowBytes, rows: rows)
                    if last { try source.finish() }
                }
            }
            for j in stages.indices where schedule.blocked(j, done: done, decoded: decoded) == nil {
                let strip = stages[j].done
                // The outputs this stage taps must have a free strip buffer.
                for (i, sink) in sinks.enumerated() where tapStages[i] == j {
                    waitingFor.store(i, ordering: .relaxed)
                    sink.waitForBuffer(strip: strip)
                }
                startStage(j, strip: strip, group: group)
                started.append((j, strip))
            }
            if !decodes && started.isEmpty {
                precondition(stages.allSatisfy(\.isFinished), "the schedule stalled")
                break
            }
            waitingFor.store(Waiting.tasks, ordering: .relaxed)
            try group.wait()
            if decodes {
                decoded += 1
                decodedStrips.store(decoded, ordering: .relaxed)
            }
            for (j, _) in started { stages[j].done += 1 }
            finished = started
            ticks.add(1, ordering: .relaxed)
        }
        waitingFor.store(Waiting.draining, ordering: .relaxed)
        for sink in sinks { try sink.drain() }
    }

    private func startStage(_ j: Int, strip: Int, group: TaskGroup) {
        let stage = stages[j]
        let first = strip * stage.stage.stripHeight
        let rows = first..<(first + stage.rows(in: strip))
        stage.work.hold(rows)
        stage.save?.hold(rows)
        switch stage.stage.source {
        case .decoder, .image:
            submitRowWork(j, strip: strip, group: group)
        case .vertical(_, let passes):
            startVertical(j, passes, strip: strip, group: group)
        case .geometry(let rows):
            startGeometry(j, rows, strip: strip, group: group)
        }
    }

    private func startVertical(_ j: Int, _ passes: [any VerticalPass], strip: Int, group: TaskGroup) {
        let stage = stages[j]
        let first = strip * stage.stage.stripHeight
        let count = stage.rows(in: strip)
        let work = stage.work!
        let input = stage.input!
        let last = stage.stage.size.height - 1
        // Column ranges start at multiples of 8.
        let blocks = stage.stride / 8
        let pieces = max(1, min(blocks, 2 * pool.threadCount, max(1, blocks / 16)))
        let remaining = Atomic<Int>(pieces)
        for piece in 0..<pieces {
            let columns = (blocks * piece / pieces * 8)..<(blocks * (piece + 1) / pieces * 8)
            group.submit(priority(.source, j)) { [self] in
                for (p, pass) in passes.enumerated() {
                    pass.run(rows: first..<(first + count), input: { i in UnsafePointer(input.row(p, min(max(i, 0), last))) },
                             destination: { y in work.row(p, y) }, columns: columns)
                }
                if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
                    submitRowWork(j, strip: strip, group: group)
                }
            }
        }
    }

    private func startGeometry(_ j: Int, _ rows: RowSource, strip: Int, group: TaskGroup) {
        let stage = stages[j]
        let first = strip * stage.stage.stripHeight
        let count = stage.rows(in: strip)
        let work = stage.work!
        let input = stage.input!
        let width = stage.stage.size.width
        let planes = stage.stage.planes
        let pieces = min(count, 2 * pool.threadCount)
        let remaining = Atomic<Int>(pieces)
        for piece in 0..<pieces {
            let range = (first + count * piece / pieces)..<(first + count * (piece + 1) / pieces)
            group.submit(priority(.source, j)) { [self] in
                let scratch = UnsafeMutablePointer<Float>.allocate(capacity: max(8, rows.scratchCount))
                defer { scratch.deallocate() }
                for p in 0..<planes {
                    for y in range {
                        rows.run(y: y, width: width, row: { i in UnsafePointer(input.row(p, i)) },
                                 destination: work.row(p, y), scratch: scratch)
                    }
                }
                if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
                    submitRowWork(j, strip: strip, group: group)
                }
            }
        }
    }

    private func submitRowWork(_ j: Int, strip: Int, group: TaskGroup) {
        let count = stages[j].rows(in: strip)
        var start = 0
        while start < count {
            let end = min(count, start + 8)
            let range = start..<end
            group.submit(priority(.rows, j)) { [self] in rowWork(j, strip: strip, rows: range) }
            start = end
        }
    }

    /// Rows `part` (counted from the strip's first row) of strip `strip` of stage `j`: the
    /// decoded rows converted (stage 0), then the stage's row operations in order.
    private func rowWork(_ j: Int, strip: Int, rows part: Range<Int>) {
        let stage = stages[j]
        let first = strip * stage.stage.stripHeight
        var rows = (first + part.lowerBound)..<(first + part.upperBound)
        if j == 0, let untouched {
            let bytes = decodeBuffers[strip & 1]
            var passed = 0
            for y in rows where !untouched.touched.contains(y) {
                for i in untouched.taps { sinks[i].store(strip: strip, row: y - first, bytes: bytes + (y - first) * rowBytes) }
                passed += 1
            }
            if passed > 0 { passedRows.add(passed, ordering: .relaxed) }
            rows = rows.clamped(to: untouched.touched)
            if rows.isEmpty { return }
        }
        // Whether the rows still hold converted samples (integer samples over their maximum:
        // every value in 0...1), which no operation has changed yet.
        var samplesAsDecoded = convertSourceRows(stage, rows: rows, first: first, strip: strip)
        for op in stage.stage.ops {
            defer { samplesAsDecoded = false }
            run(op, on: stage, rows: rows, strip: strip, first: first, samplesAsDecoded: samplesAsDecoded)
        }
    }

    /// A source stage's rows converted into the working space (the decoder's, an image's);
    /// alpha set to 1 where the stage fills it. Returns whether the rows hold converted
    /// samples in 0...1.
    private func convertSourceRows(_ stage: StageRun, rows: Range<Int>, first: Int, strip: Int) -> Bool {
        let work = stage.work!
        let width = stage.stage.size.width
        var samplesAsDecoded = false
        switch stage.stage.source {
        case .decoder:
            let bytes = decodeBuffers[strip & 1]
            for y in rows {
                inputConversion.convert(bytes + (y - first) * rowBytes, width: width, into: work.pixels(y))
            }
            samplesAsDecoded = inputConversion.givesUnitRange
        case .image(let i):
            let image = images[i]
            image.pixels.withUnsafeBytes { bytes in
                for y in rows {
                    imageConversions[i].convert(bytes.baseAddress! + y * image.rowBytes, width: width, into: work.pixels(y))
                }
            }
            samplesAsDecoded = imageConversions[i].givesUnitRange
        default:
            break
        }
        if stage.stage.fillsAlpha {
            for y in rows { work.row(3, y).update(repeating: 1, count: stage.stride) }
        }
        return samplesAsDecoded
    }

    /// One row operation on rows `rows` of a stage.
    private func run(_ op: Plan.RowOp, on stage: StageRun, rows: Range<Int>, strip: Int, first: Int, samplesAsDecoded: Bool) {
        let work = stage.work!
        let stride = stage.stride
        switch op {
        case .points(let kernels, let positional):
            runPoints(kernels, positional: positional, work: work, stride: stride, size: stage.stage.size, rows: rows)
        case .horizontal(let pass, let planes):
            for run in PlaneBuffer.runs(rows, in: [work]) {
                for p in 0..<planes {
                    pass.run(work.rows(p, run.lowerBound, count: run.count), stride: stride, rowCount: run.count)
                }
            }
        case .saveInput(let planes):
            let save = stage.save!
            for y in rows {
                for p in 0..<planes { save.row(p, y).update(from: work.row(p, y), count: stride) }
            }
        case .combine(let kernel):
            let saved = stage.saved!
            for run in PlaneBuffer.runs(rows, in: [work, saved]) {
                kernel.combine(input: saved.pixels(run.lowerBound, rows: run.count),
                               into: work.pixels(run.lowerBound, rows: run.count), count: run.count * stride)
            }
        case .blend(let kernel, let side):
            runBlend(kernel, layer: side, on: stage, rows: rows, samplesAsDecoded: samplesAsDecoded)
        case .mask(let kernel, let input, let side):
            runMask(kernel, input: input, layer: side, on: stage, rows: rows)
        case .tap(let i):
            for y in rows { sinks[i].convert(strip: strip, row: y - first, work.pixels(y)) }
        }
    }

    /// A fused run of point kernels, a chunk of pixels at a time (within a row when a kernel
    /// needs positions, across rows where the ring holds them together otherwise).
    private func runPoints(_ kernels: [RowKernel], positional: Bool, work: PlaneBuffer, stride: Int, size: ImageSize,
                           rows: Range<Int>) {
        if positional {
            for y in rows {
                let pixels = work.pixels(y)
                var x = 0
                while x < stride {
                    let n = min(ImageRun.pointChunk, stride - x)
                    let chunk = pixels.offset(by: x)
                    for kernel in kernels {
                        switch kernel {
                        case .point(let k): k.apply(chunk, count: n)
                        case .positional(let k): k.apply(chunk, count: n, row: y, column: x, size: size)
                        }
                    }
                    x += n
                }
            }
        } else {
            for run in PlaneBuffer.runs(rows, in: [work]) {
                let total = run.count * stride
                let pixels = work.pixels(run.lowerBound, rows: run.count)
                var offset = 0
                while offset < total {
                    let n = min(ImageRun.pointChunk, total - offset)
                    let chunk = pixels.offset(by: offset)
                    for case .point(let kernel) in kernels { kernel.apply(chunk, count: n) }
                    offset += n
                }
            }
        }
    }

    /// A layer laid over the rows (a blend step).
    private func runBlend(_ kernel: any LayerKernel, layer side: Plan.Side, on stage: StageRun, rows: Range<Int>,
                          samplesAsDecoded: Bool) {
        let work = stage.work!
        let stride = stage.stride
        let scratch = Scratch(stride: stride)
        let opaque = stage.stage.planes == 3 && !stage.stage.fillsAlpha
        // An opaque backdrop's alpha: 1, which blending over it leaves 1 (ao = 1 exactly where
        // ab = 1; LayerKernel.changesOpaqueAlpha).
        if opaque { scratch.extra.update(repeating: 1, count: stride) }
        for y in rows {
            let (layer, covered) = placedLayer(side, row: y, width: stage.stage.size.width, into: scratch)
            var backdrop = work.pixels(y)
            if opaque { backdrop.alpha = scratch.extra }
            // The layer's columns are blended, the rest of the row only passed (which leaves
            // opaque samples as decoded, already in 0...1, as they are).
            kernel.blend(backdrop: backdrop.offset(by: covered.lowerBound), layer: layer.offset(by: covered.lowerBound),
                         count: covered.count)
            if !(opaque && samplesAsDecoded) {
                kernel.pass(backdrop: backdrop, count: covered.lowerBound)
                kernel.pass(backdrop: backdrop.offset(by: covered.upperBound), count: stride - covered.upperBound)
            }
        }
    }

    /// The rows mixed with the step's input (stage `input`) by a mask.
    private func runMask(_ kernel: MaskKernel, input: Int, layer side: Plan.Side?, on stage: StageRun, rows: Range<Int>) {
        let work = stage.work!
        let stride = stage.stride
        let size = stage.stage.size
        let scratch = Scratch(stride: stride)
        let original = stages[input].work!
        let opaque = stage.stage.planes == 3 && !stage.stage.fillsAlpha
        for y in rows {
            let layer = side.map { placedLayer($0, row: y, width: size.width, into: scratch).pixels }
            kernel.values(into: scratch.extra, count: stride, row: y, column: 0, size: size,
                          input: original.pixels(y), layer: layer)
            MaskKernel.mix(input: original.pixels(y), result: work.pixels(y), mask: scratch.extra,
                           count: stride, opaque: opaque)
        }
    }

    /// Row `y`'s pixels of a side stage placed at its origin: its pixels where it covers the
    /// row, 0 (alpha included) elsewhere; and the columns, whole blocks of 8, outside which
    /// it is 0.
    private func placedLayer(_ side: Plan.Side, row y: Int, width: Int, into scratch: Scratch) -> (pixels: PlanarPixels, columns: Range<Int>) {
        let layer = stages[side.stage]
        let ly = y - side.y
        // A layer that covers the whole row is read where it lies.
        if side.x == 0 && layer.stage.size.width == width && ly >= 0 && ly < layer.stage.size.height {
            return (layer.work.pixels(ly), 0..<scratch.stride)
        }
        let pixels = scratch.layer
        // Scratch's layer row is 0 but for the columns the previous row wrote.
        if let written = scratch.written {
            for p in 0..<4 { (pixels.plane(p) + written.lowerBound).update(repeating: 0, count: written.count) }
            scratch.written = nil
        }
        let x0 = max(0, side.x), x1 = min(width, side.x + layer.stage.size.width)
        guard ly >= 0 && ly < layer.stage.size.height, x0 < x1 else { return (pixels, 0..<0) }
        for p in 0..<4 {
            (pixels.plane(p) + x0).update(from: layer.work.row(p, ly) + (x0 - side.x), count: x1 - x0)
        }
        scratch.written = x0..<x1
        return (pixels, (x0 & ~7)..<min(scratch.stride, (x1 + 7) & ~7))
    }

    /// Rows of scratch for the row operations that read other stages: a placed layer and one
    /// more plane (a mask's values, or alpha 1 for an opaque backdrop).
    private final class Scratch {
        let stride: Int
        let base: UnsafeMutablePointer<Float>
        init(stride: Int) {
            self.stride = stride
            base = UnsafeMutableRawPointer.allocate(byteCount: 5 * stride * 4, alignment: 64)
                .bindMemory(to: Float.self, capacity: 5 * stride)
            base.initialize(repeating: 0, count: 5 * stride)
        }
        deinit { base.deallocate() }
        /// The columns of `layer` that hold something other than 0.
        var written: Range<Int>?
        var layer: PlanarPixels {
            PlanarPixels(red: base, green: base + stride, blue: base + 2 * stride, alpha: base + 3 * stride)
        }
        var extra: UnsafeMutablePointer<Float> { base + 4 * stride }
    }
}

extension PlanarPixels {
    /// Plane `p`: red, green, blue, alpha.
    @inline(__always)
    func plane(_ p: Int) -> UnsafeMutablePointer<Float> {
        switch p {
        case 0: red
        case 1: green
        case 2: blue
        default: alpha
        }
    }
}
