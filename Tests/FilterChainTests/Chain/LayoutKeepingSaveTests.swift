import Foundation
import Testing
@testable import FilterChain

/// Saving over a file formatted by hand keeps its formatting where the edit is local (the
/// editor's Save): the text is the original with only the changed values' text replaced.
@Suite struct LayoutKeepingSaveTests {
    static let handWritten = """
        {"version": 1,
          "filters": [
            {"id": "11111111-1111-4111-8111-111111111111", "type": "colorControls",
             "parameters": {"saturation": 1.2,   "contrast": 1.1}},
            {"id": "22222222-2222-4222-8222-222222222222", "type": "toneCurve",
             "parameters": {"points": [[0, 0], [0.5, 0.6], [1, 1]]}}
          ]
        }

        """

    func chain() throws -> Chain { try Chain.parse(Array(Self.handWritten.utf8), file: "c.json") }

    func filter<F: Filter>(_ chain: Chain, _ index: Int, as _: F.Type) throws -> F {
        try #require(chain.steps[index].filter as? F)
    }

    @Test func aChangedValueIsTheOnlyTextChanged() throws {
        var chain = try chain()
        var colour = try filter(chain, 0, as: ColorControls.self)
        colour.saturation = 1.5
        chain.steps[0].filter = colour
        let text = chain.text(keepingLayoutOf: Array(Self.handWritten.utf8), file: "c.json")
        #expect(text == Self.handWritten.replacingOccurrences(of: "\"saturation\": 1.2", with: "\"saturation\": 1.5"))
        #expect(try Chain.parse(Array(text.utf8), file: "c.json").jsonText == chain.jsonText)
    }

    /// A value the file left to its default is added at the end of its object; a one-line
    /// array that changed length is replaced on its line.
    @Test func aDefaultedMemberIsAddedAndAOneLineArrayReplaced() throws {
        var chain = try chain()
        var colour = try filter(chain, 0, as: ColorControls.self)
        colour.brightness = 0.25
        chain.steps[0].filter = colour
        var curve = try filter(chain, 1, as: ToneCurve.self)
        curve.points = [CurvePoint(0, 0.1), CurvePoint(1, 1)]
        chain.steps[1].filter = curve
        let text = chain.text(keepingLayoutOf: Array(Self.handWritten.utf8), file: "c.json")
        let expected = Self.handWritten
            .replacingOccurrences(of: "\"contrast\": 1.1}", with: "\"contrast\": 1.1, \"brightness\": 0.25}")
            .replacingOccurrences(of: "[[0, 0], [0.5, 0.6], [1, 1]]", with: "[[0, 0.1], [1, 1]]")
        #expect(text == expected, "\(text)")
        #expect(try Chain.parse(Array(text.utf8), file: "c.json").jsonText == chain.jsonText)
    }

    /// A change of shape (a step added, a step removed) is written in the standard form.
    @Test func aChangeOfShapeIsTheStandardForm() throws {
        var added = try chain()
        added.steps.append(Step(filter: GaussianBlur()))
        #expect(added.text(keepingLayoutOf: Array(Self.handWritten.utf8), file: "c.json") == added.jsonText)
        var removed = try chain()
        removed.steps.removeLast()
        #expect(removed.text(keepingLayoutOf: Array(Self.handWritten.utf8), file: "c.json") == removed.jsonText)
        // Nothing changed: the file's own text.
        #expect(try chain().text(keepingLayoutOf: Array(Self.handWritten.utf8), file: "c.json") == Self.handWritten)
    }

    static func decoded<F: Filter>(_ filter: F, _ node: JSONNode) throws -> any Filter { try F.declaration.decode(node) }

    /// Whatever the edit, the text reads back as the chain saved (random values on every
    /// number parameter of the sample chains, each file reformatted by hand first).
    @Test func everyEditReadsBackAsTheChain() throws {
        var rng = SeededRandom(11)
        let folder = TestData.packageRoot.appendingPathComponent("samples/chains")
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where name.hasSuffix(".json") {
            let original = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
            guard var chain = try? Chain.parse(original, file: name), !chain.steps.isEmpty else { continue }
            let k = Int.random(in: 0..<chain.steps.count, using: &rng)
            var node = chain.steps[k].filter.parametersJSON
            if case .object(var members) = node.value,
               let at = members.firstIndex(where: { if case .number = $0.value.value { true } else { false } }) {
                if case .number(let v) = members[at].value.value { members[at].value = JSONNode(.number(v == 0 ? 0.5 : v * 0.5)) }
                node = JSONNode(.object(members))
            }
            if let edited = try? Self.decoded(chain.steps[k].filter, node) { chain.steps[k].filter = edited }
            let text = chain.text(keepingLayoutOf: original, file: name)
            #expect(try Chain.parse(Array(text.utf8), file: name).jsonText == chain.jsonText, "\(name)")
        }
    }
}

extension LayoutKeepingSaveTests {
    /// Steps added to a file that had none (`"filters": []`, one line) are not squeezed onto
    /// that line: the standard form is written.
    @Test func stepsAddedToAnEmptyListAreTheStandardForm() throws {
        let empty = #"{"version": 2, "filters": []}"#
        var chain = try Chain.parse(Array(empty.utf8), file: "e.json")
        chain.steps.append(Step(filter: GaussianBlur()))
        #expect(chain.text(keepingLayoutOf: Array(empty.utf8), file: "e.json") == chain.jsonText)
    }
}
