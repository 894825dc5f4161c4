/// How a chain runs on an image of a given size: the filters' operations laid out as
/// stages. Each stage has its own size. It gets its rows from the decoder, through the
/// vertical pass of a separable filter, or from a geometry step's row source (a resize, a
/// crop, a turn) reading the previous stage's rows; then it runs its row work: fused runs of
/// point kernels, a horizontal pass, a combination with a saved input, and taps where an
/// output takes the image. Stages end where an operation needs rows from above and below,
/// or changes the image's size.
struct Plan {
    enum Source {
        /// The decoded image.
        case decoder
        /// `Chain.images[i]`, in memory.
        case image(Int)
        /// The vertical pass of a separable kernel over the input stage's rows, one per
        /// filtered plane.
        case vertical(any SeparableKernel, passes: [any VerticalPass])
        /// A geometry step's rows (or a copy: a crop of the whole), made from the input
        /// stage's rows.
        case geometry(RowSource)
    }

    /// Another stage's rows that a row operation reads, at `origin`: this stage's pixel
    /// (x, y) meets that stage's (x - origin.x, y - origin.y); pixels it does not cover read
    /// as 0 (alpha included).
    struct Side {
        var stage: Int
        var x = 0
        var y = 0
    }

    enum RowOp {
        /// Consecutive point kernels, applied together to each chunk of pixels; chunks stay
        /// within a row when some kernel needs positions.
        case points([RowKernel], positional: Bool)
        /// A horizontal pass over the first `planes` planes (3: colour only, alpha stays 1).
        case horizontal(any HorizontalPass, planes: Int)
        /// Keeps the first `planes` planes of the rows as they stand (premultiplied) for the
        /// stage of the vertical pass to combine with.
        case saveInput(planes: Int)
        /// Combines the rows with those the input stage saved.
        case combine(any CombineKernel)
        /// Lays the rows of another stage over these (a blend step).
        case blend(any LayerKernel, layer: Side)
        /// Mixes these rows (a step's result) with its input's, another stage at the same
        /// places, by a mask: out = in + m (result - in). `layer`: an image mask's image.
        case mask(MaskKernel, input: Int, layer: Side?)
        /// The output with this index takes the image as it stands here.
        case tap(Int)
    }

    struct Stage {
        var source: Source
        /// The stage whose rows the source reads (vertical and geometry sources).
        var input: Int?
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
        /// No operation may be added: other stages read the rows as they stand.
        var isClosed = false

        var savesInput: Bool { ops.contains { if case .saveInput = $0 { true } else { false } } }
        var stripCount: Int { (size.height + stripHeight - 1) / stripHeight }
        /// Planes of this stage's rows that are ever written: all 4 when the stage's alpha
        /// varies or is filled, else 3 (its buffers then hold alpha 1 from the start).
        var writesAlpha: Bool { planes == 4 || fillsAlpha }

        /// The rows of the input stage that this stage's strip `strip` reads.
        func inputRows(strip: Int, previous: ImageSize) -> ClosedRange<Int> {
            let first = strip * stripHeight
            let last = min(size.height, first + stripHeight) - 1
            switch source {
            case .decoder, .image:
                return first...last
            case .vertical(let kernel, _):
                // A pass with running sums also reads the row that leaves its window.
                let r = kernel.radius + 1
                return max(0, first - r)...min(previous.height - 1, last + r)
            case .geometry(let rows):
                return rows.inputRows(of: first).lowerBound...(rows.inputRows(of: last).upperBound - 1)
            }
        }

        /// The sides its row operations read: (stage, rows down from this stage's row).
        var sides: [Side] {
            ops.flatMap { op -> [Side] in
                switch op {
                case .blend(_, let layer): [layer]
                case .mask(_, let input, let layer): [Side(stage: input)] + (layer.map { [$0] } ?? [])
                default: []
                }
            }
        }

        /// The rows of side stage `side` (of `height` rows) that strip `strip` reads; nil
        /// when none.
        func sideRows(strip: Int, side: Side, height: Int) -> ClosedRange<Int>? {
            let first = strip * stripHeight - side.y
            let last = min(size.height, (strip + 1) * stripHeight) - 1 - side.y
            let low = max(0, first), high = min(height - 1, last)
            return low <= high ? low...high : nil
        }
    }

