#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A number computed from the chain's variables and the image's size: a string in a chain
/// file that starts with `=` (`"=0.002 * min(width, height)"`), parsed once when the chain
/// is read and evaluated once per image and step, in Double (never per pixel).
///
/// Grammar, loosest binding first:
///
///     expression  = additive [ ("<" | "<=" | ">" | ">=" | "==" | "!=") additive ]
///     additive    = term { ("+" | "-") term }
///     term        = unary { ("*" | "/") unary }
///     unary       = "-" unary | power
///     power       = primary [ "^" unary ]                  (right to left: 2^3^2 = 2^9)
///     primary     = number | name | name "(" expression { "," expression } ")" | "(" expression ")"
///     number      = digits [ "." digits ] [ ("e" | "E") [ "+" | "-" ] digits ]  |  "." digits [ exponent ]
///     name        = letter or "_", then letters, digits or "_"
///
/// So `-2^2` is -4 and `2^-1` is 0.5. A comparison is 1 when it holds, else 0, and
/// comparisons do not chain (`a < b < c` is refused). Names: the chain's variables, `width`
/// and `height` (the step's input, in pixels, after the steps above it), `sourceWidth` and
/// `sourceHeight` (the decoded input's), `frame` (an animation's frame, from 0), `frames`
/// (how many it has) and `time` (the frame's start in seconds); a still is frame 0 of 1 at
/// time 0. Functions: `if(c, a, b)` (a when c is not 0, else
/// b; only the branch taken is evaluated), `min(a, b, ...)`, `max(a, b, ...)`,
/// `clamp(x, lo, hi)` = min(max(x, lo), hi), `abs`, `floor`, `ceil`, `round` (half away
/// from zero), `sqrt`, `pow(a, b)` = a^b, `exp`, `log` (natural), `lerp(a, b, t)` =
/// a + (b - a) t. Division by zero and any result that is not finite (`sqrt(-1)`,
/// `log(0)`, `10^400`) are errors at the operator or function that made them.
public struct NumberExpression: Sendable, Hashable, CustomStringConvertible {
    /// The text as written, `=` included.
    public let text: String
    let root: ExpressionNode
    /// Every name the expression reads (variables, width, height, sourceWidth, sourceHeight).
    public let names: Set<String>
    /// Where the text was written in a chain file: its line, and the file column of each
    /// character (empty for an expression made in code).
    var line = 0
    var columns: [Int] = []

    /// The names every expression knows besides variables: the step's input size and the
    /// source's.
    public static let sizeNames = ["width", "height", "sourceWidth", "sourceHeight"]
    /// The names an animation's frame gives (a still: frame 0 of 1, at time 0).
    public static let frameNames = ["frame", "frames", "time"]
    /// Every name an expression knows besides variables.
    public static let builtinNames = sizeNames + frameNames
    /// The functions, with the arguments each takes (as messages say them).
    public static let functions: [(name: String, arguments: String)] = [
        ("if", "(c, a, b)"), ("min", "(a, b, ...)"), ("max", "(a, b, ...)"), ("clamp", "(x, lo, hi)"),
        ("abs", "(x)"), ("floor", "(x)"), ("ceil", "(x)"), ("round", "(x)"), ("sqrt", "(x)"),
        ("pow", "(a, b)"), ("exp", "(x)"), ("log", "(x)"), ("lerp", "(a, b, t)"),
    ]
    static let functionNames = functions.map(\.name)

    /// True for a string a chain file means as an expression: one starting with `=`.
    public static func isExpression(_ text: String) -> Bool { text.hasPrefix("=") }

    /// Parses `text` (starting with `=`). `names` are the names it may read; `laterNames`
    /// are names that exist but may not be read here (variables declared below a variable),
    /// for a message that says so, naming `reader`, the variable whose value this is.
    public init(_ text: String, names: [String], laterNames: [String] = [], reader: String? = nil) throws(ExpressionError) {
        var parser = ExpressionParser(text, names: names, laterNames: laterNames, reader: reader)
        root = try parser.parse()
        self.text = text
        self.names = parser.used
    }

    public var description: String { text }

    /// True when the value depends on the image (it reads width, height or the source's size).
    public var readsSize: Bool { !names.isDisjoint(with: Self.sizeNames) }

    public static func == (a: NumberExpression, b: NumberExpression) -> Bool { a.text == b.text }
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }

    /// The value, with `values` giving each name read (a name without a value is an
    /// `unknownName` error).
    public func evaluate(_ values: [String: Double]) throws(ExpressionError) -> Double {
        try root.evaluate(values)
    }

    /// The file column of the character at `offset` (0: the `=`), when written in a file.
    func column(at offset: Int) -> Int? {
        guard line > 0, !columns.isEmpty else { return nil }
        return columns[min(max(0, offset), columns.count - 1)]
    }

    /// The same expression, remembering that it was written at `line` (the string's opening
    /// quote at `quoteColumn`) in `source`, so that errors give the file's column of the
    /// character inside the string.
    func locating(line: Int, quoteColumn: Int, source: [UInt8]?) -> NumberExpression {
        var copy = self
        copy.line = line
        copy.columns = JSONParser.stringColumns(source, line: line, quoteColumn: quoteColumn, text: text)
        return copy
    }
}

