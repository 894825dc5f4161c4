/// Evaluating a chain's numbers: its variables (in order, each over the ones above it), then
/// every parameter expression, once per image and step, with `width` and `height` the step's
/// input size. That size is known before the plan is made: the source's size, carried
/// through the steps above by the geometry steps' layouts (a disabled step passes its
/// input's size on; a step reading another node, `input`, takes that node's size).

/// What a chain's expressions took for one image.
public struct ChainValues: Sendable, Equatable {
    public struct Named: Sendable, Equatable {
        public var name: String
        public var value: Double
    }

    /// The value a parameter's expression took at a step.
    public struct Computed: Sendable, Equatable {
        /// The step's index (0-based).
        public var step: Int
        /// The chain-file path of the number: `filters[1].parameters.sigma`, `...color[2]`.
        public var path: String
        public var expression: String
        /// The value the parameter took (rounded for a whole-number parameter).
        public var value: Double
    }

    public var variables: [Named] = []
    public var parameters: [Computed] = []

    public init(variables: [Named] = [], parameters: [Computed] = []) {
        self.variables = variables
        self.parameters = parameters
    }

    /// `{"variables": {"strength": 0.5}, "parameters": {"filters[1].parameters.sigma": 8}}`.
    public var jsonNode: JSONNode {
        JSONNode(.object([
            ("variables", JSONNode(.object(variables.map { ($0.name, JSONNode(.number($0.value))) }))),
            ("parameters", JSONNode(.object(parameters.map { ($0.path, JSONNode(.number($0.value))) }))),
        ]))
    }
}

extension Chain {
    /// The variables' values, in order (an expression's over the variables above it), each
    /// checked against its range.
    public func variableValues(file: String? = nil) throws(ChainError) -> [ChainValues.Named] {
        let run = evaluate(sourceSize: nil, file: file, stopAtFirst: true, stepsToo: false)
        if let error = run.errors.first { throw error }
        return run.values.variables
    }

    /// The chain with variables set to `values` (`--set NAME=VALUE`): each name must be
    /// declared and each value within its variable's range. A variable set so keeps the
    /// number, even if it was an expression.
    public func settingVariables(_ values: [(name: String, value: Double)], file: String? = nil) throws(ChainError) -> Chain {
        var copy = self
        let file = file ?? self.file ?? "chain"
        for (name, value) in values {
            guard let k = variables.firstIndex(where: { $0.name == name }) else {
                let names = variables.map(\.name)
                throw ChainError(file: file, problem: .unknownVariable(name, suggestion: closestMatch(name, in: names), declared: names))
            }
            guard variables[k].allows(value) else {
                throw ChainError(file: file, path: "variables[\(k)].value", problem: .notAllowed(
                    "\(name) = \(JSONWriter.number(value))", allowed: variables[k].allowed, suggestion: nil))
            }
            copy.variables[k].value = .number(value)
        }
        return copy
    }

