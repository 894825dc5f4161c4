import FilterChain
import Foundation
import Testing
@testable import FilterChainEditor

/// The requests of the page's graph view: a thumbnail of every node, the chain's images on
/// their own, and a step's mask as an image, each checked against an independent reference
/// (the renderer's own output, the masks' formulas as filters.md writes them).
@Suite struct EditorGraphAPITests {
    typealias Running = EditorAPITests.Running
    static let glow = EditorAPITests.root.appendingPathComponent("samples/chains/glow.json").path
    static let logo = EditorAPITests.root.appendingPathComponent("samples/logo.png").path

    /// glow.json with an image (samples/logo.png by its absolute path) laid over the end.
    static var glowWithLogo: String {
        let text = (try? String(contentsOfFile: glow, encoding: .utf8)) ?? ""
        return text.replacingOccurrences(of: "\"version\": 2,", with: """
            "version": 2,
              "images": [ { "id": "77547438-A00B-4BAA-B131-36343E2F1298", "name": "logo", "file": "\(logo)" } ],
            """)
            .replacingOccurrences(of: "\"parameters\": { \"ev\": 0.3 } }", with: """
                "parameters": { "ev": 0.3 } },
                    { "id": "B6AD8EE8-A418-46DE-B523-C77FA408AE21", "type": "blend", "name": "mark",
                      "parameters": { "layer": "logo", "opacity": 0.7 } }
                """)
    }

    static func maxDifference(_ a: RasterImage, _ b: RasterImage) -> Int {
        guard a.width == b.width, a.height == b.height, a.samples.count == b.samples.count else { return Int.max }
        return zip(a.samples, b.samples).map { abs($0 - $1) }.max() ?? 0
    }

    static func decodeDataURL(_ value: Any?) throws -> RasterImage {
        let text = try #require(value as? String)
        #expect(text.hasPrefix("data:image/png;base64,"))
        let data = try #require(Data(base64Encoded: String(text.dropFirst("data:image/png;base64,".count))))
        return try EditorAPITests.decode(Array(data))
    }

    // MARK: Thumbnails

    /// Every node (the source, the image, each step) has a thumbnail, keyed by its id, each the
    /// renderer's image at that node scaled to fit the size asked for.
    @Test func everyNodeHasAThumbnailOfItsImage() async throws {
        let e = try await Running(chainText: Self.glowWithLogo)
        defer { Task { await e.stop() } }
        let chain = try Chain.load(e.chainPath)
        #expect(chain.images.count == 1 && chain.steps.count == 4)
        let response = try await e.request("GET", "/api/thumbnails?size=80")
        #expect(response.status == 200, "\(response.text)")
        let json = try #require(response.json as? [String: Any])
        #expect(json["size"] as? Int == 80)
        let thumbnails = try #require(json["thumbnails"] as? [String: Any])
        #expect(Set(thumbnails.keys) == Set(["source", chain.images[0].id] + chain.steps.map(\.id)))
        let renderer = Renderer(threads: 2)
        for position in 0...chain.steps.count {
            let key = position == 0 ? "source" : chain.steps[position - 1].id
            let thumbnail = try Self.decodeDataURL(thumbnails[key])
            #expect(max(thumbnail.width, thumbnail.height) == 80, "\(key)")
            let full = try renderer.apply(chain, to: e.editor.image, step: position, depth: .sixteen)
            let reference = try renderer.apply(Chain(), to: try full.downscaled(toFit: 80), depth: .eight)
            #expect(Self.maxDifference(thumbnail, reference) <= 2, "thumbnail of \(key)")
        }
        let logo = try Self.decodeDataURL(thumbnails[chain.images[0].id])
        let logoReference = try renderer.apply(Chain(), to: try chain.images[0].image!.downscaled(toFit: 80), depth: .eight)
        #expect(Self.maxDifference(logo, logoReference) <= 1)
        // The default size, and sizes that are not allowed.
        let small = try #require(try await e.request("GET", "/api/thumbnails").json as? [String: Any])
        #expect(small["size"] as? Int == 96)
        for bad in ["0", "-3", "big"] {
            let r = try await e.request("GET", "/api/thumbnails?size=\(bad)")
            #expect(r.status == 400 && r.error == "size: '\(bad)' is not allowed; allowed: a whole number of pixels, at least 1")
        }
    }

