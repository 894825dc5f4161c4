/// How `Plan.init` builds a plan, in passes over the graph of declared ports (each filter's
/// input, its declared layers, a mask's image):
///
/// 1. **prune**: the nodes the outputs need, and which images other stages read (those end
///    their stage);
/// 2. **lower**: the sources (the decoder, the chain's images), then each needed step by its
///    operation, into stages and row operations;
/// 3. **fuse**: consecutive point kernels of a stage into one run;
/// 4. **size**: each stage's ring (`Schedule.inferCapacities`).
///
/// No pass names a filter: a step is what its declaration says it does (`operation(in:)`,
/// `layerReferences`, `changesAlpha`).
extension Plan {
    /// Pass 1: the nodes the outputs at `tapNodes` need (disabled steps pass their input
    /// through), and those read by more than one step, by a mask or as a layer: their stage
    /// closes, and the steps reading them start stages of their own.
    static func prune(_ chain: ResolvedChain, tapNodes: [GraphNode]) -> (needed: Set<GraphNode>, shared: Set<GraphNode>) {
        let steps = chain.steps
        func sideNodes(_ i: Int) -> [GraphNode] {
            chain.sideReferences(ofStep: i).compactMap { chain.resolve($0, from: i) }.map(chain.effective)
        }
        var needed = Set(tapNodes)
        for i in steps.indices.reversed() where steps[i].enabled && needed.contains(.step(i)) {
            needed.insert(chain.effective(chain.inputNode(ofStep: i)))
            for n in sideNodes(i) { needed.insert(n) }
        }
        var reads: [GraphNode: Int] = [:]
        var shared = Set<GraphNode>()
        for i in steps.indices where steps[i].enabled && needed.contains(.step(i)) {
            let input = chain.effective(chain.inputNode(ofStep: i))
            reads[input, default: 0] += 1
            if steps[i].mask != nil { shared.insert(input) }
            for n in sideNodes(i) { shared.insert(n) }
        }
        for (node, count) in reads where count > 1 { shared.insert(node) }
        return (needed, shared)
    }

    /// Pass 3: consecutive point kernels of a stage run together on each chunk of pixels
    /// (within a row when one of them needs positions).
    static func fusePointRuns(_ stages: inout [Stage]) {
        for j in stages.indices {
            var fused: [RowOp] = []
            for op in stages[j].ops {
                if case .points(let new, _) = op, case .points(let old, _)? = fused.last {
                    let kernels = old + new
                    fused[fused.count - 1] = .points(kernels, positional: kernels.contains {
                        if case .positional = $0 { true } else { false }
                    })
                } else {
                    fused.append(op)
                }
            }
            stages[j].ops = fused
        }
    }
}

/// Pass 2: lowers the graph into stages, one node at a time. An image of the graph is a
/// `Plan.Value` (where its rows are, its size, whether alpha may differ from 1).
struct PlanBuilder {
    let chain: ResolvedChain
    /// Rows per strip of the stages at the input's scale.
    let strip: Int
    let tapNodes: [GraphNode]
    let shared: Set<GraphNode>
    private(set) var stages: [Plan.Stage] = []
    private(set) var values: [GraphNode: Plan.Value] = [:]
    private(set) var tapStages: [Int]
    private(set) var tapAlpha: [Bool]

    init(chain: ResolvedChain, strip: Int, tapNodes: [GraphNode], shared: Set<GraphNode>) {
        self.chain = chain
        self.strip = strip
        self.tapNodes = tapNodes
        self.shared = shared
        tapStages = [Int](repeating: 0, count: tapNodes.count)
        tapAlpha = [Bool](repeating: false, count: tapNodes.count)
    }

    // MARK: Stages and their operations

    mutating func append(_ op: Plan.RowOp, to j: Int) {
        if case .tap = op {} else { precondition(!stages[j].isClosed, "a closed stage is read as it stands") }
        stages[j].ops.append(op)
    }

    mutating func point(_ kernel: any PointKernel, to j: Int) { append(.points([.point(kernel)], positional: false), to: j) }

    /// Records `node`'s image, adds its taps and, when other stages read it, closes its stage.
    mutating func produce(_ node: GraphNode, _ value: Plan.Value) {
        values[node] = value
        for i in tapNodes.indices where tapNodes[i] == node {
            append(.tap(i), to: value.stage)
            tapStages[i] = value.stage
            tapAlpha[i] = value.alpha
        }
        if shared.contains(node) { stages[value.stage].isClosed = true }
    }

