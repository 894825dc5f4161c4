/// Reads an expression's text (`NumberExpression` states the grammar) into a tree, checking
/// every name and every function's argument count, so that evaluating can fail only on
/// values (a division by zero, a result that is not finite).
struct ExpressionParser {
    private let characters: [Character]
    private var i = 0
    private let names: Set<String>
    private let nameList: [String]
    private let laterNames: Set<String>
    /// The variable whose value this is, when it is one (for a message naming it).
    private let reader: String?
    /// The names read so far.
    private(set) var used: Set<String> = []

    /// Deeper nesting is refused (each level is a frame of the recursive descent).
    static let maxDepth = 200

    init(_ text: String, names: [String], laterNames: [String], reader: String? = nil) {
        characters = Array(text)
        nameList = names
        self.names = Set(names)
        self.laterNames = Set(laterNames)
        self.reader = reader
    }

    mutating func parse() throws(ExpressionError) -> ExpressionNode {
        guard characters.first == "=" else {
            throw ExpressionError(offset: 0, problem: .unexpected(found: found(), expected: "'=' (an expression starts with it)"))
        }
        i = 1
        skipSpace()
        guard i < characters.count else { throw ExpressionError(offset: i, problem: .empty) }
        let node = try expression(depth: 0)
        skipSpace()
        if i < characters.count {
            throw ExpressionError(offset: i, problem: .unexpected(found: found(), expected: "an operator (+ - * / ^ < <= > >= == !=), ',' or ')'"))
        }
        return node
    }

    // MARK: Characters

    private mutating func skipSpace() {
        while i < characters.count, characters[i] == " " || characters[i] == "\t" { i += 1 }
    }

    private func peek(_ text: String) -> Bool {
        let t = Array(text)
        return i + t.count <= characters.count && Array(characters[i..<i + t.count]) == t
    }

    /// What stands at the current place, for messages.
    private func found() -> String {
        guard i < characters.count else { return "the end" }
        let c = characters[i]
        if isNameStart(c) { return "'\(word(at: i))'" }
        if isDigit(c) { return "'\(numberText(at: i))'" }
        return "'\(c)'"
    }

    private func word(at start: Int) -> String {
        var end = start
        while end < characters.count, isNameCharacter(characters[end]) { end += 1 }
        return String(characters[start..<end])
    }

    private func numberText(at start: Int) -> String {
        var end = start
        while end < characters.count, isNameCharacter(characters[end]) || characters[end] == "." { end += 1 }
        return String(characters[start..<end])
    }

    private func isNameStart(_ c: Character) -> Bool { c.isASCII && (c.isLetter || c == "_") }
    private func isNameCharacter(_ c: Character) -> Bool { c.isASCII && (c.isLetter || c.isNumber || c == "_") }
    private func isDigit(_ c: Character) -> Bool { c.isASCII && c.isNumber }

    // MARK: Grammar

    private mutating func expression(depth: Int) throws(ExpressionError) -> ExpressionNode {
        guard depth < Self.maxDepth else {
            throw ExpressionError(offset: i, problem: .unexpected(found: "nesting deeper than \(Self.maxDepth) levels", expected: "a simpler expression"))
        }
        let left = try additive(depth: depth)
        skipSpace()
        guard let op = comparison() else { return left }
        let offset = i
        i += op.count
        skipSpace()
        let right = try additive(depth: depth)
        skipSpace()
        if comparison() != nil { throw ExpressionError(offset: i, problem: .chainedComparison) }
        return .binary(op, left, right, offset: offset)
    }

    private func comparison() -> String? {
        for op in ["<=", ">=", "==", "!=", "<", ">"] where peek(op) { return op }
        return nil
    }

    private mutating func additive(depth: Int) throws(ExpressionError) -> ExpressionNode {
        var left = try term(depth: depth)
        while true {
            skipSpace()
            guard i < characters.count, characters[i] == "+" || characters[i] == "-" else { return left }
            let op = String(characters[i]), offset = i
            i += 1
            left = .binary(op, left, try term(depth: depth), offset: offset)
        }
    }

    private mutating func term(depth: Int) throws(ExpressionError) -> ExpressionNode {
        var left = try unary(depth: depth)
        while true {
            skipSpace()
            guard i < characters.count, characters[i] == "*" || characters[i] == "/" else { return left }
            let op = String(characters[i]), offset = i
            i += 1
            left = .binary(op, left, try unary(depth: depth), offset: offset)
        }
    }

