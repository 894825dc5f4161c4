import Foundation
import Testing
import FilterChain

// README's library example, exactly as README shows it (between the markers, indented by
// four spaces), so that it is compiled with the tests. A plain `import FilterChain` (not
// @testable): only public API. `.ci/client-package.sh` runs the same block as a client.
func readmeExample() throws {
    // README begin
    let chain = try Chain.load("look.json")
    let renderer = Renderer()          // one per process: its threads serve every image

    // Files: the whole chain and the image after step 2, from one evaluation.
    let result = try renderer.render(chain, source: .file("in.jpg"), outputs: [
        RenderOutput(step: chain.steps.count, file: "out.jpg", EncodeOptions(quality: 92)),
        RenderOutput(step: 2, file: "step2.png"),
    ])
    print(result.info)                 // 640 x 427 RGB 8-bit from JPEG, ICC profile (RGB, 560 bytes), 1 comment, 72 x 72 dpi

    // In memory: decode (with metadata), filter, encode.
    let photo = try RasterImage(contentsOf: "in.jpg")
    let look = Chain([ColorControls(saturation: 1.2, contrast: 1.1), GaussianBlur(sigma: 3)])
    let edited = try renderer.apply(look, to: photo)
    let jpeg: [UInt8] = try edited.encoded(as: .jpeg, options: EncodeOptions(quality: 85))

    // The final image and the one after step 1, from one evaluation.
    let shots = try renderer.images(chain, of: photo, steps: [1])
    print(edited.width, shots[1].height, shots.final.width, jpeg.count)

    // Interactive previews: a 1024-pixel copy, cached steps, stale renders cancelled.
    let session = try PreviewSession(image: photo, maxSize: 1024, renderer: renderer)
    let previews = try session.render(chain, at: [2, chain.steps.count])   // after step 2, final
    print(previews.count)
    // README end
}

@Suite struct ReadmeExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The ```swift block of README's "The library" section, without its import line.
    static func readmeBlock() throws -> [String] {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "## The library\n"))
        let lines = readme[section.upperBound...].components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "```swift"))
        let end = try #require(lines[(start + 1)...].firstIndex(of: "```"))
        return lines[(start + 1)..<end].filter { $0 != "import FilterChain" }
    }

    /// The body of readmeExample() between its markers, unindented.
    static func testedBlock() throws -> [String] {
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let lines = source.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "    // README begin"))
        let end = try #require(lines.firstIndex(of: "    // README end"))
        return lines[(start + 1)..<end].map { $0.hasPrefix("    ") ? String($0.dropFirst(4)) : $0 }
    }

    /// Set in the environment of the child process that runs the example.
    static let childVariable = "FILTERCHAIN_README_EXAMPLE_CHILD"

    /// README's example uses paths relative to the current directory ("look.json", "in.jpg"),
    /// as a program run from its folder would. The current directory belongs to the whole
    /// process, and the tests run in parallel in one process: a chdir here would move every
    /// other test's relative paths (and a lock would serialise only the tests that took it).
    /// So the example runs in a process of its own: this test binary again, started in a
    /// fresh folder and told (by `childVariable`) to run only `runReadmeExampleHere`, which
    /// calls the same compiled readmeExample(). README's text stays as a user would write it.
    /// Linux only: there the test binary is the process and takes Swift Testing's options;
    /// on macOS the tests run inside a host (xctest) that is not restarted this simply, and
    /// `.ci/client-package.sh` runs the example there as a client.
    #if os(Linux)
    @Test func readmeExampleRunsAndWritesItsFiles() throws {
        let folder = TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // look.json: the sample look, three steps (colour, curve, soften); in.jpg: a photograph.
        let look = try Chain.load(TestData.samples.appendingPathComponent("chains/look.json").path)
        #expect(look.steps.count >= 2)
        try look.save(to: folder.appendingPathComponent("look.json").path)
        try FileManager.default.copyItem(at: TestData.samples.appendingPathComponent("rocket.jpg"),
                                         to: folder.appendingPathComponent("in.jpg"))

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--testing-library", "swift-testing", "--filter", "ReadmeExampleTests/runReadmeExampleHere"]
        process.currentDirectoryURL = folder
        process.environment = ProcessInfo.processInfo.environment.merging([Self.childVariable: "1"]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "the example failed:\n\(text)")
        // It ran (a filter matching nothing would also exit 0), and printed what README says.
        #expect(text.contains("runReadmeExampleHere() passed"), "\(text)")
        #expect(text.contains("640 x 427 RGB 8-bit from JPEG, ICC profile (RGB, 560 bytes), 1 comment, 72 x 72 dpi"), "\(text)")

        let input = try ImageReader.open(.file(folder.appendingPathComponent("in.jpg").path)).info
        for (name, format) in [("out.jpg", ImageFormat.jpeg), ("step2.png", .png)] {
            let reader = try ImageReader.open(.file(folder.appendingPathComponent(name).path))
            #expect(reader.info.sourceFormat == format, "\(name)")
            #expect(reader.info.width == input.width && reader.info.height == input.height, "\(name): \(reader.info)")
            let pixels = try reader.readAll()
            #expect(pixels.count == reader.info.rowBytes * reader.info.height, "\(name) decodes to its last row")
        }
        // Only the inputs and the two outputs: no temporary files left behind.
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
                == ["look.json", "in.jpg", "out.jpg", "step2.png"])
    }
    #endif

    /// The child's half of readmeExampleRunsAndWritesItsFiles: runs the example in the
    /// current directory. Skipped unless that test started this process.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[childVariable] != nil))
    func runReadmeExampleHere() throws {
        try readmeExample()
    }

    @Test func readmeShowsTheCompiledExample() throws {
        let readme = try Self.readmeBlock()
        let tested = try Self.testedBlock()
        #expect(readme.first == "", "README's block starts with the import line and a blank line")
        #expect(Array(readme.dropFirst()) == tested)
    }
}
