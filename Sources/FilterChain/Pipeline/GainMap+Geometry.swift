/// A source's HDR gain map follows the geometry of the steps before an output, in its own
/// coordinates (README, "HDR gain maps"). Each geometry step says what it does to an image of
/// its size as a `GeometryLayout` (resample, crop, turn); the same layout is made for the map
/// (rectangles scaled to the map and rounded outward, a resample's size scaled and rounded,
/// a turn as it is), and the map is rendered through those layouts by the same kernels
/// (Lanczos3 on its stored values, crops, turns), then written as the map's JPEG again. An
/// EXIF orientation applied to the base at decoding is the first such turn.

/// What the steps before an output do to a source's gain map.
enum GainMapPath {
    /// The geometry layouts applied to the base image, in order, each with the base's size
    /// before it; none when the map stays as it is.
    case follows([(layout: GeometryLayout, base: ImageSize)])
    /// The map cannot follow: why.
    case blocked(String)
}

extension ResolvedChain {
    /// What the steps before output position `position` do to a source's HDR gain map, for
    /// a source of `source` (upright). Colour, tone, blurs, sharpening and masks leave the map
    /// as it is (HDR = edited SDR x gain, the Ultra HDR editing guideline); geometry moves it
    /// with the base; a step that lays another image over, or geometry in a graph whose steps
    /// read other than the step above, is not followed yet (issue 37).
    func gainMapPath(upTo position: Int, source: ImageSize) -> GainMapPath {
        let reach = min(position, steps.count)
        let linear = !steps.prefix(reach).contains { $0.enabled && $0.input != nil }
        var size = source
        var layouts: [(layout: GeometryLayout, base: ImageSize)] = []
        for i in 0..<reach where steps[i].enabled {
            let title = "step \(i + 1) (\(steps[i].label))"
            if !steps[i].filter.layerReferences.isEmpty { return .blocked("\(title) lays another image over it, which gain maps do not follow yet") }
            guard case .geometry(let kernel) = steps[i].filter.operation() else { continue }
            guard linear else { return .blocked("\(title) changes the geometry in a graph, which gain maps do not follow yet") }
            guard let layout = try? kernel.layout(for: size) else { return .blocked("\(title) cannot apply to the image") }
            layouts.append((layout, size))
            size = layout.outputSize(from: size)
        }
        return .follows(layouts)
    }
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

    /// The map's pixels after `layouts` (each with the base's size before it), after the
    /// orientation applied to the base at decoding: rendered by the same kernels on its stored
    /// values (no colour conversion: they are not colours).
    func movedPixels(_ layouts: [(layout: GeometryLayout, base: ImageSize)], orientation: Orientation?) throws -> RasterImage {
        var steps: [GeometryLayout] = orientation.map { [.turn($0)] } ?? []
        var size = ImageSize(width: map.width, height: map.height)
        if let orientation, orientation.swapsAxes { size = ImageSize(width: size.height, height: size.width) }
        for (layout, base) in layouts {
            let own = layout.onGainMap(size, base: base)
            steps.append(own)
            size = own.outputSize(from: size)
        }
        var image = try RasterImage(decoding: jpeg, name: "its gain map")
        image.metadata.iccProfile = nil   // the map's values are not colours: no conversion
        guard !steps.isEmpty else { return image }
        return try Renderer(threads: 1).apply(Chain(steps.map(GainMapGeometry.init)), to: image, depth: .eight)
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
    func following(_ layouts: [(layout: GeometryLayout, base: ImageSize)], orientation: Orientation?,
                   quality: Int? = nil) throws -> GainMapImage {
        guard !layouts.isEmpty || orientation != nil || quality != nil else { return self }
        let moved = try movedPixels(layouts, orientation: orientation)
        let renderer = Renderer(threads: 1)
        let buffer = OutputBuffer(name: "its gain map")
        _ = try renderer.render(Chain(), image: moved, outputs: [RenderOutput(step: 0, .file(.memory(buffer), EncodeOptions(
            format: .jpeg, quality: quality ?? Self.quality, chroma: .yuv444)))])
        var written = buffer.bytes
        if let iso = JPEGSegments(jpeg, from: 0).payload(app: 0xe2, prefix: GainMap.isoPrefix) {
            let payload = GainMap.isoPrefix + iso.bytes
            let length = payload.count + 2
            written.insert(contentsOf: [0xff, 0xe2, UInt8(length >> 8), UInt8(length & 0xff)] + payload, at: 2)
        }
        var map = self.map
        map.width = moved.width
        map.height = moved.height
        map.byteCount = written.count
        return GainMapImage(map: map, jpeg: written)
    }
}