    /// A new stage reading `value`'s rows.
    mutating func stage(_ source: Plan.Source, from value: Plan.Value, size: ImageSize, strip: Int, label: String) -> Int {
        stages.append(Plan.Stage(source: source, input: value.stage, size: size, stripHeight: strip,
                                 planes: value.alpha ? 4 : 3, label: label))
        return stages.count - 1
    }

    /// The stage where a step working in place on `value` adds its operations: the value's
    /// own, or a copy of its rows when others read them.
    mutating func workingStage(on value: Plan.Value, label: String) -> Int {
        if !stages[value.stage].isClosed { return value.stage }
        let whole = PixelRect(x: 0, y: 0, width: value.size.width, height: value.size.height)
        return stage(.geometry(.crop(whole)), from: value, size: value.size, strip: strip, label: label)
    }

    /// The image of `node` (after disabled steps).
    func value(of node: GraphNode) -> Plan.Value { values[chain.effective(node)]! }

    // MARK: Sources

    /// The decoded image and the chain's images the outputs need.
    mutating func addSources(size: ImageSize, logicalSize: ImageSize?, hasAlpha: Bool,
                             images: [(size: ImageSize, alpha: Bool)], needed: Set<GraphNode>) {
        stages.append(Plan.Stage(source: .decoder, size: size, stripHeight: strip, planes: hasAlpha ? 4 : 3))
        produce(.source, Plan.Value(stage: 0, size: size, logical: logicalSize ?? size, alpha: hasAlpha))
        for (i, image) in images.enumerated() where needed.contains(.image(i)) {
            stages.append(Plan.Stage(source: .image(i), size: image.size, stripHeight: strip, planes: image.alpha ? 4 : 3,
                                     label: "image \(chain.images[i].label)"))
            produce(.image(i), Plan.Value(stage: stages.count - 1, size: image.size, logical: image.size, alpha: image.alpha))
        }
    }

    // MARK: Steps

    /// Step `index`: its operation lowered onto its input's rows, alpha from then on if it
    /// writes alpha, and its mask.
    mutating func lower(step index: Int) throws(Plan.StepFailure) {
        let step = chain.steps[index]
        let name = "step \(index + 1) (\(step.label))"
        let input = value(of: chain.inputNode(ofStep: index))
        var result = try lower(step.filter.operation(in: chain.workingSpace), index: index, input: input, name: name,
                               hasMask: step.mask != nil)
        if step.filter.changesAlpha && !result.alpha {
            // From here on alpha varies; this stage's source may still make 3 planes.
            result.alpha = true
            if stages[result.stage].planes == 3 { stages[result.stage].fillsAlpha = true }
        }
        if let mask = step.mask {
            var layer: Plan.Side?
            if case .image(let source, _, let placement) = mask.shape {
                layer = placed(value(of: chain.resolve(source, from: index) ?? .source), placement, canvas: result.size,
                               label: "the mask of \(name)")
            }
            append(.mask(MaskKernel(mask, weights: chain.workingSpace.lumaWeights), input: input.stage, layer: layer),
                   to: result.stage)
        }
        produce(.step(index), result)
    }

    /// An operation on `input`: the value it leaves (its stage, size and alpha).
    private mutating func lower(_ operation: FilterOperation, index: Int, input: Plan.Value, name: String,
                                hasMask: Bool) throws(Plan.StepFailure) -> Plan.Value {
        var result = input
        switch operation {
        case .identity:
            result.stage = hasMask ? workingStage(on: input, label: name) : input.stage
        case .point(let kernel):
            result.stage = workingStage(on: input, label: name)
            point(kernel, to: result.stage)
        case .positional(let kernel):
            result.stage = workingStage(on: input, label: name)
            append(.points([.positional(kernel)], positional: true), to: result.stage)
        case .separable(let kernel):
            result.stage = separable(kernel, on: input, combination: nil, name: name)
        case .combine(let kernel, let combination):
            result.stage = separable(kernel, on: input, combination: combination, name: name)
        case .blend(let layer, let placement, let kernel):
            let side = placed(value(of: chain.resolve(layer, from: index) ?? .source), placement, canvas: input.size,
                              label: "the layer of \(name)")
            result.stage = workingStage(on: input, label: name)
            append(.blend(kernel, layer: side), to: result.stage)
        case .geometry(let kernel):
            result = try geometry(kernel, on: input, index: index, name: name)
        }
        return result
    }

