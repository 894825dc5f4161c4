#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A source's HDR gain map follows the geometry of the steps before an output, in its own
/// coordinates (filters.md, "HDR gain maps"). Each geometry step says what it does to an image of
/// its size as a `GeometryLayout` (resample, crop, turn); the same layout is made for the map
/// (rectangles scaled to the map and rounded outward, a resample's size scaled and rounded,
/// a turn as it is), and the map is rendered through those layouts by the same kernels
/// (Lanczos3 on its stored values, crops, turns), then written as the map's JPEG again. An
/// EXIF orientation applied to the base at decoding is the first such turn.

/// What one step does to a source's gain map (in the map's own coordinates when applied).
enum GainMapStep: Hashable {
    /// A geometry layout applied to the base, with the base's size before it.
    case geometry(GeometryLayout, base: ImageSize)
    /// `ResolvedChain.images[image]` laid over the base (of `canvas`) where `placement` puts
    /// it, with `coverage` (a blend's opacity) times its alpha: the log gain under it is
    /// multiplied by 1 - that, so a watermark or a pasted picture is not boosted.
    case cover(image: Int, placement: Placement, coverage: Double, canvas: ImageSize)
}

/// What the steps before an output do to a source's gain map.
enum GainMapPath {
    /// The steps' parts, in order; none when the map stays as it is.
    case follows([GainMapStep])
    /// The map cannot follow: why.
    case blocked(String)
}

extension ResolvedChain {
    /// What the steps before output position `position` do to a source's HDR gain map, for
    /// a source of `source` (upright), along the graph: each step's map is its input's, with
    /// - colour, tone, blurs, sharpening and masks: nothing (HDR = edited SDR x gain, the
    ///   Ultra HDR editing guideline);
    /// - geometry: the same layout for the map;
    /// - a blend whose layer is one of the chain's images (no map): that image's cover;
    /// - a blend whose layer carries the same map as its backdrop (the source blended with a
    ///   blur of itself): nothing, as for a colour edit.
    /// Any other blend, a blend through a mask, and a step reading one of the chain's images
    /// as its input are not followed: the map is left out, and this says why.
    func gainMapPath(upTo position: Int, source: ImageSize) -> GainMapPath {
        typealias State = (size: ImageSize, steps: [GainMapStep])
        var memo: [Int: Result<State, GainMapBlocked>] = [:]
        func state(_ node: GraphNode) -> Result<State, GainMapBlocked> {
            switch node {
            case .source: return .success((source, []))
            case .image(let k): return .failure(GainMapBlocked("the chain reads \(images[k].label) as an image of its own, which has no gain map"))
            case .step(let i):
                if let known = memo[i] { return known }
                let result = stepState(i)
                memo[i] = result
                return result
            }
        }
        func stepState(_ i: Int) -> Result<State, GainMapBlocked> {
            let input = state(inputNode(ofStep: i))
            guard case .success(let (size, done)) = input, steps[i].enabled else { return input }
            let title = "step \(i + 1) (\(steps[i].label))"
            switch steps[i].filter.operation() {
            case .geometry(let kernel):
                guard let layout = try? kernel.layout(for: size) else { return .failure(GainMapBlocked("\(title) cannot apply to the image")) }
                return .success((layout.outputSize(from: size), done + [.geometry(layout, base: size)]))
            case .blend(let layer, let placement, let kernel):
                if steps[i].mask != nil {
                    return .failure(GainMapBlocked("\(title) blends through a mask, which gain maps do not follow yet"))
                }
                switch resolve(layer, from: i) {
                case .image(let k)?:
                    return .success((size, done + [.cover(image: k, placement: placement, coverage: Double(kernel.coverage), canvas: size)]))
                case let node?:
                    guard case .success(let (layerSize, layerSteps)) = state(node), layerSize == size, layerSteps == done else {
                        return .failure(GainMapBlocked("\(title) lays an image whose gain map lies otherwise than its own over it, which gain maps do not follow yet"))
                    }
                    return input
                case nil:
                    return .failure(GainMapBlocked("\(title) names no layer"))
                }
            default:
                return input
            }
        }
        guard position > 0 else { return .follows([]) }
        switch state(.step(min(position, steps.count) - 1)) {
        case .success(let (_, steps)): return .follows(steps)
        case .failure(let blocked): return .blocked(blocked.reason)
        }
    }
}

/// Why a source's gain map cannot follow a chain.
struct GainMapBlocked: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

