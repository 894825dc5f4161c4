/// How a chain runs on an image of a given size: the filters' operations laid out as
/// stages. Each stage has its own size. It gets its rows from the decoder, through the
/// vertical pass of a separable filter, or from a geometry step's row source (a resize, a
/// crop, a turn) reading the previous stage's rows; then it runs its row work: fused runs of
/// point kernels, a horizontal pass, a combination with a saved input, and taps where an
/// output takes the image. Stages end where an operation needs rows from above and below,
/// or changes the image's size.
struct Plan {
    enum Source {
        /// Stage 0: the decoded image.
        case decoder
        /// The vertical pass of a separable kernel over the previous stage's rows, one per
        /// filtered plane.
        case vertical(any SeparableKernel, passes: [any VerticalPass])
        /// A geometry step's rows, made from the previous stage's rows.
        case geometry(RowSource)
    }

    enum RowOp {
        /// Consecutive point kernels, applied together to each chunk of pixels; chunks stay
        /// within a row when some kernel needs positions.
        case points([RowKernel], positional: Bool)
        /// A horizontal pass over the first `planes` planes (3: colour only, alpha stays 1).
        case horizontal(any HorizontalPass, planes: Int)
        /// Keeps the first `planes` planes of the rows as they stand (premultiplied) for the
        /// next stage to combine with.
        case saveInput(planes: Int)
        /// Combines the rows with those the previous stage saved.
        case combine(any CombineKernel)
        /// The output with this index takes the image as it stands here.
        case tap(Int)
    }

    struct Stage {
        var source: Source
        var size: ImageSize
        /// Rows per strip of this stage.
        var stripHeight: Int
        /// The planes its source makes and its neighbourhood passes filter: 4 once alpha may
        /// differ from 1 at the stage's input, 3 before (alpha is then exactly 1, and stays
        /// so without being touched, as it would in a chain cut before any step writing it).
        var planes: Int
        /// The source makes 3 planes but a kernel of this stage writes alpha: each row's
        /// alpha is set to 1 before the stage's row work (ring slots are reused).
        var fillsAlpha = false
        /// What makes the stage's rows, for messages: "the decoder", "step 3 (resize)".
        var label = "the decoder"
        var ops: [RowOp] = []

        var savesInput: Bool { ops.contains { if case .saveInput = $0 { true } else { false } } }
        var stripCount: Int { (size.height + stripHeight - 1) / stripHeight }
        /// Planes of this stage's rows that are ever written: all 4 when the stage's alpha
        /// varies or is filled, else 3 (its buffers then hold alpha 1 from the start).
        var writesAlpha: Bool { planes == 4 || fillsAlpha }

        /// The rows of the previous stage that this stage's strip `strip` reads.
        func inputRows(strip: Int, previous: ImageSize) -> ClosedRange<Int> {
            let first = strip * stripHeight
            let last = min(size.height, first + stripHeight) - 1
            switch source {
            case .decoder:
                return first...last
            case .vertical(let kernel, _):
                // A pass with running sums also reads the row that leaves its window.
                let r = kernel.radius + 1
                return max(0, first - r)...min(previous.height - 1, last + r)
            case .geometry(let rows):
                return rows.inputRows(of: first).lowerBound...(rows.inputRows(of: last).upperBound - 1)
            }
        }
    }

    var stages: [Stage]
    /// For each output, the stage whose rows it takes.
    var tapStages: [Int]
    /// For each output, whether alpha may differ from 1 where it takes the image.
    var tapAlpha: [Bool]

    /// A step that cannot apply to the image.
    struct StepFailure: Error {
        var position: Int
        var error: GeometryError
    }

