import Foundation
import Testing
@testable import FilterChain

/// Chain reading and editing at the library level (the CLI's `chain` commands sit on these).
@Suite struct ChainEditingTests {
    static let text = """
        {"version": 1, "workingSpace": "linear", "filters": [
          {"id": "0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41", "type": "colorControls", "name": "colour",
           "parameters": {"saturation": 1.2}},
          {"id": "7A2D4E6F-8B9C-4A1D-9E2F-3B4C5D6E7F80", "type": "gaussianBlur", "enabled": false,
           "parameters": {"sigma": 3}}
        ]}
        """

    @Test func aChainFileBecomesStepsWithTheirIdentity() throws {
        let chain = try Chain.parse(Array(Self.text.utf8), file: "c.json")
        #expect(chain.workingSpace == .linear)
        #expect(chain.steps.map(\.id) == ["0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41", "7A2D4E6F-8B9C-4A1D-9E2F-3B4C5D6E7F80"])
        #expect(chain.steps.map(\.name) == ["colour", nil])
        #expect(chain.steps.map(\.enabled) == [true, false])
        let colour = try #require(chain.steps[0].filter as? ColorControls)
        #expect(colour.saturation == 1.2 && colour.contrast == 1 && colour.brightness == 0)
        #expect((chain.steps[1].filter as? GaussianBlur)?.sigma == 3)
        #expect(chain.steps.map(\.label) == ["colour", "gaussianBlur"])
    }

    @Test func theWrittenTextReadsBackToTheSameChain() throws {
        let chain = try Chain.parse(Array(Self.text.utf8), file: "c.json")
        let again = try Chain.parse(Array(chain.jsonText.utf8), file: "again.json")
        #expect(again.jsonText == chain.jsonText)
        #expect(again.steps.map(\.id) == chain.steps.map(\.id))
        #expect(again.steps.map(\.enabled) == [true, false])
        // Every parameter is written out, defaults included, and the key order is fixed.
        #expect(chain.jsonText.contains("\"contrast\": 1"))
        let keys = chain.jsonText.components(separatedBy: "\"").filter { ["version", "workingSpace", "filters"].contains($0) }
        #expect(keys == ["version", "workingSpace", "filters"])
    }

