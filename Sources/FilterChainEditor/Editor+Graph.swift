import FilterChain
import Foundation

/// What the page's graph view asks for besides the previews: a thumbnail of every node, an
/// image of the chain's `images` on its own, and a step's mask as an image.
extension Editor {
    // MARK: Thumbnails

    /// A thumbnail of every node of the current chain (the source, each image, each step's
    /// output), its long side at most `size`: `{"size": N, "thumbnails": {"source": PNG,
    /// ID: PNG, ...}}`, each PNG a `data:` URL, keyed by the image's or step's id. The steps'
    /// images come from the default preview session in one evaluation (positions already
    /// cached are not rendered again), then are scaled down.
    public func thumbnailsJSON(size: Int) throws -> JSONNode {
        guard size >= 1 else { throw EditorError(status: 400, "size: \(size) is not allowed; allowed: a whole number of pixels, at least 1") }
        let chain = try currentChain()
        let session = try session(for: Editor.defaultPreviewSize)
        let positions = Array(0...chain.steps.count)
        let rendered: [RasterImage]
        do { rendered = try session.render(chain, at: positions) } catch is RenderCancelled {
            throw EditorError(status: 503, "cancelled: a newer edit superseded this render")
        }
        var members: [(key: String, value: JSONNode)] = []
        func add(_ key: String, _ image: RasterImage) throws {
            let png = try encodePNG(try image.downscaled(toFit: size))
            members.append((key, JSONNode(.string("data:image/png;base64," + Data(png).base64EncodedString()))))
        }
        try add("source", rendered[0])
        for image in chain.images {
            guard let raster = image.image else { continue }
            try add(image.id, raster)
        }
        for (i, step) in chain.steps.enumerated() { try add(step.id, rendered[i + 1]) }
        return JSONNode(.object([("size", JSONNode(.number(Double(size)))), ("thumbnails", JSONNode(.object(members)))]))
    }

    // MARK: Images of the chain

    /// The entry of `chain.images` that `text` names (its id in any case, or its name), as
    /// a PNG whose long side is at most `size`; nil when `text` names no image.
    func imagePNG(_ text: String, in chain: Chain, size: Int) throws -> [UInt8]? {
        guard case .image(let index)? = chain.resolve(Reference(text.trimmingCharacters(in: .whitespaces))),
              let raster = chain.images[index].image else { return nil }
        return try encodePNG(try raster.downscaled(toFit: size))
    }

    // MARK: Masks

    /// The mask of STEP (as `/api/render` names steps) of the current chain as an 8-bit grey
    /// PNG: m at each pixel of the step's input (after invert and opacity), 0 black to 1
    /// white, at the preview's size (long side at most `size`). The engine computes it: see
    /// `maskChain`. 404 for an unknown step or one without a mask.
    public func maskPNG(step: String, size: Int = Editor.defaultPreviewSize) throws -> [UInt8] {
        guard size >= 1 else { throw EditorError(status: 400, "size: \(size) is not allowed; allowed: a whole number of pixels, at least 1") }
        let chain = try currentChain()
        let position: Int
        do { position = try StepReference(step).resolve(in: chain) } catch {
            throw EditorError(status: 404, "\(chainPath): \(error)")
        }
        guard position > 0, let masked = Editor.maskChain(chain, step: position - 1) else {
            let what = position == 0 ? "the source" : "step \(position) (\(chain.steps[position - 1].label))"
            throw EditorError(status: 404, "\(chainPath): \(what) has no mask")
        }
        let session = try maskSessions.session(for: size, image: image, renderer: renderer)
        let rendered: RasterImage
        do { rendered = try session.render(masked, at: [masked.steps.count])[0] } catch is RenderCancelled {
            throw EditorError(status: 503, "cancelled: a newer edit superseded this render")
        }
        return try encodePNG(try Editor.maskValues(rendered, workingSpace: chain.workingSpace))
    }

    /// A chain whose last image is the mask m of the step at `index` as grey (nil when the
    /// step has none): the steps above it, then its input made opaque (colour kept, so a
    /// luminance mask sees the step's own input) and clamped to [0, 1] (a normal blend of
    /// the image over itself; a luminance mask clamps colour before it reads it, so it sees
    /// the same), then that image turned white through the mask and, apart, turned black
    /// through it: in + m (1 - in) and in - m in, whose difference (a blend in `difference`
    /// mode) is m. Both are the engine's own mix, so every mask type, placement and working
    /// space is what the step gets.
    static func maskChain(_ chain: Chain, step index: Int) -> Chain? {
        guard chain.steps.indices.contains(index), let mask = chain.steps[index].mask else { return nil }
        let input = chain.steps[index].input ?? (index == 0 ? .source : Reference(chain.steps[index - 1].id))
        let opaque = Step(filter: ColorMatrix(matrix: [[1, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 0, 1]]),
                          input: input)
        let clamped = Step(filter: Blend(layer: Reference(opaque.id)), input: Reference(opaque.id))
        let white = Step(filter: ColorMatrix(matrix: [[0, 0, 0, 0, 1], [0, 0, 0, 0, 1], [0, 0, 0, 0, 1], [0, 0, 0, 0, 1]]),
                         input: Reference(clamped.id), mask: mask)
        let black = Step(filter: ColorMatrix(matrix: [[0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 1]]),
                         input: Reference(clamped.id), mask: mask)
        let difference = Step(filter: Blend(layer: Reference(black.id), mode: .difference), input: Reference(white.id))
        return Chain(workingSpace: chain.workingSpace, images: chain.images,
                     steps: Array(chain.steps[..<index]) + [opaque, clamped, white, black, difference])
    }

    /// The grey image of m from the mask chain's output: its first channel, which the
    /// preview holds sRGB-encoded; in a linear working space m was linear, so it is decoded.
    static func maskValues(_ image: RasterImage, workingSpace: WorkingSpace) throws -> RasterImage {
        let values = image.values
        let n = image.format.channels.count
        var grey = [Int](repeating: 0, count: image.width * image.height)
        for i in grey.indices {
            var m = Double(values[i * n])
            if workingSpace.isLinear {
                m = m <= 0.04045 ? m / 12.92 : pow((m + 0.055) / 1.055, 2.4)
            }
            grey[i] = Int((min(max(m, 0), 1) * 255).rounded())
        }
        return try RasterImage(width: image.width, height: image.height, format: PixelFormat(.grey, .eight), samples: grey)
    }
}

/// The preview sessions that render masks, one per size, apart from the previews' own (a
/// render for another chain cancels the one in flight, so a mask must not share a session
/// with the previews). (@unchecked Sendable: `sessions` is guarded by `lock`.)
final class MaskSessions: @unchecked Sendable {
    private let lock = NSLock()
    private var sessions: [Int: PreviewSession] = [:]

    func session(for size: Int, image: RasterImage, renderer: Renderer) throws -> PreviewSession {
        let key = min(size, max(image.width, image.height))
        return try lock.withLock {
            if let session = sessions[key] { return session }
            if sessions.count >= 2 { sessions.removeAll() }
            let session = try PreviewSession(image: image, maxSize: key, renderer: renderer, cacheLimit: 2)
            sessions[key] = session
            return session
        }
    }
}
