/// A JSON value that remembers where it was written, so that every error in a chain file can
/// say the line and column, and duplicate keys are caught (Foundation's parsers keep one of
/// them silently and report syntax errors by character offset only).
public struct JSONNode: Sendable, Equatable {
    public indirect enum Value: Sendable, Equatable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([JSONNode])
        /// Members in the order written.
        case object([(key: String, value: JSONNode)])

        public static func == (a: Value, b: Value) -> Bool {
            switch (a, b) {
            case (.null, .null): true
            case (.bool(let x), .bool(let y)): x == y
            case (.number(let x), .number(let y)): x == y
            case (.string(let x), .string(let y)): x == y
            case (.array(let x), .array(let y)): x == y
            case (.object(let x), .object(let y)):
                x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
            default: false
            }
        }
    }

    public var value: Value
    public var line: Int
    public var column: Int

    public init(_ value: Value, line: Int = 0, column: Int = 0) {
        self.value = value
        self.line = line
        self.column = column
    }

    /// The JSON type's name, as error messages say it.
    public var typeName: String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The value as written, shortened, for error messages.
    public var excerpt: String {
        let text = JSONWriter.compact(self)
        return text.count > 40 ? String(text.prefix(37)) + "..." : text
    }
}

/// A syntax error with its position (1-based line and column).
public struct JSONSyntaxError: Error, Sendable, Equatable {
    public var line: Int
    public var column: Int
    public var message: String
}

