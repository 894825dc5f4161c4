import Foundation

/// A plain evaluator of the expression grammar as filters.md states it, written apart from
/// the library's recursive-descent parser: tokens, Dijkstra's shunting-yard to reverse
/// Polish notation, then a stack machine. A value is nil when the expression fails (a
/// division by zero, a result that is not finite); `if` takes its chosen branch's value,
/// whatever the other one is. Returns nil from `parse` for text it cannot read.
enum ReferenceExpression {
    enum Token: Equatable {
        case number(Double)
        case name(String)
        case function(String)
        case op(String)
        case unaryMinus
        case open, close, comma
    }

    static let precedence: [String: Int] = ["<": 1, "<=": 1, ">": 1, ">=": 1, "==": 1, "!=": 1,
                                            "+": 2, "-": 2, "*": 3, "/": 3, "^": 5]
    static let unaryPrecedence = 4
    static let arity: [String: ClosedRange<Int>] = [
        "if": 3...3, "min": 2...99, "max": 2...99, "clamp": 3...3, "abs": 1...1, "floor": 1...1, "ceil": 1...1,
        "round": 1...1, "sqrt": 1...1, "pow": 2...2, "exp": 1...1, "log": 1...1, "lerp": 3...3,
    ]

    static func tokens(_ text: String) -> [Token]? {
        guard text.hasPrefix("=") else { return nil }
        let c = Array(text.utf8.dropFirst())
        var out: [Token] = []
        var i = 0
        func isDigit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }
        func isLetter(_ b: UInt8) -> Bool { (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == 95 }
        while i < c.count {
            let b = c[i]
            if b == 32 || b == 9 { i += 1; continue }
            if isDigit(b) || (b == 46 && i + 1 < c.count && isDigit(c[i + 1])) {
                var j = i
                while j < c.count, isDigit(c[j]) { j += 1 }
                if j < c.count, c[j] == 46 { j += 1; while j < c.count, isDigit(c[j]) { j += 1 } }
                if j < c.count, c[j] == 101 || c[j] == 69 {
                    j += 1
                    if j < c.count, c[j] == 43 || c[j] == 45 { j += 1 }
                    guard j < c.count, isDigit(c[j]) else { return nil }
                    while j < c.count, isDigit(c[j]) { j += 1 }
                }
                guard let v = Double(String(decoding: c[i..<j], as: UTF8.self)) else { return nil }
                out.append(.number(v))
                i = j
                continue
            }
            if isLetter(b) {
                var j = i
                while j < c.count, isLetter(c[j]) || isDigit(c[j]) { j += 1 }
                let word = String(decoding: c[i..<j], as: UTF8.self)
                var k = j
                while k < c.count, c[k] == 32 || c[k] == 9 { k += 1 }
                out.append(k < c.count && c[k] == 40 ? .function(word) : .name(word))
                i = j
                continue
            }
            let two = i + 1 < c.count ? String(decoding: c[i...i + 1], as: UTF8.self) : ""
            if ["<=", ">=", "==", "!="].contains(two) { out.append(.op(two)); i += 2; continue }
            switch b {
            case 40: out.append(.open)
            case 41: out.append(.close)
            case 44: out.append(.comma)
            case 43, 42, 47, 94, 60, 62: out.append(.op(String(UnicodeScalar(b))))
            case 45:
                // Unary where no value ends just before it.
                switch out.last {
                case nil, .op?, .unaryMinus?, .open?, .comma?: out.append(.unaryMinus)
                default: out.append(.op("-"))
                }
            default: return nil
            }
            i += 1
        }
        return out
    }

    /// Reverse Polish notation; a function carries its argument count.
    enum RPN { case number(Double), name(String), op(String), negate, call(String, Int) }

