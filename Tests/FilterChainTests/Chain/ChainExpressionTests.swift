import Foundation
import Testing
@testable import FilterChain

/// Variables and expressions in chain files: reading, writing, every refusal with its JSON
/// path, line and column (the column of the character inside the string), the values per
/// image and step, rounding, and editing.
@Suite struct ChainExpressionTests {
    static let ids = ["0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41", "7A2D4E6F-8B9C-4A1D-9E2F-3B4C5D6E7F80",
                      "C3D4E5F6-A7B8-4C9D-8E0F-1A2B3C4D5E6F", "9E8F1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41",
                      "5B1E1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41"]

    /// The issue's example (without fit: contain, which needs both width and height).
    static let example = """
        { "version": 2,
          "variables": [
            { "name": "strength", "value": 0.5, "min": 0, "max": 1, "help": "how strong the look is" },
            { "name": "long", "value": 1600 } ],
          "filters": [
            { "id": "\(ids[0])", "type": "resize", "parameters": { "width": "=min(long, width)" } },
            { "id": "\(ids[1])", "type": "gaussianBlur", "parameters": { "sigma": "=0.002 * min(width, height)" } },
            { "id": "\(ids[2])", "type": "colorControls", "parameters": { "saturation": "=1 + strength" } } ] }
        """

    func parse(_ text: String) throws(ChainError) -> Chain { try Chain.parse(Array(text.utf8), file: "c.json") }

    /// The error `text` is refused with.
    func refusal(_ text: String) -> ChainError? {
        do { _ = try parse(text); return nil } catch { return error }
    }