/// A strict RFC 8259 parser: no comments, no trailing commas, no duplicate keys, numbers
/// that fit a Double.
public struct JSONParser {
    private let bytes: [UInt8]
    private var i = 0
    private var line = 1
    private var lineStart = 0

    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONNode {
        var parser = JSONParser(bytes: bytes)
        // A UTF-8 byte order mark is tolerated.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.i = 3; parser.lineStart = 3 }
        parser.skipSpace()
        let node = try parser.value(depth: 0)
        parser.skipSpace()
        if parser.i < bytes.count { throw parser.error("unexpected \(parser.describeHere()) after the end of the document") }
        return node
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private var column: Int { i - lineStart + 1 }

    private func error(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(line: line, column: column, message: message)
    }

    private func describeHere() -> String {
        guard i < bytes.count else { return "end of file" }
        let b = bytes[i]
        if b >= 0x20 && b < 0x7F { return "'\(Character(UnicodeScalar(b)))'" }
        return "byte 0x" + hex2(Int(b))
    }

    private mutating func skipSpace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0D: i += 1
            case 0x0A:
                i += 1
                line += 1
                lineStart = i
            default: return
            }
        }
    }

    private mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONNode {
        guard depth < 512 else { throw error("nesting deeper than 512 levels") }
        guard i < bytes.count else { throw error("unexpected end of file, expected a value") }
        let (l, c) = (line, column)
        switch bytes[i] {
        case UInt8(ascii: "{"): return JSONNode(try object(depth: depth), line: l, column: c)
        case UInt8(ascii: "["): return JSONNode(try array(depth: depth), line: l, column: c)
        case UInt8(ascii: "\""): return JSONNode(.string(try string()), line: l, column: c)
        case UInt8(ascii: "t"): try literal("true"); return JSONNode(.bool(true), line: l, column: c)
        case UInt8(ascii: "f"): try literal("false"); return JSONNode(.bool(false), line: l, column: c)
        case UInt8(ascii: "n"): try literal("null"); return JSONNode(.null, line: l, column: c)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return JSONNode(.number(try number()), line: l, column: c)
        default:
            throw error("unexpected \(describeHere()), expected a value")
        }
    }

    private mutating func literal(_ word: String) throws(JSONSyntaxError) {
        let w = Array(word.utf8)
        guard i + w.count <= bytes.count, Array(bytes[i..<i + w.count]) == w else {
            throw error("unexpected \(describeHere()), expected a value")
        }
        i += w.count
    }

    private mutating func object(depth: Int) throws(JSONSyntaxError) -> JSONNode.Value {
        i += 1
        var members: [(key: String, value: JSONNode)] = []
        var seen: Set<String> = []
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
        while true {
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else {
                throw error("unexpected \(describeHere()), expected a key in double quotes")
            }
            let (kl, kc) = (line, column)
            let key = try string()
            if !seen.insert(key).inserted {
                throw JSONSyntaxError(line: kl, column: kc, message: "duplicate key \"\(key)\"")
            }
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else {
                throw error("unexpected \(describeHere()), expected ':' after the key")
            }
            i += 1
            skipSpace()
            members.append((key, try value(depth: depth + 1)))
            skipSpace()
            guard i < bytes.count else { throw error("unexpected end of file, expected ',' or '}'") }
            if bytes[i] == UInt8(ascii: ",") {
                i += 1
                skipSpace()
                if i < bytes.count, bytes[i] == UInt8(ascii: "}") { throw error("trailing comma before '}'") }
                continue
            }
            if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
            throw error("unexpected \(describeHere()), expected ',' or '}'")
        }
    }

    private mutating func array(depth: Int) throws(JSONSyntaxError) -> JSONNode.Value {
        i += 1
        var items: [JSONNode] = []
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
        while true {
            skipSpace()
            items.append(try value(depth: depth + 1))
            skipSpace()
            guard i < bytes.count else { throw error("unexpected end of file, expected ',' or ']'") }
            if bytes[i] == UInt8(ascii: ",") {
                i += 1
                skipSpace()
                if i < bytes.count, bytes[i] == UInt8(ascii: "]") { throw error("trailing comma before ']'") }
                continue
            }
            if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            throw error("unexpected \(describeHere()), expected ',' or ']'")
        }
    }

    private mutating func string() throws(JSONSyntaxError) -> String {
        i += 1
        var out: [UInt8] = []
        while true {
            guard i < bytes.count else { throw error("unexpected end of file inside a string") }
            let b = bytes[i]
            if b == UInt8(ascii: "\"") { i += 1; break }
            if b < 0x20 { throw error("control character in a string (write it as an escape)") }
            if b != UInt8(ascii: "\\") { out.append(b); i += 1; continue }
            i += 1
            guard i < bytes.count else { throw error("unexpected end of file inside a string") }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar) {
                    guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                        throw error("unpaired surrogate in \\u escape")
                    }
                    i += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate in \\u escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(scalar) {
                    throw error("unpaired surrogate in \\u escape")
                }
                out.append(contentsOf: Array(String(Character(UnicodeScalar(scalar)!)).utf8))
            default:
                i -= 1
                throw error("invalid escape '\\\(Character(UnicodeScalar(e)))'")
            }
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw error("a string is not valid UTF-8") }
        return s
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw error("unexpected end of file in a \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[i]
            let d: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in a \\u escape")
            }
            v = v * 16 + d
            i += 1
        }
        return v
    }

    private mutating func number() throws(JSONSyntaxError) -> Double {
        let start = i
        let digit = { (b: UInt8) in b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < bytes.count, digit(bytes[i]) else { throw error("invalid number") }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            if i < bytes.count, digit(bytes[i]) { throw error("invalid number: leading zero") }
        } else {
            while i < bytes.count, digit(bytes[i]) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard i < bytes.count, digit(bytes[i]) else { throw error("invalid number: digits expected after '.'") }
            while i < bytes.count, digit(bytes[i]) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < bytes.count, digit(bytes[i]) else { throw error("invalid number: digits expected in the exponent") }
            while i < bytes.count, digit(bytes[i]) { i += 1 }
        }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        guard let v = Double(text), v.isFinite else {
            let (l, c) = (line, start - lineStart + 1)
            throw JSONSyntaxError(line: l, column: c, message: "number \(text) is too large")
        }
        return v
    }
}

