/// A named number of a chain (version 2): parameters read it in expressions
/// (`"saturation": "=1 + strength"`), `--set NAME=VALUE` overrides it, and the editor shows
/// it as a slider (with a range) or a field.
///
///     { "name": "strength", "value": 0.5, "min": 0, "max": 1, "help": "how strong the look is" }
///
/// `"layout": [x, y]` places its number node in the editor's graph view.
///
/// The value is a number or an expression over the variables above it.
public struct ChainVariable: Sendable, Equatable {
    public enum Value: Sendable, Equatable {
        case number(Double)
        case expression(NumberExpression)
    }

    public var name: String
    public var value: Value
    /// The lowest value allowed (nil: no bound).
    public var minimum: Double?
    /// The highest value allowed (nil: no bound).
    public var maximum: Double?
    /// One line saying what it does.
    public var help: String?
    /// Where the editor's graph view draws its number node (`"layout": [x, y]`, as a step's);
    /// editor metadata that nothing else reads.
    public var layout: NodePosition?

    public init(name: String, value: Double, minimum: Double? = nil, maximum: Double? = nil, help: String? = nil) {
        self.init(name: name, value: .number(value), minimum: minimum, maximum: maximum, help: help)
    }

    public init(name: String, value: Value, minimum: Double? = nil, maximum: Double? = nil, help: String? = nil) {
        self.name = name
        self.value = value
        self.minimum = minimum
        self.maximum = maximum
        self.help = help
    }

    /// What the range allows, as messages say it: "a number in 0...1", "a number >= 0", "any number".
    public var allowed: String {
        switch (minimum, maximum) {
        case let (lo?, hi?): "a number in \(JSONWriter.number(lo))...\(JSONWriter.number(hi))"
        case let (lo?, nil): "a number >= \(JSONWriter.number(lo))"
        case let (nil, hi?): "a number <= \(JSONWriter.number(hi))"
        case (nil, nil): "any finite number"
        }
    }

    /// Whether `v` is within the range.
    public func allows(_ v: Double) -> Bool {
        v.isFinite && (minimum.map { v >= $0 } ?? true) && (maximum.map { v <= $0 } ?? true)
    }

    /// Why `name` cannot name a variable, or nil when it can: a name is a letter or `_`, then
    /// letters, digits or `_` (ASCII), and not a function's, `width`, `height`, nor one
    /// starting with `source` (kept for the input's measures).
    public static func problem(withName name: String) -> String? {
        guard let first = name.first, first.isASCII, first.isLetter || first == "_",
              name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
            return "a name is a letter or '_', then letters, digits or '_'"
        }
        if NumberExpression.functionNames.contains(name) { return "\(name) is a function" }
        if name == "width" || name == "height" { return "\(name) is the step's input \(name)" }
        if NumberExpression.frameNames.contains(name) { return "\(name) is the animation frame's (frame, frames, time)" }
        if name.hasPrefix("source") { return "names starting with 'source' are kept for the input's measures (sourceWidth, sourceHeight)" }
        return nil
    }

    /// name, value, min, max, help, layout (those set).
    public var jsonNode: JSONNode {
        var m: [(key: String, value: JSONNode)] = [("name", JSONNode(.string(name)))]
        switch value {
        case .number(let v): m.append(("value", JSONNode(.number(v))))
        case .expression(let e): m.append(("value", JSONNode(.string(e.text))))
        }
        if let minimum { m.append(("min", JSONNode(.number(minimum)))) }
        if let maximum { m.append(("max", JSONNode(.number(maximum)))) }
        if let help { m.append(("help", JSONNode(.string(help)))) }
        if let layout { m.append(("layout", jsonNumbers([layout.x, layout.y]))) }
        return JSONNode(.object(m))
    }
}

extension ChainVariable {
    /// `NAME=VALUE` as `--set` takes it (VALUE a finite number), or nil.
    public static func assignment(_ text: String) -> (name: String, value: Double)? {
        guard let eq = text.firstIndex(of: "="), eq != text.startIndex,
              let value = Double(String(text[text.index(after: eq)...])), value.isFinite
        else { return nil }
        return (String(text[..<eq]), value)
    }
}
