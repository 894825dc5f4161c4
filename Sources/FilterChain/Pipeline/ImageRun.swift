import Synchronization

/// Planes of Float rows: red, green, blue, alpha, each `rows` rows of `stride` floats,
/// 32-byte aligned. Used as a ring of rows (row y in slot y % rows) or as one strip.
final class PlaneBuffer: @unchecked Sendable {
    let rows: Int
    let stride: Int
    let base: UnsafeMutablePointer<Float>

    init(rows: Int, stride: Int, opaque: Bool) {
        self.rows = rows
        self.stride = stride
        let count = 4 * rows * stride
        base = UnsafeMutableRawPointer.allocate(byteCount: count * 4, alignment: 64)
            .bindMemory(to: Float.self, capacity: count)
        base.initialize(repeating: 0, count: 3 * rows * stride)
        // Opaque images never write alpha: it stays exactly 1.
        (base + 3 * rows * stride).initialize(repeating: opaque ? 1 : 0, count: rows * stride)
    }

    deinit { base.deallocate() }

    @inline(__always)
    func row(_ plane: Int, _ slot: Int) -> UnsafeMutablePointer<Float> {
        base + (plane * rows + slot) * stride
    }

    @inline(__always)
    func pixels(_ slot: Int) -> PlanarPixels {
        PlanarPixels(red: row(0, slot), green: row(1, slot), blue: row(2, slot), alpha: row(3, slot))
    }
}

/// One image through a plan, strip by strip, in ticks. At tick t the decoder reads strip t
/// and stage j works on strip t - delay(j); all of a tick's work runs in parallel on the
/// pool (split by rows, or by columns for a vertical pass) and the tick ends when all of it
/// is done. Outputs encode their strips in order alongside, a few strips behind, at the
/// lowest priority. Every value is computed by the same arithmetic whatever the split, so
/// results do not depend on threads or strip height. Memory holds a few strips per stage
/// (plus the rows a vertical pass reaches), whatever the image's height.
final class ImageRun: @unchecked Sendable {
    private final class StageRun {
        let stage: Plan.Stage
        let radius: Int
        var verticals: [any VerticalPass] = []
        var input: PlaneBuffer?
        var work: PlaneBuffer!
        var delay = 0

        init(_ stage: Plan.Stage) {
            self.stage = stage
            radius = stage.vertical?.radius ?? 0
        }
    }

    private let source: PixelSource
    private let pool: WorkerPool
    private let imageIndex: Int
    private let cancel: CancellationFlag?
    private let sinks: [Sink]
    private let width: Int
    private let height: Int
    private let stride: Int
    private let stripHeight: Int
    private let stripCount: Int
    private let planes: Int
    private let stages: [StageRun]
    private let inputConversion: InputConversion
    private let rowBytes: Int
    private let decodeBuffers: [UnsafeMutableRawPointer]

    /// Point kernels run over this many floats of a plane at a time, so that fused
    /// kernels find the pixels in cache.
    static let pointChunk = 2048

    init(plan: Plan, source: PixelSource, sinks: [Sink], linear: Bool, stripHeight: Int,
         pool: WorkerPool, imageIndex: Int, cancel: CancellationFlag?) {
        self.source = source
        self.pool = pool
        self.imageIndex = imageIndex
        self.cancel = cancel
        self.sinks = sinks
        let info = source.info
        width = info.width
        height = info.height
        stride = (width + 7) & ~7
        self.stripHeight = max(1, stripHeight)
        stripCount = (height + self.stripHeight - 1) / self.stripHeight
        planes = plan.filteredPlanes
        let opaque = !info.format.channels.hasAlpha
        inputConversion = InputConversion(format: info.format, linear: linear)
        rowBytes = info.rowBytes
        decodeBuffers = (0..<2).map { _ in
            UnsafeMutableRawPointer.allocate(byteCount: max(1, info.rowBytes * max(1, stripHeight)), alignment: 64)
        }
        let stages = plan.stages.map(StageRun.init)
        let s = self.stripHeight
        stages[0].delay = 1
        for j in stages.indices.dropFirst() {
            let r = stages[j].radius
            let reach = (r + s - 1) / s
            stages[j].delay = stages[j - 1].delay + reach + 1
            let ringRows = s * (reach + 2 + (r + 1 + s - 1) / s)
            let ring = PlaneBuffer(rows: ringRows, stride: stride, opaque: opaque)
            stages[j - 1].work = ring
            stages[j].input = ring
            stages[j].verticals = (0..<planes).map { _ in
                stages[j].stage.vertical!.makeVerticalPass(width: info.width, height: info.height)
            }
        }
        stages[stages.count - 1].work = PlaneBuffer(rows: s, stride: stride, opaque: opaque)
        self.stages = stages
        for (j, stage) in stages.enumerated() {
            for case .tap(let i) in stage.stage.ops { sinks[i].delay = stages[j].delay + 1 }
        }
    }

