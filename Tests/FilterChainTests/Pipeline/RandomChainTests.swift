import Foundation
import Testing
@testable import FilterChain

/// Random chains over the whole catalogue on random images of every layout, each rendered
/// streamed under three schedules (1, 2 and 4 threads, with strip heights from 1 to 200)
/// and checked four ways:
/// - the schedules give the same bytes at every position;
/// - the image at every position equals the step-by-step oracle (`StepwiseReference`: each
///   step over the whole image in Float, no strips) within one level at 16 bits;
/// - the preview at one position equals the final image of the chain cut there, byte for
///   byte (a step's result never depends on what follows it);
/// - now and then, a 16-bit PNG file output decodes to the image rendered in memory.
///
/// About a third of the chains have some numbers rewritten as expressions and variables that
/// take exactly the values drawn (`RandomChains.addExpressions`, reading each step's input
/// size as the generator tracked it); the oracle works from the literal chain.
///
/// A failure prints its case's seed and the one line that runs that case alone:
/// `FILTERCHAIN_RANDOM_CASE=SEED swift test --filter RandomChainTests`. Failures found are
/// kept in Tests/Fixtures/random/ (a chain file and its image) and run by `regressions`.
/// `FILTERCHAIN_RANDOM_SECONDS=N` runs cases with seeds from the clock for N seconds, with
/// larger images (CI's AddressSanitizer stage does, for 180 s). `FILTERCHAIN_RANDOM_COUNT=N`
/// runs only the first N cases of each batch (a quick look while working).
@Suite struct RandomChainTests {
    static let seedBase: UInt64 = 0x5EED_F11E_C4A1_0019
    static let batches = 8
    static let casesPerBatch = 250

    static func caseSeed(batch: Int, index: Int) -> UInt64 {
        var e = SeedEntropy(seedBase &+ UInt64(batch) &* 0x1_0000_0001 &+ UInt64(index))
        return e.next()
    }

