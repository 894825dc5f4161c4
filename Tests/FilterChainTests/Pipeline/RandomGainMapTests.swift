import Foundation
import Testing
@testable import FilterChain

/// Random chains (the random-chain generator's, graphs and blends of the chain's images
/// among them) over sources given a synthetic HDR gain map (one channel, a quarter to full
/// scale, smooth, gain 1 to 2^m), written to a JPEG at a random position, against a plain
/// implementation of filters.md's rule written here:
/// - each step's map is its input's (along the graph);
/// - colour, tone, blurs, masks: nothing;
/// - geometry: the step's layout made for the map (sizes scaled and rounded, crop rectangles
///   scaled and rounded outward), applied to the map as an image (StepwiseReference's
///   whole-image kernels);
/// - a blend of one of the chain's images: log2 G x (1 - opacity x alpha), alpha the mean of
///   the layer's alpha (nearest, as placed) over the base pixels a map pixel spans;
/// - a blend whose layer has the same map history as its backdrop: nothing;
/// - otherwise (another layer, a mask on a blend, an image read as an input): no map.
/// The output's map (read back from its file, written at quality 85) must have the reference's
/// size and be within a few levels of it.
@Suite struct RandomGainMapTests {
    static let cases = 160

    /// The map's state at a node: its pixels (Float, 0...1 in red), the base's size, and what
    /// was done to it (to compare a layer's history with its backdrop's); or why it stops.
    enum State {
        case map(FloatImage, base: ImageSize, history: [String])
        case blocked(String)
    }

    @Test func randomChainsCarryTheMapByTheRule() throws {
        _ = RandomChainTests.setUp
        var kept = 0, blocked = 0, covered = 0
        for index in 0..<Self.cases {
            let seed = RandomChainTests.caseSeed(batch: 91, index: index)
            var e = SeedEntropy(seed)
            let c = RandomChains.makeCase(&e)
            var source = c.image
            let scale = e.pick([1, 2, 3, 4])
            let mapWidth = max(1, source.width / scale), mapHeight = max(1, source.height / scale)
            let (fx, fy, phase) = (e.double(0.05...0.4), e.double(0.05...0.4), e.double(0...6))
            var mapSamples = [Int](repeating: 0, count: mapWidth * mapHeight)
            for y in 0..<mapHeight {
                for x in 0..<mapWidth { mapSamples[y * mapWidth + x] = Int(127.5 + 120 * sin(Double(x) * fx + Double(y) * fy + phase)) }
            }
            let stops = e.double(1...4)
            let metadata = GainMap(width: mapWidth, height: mapHeight, channels: 1, source: .iso21496, byteCount: 0,
                                   gainMapMin: [0, 0, 0], gainMapMax: [stops, stops, stops], gamma: [1, 1, 1],
                                   baseOffset: [1.0 / 64, 1.0 / 64, 1.0 / 64], alternateOffset: [1.0 / 64, 1.0 / 64, 1.0 / 64],
                                   baseHeadroom: 0, alternateHeadroom: stops, baseIsHDR: false, usesBaseColourSpace: true)
            let mapImage = try RasterImage(width: mapWidth, height: mapHeight, format: PixelFormat(.grey, .eight), samples: mapSamples)
            let jpeg = GainMap.withISOSegment(metadata.isoPayload, in: try mapImage.encoded(as: .jpeg, options: EncodeOptions(quality: 100)))
            source.metadata.gainMap = GainMapImage(map: metadata, jpeg: jpeg)
            // The map as the source holds it (decoded, as the renderer decodes it).
            let start = StepwiseReference.input(try RasterImage(decoding: jpeg), linear: false)

            let position = e.int(0...c.literal.steps.count)
            let buffer = OutputBuffer()
            let result = try Renderer(threads: 2).render(c.chain, image: source, outputs: [
                RenderOutput(step: position, .file(.memory(buffer), EncodeOptions(format: .jpeg, quality: 90)))])
            let resolved = try c.literal.resolved(sourceSize: ImageSize(width: source.width, height: source.height)).chain
            let expected = try Self.state(at: position, of: resolved, source: ImageSize(width: source.width, height: source.height),
                                          map: start, metadata: metadata)
            let label = "case \(String(seed, radix: 16)) at \(position): \(c.chain.jsonText)"
            switch expected {
            case .blocked(let why):
                blocked += 1
                #expect(result.gainMaps == [.dropped], "\(label): expected no map (\(why))")
                #expect(result.notes.contains { $0.contains("its HDR gain map is not kept") }, "\(label)")
            case .map(let image, _, let history):
                kept += 1
                if history.contains(where: { $0.hasPrefix("cover") }) { covered += 1 }
                #expect(result.gainMaps == [.kept], "\(label): \(result.notes)")
                guard result.gainMaps == [.kept], case .found = GainMap.search(jpeg: buffer.bytes),
                      let written = GainMap.read(jpeg: buffer.bytes).jpeg else {
                    Issue.record("\(label): no map in the output")
                    return
                }
                let got = try RasterImage(decoding: written)
                #expect(got.width == image.width && got.height == image.height, "\(label): \(got.width)x\(got.height), expected \(image.width)x\(image.height)")
                guard got.width == image.width && got.height == image.height else { return }
                let want = StepwiseReference.samples(image, linear: false)
                let have = got.samples
                var total = 0.0, worst = 0.0
                for i in 0..<(got.width * got.height) {
                    let d = abs(Double(have[i * got.format.channels.count]) - Double(want[i * 4]) / 257)
                    total += d
                    worst = max(worst, d)
                }
                let mean = total / Double(got.width * got.height)
                // JPEG at quality 85 (and 100 for the source's map), 8-bit rounding between
                // geometry steps: a level or two on average.
                #expect(mean < 3, "\(label): mean \(mean) levels off, worst \(worst)")
            }
        }
        // The generator's graphs reach every branch of the rule.
        #expect(kept > Self.cases / 4 && blocked > 0 && covered > 0, "kept \(kept), blocked \(blocked), covered \(covered)")
    }