extension JSONParser {
    /// The file column of each character of the string `text` written at `line` with its
    /// opening quote at `quoteColumn` in `source` (columns count bytes, as the parser's do),
    /// and one more for the place after the last character. An escape's characters all take
    /// the escape's column. Without the source, the string is taken to have no escapes.
    static func stringColumns(_ source: [UInt8]?, line: Int, quoteColumn: Int, text: String) -> [Int] {
        // The column of each byte of the decoded text.
        var byteColumns: [Int] = []
        var endColumn = quoteColumn + 1 + text.utf8.count
        let decoded = Array(text.utf8)
        if let source, let start = lineStart(source, line: line) {
            var p = start + quoteColumn   // just after the quote
            while byteColumns.count < decoded.count, p < source.count, source[p] != UInt8(ascii: "\"") {
                let column = p - start + 1
                guard source[p] == UInt8(ascii: "\\") else {
                    byteColumns.append(column)
                    p += 1
                    continue
                }
                let escape = p + 1 < source.count ? source[p + 1] : 0
                if escape == UInt8(ascii: "u") {
                    // \uXXXX, or a surrogate pair \uXXXX\uXXXX: the bytes of one scalar.
                    let value = Int(String(decoding: source[min(p + 2, source.count)..<min(p + 6, source.count)], as: UTF8.self), radix: 16) ?? 0
                    let pair = (0xD800..<0xDC00).contains(value)
                    let scalarBytes = pair ? 4 : value < 0x80 ? 1 : value < 0x800 ? 2 : 3
                    byteColumns.append(contentsOf: repeatElement(column, count: scalarBytes))
                    p += pair ? 12 : 6
                } else {
                    byteColumns.append(column)
                    p += 2
                }
            }
            endColumn = p - start + 1
        }
        if byteColumns.count != decoded.count {
            byteColumns = decoded.indices.map { quoteColumn + 1 + $0 }
            endColumn = quoteColumn + 1 + decoded.count
        }
        var columns: [Int] = []
        var offset = 0
        for character in text {
            columns.append(byteColumns[offset])
            offset += character.utf8.count
        }
        columns.append(endColumn)
        return columns
    }

    /// The index of the first byte of `line` (1-based) in `source`; a byte order mark
    /// before line 1 is skipped, as the parser skips it.
    private static func lineStart(_ source: [UInt8], line: Int) -> Int? {
        var start = source.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var current = 1
        while current < line {
            guard let newline = source[start...].firstIndex(of: 0x0A) else { return nil }
            start = newline + 1
            current += 1
        }
        return start
    }
}

/// Writes JSON: pretty-printed with two-space indents, members in the order given, short
/// arrays of numbers on one line.
public enum JSONWriter {
    public static func pretty(_ node: JSONNode) -> String {
        var out = ""
        write(node, indent: 0, into: &out)
        return out + "\n"
    }

    public static func compact(_ node: JSONNode) -> String {
        switch node.value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let v): return number(v)
        case .string(let s): return quote(s)
        case .array(let items): return "[" + items.map(compact).joined(separator: ", ") + "]"
        case .object(let members):
            return "{" + members.map { quote($0.key) + ": " + compact($0.value) }.joined(separator: ", ") + "}"
        }
    }

    private static func isNumbers(_ node: JSONNode) -> Bool {
        guard case .array(let items) = node.value else { return false }
        return items.allSatisfy { if case .number = $0.value { true } else { false } }
    }

    /// Numbers, or arrays of numbers (a curve's points), go on one line.
    private static func isFlat(_ node: JSONNode) -> Bool {
        guard case .array(let items) = node.value else { return false }
        return isNumbers(node) || items.allSatisfy(isNumbers)
    }

    private static func write(_ node: JSONNode, indent: Int, into out: inout String) {
        let pad = String(repeating: "  ", count: indent + 1)
        let closePad = String(repeating: "  ", count: indent)
        switch node.value {
        case .array(let items) where !items.isEmpty && !isFlat(node):
            out += "[\n"
            for (k, item) in items.enumerated() {
                out += pad
                write(item, indent: indent + 1, into: &out)
                out += k + 1 < items.count ? ",\n" : "\n"
            }
            out += closePad + "]"
        case .object(let members) where !members.isEmpty:
            out += "{\n"
            for (k, member) in members.enumerated() {
                out += pad + quote(member.key) + ": "
                write(member.value, indent: indent + 1, into: &out)
                out += k + 1 < members.count ? ",\n" : "\n"
            }
            out += closePad + "}"
        default:
            out += compact(node)
        }
    }

    /// Integers without a fraction; other values in the shortest form that reads back exactly.
    public static func number(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return "\(v)"
    }

    public static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20: out += "\\u00" + hex2(Int(c.value))
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

func hex2(_ v: Int) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[(v >> 4) & 15], digits[v & 15]])
}
