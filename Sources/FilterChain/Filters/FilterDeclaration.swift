/// Everything said about a filter type, once: its name in chain files, a one-line summary,
/// the documentation with its formula, and its parameters. JSON decoding and encoding,
/// validation messages, `filterchain filters` and filters.md all read it.
public struct FilterDeclaration<F: Filter>: Sendable {
    public let type: String
    /// Where the filter belongs in catalogues: the editor's, the documentation's.
    public let group: FilterGroup
    public let summary: String
    /// Markdown: the exact semantics, formula first.
    public let documentation: String
    public let parameters: [Parameter<F>]
    /// Rules across parameters: what is wrong with a combination, and what is allowed.
    let check: (@Sendable (F) -> String?)?

    public init(type: String, group: FilterGroup, summary: String, documentation: String, parameters: [Parameter<F>],
                check: (@Sendable (F) -> String?)? = nil) {
        self.type = type
        self.group = group
        self.summary = summary
        self.documentation = documentation
        self.parameters = parameters
        self.check = check
    }

    /// Checks the rules across parameters (each value was checked when it was set).
    public func checkCombination(_ filter: F, node: JSONNode? = nil) throws(ParameterError) {
        if let problem = check?(filter) {
            throw ParameterError(node: node ?? JSONNode(.object([])), problem: .combination(type + ": " + problem))
        }
    }

    /// Each parameter's value checked by its typed rules, in declaration order; a refusal's
    /// subpath starts with the parameter (`.sigma`, `.color[1]`).
    func checkValues(_ filter: F) throws(ParameterError) {
        for parameter in parameters {
            do throws(ParameterError) { try parameter.check(filter) } catch var error {
                error.subpath = "." + parameter.name + error.subpath
                throw error
            }
        }
    }

    /// The first required parameter the filter holds no value for (a lut's file).
    func checkRequired(_ filter: F) throws(ParameterError) {
        if let missing = parameters.first(where: { $0.required && $0.isGiven?(filter) == false }) {
            throw ParameterError(node: JSONNode(.object([])), problem: .missingKey(missing.name))
        }
    }

    /// The filter from a chain file's `parameters` object (nil: every parameter at its default).
    /// `context` gives the folder that file paths (a lut's .cube) are relative to.
    public func decode(_ node: JSONNode?, context: ParameterContext = ParameterContext()) throws(ParameterError) -> F {
        var filter = F()
        var given: Set<String> = []
        if let node {
            guard case .object(let members) = node.value else {
                throw ParameterError(node: node, problem: .wrongType(expected: "an object", found: node.typeName))
            }
            for (key, value) in members {
                try set(key, value, in: &filter, keyNode: node, context: context)
                given.insert(key)
            }
        }
        if let missing = parameters.first(where: { $0.required && !given.contains($0.name) }) {
            throw ParameterError(node: node ?? JSONNode(.object([])), problem: .missingKey(missing.name))
        }
        try checkCombination(filter, node: node)
        return filter
    }

    /// Sets one parameter from JSON, validating it.
    public func set(_ name: String, _ value: JSONNode, in filter: inout F, keyNode: JSONNode? = nil,
                    context: ParameterContext = ParameterContext()) throws(ParameterError) {
        guard let parameter = parameters.first(where: { $0.name == name }) else {
            let names = parameters.map(\.name)
            throw ParameterError(node: keyNode ?? value, problem: .unknownParameter(
                name, filter: type, suggestion: closestMatch(name, in: names), allowed: names), subpath: "." + name)
        }
        do throws(ParameterError) {
            if let read = parameter.setInContext { try read(&filter, value, context) } else { try parameter.set(&filter, value) }
        } catch var error {
            error.subpath = "." + name + error.subpath
            throw error
        }
    }

    /// The other images of the chain `filter` reads: the values of its reference parameters
    /// (its declared image ports: a blend's layer), in declaration order.
    public func references(of filter: F) -> [Reference] {
        parameters.compactMap { $0.reference?(filter) }
    }

    /// The parameters as a JSON object, in declaration order; unset optional ones left out.
    public func encode(_ filter: F) -> JSONNode {
        JSONNode(.object(parameters.compactMap { p in p.get(filter).map { (p.name, $0) } }))
    }

