import Foundation
import Testing
@testable import FilterChain

/// Expressions against `ReferenceExpression`, a plain evaluator written from the grammar in
/// filters.md (shunting-yard and a stack machine, apart from the library's recursive
/// descent): a table of cases with their values worked out by hand, then thousands of random
/// expressions drawn from the grammar; and every error, with the character it names.
@Suite struct ExpressionTests {
    static let names = ["strength", "long", "a", "b"] + NumberExpression.sizeNames
    static let values: [String: Double] = ["strength": 0.5, "long": 1600, "a": 3, "b": -2,
                                           "width": 6000, "height": 4000, "sourceWidth": 6000, "sourceHeight": 4000]

    /// (text, value by hand; nil: the expression fails).
    static let table: [(String, Double?)] = [
        ("=1", 1), ("=  2.5 ", 2.5), ("=.5", 0.5), ("=2.", 2), ("=1e3", 1000), ("=1E-2", 0.01), ("=2.5e+1", 25),
        ("=1 + 2 * 3", 7), ("=(1 + 2) * 3", 9), ("=10 - 4 - 3", 3), ("=2 * 3 / 4", 1.5), ("=8 / 4 / 2", 1),
        ("=2 ^ 3 ^ 2", 512), ("=(2 ^ 3) ^ 2", 64), ("=-2 ^ 2", -4), ("=(-2) ^ 2", 4), ("=2 ^ -1", 0.5),
        ("=--3", 3), ("=2 * -3", -6), ("=-a", -3), ("=a - -b", 1), ("=2*-3^2", -18),
        ("=1 + strength", 1.5), ("=0.002 * min(width, height)", 0.002 * 4000), ("=min(long, width)", 1600),
        ("=max(1, 5, 3)", 5), ("=min(4, -1, 2)", -1), ("=clamp(7, 0, 5)", 5), ("=clamp(-1, 0, 5)", 0),
        ("=abs(b)", 2), ("=floor(2.7)", 2), ("=floor(-2.2)", -3), ("=ceil(2.2)", 3), ("=ceil(-2.7)", -2),
        ("=round(2.5)", 3), ("=round(-2.5)", -3), ("=round(2.4999)", 2), ("=round(-0.5)", -1), ("=round(0.5)", 1),
        ("=sqrt(16)", 4), ("=pow(2, 10)", 1024), ("=exp(0)", 1), ("=log(1)", 0), ("=lerp(10, 20, 0.25)", 12.5),
        ("=1 < 2", 1), ("=2 < 1", 0), ("=2 <= 2", 1), ("=3 > 2", 1), ("=2 >= 3", 0), ("=2 == 2", 1), ("=2 != 2", 0),
        ("=1 + 1 < 3", 1), ("=if(width > height, 1, 2)", 1), ("=if(0, 1, 2)", 2), ("=if(strength, long, 0)", 1600),
        ("=if(1, 5, 1 / 0)", 5), ("=if(0, sqrt(-1), 7)", 7),
        ("=1 / 0", nil), ("=0 / 0", nil), ("=sqrt(-1)", nil), ("=log(0)", nil), ("=log(-1)", nil), ("=10 ^ 400", nil),
        ("=exp(1000)", nil), ("=pow(0, -1)", nil), ("=min(1 / 0, 3)", nil), ("=if(1 / 0, 1, 2)", nil),
        ("=width / height", 1.5), ("=sourceWidth * sourceHeight / 1e6", 24),
    ]

    @Test(arguments: table)
    func value(_ text: String, _ expected: Double?) throws {
        let e = try NumberExpression(text, names: Self.names)
        let reference = ReferenceExpression.evaluate(text, Self.values)
        let got: Double? = try? e.evaluate(Self.values)
        #expect(got == expected, "\(text)")
        #expect(reference == (expected.map { .value($0) } ?? .fails), "the reference evaluator on \(text)")
    }

