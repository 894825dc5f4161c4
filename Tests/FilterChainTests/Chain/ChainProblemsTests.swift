import Foundation
import Testing
@testable import FilterChain

/// `Chain.problems`: every independent problem of a file, each at its path, line and column.
/// The reference for each problem is the loader itself (`Chain.parse`, which stops at the
/// first): a file that differs from the bad one only in that every other problem is mended,
/// with the same text length on every line, must give that problem at the same place.
@Suite struct ChainProblemsTests {
    static func id(_ n: Int) -> String { String(format: "0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C%04X", n) }

    /// One line of the file: the bad text, and for each of its problems the text with only
    /// that problem (the others mended by text of the same length).
    struct Line {
        var bad: String
        /// The line with only problem k; empty: the line has one problem (`bad`) or none.
        var alone: [String] = []
        var good: String
        var problems: Int { alone.isEmpty ? (bad == good ? 0 : 1) : alone.count }
        func only(_ k: Int) -> String { alone.isEmpty ? bad : alone[k] }
    }


    static func step(_ n: Int, _ body: String, last: Bool = false) -> String {
        "    { \"id\": \"\(id(n))\", \(body) }" + (last ? "" : ",")
    }

    /// The document with line `k`'s problem `p` alone and every other line mended (nil:
    /// the bad document; a line index outside the file: every line mended).
    static func document(_ lines: [Line], only: (line: Int, problem: Int)? = nil) -> String {
        lines.enumerated().map { i, line in
            guard let only else { return line.bad }
            return i == only.line ? line.only(only.problem) : line.good
        }.joined(separator: "\n")
    }

    static let cube = TestData.samples.appendingPathComponent("luts/warm-film.cube").path

    /// Problems on several lines, several on one line, at the top and in steps. Only the
    /// text before a problem on its own line must keep its length when the others are
    /// mended (columns count from the line's start).
    static let file: [Line] = [
        Line(bad: "{ \"version\": 1, \"workingSpace\": \"srbg\",", good: "{ \"version\": 1, \"workingSpace\": \"srgb\","),
        Line(bad: "  \"colour\": 3,", good: ""),
        Line(bad: "  \"filters\": [", good: "  \"filters\": ["),
        // A misspelt parameter and one out of range.
        Line(bad: step(1, "\"type\": \"colorControls\", \"parameters\": { \"saturatiom\": 1.2, \"brightness\": 5.0 }"),
             alone: [step(1, "\"type\": \"colorControls\", \"parameters\": { \"saturatiom\": 1.2, \"brightness\": 0.5 }"),
                     step(1, "\"type\": \"colorControls\", \"parameters\": { \"saturation\": 1.2, \"brightness\": 5.0 }")],
             good: step(1, "\"type\": \"colorControls\", \"parameters\": { \"saturation\": 1.2, \"brightness\": 0.5 }")),
        // A bad id and a curve point out of range.
        Line(bad: "    { \"id\": \"XF6C1B9E-3C1A-4D2B-8E57-6A1F0B2C0002\", \"type\": \"toneCurve\", \"parameters\": { \"points\": [[0, 0], [1, 2]] } },",
             alone: ["    { \"id\": \"XF6C1B9E-3C1A-4D2B-8E57-6A1F0B2C0002\", \"type\": \"toneCurve\", \"parameters\": { \"points\": [[0, 0], [1, 1]] } },",
                     "    { \"id\": \"0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C0002\", \"type\": \"toneCurve\", \"parameters\": { \"points\": [[0, 0], [1, 2]] } },"],
             good: "    { \"id\": \"0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C0002\", \"type\": \"toneCurve\", \"parameters\": { \"points\": [[0, 0], [1, 1]] } },"),
        // An unknown key of the step and a parameter out of range.
        Line(bad: step(3, "\"type\": \"gaussianBlur\", \"enablex\": true, \"parameters\": { \"sigma\": -2 }"),
             alone: [step(3, "\"type\": \"gaussianBlur\", \"enablex\": true, \"parameters\": { \"sigma\": 2 }"),
                     step(3, "\"type\": \"gaussianBlur\", \"enabled\": true, \"parameters\": { \"sigma\": -2 }")],
             good: step(3, "\"type\": \"gaussianBlur\", \"enabled\": true, \"parameters\": { \"sigma\": 2 }")),
        // An unknown type: nothing more of the step can be read (its sigma is not checked).
        Line(bad: step(4, "\"type\": \"blurr\", \"parameters\": { \"sigma\": -2 }"),
             good: step(4, "\"type\": \"gaussianBlur\", \"parameters\": { \"sigma\": 2 }")),
        // Parameters each allowed but not together.
        Line(bad: step(5, "\"type\": \"resize\", \"parameters\": { \"width\": 10, \"scale\": 0.5 }"),
             good: step(5, "\"type\": \"resize\", \"parameters\": { \"width\": 10 }")),
        // A width out of range: left out, the step has no size, which follows from it and
        // is not reported.
        Line(bad: step(6, "\"type\": \"resize\", \"parameters\": { \"width\": -5 }"),
             good: step(6, "\"type\": \"resize\", \"parameters\": { \"width\": 50 }")),
        // A required parameter missing.
        Line(bad: step(7, "\"type\": \"lut\", \"parameters\": { \"intensity\": 0.5 }"),
             good: step(7, "\"type\": \"lut\", \"parameters\": { \"intensity\": 0.5, \"file\": \"\(cube)\" }")),
        Line(bad: step(8, "\"type\": \"vignette\", \"parameters\": { \"intensity\": 9 }", last: true),
             good: step(8, "\"type\": \"vignette\", \"parameters\": { \"intensity\": 1 }", last: true)),
        Line(bad: "  ] }", good: "  ] }"),
    ]

