import FilterChain
import Foundation
import Testing
@testable import FilterChainEditor

/// The editor's HTTP API as scripts and the page use it, through a real socket.
@Suite struct EditorAPITests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let look = root.appendingPathComponent("samples/chains/look.json").path
    static let chelsea = root.appendingPathComponent("samples/chelsea.png").path

    /// An editor serving on a free port, on a copy of look.json (or `chainText`).
    final class Running: Sendable {
        let folder: String
        let chainPath: String
        let editor: Editor
        let server: EditorServer
        let port: UInt16
        let task: Task<Void, any Error>
        var http: RawHTTP { RawHTTP(port: port) }

        init(chainText: String? = nil, output: String? = nil, variables: [(name: String, value: Double)] = []) async throws {
            let folder = NSTemporaryDirectory() + "filterchain-editor-tests-" + UUID().uuidString
            self.folder = folder
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            chainPath = folder + "/look.json"
            let text = try chainText ?? String(contentsOfFile: EditorAPITests.look, encoding: .utf8)
            try text.write(toFile: chainPath, atomically: true, encoding: .utf8)
            editor = try Editor(chainPath: chainPath, imagePath: EditorAPITests.chelsea,
                                outputPath: output.map { folder + "/" + $0 }, renderer: Renderer(threads: 2), variables: variables)
            server = try EditorServer(editor: editor, port: 0)
            (port, task) = try await server.start()
        }

        func stop() async {
            await server.stop()
            task.cancel()
            try? FileManager.default.removeItem(atPath: folder)
        }

        func request(_ method: String, _ path: String, body: [UInt8]? = nil, chunked: Bool = false,
                     pause: (after: Int, seconds: Double)? = nil) async throws -> RawHTTP.Response {
            try await http.send(method, path, headers: ["X-Filterchain-Token": server.token], body: body, chunked: chunked, pause: pause)
        }

        var fileText: String { (try? String(contentsOfFile: chainPath, encoding: .utf8)) ?? "" }
    }

    // MARK: Access rules

    @Test func everyRequestNeedsTheToken() async throws {
        let e = try await Running()
        defer { Task { await e.stop() } }
        for path in ["/", "/app.js", "/api/chain", "/api/filters", "/api/render?step=1", "/nowhere"] {
            let none = try await e.http.send("GET", path)
            #expect(none.status == 403, "\(path)")
            #expect(none.error == "forbidden: a valid session token is required")
            let wrong = try await e.http.send("GET", path, headers: ["X-Filterchain-Token": String(e.server.token.reversed())])
            #expect(wrong.status == 403)
            let short = try await e.http.send("GET", path + (path.contains("?") ? "&" : "?") + "token=" + e.server.token.dropLast())
            #expect(short.status == 403)
        }
        let byQuery = try await e.http.send("GET", "/api/chain?token=\(e.server.token)")
        #expect(byQuery.status == 200)
        let byHeader = try await e.request("GET", "/api/chain")
        #expect(byHeader.status == 200)
        #expect(byHeader.headers["content-type"]?.hasPrefix("application/json") == true)
        let save = try await e.http.send("POST", "/api/save")
        #expect(save.status == 403)
    }

    @Test func theHostMustBeLoopbackWithThePort() async throws {
        let e = try await Running()
        defer { Task { await e.stop() } }
        let token = ["X-Filterchain-Token": e.server.token]
        for host in ["127.0.0.1:\(e.port)", "localhost:\(e.port)"] {
            #expect(try await e.http.send("GET", "/api/chain", host: host, headers: token).status == 200, "\(host)")
        }
        let refused = ["evil.example", "evil.example:\(e.port)", "127.0.0.1", "localhost", "127.0.0.1:\(e.port + 1)",
                       "127.0.0.2:\(e.port)", "[::1]:\(e.port)", "localhost.:\(e.port)", "127.0.0.1:\(e.port).evil.example", ""]
        for host in refused {
            let response = try await e.http.send("GET", "/api/chain", host: host, headers: token)
            #expect(response.status == 403, "Host \(host)")
            #expect(response.error?.hasPrefix("forbidden: the Host header must be") == true)
        }
    }

    @Test func bodiesOverOneMiBGet413() async throws {
        let e = try await Running()
        defer { Task { await e.stop() } }
        let valid = Array(e.fileText.utf8)
        // Exactly 1 MiB (a valid chain padded with spaces) is taken.
        let exact = valid + [UInt8](repeating: 0x20, count: (1 << 20) - valid.count)
        #expect(try await e.request("PUT", "/api/chain", body: exact).status == 200)
        let over = valid + [UInt8](repeating: 0x20, count: (1 << 20) + 1 - valid.count)
        let response = try await e.request("PUT", "/api/chain", body: over)
        #expect(response.status == 413)
        #expect(response.error == "the request body is over 1 MiB")
        let chunked = try await e.request("PUT", "/api/chain", body: over, chunked: true)
        #expect(chunked.status == 413)
        let huge = try await e.request("PUT", "/api/chain", body: [UInt8](repeating: 0x20, count: 3 << 20))
        #expect(huge.status == 413)
        // A client that is still sending when the server has decided gets the answer, not a
        // reset connection (FlyingFox reads a body to its end before it answers and closes).
        for chunked in [false, true] {
            let slow = try await e.request("PUT", "/api/chain", body: [UInt8](repeating: 0x20, count: 2 << 20), chunked: chunked,
                                           pause: (after: 3 << 19, seconds: 0.3))
            #expect(slow.status == 413, "chunked: \(chunked)")
            #expect(slow.error == "the request body is over 1 MiB")
        }
        // The server still answers.
        #expect(try await e.request("GET", "/api/chain").status == 200)
    }

    @Test(arguments: ["/../../../../etc/passwd", "/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2f..%2fetc%2fpasswd",
                      "/app.js/../../../../etc/passwd", "//etc/passwd", "/etc/passwd", "/%2Fetc%2Fpasswd",
                      "/look.json", "/./look.json", "/samples/chelsea.png", "/Package.swift", "/style.css/..%2F..%2Flook.json",
                      "/index.html%00.js", "/%2e%2e%5c%2e%2e%5cetc%5cpasswd"])
    func staticPathsNeverReachTheFileSystem(path: String) async throws {
        let e = try await Running()
        defer { Task { await e.stop() } }
        let response = try await e.request("GET", path)
        #expect(response.status == 404 || response.status == 400, "\(path): \(response.status)")
        #expect(!response.text.contains("root:"))
        #expect(!response.text.contains("0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41"))
        #expect(!response.text.contains("swift-tools-version"))
    }

    @Test func theEmbeddedPageIsServed() async throws {
        let e = try await Running()
        defer { Task { await e.stop() } }
        let page = try await e.request("GET", "/")
        #expect(page.status == 200)
        #expect(page.headers["content-type"]?.hasPrefix("text/html") == true)
        #expect(page.text.contains("/app.js?token=\(e.server.token)"))
        #expect(!page.text.contains("{{TOKEN}}"))
        #expect(try await e.request("GET", "/app.js").text.contains("/api/render"))
        #expect(try await e.request("GET", "/curve.js").text.contains("function curveValue"))
        #expect(try await e.request("GET", "/controls.js").text.contains("function kindControl"))
        #expect(page.text.contains("/controls.js?token=\(e.server.token)"))
        #expect(try await e.request("GET", "/style.css").headers["content-type"]?.hasPrefix("text/css") == true)
        #expect(try await e.request("POST", "/").status == 405)
        #expect(try await e.request("DELETE", "/api/chain").status == 405)
    }

    /// The page is the files in Sources/FilterChainEditor/Resources: each served byte for byte
    /// (the page itself with the token written in), and every script and style sheet the page
    /// loads is one of them.
    @Test func thePageIsTheResourceFiles() async throws {
        let e = try await Running()
        defer { Task { await e.stop() } }
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/FilterChainEditor/Resources")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(files.count >= 12)
        for name in files {
            let bytes = try [UInt8](Data(contentsOf: folder.appendingPathComponent(name)))
            let served = try await e.request("GET", "/" + name)
            #expect(served.status == 200, "\(name)")
            let expected = name == "index.html"
                ? Array(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "{{TOKEN}}", with: e.server.token).utf8)
                : bytes
            #expect(served.body == expected, "\(name) is not served as the file")
        }
        let page = try await e.request("GET", "/").text
        var loaded: [String] = []
        for attribute in ["src=\"/", "href=\"/"] {
            for piece in page.components(separatedBy: attribute).dropFirst() {
                loaded.append(String(piece.prefix { $0 != "?" && $0 != "\"" }))
            }
        }
        #expect(loaded.count >= 11, "\(loaded)")
        for name in loaded { #expect(files.contains(name), "the page loads /\(name), which is not a file of Resources") }
    }

    // MARK: The chain

    @Test func anInvalidPutGets422AndChangesNothing() async throws {
        let e = try await Running()
        defer { Task { await e.stop() } }
        let before = try await e.request("GET", "/api/chain").text
        let bad = e.fileText.replacingOccurrences(of: "\"saturation\": 1.2", with: "\"saturaton\": 1.2")
        let response = try await e.request("PUT", "/api/chain", body: Array(bad.utf8))
        #expect(response.status == 422)
        // The same text as the command line's message.
        var expected = ""
        do { _ = try Chain.parse(Array(bad.utf8), file: e.chainPath) } catch { expected = error.description }
        #expect(response.error == expected)
        #expect(response.error?.contains("unknown parameter 'saturaton'; did you mean 'saturation'?") == true)
        #expect((response.json as? [String: Any])?["path"] as? String == "filters[0].parameters.saturaton")
        let syntax = try await e.request("PUT", "/api/chain", body: Array("{\"version\": 1, \"filters\": [".utf8))
        #expect(syntax.status == 422)
        #expect(syntax.error?.hasPrefix(e.chainPath + ": invalid JSON") == true)
        #expect(try await e.request("GET", "/api/chain").text == before)
    }

    @Test func aValidPutBecomesCurrentWithoutTouchingTheFile() async throws {
        let e = try await Running()
        defer { Task { await e.stop() } }
        let onDisk = e.fileText
        let edited = onDisk.replacingOccurrences(of: "\"sigma\": 2", with: "\"sigma\": 4")
        let response = try await e.request("PUT", "/api/chain", body: Array(edited.utf8))
        #expect(response.status == 200)
        let chain = try Chain.parse(response.body, file: "answer")
        #expect((chain.steps[2].filter as? GaussianBlur)?.sigma == 4)
        #expect(try Chain.parse(await e.request("GET", "/api/chain").body, file: "get").steps.map(\.id) == chain.steps.map(\.id))
        #expect(e.fileText == onDisk)
    }

    @Test func saveWritesTheCurrentChainAndRefusesAFileChangedOnDisk() async throws {
        let e = try await Running()
        defer { Task { await e.stop() } }
        let original = try Chain.load(e.chainPath)
        let edited = e.fileText.replacingOccurrences(of: "\"sigma\": 2", with: "\"sigma\": 3")
        #expect(try await e.request("PUT", "/api/chain", body: Array(edited.utf8)).status == 200)
        #expect(try await e.request("POST", "/api/save").status == 200)
        let saved = try Chain.load(e.chainPath)
        #expect(saved.steps.map(\.id) == original.steps.map(\.id))
        #expect((saved.steps[2].filter as? GaussianBlur)?.sigma == 3)

        // Someone else writes the file: Save says so and writes nothing.
        let theirs = e.fileText.replacingOccurrences(of: "\"sigma\": 3", with: "\"sigma\": 7")
        try theirs.write(toFile: e.chainPath, atomically: true, encoding: .utf8)
        let edited2 = edited.replacingOccurrences(of: "\"sigma\": 3", with: "\"sigma\": 5")
        #expect(try await e.request("PUT", "/api/chain", body: Array(edited2.utf8)).status == 200)
        let conflict = try await e.request("POST", "/api/save")
        #expect(conflict.status == 409)
        #expect(conflict.error == "\(e.chainPath): the file changed on disk since it was loaded or saved; reload it or overwrite it")
        #expect(e.fileText == theirs)

        // Overwrite: writes ours.
        #expect(try await e.request("POST", "/api/save?force=1").status == 200)
        #expect((try Chain.load(e.chainPath).steps[2].filter as? GaussianBlur)?.sigma == 5)
        // Once saved, a later save needs no force.
        #expect(try await e.request("POST", "/api/save").status == 200)

        // Reload takes the file's version, dropping unsaved edits.
        try theirs.write(toFile: e.chainPath, atomically: true, encoding: .utf8)
        let reloaded = try await e.request("POST", "/api/reload")
        #expect(reloaded.status == 200)
        #expect((try Chain.parse(reloaded.body, file: "r").steps[2].filter as? GaussianBlur)?.sigma == 7)
        #expect(try await e.request("POST", "/api/save").status == 200)
    }

    @Test func anInvalidChainFileStillOpensWithItsTextAndError() async throws {
        let broken = "{\n  \"version\": 1,\n  \"filters\": [\n    { \"type\": \"gaussianBlur\", \"parameters\": { \"sigma\": -1 } }\n  ]\n}\n"
        let e = try await Running(chainText: broken)
        defer { Task { await e.stop() } }
        let response = try await e.request("GET", "/api/chain")
        #expect(response.status == 422)
        let object = response.json as? [String: Any]
        #expect(object?["text"] as? String == broken)
        #expect(object?["line"] as? Int != nil)
        var expected = ""
        do { _ = try Chain.parse(Array(broken.utf8), file: e.chainPath) } catch { expected = error.description }
        #expect(response.error == expected)
        #expect(try await e.request("POST", "/api/save").status == 422)
        // Mended on the page, then saved.
        let mended = broken.replacingOccurrences(of: "-1", with: "1")
            .replacingOccurrences(of: "{ \"type\"", with: "{ \"id\": \"C3D4E5F6-A7B8-4C9D-8E0F-1A2B3C4D5E6F\", \"type\"")
        #expect(try await e.request("PUT", "/api/chain", body: Array(mended.utf8)).status == 200)
        #expect(try await e.request("POST", "/api/save").status == 200)
        #expect(try Chain.load(e.chainPath).steps.map(\.id) == ["C3D4E5F6-A7B8-4C9D-8E0F-1A2B3C4D5E6F"])
    }

    @Test func aMissingChainFileIsCreatedEmpty() throws {
        let folder = NSTemporaryDirectory() + "filterchain-editor-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/new.json"
        _ = try Editor(chainPath: path, imagePath: Self.chelsea, renderer: Renderer(threads: 1))
        let chain = try Chain.load(path)
        #expect(chain.steps.isEmpty)
    }

    // MARK: Rendering

    /// Every step, named every way `--preview` takes it, against the renderer's own output for
    /// that prefix of the chain at full size (chelsea is smaller than 1024 pixels).
    @Test func rendersEveryStep() async throws {
        let e = try await Running()
        defer { Task { await e.stop() } }
        let chain = try Chain.load(e.chainPath)
        let renderer = Renderer(threads: 2)
        for position in 0...chain.steps.count {
            var references = ["\(position)"]
            if position > 0 {
                let step = chain.steps[position - 1]
                references += [step.id, step.id.lowercased(), String(step.id.prefix(6))]
                if let name = step.name { references.append(name) }
            }
            let reference = try renderer.apply(chain, to: e.editor.image, step: position, depth: .eight)
            for text in references {
                let response = try await e.request("GET", "/api/render?step=\(text)")
                #expect(response.status == 200, "step \(text)")
                #expect(response.headers["content-type"] == "image/png")
                let image = try renderer.apply(Chain(), to: try Self.decode(response.body))
                #expect(image.width == reference.width && image.height == reference.height)
                let difference = zip(image.samples, reference.samples).map { abs($0 - $1) }.max() ?? 99
                #expect(difference <= 1, "step \(text): \(difference)")
            }
        }
        let small = try Self.decode(try await e.request("GET", "/api/render?step=3&size=100").body)
        #expect(max(small.width, small.height) == 100)
        for bad in ["nope", "9", "0F6"] {
            let response = try await e.request("GET", "/api/render?step=\(bad)")
            #expect(response.status == 404, "\(bad)")
            var expected = ""
            do { _ = try StepReference(bad).resolve(in: chain) } catch { expected = "\(e.chainPath): \(error)" }
            #expect(response.error == expected)
        }
        #expect(try await e.request("GET", "/api/render?step=1&size=0").status == 400)
        #expect(try await e.request("GET", "/api/render").status == 400)
    }

    /// A graph (samples/chains/glow.json: a blur read only as a layer, a blend that reads the
    /// source, a masked exposure): every node previews as the renderer gives it, the blur
    /// too, which the final image does not pass through; by position and by name.
    @Test func rendersEveryNodeOfAGraph() async throws {
        let glow = Self.root.appendingPathComponent("samples/chains/glow.json").path
        let e = try await Running(chainText: try String(contentsOfFile: glow, encoding: .utf8))
        defer { Task { await e.stop() } }
        let chain = try Chain.load(e.chainPath)
        #expect(chain.usesGraph)
        let renderer = Renderer(threads: 2)
        for position in 0...chain.steps.count {
            let reference = try renderer.apply(chain, to: e.editor.image, step: position, depth: .eight)
            let names = position == 0 ? ["0", "source"] : ["\(position)", chain.steps[position - 1].name!]
            for text in names {
                let response = try await e.request("GET", "/api/render?step=\(text)")
                #expect(response.status == 200, "step \(text)")
                let image = try renderer.apply(Chain(), to: try Self.decode(response.body))
                let difference = zip(image.samples, reference.samples).map { abs($0 - $1) }.max() ?? 99
                #expect(image.width == reference.width && difference <= 1, "step \(text): \(difference)")
            }
        }
    }

    static func decode(_ png: [UInt8]) throws -> RasterImage {
        try Renderer(threads: 1).render(Chain(), source: .bytes(png, name: "response"),
                                        outputs: [RenderOutput(step: 0, .memory())]).images[0]!
    }

    @Test func theCatalogueIsWhatFiltersJSONPrints() async throws {
        let e = try await Running()
        defer { Task { await e.stop() } }
        let response = try await e.request("GET", "/api/filters")
        #expect(response.status == 200)
        let types = (response.json as? [[String: Any]])?.map { $0["type"] as? String }
        #expect(types == FilterRegistry.names)
        let blur = (response.json as? [[String: Any]])?.first { $0["type"] as? String == "gaussianBlur" }
        let sigma = (blur?["parameters"] as? [[String: Any]])?.first
        #expect(sigma?["unit"] as? String == "pixels")
        #expect(response.text == JSONWriter.compact(JSONNode(.array(FilterRegistry.infos.map(\.jsonNode)))) + "\n")
    }

    @Test(arguments: ["out.png", "out.tif"])
    func exportWritesTheFullSizeImage(output: String) async throws {
        let e = try await Running(output: output)
        defer { Task { await e.stop() } }
        let edited = e.fileText.replacingOccurrences(of: "\"sigma\": 2", with: "\"sigma\": 1")
        #expect(try await e.request("PUT", "/api/chain", body: Array(edited.utf8)).status == 200)
        #expect(try await e.request("POST", "/api/export").status == 202)
        var state = ""
        for _ in 0..<600 {
            let status = try await e.request("GET", "/api/export").json as? [String: Any]
            state = status?["state"] as? String ?? ""
            if state != "running" { break }
            usleep(50_000)
        }
        #expect(state == "done")
        let written = try Renderer(threads: 1).render(Chain(), source: .file(e.folder + "/" + output),
                                                     outputs: [RenderOutput(step: 0, .memory())]).images[0]!
        let chain = try Chain.parse(Array(edited.utf8), file: "edited")
        let reference = try Renderer(threads: 2).apply(chain, to: e.editor.image)
        if output.hasSuffix(".png") {
            #expect(written == reference)
        } else {
            // TIFF keeps the resolution per centimetre (PNG's is per metre): the same density.
            #expect(written.pixels == reference.pixels && written.format == reference.format)
            #expect(written.metadata.iccProfile == reference.metadata.iccProfile && written.metadata.xmp == reference.metadata.xmp)
            #expect(written.metadata.resolution == Resolution(x: 28.35, y: 28.35, unit: .perCentimetre))
            #expect(reference.metadata.resolution == Resolution(x: 2835, y: 2835, unit: .perMetre))
        }
        let none = try await Running()
        defer { Task { await none.stop() } }
        #expect(try await none.request("POST", "/api/export").status == 404)
    }
}
