import Foundation
import Testing
@testable import FilterChain

/// Every input a fuzzer (Tests/Fuzz) found a crash with, kept in Tests/Fixtures/fuzz/HARNESS/,
/// run through what that harness does. Under `swift test` (and the sanitizer runs of CI) each
/// must end in a result or a typed error.
@Suite struct FuzzRegressionTests {
    static func files(_ harness: String) -> [String] {
        let folder = TestData.fixtures.appendingPathComponent("fuzz/" + harness).path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { folder + "/" + $0 }
    }

    static func bytes(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test(arguments: files("png") + files("jpeg") + files("webp") + files("tiff") + files("heif") + files("avif") + files("gif") + files("jxl") + files("raw"))
    func imagesDecodeOrFailWithAnError(_ path: String) throws {
        let bytes = try Self.bytes(path)
        for lenient in [false, true] {
            let options = DecodeOptions(maxPixels: 1 << 22, lenient: lenient)
            do {
                let reader = try ImageReader.open(.bytes(bytes, name: "fuzz"), options: options)
                let pixels = try reader.readAll()
                #expect(pixels.count == reader.info.rowBytes * reader.info.height)
            } catch let error as CodecError {
                #expect(!error.message.isEmpty)
            }
        }
    }

    /// What the GIF and WebP harnesses do next: every frame of an animation, strictly and
    /// leniently, each a whole canvas, or an error with a message.
    @Test(arguments: files("gif") + files("webp") + files("jxl"))
    func animationsDecodeFrameByFrameOrFailWithAnError(_ path: String) throws {
        let bytes = try Self.bytes(path)
        for lenient in [false, true] {
            do {
                let reader = try AnimationReader(.bytes(bytes, name: "fuzz"), options: DecodeOptions(maxPixels: 1 << 20, lenient: lenient),
                                                 maxFrames: 64)
                for _ in 0..<reader.animation.frameCount {
                    let frame = try reader.nextFrame()
                    #expect(frame.width == reader.info.width && frame.height == reader.info.height)
                }
            } catch let error as CodecError {
                #expect(!error.message.isEmpty)
            }
        }
    }

    /// The gain map harness's crashes (whole files): the search ends, and a map it accepts is
    /// one a render can use (1 or 3 channels, a size, finite values, min <= max, gamma > 0).
    @Test(arguments: files("gainmap"))
    func gainMapSearchesEndWithAUsableMapOrAReason(_ path: String) throws {
        switch GainMap.search(jpeg: try Self.bytes(path)) {
        case .none: break
        case .damaged(let why): #expect(!why.isEmpty)
        case .found(let m):
            #expect([1, 3].contains(m.channels) && m.width > 0 && m.height > 0)
            #expect(m.problem == nil && m.baseHeadroom.isFinite && m.alternateHeadroom.isFinite)
        }
    }

    /// What the tiff harness does next: a small decoded image written back as TIFF with its
    /// metadata, and read again.
    @Test(arguments: files("tiff"))
    func tiffsDecodedAreWrittenBack(_ path: String) throws {
        guard let reader = try? ImageReader.open(.bytes(try Self.bytes(path), name: "fuzz"),
                                                 options: DecodeOptions(maxPixels: 1 << 16, lenient: true)),
              let pixels = try? reader.readAll() else { return }
        let info = reader.info
        if info.format.depth.isFloat {
            // TIFF holds float: the renderer writes float rows as they are (these fixtures have
            // no profile, so no colour changes on the way), unclamped.
            let image = try RasterImage(width: info.width, height: info.height, format: info.format,
                                        metadata: info.metadata, pixels: pixels)
            let again = try RasterImage(decoding: try image.encoded(as: .tiff), name: "again")
            #expect(again.format == info.format)
            #expect(again.pixels == image.pixels)
            return
        }
        let buffer = OutputBuffer()
        let writer = try ImageWriter(.memory(buffer), format: .tiff,
                                     header: EncodeHeader(width: info.width, height: info.height, format: info.format, metadata: info.metadata))
        try pixels.withUnsafeBytes { try writer.writeNow(rows: $0.baseAddress!, stride: info.rowBytes, count: info.height) }
        try writer.finish()
        let again = try ImageReader.open(.bytes(buffer.bytes, name: "again"))
        #expect(again.info.format == info.format)
        #expect(try again.readAll() == pixels || again.info.appliedOrientation != nil)
    }

    /// The heif harness renders each input once more with a fast resize on a renderer of two
    /// threads (a decode on two threads, shrink-on-load by block averages), its last byte
    /// choosing the scale, as the harness does.
    @Test(arguments: files("heif"))
    func heifRendersWithAFastResizeOrFailsWithAnError(_ path: String) throws {
        let bytes = try Self.bytes(path)
        let scale = [0.45, 0.2, 0.1, 0.05][Int(bytes[bytes.count - 1]) % 4]
        let chain = Chain([Resize(scale: scale, fast: true)])
        do {
            let result = try Renderer(threads: 2).render(chain, source: .bytes(bytes, name: "fuzz"),
                                                         decode: DecodeOptions(maxPixels: 1 << 22),
                                                         outputs: [RenderOutput(step: 1, .memory())])
            let image = try #require(result.images[0])
            #expect(image.pixels.count == image.rowBytes * image.height)
        } catch let error as CodecError {
            #expect(!error.message.isEmpty)
        }
    }

    @Test(arguments: files("chain"))
    func chainsParseAndWriteBackOrFailWithAnError(_ path: String) throws {
        let bytes = try Self.bytes(path)
        let chain: Chain
        do { chain = try Chain.parse(bytes, file: "fuzz.json") } catch {
            #expect(!error.description.isEmpty)
            return
        }
        let again = try Chain.parse(Array(chain.jsonText.utf8), file: "again.json")
        #expect(again.jsonText == chain.jsonText)
    }

    @Test(arguments: files("cube"))
    func cubeFilesParseOrFailWithAnError(_ path: String) throws {
        do {
            let lut = try CubeLUT(parsing: try Self.bytes(path))
            #expect(lut.shaper != nil || lut.cube != nil)
            if let cube = lut.cube {
                let n = cube.size
                var finite = true
                for b in 0..<n { for g in 0..<n { for r in 0..<n {
                    let e = cube.entry(r, g, b)
                    finite = finite && e.x.isFinite && e.y.isFinite && e.z.isFinite
                } } }
                #expect(finite, "every entry of an accepted table is finite")
            }
        } catch let error as CubeLUTError {
            #expect(!error.description.isEmpty)
        }
    }

    @Test(arguments: files("step"))
    func stepReferencesResolveInsideTheChain(_ path: String) throws {
        let text = String(decoding: try Self.bytes(path), as: UTF8.self)
        let chain = Chain([ColorControls(), GaussianBlur()])
        do {
            let position = try StepReference(text).resolve(in: chain)
            #expect((0...chain.steps.count).contains(position))
        } catch {
            #expect(!error.description.isEmpty)
        }
    }

    /// What the `expr` harness does: any text parsed as an expression (given an '=' when it
    /// lacks one); a refusal at a character inside it or just past it; an accepted one
    /// evaluated to a finite number or an error at a character; then the text as a chain
    /// file's parameter, refused at a column of its line or accepted.
    @Test(arguments: files("expr"))
    func expressionsParseOrFailAtACharacter(_ path: String) throws {
        let raw = String(decoding: try Self.bytes(path), as: UTF8.self)
        let text = raw.hasPrefix("=") ? raw : "=" + raw
        let names = ["strength", "long"] + NumberExpression.sizeNames
        do {
            let e = try NumberExpression(text, names: names, laterNames: ["later"])
            #expect(e.text == text && e.names.isSubset(of: Set(names)))
            do {
                #expect(try e.evaluate(["strength": 0.5, "long": 1600, "width": 640, "height": 480, "sourceWidth": 640, "sourceHeight": 480]).isFinite)
            } catch {
                #expect((0..<text.count).contains(error.offset) && !error.message.isEmpty, "\(text): \(error)")
            }
        } catch {
            #expect((0...text.count).contains(error.offset) && !error.message.isEmpty, "\(text): \(error)")
        }
        let file = #"{ "version": 2, "variables": [ { "name": "strength", "value": 0.5 }, { "name": "long", "value": 1600 } ],"#
            + "\n" + #"  "filters": [ { "id": "0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41", "type": "gaussianBlur", "parameters": { "sigma": "#
            + JSONWriter.quote(text) + " } } ] }\n"
        let lineLength = file.split(separator: "\n")[1].utf8.count
        do {
            let chain = try Chain.parse(Array(file.utf8), file: "fuzz.json")
            _ = try? chain.resolved(sourceSize: ImageSize(width: 640, height: 480))
        } catch {
            if error.path == "filters[0].parameters.sigma" {
                #expect(error.line == 2 && (1...lineLength + 1).contains(error.column ?? 0), "\(text): \(error)")
            }
        }
    }

    /// The `render` harness's inputs make the case the fuzzer made of them (same generator,
    /// same limits), checked as the random-chain test checks its own: every position against
    /// the step-by-step oracle, the same bytes for each schedule, a preview against the cut
    /// chain.
    @Test(arguments: files("render"))
    func renderCasesAgreeWithTheOracleUnderEverySchedule(_ path: String) throws {
        _ = RandomChainTests.setUp
        var e = ByteEntropy(try Self.bytes(path))
        let c = RandomChains.makeCase(&e, limits: .fuzz)
        _ = try RandomChainTests.check(c, label: "Tests/Fixtures/fuzz/render/" + (path.split(separator: "/").last.map(String.init) ?? path),
                                       fileOutput: false)
    }

    /// The harnesses Tests/Fuzz/fuzz runs by default: its `targets="${*:-chain png ...}"`
    /// line, read here so that a harness added there needs its folder here too.
    static func fuzzScriptHarnesses() throws -> [String] {
        let script = try String(contentsOf: TestData.packageRoot.appendingPathComponent("Tests/Fuzz/fuzz"), encoding: .utf8)
        let prefix = "all=\""
        let line = try #require(script.split(separator: "\n").first { $0.hasPrefix(prefix) && $0.hasSuffix("\"") },
                                "Tests/Fuzz/fuzz has no \(prefix)...\" line")
        return line.dropFirst(prefix.count).dropLast(1).split(separator: " ").map(String.init)
    }