    /// Line and column (1-based, bytes) of the first `needle` in `text`.
    func position(of needle: String, in text: String, occurrence: Int = 1) -> (line: Int, column: Int) {
        var count = 0
        for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var rest = Substring(line)
            while let range = rest.range(of: needle) {
                count += 1
                if count == occurrence { return (n + 1, line.utf8.distance(from: line.startIndex, to: range.lowerBound) + 1) }
                rest = rest[range.upperBound...]
            }
        }
        Issue.record("\(needle) not in the text")
        return (0, 0)
    }

    @Test func theExampleReadsAndTakesItsValuesPerImage() throws {
        let chain = try parse(Self.example)
        #expect(chain.variables == [ChainVariable(name: "strength", value: 0.5, minimum: 0, maximum: 1, help: "how strong the look is"),
                                    ChainVariable(name: "long", value: 1600)])
        #expect(chain.steps.map { $0.computed.keys.sorted() } == [["width"], ["sigma"], ["saturation"]])
        // 24 MP: resized to 1600 x 1067, the blur 0.002 x 1067.
        let (big, values) = try chain.resolved(sourceSize: ImageSize(width: 6000, height: 4000))
        #expect((big.steps[0].filter as! Resize).width == 1600)
        #expect((big.steps[1].filter as! GaussianBlur).sigma == 0.002 * 1067)
        #expect((big.steps[2].filter as! ColorControls).saturation == 1.5)
        // No expression is left: a ResolvedStep has none to hold.
        #expect(values.variables == [.init(name: "strength", value: 0.5), .init(name: "long", value: 1600)])
        #expect(values.parameters.map(\.path) == ["filters[0].parameters.width", "filters[1].parameters.sigma", "filters[2].parameters.saturation"])
        #expect(values.parameters.map(\.value) == [1600, 0.002 * 1067, 1.5])
        // 600 x 400: not enlarged past its own width; sigma 0.8.
        let small = try chain.resolved(sourceSize: ImageSize(width: 600, height: 400)).chain
        #expect((small.steps[0].filter as! Resize).width == 600)
        #expect((small.steps[1].filter as! GaussianBlur).sigma == 0.002 * 400)
    }

    @Test func writtenAsVersion2AndReadBackTheSame() throws {
        let chain = try parse(Self.example)
        let text = chain.jsonText
        #expect(text.hasPrefix("{\n  \"version\": 2,\n  \"variables\": [\n    {\n      \"name\": \"strength\",\n      \"value\": 0.5,\n      \"min\": 0,\n      \"max\": 1,\n      \"help\": \"how strong the look is\"\n    },"))
        #expect(text.contains("\"sigma\": \"=0.002 * min(width, height)\""))
        let again = try parse(text)
        #expect(again.jsonText == text)
        #expect(again.variables == chain.variables)
        #expect(zip(again.steps, chain.steps).allSatisfy { $0.computed == $1.computed })
        // Without variables and expressions: version 1, as before.
        var plain = chain
        plain.variables = []
        for i in plain.steps.indices { plain.steps[i].computed = [:] }
        #expect(plain.jsonText.hasPrefix("{\n  \"version\": 1,"))
        // A variable alone makes version 2.
        let one = Chain(variables: [ChainVariable(name: "k", value: 1)], steps: [Step(filter: Invert())])
        #expect(one.jsonText.hasPrefix("{\n  \"version\": 2,\n  \"variables\""))
    }

    /// (what the file says instead of a good value, the text the error's column is at, how
    /// many bytes after it, the path, words of the message).
    static let fileErrors: [(String, String, Int, String, String)] = [
        (#""sigma": "=0.002 * min(widht, height)""#, "widht", 0, "filters[1].parameters.sigma",
         #""=0.002 * min(widht, height)", character 14: unknown name 'widht'; did you mean 'width'? (known: strength, long, width, height, sourceWidth, sourceHeight, frame, frames, time)"#),
        (#""sigma": "=2 * (strength""#, "=2 * (strength", 14, "filters[1].parameters.sigma", "character 15: ')' expected, found the end"),
        (#""sigma": "=1 / (strength - 0.5)""#, "/ (", 0, "filters[1].parameters.sigma", "character 4: division by zero"),
        (#""sigma": "=sqrt(strength - 1)""#, "sqrt", 0, "filters[1].parameters.sigma", "sqrt of -0.5 is not a finite number"),
        (#""sigma": "=1001 * strength""#, "=1001", 0, "filters[1].parameters.sigma",
         #""=1001 * strength" took 500.5, which is not allowed; allowed: a number in 0...500"#),
        (#""sigma": "=-strength""#, "=-s", 0, "filters[1].parameters.sigma", "took -0.5, which is not allowed; allowed: a number in 0...500"),
        (#""sigma": "=\u0031 + widht""#, "widht", 0, "filters[1].parameters.sigma", "character 6: unknown name 'widht'"),
        (#""sigma": "=min""#, "=min\"", 1, "filters[1].parameters.sigma", "min is a function; write min(a, b, ...)"),
    ]

    @Test(arguments: fileErrors)
    func anExpressionErrorIsAtItsCharacter(_ replacement: String, _ at: String, _ delta: Int, _ path: String, _ words: String) throws {
        let text = Self.example.replacingOccurrences(of: #""sigma": "=0.002 * min(width, height)""#, with: replacement)
        let error = try #require(refusal(text), "\(replacement) was taken")
        #expect(error.path == path)
        #expect(error.message.contains(words), "\(error.message)")
        let expected = position(of: at, in: text)
        #expect(error.line == expected.line && error.column == expected.column + delta, "\(error)")
        #expect(error.description.hasPrefix("c.json: \(path): "))
    }

    /// The top of a parameter's range is allowed: 1000 x 0.5 = 500, sigma's largest.
    @Test func theRangeIsClosed() throws {
        let text = Self.example.replacingOccurrences(of: "=0.002 * min(width, height)", with: "=1000 * strength")
        #expect((try parse(text).resolved(sourceSize: ImageSize(width: 10, height: 10)).chain.steps[1].filter as! GaussianBlur).sigma == 500)
    }

    static let variableErrors: [(String, String, String)] = [
        (#"{ "name": "width", "value": 1 }"#, "variables[1].name", #""width" cannot name a variable: width is the step's input width"#),
        (#"{ "name": "min", "value": 1 }"#, "variables[1].name", "min is a function"),
        (#"{ "name": "sourceGain", "value": 1 }"#, "variables[1].name", "names starting with 'source' are kept"),
        (#"{ "name": "2x", "value": 1 }"#, "variables[1].name", "a name is a letter or '_'"),
        (#"{ "name": "strength", "value": 1 }"#, "variables[1].name", "the variable 'strength' is already declared by variables[0]"),
        (#"{ "name": "g", "value": "=2 * later" }, { "name": "later", "value": 1 }"#, "variables[1].value",
         "'g' reads 'later', which is declared after it; a variable may read only the variables above it"),
        (#"{ "name": "g", "value": "=width / 2" }"#, "variables[1].value", "unknown name 'width'"),
        (#"{ "name": "g", "value": 5, "min": 0, "max": 1 }"#, "variables[1].value", "5 is not allowed; allowed: a number in 0...1"),
        (#"{ "name": "g", "value": "=strength * 4", "max": 1 }"#, "variables[1].value", #""=strength * 4" took 2, which is not allowed; allowed: a number <= 1"#),
        (#"{ "name": "g", "value": 1, "min": 2, "max": 1 }"#, "variables[1].max", "max 1 is below min 2"),
        (#"{ "name": "g", "value": "two" }"#, "variables[1].value", "expected a number, or an expression starting with '=', found a string"),
        (#"{ "name": "g", "value": 1, "step": 1 }"#, "variables[1].step", "unknown key 'step'"),
        (#"{ "value": 1 }"#, "variables[1]", "missing \"name\""),
    ]

    @Test(arguments: variableErrors)
    func aVariableIsRefusedAtItsPath(_ entry: String, _ path: String, _ words: String) throws {
        let text = Self.example.replacingOccurrences(of: #"{ "name": "long", "value": 1600 }"#, with: entry)
        let error = try #require(refusal(text))
        #expect(error.path == path, "\(error)")
        #expect(error.message.contains(words), "\(error.message)")
        #expect(error.line != nil)
    }

    @Test func version1FilesTakeNeitherVariablesNorExpressions() throws {
        let variables = #"{ "version": 1, "variables": [], "filters": [] }"#
        #expect(refusal(variables)?.message == #""variables" needs version 2; set "version": 2 (version 1 is for filterchains that read straight chains only)"#)
        let expression = #"{ "version": 1, "filters": [ { "id": "\#(Self.ids[0])", "type": "gaussianBlur", "parameters": { "sigma": "=2" } } ] }"#
        let error = try #require(refusal(expression))
        #expect(error.path == "filters[0].parameters.sigma")
        #expect(error.message.hasPrefix("an expression (a string starting with '=') needs version 2"))
    }

    @Test func expressionsStandOnlyForNumbers() throws {
        let choice = Self.example.replacingOccurrences(of: #""width": "=min(long, width)""#, with: #""width": 10, "fit": "=1""#)
        let error = try #require(refusal(choice))
        #expect(error.path == "filters[0].parameters.fit")
        #expect(error.message.contains("the expression \"=1\" is not allowed"))
        #expect(error.message.contains("expressions stand only for numbers"))
        // In a colour, a point and a matrix: any of their numbers.
        let colour = #"{ "version": 2, "variables": [ { "name": "k", "value": 0.25 } ], "filters": [ { "id": "\#(Self.ids[0])", "type": "monochrome", "parameters": { "color": [1, "=k * 2", "=k"] } }, { "id": "\#(Self.ids[1])", "type": "vignette", "parameters": { "center": ["=k", 0.5] } }, { "id": "\#(Self.ids[2])", "type": "colorMatrix", "parameters": { "matrix": [[1, 0, 0, 0, "=k"], [0, 1, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 1, 0]] } } ] }"#
        let chain = try parse(colour)
        #expect(chain.steps[0].computed["color"]!.expressions.map(\.indices) == [[1], [2]])
        #expect(chain.steps[2].computed["matrix"]!.expressions.map(\.indices) == [[0, 4]])
        let resolved = try chain.resolved(sourceSize: ImageSize(width: 8, height: 8)).chain
        #expect((resolved.steps[0].filter as! Monochrome).color == ColorRGB(1, 0.5, 0.25))
        #expect((resolved.steps[1].filter as! Vignette).center == ImagePoint(0.25, 0.5))
        #expect((resolved.steps[2].filter as! ColorMatrix).matrix[0] == [1, 0, 0, 0, 0.25])
        // A literal number beside an expression is checked when read.
        let bad = colour.replacingOccurrences(of: #"[1, "=k * 2", "=k"]"#, with: #"[7, "=k * 2", "=k"]"#)
        let literal = try #require(refusal(bad))
        #expect(literal.path == "filters[0].parameters.color[0]")
        #expect(literal.message == "7 is out of range; allowed 0...1")
    }

    /// Whole-number parameters take the value rounded half away from zero.
    @Test(arguments: [("=100.5", 101), ("=100.4999", 100), ("=99.5", 100), ("=0.5 + 0.5", 1), ("=width / 3", 33)])
    func wholeNumbersAreRoundedHalfAwayFromZero(_ text: String, _ expected: Int) throws {
        let chain = try parse(#"{ "version": 2, "filters": [ { "id": "\#(Self.ids[0])", "type": "resize", "parameters": { "width": "\#(text)" } } ] }"#)
        let (resolved, values) = try chain.resolved(sourceSize: ImageSize(width: 100, height: 50))
        #expect((resolved.steps[0].filter as! Resize).width == expected)
        #expect(values.parameters[0].value == Double(expected))
    }

    @Test func aRoundedValueOutsideItsChoicesSaysBoth() throws {
        let text = #"{ "version": 2, "filters": [ { "id": "\#(Self.ids[0])", "type": "rotate", "parameters": { "angle": "=-90.5" } } ] }"#
        let error = try #require(refusal(text))
        #expect(error.message == #""=-90.5" took -91 (-90.5 rounded), which is not allowed; allowed: one of 90, 180, 270, -90, -180, -270"#)
        #expect(error.column == position(of: "=-90.5", in: text).column)
        let ok = try parse(text.replacingOccurrences(of: "=-90.5", with: "=-89.5"))
        #expect((try ok.resolved(sourceSize: ImageSize(width: 4, height: 4)).chain.steps[0].filter as! Rotate).angle == -90)
    }

    /// `width` and `height` are each step's input: after the geometry steps above it, a
    /// disabled step passing its input on, and a step reading another node taking its size.
    @Test func widthAndHeightAreTheStepsInput() throws {
        let text = """
            { "version": 2,
              "images": [ { "id": "\(Self.ids[4])", "name": "logo", "file": "logo.png" } ],
              "filters": [
                { "id": "\(Self.ids[0])", "type": "crop", "name": "crop", "parameters": { "width": 300, "height": 100 } },
                { "id": "\(Self.ids[1])", "type": "rotate", "name": "turn", "parameters": { "angle": 90 } },
                { "id": "\(Self.ids[2])", "type": "resize", "name": "off", "enabled": false, "parameters": { "width": 7 } },
                { "id": "\(Self.ids[3])", "type": "gaussianBlur", "name": "a", "parameters": { "sigma": "=width + height / 1000" } },
                { "id": "00000000-0000-4000-8000-000000000004", "type": "gaussianBlur", "name": "b", "input": "source",
                  "parameters": { "sigma": "=width + height / 1000 + sourceWidth / 1e6" } },
                { "id": "00000000-0000-4000-8000-000000000005", "type": "gaussianBlur", "name": "c", "input": "logo",
                  "parameters": { "sigma": "=width + height / 1000" } },
                { "id": "00000000-0000-4000-8000-000000000006", "type": "gaussianBlur", "name": "d", "input": "crop",
                  "parameters": { "sigma": "=width + height / 1000" } } ] }
            """
        let folder = TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let logo = try RasterImage(width: 6, height: 4, format: PixelFormat(.rgb, .eight), samples: Array(repeating: 9, count: 72))
        _ = try Renderer(threads: 1).render(Chain(), image: logo, outputs: [RenderOutput(step: 0, .file(.file(folder.appendingPathComponent("logo.png").path), EncodeOptions()))])
        let path = folder.appendingPathComponent("c.json").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let chain = try Chain.load(path)
        let values = try chain.resolved(sourceSize: ImageSize(width: 400, height: 250)).values.parameters
        // After crop 300 x 100 and the turn: 100 x 300 (the disabled resize changes nothing).
        let a: Double = 100 + 300.0 / 1000, b: Double = 400 + 250.0 / 1000 + 400.0 / 1e6
        let c: Double = 6 + 4.0 / 1000, d: Double = 300 + 100.0 / 1000
        #expect(values.map(\.value) == [a, b, c, d])
        #expect(values.map(\.step) == [3, 4, 5, 6])
    }

    @Test func aValueOutOfRangeForOneImageOnlyFailsThatImage() throws {
        let chain = try parse(Self.example.replacingOccurrences(of: "=0.002 * min(width, height)", with: "=0.1 * height"))
        // 600 x 400: sigma 40; 6000 x 9000, resized to 1600 x 2400: 240.
        _ = try chain.resolved(sourceSize: ImageSize(width: 600, height: 400))
        _ = try chain.resolved(sourceSize: ImageSize(width: 6000, height: 9000))
        // 1000 x 60000 (not resized, 1000 being below 1600): 6000.
        #expect(throws: ChainError.self) { try chain.resolved(sourceSize: ImageSize(width: 1000, height: 60000)) }
        do { _ = try chain.resolved(sourceSize: ImageSize(width: 1000, height: 60000)) } catch {
            #expect(error.path == "filters[1].parameters.sigma")
            #expect(error.message == #""=0.1 * height" took 6000 with this step's input 1000x60000, which is not allowed; allowed: a number in 0...500"#)
            #expect(error.line == 7 && error.column == position(of: "=0.1", in: Self.example.replacingOccurrences(of: "=0.002 * min(width, height)", with: "=0.1 * height")).column)
        }
        #expect(chain.expressionErrors(sourceSize: ImageSize(width: 1000, height: 60000)).count == 1)
    }

    @Test func everyErrorIsReportedNotTheFirst() throws {
        let text = Self.example
            .replacingOccurrences(of: "=0.002 * min(width, height)", with: "=height")
            .replacingOccurrences(of: "=1 + strength", with: "=width / 100")
        let chain = try parse(text)
        let errors = chain.expressionErrors(sourceSize: ImageSize(width: 1000, height: 1000))
        #expect(errors.map(\.path) == ["filters[1].parameters.sigma", "filters[2].parameters.saturation"])
        #expect(chain.expressionErrors(sourceSize: ImageSize(width: 300, height: 300)).isEmpty)
    }

    @Test func settingVariables() throws {
        let chain = try parse(Self.example)
        let set = try chain.settingVariables(["strength": 1])
        #expect((try set.resolved(sourceSize: ImageSize(width: 10, height: 10)).chain.steps[2].filter as! ColorControls).saturation == 2)
        #expect(throws: ChainError.self) { try chain.settingVariables(["strength": 1.5]) }
        do { _ = try chain.settingVariables(["strenght": 1]) } catch {
            #expect(error.message == "no variable 'strenght'; did you mean 'strength'? (declared: strength, long)")
        }
        do { _ = try chain.settingVariables(["strength": 2]) } catch {
            #expect(error.path == "variables[0].value")
            #expect(error.message == "strength = 2 is not allowed; allowed: a number in 0...1")
        }
    }

    @Test func editing() throws {
        var chain = try parse(Self.example)
        try chain.setParameter(at: 1, "sigma", to: JSONNode(.string("=2 * strength")), file: "c.json")
        #expect(chain.steps[1].computed["sigma"]!.expressions[0].expression.text == "=2 * strength")
        #expect(chain.steps[1].value(of: "sigma") == .computed(chain.steps[1].computed["sigma"]!))
        try chain.setParameter(at: 1, "sigma", to: JSONNode(.number(3)), file: "c.json")
        #expect(chain.steps[1].computed.isEmpty && (chain.steps[1].filter as! GaussianBlur).sigma == 3)
        #expect(chain.steps[1].value(of: "sigma") == .literal(JSONNode(.number(3))))
        #expect(throws: ChainError.self) { try chain.setParameter(at: 1, "sigma", to: JSONNode(.string("=2 * gain")), file: "c.json") }
        try chain.addVariable(ChainVariable(name: "gain", value: .expression(try NumberExpression("=strength * 2", names: ["strength", "long"]))), file: "c.json")
        try chain.setParameter(at: 1, "sigma", to: JSONNode(.string("=2 * gain")), file: "c.json")
        #expect(try chain.variableValues().map(\.value) == [0.5, 1600, 1])
        do { try chain.removeVariable("strength", file: "c.json") } catch {
            #expect(error.message == "the variable strength is read by variables[2] (gain), step 3 (colorControls) in parameters.saturation; change or remove them first")
        }
        #expect(throws: ChainError.self) { try chain.setVariable("strength", value: .number(3), file: "c.json") }
        try chain.setVariable("strength", value: .number(0.25), maximum: .some(nil), file: "c.json")
        #expect(chain.variables[0].maximum == nil)
        #expect(throws: ChainError.self) { try chain.removeVariable("long", file: "c.json") }   // resize reads it
        try chain.setParameter(at: 0, "width", to: JSONNode(.number(800)), file: "c.json")
        try chain.removeVariable("long", file: "c.json")
        #expect(throws: ChainError.self) { try chain.removeVariable("long", file: "c.json") }
        // The edited chain survives a save's parse.
        let again = try parse(chain.jsonText)
        #expect(again.variables.map(\.name) == ["strength", "gain"])
    }

    @Test func aChainBuiltInCodeIsValidated() throws {
        let e = try NumberExpression("=2 * k", names: ["k"])
        var chain = Chain(steps: [Step(filter: GaussianBlur(), computed: ["sigma": ComputedParameter(json: JSONNode(.string(e.text)), expressions: [([], e)])])])
        #expect(throws: ChainError.self) { try chain.validate() }
        chain.variables = [ChainVariable(name: "k", value: 3)]
        try chain.validate()
        let image = try RasterImage(width: 4, height: 4, format: PixelFormat(.rgb, .eight), samples: Array(0..<48))
        let out = try Renderer(threads: 1).apply(chain, to: image)
        #expect(out == (try Renderer(threads: 1).apply(Chain([GaussianBlur(sigma: 6)]), to: image)))
    }
}