    /// An image of the chain previews on its own by id or name, as `/api/render` previews steps.
    @Test func anImageOfTheChainRendersByIdOrName() async throws {
        let e = try await Running(chainText: Self.glowWithLogo)
        defer { Task { await e.stop() } }
        let chain = try Chain.load(e.chainPath)
        let reference = try Renderer(threads: 1).apply(Chain(), to: chain.images[0].image!, depth: .eight)
        for name in ["logo", chain.images[0].id, chain.images[0].id.lowercased()] {
            let response = try await e.request("GET", "/api/render?step=\(name)")
            #expect(response.status == 200, "\(name): \(response.text)")
            #expect(Self.maxDifference(try EditorAPITests.decode(response.body), reference) == 0)
        }
        let small = try EditorAPITests.decode(try await e.request("GET", "/api/render?step=logo&size=50").body)
        #expect(max(small.width, small.height) == 50)
        #expect(try await e.request("GET", "/api/render?step=logoo").status == 404)
    }

    /// The graph view's requests keep the token and Host rules, and refuse other methods.
    @Test func theGraphRequestsNeedTheTokenAndTheHost() async throws {
        let e = try await Running(chainText: try String(contentsOfFile: Self.glow, encoding: .utf8))
        defer { Task { await e.stop() } }
        for path in ["/api/thumbnails", "/api/mask?step=light", "/graph-layout.js", "/graph.js", "/masks.js", "/numbers.js", "/wire-route.js", "/graph.css"] {
            let none = try await e.http.send("GET", path)
            #expect(none.status == 403 && none.error == "forbidden: a valid session token is required", "\(path)")
            let host = try await e.http.send("GET", path, host: "evil.example:\(e.port)", headers: ["X-Filterchain-Token": e.server.token])
            #expect(host.status == 403, "\(path)")
            #expect(try await e.request("GET", path).status == 200, "\(path)")
            #expect(try await e.request("POST", path).status == 405, "\(path)")
        }
    }

    // MARK: Graph edits

    /// POST /api/graph makes an edit with the library's graph model and keeps nothing; the
    /// wires it answers are what the chain, read back as a file, reads.
    @Test func graphEditsAreTheLibrarysAndKeepNothing() async throws {
        let text = try String(contentsOfFile: Self.glow, encoding: .utf8)
        let e = try await Running(chainText: text)
        defer { Task { await e.stop() } }
        let chain = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let (soft, glow, light) = ("7FC24D02-BC43-416B-8469-02169C97D567", "286A9E1B-9F22-4BE0-8507-BA9CAA26F538", "992ACE11-E317-4B69-A37B-BB539EBC5DAE")
        func post(_ edit: [String: Any], to base: [String: Any]? = nil) async throws -> RawHTTP.Response {
            let body = try JSONSerialization.data(withJSONObject: ["chain": base ?? chain, "edit": edit])
            return try await e.request("POST", "/api/graph", body: Array(body))
        }
        // light (step 3) reads glow; a wire from light to soft's input closes a loop.
        let cycle = try await post(["op": "connect", "from": "step:\(light)", "step": soft, "port": "input"])
        #expect(cycle.status == 422)
        #expect((cycle.json as? [String: Any])?["message"] as? String == "refused: a wire from step 3 (light) to the input of step 1 (soft) would make a cycle: "
            + "step 3 (light) reads step 2 (glow), step 2 (glow) reads step 1 (soft), and step 1 (soft) would read step 3 (light)")
        // Removing soft: glow's layer reads what soft read, the source.
        let removed = try await post(["op": "remove", "step": soft])
        #expect(removed.status == 200, "\(removed.text)")
        let answer = try #require(removed.json as? [String: Any])
        let edited = try Chain.parse(Array(try JSONSerialization.data(withJSONObject: try #require(answer["chain"]))), file: "c.json")
        #expect(edited.steps.map(\.name) == ["glow", "light"] && (edited.steps[0].filter as! Blend).layer == .source)
        let wires = try #require((answer["graph"] as? [String: Any])?["wires"] as? [[String: Any]])
        // glow, now first, has "source" as its default input: written no more.
        #expect(wires.map { "\($0["step"]!) \($0["port"]!) \($0["reads"]!) \(($0["implicit"] as? Bool)!)" } == [
            "\(glow) input source true", "\(glow) layer source false", "\(light) input step:\(glow) true"])
        #expect(wires.count == edited.wires.count)
        // Nothing was kept: the server's chain is still the file's.
        let current = try #require(try await e.request("GET", "/api/chain?graph=1").json as? [String: Any])
        #expect(((current["chain"] as? [String: Any])?["filters"] as? [Any])?.count == 3)
        let ports = try #require((current["graph"] as? [String: Any])?["ports"] as? [String: [String]])
        #expect(ports == [soft: ["input"], glow: ["input", "layer"], light: ["input"]])
        // Rename: the layer follows. A bad op, a bad body.
        let renamed = try #require(try await post(["op": "rename", "step": soft, "name": "haze"]).json as? [String: Any])
        let layer = (((renamed["chain"] as? [String: Any])?["filters"] as? [[String: Any]])?[1]["parameters"] as? [String: Any])?["layer"]
        #expect(layer as? String == "haze")
        #expect(try await post(["op": "explode"]).status == 400)
        #expect(try await e.request("POST", "/api/graph", body: Array("{".utf8)).status == 400)
        #expect(try await e.request("GET", "/api/graph").status == 405)
        // A PUT of a version 1 chain that needs version 2 is read as version 2.
        let v1 = #"{"version": 1, "filters": [{"id": "\#(soft)", "type": "exposure", "input": "source"}]}"#
        let put = try await e.request("PUT", "/api/chain?graph=1", body: Array(v1.utf8))
        #expect(put.status == 200, "\(put.text)")
        #expect(((put.json as? [String: Any])?["chain"] as? [String: Any])?["version"] as? Int == 2)
    }

