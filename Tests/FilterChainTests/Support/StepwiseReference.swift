@testable import FilterChain

/// The oracle of the schedule tests: a chain applied step by step, each step's whole output
/// kept in Float in memory and handed to the next step as a new image. Nothing of the
/// streamed pipeline is shared: no plan, strips, rings, ticks or threads; each step's
/// kernels run once over the whole image (a point run over all pixels at once, a vertical
/// pass over one column range, a positional kernel over whole rows). The semantics are
/// filters.md's: neighbourhood operations and resampling on premultiplied colour once alpha
/// may differ from 1 (the input has alpha, or an earlier step wrote it), straight colour
/// otherwise; values unclamped between steps. The streamed render must equal it within one
/// level at 16 bits (float rounding only).
final class FloatImage {
    let width: Int
    let height: Int
    let stride: Int
    /// Alpha may differ from 1.
    var alphaVaries: Bool
    let base: UnsafeMutablePointer<Float>

    init(width: Int, height: Int, alphaVaries: Bool) {
        self.width = width
        self.height = height
        self.alphaVaries = alphaVaries
        stride = (width + 7) & ~7
        let count = 4 * stride * height
        base = UnsafeMutableRawPointer.allocate(byteCount: count * 4, alignment: 64).bindMemory(to: Float.self, capacity: count)
        base.initialize(repeating: 0, count: 3 * stride * height)
        (base + 3 * stride * height).initialize(repeating: 1, count: stride * height)
    }

    deinit { base.deallocate() }

    var size: ImageSize { ImageSize(width: width, height: height) }
    func plane(_ p: Int) -> UnsafeMutablePointer<Float> { base + p * stride * height }
    func row(_ p: Int, _ y: Int) -> UnsafeMutablePointer<Float> { plane(p) + y * stride }
    func pixels(_ y: Int) -> PlanarPixels { PlanarPixels(red: row(0, y), green: row(1, y), blue: row(2, y), alpha: row(3, y)) }
    var all: PlanarPixels { pixels(0) }
    var count: Int { stride * height }

    func copy() -> FloatImage {
        let c = FloatImage(width: width, height: height, alphaVaries: alphaVaries)
        c.base.update(from: base, count: 4 * count)
        return c
    }
}

enum StepwiseReference {
    /// The decoded image in the working space.
    static func input(_ image: RasterImage, linear: Bool) -> FloatImage {
        let out = FloatImage(width: image.width, height: image.height, alphaVaries: image.format.channels.hasAlpha)
        let conversion = InputConversion(format: image.format, leg: linear ? .srgbToLinear : .stored)
        image.pixels.withUnsafeBytes { bytes in
            for y in 0..<image.height {
                conversion.convert(bytes.baseAddress! + y * image.rowBytes, width: image.width, into: out.pixels(y))
            }
        }
        return out
    }