    var stages: [Stage]
    /// For each output, the stage whose rows it takes.
    var tapStages: [Int]
    /// For each output, whether alpha may differ from 1 where it takes the image.
    var tapAlpha: [Bool]
    /// For each stage, the rows of its ring: the rows its consumers may still need while it
    /// goes on (inferred by `inferRings`). 0 for a stage nothing reads.
    var ringRows: [Int] = []

    /// A step that cannot apply to the image.
    struct StepFailure: Error {
        var position: Int
        var error: GeometryError
    }

    /// An image of the graph as the plan builds it: where its rows are, its size, whether
    /// alpha may differ from 1.
    struct Value {
        var stage: Int
        var size: ImageSize
        /// The size the chain takes it to have (the decoder may have shrunk the source).
        var logical: ImageSize
        var alpha: Bool
    }

    /// `taps[i]` is the position (0...steps.count) output i takes the image at. `size` is the
    /// decoded image's; `logicalSize`, when the decoder shrank the image on load, the size
    /// the chain's first step takes it to be. `hasAlpha`: the decoded image has alpha.
    /// `images`: the size and alpha of each of the chain's images.
    ///
    /// Only the steps the outputs need are planned. An image read by more than one step (or
    /// by a mask, or as a layer) ends its stage, and the steps reading it start stages of
    /// their own from its rows; an image read by one step only is worked on in place.
    ///
    /// What a step computes never depends on the steps after it: until a step writes alpha,
    /// an opaque image is filtered on its three colour planes, with no premultiplication
    /// (alpha is exactly 1), exactly as the chain cut before that step is.
    init(chain: ResolvedChain, size: ImageSize, logicalSize: ImageSize? = nil, hasAlpha: Bool,
         images: [(size: ImageSize, alpha: Bool)] = [], taps: [Int], stripHeight: Int) throws(StepFailure) {
        // The passes (Plan+Build.swift): prune, lower, fuse, size.
        let tapNodes = taps.map { chain.effective(chain.node(atPosition: $0)) }
        let (needed, shared) = Plan.prune(chain, tapNodes: tapNodes)
        var builder = PlanBuilder(chain: chain, strip: max(1, stripHeight), tapNodes: tapNodes, shared: shared)
        builder.addSources(size: size, logicalSize: logicalSize, hasAlpha: hasAlpha, images: images, needed: needed)
        for index in chain.steps.indices where chain.steps[index].enabled && needed.contains(.step(index)) {
            try builder.lower(step: index)
        }
        for i in taps.indices where builder.values[tapNodes[i]] == nil {
            preconditionFailure("output \(i) takes an image the plan did not make")
        }
        var stages = builder.stages
        Plan.fusePointRuns(&stages)
        self.stages = stages
        tapStages = builder.tapStages
        tapAlpha = builder.tapAlpha
        ringRows = Schedule.inferCapacities(stages)
    }

    /// A separable kernel's vertical passes, one per plane, for an image of `size`.
    static func vertical(_ kernel: any SeparableKernel, size: ImageSize, planes: Int) -> Source {
        .vertical(kernel, passes: (0..<planes).map { _ in kernel.makeVerticalPass(width: size.width, height: size.height) })
    }

    /// The size of the image output i takes.
    func size(ofOutput i: Int) -> ImageSize { stages[tapStages[i]].size }

    /// The bytes of the stages' row buffers as `ImageRun` allocates them: each stage's ring
    /// (or one strip when nothing reads it) and the rows it saves for a vertical pass, four
    /// float planes of the stage's padded width.
    var bufferBytes: Int {
        stages.indices.reduce(0) { total, j in
            let stage = stages[j]
            let rows = ringRows[j] > 0 ? ringRows[j] : stage.stripHeight
            let stride = (stage.size.width + 7) & ~7
            return total + rows * stride * 4 * MemoryLayout<Float>.size * (stage.savesInput ? 2 : 1)
        }
    }
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