    deinit { for b in decodeBuffers { b.deallocate() } }

    private func rows(in strip: Int) -> Int { min(stripHeight, height - strip * stripHeight) }

    /// Which of an image's tasks a free thread takes first: the tick's own work (the decoder,
    /// then the stages' vertical passes, then their row work) before the outputs' encoders.
    /// Encoders may lag the filters by their ring of strips, so they fill the moments when
    /// the rest of a tick cannot keep every core busy (measured: W5 1.16 -> 1.13 x W1).
    private enum Lane: Int { case decode = 1, vertical, rows, encode }

    private func priority(_ lane: Lane, _ order: Int) -> WorkerPool.Priority {
        WorkerPool.Priority(image: imageIndex, lane: lane.rawValue, strip: order)
    }

    /// Runs every tick; on failure throws the first error and leaves the sinks to the caller.
    func run() throws {
        let lastTick = max(stages.map(\.delay).max()!, sinks.map(\.delay).max() ?? 0) + stripCount - 1
        for tick in 0...lastTick {
            if cancel?.isCancelled == true { throw RenderCancelled() }
            let group = TaskGroup(pool: pool)
            for (i, sink) in sinks.enumerated() {
                let strip = tick - sink.delay
                if strip >= 0 && strip < stripCount {
                    sink.enqueue(strip: strip, rows: rows(in: strip), pool: pool, priority: priority(.encode, i))
                }
            }
            if tick < stripCount {
                group.submit(priority(.decode, 0)) { [self] in
                    try source.read(into: decodeBuffers[tick & 1], stride: rowBytes, rows: rows(in: tick))
                    if tick == stripCount - 1 { try source.finish() }
                }
            }
            for j in stages.indices {
                let strip = tick - stages[j].delay
                if strip >= 0 && strip < stripCount {
                    // The outputs this stage taps must have a free strip buffer.
                    for case .tap(let i) in stages[j].stage.ops { sinks[i].waitForBuffer(strip: strip) }
                    startStage(j, strip: strip, group: group)
                }
            }
            try group.wait()
        }
        for sink in sinks { try sink.drain() }
    }

    private func startStage(_ j: Int, strip: Int, group: TaskGroup) {
        let stage = stages[j]
        guard let input = stage.input else {
            submitRowWork(j, strip: strip, group: group)
            return
        }
        let first = strip * stripHeight
        let count = rows(in: strip)
        let work = stage.work!
        let ringRows = input.rows
        let last = height - 1
        // Column ranges start at multiples of 8.
        let blocks = stride / 8
        let pieces = max(1, min(blocks, 2 * pool.threadCount, max(1, blocks / 16)))
        let remaining = Atomic<Int>(pieces)
        for piece in 0..<pieces {
            let columns = (blocks * piece / pieces * 8)..<(blocks * (piece + 1) / pieces * 8)
            group.submit(priority(.vertical, j)) { [self] in
                for p in 0..<planes {
                    let pass = stage.verticals[p]
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

    private func submitRowWork(_ j: Int, strip: Int, group: TaskGroup) {
        let count = rows(in: strip)
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
        let firstSlot = (strip * stripHeight) % work.rows + rows.lowerBound
        if j == 0 {
            let bytes = decodeBuffers[strip & 1]
            for r in rows {
                inputConversion.convert(bytes + r * rowBytes, width: width, into: work.pixels(firstSlot + r - rows.lowerBound))
            }
        }
        for op in stage.stage.ops {
            switch op {
            case .points(let kernels):
                let total = rows.count * stride
                let pixels = work.pixels(firstSlot)
                var offset = 0
                while offset < total {
                    let n = min(ImageRun.pointChunk, total - offset)
                    let chunk = pixels.offset(by: offset)
                    for kernel in kernels { kernel.apply(chunk, count: n) }
                    offset += n
                }
            case .horizontal(let pass):
                for p in 0..<planes { pass.run(work.row(p, firstSlot), stride: stride, rowCount: rows.count) }
            case .tap(let i):
                for r in rows {
                    sinks[i].convert(strip: strip, row: r, work.pixels(firstSlot + r - rows.lowerBound))
                }
            }
        }
    }
}