    public var info: FilterInfo {
        FilterInfo(type: type, group: group, summary: summary, documentation: documentation,
                   parameters: parameters.map(\.info))
    }
}

/// The kinds of filter, in the order catalogues list them.
public enum FilterGroup: String, Sendable, CaseIterable {
    /// What each pixel's colour becomes from its own colour (colour controls, hue, matrices, LUTs).
    case colour
    /// Light and tone (curves, exposure, gamma, levels, vignette).
    case tone
    /// Neighbourhoods: blur and sharpening.
    case detail
    /// Size and orientation: resize, crop, rotate, flip.
    case geometry
    /// Layers of other images of the chain.
    case compositing
}

/// A filter type as listings and documentation see it.
public struct FilterInfo: Sendable {
    public let type: String
    public let group: FilterGroup
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
    /// A whole number in a closed range.
    case integer(ClosedRange<Int>)
    /// One of some whole numbers.
    case integerChoice([Int])
    /// true or false.
    case boolean
    /// A list of [x, y] points, x strictly increasing, all in 0...1.
    case points(count: ClosedRange<Int>, optional: Bool)
    /// A colour [r, g, b], each channel in the range; `positiveLuma`: its Rec. 709 luma above 0.
    case color(ClosedRange<Double>, positiveLuma: Bool)
    /// A position [x, y] in the image, each a fraction of the width or height in the range.
    case point(ClosedRange<Double>)
    /// A matrix of `rows` rows of `columns` numbers, each in the range.
    case matrix(rows: Int, columns: Int, ClosedRange<Double>)
    /// A path to a file with this extension, relative to the chain file's folder or absolute.
    case file(extension: String)
    /// Another image of the chain: "source", an image's or an earlier step's id or name.
    case reference
    /// Where a layer lies: an object { fit, gravity, offset [x, y] }.
    case placement

    /// What is allowed, as messages and listings say it.
    public var allowed: String {
        switch self {
        case .number(let r): "a number in \(JSONWriter.number(r.lowerBound))...\(JSONWriter.number(r.upperBound))"
        case .choice(let options): "one of " + options.map { "\"\($0)\"" }.joined(separator: ", ")
        case .integer(let r): "a whole number in \(r.lowerBound)...\(r.upperBound)"
        case .integerChoice(let options): "one of " + options.map(String.init).joined(separator: ", ")
        case .boolean: "true or false"
        case .points(let count, let optional):
            "\(count.lowerBound) to \(count.upperBound) points [x, y], x strictly increasing, all in 0...1"
                + (optional ? ", or left out" : "")
        case .color(let r, let positiveLuma):
            "[r, g, b], each in \(JSONWriter.number(r.lowerBound))...\(JSONWriter.number(r.upperBound))"
                + (positiveLuma ? ", luma 0.2126 r + 0.7152 g + 0.0722 b above 0" : "")
        case .point(let r):
            "[x, y], each in \(JSONWriter.number(r.lowerBound))...\(JSONWriter.number(r.upperBound))"
        case .matrix(let rows, let columns, let r):
            "\(rows) rows of \(columns) numbers, each in \(JSONWriter.number(r.lowerBound))...\(JSONWriter.number(r.upperBound))"
        case .file(let ext):
            "a path to a .\(ext) file, relative to the chain file's folder or absolute (required)"
        case .reference:
            "\"source\", or the id or name of an image of the chain or of a step above this one"
        case .placement:
            "an object { \"fit\": " + Placement.Fit.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " | ")
                + ", \"gravity\": " + Placement.Gravity.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " | ")
                + ", \"offset\": [x, y] whole pixels }, each optional"
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
    /// Used instead of `set` by parameters that need the chain file's folder (file paths).
    var setInContext: (@Sendable (inout F, JSONNode, ParameterContext) throws(ParameterError) -> Void)? = nil
    /// A chain file must give it (it has no default).
    var required = false
    /// For a reference parameter (an image port: a blend's layer), its value.
    var reference: (@Sendable (F) -> Reference)? = nil
    /// For kinds made of numbers (a number, a whole number, a colour, a point, a matrix):
    /// the value's numbers read and written as numbers, each write checked as a chain
    /// file's value is. Expressions and preview scaling go through it, not through JSON.
    var numbers: NumberAccess<F>? = nil
    /// Checks the value the filter holds, with the messages a chain file's value gets (nil
    /// for kinds whose every value is valid: choices, booleans). Without JSON.
    var checkValue: (@Sendable (F) throws(ParameterError) -> Void)? = nil
    /// For a required parameter: whether the filter holds a value (a lut has its file).
    var isGiven: (@Sendable (F) -> Bool)? = nil

