/// A STEP as people write it on the command line: a position (1-based; 0 is the decoded
/// input), a full id, an id prefix of at least 4 characters unique in the chain, a name, or
/// a filter type when exactly one step has that type.
public struct StepReference: Sendable, Hashable, CustomStringConvertible {
    public var text: String

    public init(_ text: String) { self.text = text }

    public var description: String { text }

    /// The position (0...steps.count) the reference names.
    public func resolve(in chain: Chain) throws(StepError) -> Int {
        let t = text.trimmingWhitespace
        // The decoded input, as chain files name it.
        if t == "source" { return 0 }
        // Digits name a position; digits past the last position may still be an id prefix
        // (ids are hex, so "049087" can begin one).
        var position: Int?
        if !t.isEmpty, t.allSatisfy(\.isASCII), t.allSatisfy(\.isNumber) {
            position = Int(t) ?? Int.max
            if position! <= chain.steps.count { return position! }
        }
        let lower = t.lowercased()
        var matches = Set<Int>()
        for (i, step) in chain.steps.enumerated() {
            let id = step.id.lowercased()
            if id == lower || step.name == t { matches.insert(i + 1) }
        }
        if matches.isEmpty, lower.count >= 4 {
            for (i, step) in chain.steps.enumerated() where step.id.lowercased().hasPrefix(lower) {
                matches.insert(i + 1)
            }
        }
        if matches.isEmpty {
            // A filter type names the one step of that type.
            for (i, step) in chain.steps.enumerated() where step.type == t { matches.insert(i + 1) }
        }
        if matches.count == 1 { return matches.first! }
        if matches.isEmpty, position != nil {
            throw StepError(reference: text, reason: .noSuchPosition(chain.steps.count), chain: chain)
        }
        if matches.isEmpty {
            let reason: StepError.Reason = lower.count < 4 && lower.allSatisfy(\.isHexDigit) && !lower.isEmpty
                ? .prefixTooShort : .notFound
            throw StepError(reference: text, reason: reason, chain: chain)
        }
        throw StepError(reference: text, reason: .ambiguous(matches.sorted()), chain: chain)
    }
}

public struct StepError: Error, Sendable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        case notFound
        case prefixTooShort
        case noSuchPosition(Int)
        case ambiguous([Int])
    }

    public var reference: String
    public var reason: Reason
    public var steps: String

    init(reference: String, reason: Reason, chain: Chain) {
        self.reference = reference
        self.reason = reason
        steps = StepError.listing(chain)
    }

    /// The steps on one line: "0 source; 1 0F6C1B9E colour (colorControls); ...".
    static func listing(_ chain: Chain) -> String {
        var parts = ["0 source"]
        for (i, s) in chain.steps.enumerated() {
            var part = "\(i + 1) \(s.shortID)"
            part += s.name.map { " '\($0)' (\(s.type))" } ?? " \(s.type)"
            if !s.enabled { part += " [disabled]" }
            parts.append(part)
        }
        return parts.joined(separator: "; ")
    }

    public var description: String {
        let what: String = switch reason {
        case .notFound: "no step '\(reference)'"
        case .prefixTooShort: "step '\(reference)': an id prefix needs at least 4 characters"
        case .noSuchPosition(let count): "no step \(reference): the chain has \(count) step\(count == 1 ? "" : "s")"
        case .ambiguous(let positions): "step '\(reference)' is ambiguous: it matches steps \(positions.map(String.init).joined(separator: " and "))"
        }
        return "\(what); steps: \(steps)"
    }
}
