/// Everything said about a filter type, once: its name in chain files, a one-line summary,
/// the documentation with its formula, and its parameters. JSON decoding and encoding,
/// validation messages, `filterchain filters` and filters.md all read it.
public struct FilterDeclaration<F: Filter>: Sendable {
    public let type: String
    public let summary: String
    /// Markdown: the exact semantics, formula first.
    public let documentation: String
    public let parameters: [Parameter<F>]

    public init(type: String, summary: String, documentation: String, parameters: [Parameter<F>]) {
        self.type = type
        self.summary = summary
        self.documentation = documentation
        self.parameters = parameters
    }

    /// The filter from a chain file's `parameters` object (nil: every parameter at its default).
    public func decode(_ node: JSONNode?) throws(ParameterError) -> F {
        var filter = F()
        guard let node else { return filter }
        guard case .object(let members) = node.value else {
            throw ParameterError(node: node, problem: .wrongType(expected: "an object", found: node.typeName))
        }
        for (key, value) in members {
            try set(key, value, in: &filter, keyNode: node)
        }
        return filter
    }

    /// Sets one parameter from JSON, validating it.
    public func set(_ name: String, _ value: JSONNode, in filter: inout F, keyNode: JSONNode? = nil) throws(ParameterError) {
        guard let parameter = parameters.first(where: { $0.name == name }) else {
            let names = parameters.map(\.name)
            throw ParameterError(node: keyNode ?? value, problem: .unknownParameter(
                name, filter: type, suggestion: closestMatch(name, in: names), allowed: names), subpath: "." + name)
        }
        do throws(ParameterError) {
            try parameter.set(&filter, value)
        } catch var error {
            error.subpath = "." + name + error.subpath
            throw error
        }
    }

    /// The parameters as a JSON object, in declaration order; unset optional ones left out.
    public func encode(_ filter: F) -> JSONNode {
        JSONNode(.object(parameters.compactMap { p in p.get(filter).map { (p.name, $0) } }))
    }

    public var info: FilterInfo {
        FilterInfo(type: type, summary: summary, documentation: documentation,
                   parameters: parameters.map(\.info))
    }
}

/// A filter type as listings and documentation see it.
public struct FilterInfo: Sendable {
    public let type: String
    public let summary: String
    public let documentation: String
    public let parameters: [ParameterInfo]
}

/// How a parameter is written in a chain file.
public enum ParameterKind: Sendable, Equatable {
    /// A number in a closed range.
    case number(ClosedRange<Double>)
    /// One of some strings.
    case choice([String])
    /// A list of [x, y] points, x strictly increasing, all in 0...1.
    case points(count: ClosedRange<Int>, optional: Bool)

    /// What is allowed, as messages and listings say it.
    public var allowed: String {
        switch self {
        case .number(let r): "a number in \(JSONWriter.number(r.lowerBound))...\(JSONWriter.number(r.upperBound))"
        case .choice(let options): "one of " + options.map { "\"\($0)\"" }.joined(separator: ", ")
        case .points(let count, let optional):
            "\(count.lowerBound) to \(count.upperBound) points [x, y], x strictly increasing, all in 0...1"
                + (optional ? ", or left out" : "")
        }
    }
}

/// What a parameter's numbers measure, when a caller that rescales the image must know.
public enum ParameterUnit: String, Sendable, Equatable {
    /// Lengths in pixels of the image the step sees (a blur's sigma, a crop rectangle, a
    /// size): a preview at scale s multiplies every number of the value by s.
    case pixels
}

public struct ParameterInfo: Sendable {
    public let name: String
    public let help: String
    public let kind: ParameterKind
    /// The default as JSON; nil when the parameter is optional and absent by default.
    public let defaultValue: JSONNode?
    /// nil: the value does not depend on the image's scale.
    public var unit: ParameterUnit? = nil
}

/// A parameter: its name, what it takes, one line of help, and how to read and write it in
/// the filter's struct. The default is the struct's own initial value.
public struct Parameter<F: Filter>: Sendable {
    public let name: String
    public let help: String
    public let kind: ParameterKind
    /// nil: the value does not depend on the image's scale.
    public private(set) var unit: ParameterUnit? = nil
    let get: @Sendable (F) -> JSONNode?
    let set: @Sendable (inout F, JSONNode) throws(ParameterError) -> Void

    public var info: ParameterInfo {
        ParameterInfo(name: name, help: help, kind: kind, defaultValue: get(F()), unit: unit)
    }

    /// The same parameter, marked as measured in `unit` (`.number(...).in(.pixels)`).
    public func measured(in unit: ParameterUnit) -> Parameter {
        var copy = self
        copy.unit = unit
        return copy
    }

    public static func number(_ name: String, _ keyPath: WritableKeyPath<F, Double> & Sendable,
                              in range: ClosedRange<Double>, help: String) -> Parameter {
        Parameter(name: name, help: help, kind: .number(range),
                  get: { JSONNode(.number($0[keyPath: keyPath])) },
                  set: { (filter: inout F, node: JSONNode) throws(ParameterError) in
                      filter[keyPath: keyPath] = try readNumber(node, in: range)
                  })
    }