    /// `taps[i]` is the position (0...steps.count) output i takes the image at. `size` is the
    /// decoded image's; `logicalSize`, when the decoder shrank the image on load, the size
    /// the chain's first step takes it to be. `hasAlpha`: the decoded image has alpha.
    ///
    /// What a step computes never depends on the steps after it: until a step writes alpha,
    /// an opaque image is filtered on its three colour planes, with no premultiplication
    /// (alpha is exactly 1), exactly as the chain cut before that step is.
    init(chain: Chain, size: ImageSize, logicalSize: ImageSize? = nil, hasAlpha: Bool, taps: [Int],
         stripHeight: Int) throws(StepFailure) {
        let s = max(1, stripHeight)
        // Whether alpha may differ from 1 at this point of the chain.
        var alpha = hasAlpha
        var planes: Int { alpha ? 4 : 3 }
        var stages = [Stage(source: .decoder, size: size, stripHeight: s, planes: planes)]
        var run: [RowKernel] = []
        var size = size
        var logical = logicalSize ?? size
        func closeRun() {
            if !run.isEmpty {
                stages[stages.count - 1].ops.append(.points(run, positional: run.contains {
                    if case .positional = $0 { true } else { false }
                }))
            }
            run = []
        }
        func append(_ op: RowOp) {
            closeRun()
            stages[stages.count - 1].ops.append(op)
        }
        // A separable kernel's passes are made here, both of them, for the current size.
        func vertical(_ kernel: any SeparableKernel) -> Source {
            .vertical(kernel, passes: (0..<planes).map { _ in kernel.makeVerticalPass(width: size.width, height: size.height) })
        }
        var tapStages = [Int](repeating: 0, count: taps.count)
        var tapAlpha = [Bool](repeating: false, count: taps.count)
        func addTaps(at position: Int) {
            for i in taps.indices where taps[i] == position {
                append(.tap(i))
                tapStages[i] = stages.count - 1
                tapAlpha[i] = alpha
            }
        }
        addTaps(at: 0)
        for (index, step) in chain.steps.enumerated() {
            if step.enabled {
                switch step.filter.operation() {
                case .identity:
                    break
                case .point(let kernel):
                    run.append(.point(kernel))
                case .positional(let kernel):
                    run.append(.positional(kernel))
                case .separable(let kernel):
                    if alpha { run.append(.point(Premultiply())) }
                    append(.horizontal(kernel.makeHorizontalPass(width: size.width), planes: planes))
                    stages.append(Stage(source: vertical(kernel), size: size, stripHeight: s, planes: planes,
                                        label: "the vertical pass of step \(index + 1) (\(step.label))"))
                    if alpha { run.append(.point(Unpremultiply())) }
                case .combine(let kernel, let combination):
                    if alpha { run.append(.point(Premultiply())) }
                    append(.saveInput(planes: planes))
                    append(.horizontal(kernel.makeHorizontalPass(width: size.width), planes: planes))
                    stages.append(Stage(source: vertical(kernel), size: size, stripHeight: s, planes: planes,
                                        label: "the vertical pass of step \(index + 1) (\(step.label))"))
                    append(.combine(combination))
                    if alpha { run.append(.point(Unpremultiply())) }
                case .blend:
                    fatalError("graphs are not planned yet")
                case .geometry(let kernel):
                    let layout: GeometryLayout
                    do throws(GeometryError) { layout = try kernel.layout(for: logical) } catch {
                        throw StepFailure(position: index + 1, error: error)
                    }
                    let output = layout.outputSize(from: logical)
                    let whole = PixelRect(x: 0, y: 0, width: size.width, height: size.height)
                    switch layout {
                    case .crop(let rect) where rect == whole:
                        break
                    case .resample(let to, let window) where to == size && window == whole:
                        break
                    case .resample(let to, let window):
                        if alpha { run.append(.point(Premultiply())) }
                        closeRun()
                        let source = RowSource.resample(Resample(input: size, output: to, window: window))
                        // Strips of about as many input rows as the previous stage's.
                        let strip = max(1, min(s, Int((Double(s) * Double(output.height) / Double(size.height)).rounded())))
                        stages.append(Stage(source: .geometry(source), size: output, stripHeight: strip, planes: planes,
                                            label: "step \(index + 1) (\(step.label))"))
                        if alpha { run.append(.point(Unpremultiply(clampsAlpha: true))) }
                    case .crop(let rect):
                        closeRun()
                        stages.append(Stage(source: .geometry(.crop(rect)), size: output, stripHeight: s, planes: planes,
                                            label: "step \(index + 1) (\(step.label))"))
                    case .turn(let orientation):
                        if orientation == .up { break }
                        closeRun()
                        stages.append(Stage(source: .geometry(.turn(orientation, input: size)), size: output,
                                            stripHeight: s, planes: planes, label: "step \(index + 1) (\(step.label))"))
                    }
                    size = output
                    logical = output
                }
                if step.filter.changesAlpha && !alpha {
                    // From here on alpha varies; this stage's source still makes 3 planes.
                    alpha = true
                    stages[stages.count - 1].fillsAlpha = true
                }
            }
            addTaps(at: index + 1)
        }
        closeRun()
        self.stages = stages
        self.tapStages = tapStages
        self.tapAlpha = tapAlpha
    }

    /// The size of the image output i takes.
    func size(ofOutput i: Int) -> ImageSize { stages[tapStages[i]].size }
}

/// A kernel in a fused run of point operations.
enum RowKernel {
    case point(any PointKernel)
    case positional(any PositionalKernel)
}

/// Where a geometry stage's rows come from: each output row is made from some rows of the
/// previous stage, whole (resize, crop, mirror) or from all of them (a quarter turn, a
/// vertical flip, which hold the whole image).
enum RowSource: Sendable {
    case resample(Resample)
    case crop(PixelRect)
    case turn(Orientation, input: ImageSize)

    /// The input rows output row `y` reads.
    func inputRows(of y: Int) -> Range<Int> {
        switch self {
        case .resample(let r): return r.inputRows(of: y)
        case .crop(let rect): return (rect.y + y)..<(rect.y + y + 1)
        case .turn(let o, let input):
            switch o {
            case .up, .upMirrored: return y..<(y + 1)
            default: return 0..<input.height
            }
        }
    }

    var scratchCount: Int {
        if case .resample(let r) = self { return r.scratchCount }
        return 0
    }

    /// Computes output row `y` of one plane. `row(i)` is input row i; `columnStride` is the
    /// distance between rows for column reads of a turn (rows are then contiguous slots).
    func run(y: Int, width: Int, row: (Int) -> UnsafePointer<Float>, destination: UnsafeMutablePointer<Float>,
             scratch: UnsafeMutablePointer<Float>) {
        switch self {
        case .resample(let r):
            r.run(y: y, input: row, destination: destination, scratch: scratch)
        case .crop(let rect):
            destination.update(from: row(rect.y + y) + rect.x, count: width)
        case .turn(let o, let input):
            let w = input.width, h = input.height
            if !o.swapsAxes {
                let flipX = o == .upMirrored || o == .down
                let flipY = o == .down || o == .downMirrored
                let src = row(flipY ? h - 1 - y : y)
                if flipX {
                    for x in 0..<w { destination[x] = src[w - 1 - x] }
                } else {
                    destination.update(from: src, count: w)
                }
            } else {
                // Output row y is input column sx, read down (or up) the input's rows.
                let (sx, top) = o.storedPosition(ux: 0, uy: y, width: w, height: h)
                let step = top == 0 ? 1 : -1
                for x in 0..<h { destination[x] = row(top + step * x)[sx] }
            }
        }
    }
}
