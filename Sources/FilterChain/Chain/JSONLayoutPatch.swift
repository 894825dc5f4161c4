/// A chain file's own formatting kept through an edit: the file's text with only what changed
/// replaced (a value's text, an array that changed length, a member added to an object),
/// everything else (spacing, line breaks, key order, members left at their defaults) as the
/// person wrote it. Used by the editor's Save for a file formatted by hand.
enum JSONLayoutPatch {
    /// Where each value of a JSON text is, by byte offsets.
    indirect enum Span {
        case leaf(Range<Int>)
        case array(Range<Int>, [Span])
        /// `close`: the offset of the closing brace; `lastEnd`: the end of the last member's
        /// value (nil when empty).
        case object(Range<Int>, [(key: String, span: Span)], close: Int, lastEnd: Int?)

        var range: Range<Int> {
            switch self {
            case .leaf(let r), .array(let r, _), .object(let r, _, _, _): r
            }
        }
    }

    /// `original`, a JSON text whose standard form is `before`, edited so that its standard
    /// form becomes `after`; nil where that cannot be done by local edits (the caller then
    /// writes the standard form).
    static func patched(_ original: [UInt8], from before: JSONNode, to after: JSONNode) -> [UInt8]? {
        var scanner = Scanner(bytes: original)
        guard let span = scanner.document() else { return nil }
        var edits: [(range: Range<Int>, text: [UInt8])] = []
        guard diff(before, after, span, original, &edits) else { return nil }
        var out = original
        for edit in edits.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            out.replaceSubrange(edit.range, with: edit.text)
        }
        return out
    }

    private static func text(_ node: JSONNode) -> [UInt8] { Array(JSONWriter.compact(node).utf8) }

    private static func holdsObjects(_ node: JSONNode) -> Bool {
        switch node.value {
        case .object: true
        case .array(let items): items.contains(where: holdsObjects)
        default: false
        }
    }

    private static func diff(_ old: JSONNode, _ new: JSONNode, _ span: Span, _ original: [UInt8],
                             _ edits: inout [(range: Range<Int>, text: [UInt8])]) -> Bool {
        if old.value == new.value { return true }
        switch (old.value, new.value, span) {
        case (.object(let a), .object(let b), .object(_, let members, let close, let lastEnd)):
            // A member removed is not a local edit.
            guard a.allSatisfy({ m in b.contains { $0.key == m.key } }) else { return false }
            var insert: [UInt8] = []
            var hasMember = lastEnd != nil
            for (key, value) in b {
                let written = members.first { $0.key == key }?.span
                if let oldValue = a.first(where: { $0.key == key })?.value {
                    if oldValue.value == value.value { continue }
                    if let written {
                        if !diff(oldValue, value, written, original, &edits) { return false }
                        continue
                    }
                }
                // New, or left to its default in the text: added at the end of the object.
                insert += Array((hasMember ? ", " : "").utf8) + text(JSONNode(.string(key))) + Array(": ".utf8) + text(value)
                hasMember = true
            }
            if !insert.isEmpty {
                let at = lastEnd ?? close
                edits.append((at..<at, insert))
            }
            return true
        case (.array(let a), .array(let b), .array(let range, let elements)) where a.count == b.count && elements.count == a.count:
            for k in a.indices where !diff(a[k], b[k], elements[k], original, &edits) { return false }
            _ = range
            return true
        default:
            // A value, or an array of numbers (a curve's points, a matrix) written on one
            // line: its text replaced. Anything holding objects (a step added to the list), or
            // laid out on several lines, is not a local edit: one line of compact JSON would
            // not be the file's layout.
            if case .leaf = span {} else {
                guard !original[span.range].contains(0x0A), !holdsObjects(new) else { return false }
            }
            if holdsObjects(new) { return false }
            edits.append((span.range, text(new)))
            return true
        }
    }

    /// Finds each value's bytes in a JSON text already known to parse.
    struct Scanner {
        let bytes: [UInt8]
        var i = 0

        mutating func document() -> Span? {
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
            skipSpace()
            return value()
        }

        mutating func skipSpace() {
            while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
        }

        mutating func value() -> Span? {
            guard i < bytes.count else { return nil }
            let start = i
            switch bytes[i] {
            case UInt8(ascii: "{"):
                i += 1
                skipSpace()
                var members: [(key: String, span: Span)] = []
                var lastEnd: Int?
                if i < bytes.count && bytes[i] == UInt8(ascii: "}") {
                    i += 1
                    return .object(start..<i, [], close: i - 1, lastEnd: nil)
                }
                while i < bytes.count {
                    guard let keySpan = string(), let key = decodedKey(keySpan) else { return nil }
                    skipSpace()
                    guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { return nil }
                    i += 1
                    skipSpace()
                    guard let v = value() else { return nil }
                    members.append((key, v))
                    lastEnd = v.range.upperBound
                    skipSpace()
                    guard i < bytes.count else { return nil }
                    if bytes[i] == UInt8(ascii: ",") { i += 1; skipSpace(); continue }
                    guard bytes[i] == UInt8(ascii: "}") else { return nil }
                    i += 1
                    return .object(start..<i, members, close: i - 1, lastEnd: lastEnd)
                }
                return nil
            case UInt8(ascii: "["):
                i += 1
                skipSpace()
                var elements: [Span] = []
                if i < bytes.count && bytes[i] == UInt8(ascii: "]") { i += 1; return .array(start..<i, []) }
                while i < bytes.count {
                    guard let v = value() else { return nil }
                    elements.append(v)
                    skipSpace()
                    guard i < bytes.count else { return nil }
                    if bytes[i] == UInt8(ascii: ",") { i += 1; skipSpace(); continue }
                    guard bytes[i] == UInt8(ascii: "]") else { return nil }
                    i += 1
                    return .array(start..<i, elements)
                }
                return nil
            case UInt8(ascii: "\""):
                return string().map { .leaf($0) }
            default:
                // A number or a literal: up to the next delimiter.
                while i < bytes.count, !([0x20, 0x09, 0x0A, 0x0D] + Array(",]}".utf8)).contains(bytes[i]) { i += 1 }
                return i > start ? .leaf(start..<i) : nil
            }
        }

        /// A string's bytes, quotes included.
        mutating func string() -> Range<Int>? {
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { return nil }
            let start = i
            i += 1
            while i < bytes.count {
                if bytes[i] == UInt8(ascii: "\\") { i += 2; continue }
                if bytes[i] == UInt8(ascii: "\"") { i += 1; return start..<i }
                i += 1
            }
            return nil
        }

        /// A key as JSON reads it (through the strict parser, escapes and all).
        func decodedKey(_ range: Range<Int>) -> String? {
            guard let node = try? JSONParser.parse(Array(bytes[range])), case .string(let s) = node.value else { return nil }
            return s
        }
    }
}

extension Chain {
    /// The text to save this chain as, over a file that held `original`: that text with only
    /// what changed edited in (its formatting kept), when the edit can be made so and reads
    /// back as exactly this chain; otherwise the standard form (`jsonText`).
    public func text(keepingLayoutOf original: [UInt8], file: String) -> String {
        let standard = jsonText
        guard let before = try? Chain.parse(original, file: file),
              let patched = JSONLayoutPatch.patched(original, from: before.jsonNode, to: jsonNode),
              let back = try? Chain.parse(patched, file: file), back.jsonText == standard
        else { return standard }
        return String(decoding: patched, as: UTF8.self)
    }
}