    /// Expressions drawn at random from the grammar (random spacing, parentheses, every
    /// operator and function): the library and the reference agree on every one, exactly
    /// (both compute the same operations in the same order).
    @Test func randomExpressionsAgreeWithTheReference() throws {
        var e = SeedEntropy(0xE4A1_5EED)
        var failing = 0
        for _ in 0..<8_000 {
            let text = "=" + RandomExpression.expression(&e, depth: 0, names: Self.names)
            let expression: NumberExpression
            do { expression = try NumberExpression(text, names: Self.names) } catch {
                Issue.record("\(text): refused: \(error)")
                continue
            }
            let reference = ReferenceExpression.evaluate(text, Self.values)
            #expect(reference != .unreadable, "the reference cannot read \(text)")
            do {
                let v = try expression.evaluate(Self.values)
                #expect(reference == .value(v), "\(text): \(v), the reference \(reference)")
            } catch {
                failing += 1
                #expect(reference == .fails, "\(text): \(error), the reference \(reference)")
            }
        }
        // Both outcomes are exercised.
        #expect(failing > 100 && failing < 6_000, "\(failing) failing")
    }

    /// (text, the character the error names (0 is the '='), words of the message).
    static let errors: [(String, Int, String)] = [
        ("=", 1, "nothing after '='"),
        ("=   ", 4, "nothing after '='"),
        ("=1 +", 4, "a number, a name or '(' expected, found the end"),
        ("=2 * (3", 7, "')' expected, found the end"),
        ("=2 3", 3, "an operator"),
        ("=strenght + 1", 1, "unknown name 'strenght'; did you mean 'strength'?"),
        ("=1 + widht", 5, "did you mean 'width'?"),
        ("=min", 1, "min is a function; write min(a, b, ...)"),
        ("=mn(1, 2)", 1, "'mn' is not a function; did you mean 'min'?"),
        ("=strength(2)", 1, "'strength' is not a function"),
        ("=clamp(1, 2)", 1, "clamp takes (x, lo, hi), found 2 arguments"),
        ("=min(1)", 1, "min takes (a, b, ...), found 1 argument"),
        ("=sqrt()", 1, "sqrt takes (x), found 0 arguments"),
        ("=1 < 2 < 3", 7, "comparisons do not chain"),
        ("=1e", 3, "digits of the exponent expected, found '1e'"),
        ("=1.2.3", 4, "a number expected, found '1.2.3'"),
        ("=2x", 2, "a number expected, found '2x'"),
        ("=1 # 2", 3, "found '#'"),
        ("=1 + é", 5, "found 'é'"),
        ("=1e999", 1, "the number 1e999 is too large"),
        ("=(1, 2)", 3, "')' expected, found ','"),
        ("=2 * 3)", 6, "an operator"),
        ("2 * 3", 0, "'=' (an expression starts with it)"),
    ]

    @Test(arguments: errors)
    func syntaxError(_ text: String, _ offset: Int, _ words: String) {
        #expect(throws: ExpressionError.self, "\(text)") { try NumberExpression(text, names: Self.names) }
        do { _ = try NumberExpression(text, names: Self.names) } catch {
            #expect(error.offset == offset, "\(text): \(error)")
            #expect(error.message.contains(words), "\(text): \(error.message)")
            #expect(error.description.hasPrefix("character \(offset + 1): "))
        }
    }

    /// Errors of values: at the operator or function that made them.
    @Test(arguments: [("=1 + 2 / (a - 3)", 7, "division by zero"), ("=sqrt(b)", 1, "sqrt of -2 is not a finite number"),
                      ("=2 * log(0)", 5, "log of 0 is not a finite number"), ("=10 ^ 400", 4, "'^' of 10, 400 is not a finite number"),
                      ("=if(b < 0, 1 / (a - a), 1)", 13, "division by zero")])
    func valueError(_ text: String, _ offset: Int, _ words: String) throws {
        let e = try NumberExpression(text, names: Self.names)
        #expect(throws: ExpressionError.self) { try e.evaluate(Self.values) }
        do { _ = try e.evaluate(Self.values) } catch {
            #expect(error.offset == offset, "\(text): \(error)")
            #expect(error.message == words, "\(text)")
        }
    }