    /// Checks the value the filter holds (`checkValue`, else through `numbers`).
    func check(_ filter: F) throws(ParameterError) {
        if let checkValue { return try checkValue(filter) }
        guard let numbers, let values = numbers.get(filter) else { return }
        var scratch = filter
        try numbers.set(&scratch, values)
    }

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
        var p = Parameter(name: name, help: help, kind: .number(range),
                          get: { JSONNode(.number($0[keyPath: keyPath])) },
                          set: { (filter: inout F, node: JSONNode) throws(ParameterError) in
                              filter[keyPath: keyPath] = try readNumber(node, in: range)
                          })
        p.numbers = NumberAccess(get: { [$0[keyPath: keyPath]] }, set: { (filter: inout F, v: [Double]) throws(ParameterError) in
            filter[keyPath: keyPath] = try checkNumber(v[0], in: range)
        })
        return p
    }

    public static func choice<E: RawRepresentable & CaseIterable & Sendable>(
        _ name: String, _ keyPath: WritableKeyPath<F, E> & Sendable, help: String
    ) -> Parameter where E.RawValue == String {
        let options = E.allCases.map(\.rawValue)
        return Parameter(name: name, help: help, kind: .choice(options),
                         get: { JSONNode(.string($0[keyPath: keyPath].rawValue)) },
                         set: { (filter: inout F, node: JSONNode) throws(ParameterError) in
                             filter[keyPath: keyPath] = try readChoice(node, E.self)
                         })
    }

    /// A number that may be left out (nil).
    public static func optionalNumber(_ name: String, _ keyPath: WritableKeyPath<F, Double?> & Sendable,
                                      in range: ClosedRange<Double>, help: String) -> Parameter {
        var p = Parameter(name: name, help: help, kind: .number(range),
                          get: { $0[keyPath: keyPath].map { JSONNode(.number($0)) } },
                          set: { (filter: inout F, node: JSONNode) throws(ParameterError) in
                              if case .null = node.value { filter[keyPath: keyPath] = nil; return }
                              filter[keyPath: keyPath] = try readNumber(node, in: range)
                          })
        p.numbers = NumberAccess(get: { $0[keyPath: keyPath].map { [$0] } }, set: { (filter: inout F, v: [Double]) throws(ParameterError) in
            filter[keyPath: keyPath] = try checkNumber(v[0], in: range)
        })
        return p
    }

    /// A whole number that may be left out (nil).
    public static func optionalInteger(_ name: String, _ keyPath: WritableKeyPath<F, Int?> & Sendable,
                                       in range: ClosedRange<Int>, help: String) -> Parameter {
        var p = Parameter(name: name, help: help, kind: .integer(range),
                          get: { $0[keyPath: keyPath].map { JSONNode(.number(Double($0))) } },
                          set: { (filter: inout F, node: JSONNode) throws(ParameterError) in
                              if case .null = node.value { filter[keyPath: keyPath] = nil; return }
                              filter[keyPath: keyPath] = try readInteger(node, in: range)
                          })
        p.numbers = NumberAccess(get: { $0[keyPath: keyPath].map { [Double($0)] } }, set: { (filter: inout F, v: [Double]) throws(ParameterError) in
            filter[keyPath: keyPath] = try checkInteger(v[0], in: range)
        })
        return p
    }

    /// One of some whole numbers.
    public static func integerChoice(_ name: String, _ keyPath: WritableKeyPath<F, Int> & Sendable,
                                     _ options: [Int], help: String) -> Parameter {
        var p = Parameter(name: name, help: help, kind: .integerChoice(options),
                          get: { JSONNode(.number(Double($0[keyPath: keyPath]))) },
                          set: { (filter: inout F, node: JSONNode) throws(ParameterError) in
                              filter[keyPath: keyPath] = try checkIntegerChoice(try readNumber(node, in: anyNumber), options, node: node)
                          })
        p.numbers = NumberAccess(get: { [Double($0[keyPath: keyPath])] }, set: { (filter: inout F, v: [Double]) throws(ParameterError) in
            filter[keyPath: keyPath] = try checkIntegerChoice(try checkNumber(v[0], in: anyNumber), options, node: JSONNode(.number(v[0])))
        })
        return p
    }

    /// true or false.
    public static func boolean(_ name: String, _ keyPath: WritableKeyPath<F, Bool> & Sendable, help: String) -> Parameter {
        Parameter(name: name, help: help, kind: .boolean,
                  get: { JSONNode(.bool($0[keyPath: keyPath])) },
                  set: { (filter: inout F, node: JSONNode) throws(ParameterError) in
                      guard case .bool(let b) = node.value else {
                          throw ParameterError(node: node, problem: .wrongType(expected: "true or false", found: node.typeName))
                      }
                      filter[keyPath: keyPath] = b
                  })
    }

    /// One of some strings, or left out (nil).
    public static func optionalChoice<E: RawRepresentable & CaseIterable & Sendable>(
        _ name: String, _ keyPath: WritableKeyPath<F, E?> & Sendable, help: String
    ) -> Parameter where E.RawValue == String {
        let options = E.allCases.map(\.rawValue)
        return Parameter(name: name, help: help, kind: .choice(options),
                         get: { $0[keyPath: keyPath].map { JSONNode(.string($0.rawValue)) } },
                         set: { (filter: inout F, node: JSONNode) throws(ParameterError) in
                             if case .null = node.value { filter[keyPath: keyPath] = nil; return }
                             filter[keyPath: keyPath] = try readChoice(node, E.self)
                         })
    }

    public static func points(_ name: String, _ keyPath: WritableKeyPath<F, [CurvePoint]> & Sendable,
                              count: ClosedRange<Int>, help: String) -> Parameter {
        var p = Parameter(name: name, help: help, kind: .points(count: count, optional: false),
                          get: { CurvePoint.json($0[keyPath: keyPath]) },
                          set: { (filter: inout F, node: JSONNode) throws(ParameterError) in
                              filter[keyPath: keyPath] = try CurvePoint.read(node, count: count)
                          })
        p.checkValue = { (filter: F) throws(ParameterError) in try CurvePoint.check(filter[keyPath: keyPath], count: count) }
        return p
    }

    public static func optionalPoints(_ name: String, _ keyPath: WritableKeyPath<F, [CurvePoint]?> & Sendable,
                                      count: ClosedRange<Int>, help: String) -> Parameter {
        var p = Parameter(name: name, help: help, kind: .points(count: count, optional: true),
                          get: { $0[keyPath: keyPath].map(CurvePoint.json) },
                          set: { (filter: inout F, node: JSONNode) throws(ParameterError) in
                              if case .null = node.value { filter[keyPath: keyPath] = nil; return }
                              filter[keyPath: keyPath] = try CurvePoint.read(node, count: count)
                          })
        p.checkValue = { (filter: F) throws(ParameterError) in
            guard let points = filter[keyPath: keyPath] else { return }
            try CurvePoint.check(points, count: count)
        }
        return p
    }

}

