import FilterChain
import Foundation
import Testing
@testable import FilterChainEditor

/// The editor with variables and expressions: a PUT is checked for the editor's image (an
/// error at the parameter's path), `/api/values` says what each expression takes for it,
/// previews follow a variable, and `--set` starts the session with a variable set.
@Suite struct EditorExpressionTests {
    /// chelsea.png is 451 x 300.
    static let chain = """
        { "version": 2,
          "variables": [ { "name": "strength", "value": 0.5, "min": 0, "max": 1 } ],
          "filters": [
            { "id": "0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41", "type": "colorControls", "parameters": { "saturation": "=1 + strength" } },
            { "id": "7A2D4E6F-8B9C-4A1D-9E2F-3B4C5D6E7F80", "type": "gaussianBlur", "parameters": { "sigma": "=0.01 * width * strength" } } ] }
        """

    @Test func valuesAreThoseOfTheEditorsImage() async throws {
        let e = try await EditorAPITests.Running(chainText: Self.chain)
        defer { Task { await e.stop() } }
        let values = try #require(try await e.request("GET", "/api/values").json as? [String: [String: Double]])
        #expect(values["variables"] == ["strength": 0.5])
        #expect(values["parameters"] == ["filters[0].parameters.saturation": 1.5, "filters[1].parameters.sigma": 0.01 * 451 * 0.5])
        // The page's chain JSON keeps the expressions.
        let chain = try Chain.parse(try await e.request("GET", "/api/chain").body, file: "get")
        #expect(chain.steps[1].computed["sigma"]?.json.value == .string("=0.01 * width * strength"))
    }

    @Test func aPutWhoseValueIsOutOfRangeForThisImageGets422AtTheParameter() async throws {
        let e = try await EditorAPITests.Running(chainText: Self.chain)
        defer { Task { await e.stop() } }
        // 451 x 2 = 902: more than sigma's 500, for this image.
        let bad = Self.chain.replacingOccurrences(of: "=0.01 * width * strength", with: "=width * 2")
        let response = try await e.request("PUT", "/api/chain", body: Array(bad.utf8))
        #expect(response.status == 422)
        #expect((response.json as? [String: Any])?["path"] as? String == "filters[1].parameters.sigma")
        #expect(response.error == #"\#(e.chainPath): filters[1].parameters.sigma: "=width * 2" took 902 with this step's input 451x300, which is not allowed; allowed: a number in 0...500 (line 5, column 103)"#)
        // A variable's error is at the variable.
        let variable = Self.chain.replacingOccurrences(of: #""value": 0.5"#, with: #""value": 3"#)
        let refused = try await e.request("PUT", "/api/chain", body: Array(variable.utf8))
        #expect(refused.status == 422)
        #expect((refused.json as? [String: Any])?["path"] as? String == "variables[0].value")
    }

    @Test func previewsFollowAVariable() async throws {
        let e = try await EditorAPITests.Running(chainText: Self.chain)
        defer { Task { await e.stop() } }
        let before = try await e.request("GET", "/api/render?step=2&size=200")
        #expect(before.status == 200)
        let stronger = Self.chain.replacingOccurrences(of: #""value": 0.5"#, with: #""value": 1"#)
        #expect(try await e.request("PUT", "/api/chain", body: Array(stronger.utf8)).status == 200)
        let after = try await e.request("GET", "/api/render?step=2&size=200")
        #expect(after.status == 200 && after.body != before.body)
        // The preview is the literal chain's: saturation 2, sigma 0.01 x 451 (scaled with the preview).
        let literal = """
            { "version": 1, "filters": [
                { "id": "0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41", "type": "colorControls", "parameters": { "saturation": 2 } },
                { "id": "7A2D4E6F-8B9C-4A1D-9E2F-3B4C5D6E7F80", "type": "gaussianBlur", "parameters": { "sigma": 4.51 } } ] }
            """
        #expect(try await e.request("PUT", "/api/chain", body: Array(literal.utf8)).status == 200)
        #expect(try await e.request("GET", "/api/render?step=2&size=200").body == after.body)
    }

    @Test func setStartsTheSessionWithAVariableSet() async throws {
        let e = try await EditorAPITests.Running(chainText: Self.chain, variables: [("strength", 0.25)])
        defer { Task { await e.stop() } }
        let values = try #require(try await e.request("GET", "/api/values").json as? [String: [String: Double]])
        #expect(values["variables"] == ["strength": 0.25])
        let info = try #require(try await e.request("GET", "/api/info").json as? [String: Any])
        #expect(info["overrides"] as? [String: Double] == ["strength": 0.25])
        // Not saved until saved.
        #expect(e.fileText == Self.chain)
        #expect(throws: VariableError.self) {
            _ = try Editor(chainPath: e.chainPath, imagePath: EditorAPITests.chelsea, renderer: Renderer(threads: 1), variables: [("gain", 1)])
        }
        #expect(throws: VariableError.self) {
            _ = try Editor(chainPath: e.chainPath, imagePath: EditorAPITests.chelsea, renderer: Renderer(threads: 1), variables: [("strength", 4)])
        }
    }
}
