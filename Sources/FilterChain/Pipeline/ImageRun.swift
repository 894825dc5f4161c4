import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Planes of Float rows: red, green, blue, alpha, each `rows` rows of `stride` floats,
/// 32-byte aligned. Used as a ring of rows (row y in slot y % rows) or as one strip.
final class PlaneBuffer: @unchecked Sendable {
    let rows: Int
    let stride: Int
    let base: UnsafeMutablePointer<Float>
    /// Mapped from the system (zero pages, touched only when first written) rather than
    /// allocated and cleared: a large ring is then set up without delaying the image's first
    /// strip, and its pages are faulted in by the threads that fill them.
    private let mapped: Int

    /// Buffers from this size up are mapped.
    static let mappedBytes = 1 << 20

    init(rows: Int, stride: Int, opaque: Bool) {
        self.rows = rows
        self.stride = stride
        let count = 4 * rows * stride
        let bytes = count * 4
        if bytes >= PlaneBuffer.mappedBytes,
           let memory = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
           memory != MAP_FAILED {
            mapped = bytes
            base = memory.bindMemory(to: Float.self, capacity: count)
        } else {
            mapped = 0
            base = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
                .bindMemory(to: Float.self, capacity: count)
            base.initialize(repeating: 0, count: 3 * rows * stride)
        }
        // Opaque images never write alpha: it stays exactly 1.
        if opaque || mapped == 0 {
            (base + 3 * rows * stride).initialize(repeating: opaque ? 1 : 0, count: rows * stride)
        }
    }

    deinit {
        if mapped > 0 { munmap(base, mapped) } else { base.deallocate() }
    }

    @inline(__always)
    func row(_ plane: Int, _ slot: Int) -> UnsafeMutablePointer<Float> {
        base + (plane * rows + slot) * stride
    }