    public static func choice<E: RawRepresentable & CaseIterable & Sendable>(
        _ name: String, _ keyPath: WritableKeyPath<F, E> & Sendable, help: String
    ) -> Parameter where E.RawValue == String {
        let options = E.allCases.map(\.rawValue)
        return Parameter(name: name, help: help, kind: .choice(options),
                         get: { JSONNode(.string($0[keyPath: keyPath].rawValue)) },
                         set: { (filter: inout F, node: JSONNode) throws(ParameterError) in
                             guard case .string(let s) = node.value else {
                                 throw ParameterError(node: node, problem: .wrongType(expected: "a string", found: node.typeName))
                             }
                             guard let value = E(rawValue: s) else {
                                 throw ParameterError(node: node, problem: .notAllowed(
                                     "\"\(s)\"", allowed: ParameterKind.choice(options).allowed,
                                     suggestion: closestMatch(s, in: options)))
                             }
                             filter[keyPath: keyPath] = value
                         })
    }

    public static func points(_ name: String, _ keyPath: WritableKeyPath<F, [CurvePoint]> & Sendable,
                              count: ClosedRange<Int>, help: String) -> Parameter {
        Parameter(name: name, help: help, kind: .points(count: count, optional: false),
                  get: { CurvePoint.json($0[keyPath: keyPath]) },
                  set: { (filter: inout F, node: JSONNode) throws(ParameterError) in
                      filter[keyPath: keyPath] = try CurvePoint.read(node, count: count)
                  })
    }

    public static func optionalPoints(_ name: String, _ keyPath: WritableKeyPath<F, [CurvePoint]?> & Sendable,
                                      count: ClosedRange<Int>, help: String) -> Parameter {
        Parameter(name: name, help: help, kind: .points(count: count, optional: true),
                  get: { $0[keyPath: keyPath].map(CurvePoint.json) },
                  set: { (filter: inout F, node: JSONNode) throws(ParameterError) in
                      if case .null = node.value { filter[keyPath: keyPath] = nil; return }
                      filter[keyPath: keyPath] = try CurvePoint.read(node, count: count)
                  })
    }

}

func readNumber(_ node: JSONNode, in range: ClosedRange<Double>) throws(ParameterError) -> Double {
    guard case .number(let v) = node.value else {
        throw ParameterError(node: node, problem: .wrongType(expected: "a number", found: node.typeName))
    }
    guard v.isFinite else { throw ParameterError(node: node, problem: .notFinite) }
    guard range.contains(v) else {
        throw ParameterError(node: node, problem: .outOfRange(v, range))
    }
    return v
}

/// A point of a curve.
public struct CurvePoint: Sendable, Hashable {
    public var x: Double
    public var y: Double

    public init(_ x: Double, _ y: Double) {
        self.x = x
        self.y = y
    }

    static func json(_ points: [CurvePoint]) -> JSONNode {
        JSONNode(.array(points.map { JSONNode(.array([JSONNode(.number($0.x)), JSONNode(.number($0.y))])) }))
    }

    static func read(_ node: JSONNode, count: ClosedRange<Int>) throws(ParameterError) -> [CurvePoint] {
        guard case .array(let items) = node.value else {
            throw ParameterError(node: node, problem: .wrongType(expected: "an array of [x, y] points", found: node.typeName))
        }
        guard count.contains(items.count) else {
            throw ParameterError(node: node, problem: .notAllowed(
                "\(items.count) point\(items.count == 1 ? "" : "s")",
                allowed: "\(count.lowerBound) to \(count.upperBound) points", suggestion: nil))
        }
        var points: [CurvePoint] = []
        for (i, item) in items.enumerated() {
            guard case .array(let pair) = item.value, pair.count == 2 else {
                throw ParameterError(node: item, problem: .wrongType(expected: "a point [x, y]", found: item.excerpt), subpath: "[\(i)]")
            }
            var xy: [Double] = []
            for (j, v) in pair.enumerated() {
                do throws(ParameterError) { xy.append(try readNumber(v, in: 0...1)) } catch var error {
                    error.subpath = "[\(i)][\(j)]"
                    throw error
                }
            }
            if let last = points.last, xy[0] <= last.x {
                throw ParameterError(node: pair[0], problem: .notAllowed(
                    "x = \(JSONWriter.number(xy[0])) after x = \(JSONWriter.number(last.x))",
                    allowed: "x strictly increasing", suggestion: nil), subpath: "[\(i)][0]")
            }
            points.append(CurvePoint(xy[0], xy[1]))
        }
        return points
    }
}

/// A parameter value that was refused: where (below the parameter) and why.
public struct ParameterError: Error, Sendable {
    public var node: JSONNode
    public var problem: ChainError.Problem
    /// The path below the parameter's own, like ".points[2][0]".
    public var subpath: String = ""
}

/// The candidate closest to `word` when it is a likely misspelling of one.
func closestMatch(_ word: String, in candidates: [String]) -> String? {
    let lower = word.lowercased()
    var best: (String, Int)?
    for c in candidates {
        let d = editDistance(lower, c.lowercased())
        if best == nil || d < best!.1 { best = (c, d) }
    }
    guard let (candidate, distance) = best else { return nil }
    return distance <= max(2, candidate.count / 3) ? candidate : nil
}

/// Edit distance counting insertions, deletions, substitutions and swaps of neighbours.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var beforePrevious: [Int] = []
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                current[j] = min(current[j], beforePrevious[j - 2] + 1)
            }
        }
        beforePrevious = previous
        previous = current
    }
    return previous[b.count]
}