    static func rpn(_ tokens: [Token]) -> [RPN]? {
        var output: [RPN] = []
        var stack: [Token] = []
        var argumentCounts: [Int] = []
        func prec(_ t: Token) -> Int {
            switch t {
            case .op(let o): precedence[o]!
            case .unaryMinus: unaryPrecedence
            default: -1
            }
        }
        func emit(_ t: Token) {
            switch t {
            case .op(let o): output.append(.op(o))
            case .unaryMinus: output.append(.negate)
            default: break
            }
        }
        for (k, t) in tokens.enumerated() {
            switch t {
            case .number(let v): output.append(.number(v))
            case .name(let n): output.append(.name(n))
            case .function: stack.append(t)
            case .open:
                stack.append(.open)
                if k > 0, case .function = tokens[k - 1] {
                    if k + 1 < tokens.count, tokens[k + 1] == .close { argumentCounts.append(0) } else { argumentCounts.append(1) }
                } else {
                    argumentCounts.append(-1)   // a plain parenthesis
                }
            case .comma:
                while let top = stack.last, top != .open { emit(stack.removeLast()) }
                guard !argumentCounts.isEmpty, argumentCounts[argumentCounts.count - 1] >= 1 else { return nil }
                argumentCounts[argumentCounts.count - 1] += 1
            case .close:
                while let top = stack.last, top != .open { emit(stack.removeLast()) }
                guard stack.popLast() == .open, let count = argumentCounts.popLast() else { return nil }
                if count >= 0 {
                    guard case .function(let f)? = stack.popLast() else { return nil }
                    output.append(.call(f, count))
                }
            case .unaryMinus:
                stack.append(t)   // prefix: nothing to its left to pop
            case .op(let o):
                let p = precedence[o]!
                let rightAssociative = o == "^"
                while let top = stack.last, top != .open {
                    if case .function = top { break }
                    let q = prec(top)
                    guard q > p || (q == p && !rightAssociative) else { break }
                    emit(stack.removeLast())
                }
                stack.append(t)
            }
        }
        while let top = stack.popLast() {
            if top == .open { return nil }
            emit(top)
        }
        return output
    }

    /// Round half away from zero, from floor: exact for every double.
    static func roundHalfAway(_ v: Double) -> Double {
        let f = floor(v)
        let d = v - f
        if d > 0.5 { return f + 1 }
        if d < 0.5 { return f }
        return v > 0 ? f + 1 : f
    }

    /// The value, or nil when the expression fails; `.some(nil)`-free: parse failures are
    /// reported by `evaluate` returning `.unreadable`.
    enum Outcome: Equatable { case value(Double), fails, unreadable }

    static func evaluate(_ text: String, _ values: [String: Double]) -> Outcome {
        guard let t = tokens(text), let program = rpn(t) else { return .unreadable }
        var stack: [Double?] = []
        func finite(_ v: Double) -> Double? { v.isFinite ? v : nil }
        for item in program {
            switch item {
            case .number(let v): stack.append(v)
            case .name(let n):
                guard let v = values[n] else { return .unreadable }
                stack.append(v)
            case .negate:
                guard let a = stack.popLast() else { return .unreadable }
                stack.append(a.map { -$0 })
            case .op(let o):
                guard stack.count >= 2 else { return .unreadable }
                let b = stack.removeLast(), a = stack.removeLast()
                guard let x = a, let y = b else { stack.append(nil); continue }
                switch o {
                case "+": stack.append(finite(x + y))
                case "-": stack.append(finite(x - y))
                case "*": stack.append(finite(x * y))
                case "/": stack.append(y == 0 ? nil : finite(x / y))
                case "^": stack.append(finite(pow(x, y)))
                case "<": stack.append(x < y ? 1 : 0)
                case "<=": stack.append(x <= y ? 1 : 0)
                case ">": stack.append(x > y ? 1 : 0)
                case ">=": stack.append(x >= y ? 1 : 0)
                case "==": stack.append(x == y ? 1 : 0)
                default: stack.append(x != y ? 1 : 0)
                }
            case .call(let f, let n):
                guard let allowed = arity[f], allowed.contains(n), stack.count >= n else { return .unreadable }
                let args = Array(stack.suffix(n))
                stack.removeLast(n)
                if f == "if" {
                    guard let c = args[0] else { stack.append(nil); continue }
                    stack.append(c != 0 ? args[1] : args[2])
                    continue
                }
                guard args.allSatisfy({ $0 != nil }) else { stack.append(nil); continue }
                let a = args.map { $0! }
                let r: Double
                switch f {
                case "min": r = a.reduce(a[0]) { Swift.min($0, $1) }
                case "max": r = a.reduce(a[0]) { Swift.max($0, $1) }
                case "clamp": r = Swift.min(Swift.max(a[0], a[1]), a[2])
                case "abs": r = a[0] < 0 ? -a[0] : a[0]
                case "floor": r = floor(a[0])
                case "ceil": r = ceil(a[0])
                case "round": r = roundHalfAway(a[0])
                case "sqrt": r = sqrt(a[0])
                case "pow": r = pow(a[0], a[1])
                case "exp": r = exp(a[0])
                case "log": r = log(a[0])
                default: r = a[0] + (a[1] - a[0]) * a[2]
                }
                stack.append(finite(r))
            }
        }
        guard stack.count == 1 else { return .unreadable }
        return stack[0].map { .value($0) } ?? .fails
    }
}