    @inline(__always)
    func pixels(_ slot: Int) -> PlanarPixels {
        PlanarPixels(red: row(0, slot), green: row(1, slot), blue: row(2, slot), alpha: row(3, slot))
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
/// turn or a vertical flip reaches every row, and so holds its whole input).
final class ImageRun: @unchecked Sendable {
    private final class StageRun {
        let stage: Plan.Stage
        let stride: Int
        /// The previous stage's rows (its ring), and what it saved for a combination.
        var input: PlaneBuffer?
        var saved: PlaneBuffer?
        /// Where this stage's rows live: the next stage's ring, or a strip of its own.
        var work: PlaneBuffer!
        /// Where `.saveInput` copies the rows (the next stage's `saved`).
        var save: PlaneBuffer?
        /// Strips finished in earlier ticks.
        var done = 0

        init(_ stage: Plan.Stage) {
            self.stage = stage
            stride = (stage.size.width + 7) & ~7
        }

        var rowsDone: Int { min(stage.size.height, done * stage.stripHeight) }
        var isFinished: Bool { done >= stage.stripCount }
        func rows(in strip: Int) -> Int { min(stage.stripHeight, stage.size.height - strip * stage.stripHeight) }
    }

    private let source: PixelSource
    private let pool: WorkerPool
    private let order: Int
    private let cancel: [CancellationFlag]
    private let sinks: [Sink]
    private let tapStages: [Int]
    private let planes: Int
    private let stages: [StageRun]
    private let inputConversion: InputConversion
    /// An opaque image that gains alpha (a step writes it): the decoded rows get alpha 1,
    /// since ring slots are reused after a step wrote alpha into them.
    private let fillsAlpha: Bool
    private let rowBytes: Int
    private let decodeBuffers: [UnsafeMutableRawPointer]

    /// Point kernels run over this many floats of a plane at a time, so that fused
    /// kernels find the pixels in cache.
    static let pointChunk = 2048

    init(plan: Plan, source: PixelSource, sinks: [Sink], linear: Bool,
         pool: WorkerPool, order: Int, cancel: [CancellationFlag]) {
        self.source = source
        self.pool = pool
        self.order = order
        self.cancel = cancel
        self.sinks = sinks
        tapStages = plan.tapStages
        let info = source.info
        planes = plan.planes
        let opaque = plan.planes == 3
        inputConversion = InputConversion(format: info.format, linear: linear)
        fillsAlpha = plan.planes == 4 && !info.format.channels.hasAlpha
        rowBytes = info.rowBytes
        let firstStrip = plan.stages[0].stripHeight
        decodeBuffers = (0..<2).map { _ in
            UnsafeMutableRawPointer.allocate(byteCount: max(1, info.rowBytes * firstStrip), alignment: 64)
        }
        let stages = plan.stages.map(StageRun.init)
        for j in stages.indices.dropFirst() {
            let producer = stages[j - 1], consumer = stages[j]
            // The ring holds the rows any one strip of the consumer reads, plus two of the
            // producer's strips, so one of the two can always move on; all rows at most.
            let previous = producer.stage.size
            var reach = 0
            for k in 0..<consumer.stage.stripCount {
                reach = max(reach, consumer.stage.inputRows(strip: k, previous: previous).count)
            }
            // Whole strips of the producer, so that a strip's rows are consecutive slots.
            let s = producer.stage.stripHeight
            let ringRows = min((reach + 3 * s - 1) / s * s, (previous.height + s - 1) / s * s)
            let ring = PlaneBuffer(rows: ringRows, stride: producer.stride, opaque: opaque)
            producer.work = ring
            consumer.input = ring
            if producer.stage.savesInput {
                let saved = PlaneBuffer(rows: ringRows, stride: producer.stride, opaque: opaque)
                producer.save = saved
                consumer.saved = saved
            }
        }
        let last = stages[stages.count - 1]
        last.work = PlaneBuffer(rows: last.stage.stripHeight, stride: last.stride, opaque: opaque)
        self.stages = stages
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

    /// True when stage `j` can run its next strip in this tick.
    private func canRun(_ j: Int, decoded: Int) -> Bool {
        let stage = stages[j]
        let k = stage.done
        if stage.isFinished { return false }
        if j == 0 {
            if decoded <= k { return false }
        } else {
            let previous = stages[j - 1]
            let needed = stage.stage.inputRows(strip: k, previous: previous.stage.size)
            if needed.upperBound >= previous.rowsDone { return false }
        }
        // The rows this strip writes into the next stage's ring must not overwrite rows
        // that stage still reads.
        if j + 1 < stages.count {
            let consumer = stages[j + 1]
            if !consumer.isFinished {
                let end = k * stage.stage.stripHeight + stage.rows(in: k)
                let lowest = consumer.stage.inputRows(strip: consumer.done, previous: stage.stage.size).lowerBound
                if end > stage.work.rows + lowest { return false }
            }
        }
        return true
    }

    /// Runs every tick; on failure throws the first error and leaves the sinks to the caller.
    func run() throws {
        let first = stages[0]
        var decoded = 0
        var finished: [(stage: Int, strip: Int)] = []
        while true {
            if cancel.contains(where: \.isCancelled) { throw RenderCancelled() }
            for (j, k) in finished {
                for (i, sink) in sinks.enumerated() where tapStages[i] == j {
                    sink.enqueue(strip: k, rows: stages[j].rows(in: k), pool: pool, priority: priority(.encode, i))
                }
            }
            let group = TaskGroup(pool: pool)
            var started: [(stage: Int, strip: Int)] = []
            let decodes = decoded < first.stage.stripCount && first.done >= decoded - 1
            if decodes {
                let strip = decoded
                let rows = first.rows(in: strip)
                let last = strip == first.stage.stripCount - 1
                group.submit(priority(.decode, 0)) { [self] in
                    try source.read(into: decodeBuffers[strip & 1], stride: rowBytes, rows: rows)
                    if last { try source.finish() }
                }
            }
            for j in stages.indices where canRun(j, decoded: decoded) {
                let strip = stages[j].done
                // The outputs this stage taps must have a free strip buffer.
                for (i, sink) in sinks.enumerated() where tapStages[i] == j { sink.waitForBuffer(strip: strip) }
                startStage(j, strip: strip, group: group)
                started.append((j, strip))
            }
            if !decodes && started.isEmpty {
                precondition(stages.allSatisfy(\.isFinished), "the schedule stalled")
                break
            }
            try group.wait()
            if decodes { decoded += 1 }
            for (j, _) in started { stages[j].done += 1 }
            finished = started
        }
        for sink in sinks { try sink.drain() }
    }

    private func startStage(_ j: Int, strip: Int, group: TaskGroup) {
        let stage = stages[j]
        switch stage.stage.source {
        case .decoder:
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
        let ringRows = input.rows
        let last = stage.stage.size.height - 1
        // Column ranges start at multiples of 8.
        let blocks = stage.stride / 8
        let pieces = max(1, min(blocks, 2 * pool.threadCount, max(1, blocks / 16)))
        let remaining = Atomic<Int>(pieces)
        for piece in 0..<pieces {
            let columns = (blocks * piece / pieces * 8)..<(blocks * (piece + 1) / pieces * 8)
            group.submit(priority(.source, j)) { [self] in
                for p in 0..<planes {
                    let pass = passes[p]
                    for y in first..<(first + count) {
                        pass.run(y: y, input: { i in
                            UnsafePointer(input.row(p, min(max(i, 0), last) % ringRows))
                        }, destination: work.row(p, y % work.rows), columns: columns)
                    }
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
        let pieces = min(count, 2 * pool.threadCount)
        let remaining = Atomic<Int>(pieces)
        for piece in 0..<pieces {
            let range = (first + count * piece / pieces)..<(first + count * (piece + 1) / pieces)
            group.submit(priority(.source, j)) { [self] in
                let scratch = UnsafeMutablePointer<Float>.allocate(capacity: max(8, rows.scratchCount))
                defer { scratch.deallocate() }
                for p in 0..<planes {
                    for y in range {
                        rows.run(y: y, width: width, row: { i in UnsafePointer(input.row(p, i % input.rows)) },
                                 destination: work.row(p, y % work.rows), scratch: scratch)
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

    private func rowWork(_ j: Int, strip: Int, rows: Range<Int>) {
        let stage = stages[j]
        let work = stage.work!
        let stride = stage.stride
        let size = stage.stage.size
        let firstRow = strip * stage.stage.stripHeight + rows.lowerBound
        let firstSlot = firstRow % work.rows
        if j == 0 {
            let bytes = decodeBuffers[strip & 1]
            for r in rows {
                inputConversion.convert(bytes + r * rowBytes, width: size.width,
                                        into: work.pixels(firstSlot + r - rows.lowerBound))
                if fillsAlpha { work.pixels(firstSlot + r - rows.lowerBound).alpha.update(repeating: 1, count: stride) }
            }
        }
        for op in stage.stage.ops {
            switch op {
            case .points(let kernels, let positional):
                if positional {
                    for r in 0..<rows.count {
                        let pixels = work.pixels(firstSlot + r)
                        var x = 0
                        while x < stride {
                            let n = min(ImageRun.pointChunk, stride - x)
                            let chunk = pixels.offset(by: x)
                            for kernel in kernels {
                                switch kernel {
                                case .point(let k): k.apply(chunk, count: n)
                                case .positional(let k): k.apply(chunk, count: n, row: firstRow + r, column: x, size: size)
                                }
                            }
                            x += n
                        }
                    }
                } else {
                    let total = rows.count * stride
                    let pixels = work.pixels(firstSlot)
                    var offset = 0
                    while offset < total {
                        let n = min(ImageRun.pointChunk, total - offset)
                        let chunk = pixels.offset(by: offset)
                        for case .point(let kernel) in kernels { kernel.apply(chunk, count: n) }
                        offset += n
                    }
                }
            case .horizontal(let pass):
                for p in 0..<planes { pass.run(work.row(p, firstSlot), stride: stride, rowCount: rows.count) }
            case .saveInput:
                let save = stage.save!
                for p in 0..<planes {
                    save.row(p, firstSlot).update(from: work.row(p, firstSlot), count: rows.count * stride)
                }
            case .combine(let kernel):
                let saved = stage.saved!
                let slot = firstRow % saved.rows
                kernel.combine(input: saved.pixels(slot), into: work.pixels(firstSlot), count: rows.count * stride)
            case .tap(let i):
                for r in rows {
                    sinks[i].convert(strip: strip, row: r, work.pixels(firstSlot + r - rows.lowerBound))
                }
            }
        }
    }
}
