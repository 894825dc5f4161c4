import FilterChain
import Foundation
import Testing
@testable import FilterChainEditor

/// What the page needs to show the truth after any reload (whether the server's chain
/// differs from the file), Save that leaves a file holding the chain alone, errors the page
/// can word itself, full sizes, and the 1:1 view's regions: each region checked against the
/// library's full-size render of the same chain, cut by hand.
@Suite struct EditorStateTests {
    typealias Running = EditorAPITests.Running

    func status(_ e: Running) async throws -> [String: Any] {
        let response = try await e.request("GET", "/api/status")
        #expect(response.status == 200)
        return response.json as! [String: Any]
    }

    @Test func theServerSaysWhetherItsChainDiffersFromTheFile() async throws {
        let e = try await Running()
        defer { Task { await e.stop() } }
        let onDisk = e.fileText
        var s = try await status(e)
        #expect(s["unsaved"] as? Bool == false && s["changedOnDisk"] as? Bool == false)
        // samples/chains/look.json is written by hand: one step a line, not Save's layout.
        #expect(s["handWritten"] as? Bool == true)
        let get = try await e.request("GET", "/api/chain")
        #expect(get.headers["x-filterchain-unsaved"] == "false")
        #expect(try Chain.parse(JSONSerialization.data(withJSONObject: s["saved"]!).map { $0 }, file: "s").jsonText
                == Chain.parse(get.body, file: "g").jsonText)

        // An edit: the server's chain differs from the file, and every answer says so.
        let edited = onDisk.replacingOccurrences(of: "\"sigma\": 2", with: "\"sigma\": 4")
        let put = try await e.request("PUT", "/api/chain", body: Array(edited.utf8))
        #expect(put.status == 200 && put.headers["x-filterchain-unsaved"] == "true")
        #expect(try await e.request("GET", "/api/chain").headers["x-filterchain-unsaved"] == "true")
        s = try await status(e)
        #expect(s["unsaved"] as? Bool == true)
        // The file's own chain again (in another layout): no unsaved edits.
        let back = try await e.request("PUT", "/api/chain", body: Array(try Chain.load(e.chainPath).jsonText.utf8))
        #expect(back.headers["x-filterchain-unsaved"] == "false")