/// A number read from a chain file: its JSON type, then the rules of `checkNumber`.
func readNumber(_ node: JSONNode, in range: ClosedRange<Double>) throws(ParameterError) -> Double {
    try checkNumber(try jsonNumber(node), in: range, node: node)
}

/// The number a JSON node holds, or the file's type error.
private func jsonNumber(_ node: JSONNode) throws(ParameterError) -> Double {
    guard case .number(let v) = node.value else {
        throw ParameterError(node: node, problem: .wrongType(expected: "a number", found: node.typeName))
    }
    return v
}

/// The rules of a number parameter, on the number: finite, and in the range. `node` is
/// where a file wrote it (a number set in code gets one of its own, with no position).
func checkNumber(_ v: Double, in range: ClosedRange<Double>, node: JSONNode? = nil) throws(ParameterError) -> Double {
    guard v.isFinite else { throw ParameterError(node: node ?? JSONNode(.number(v)), problem: .notFinite) }
    guard range.contains(v) else {
        throw ParameterError(node: node ?? JSONNode(.number(v)), problem: .outOfRange(v, range))
    }
    return v
}

/// Every finite number (the first rule of a whole number from a list).
let anyNumber = -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude

/// A whole number from `options`.
func checkIntegerChoice(_ v: Double, _ options: [Int], node: JSONNode) throws(ParameterError) -> Int {
    guard let i = Int(exactly: v), options.contains(i) else {
        throw ParameterError(node: node, problem: .notAllowed(
            JSONWriter.number(v), allowed: ParameterKind.integerChoice(options).allowed, suggestion: nil))
    }
    return i
}

