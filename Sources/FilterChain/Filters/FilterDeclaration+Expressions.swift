/// Parameters whose numbers are expressions. An expression is a kind of parameter value: a
/// string starting with `=` where the declaration says a number stands (a number or
/// integer parameter, an integerChoice, a number inside a colour, a point or a matrix). The
/// declaration still checks everything: the literal parts when the chain is read, and the
/// values the expressions take, per image and step, with the same checks and messages as a
/// literal's (then the rules across parameters).

/// A parameter written with expressions.
public struct ComputedParameter: Sendable, Equatable {
    /// The value as written: numbers, with strings starting with `=` where expressions stand.
    public var json: JSONNode { didSet { layOut() } }
    /// Each expression, by where it stands in the value: [] for a number parameter, [i] in
    /// a colour or point, [row, column] in a matrix.
    public var expressions: [(indices: [Int], expression: NumberExpression)] { didSet { layOut() } }
    /// The value's numbers, flat (as `NumberAccess` takes them), read from `json` once:
    /// the literal ones, and NaN where an expression stands.
    private(set) var literalNumbers: [Double] = []
    /// Where each expression's number goes in `literalNumbers`, in the order of `expressions`.
    private(set) var positions: [Int] = []

    public init(json: JSONNode, expressions: [(indices: [Int], expression: NumberExpression)]) {
        self.json = json
        self.expressions = expressions
        layOut()
    }

    private mutating func layOut() {
        var flat: [Double] = []
        var position: [[Int]: Int] = [:]
        func walk(_ node: JSONNode, _ indices: [Int]) {
            switch node.value {
            case .number(let v): flat.append(v)
            case .string: position[indices] = flat.count; flat.append(.nan)
            case .array(let items): for (i, item) in items.enumerated() { walk(item, indices + [i]) }
            default: break
            }
        }
        walk(json, [])
        literalNumbers = flat
        positions = expressions.map { position[$0.indices] ?? 0 }
    }

    /// The value's numbers with each expression's number in its place (`values` in the
    /// order of `expressions`).
    func numbers(_ values: [Double]) -> [Double] {
        var flat = literalNumbers
        for (position, value) in zip(positions, values) { flat[position] = value }
        return flat
    }

    public static func == (a: ComputedParameter, b: ComputedParameter) -> Bool {
        // The values, not where they were written.
        JSONWriter.compact(a.json) == JSONWriter.compact(b.json) && a.expressions.count == b.expressions.count
            && zip(a.expressions, b.expressions).allSatisfy { $0.indices == $1.indices && $0.expression == $1.expression }
    }

    /// The value with each expression replaced by its number (`values` in the order of
    /// `expressions`).
    func substituted(_ values: [Double]) -> JSONNode {
        var node = json
        for (slot, value) in zip(expressions, values) {
            node = node.replacing(at: slot.indices, with: JSONNode(.number(value), line: node.line, column: node.column))
        }
        return node
    }
}

/// A parameter's value: a literal, or one with expressions.
public enum ParameterValue: Sendable, Equatable {
    case literal(JSONNode)
    case computed(ComputedParameter)
}

/// "[1][2]" for indices [1, 2].
func indexPath(_ indices: [Int]) -> String { indices.map { "[\($0)]" }.joined() }

extension ParameterKind {
    /// How deep in the value an expression may stand: 0 the value itself (a number), 1 the
    /// elements of an array (a colour, a point), 2 the numbers of the rows (a matrix); nil
    /// when the kind takes no expressions.
    var expressionDepth: Int? {
        switch self {
        case .number, .integer, .integerChoice: 0
        case .color, .point: 1
        case .matrix: 2
        case .choice, .boolean, .points, .file, .reference, .placement: nil
        }
    }

    /// True when an expression's value is rounded (half away from zero) for this kind.
    public var takesWholeNumbers: Bool {
        switch self {
        case .integer, .integerChoice: true
        default: false
        }
    }

    /// A value this kind allows, standing for an expression while the literal rest of the
    /// value is checked.
    var standIn: Double {
        switch self {
        case .number(let r), .color(let r, _), .point(let r), .matrix(_, _, let r): r.upperBound
        case .integer(let r): Double(r.upperBound)
        case .integerChoice(let options): Double(options.first ?? 0)
        default: 0
        }
    }