    /// The map at output `position` by the rule.
    static func state(at position: Int, of chain: ResolvedChain, source: ImageSize, map: FloatImage, metadata: GainMap) throws -> State {
        var memo: [Int: State] = [:]
        func at(_ node: GraphNode) throws -> State {
            switch node {
            case .source: return .map(map, base: source, history: [])
            case .image: return .blocked("an image read as an input")
            case .step(let i):
                if let known = memo[i] { return known }
                let s = try step(i)
                memo[i] = s
                return s
            }
        }
        func step(_ i: Int) throws -> State {
            let input = try at(chain.inputNode(ofStep: i))
            guard case .map(let image, let base, let history) = input, chain.steps[i].enabled else { return input }
            switch chain.steps[i].filter.operation() {
            case .geometry(let kernel):
                let layout = try kernel.layout(for: base)
                let own = scaled(layout, map: image.size, base: base)
                let moved = try StepwiseReference.apply(GainMapGeometry(own), to: image)
                return .map(moved, base: layout.outputSize(from: base), history: history + ["\(layout)@\(base)"])
            case .blend(let layer, let placement, let kernel):
                if chain.steps[i].mask != nil { return .blocked("a blend through a mask") }
                switch chain.resolve(layer, from: i) {
                case .image(let k)?:
                    let covered = cover(image, base: base, layer: chain.images[k].image!, placement: placement,
                                        opacity: Double(kernel.coverage), metadata: metadata)
                    return .map(covered, base: base, history: history + ["cover \(k) \(placement) \(kernel.coverage) \(base)"])
                case let node?:
                    guard case .map(_, let layerBase, let layerHistory) = try at(node), layerBase == base, layerHistory == history else {
                        return .blocked("a layer whose map lies otherwise")
                    }
                    return input
                case nil:
                    return .blocked("no layer")
                }
            default:
                return input
            }
        }
        return position == 0 ? .map(map, base: source, history: []) : try at(.step(position - 1))
    }