    @Test func everyIndependentProblemAtItsPlace() throws {
        let lines = Self.file
        let bad = Self.document(lines)
        let found = Chain.problems(in: Array(bad.utf8), file: "look.json")
        var expected: [ChainError] = []
        for (i, line) in lines.enumerated() {
            for k in 0..<line.problems {
                let text = Self.document(lines, only: (i, k))
                do {
                    _ = try Chain.parse(Array(text.utf8), file: "look.json")
                    Issue.record("line \(i + 1), problem \(k): the reference document is valid:\n\(text)")
                } catch {
                    expected.append(error)
                }
            }
        }
        // The mended document is valid.
        #expect(throws: Never.self) { try Chain.parse(Array(Self.document(lines, only: (-1, 0)).utf8), file: "look.json") }
        #expect(found.map(\.description) == expected.map(\.description))
        #expect(found.count == 13, "\(found.map(\.description).joined(separator: "\n"))")
        #expect(found.allSatisfy { $0.line != nil && $0.column != nil })
        // In the file's order.
        #expect(found.map { [$0.line!, $0.column!] } == found.map { [$0.line!, $0.column!] }.sorted { ($0[0], $0[1]) < ($1[0], $1[1]) })
    }

    /// A variable reading one declared after it is that variable's problem, saying which it
    /// reads; a step reading the variable is not blamed again (it was "unknown name 'b'; did
    /// you mean 'if'?": the checker had not read the variables), and the load says the same.
    @Test func aVariableReadingALaterOneIsItsOwnProblem() throws {
        let text = """
            { "version": 2,
              "variables": [ { "name": "b", "value": "=a" }, { "name": "a", "value": 2 } ],
              "filters": [ { "id": "0D4A1E1C-3B6F-4E39-9E9F-6A0F1B2C3D4E", "type": "exposure", "parameters": { "ev": "=b" } } ] }
            """
        let found = Chain.problems(in: Array(text.utf8), file: "v.json")
        #expect(found.map(\.path) == ["variables[0].value"], "\(found)")
        #expect(found.first?.message.contains("'b' reads 'a', which is declared after it") == true, "\(found)")
        #expect(found.first?.line == 2 && found.first?.column == 44, "\(found)")
        var loaderSays = ""
        do { _ = try Chain.parse(Array(text.utf8), file: "v.json") } catch { loaderSays = error.description }
        #expect(found.map(\.description) == [loaderSays])
        // With another problem beside it, both are found, and still nothing at the step.
        let two = text.replacingOccurrences(of: #""id": "0D4A1E1C-3B6F-4E39-9E9F-6A0F1B2C3D4E", "#, with: "")
        let both = Chain.problems(in: Array(two.utf8), file: "v.json")
        #expect(both.map(\.path) == ["variables[0].value", "filters[0]"], "\(both)")
    }

    /// A name read as a value that is not known is offered the closest variable or size, never
    /// a function (which would need its parentheses).
    @Test func anUnknownNameIsNotOfferedAFunction() throws {
        for (text, names, suggestion) in [("=b", [String](), nil as String?), ("=iff", ["gain"], nil), ("=gian", ["gain"], "gain"),
                                          ("=maxx", ["width"], nil), ("=widht", ["width", "height"], "width")] {
            do {
                _ = try NumberExpression(text, names: names)
                Issue.record("\(text) was taken")
            } catch {
                guard case .unknownName(_, let offered, _) = error.problem else {
                    Issue.record("\(text): \(error.message)")
                    continue
                }
                #expect(offered == suggestion, "\(text): \(error.message)")
            }
        }
    }

    @Test func aValidFileHasNoProblemsAndSyntaxHasOne() throws {
        let glow = TestData.samples.appendingPathComponent("chains/glow.json").path
        #expect(Chain.problems(file: glow).isEmpty)
        let broken = "{ \"version\": 1, \"filters\": [ { \"id\": 1, } ] }"
        var loaderSays = ""
        do { _ = try Chain.parse(Array(broken.utf8), file: "x.json") } catch { loaderSays = error.description }
        #expect(Chain.problems(in: Array(broken.utf8), file: "x.json").map(\.description) == [loaderSays])
        #expect(Chain.problems(file: "/nonexistent/x.json").map(\.description) == ["/nonexistent/x.json: cannot read the chain file: no such file"])
    }

    /// References are checked once everything else is valid: alone, a bad reference is the
    /// one problem; beside a bad value, only the value is reported.
    @Test func theGraphOnceTheRestIsValid() throws {
        func document(sigma: String, layer: String) -> String {
            """
            { "version": 2, "filters": [
              { "id": "\(Self.id(1))", "type": "gaussianBlur", "name": "soft", "parameters": { "sigma": \(sigma) } },
              { "id": "\(Self.id(2))", "type": "blend", "parameters": { "layer": "\(layer)" } } ] }
            """
        }
        let reference = document(sigma: "2", layer: "sofft")
        let alone = Chain.problems(in: Array(reference.utf8), file: "g.json")
        var loaderSays = ""
        do { _ = try Chain.parse(Array(reference.utf8), file: "g.json") } catch { loaderSays = error.description }
        #expect(alone.map(\.description) == [loaderSays])
        #expect(loaderSays.contains("did you mean \"soft\""))
        let both = Chain.problems(in: Array(document(sigma: "-1", layer: "sofft").utf8), file: "g.json")
        #expect(both.map(\.path) == ["filters[0].parameters.sigma"])
        // Names and ids are claimed as the loader claims them, beside other problems.
        let names = """
            { "version": 1, "filters": [
              { "id": "\(Self.id(1))", "type": "invert", "name": "a" },
              { "id": "\(Self.id(2))", "type": "invert", "name": "a" },
              { "id": "\(Self.id(1))", "type": "gaussianBlur", "parameters": { "sigma": -1 } } ] }
            """
        #expect(Chain.problems(in: Array(names.utf8), file: "n.json").map(\.path)
                == ["filters[1].name", "filters[2].id", "filters[2].parameters.sigma"])
    }

    /// At most `limit` problems.
    @Test func upToTheLimit() throws {
        let steps = (1...25).map { "{ \"id\": \"\(Self.id($0))\", \"type\": \"gaussianBlur\", \"parameters\": { \"sigma\": -\($0) } }" }
        let text = "{ \"version\": 1, \"filters\": [\n" + steps.joined(separator: ",\n") + "] }"
        let twenty = Chain.problems(in: Array(text.utf8), file: "many.json")
        #expect(twenty.count == 20)
        #expect(twenty.map(\.path) == (0..<20).map { "filters[\($0)].parameters.sigma" })
        #expect(Chain.problems(in: Array(text.utf8), file: "many.json", limit: 100).count == 25)
    }
}