    static let setUp: Void = {
        let luts = TestData.samples.appendingPathComponent("luts").path
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: luts)) ?? []).filter { $0.hasSuffix(".cube") }.sorted()
        RandomChains.cubeFiles = names.map { luts + "/" + $0 }
    }()

    /// 2,000 cases from a fixed seed, in batches that run in parallel.
    @Test(arguments: 0..<batches)
    func randomChains(batch: Int) throws {
        _ = Self.setUp
        #expect(!RandomChains.cubeFiles.isEmpty, "lut steps need samples/luts")
        let count = ProcessInfo.processInfo.environment["FILTERCHAIN_RANDOM_COUNT"].flatMap { Int($0) } ?? Self.casesPerBatch
        var withExpressions = 0, withFloat = 0
        for index in 0..<count {
            let seed = Self.caseSeed(batch: batch, index: index)
            var e = SeedEntropy(seed)
            let c = RandomChains.makeCase(&e)
            if c.chain.steps.contains(where: { !$0.computed.isEmpty }) { withExpressions += 1 }
            if c.imageDescription.contains("float") { withFloat += 1 }
            let ok = try Self.check(c, label: Self.repro(seed), fileOutput: index % 8 == 0)
            if !ok { return }  // one case's failures are enough to read
        }
        // About a third of the cases compute some of their numbers.
        if count >= 40 { #expect(withExpressions >= count / 8, "\(withExpressions) of \(count) cases with expressions") }
        // Some read float samples (unclamped, as a float TIFF's).
        if count >= 100 { #expect(withFloat > 0, "no case of \(count) has a float image") }
    }

    /// Random chains on animations (issue 39): a case's image, made 8-bit RGBA, and two
    /// changes of it (its rows turned over, its channels darkened) as a 3-frame lossless WebP
    /// animation; the chain's output for each frame must be the still render of that frame as
    /// decoded (which the cases above hold to the step-by-step oracle).
    @Test(arguments: 0..<2)
    func randomChainsOnAnimations(batch: Int) throws {
        _ = Self.setUp
        let folder = TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for index in 0..<12 {
            let seed = Self.caseSeed(batch: 1000 + batch, index: index)
            var e = SeedEntropy(seed)
            let c = RandomChains.makeCase(&e)
            let n = c.chain.steps.count
            let w = c.image.width, h = c.image.height
            guard w <= 16383, h <= 16383 else { continue }
            // The image's samples as 8-bit RGBA (rgba16 holds them at 16 bits).
            let rgba = c.image.rgba16.map { UInt8(($0 * 255 + 32767) / 65535) }
            var frames = [rgba, [UInt8](repeating: 0, count: rgba.count), rgba.map { $0 / 2 }]
            for y in 0..<h { frames[1].replaceSubrange((y * w * 4)..<((y + 1) * w * 4), with: rgba[((h - 1 - y) * w * 4)..<((h - y) * w * 4)]) }
            for k in [2] { for i in Swift.stride(from: 3, to: frames[k].count, by: 4) { frames[k][i] = rgba[i] } }
            let path = folder.appendingPathComponent("a\(batch)-\(index).webp").path
            let writer = try AnimationWriter(.file(path), format: .webp, width: w, height: h, pixelFormat: PixelFormat(.rgba, .eight),
                                             options: EncodeOptions(settings: ["lossless": .boolean(true)]))
            for f in frames { try writer.add(try RasterImage(width: w, height: h, format: PixelFormat(.rgba, .eight), pixels: f), delay: 50) }
            try writer.finish()
            let renderer = Renderer(threads: 2)
            let result: AnimationResult
            do {
                result = try renderer.render(c.chain, animation: .file(path), outputs: [AnimationOutput(step: n, .memory(depth: .sixteen))])
            } catch is RenderError {
                continue  // a geometry step that cannot apply: the still cases check that
            }
            // (A frame equal to the one before lengthens it: an image that is its own flip
            // makes two frames.)
            let reader = try AnimationReader(.file(path))
            #expect(result.images[0].count == reader.animation.frameCount && reader.animation.frameCount >= 2)
            for k in 0..<reader.animation.frameCount {
                let still = try renderer.render(c.chain, image: try reader.nextFrame(), outputs: [RenderOutput(step: n, .memory(depth: .sixteen))])
                #expect(result.images[0][k] == still.images[0], "\(Self.repro(seed)): frame \(k) of the animation differs from its still render")
            }
        }
    }

    /// Random chains on camera RAW sources (small DNGs made from the case's image by TestDNG,
    /// each of the four patterns): the render streamed from the file must equal the render of
    /// the same chain on the decoded development (which the cases above hold to the oracle),
    /// unless the file took half size on load (RAWTests and the rawpy oracle check that).
    @Test(.enabled(if: RAWTests.available), arguments: 0..<2)
    func randomChainsOnRAWSources(batch: Int) throws {
        _ = Self.setUp
        let folder = TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var compared = 0
        for index in 0..<10 {
            let seed = Self.caseSeed(batch: 2000 + batch, index: index)
            var e = SeedEntropy(seed)
            let c = RandomChains.makeCase(&e)
            let n = c.chain.steps.count
            let iw = c.image.width, ih = c.image.height
            guard iw <= 4096, ih <= 4096 else { continue }
            // LibRaw develops sensors of 22 pixels or more a side.
            let w = max(iw, 24), h = max(ih, 24)
            let samples = c.image.rgba16
            let dng = TestDNG(width: w, height: h, pattern: TestDNG.Pattern.allCases[index % 4], bits: index % 2 == 0 ? 14 : 12,
                              orientation: [1, 3, 6, 8][(index / 2) % 4]) { x, y in
                let at = (min(y, ih - 1) * iw + min(x, iw - 1)) * 4
                return (0..<3).map { RAWTests.linear(Double(samples[at + $0]) / 65535) * 0.9 }
            }
            let path = folder.appendingPathComponent("r\(batch)-\(index).dng").path
            try Data(dng.bytes).write(to: URL(fileURLWithPath: path))
            let renderer = Renderer(threads: 2)
            let streamed: RenderResult
            do {
                streamed = try renderer.render(c.chain, source: .file(path), outputs: [RenderOutput(step: n, .memory(depth: .sixteen))])
            } catch is RenderError {
                continue  // a geometry step that cannot apply: the still cases check that
            }
            if streamed.shrunkOnLoad > 1 { continue }
            let developed = try RasterImage(contentsOf: path)
            #expect(developed.metadata.cameraRAW != nil)
            let still = try renderer.render(c.chain, image: developed, outputs: [RenderOutput(step: n, .memory(depth: .sixteen))])
            #expect(streamed.images[0] == still.images[0], "\(Self.repro(seed)): the chain on the RAW file differs from the chain on its development")
            compared += 1
        }
        // Most cases compare (a chain that cannot apply, or that halves on load, does not).
        #expect(compared >= 5, "only \(compared) of 10 random RAW cases compared")
    }

    /// Random chains on JPEG XL sources (issue 39): the case's image written losslessly as
    /// JPEG XL (8-bit, 16-bit or float, grey or colour, with or without alpha, as the case
    /// made it); the decoded image must be the case's own bytes (lossless, float unclamped),
    /// and the render streamed from the file must equal the render of the same chain on the
    /// decoded image (which the cases above hold to the step-by-step oracle).
    @Test(arguments: 0..<2)
    func randomChainsOnJXLSources(batch: Int) throws {
        _ = Self.setUp
        let folder = TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var compared = 0
        for index in 0..<10 {
            let seed = Self.caseSeed(batch: 3000 + batch, index: index)
            var e = SeedEntropy(seed)
            let c = RandomChains.makeCase(&e)
            let n = c.chain.steps.count
            guard c.image.width <= 2048, c.image.height <= 2048 else { continue }
            let path = folder.appendingPathComponent("j\(batch)-\(index).jxl").path
            try c.image.write(to: path, options: EncodeOptions(settings: ["lossless": .boolean(true)]))
            let decoded = try RasterImage(contentsOf: path)
            // Every layout, float too, comes back bit for bit.
            #expect(decoded.width == c.image.width && decoded.height == c.image.height && decoded.format == c.image.format,
                    "\(Self.repro(seed)): \(c.imageDescription) came back as \(decoded.format)")
            #expect(decoded.pixels == c.image.pixels, "\(Self.repro(seed)): lossless JPEG XL changed \(c.imageDescription)")
            let renderer = Renderer(threads: 2)
            let streamed: RenderResult
            do {
                streamed = try renderer.render(c.chain, source: .file(path), outputs: [RenderOutput(step: n, .memory(depth: .sixteen))])
            } catch is RenderError {
                continue  // a geometry step that cannot apply: the still cases check that
            }
            let still = try renderer.render(c.chain, image: decoded, outputs: [RenderOutput(step: n, .memory(depth: .sixteen))])
            #expect(streamed.images[0] == still.images[0], "\(Self.repro(seed)): the chain on the JPEG XL file differs from the chain on its decoded image")
            compared += 1
        }
        #expect(compared >= 5, "only \(compared) of 10 random JPEG XL cases compared")
    }

    /// One case, from the seed a failure printed.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["FILTERCHAIN_RANDOM_CASE"] != nil))
    func oneCase() throws {
        _ = Self.setUp
        let text = ProcessInfo.processInfo.environment["FILTERCHAIN_RANDOM_CASE"]!
        let seed = try #require(UInt64(text.hasPrefix("0x") ? String(text.dropFirst(2)) : text, radix: 16))
        let large = ProcessInfo.processInfo.environment["FILTERCHAIN_RANDOM_LARGE"] != nil
        var e = SeedEntropy(seed)
        let c = RandomChains.makeCase(&e, limits: large ? Self.longLimits : CaseLimits())
        print("case \(Self.repro(seed)): \(c.imageDescription), \(c.chain.workingSpace), schedules \(c.schedules), cut at \(c.cuts)\n\(c.chain.jsonText)")
        _ = try Self.check(c, label: Self.repro(seed), fileOutput: true)
    }

    static let longLimits = CaseLimits(side: 700, area: 120_000, maxSteps: 8, maxThreads: 8, maxStrip: 200)

    /// Seeds from the clock for FILTERCHAIN_RANDOM_SECONDS seconds, larger images.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["FILTERCHAIN_RANDOM_SECONDS"] != nil))
    func longRun() throws {
        _ = Self.setUp
        let seconds = Double(ProcessInfo.processInfo.environment["FILTERCHAIN_RANDOM_SECONDS"]!) ?? 180
        var clock = SeedEntropy(UInt64(Date().timeIntervalSince1970 * 1e6))
        let end = Date().addingTimeInterval(seconds)
        var cases = 0
        while Date() < end {
            let seed = clock.next()
            var e = SeedEntropy(seed)
            let c = RandomChains.makeCase(&e, limits: Self.longLimits)
            let label = Self.repro(seed) + " FILTERCHAIN_RANDOM_LARGE=1"
            if !(try Self.check(c, label: label, fileOutput: cases % 4 == 0)) { break }
            cases += 1
        }
        print("random chains: \(cases) cases in \(Int(seconds)) s")
        #expect(cases > 0)
    }

    /// Every kept failure under a fixed set of schedules, every position cut: a chain file
    /// NAME.json with its image NAME.png, or NAME.source naming an image of the repository.
    @Test(arguments: regressionCases())
    func regressions(_ name: String) throws {
        let folder = TestData.fixtures.appendingPathComponent("random")
        let chain = try Chain.load(folder.appendingPathComponent(name + ".json").path)
        var imagePath = folder.appendingPathComponent(name + ".png").path
        if !FileManager.default.fileExists(atPath: imagePath) {
            let source = try String(contentsOf: folder.appendingPathComponent(name + ".source"), encoding: .utf8)
            imagePath = TestData.packageRoot.appendingPathComponent(source.trimmingCharacters(in: .whitespacesAndNewlines)).path
        }
        let image = try RasterImage(contentsOf: imagePath)
        // Expressions in a kept chain are evaluated by the library for the oracle's literals.
        let resolved = try chain.resolved(sourceSize: ImageSize(width: image.width, height: image.height)).chain
        let literal = Chain(workingSpace: resolved.workingSpace, images: resolved.images, steps: resolved.steps.map(\.written))
        let c = RandomCase(chain: chain, literal: literal, image: image, imageDescription: name,
                           schedules: [(1, 1), (2, 32), (4, 7), (3, 200)], cuts: Array(0...chain.steps.count))
        _ = try Self.check(c, label: "Tests/Fixtures/random/\(name)", fileOutput: true)
    }

    static func regressionCases() -> [String] {
        let folder = TestData.fixtures.appendingPathComponent("random").path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }

    @Test func regressionCasesAreKept() {
        #expect(!Self.regressionCases().isEmpty)
    }

    static func repro(_ seed: UInt64) -> String {
        "FILTERCHAIN_RANDOM_CASE=" + String(seed, radix: 16)
    }

    /// Runs every check of one case; false (with the failures recorded) when one failed.
    static func check(_ c: RandomCase, label: String, fileOutput: Bool) throws -> Bool {
        let chain = c.chain
        let n = chain.steps.count
        let outputs = (0...n).map { RenderOutput(step: $0, .memory(depth: .sixteen)) }
        let what = "\(label) (\(c.imageDescription), \(chain.workingSpace), chain \(JSONWriter.compact(chain.jsonNode)))"

        // The oracle; a geometry step that cannot apply must fail the render too.
        let expected: [FloatImage]
        do { expected = try StepwiseReference.positions(c.literal, image: c.image) } catch {
            for (threads, strip) in c.schedules {
                #expect(throws: RenderError.self, "\(what): the oracle failed (\(error.reason)), the render did not") {
                    try Renderer(threads: threads, stripHeight: strip).render(chain, image: c.image, outputs: outputs)
                }
            }
            return true
        }

        var first: [RasterImage?]?
        var failed = false
        var firstRenderer: Renderer?
        for (threads, strip) in c.schedules {
            let renderer = Renderer(threads: threads, stripHeight: strip)
            if firstRenderer == nil { firstRenderer = renderer }
            let images = try renderer.render(chain, image: c.image, outputs: outputs).images
            if let first {
                if images != first {
                    let which = (0...n).filter { images[$0] != first[$0] }
                    Issue.record("\(what): \(threads) threads, strips of \(strip) differ from \(c.schedules[0]) at positions \(which)")
                    failed = true
                }
            } else {
                first = images
            }
        }
        let images = first!.map { $0! }
        let linear = chain.workingSpace == .linear
        for k in 0...n {
            let image = images[k], reference = expected[k]
            guard image.width == reference.width && image.height == reference.height else {
                Issue.record("\(what): position \(k) is \(image.width)x\(image.height), the oracle's \(reference.size)")
                failed = true
                continue
            }
            var oracle = StepwiseReference.samples(reference, linear: linear)
            if image.format.channels.isGrey {
                // A grey output stores red (the chain keeps neutral pixels neutral, up to
                // float rounding between channels).
                for i in Swift.stride(from: 0, to: oracle.count, by: 4) { oracle[i + 1] = oracle[i]; oracle[i + 2] = oracle[i] }
            }
            let d = maxDifference(image.rgba16, oracle, width: image.width)
            if d.max > 1 {
                Issue.record("\(what): position \(k) differs from the step-by-step oracle by \(d.max) levels at 16 bits (first at x \(d.x), y \(d.y), channel \(d.channel))")
                failed = true
            }
        }

        // A preview is the final image of the chain cut there.
        let renderer = firstRenderer!
        for cut in c.cuts {
            let cutImage = try renderer.apply(chain.prefix(through: cut), to: c.image, depth: .sixteen)
            if cutImage != images[cut] {
                Issue.record("\(what): the preview at \(cut) differs from the chain cut there")
                failed = true
            }
        }

        if fileOutput {
            let folder = TestData.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let path = folder.appendingPathComponent("out.png").path
            var options = EncodeOptions()
            options.depth = .sixteen
            _ = try renderer.render(chain, image: c.image, outputs: [RenderOutput(step: n, .file(.file(path), options))])
            let decoded = try RasterImage(contentsOf: path)
            if decoded.rgba16 != images[n].rgba16 {
                Issue.record("\(what): the PNG file differs from the image in memory")
                failed = true
            }
        }
        return !failed
    }

    static func maxDifference(_ a: [Int], _ b: [Int], width: Int) -> (max: Int, x: Int, y: Int, channel: Int) {
        var best = (max: 0, x: 0, y: 0, channel: 0)
        for i in a.indices {
            let d = abs(a[i] - b[i])
            if d > best.max { best = (d, (i / 4) % width, i / 4 / width, i % 4) }
        }
        return best
    }
}