extension GeometryLayout {
    /// The same layout for a gain map of `map` that lies over a base image of `base` (both as
    /// they stand before the step): rectangles scaled and rounded outward (inside the map),
    /// a resample's size scaled and rounded (at least 1), a turn as it is.
    func onGainMap(_ map: ImageSize, base: ImageSize) -> GeometryLayout {
        let sx = Double(map.width) / Double(base.width), sy = Double(map.height) / Double(base.height)
        switch self {
        case .turn:
            return self
        case .crop(let rect):
            return .crop(rect.outward(sx, sy, within: map))
        case .resample(let size, let window):
            let to = ImageSize(width: max(1, Int((Double(size.width) * sx).rounded())),
                               height: max(1, Int((Double(size.height) * sy).rounded())))
            return .resample(to: to, window: window.outward(Double(to.width) / Double(size.width),
                                                            Double(to.height) / Double(size.height), within: to))
        }
    }
}

extension PixelRect {
    /// The rectangle scaled by (sx, sy), its edges rounded outward, kept inside `size` and at
    /// least one pixel.
    func outward(_ sx: Double, _ sy: Double, within size: ImageSize) -> PixelRect {
        let x0 = min(size.width - 1, max(0, Int((Double(x) * sx).rounded(.down))))
        let y0 = min(size.height - 1, max(0, Int((Double(y) * sy).rounded(.down))))
        let x1 = min(size.width, Int((Double(x + width) * sx).rounded(.up)))
        let y1 = min(size.height, Int((Double(y + height) * sy).rounded(.up)))
        return PixelRect(x: x0, y: y0, width: max(1, x1 - x0), height: max(1, y1 - y0))
    }
}

/// A step of a gain map's own chain: a layout made for the map from a base step's (never
/// read from or written to a chain file).
struct GainMapGeometry: Filter, GeometryKernel {
    var layout = GeometryLayout.turn(.up)

    init() {}
    init(_ layout: GeometryLayout) { self.layout = layout }

    static let declaration = FilterDeclaration<GainMapGeometry>(
        type: "gainMapGeometry",
        group: .geometry,
        summary: "A geometry step's part on an HDR gain map (made by the renderer).",
        documentation: "The layout of a geometry step of the chain, made for the gain map's own size.",
        parameters: [])

    func operation() -> FilterOperation { .geometry(self) }
    func layout(for size: ImageSize) throws(GeometryError) -> GeometryLayout { layout }
    var keepsNeutralNeutral: Bool { true }
}

extension GainMapImage {
    /// The quality its JPEG is written with when the map is rendered again.
    static let quality = 85

    /// The map's pixels after `path`, after the orientation applied to the base at decoding:
    /// geometry rendered by the same kernels on its stored values (no colour conversion: they
    /// are not colours), covers applied to its log gains (`covered`). `images`: the chain's.
    func movedPixels(_ path: [GainMapStep], orientation: Orientation?, images: [RasterImage]) throws -> RasterImage {
        var pending: [GeometryLayout] = orientation.map { [.turn($0)] } ?? []
        var size = ImageSize(width: map.width, height: map.height)
        if let orientation, orientation.swapsAxes { size = ImageSize(width: size.height, height: size.width) }
        var image = try RasterImage(decoding: jpeg, name: "its gain map")
        image.metadata.iccProfile = nil   // the map's values are not colours: no conversion
        func flush() throws {
            guard !pending.isEmpty else { return }
            image = try Renderer(threads: 1).apply(Chain(pending.map(GainMapGeometry.init)), to: image, depth: .eight)
            pending = []
        }
        for step in path {
            switch step {
            case .geometry(let layout, let base):
                let own = layout.onGainMap(size, base: base)
                pending.append(own)
                size = own.outputSize(from: size)
            case .cover(let k, let placement, let coverage, let canvas):
                try flush()
                image = try covered(image, by: images[k], placement: placement, coverage: coverage, canvas: canvas)
            }
        }
        try flush()
        return image
    }