        // Save with nothing to save leaves the hand-written file as it is.
        let same = try await e.request("POST", "/api/save")
        #expect(same.status == 200 && (same.json as! [String: Any])["written"] as? Bool == false)
        #expect(e.fileText == onDisk)
        // An edit saved keeps the file's own layout: its text is the original with the one
        // value changed (still hand-written), and nothing is unsaved.
        _ = try await e.request("PUT", "/api/chain", body: Array(edited.utf8))
        let saved = try await e.request("POST", "/api/save")
        #expect(saved.status == 200 && (saved.json as! [String: Any])["written"] as? Bool == true)
        #expect(e.fileText == edited)
        s = try await status(e)
        #expect(s["unsaved"] as? Bool == false && s["handWritten"] as? Bool == true)
        // A change of shape (a step removed) is written in Save's layout: no longer hand-written.
        var shorter = try Chain.load(e.chainPath)
        shorter.steps.removeLast()
        _ = try await e.request("PUT", "/api/chain", body: Array(shorter.jsonText.utf8))
        _ = try await e.request("POST", "/api/save")
        #expect(e.fileText == shorter.jsonText)
        s = try await status(e)
        #expect(s["unsaved"] as? Bool == false && s["handWritten"] as? Bool == false)
        // Someone else's write is seen.
        try onDisk.write(toFile: e.chainPath, atomically: true, encoding: .utf8)
        #expect(try await status(e)["changedOnDisk"] as? Bool == true)
    }

    /// A refused chain's answer holds the problem alone and where it is, for the page to say
    /// in its own words (not a line of its own JSON).
    @Test func errorsCarryTheProblemAndItsPath() async throws {
        let e = try await Running()
        defer { Task { await e.stop() } }
        let bad = e.fileText.replacingOccurrences(of: "\"saturation\": 1.2", with: "\"saturation\": 9")
        let response = try await e.request("PUT", "/api/chain", body: Array(bad.utf8))
        #expect(response.status == 422)
        let answer = response.json as! [String: Any]
        #expect(answer["message"] as? String == "9 is out of range; allowed 0...4")
        #expect(answer["path"] as? String == "filters[0].parameters.saturation")
    }

    /// The full size of the image after a step, as the renderer makes it.
    @Test func previewsSayTheFullSize() async throws {
        let e = try await Running(chainText: """
            { "version": 1, "filters": [
              { "id": "0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41", "type": "resize", "parameters": { "width": 301 } },
              { "id": "7A2D4E6F-8B9C-4A1D-9E2F-3B4C5D6E7F80", "type": "rotate", "parameters": { "angle": 90 } } ] }
            """)
        defer { Task { await e.stop() } }
        let chain = try Chain.load(e.chainPath)
        let rendered = try Renderer(threads: 1).render(chain, image: e.editor.image,
                                                       outputs: (0...2).map { RenderOutput(step: $0, .memory()) })
        for position in 0...2 {
            let response = try await e.request("GET", "/api/render?step=\(position)&size=64")
            #expect(response.status == 200)
            let size = rendered.sizes[position]
            #expect(response.headers["x-filterchain-size"] == "\(size.width)x\(size.height)", "step \(position)")
        }
        #expect(rendered.sizes.map { [$0.width, $0.height] } == [[451, 300], [301, 200], [200, 301]])
        #expect(try chain.sizes(at: [2, 0, 1], input: ImageSize(width: 451, height: 300)) == [rendered.sizes[2], rendered.sizes[0], rendered.sizes[1]])
    }

    /// The region of the full-size render, cut by hand: the library's render of the chain up
    /// to the step, to memory as 8-bit sRGB, as the page's previews are.
    static func reference(_ e: Running, through position: Int, _ rect: PixelRect) throws -> [Int] {
        let chain = try Chain.load(e.chainPath).prefix(through: position)
        let full = try Renderer(threads: 2).render(chain, image: e.editor.image,
                                                   outputs: [RenderOutput(step: chain.steps.count, .memory(depth: .eight, profile: .srgb))]).images[0]!
        let channels = full.format.channels.count
        var out: [Int] = []
        for y in rect.y..<(rect.y + rect.height) {
            for x in rect.x..<(rect.x + rect.width) {
                for c in 0..<channels { out.append(try full.sample(x: x, y: y, channel: c)) }
            }
        }
        return out
    }

    func region(_ e: Running, _ query: String) async throws -> (RawHTTP.Response, RasterImage?) {
        let response = try await e.request("GET", "/api/render?" + query)
        return (response, response.status == 200 ? try EditorAPITests.decode(response.body) : nil)
    }

    @Test func regionsAreTheFullSizeRenderCut() async throws {
        let e = try await Running()
        defer { Task { await e.stop() } }
        // look.json (colour, curve, a blur of sigma 2): rendered on a crop of the input.
        for (position, rect) in [(3, PixelRect(x: 100, y: 80, width: 120, height: 90)), (1, PixelRect(x: 0, y: 0, width: 60, height: 50)),
                                 (3, PixelRect(x: 391, y: 250, width: 60, height: 50)), (2, PixelRect(x: 10, y: 20, width: 451, height: 300))] {
            let (response, image) = try await region(e, "step=\(position)&region=\(rect.x),\(rect.y),\(rect.width),\(rect.height)")
            #expect(response.status == 200)
            #expect(response.headers["x-filterchain-rendered"] == "crop")
            #expect(response.headers["x-filterchain-size"] == "451x300")
            // Asked from inside the image, it is the region asked for; else moved inside.
            let inside = PixelRect(x: min(rect.x, 451 - rect.width), y: min(rect.y, 300 - rect.height), width: rect.width, height: rect.height)
            #expect(response.headers["x-filterchain-region"] == "\(inside.width)x\(inside.height)+\(inside.x)+\(inside.y)")
            let got = try #require(image)
            #expect(got.width == rect.width && got.height == rect.height)
            let expected = try Self.reference(e, through: position, inside)
            let difference = zip(got.samples, expected).map { abs($0 - $1) }.max() ?? 0
            #expect(got.samples.count == expected.count && difference <= 1, "step \(position) \(rect): \(difference)")
        }
        // A chain whose steps depend on where a pixel is (a vignette), or change the size (a
        // resize): the whole image is rendered, then cut.
        let vignette = e.fileText.replacingOccurrences(of: "\"type\": \"gaussianBlur\", \"name\": \"soften\",\n      \"parameters\": { \"sigma\": 2 }",
                                                       with: "\"type\": \"vignette\", \"name\": \"soften\",\n      \"parameters\": { \"intensity\": 0.8 }")
        #expect(vignette != e.fileText)
        #expect(try await e.request("PUT", "/api/chain", body: Array(vignette.utf8)).status == 200)
        try vignette.write(toFile: e.chainPath, atomically: true, encoding: .utf8)
        let rect = PixelRect(x: 20, y: 30, width: 80, height: 60)
        let (full, image) = try await region(e, "step=3&region=20,30,80,60")
        #expect(full.headers["x-filterchain-rendered"] == "full")
        let got = try #require(image)
        #expect(zip(got.samples, try Self.reference(e, through: 3, rect)).allSatisfy { abs($0 - $1) <= 1 })

        // Refusals.
        #expect(try await region(e, "step=3&region=0,0,0,10").0.status == 400)
        #expect(try await region(e, "step=3&region=0,0,5000,10").0.status == 400)
        #expect(try await region(e, "step=3&region=1,2,3").0.status == 400)
        #expect(try await region(e, "step=9&region=0,0,10,10").0.status == 404)
    }
}