    /// A base layout made for a map of `map` over a base of `base`.
    static func scaled(_ layout: GeometryLayout, map: ImageSize, base: ImageSize) -> GeometryLayout {
        let sx = Double(map.width) / Double(base.width), sy = Double(map.height) / Double(base.height)
        func outward(_ r: PixelRect, _ sx: Double, _ sy: Double, within size: ImageSize) -> PixelRect {
            let x0 = min(size.width - 1, max(0, Int(floor(Double(r.x) * sx))))
            let y0 = min(size.height - 1, max(0, Int(floor(Double(r.y) * sy))))
            let x1 = min(size.width, Int(ceil(Double(r.x + r.width) * sx)))
            let y1 = min(size.height, Int(ceil(Double(r.y + r.height) * sy)))
            return PixelRect(x: x0, y: y0, width: max(1, x1 - x0), height: max(1, y1 - y0))
        }
        switch layout {
        case .turn: return layout
        case .crop(let r): return .crop(outward(r, sx, sy, within: map))
        case .resample(let to, let window):
            let size = ImageSize(width: max(1, Int((Double(to.width) * sx).rounded())), height: max(1, Int((Double(to.height) * sy).rounded())))
            return .resample(to: size, window: outward(window, Double(size.width) / Double(to.width),
                                                       Double(size.height) / Double(to.height), within: size))
        }
    }

    /// The log gain under a layer laid over the base kept in the part the layer leaves.
    static func cover(_ map: FloatImage, base: ImageSize, layer: RasterImage, placement: Placement, opacity: Double,
                      metadata: GainMap) -> FloatImage {
        let out = map.copy()
        var placedSize = ImageSize(width: layer.width, height: layer.height)
        var resampledTo = placedSize, window = PixelRect(x: 0, y: 0, width: layer.width, height: layer.height)
        if let resize = placement.resize(canvas: base), case .resample(let to, let w)? = try? resize.layout(for: placedSize) {
            resampledTo = to
            window = w
            placedSize = ImageSize(width: w.width, height: w.height)
        }
        let origin = placement.origin(placedSize, canvas: base)
        let layerSamples = layer.samples, n = layer.format.channels.count
        func alpha(_ bx: Int, _ by: Int) -> Double {
            let px = bx - origin.x, py = by - origin.y
            guard px >= 0, py >= 0, px < placedSize.width, py < placedSize.height else { return 0 }
            guard layer.format.channels.hasAlpha else { return 1 }
            let lx = min(layer.width - 1, Int((Double(px + window.x) + 0.5) * Double(layer.width) / Double(resampledTo.width)))
            let ly = min(layer.height - 1, Int((Double(py + window.y) + 0.5) * Double(layer.height) / Double(resampledTo.height)))
            return Double(layerSamples[(ly * layer.width + lx) * n + n - 1]) / Double(layer.format.depth.maxValue)
        }
        let sx = Double(base.width) / Double(map.width), sy = Double(base.height) / Double(map.height)
        let top = metadata.gainMapMax[0]
        for my in 0..<map.height {
            let y0 = min(Int(Double(my) * sy), base.height - 1), y1 = max(y0 + 1, min(Int(Double(my + 1) * sy), base.height))
            for mx in 0..<map.width {
                let x0 = min(Int(Double(mx) * sx), base.width - 1), x1 = max(x0 + 1, min(Int(Double(mx + 1) * sx), base.width))
                var sum = 0.0
                for by in y0..<y1 { for bx in x0..<x1 { sum += alpha(bx, by) } }
                let a = opacity * sum / Double((y1 - y0) * (x1 - x0))
                // min 0, gamma 1: log2 G = top x g, and (1 - a) of it is g' = (1 - a) g.
                let g = Double(out.row(0, my)[mx]) * top
                out.row(0, my)[mx] = Float((1 - a) * g / top)
            }
        }
        return out
    }
}