    /// `pixels` (the map as it stands, over a base of `canvas`) under `layer` placed as the
    /// blend places it: at each map pixel, a = coverage x the layer's mean alpha over the
    /// base pixels the map pixel spans (0 outside the layer), and per channel
    ///
    ///     log2 G  = min + (max - min) g^(1/gamma)
    ///     log2 G' = (1 - a) log2 G
    ///     g'      = ((log2 G' - min) / (max - min))^gamma
    ///
    /// which needs a gain of 1 in the map's range (min <= 0 <= max: so it is in every map
    /// libultrahdr and Apple write).
    func covered(_ pixels: RasterImage, by layer: RasterImage, placement: Placement, coverage: Double, canvas: ImageSize) throws -> RasterImage {
        let m = map
        guard (0..<3).allSatisfy({ m.gainMapMin[$0] <= 0 && 0 <= m.gainMapMax[$0] }) else {
            throw GainMapBlocked("its gain map's range holds no gain of 1 (its smallest boost is above 1), which the part under a layer needs")
        }
        let layerSize = ImageSize(width: layer.width, height: layer.height)
        var resampled = layerSize, window = PixelRect(x: 0, y: 0, width: layer.width, height: layer.height)
        if let resize = placement.resize(canvas: canvas), case .resample(let to, let w)? = try? resize.layout(for: layerSize) {
            resampled = to
            window = w
        }
        let placed = ImageSize(width: window.width, height: window.height)
        let origin = placement.origin(placed, canvas: canvas)
        let alphaSamples = layer.format.channels.hasAlpha ? layer.samples : []
        let layerChannels = layer.format.channels.count
        let alphaMax = Double(layer.format.depth.maxValue)
        func alpha(_ bx: Int, _ by: Int) -> Double {
            let px = bx - origin.x, py = by - origin.y
            guard px >= 0, py >= 0, px < placed.width, py < placed.height else { return 0 }
            guard !alphaSamples.isEmpty else { return 1 }
            let lx = min(Int((Double(px + window.x) + 0.5) * Double(layer.width) / Double(resampled.width)), layer.width - 1)
            let ly = min(Int((Double(py + window.y) + 0.5) * Double(layer.height) / Double(resampled.height)), layer.height - 1)
            return Double(alphaSamples[(ly * layer.width + lx) * layerChannels + layerChannels - 1]) / alphaMax
        }
        let mw = pixels.width, mh = pixels.height, channels = pixels.format.channels.count
        let sx = Double(canvas.width) / Double(mw), sy = Double(canvas.height) / Double(mh)
        let maxValue = Double(pixels.format.depth.maxValue)
        var samples = pixels.samples
        let mx0 = max(0, Int(Double(origin.x) / sx)), mx1 = min(mw, Int((Double(origin.x + placed.width) / sx).rounded(.up)))
        let my0 = max(0, Int(Double(origin.y) / sy)), my1 = min(mh, Int((Double(origin.y + placed.height) / sy).rounded(.up)))
        guard mx0 < mx1, my0 < my1 else { return pixels }
        for my in my0..<my1 {
            let by0 = min(Int(Double(my) * sy), canvas.height - 1), by1 = max(by0 + 1, min(Int(Double(my + 1) * sy), canvas.height))
            for mx in mx0..<mx1 {
                let bx0 = min(Int(Double(mx) * sx), canvas.width - 1), bx1 = max(bx0 + 1, min(Int(Double(mx + 1) * sx), canvas.width))
                var sum = 0.0
                for by in by0..<by1 { for bx in bx0..<bx1 { sum += alpha(bx, by) } }
                let a = coverage * sum / Double((by1 - by0) * (bx1 - bx0))
                guard a > 0 else { continue }
                for c in 0..<channels {
                    let k = min(c, 2)
                    let low = m.gainMapMin[k], range = m.gainMapMax[k] - low, gamma = m.gamma[k]
                    guard range > 0 else { continue }
                    let i = (my * mw + mx) * channels + c
                    let logGain = low + range * pow(Double(samples[i]) / maxValue, 1 / gamma)
                    let g = pow(min(max(((1 - a) * logGain - low) / range, 0), 1), gamma)
                    samples[i] = Int((g * maxValue).rounded())
                }
            }
        }
        return try RasterImage(width: mw, height: mh, format: pixels.format, samples: samples, metadata: pixels.metadata)
    }

    /// The map turned as its base was at decoding (`ImageInfo.appliedOrientation`): the map
    /// of an image decoded to memory, which is upright, to render it again with (as the
    /// editor's export does). The same map when `orientation` is nil.
    public func upright(from orientation: Orientation?) throws -> GainMapImage {
        try following([], orientation: orientation)
    }

    /// The map after `layouts` and `orientation` (see `movedPixels`), written as a JPEG
    /// again, at `quality` (default 85), with its own metadata (XMP, and the ISO 21496-1
    /// segment put back first, as libultrahdr places it). A map nothing moves is kept byte
    /// for byte, unless a quality is given.
    func following(_ path: [GainMapStep], orientation: Orientation?, images: [RasterImage] = [],
                   quality: Int? = nil) throws -> GainMapImage {
        guard !path.isEmpty || orientation != nil || quality != nil else { return self }
        let moved = try movedPixels(path, orientation: orientation, images: images)
        let renderer = Renderer(threads: 1)
        let buffer = OutputBuffer(name: "its gain map")
        _ = try renderer.render(Chain(), image: moved, outputs: [RenderOutput(step: 0, .file(.memory(buffer), EncodeOptions(
            format: .jpeg, quality: quality ?? Self.quality, chroma: .yuv444, settings: ["tables": "standard"])))])
        var written = buffer.bytes
        if let iso = JPEGSegments(jpeg, from: 0).payload(app: 0xe2, prefix: GainMap.isoPrefix) {
            written = GainMap.withISOSegment(iso.bytes, in: written)
        }
        var map = self.map
        map.width = moved.width
        map.height = moved.height
        map.byteCount = written.count
        return GainMapImage(map: map, jpeg: written)
    }
}