    @Test func aVariableReadBeforeItIsDeclaredIsNamedSo() {
        do { _ = try NumberExpression("=2 * gain", names: ["a"], laterNames: ["gain"]) } catch {
            #expect(error == ExpressionError(offset: 5, problem: .declaredBelow("gain")))
            #expect(error.message == "'gain' is declared below; a variable may read only the variables above it")
        }
    }

    @Test func namesAndSizesRead() throws {
        let e = try NumberExpression("=0.002 * min(width, height) + if(strength, a, 0)", names: Self.names)
        #expect(e.names == ["width", "height", "strength", "a"])
        #expect(e.readsSize)
        #expect(!(try NumberExpression("=1 + strength", names: Self.names)).readsSize)
    }

    @Test func deepNestingIsRefusedNotACrash() throws {
        let deep = "=" + String(repeating: "(", count: 5000) + "1" + String(repeating: ")", count: 5000)
        #expect(throws: ExpressionError.self) { try NumberExpression(deep, names: []) }
        let minus = "=" + String(repeating: "-", count: 5000) + "1"
        #expect(throws: ExpressionError.self) { try NumberExpression(minus, names: []) }
        let fine = "=" + String(repeating: "(", count: 100) + "1" + String(repeating: ")", count: 100)
        #expect(try NumberExpression(fine, names: []).evaluate([:]) == 1)
    }
}

/// Random expressions from the grammar, for the tests above and the random chains.
enum RandomExpression {
    static func space(_ e: inout some CaseEntropy) -> String { e.chance(0.3) ? " " : "" }

    static func number(_ e: inout some CaseEntropy) -> String {
        e.pick(["0", "1", "2", "0.5", ".25", "3.75", "10", "1e3", "2.5e-1", "7.", "100", "0.001"])
    }

    static func expression(_ e: inout some CaseEntropy, depth: Int, names: [String]) -> String {
        var text = additive(&e, depth: depth, names: names)
        if depth < 4 && e.chance(0.12) {
            text += space(&e) + e.pick(["<", "<=", ">", ">=", "==", "!="]) + space(&e) + additive(&e, depth: depth, names: names)
        }
        return text
    }

    static func additive(_ e: inout some CaseEntropy, depth: Int, names: [String]) -> String {
        var text = term(&e, depth: depth, names: names)
        while depth < 4 && e.chance(0.3) { text += space(&e) + e.pick(["+", "-"]) + space(&e) + term(&e, depth: depth, names: names) }
        return text
    }

    static func term(_ e: inout some CaseEntropy, depth: Int, names: [String]) -> String {
        var text = unary(&e, depth: depth, names: names)
        while depth < 4 && e.chance(0.3) { text += space(&e) + e.pick(["*", "/"]) + space(&e) + unary(&e, depth: depth, names: names) }
        return text
    }

    static func unary(_ e: inout some CaseEntropy, depth: Int, names: [String]) -> String {
        if e.chance(0.12) { return "-" + space(&e) + unary(&e, depth: depth + 1, names: names) }
        var text = primary(&e, depth: depth, names: names)
        if depth < 4 && e.chance(0.1) { text += space(&e) + "^" + space(&e) + unary(&e, depth: depth + 1, names: names) }
        return text
    }

    static func primary(_ e: inout some CaseEntropy, depth: Int, names: [String]) -> String {
        let choice = depth >= 4 ? e.int(0...1) : e.int(0...4)
        switch choice {
        case 0: return number(&e)
        case 1: return e.pick(names)
        case 2: return "(" + space(&e) + expression(&e, depth: depth + 1, names: names) + space(&e) + ")"
        default:
            let (name, count) = e.pick([("if", 3), ("min", 2), ("max", 3), ("clamp", 3), ("abs", 1), ("floor", 1), ("ceil", 1),
                                        ("round", 1), ("sqrt", 1), ("pow", 2), ("exp", 1), ("log", 1), ("lerp", 3)])
            let arguments = (0..<count).map { _ in expression(&e, depth: depth + 1, names: names) }
            return name + "(" + arguments.joined(separator: "," + space(&e)) + ")"
        }
    }
}