    static let refused: [(String, String, ChainError.Problem)] = [
        (#"{"version": 3, "filters": []}"#, "version", .unsupportedVersion("3")),
        (#"{"version": 1}"#, "", .missingKey("filters")),
        (#"{"version": 1, "filters": [], "extra": 1}"#, "extra", .unknownKey("extra", suggestion: nil, allowed: ["version", "workingSpace", "filters"])),
        (#"{"version": 1, "filters": [{"id": "x", "type": "gaussianBlur"}]}"#, "filters[0].id", .invalidID("x")),
        (#"{"version": 1, "filters": [{"id": "0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41", "type": "gausianBlur"}]}"#,
         "filters[0].type", .unknownFilterType("gausianBlur", suggestion: "gaussianBlur", known: FilterRegistry.names)),
        (#"{"version": 1, "filters": [{"id": "0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41", "type": "gaussianBlur", "parameters": {"sigma": -1}}]}"#,
         "filters[0].parameters.sigma", .outOfRange(-1, 0...500)),
        (#"{"version": 1, "filters": [{"id": "0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41", "type": "gaussianBlur", "parameters": {"sigma": "2"}}]}"#,
         "filters[0].parameters.sigma", .wrongType(expected: "a number", found: "a string")),
    ]

    @Test(arguments: refused)
    func invalidChainsNameThePathAndTheProblem(_ test: (String, String, ChainError.Problem)) throws {
        let (text, path, problem) = test
        let error = try #require(throws: ChainError.self) { try Chain.parse(Array(text.utf8), file: "bad.json") }
        #expect(error.file == "bad.json")
        #expect(error.path == path, "\(error)")
        #expect(error.problem == problem, "\(error)")
    }

    @Test func duplicateIdsAreRefused() {
        let text = #"{"version": 1, "filters": [{"id": "0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41", "type": "gaussianBlur"}, {"id": "0f6c1b9e-3c1a-4d2b-8e57-6a1f0b2c3d41", "type": "toneCurve"}]}"#
        #expect {
            try Chain.parse(Array(text.utf8), file: "d.json")
        } throws: { error in
            guard let error = error as? ChainError, case .duplicateID = error.problem else { return false }
            return error.path.hasPrefix("filters[1]")
        }
    }

    @Test func parameterValuesAreJSONOrABareWord() {
        #expect(Chain.parameterValue("2").value == .number(2))
        #expect(JSONWriter.compact(Chain.parameterValue("[[0,0],  [1,1]]")) == "[[0, 0], [1, 1]]")
        #expect(Chain.parameterValue("\"linear\"").value == .string("linear"))
        #expect(Chain.parameterValue("linear").value == .string("linear"))
        #expect(Chain.parameterValue("[1,").value == .string("[1,"))
    }

    @Test func settingAParameterValidatesItAsTheFileWould() throws {
        var chain = try Chain.parse(Array(Self.text.utf8), file: "c.json")
        try chain.setParameter(at: 1, "sigma", to: JSONNode(.number(7.5)), file: "c.json")
        #expect((chain.steps[1].filter as? GaussianBlur)?.sigma == 7.5)
        #expect(chain.steps[1].id == "7A2D4E6F-8B9C-4A1D-9E2F-3B4C5D6E7F80")
        #expect(throws: ChainError.self) {
            try chain.setParameter(at: 1, "sigma", to: JSONNode(.number(-1)), file: "c.json")
        }
        let error = try #require(throws: ChainError.self) {
            try chain.setParameter(at: 0, "saturaton", to: JSONNode(.number(1)), file: "c.json")
        }
        #expect(error.path == "filters[0].parameters.saturaton")
        #expect(error.problem == .unknownParameter("saturaton", filter: "colorControls", suggestion: "saturation",
                                                  allowed: ["saturation", "brightness", "contrast"]))
        // A refused value leaves the step as it was.
        #expect((chain.steps[1].filter as? GaussianBlur)?.sigma == 7.5)
        #expect((chain.steps[0].filter as? ColorControls)?.saturation == 1.2)
    }

    @Test func newStepsHaveDefaultsAndAFreshId() throws {
        let a = try Chain.makeStep(type: "toneCurve", name: "curve", file: "c.json")
        let b = try Chain.makeStep(type: "toneCurve", name: nil, file: "c.json")
        #expect(a.id != b.id && UUID(uuidString: a.id) != nil)
        #expect(a.name == "curve" && a.enabled)
        #expect(a.filter.parametersJSON == ToneCurve().parametersJSON)
        #expect(throws: ChainError.self) { try Chain.makeStep(type: "blur", name: nil, file: "c.json") }
    }

    @Test func savingWritesTheFileAtomicallyAndRefusesNothingValid() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chain-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var chain = try Chain.parse(Array(Self.text.utf8), file: "c.json")
        chain.steps.swapAt(0, 1)
        chain.steps.append(try Chain.makeStep(type: "toneCurve", name: nil, file: "c.json"))
        try chain.save(to: folder + "/c.json")
        let loaded = try Chain.load(folder + "/c.json")
        #expect(loaded.steps.map(\.id) == chain.steps.map(\.id))
        #expect(loaded.jsonText == chain.jsonText)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["c.json"])
        #expect(throws: ChainError.self) { try chain.save(to: folder + "/missing/c.json") }
    }
}

/// Issue 25, item 9: "did you mean" finds the filter a person meant by a part of its name,
/// a misspelling, or a word of its summary, and nothing for a word that fits none.
@Suite struct FilterSuggestionTests {
    @Test(arguments: [("blur", "gaussianBlur"), ("Blur", "gaussianBlur"), ("gausianBlur", "gaussianBlur"),
                      ("sharpen", "unsharpMask"), ("sharp", "unsharpMask"), ("curve", "toneCurve"),
                      ("negative", "invert"), ("mirror", "flip"), ("vignete", "vignette"), ("lut", "lut")])
    func suggestions(word: String, expected: String) {
        #expect(FilterRegistry.closestName(to: word) == expected)
    }

    @Test func noSuggestionForAnUnrelatedWord() {
        #expect(FilterRegistry.closestName(to: "zzzzqx") == nil)
        #expect(FilterRegistry.closestName(to: "xy") == nil)
    }

    /// The chain file's message and `chain add`'s use the same suggestion.
    @Test func chainErrorsSuggestTheSame() throws {
        #expect(throws: ChainError.self) { try Chain.makeStep(type: "blur", name: nil, file: "c.json") }
        do { _ = try Chain.makeStep(type: "blur", name: nil, file: "c.json") } catch {
            #expect(error.description.contains("did you mean 'gaussianBlur'?"), "\(error.description)")
        }
    }
}
