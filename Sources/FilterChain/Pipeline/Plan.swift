/// How a chain runs on an image of a given size: the filters' operations laid out as
/// stages. A stage reads its rows (from the decoder, or through the vertical pass of a
/// separable filter from the previous stage), then runs its row work: fused runs of point
/// kernels, a horizontal pass, and taps where an output takes the image. Stages end where
/// a separable filter needs rows from above and below.
struct Plan {
    enum RowOp {
        /// Consecutive point kernels, applied together to each chunk of pixels.
        case points([any PointKernel])
        /// A horizontal pass over the planes that are filtered.
        case horizontal(any HorizontalPass)
        /// The output with this index takes the image as it stands here.
        case tap(Int)
    }

    struct Stage {
        /// The separable kernel whose vertical pass starts this stage (nil for stage 0).
        var vertical: (any SeparableKernel)?
        var ops: [RowOp] = []
    }

    var stages: [Stage]
    /// How many planes neighbourhood passes filter: 4 with alpha, 3 for opaque images
    /// (alpha stays exactly 1).
    var filteredPlanes: Int

    /// `taps[i]` is the position (0...steps.count) output i takes the image at.
    init(chain: Chain, width: Int, hasAlpha: Bool, taps: [Int]) {
        filteredPlanes = hasAlpha ? 4 : 3
        var stages = [Stage(vertical: nil)]
        var run: [any PointKernel] = []
        func closeRun() {
            if !run.isEmpty { stages[stages.count - 1].ops.append(.points(run)) }
            run = []
        }
        func addTaps(at position: Int) {
            let here = taps.indices.filter { taps[$0] == position }
            if here.isEmpty { return }
            closeRun()
            for i in here { stages[stages.count - 1].ops.append(.tap(i)) }
        }
        addTaps(at: 0)
        for (index, step) in chain.steps.enumerated() {
            if step.enabled {
                switch step.filter.operation() {
                case .identity:
                    break
                case .point(let kernel):
                    run.append(kernel)
                case .separable(let kernel):
                    if hasAlpha { run.append(Premultiply()) }
                    closeRun()
                    stages[stages.count - 1].ops.append(.horizontal(kernel.makeHorizontalPass(width: width)))
                    stages.append(Stage(vertical: kernel))
                    if hasAlpha { run.append(Unpremultiply()) }
                case .combine:
                    // Planned with the geometry rework of the pipeline (in progress on main).
                    fatalError("combine stages are not planned yet")
                }
            }
            addTaps(at: index + 1)
        }
        closeRun()
        self.stages = stages
    }
}

/// What an output does with the image: the layout it stores and how it gets there.
public struct OutputLayout: Sendable, Hashable {
    public var format: PixelFormat
    /// JPEG has no alpha: colour is composited over this background.
    public var background: RGBColor?

    /// The layout of an output of `format` for an image read as `input`: PNG keeps the
    /// depth (unless `depth` says otherwise) and alpha; JPEG is 8-bit without alpha; grey
    /// input stays grey when `neutral` (every output pixel has R = G = B).
    public static func resolve(input: PixelFormat, output: ImageFormat?, depth: BitDepth?,
                               background: RGBColor, neutral: Bool) -> OutputLayout {
        let grey = input.channels.isGrey && neutral
        switch output {
        case .jpeg:
            return OutputLayout(format: PixelFormat(Channels(grey: grey, alpha: false), .eight),
                                background: input.channels.hasAlpha ? background : nil)
        case .png, nil:
            return OutputLayout(format: PixelFormat(Channels(grey: grey, alpha: input.channels.hasAlpha),
                                                    depth ?? input.depth), background: nil)
        }
    }
}