/// Why an expression was refused: where in its text (the character's offset, 0 being the
/// `=`) and the problem.
public struct ExpressionError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Problem: Sendable, Equatable {
        /// Nothing after the `=`.
        case empty
        /// A syntax error: what was found and what was expected there.
        case unexpected(found: String, expected: String)
        /// A number that does not fit a Double.
        case numberTooLarge(String)
        /// A name that is not a variable, a size or a function; the closest known name; the
        /// names allowed.
        case unknownName(String, suggestion: String?, known: [String])
        /// A variable read by a variable declared above it.
        case declaredBelow(String)
        /// The same, naming the variable that reads it: `reads` is declared below `reader`.
        case readsLater(String, reader: String)
        /// A function name without its arguments (`min` alone).
        case functionWithoutArguments(String)
        /// Arguments after a name that is not a function.
        case notAFunction(String, suggestion: String?)
        /// A function given the wrong number of arguments.
        case arguments(function: String, takes: String, found: Int)
        /// Comparisons in a row (`a < b < c`).
        case chainedComparison
        case divisionByZero
        /// An operation whose result is infinite or not a number: the operation, as written
        /// (`sqrt`, `^`), and its operands.
        case notFinite(String, operands: [Double])
    }

    /// Characters from the start of the text (0 is the `=`).
    public var offset: Int
    public var problem: Problem

    public init(offset: Int, problem: Problem) {
        self.offset = offset
        self.problem = problem
    }

    public var message: String {
        switch problem {
        case .empty: return "nothing after '='; write an expression, like =2 * strength"
        case .unexpected(let found, let expected): return "\(expected) expected, found \(found)"
        case .numberTooLarge(let text): return "the number \(text) is too large"
        case .unknownName(let name, let suggestion, let known):
            return "unknown name '\(name)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? "")
                + " (known: \(known.isEmpty ? "none" : known.joined(separator: ", ")))"
        case .declaredBelow(let name):
            return "'\(name)' is declared below; a variable may read only the variables above it"
        case .readsLater(let name, let reader):
            return "'\(reader)' reads '\(name)', which is declared after it; a variable may read only the variables above it"
        case .functionWithoutArguments(let name):
            let takes = NumberExpression.functions.first { $0.name == name }?.arguments ?? "(...)"
            return "\(name) is a function; write \(name)\(takes)"
        case .notAFunction(let name, let suggestion):
            return "'\(name)' is not a function" + (suggestion.map { "; did you mean '\($0)'?" } ?? "")
                + " (functions: \(NumberExpression.functionNames.joined(separator: ", ")))"
        case .arguments(let function, let takes, let found):
            return "\(function) takes \(takes), found \(found) argument\(found == 1 ? "" : "s")"
        case .chainedComparison: return "comparisons do not chain; write if(a < b, if(b < c, 1, 0), 0)"
        case .divisionByZero: return "division by zero"
        case .notFinite(let operation, let operands):
            let values = operands.map(JSONWriter.number).joined(separator: ", ")
            return "\(operation) of \(values) is not a finite number"
        }
    }

    /// "character 12: unknown name 'widht'; ..." (1-based).
    public var description: String { "character \(offset + 1): \(message)" }
}

/// A parsed expression.
indirect enum ExpressionNode: Sendable, Hashable {
    case number(Double)
    /// A name at `offset`.
    case name(String, offset: Int)
    case negate(ExpressionNode)
    /// An operator at `offset` ("+", "-", "*", "/", "^", "<", "<=", ">", ">=", "==", "!=").
    case binary(String, ExpressionNode, ExpressionNode, offset: Int)
    /// A function at `offset`.
    case call(String, [ExpressionNode], offset: Int)

    func evaluate(_ values: [String: Double]) throws(ExpressionError) -> Double {
        switch self {
        case .number(let v): return v
        case .name(let name, let offset):
            // The parser checked the names; a chain built in code may still lack one.
            guard let v = values[name] else {
                throw ExpressionError(offset: offset, problem: .unknownName(
                    name, suggestion: closestMatch(name, in: Array(values.keys)), known: values.keys.sorted()))
            }
            return v
        case .negate(let a): return -(try a.evaluate(values))
        case .binary(let op, let a, let b, let offset):
            let x = try a.evaluate(values), y = try b.evaluate(values)
            let result: Double
            switch op {
            case "+": result = x + y
            case "-": result = x - y
            case "*": result = x * y
            case "/":
                guard y != 0 else { throw ExpressionError(offset: offset, problem: .divisionByZero) }
                result = x / y
            case "^": result = pow(x, y)
            case "<": return x < y ? 1 : 0
            case "<=": return x <= y ? 1 : 0
            case ">": return x > y ? 1 : 0
            case ">=": return x >= y ? 1 : 0
            case "==": return x == y ? 1 : 0
            default: return x != y ? 1 : 0
            }
            guard result.isFinite else { throw ExpressionError(offset: offset, problem: .notFinite("'\(op)'", operands: [x, y])) }
            return result
        case .call(let name, let arguments, let offset):
            if name == "if" {
                return try arguments[try arguments[0].evaluate(values) != 0 ? 1 : 2].evaluate(values)
            }
            var a: [Double] = []
            for argument in arguments { a.append(try argument.evaluate(values)) }
            let result: Double
            switch name {
            case "min": result = a.min()!
            case "max": result = a.max()!
            case "clamp": result = min(max(a[0], a[1]), a[2])
            case "abs": result = abs(a[0])
            case "floor": result = a[0].rounded(.down)
            case "ceil": result = a[0].rounded(.up)
            case "round": result = a[0].rounded(.toNearestOrAwayFromZero)
            case "sqrt": result = a[0] < 0 ? .nan : a[0].squareRoot()
            case "pow": result = pow(a[0], a[1])
            case "exp": result = exp(a[0])
            case "log": result = a[0] < 0 ? .nan : log(a[0])
            default: result = a[0] + (a[1] - a[0]) * a[2]   // lerp
            }
            guard result.isFinite else { throw ExpressionError(offset: offset, problem: .notFinite(name, operands: a)) }
            return result
        }
    }
}