    /// A separable neighbourhood: the horizontal pass on the input's rows (premultiplied when
    /// alpha varies; the input saved first for a `combination`), the vertical pass as a new
    /// stage. Returns that stage.
    private mutating func separable(_ kernel: any SeparableKernel, on input: Plan.Value, combination: (any CombineKernel)?,
                                    name: String) -> Int {
        let planes = input.alpha ? 4 : 3
        let h = workingStage(on: input, label: name)
        if input.alpha { point(Premultiply(), to: h) }
        if combination != nil { append(.saveInput(planes: planes), to: h) }
        append(.horizontal(kernel.makeHorizontalPass(width: input.size.width), planes: planes), to: h)
        stages[h].isClosed = true
        let j = stage(Plan.vertical(kernel, size: input.size, planes: planes),
                      from: Plan.Value(stage: h, size: input.size, logical: input.logical, alpha: input.alpha),
                      size: input.size, strip: strip, label: "the vertical pass of \(name)")
        if let combination { append(.combine(combination), to: j) }
        if input.alpha { point(Unpremultiply(), to: j) }
        return j
    }

    /// A geometry step: its layout for the input's logical size, then a resample, crop or
    /// turn as a new stage (nothing where it leaves the image as it is).
    private mutating func geometry(_ kernel: any GeometryKernel, on input: Plan.Value, index: Int,
                                   name: String) throws(Plan.StepFailure) -> Plan.Value {
        let layout: GeometryLayout
        do throws(GeometryError) { layout = try kernel.layout(for: input.logical) } catch {
            throw Plan.StepFailure(position: index + 1, error: error)
        }
        let size = input.size
        let output = layout.outputSize(from: input.logical)
        let whole = PixelRect(x: 0, y: 0, width: size.width, height: size.height)
        var j = input.stage
        switch layout {
        case .crop(let rect) where rect == whole:
            break
        case .resample(let to, let window) where to == size && window == whole:
            break
        case .turn(.up):
            break
        case .resample(let to, let window):
            var from = input
            if input.alpha {
                from.stage = workingStage(on: input, label: name)
                point(Premultiply(), to: from.stage)
            }
            stages[from.stage].isClosed = true
            // Strips of about as many input rows as the input stage's.
            let rows = max(1, min(strip, Int((Double(strip) * Double(output.height) / Double(size.height)).rounded())))
            j = stage(.geometry(.resample(Resample(input: size, output: to, window: window))), from: from,
                      size: output, strip: rows, label: name)
            if input.alpha { point(Unpremultiply(clampsAlpha: true), to: j) }
        case .crop(let rect):
            stages[input.stage].isClosed = true
            j = stage(.geometry(.crop(rect)), from: input, size: output, strip: strip, label: name)
        case .turn(let orientation):
            stages[input.stage].isClosed = true
            j = stage(.geometry(.turn(orientation, input: size)), from: input, size: output, strip: strip, label: name)
        }
        return Plan.Value(stage: j, size: output, logical: output, alpha: input.alpha)
    }

    /// A layer's image at `canvas`'s size as `placement` fits it (resampled, premultiplied
    /// when alpha varies), and where it lies.
    mutating func placed(_ value: Plan.Value, _ placement: Placement, canvas: ImageSize, label: String) -> Plan.Side {
        var value = value
        if let resize = placement.resize(canvas: canvas), case .resample(let to, let window)? = try? resize.layout(for: value.size),
           !(to == value.size && window.size == value.size) {
            var j = value.stage
            if value.alpha {
                j = workingStage(on: value, label: label)
                point(Premultiply(), to: j)
                stages[j].isClosed = true
            }
            let r = stage(.geometry(.resample(Resample(input: value.size, output: to, window: window))),
                          from: Plan.Value(stage: j, size: value.size, logical: value.size, alpha: value.alpha),
                          size: window.size, strip: strip, label: label)
            if value.alpha { point(Unpremultiply(clampsAlpha: true), to: r) }
            stages[r].isClosed = true
            value = Plan.Value(stage: r, size: window.size, logical: window.size, alpha: value.alpha)
        }
        let origin = placement.origin(value.size, canvas: canvas)
        return Plan.Side(stage: value.stage, x: origin.x, y: origin.y)
    }
}
