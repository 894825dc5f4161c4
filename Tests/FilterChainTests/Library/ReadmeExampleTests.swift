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
    let afterStep1 = try renderer.apply(chain, to: photo, step: 1)
    let jpeg: [UInt8] = try edited.encoded(as: .jpeg, options: EncodeOptions(quality: 85))
    print(edited.width, afterStep1.height, jpeg.count)

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

    @Test func readmeShowsTheCompiledExample() throws {
        let readme = try Self.readmeBlock()
        let tested = try Self.testedBlock()
        #expect(readme.first == "", "README's block starts with the import line and a blank line")
        #expect(Array(readme.dropFirst()) == tested)
    }
}