/// One of an enumeration's raw strings, with "did you mean" for a misspelling.
func readChoice<E: RawRepresentable & CaseIterable>(_ node: JSONNode, _: E.Type) throws(ParameterError) -> E
    where E.RawValue == String
{
    let options = E.allCases.map(\.rawValue)
    guard case .string(let s) = node.value else {
        throw ParameterError(node: node, problem: .wrongType(expected: "a string", found: node.typeName))
    }
    guard let value = E(rawValue: s) else {
        throw ParameterError(node: node, problem: .notAllowed(
            "\"\(s)\"", allowed: ParameterKind.choice(options).allowed, suggestion: closestMatch(s, in: options)))
    }
    return value
}

func readInteger(_ node: JSONNode, in range: ClosedRange<Int>) throws(ParameterError) -> Int {
    try checkInteger(try jsonNumber(node), in: range, node: node)
}

/// The rules of a whole-number parameter: a number in the range, and whole.
func checkInteger(_ v: Double, in range: ClosedRange<Int>, node: JSONNode? = nil) throws(ParameterError) -> Int {
    _ = try checkNumber(v, in: Double(range.lowerBound)...Double(range.upperBound), node: node)
    guard let i = Int(exactly: v) else {
        throw ParameterError(node: node ?? JSONNode(.number(v)), problem: .notAllowed(JSONWriter.number(v), allowed: "a whole number", suggestion: nil))
    }
    return i
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
        guard count.contains(items.count) else { throw ParameterError(node: node, problem: countProblem(items.count, count)) }
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
                throw ParameterError(node: pair[0], problem: orderProblem(xy[0], after: last.x), subpath: "[\(i)][0]")
            }
            points.append(CurvePoint(xy[0], xy[1]))
        }
        return points
    }

    /// The rules of `read` on points set in code: the count, each number in 0...1, x
    /// strictly increasing; the same messages, in the same order.
    static func check(_ points: [CurvePoint], count: ClosedRange<Int>) throws(ParameterError) {
        guard count.contains(points.count) else { throw ParameterError(node: json(points), problem: countProblem(points.count, count)) }
        for (i, point) in points.enumerated() {
            for (j, v) in [point.x, point.y].enumerated() {
                do throws(ParameterError) { _ = try checkNumber(v, in: 0...1) } catch var error {
                    error.subpath = "[\(i)][\(j)]"
                    throw error
                }
            }
            if i > 0, point.x <= points[i - 1].x {
                throw ParameterError(node: JSONNode(.number(point.x)), problem: orderProblem(point.x, after: points[i - 1].x),
                                     subpath: "[\(i)][0]")
            }
        }
    }

    private static func countProblem(_ n: Int, _ count: ClosedRange<Int>) -> ChainError.Problem {
        .notAllowed("\(n) point\(n == 1 ? "" : "s")", allowed: "\(count.lowerBound) to \(count.upperBound) points", suggestion: nil)
    }

    private static func orderProblem(_ x: Double, after previous: Double) -> ChainError.Problem {
        .notAllowed("x = \(JSONWriter.number(x)) after x = \(JSONWriter.number(previous))", allowed: "x strictly increasing", suggestion: nil)
    }
}

/// A parameter's numbers, flat (a colour's three; a matrix's rows one after another), read
/// and written without JSON. `set` checks as a chain file's value is checked, and throws
/// with the subpath of the number refused (`[1]`, `[row][column]`).
struct NumberAccess<F>: Sendable {
    /// nil: an optional value left out.
    let get: @Sendable (F) -> [Double]?
    let set: @Sendable (inout F, [Double]) throws(ParameterError) -> Void
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