    /// The range of the numbers, as a closed range of Double, for kinds that have one.
    var numberRange: ClosedRange<Double>? {
        switch self {
        case .number(let r), .color(let r, _), .point(let r), .matrix(_, _, let r): r
        case .integer(let r): Double(r.lowerBound)...Double(r.upperBound)
        default: nil
        }
    }
}

extension FilterDeclaration {
    /// The strings starting with `=` in a `parameters` object, by parameter name, each with
    /// its indices in the value and its node; in declaration order. An `=` string in a
    /// parameter whose kind takes no expressions is refused.
    public func expressionSites(_ node: JSONNode?) throws(ParameterError) -> [(name: String, sites: [(indices: [Int], node: JSONNode)])] {
        guard let node, case .object(let members) = node.value else { return [] }
        var result: [(name: String, sites: [(indices: [Int], node: JSONNode)])] = []
        for parameter in parameters {
            guard let value = members.first(where: { $0.key == parameter.name })?.value else { continue }
            var sites: [(indices: [Int], node: JSONNode)] = []
            func walk(_ node: JSONNode, _ indices: [Int], depth: Int?) throws(ParameterError) {
                switch node.value {
                case .string(let text) where NumberExpression.isExpression(text):
                    guard let depth, depth == indices.count else {
                        throw ParameterError(node: node, problem: .notAllowed(
                            "the expression \(JSONWriter.quote(text))",
                            allowed: parameter.kind.allowed + " (expressions stand only for numbers: of a number or whole-number parameter, a colour, a point or a matrix)",
                            suggestion: nil), subpath: "." + parameter.name + indexPath(indices))
                    }
                    sites.append((indices, node))
                case .array(let items):
                    for (i, item) in items.enumerated() { try walk(item, indices + [i], depth: depth) }
                case .object(let members):
                    // A placement's fields: no expressions there.
                    for (_, member) in members { try walk(member, indices, depth: nil) }
                default:
                    break
                }
            }
            try walk(value, [], depth: parameter.kind.expressionDepth)
            if !sites.isEmpty { result.append((parameter.name, sites)) }
        }
        return result
    }

    /// The filter from a `parameters` object in which the parameters `computed` hold
    /// expressions: those are checked with each expression replaced by a value their kind
    /// allows (so their literal numbers, types and shapes are checked), and keep their
    /// defaults in the filter; the rules across parameters wait for the values.
    public func decode(_ node: JSONNode?, context: ParameterContext = ParameterContext(),
                       computed: [String: ComputedParameter]) throws(ParameterError) -> F {
        guard !computed.isEmpty else { return try decode(node, context: context) }
        var filter = F()
        var given: Set<String> = []
        if let node {
            guard case .object(let members) = node.value else {
                throw ParameterError(node: node, problem: .wrongType(expected: "an object", found: node.typeName))
            }
            for (key, value) in members {
                if let parameter = computed[key], let declared = parameters.first(where: { $0.name == key }) {
                    var scratch = filter
                    let standIn = parameter.substituted(parameter.expressions.map { _ in declared.kind.standIn })
                    try set(key, standIn, in: &scratch, keyNode: node, context: context)
                } else {
                    try set(key, value, in: &filter, keyNode: node, context: context)
                }
                given.insert(key)
            }
        }
        if let missing = parameters.first(where: { $0.required && !given.contains($0.name) }) {
            throw ParameterError(node: node ?? JSONNode(.object([])), problem: .missingKey(missing.name))
        }
        return filter
    }