    /// The harnesses the parameterised tests above run, each with its folder.
    static let testedHarnesses = ["png", "jpeg", "webp", "gif", "jxl", "raw", "tiff", "heif", "avif", "chain", "step", "cube", "render", "expr", "gainmap"]

    /// A parameterised test over an empty folder runs nothing and passes: each folder the
    /// tests above read must hold at least one file (the harness's seeds, and its crashes).
    @Test(arguments: testedHarnesses)
    func harnessFolderIsNotEmpty(_ harness: String) {
        #expect(!Self.files(harness).isEmpty, "Tests/Fixtures/fuzz/\(harness) holds no inputs, so its test runs nothing")
    }

    /// Every harness the fuzz script knows has a folder with inputs in it (its crashes go
    /// there, and FuzzRegressionTests runs them) and a test above that reads it.
    @Test func everyHarnessHasItsFolder() throws {
        let harnesses = try Self.fuzzScriptHarnesses()
        #expect(harnesses.count >= 5, "read \(harnesses) from Tests/Fuzz/fuzz")
        for harness in harnesses {
            #expect(!Self.files(harness).isEmpty, "Tests/Fixtures/fuzz/\(harness) is missing or empty")
            #expect(Self.testedHarnesses.contains(harness), "no test here runs Tests/Fixtures/fuzz/\(harness)")
        }
    }
}