    /// The chain with variables set by name (see the other `settingVariables`), in name order.
    public func settingVariables(_ values: [String: Double], file: String? = nil) throws(ChainError) -> Chain {
        guard !values.isEmpty else { return self }
        return try settingVariables(values.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }, file: file)
    }

    /// Evaluates what does not depend on an image: the variables, and every step whose
    /// expressions read no size (their values checked as the parameters' own, then the rules
    /// across the step's parameters). Chain files are checked so when read.
    public func checkExpressions(file: String? = nil) throws(ChainError) {
        let run = evaluate(sourceSize: nil, file: file, stopAtFirst: true, stepsToo: true)
        if let error = run.errors.first { throw error }
    }

    /// The chain as it runs on a source image of `sourceSize`: every expression replaced by
    /// its value (each step's `width` and `height` its input's size), checked as a literal
    /// would be; and the values taken. The first problem is thrown. A step below one that
    /// cannot apply (a crop reaching outside) keeps its defaults for expressions that read a
    /// size: the render reports the step that cannot apply.
    public func resolved(sourceSize: ImageSize, file: String? = nil) throws(ChainError) -> (chain: ResolvedChain, values: ChainValues) {
        guard usesExpressions else { return (ResolvedChain(self), ChainValues()) }
        let run = evaluate(sourceSize: sourceSize, file: file, stopAtFirst: true, stepsToo: true)
        if let error = run.errors.first { throw error }
        return (ResolvedChain(run.chain), run.values)
    }

    /// Every problem of the chain's expressions for a source of `sourceSize` (nil: only what
    /// is known without an image), in order: what `validate --size` reports.
    public func expressionErrors(sourceSize: ImageSize?, file: String? = nil) -> [ChainError] {
        evaluate(sourceSize: sourceSize, file: file, stopAtFirst: false, stepsToo: true).errors
    }

    /// Where the variable called `name` is read: "variables[2] (gain)", "step 3 (glow) in
    /// parameters.sigma".
    public func readers(ofVariable name: String) -> [String] {
        var result: [String] = []
        for (k, variable) in variables.enumerated() {
            if case .expression(let e) = variable.value, e.names.contains(name) { result.append("variables[\(k)] (\(variable.name))") }
        }
        for (i, step) in steps.enumerated() {
            for (parameter, c) in step.computed.sorted(by: { $0.key < $1.key })
            where c.expressions.contains(where: { $0.expression.names.contains(name) }) {
                result.append("\(stepTitle(i)) in parameters.\(parameter)")
            }
        }
        return result
    }

    private struct Run {
        var chain: Chain
        var values = ChainValues()
        var errors: [ChainError] = []
    }

    private func evaluate(sourceSize: ImageSize?, file: String?, stopAtFirst: Bool, stepsToo: Bool) -> Run {
        let file = file ?? self.file ?? "chain"
        var run = Run(chain: self)
        var scope: [String: Double] = ["frame": Double(frame.frame), "frames": Double(frame.frames), "time": frame.time]
        // Without an image (a chain file's check when read), what reads the animation frame
        // waits for it, as what reads a size does: those names, and the variables made of them.
        var waiting: Set<String> = sourceSize == nil ? Set(NumberExpression.frameNames) : []
        for (k, variable) in variables.enumerated() {
            let path = "variables[\(k)].value"
            if case .expression(let e) = variable.value, !e.names.isDisjoint(with: waiting) {
                waiting.insert(variable.name)
                continue
            }
            let value: Double
            switch variable.value {
            case .number(let v):
                value = v
                guard variable.allows(v) else {
                    run.errors.append(ChainError(file: file, path: path, problem: .notAllowed(
                        JSONWriter.number(v), allowed: variable.allowed, suggestion: nil)))
                    return run
                }
            case .expression(let e):
                do throws(ExpressionError) { value = try e.evaluate(scope) } catch {
                    run.errors.append(ChainError(file: file, path: path, line: e.fileLine, column: e.column(at: error.offset),
                                                 problem: .expression(e.text, error)))
                    return run
                }
                guard variable.allows(value) else {
                    run.errors.append(ChainError(file: file, path: path, line: e.fileLine, column: e.column(at: 0), problem: .expressionValue(
                        e.text, value: value, unrounded: nil, allowed: variable.allowed, size: nil)))
                    return run
                }
            }
            scope[variable.name] = value
            run.values.variables.append(.init(name: variable.name, value: value))
        }
        guard stepsToo else { return run }

        // The size of each node's image, where known.
        var sizes: [GraphNode: ImageSize] = [:]
        if let sourceSize {
            sizes[.source] = sourceSize
            scope["sourceWidth"] = Double(sourceSize.width)
            scope["sourceHeight"] = Double(sourceSize.height)
        }
        for (i, image) in images.enumerated() {
            if let raster = image.image { sizes[.image(i)] = ImageSize(width: raster.width, height: raster.height) }
        }
        for (i, step) in steps.enumerated() {
            let inputSize = sizes[inputNode(ofStep: i)]
            var known = step.computed.isEmpty
            if !known {
                let readsSize = step.computed.values.contains {
                    $0.expressions.contains { $0.expression.readsSize || !$0.expression.names.isDisjoint(with: waiting) }
                }
                if !readsSize || (inputSize != nil && sourceSize != nil) {
                    var local = scope
                    if let inputSize {
                        local["width"] = Double(inputSize.width)
                        local["height"] = Double(inputSize.height)
                    }
                    if let filter = resolveStep(i, scope: local, inputSize: inputSize, file: file, into: &run) {
                        run.chain.steps[i].filter = filter
                        run.chain.steps[i].computed = [:]
                        known = true
                    } else if stopAtFirst {
                        return run
                    }
                }
            }
            let filter = run.chain.steps[i].filter
            if !step.enabled {
                sizes[.step(i)] = inputSize
            } else if filter.isGeometry {
                if known, let inputSize, case .geometry(let kernel) = filter.operation(in: workingSpace),
                   let layout = try? kernel.layout(for: inputSize) {
                    sizes[.step(i)] = layout.outputSize(from: inputSize)
                }
            } else {
                sizes[.step(i)] = inputSize
            }
        }
        return run
    }

    /// The filter of step `index` with its expressions evaluated in `scope`, or nil with the
    /// problems recorded.
    private func resolveStep(_ index: Int, scope: [String: Double], inputSize: ImageSize?, file: String,
                             into run: inout Run) -> (any Filter)? {
        let step = steps[index]
        let base = "filters[\(index)].parameters"
        var values: [String: [Double]] = [:]
        var taken: [ChainValues.Computed] = []
        var failed = false
        let declared = type(of: step.filter).info.parameters.map(\.name)
        let kinds = declared.filter { step.computed[$0] != nil }.map { (name: $0, kind: type(of: step.filter).kind(of: $0)) }
        for (name, kind) in kinds {
            let c = step.computed[name]!
            for slot in c.expressions {
                let e = slot.expression
                do throws(ExpressionError) {
                    let v = try e.evaluate(scope)
                    values[name, default: []].append(v)
                    let whole = kind?.takesWholeNumbers == true
                    taken.append(.init(step: index, path: base + "." + name + indexPath(slot.indices), expression: e.text,
                                       value: whole ? v.rounded(.toNearestOrAwayFromZero) : v))
                } catch {
                    run.errors.append(ChainError(file: file, path: base + "." + name + indexPath(slot.indices), line: e.fileLine,
                                                 column: e.column(at: error.offset), problem: .expression(e.text, error)))
                    failed = true
                }
            }
        }
        guard !failed else { return nil }
        do throws(ParameterError) {
            let filter = try step.filter.resolving(step.computed, values: values, size: inputSize)
            run.values.parameters.append(contentsOf: taken)
            return filter
        } catch {
            var line = error.line, column = error.column
            if case .expressionValue = error.problem {
                for (name, c) in step.computed {
                    for slot in c.expressions where "." + name + indexPath(slot.indices) == error.subpath {
                        line = slot.expression.fileLine
                        column = slot.expression.column(at: 0)
                    }
                }
            }
            run.errors.append(ChainError(file: file, path: base + error.subpath, line: line, column: column, problem: error.problem))
            return nil
        }
    }
}

extension NumberExpression {
    /// The line it was written at in a chain file; nil when made in code.
    var fileLine: Int? { line > 0 ? line : nil }
}