    /// The image at every position of the chain: [input, after step 1, ..., after step n],
    /// each step reading the images its references name (the graph), every step evaluated.
    /// Throws where a geometry step cannot apply.
    static func positions(_ chain: Chain, image: RasterImage) throws(GeometryError) -> [FloatImage] {
        let linear = chain.workingSpace == .linear
        var images = [input(image, linear: linear)]
        let extra = chain.images.map { input($0.image!, linear: linear) }
        func value(_ node: GraphNode) -> FloatImage {
            switch node {
            case .source: images[0]
            case .image(let i): extra[i]
            case .step(let i): images[i + 1]
            }
        }
        for (i, step) in chain.steps.enumerated() {
            let current = value(chain.inputNode(ofStep: i))
            guard step.enabled else {
                images.append(current)
                continue
            }
            var result: FloatImage
            if case .blend(let layer, let placement, let kernel) = step.filter.operation() {
                let placed = try place(value(chain.resolve(layer, from: i)!), placement, canvas: current.size)
                result = current.copy()
                let scratch = FloatImage(width: current.width, height: 1, alphaVaries: true)
                for y in 0..<current.height {
                    placed.row(y, into: scratch)
                    kernel.blend(backdrop: result.pixels(y), layer: scratch.pixels(0), count: result.stride)
                }
                if !current.alphaVaries { result.plane(3).update(repeating: 1, count: result.count) }
            } else {
                result = try apply(step.filter, to: current)
            }
            if let mask = step.mask {
                let kernel = MaskKernel(mask)
                var layer: Placed?
                if case .image(let source, _, let placement) = mask.shape {
                    layer = try place(value(chain.resolve(source, from: i)!), placement, canvas: current.size)
                }
                if result === current { result = current.copy() }
                let scratch = FloatImage(width: current.width, height: 1, alphaVaries: true)
                let m = UnsafeMutablePointer<Float>.allocate(capacity: current.stride)
                defer { m.deallocate() }
                let opaque = !current.alphaVaries && !step.filter.changesAlpha
                for y in 0..<current.height {
                    layer?.row(y, into: scratch)
                    kernel.values(into: m, count: current.stride, row: y, column: 0, size: current.size,
                                  input: current.pixels(y), layer: layer == nil ? nil : scratch.pixels(0))
                    MaskKernel.mix(input: current.pixels(y), result: result.pixels(y), mask: m, count: current.stride, opaque: opaque)
                }
            }
            images.append(result)
        }
        return images
    }

    /// A layer fitted and placed over an image of `canvas`'s size.
    struct Placed {
        var image: FloatImage
        var x: Int
        var y: Int

        /// Row `y` of the canvas as the layer covers it: 0 (alpha included) where it does not.
        func row(_ cy: Int, into scratch: FloatImage) {
            scratch.base.update(repeating: 0, count: 4 * scratch.count)
            let ly = cy - y
            guard ly >= 0 && ly < image.height else { return }
            for cx in 0..<scratch.width where cx - x >= 0 && cx - x < image.width {
                for p in 0..<4 { scratch.row(p, 0)[cx] = image.row(p, ly)[cx - x] }
            }
        }
    }

    static func place(_ layer: FloatImage, _ placement: Placement, canvas: ImageSize) throws(GeometryError) -> Placed {
        var image = layer
        if let resize = placement.resize(canvas: canvas) { image = try apply(resize, to: layer) }
        let origin = placement.origin(image.size, canvas: canvas)
        return Placed(image: image, x: origin.x, y: origin.y)
    }

    static func apply(_ filter: any Filter, to image: FloatImage) throws(GeometryError) -> FloatImage {
        let planes = image.alphaVaries ? 4 : 3
        var result: FloatImage
        switch filter.operation() {
        case .identity:
            result = image
        case .point(let kernel):
            result = image.copy()
            kernel.apply(result.all, count: result.count)
        case .positional(let kernel):
            result = image.copy()
            for y in 0..<image.height { kernel.apply(result.pixels(y), count: result.stride, row: y, column: 0, size: image.size) }
        case .separable(let kernel):
            result = passes(kernel, premultiplied(image), planes: planes)
            if image.alphaVaries { Unpremultiply().apply(result.all, count: result.count) }
        case .combine(let kernel, let combination):
            let input = premultiplied(image)
            result = passes(kernel, input, planes: planes)
            combination.combine(input: input.all, into: result.all, count: result.count)
            if image.alphaVaries { Unpremultiply().apply(result.all, count: result.count) }
        case .blend:
            preconditionFailure("a blend reads another image: apply it with the graph's reference")
        case .geometry(let kernel):
            let layout = try kernel.layout(for: image.size)
            let whole = PixelRect(x: 0, y: 0, width: image.width, height: image.height)
            let source: RowSource
            switch layout {
            case .crop(let rect) where rect == whole: return image
            case .resample(let to, let window) where to == image.size && window == whole: return image
            case .turn(.up): return image
            case .resample(let to, let window): source = .resample(Resample(input: image.size, output: to, window: window))
            case .crop(let rect): source = .crop(rect)
            case .turn(let o): source = .turn(o, input: image.size)
            }
            // Resampling mixes pixels: on premultiplied colour. Crops and turns move them.
            let resamples: Bool
            if case .resample = layout { resamples = true } else { resamples = false }
            let input = resamples ? premultiplied(image) : image
            let size = layout.outputSize(from: image.size)
            result = FloatImage(width: size.width, height: size.height, alphaVaries: image.alphaVaries)
            let scratch = UnsafeMutablePointer<Float>.allocate(capacity: max(8, source.scratchCount))
            defer { scratch.deallocate() }
            for p in 0..<planes {
                for y in 0..<size.height {
                    source.run(y: y, width: size.width, row: { UnsafePointer(input.row(p, $0)) },
                               destination: result.row(p, y), scratch: scratch)
                }
            }
            if image.alphaVaries && resamples { Unpremultiply(clampsAlpha: true).apply(result.all, count: result.count) }
        }
        if filter.changesAlpha && !result.alphaVaries {
            if result === image { result = image.copy() }
            result.alphaVaries = true
        }
        return result
    }