    // MARK: Masks

    /// s(t) = t² (3 - 2t).
    static func smoothstep(_ t: Double) -> Double { t * t * (3 - 2 * t) }

    /// m of a radial mask at pixel (i, j) of a W x H image, from filters.md's words.
    static func radial(_ i: Int, _ j: Int, _ w: Int, _ h: Int, center: (Double, Double), radius: Double, feather: Double) -> Double {
        let px = Double(i) + 0.5, py = Double(j) + 0.5
        let d = hypot(px - center.0 * Double(w), py - center.1 * Double(h)) / (hypot(Double(w), Double(h)) / 2)
        let e0 = radius * (1 - feather), e1 = radius
        let t = e0 == e1 ? (d >= e1 ? 1.0 : 0.0) : min(max((d - e0) / (e1 - e0), 0), 1)
        return 1 - smoothstep(t)
    }

    /// m of a linear mask from F to T (fractions of W and H).
    static func linear(_ i: Int, _ j: Int, _ w: Int, _ h: Int, from: (Double, Double), to: (Double, Double)) -> Double {
        let px = Double(i) + 0.5, py = Double(j) + 0.5
        let fx = from.0 * Double(w), fy = from.1 * Double(h), tx = to.0 * Double(w), ty = to.1 * Double(h)
        let t = ((px - fx) * (tx - fx) + (py - fy) * (ty - fy)) / ((tx - fx) * (tx - fx) + (ty - fy) * (ty - fy))
        return smoothstep(min(max(t, 0), 1))
    }

    static func maskResponse(_ e: Running, _ step: String) async throws -> RasterImage {
        let response = try await e.request("GET", "/api/mask?step=\(step)")
        #expect(response.status == 200, "\(response.text)")
        #expect(response.headers["content-type"] == "image/png")
        return try EditorAPITests.decode(response.body)
    }