    /// `filter` with each computed parameter set to `values[name]` (the numbers of its
    /// expressions, in order; whole-number kinds rounded half away from zero), each checked
    /// as a chain file's value, then the rules across parameters. A value refused where an
    /// expression stands is reported there as `.expressionValue`.
    func resolving(_ filter: F, _ computed: [String: ComputedParameter], values: [String: [Double]],
                   sizes: [String: ImageSize?] = [:]) throws(ParameterError) -> F {
        var filter = filter
        for parameter in parameters {
            guard let c = computed[parameter.name], let raw = values[parameter.name] else { continue }
            let whole = parameter.kind.takesWholeNumbers
            let numbers = raw.map { whole ? $0.rounded(.toNearestOrAwayFromZero) : $0 }
            do throws(ParameterError) {
                try setComputed(parameter, c, numbers, in: &filter)
            } catch var error {
                if let k = c.expressions.firstIndex(where: { "." + parameter.name + indexPath($0.indices) == error.subpath }) {
                    let slot = c.expressions[k]
                    let allowed = parameter.kind.numberRange.map {
                        (whole ? "a whole number" : "a number") + " in \(JSONWriter.number($0.lowerBound))...\(JSONWriter.number($0.upperBound))"
                    } ?? parameter.kind.allowed
                    error.problem = .expressionValue(slot.expression.text, value: numbers[k],
                                                     unrounded: numbers[k] != raw[k] ? raw[k] : nil, allowed: allowed,
                                                     size: slot.expression.readsSize ? (sizes[parameter.name] ?? nil) : nil)
                }
                throw error
            }
        }
        try checkCombination(filter)
        return filter
    }

    /// Sets a computed parameter from its expressions' numbers without JSON: the value's
    /// literal numbers with each expression's in its place, checked as a chain file's value
    /// is; a refusal names the parameter (`.color[1]`) and the value's place in the file.
    func setComputed(_ parameter: Parameter<F>, _ c: ComputedParameter, _ numbers: [Double],
                     in filter: inout F) throws(ParameterError) {
        // Every kind that takes expressions is made of numbers (a test checks each declaration).
        guard let access = parameter.numbers else { preconditionFailure("\(type).\(parameter.name) takes expressions but has no numbers") }
        do throws(ParameterError) {
            try access.set(&filter, c.numbers(numbers))
        } catch var error {
            error.subpath = "." + parameter.name + error.subpath
            error.node = JSONNode(error.node.value, line: c.json.line, column: c.json.column)
            throw error
        }
    }

    /// The parameters as written: literal values from the filter, computed ones as given.
    func encode(_ filter: F, computed: [String: ComputedParameter]) -> JSONNode {
        guard !computed.isEmpty else { return encode(filter) }
        return JSONNode(.object(parameters.compactMap { p in
            if let c = computed[p.name] { return (p.name, c.json) }
            return p.get(filter).map { (p.name, $0) }
        }))
    }
}

extension Filter {
    /// The filter with its computed parameters set from their values (see
    /// `FilterDeclaration.resolving`).
    func resolving(_ computed: [String: ComputedParameter], values: [String: [Double]],
                   size: ImageSize?) throws(ParameterError) -> Self {
        try Self.declaration.resolving(self, computed, values: values, sizes: computed.mapValues { _ in size })
    }

    /// The parameters as written, expressions included.
    func parametersJSON(computed: [String: ComputedParameter]) -> JSONNode {
        Self.declaration.encode(self, computed: computed)
    }

    /// Checks each parameter's value as a chain file's, but not the rules across them (some
    /// parameters are computed and hold their defaults until their values are known).
    func validateValues() throws(ParameterError) {
        try Self.declaration.checkRequired(self)
        try Self.declaration.checkValues(self)
    }

    /// The parameter sites holding expressions in `node` (a `parameters` object).
    static func expressionSites(_ node: JSONNode?) throws(ParameterError) -> [(name: String, sites: [(indices: [Int], node: JSONNode)])] {
        try declaration.expressionSites(node)
    }

    /// The filter from `node`, `computed` naming parameters that hold expressions.
    static func decode(_ node: JSONNode?, context: ParameterContext, computed: [String: ComputedParameter]) throws(ParameterError) -> any Filter {
        try declaration.decode(node, context: context, computed: computed)
    }

    /// The kind of parameter `name`, if the filter has it.
    static func kind(of name: String) -> ParameterKind? {
        declaration.parameters.first { $0.name == name }?.kind
    }
}

extension JSONNode {
    /// The node with the element at `indices` (array positions, outermost first) replaced.
    func replacing(at indices: [Int], with replacement: JSONNode) -> JSONNode {
        guard let first = indices.first else { return replacement }
        guard case .array(var items) = value, items.indices.contains(first) else { return self }
        items[first] = items[first].replacing(at: Array(indices.dropFirst()), with: replacement)
        return JSONNode(.array(items), line: line, column: column)
    }
}
