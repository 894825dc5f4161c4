import FilterChain

/// The streamed pipeline under every schedule: the fuzzer's bytes choose a chain over the
/// whole catalogue, an image (size, layout, depth, alpha), two schedules (thread count and
/// strip height) and a cut position (RandomChain.swift, shared with the tests'
/// RandomChainTests). Under AddressSanitizer every render must stay inside its buffers, the
/// two schedules must give the same bytes at every position, and the preview at the cut must
/// be the final image of the chain cut there. Any difference stops the run with the case.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzRender.setUp()
    var e = ByteEntropy(Array(UnsafeBufferPointer(start: data, count: size)))
    let c = RandomChains.makeCase(&e, limits: .fuzz)
    let n = c.chain.steps.count
    let outputs = (0...n).map { RenderOutput(step: $0, .memory(depth: .sixteen)) }
    var first: [RasterImage?]?
    for (threads, strip) in c.schedules.prefix(2) {
        let renderer = Renderer(threads: threads, stripHeight: strip)
        let images: [RasterImage?]
        do { images = try renderer.render(c.chain, image: c.image, outputs: outputs).images } catch {
            // A geometry step that cannot apply to the image: a typed error with a message.
            precondition(!"\(error)".isEmpty)
            return 0
        }
        if let first, first != images {
            fatalError("schedules \(c.schedules[0]) and \((threads, strip)) differ on \(c.imageDescription):\n\(c.chain.jsonText)")
        }
        first = images
        if threads == c.schedules[0].threads {
            let cut = c.cuts[0]
            let cutImage = try? renderer.apply(c.chain.prefix(through: cut), to: c.image, depth: .sixteen)
            if cutImage != images[cut] {
                fatalError("the preview at \(cut) differs from the chain cut there on \(c.imageDescription):\n\(c.chain.jsonText)")
            }
        }
    }
    return 0
}

enum FuzzRender {
    static let luts: Void = {
        // samples/luts beside this package's checkout (#filePath: Tests/Fuzz/Sources/FuzzRender/).
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(5)
        let folder = parts.joined(separator: "/") + "/samples/luts"
        RandomChains.cubeFiles = [folder + "/warm-film.cube"]
    }()
    static func setUp() { _ = luts }
}