    private mutating func unary(depth: Int) throws(ExpressionError) -> ExpressionNode {
        skipSpace()
        if i < characters.count, characters[i] == "-" {
            guard depth < Self.maxDepth else {
                throw ExpressionError(offset: i, problem: .unexpected(found: "nesting deeper than \(Self.maxDepth) levels", expected: "a simpler expression"))
            }
            i += 1
            return .negate(try unary(depth: depth + 1))
        }
        let base = try primary(depth: depth)
        skipSpace()
        guard i < characters.count, characters[i] == "^" else { return base }
        let offset = i
        i += 1
        return .binary("^", base, try unary(depth: depth + 1), offset: offset)
    }

    private mutating func primary(depth: Int) throws(ExpressionError) -> ExpressionNode {
        skipSpace()
        guard i < characters.count else {
            throw ExpressionError(offset: i, problem: .unexpected(found: "the end", expected: "a number, a name or '('"))
        }
        let c = characters[i]
        if c == "(" {
            i += 1
            let inner = try expression(depth: depth + 1)
            skipSpace()
            guard i < characters.count, characters[i] == ")" else {
                throw ExpressionError(offset: i, problem: .unexpected(found: found(), expected: "')'"))
            }
            i += 1
            return inner
        }
        if isDigit(c) || (c == "." && i + 1 < characters.count && isDigit(characters[i + 1])) { return try number() }
        if isNameStart(c) { return try nameOrCall(depth: depth) }
        throw ExpressionError(offset: i, problem: .unexpected(found: found(), expected: "a number, a name or '('"))
    }

    private mutating func number() throws(ExpressionError) -> ExpressionNode {
        let start = i
        while i < characters.count, isDigit(characters[i]) { i += 1 }
        if i < characters.count, characters[i] == "." {
            i += 1
            while i < characters.count, isDigit(characters[i]) { i += 1 }
        }
        if i < characters.count, characters[i] == "e" || characters[i] == "E" {
            var j = i + 1
            if j < characters.count, characters[j] == "+" || characters[j] == "-" { j += 1 }
            guard j < characters.count, isDigit(characters[j]) else {
                throw ExpressionError(offset: j, problem: .unexpected(found: "'\(String(characters[start..<j]))'", expected: "digits of the exponent"))
            }
            i = j
            while i < characters.count, isDigit(characters[i]) { i += 1 }
        }
        let text = String(characters[start..<i])
        if i < characters.count, isNameCharacter(characters[i]) || characters[i] == "." {
            throw ExpressionError(offset: i, problem: .unexpected(found: "'\(numberText(at: start))'", expected: "a number"))
        }
        guard let v = Double(text), v.isFinite else { throw ExpressionError(offset: start, problem: .numberTooLarge(text)) }
        return .number(v)
    }

    private mutating func nameOrCall(depth: Int) throws(ExpressionError) -> ExpressionNode {
        let start = i
        let name = word(at: i)
        i += name.count
        var j = i
        while j < characters.count, characters[j] == " " || characters[j] == "\t" { j += 1 }
        let called = j < characters.count && characters[j] == "("
        let function = NumberExpression.functions.first { $0.name == name }
        guard called else {
            if function != nil { throw ExpressionError(offset: start, problem: .functionWithoutArguments(name)) }
            guard names.contains(name) else {
                if laterNames.contains(name) {
                    if let reader { throw ExpressionError(offset: start, problem: .readsLater(name, reader: reader)) }
                    throw ExpressionError(offset: start, problem: .declaredBelow(name))
                }
                // A name read as a value is a variable or a size: a function's name is no
                // suggestion for it (a call with its parentheses would be).
                throw ExpressionError(offset: start, problem: .unknownName(
                    name, suggestion: closestMatch(name, in: nameList), known: nameList))
            }
            used.insert(name)
            return .name(name, offset: start)
        }
        guard let function else {
            throw ExpressionError(offset: start, problem: .notAFunction(name, suggestion: closestMatch(name, in: NumberExpression.functionNames)))
        }
        i = j + 1
        var arguments: [ExpressionNode] = []
        skipSpace()
        if i < characters.count, characters[i] == ")" {
            i += 1
        } else {
            while true {
                arguments.append(try expression(depth: depth + 1))
                skipSpace()
                guard i < characters.count, characters[i] == "," || characters[i] == ")" else {
                    throw ExpressionError(offset: i, problem: .unexpected(found: found(), expected: "',' or ')'"))
                }
                i += 1
                if characters[i - 1] == ")" { break }
            }
        }
        let allowed: ClosedRange<Int> = switch name {
        case "min", "max": 2...Int.max
        case "if", "clamp", "lerp": 3...3
        case "pow": 2...2
        default: 1...1
        }
        guard allowed.contains(arguments.count) else {
            throw ExpressionError(offset: start, problem: .arguments(function: name, takes: function.arguments, found: arguments.count))
        }
        return .call(name, arguments, offset: start)
    }
}