    /// The mask image of a radial and a linear mask (inverted, at an opacity) is m from the
    /// formulas, within a level, in an srgb chain and in a linear one (m is a mixing weight,
    /// not a colour: the same numbers whatever the working space).
    @Test(arguments: ["srgb", "linear"])
    func aMaskIsItsFormula(space: String) async throws {
        let text = (try String(contentsOfFile: Self.glow, encoding: .utf8))
            .replacingOccurrences(of: "\"version\": 2,", with: "\"version\": 2, \"workingSpace\": \"\(space)\",")
            .replacingOccurrences(of: "\"parameters\": { \"ev\": 0.3 } }", with: """
                "parameters": { "ev": 0.3 } },
                    { "id": "B6AD8EE8-A418-46DE-B523-C77FA408AE21", "type": "invert", "name": "ramp",
                      "mask": { "type": "linear", "from": [0.1, 0.2], "to": [0.8, 0.9], "invert": true, "opacity": 0.7 } }
                """)
        let e = try await Running(chainText: text)
        defer { Task { await e.stop() } }
        let w = e.editor.image.width, h = e.editor.image.height
        let radial = try await Self.maskResponse(e, "light")
        #expect(radial.width == w && radial.height == h && radial.format.channels == .grey)
        var worst = 0.0
        let radialSamples = radial.samples
        for j in 0..<h { for i in 0..<w {
            let m = Self.radial(i, j, w, h, center: (0.5, 0.45), radius: 0.5, feather: 0.4)
            worst = max(worst, abs(Double(radialSamples[j * w + i]) - m * 255))
        } }
        #expect(worst <= 1.0, "radial: \(worst) levels")
        let ramp = try await Self.maskResponse(e, "4")
        worst = 0
        let rampSamples = ramp.samples
        for j in 0..<h { for i in 0..<w {
            let m = (1 - Self.linear(i, j, w, h, from: (0.1, 0.2), to: (0.8, 0.9))) * 0.7
            worst = max(worst, abs(Double(rampSamples[j * w + i]) - m * 255))
        } }
        #expect(worst <= 1.0, "linear: \(worst) levels")
    }

    /// A luminance mask reads the step's own input: here the brightened glow (values over 1
    /// among them, which the mask clamps), rendered by the renderer, gives L and so m.
    @Test func aLuminanceMaskReadsTheStepsInput() async throws {
        let text = (try String(contentsOfFile: Self.glow, encoding: .utf8))
            .replacingOccurrences(of: "\"parameters\": { \"ev\": 0.3 } }", with: """
                "parameters": { "ev": 0.6 } },
                    { "id": "B6AD8EE8-A418-46DE-B523-C77FA408AE21", "type": "invert", "name": "lum",
                      "mask": { "type": "luminance", "range": [0.3, 0.6], "feather": 0.2 } }
                """)
        let e = try await Running(chainText: text)
        defer { Task { await e.stop() } }
        let chain = try Chain.load(e.chainPath)
        let input = try Renderer(threads: 2).apply(chain, to: e.editor.image, step: 3, depth: .sixteen)
        let mask = try await Self.maskResponse(e, "lum")
        let n = input.format.channels.count
        let inputSamples = input.samples, maskSamples = mask.samples
        var worst = 0.0
        for p in 0..<(input.width * input.height) {
            let c = (0..<3).map { Double(inputSamples[p * n + $0]) / 65535 }
            let l = min(max(0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2], 0), 1)
            let t = min(max(max(0.3 - l, l - 0.6) / 0.2, 0), 1)
            worst = max(worst, abs(Double(maskSamples[p]) - (1 - Self.smoothstep(t)) * 255))
        }
        #expect(worst <= 2.0, "luminance: \(worst) levels")
    }

    @Test func aStepWithoutAMaskOrAnUnknownStepIs404() async throws {
        let e = try await Running(chainText: try String(contentsOfFile: Self.glow, encoding: .utf8))
        defer { Task { await e.stop() } }
        let none = try await e.request("GET", "/api/mask?step=glow")
        #expect(none.status == 404 && none.error == "\(e.chainPath): step 2 (glow) has no mask")
        let source = try await e.request("GET", "/api/mask?step=0")
        #expect(source.status == 404 && source.error == "\(e.chainPath): the source has no mask")
        let unknown = try await e.request("GET", "/api/mask?step=nope")
        #expect(unknown.status == 404 && unknown.error?.hasPrefix("\(e.chainPath): no step 'nope'") == true)
        #expect(try await e.request("GET", "/api/mask").status == 400)
        #expect(try await e.request("GET", "/api/mask?step=light&size=0").status == 400)
        // While the page's chain is invalid, the server keeps the last valid one.
        let bad = Array(e.fileText.replacingOccurrences(of: "\"sigma\": 10", with: "\"sigma\": -1").utf8)
        let put = try await e.request("PUT", "/api/chain", body: bad)
        #expect(put.status == 422)
        #expect(try await e.request("GET", "/api/mask?step=light").status == 200)
    }
}