    /// A copy, premultiplied when alpha varies.
    private static func premultiplied(_ image: FloatImage) -> FloatImage {
        let copy = image.copy()
        if image.alphaVaries { Premultiply().apply(copy.all, count: copy.count) }
        return copy
    }

    /// Both passes of a separable kernel over the whole image: the horizontal pass over every
    /// row at once, then the vertical pass row by row over all columns in one range.
    private static func passes(_ kernel: any SeparableKernel, _ image: FloatImage, planes: Int) -> FloatImage {
        let horizontal = image.copy()
        let pass = kernel.makeHorizontalPass(width: image.width)
        for p in 0..<planes { pass.run(horizontal.plane(p), stride: horizontal.stride, rowCount: image.height) }
        let result = FloatImage(width: image.width, height: image.height, alphaVaries: image.alphaVaries)
        for p in 0..<planes {
            let vertical = kernel.makeVerticalPass(width: image.width, height: image.height)
            for y in 0..<image.height {
                vertical.run(y: y, input: { UnsafePointer(horizontal.row(p, min(max($0, 0), image.height - 1))) },
                             destination: result.row(p, y), columns: 0..<image.stride)
            }
        }
        return result
    }

    /// RGBA 16-bit samples of an image, as an output stores them (clamped, rounded, encoded
    /// when linear).
    static func samples(_ image: FloatImage, linear: Bool) -> [Int] {
        let conversion = OutputConversion(channels: .rgba, depth: .sixteen, leg: linear ? .linearToSRGB : .stored, background: nil)
        var out = [Int]()
        out.reserveCapacity(image.width * image.height * 4)
        let row = UnsafeMutablePointer<UInt16>.allocate(capacity: image.width * 4)
        defer { row.deallocate() }
        for y in 0..<image.height {
            conversion.convert(image.pixels(y), hasAlpha: true, width: image.width, into: UnsafeMutableRawPointer(row))
            for i in 0..<(image.width * 4) { out.append(Int(row[i])) }
        }
        return out
    }
}

extension RasterImage {
    /// Every pixel as R, G, B, A samples at 16 bits (grey spread, missing alpha opaque).
    var rgba16: [Int] {
        let n = format.channels.count
        let grey = format.channels.isGrey, alpha = format.channels.hasAlpha
        let scale = format.depth == .eight ? 257 : 1
        let s = samples
        var out = [Int](repeating: 0, count: width * height * 4)
        for i in 0..<(width * height) {
            let b = i * n
            let r = s[b] * scale
            out[i * 4] = r
            out[i * 4 + 1] = grey ? r : s[b + 1] * scale
            out[i * 4 + 2] = grey ? r : s[b + 2] * scale
            out[i * 4 + 3] = alpha ? s[b + n - 1] * scale : 65535
        }
        return out
    }
}
