import FilterChain
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Random chains over the whole catalogue, random images of every layout, and random
// schedules, for the differential tests (RandomChainTests) and the `render` fuzzer
// (Tests/Fuzz/Sources/FuzzRender links this file). Public API only. The same entropy gives
// the same case on every machine: the generator never asks the clock or the system.

/// Where a case's choices come from: a seeded generator for tests, or a fuzzer's bytes.
protocol CaseEntropy {
    mutating func next() -> UInt64
}

/// SplitMix64: the tests' fixed seeds and printed case seeds.
struct SeedEntropy: CaseEntropy {
    var state: UInt64
    init(_ seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A fuzzer's bytes, eight at a time; once they run out, a generator seeded with the last
/// value (so every input is a whole case, and never a run of zeros).
struct ByteEntropy: CaseEntropy {
    let bytes: [UInt8]
    var position = 0
    var rest: SeedEntropy?
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    mutating func next() -> UInt64 {
        if rest != nil { return rest!.next() }
        var v: UInt64 = 0
        for _ in 0..<8 {
            v = v << 8 | UInt64(position < bytes.count ? bytes[position] : 0)
            position += 1
        }
        if position >= bytes.count { rest = SeedEntropy(v ^ UInt64(bytes.count)) }
        return v
    }
}

extension CaseEntropy {
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound) &+ 1
        if span == 0 { return Int(truncatingIfNeeded: next()) }
        return range.lowerBound + Int(next() % span)
    }
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    mutating func double(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + unit() * (range.upperBound - range.lowerBound)
    }
    mutating func chance(_ p: Double) -> Bool { unit() < p }
    mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }
    /// Log-uniform in 1...maximum: small sizes as often as large ones.
    mutating func side(_ maximum: Int) -> Int {
        max(1, min(maximum, Int(exp(unit() * log(Double(maximum))).rounded())))
    }
}

/// One differential case: an image, a chain, the positions whose images are taken, and the
/// schedules (thread count, strip height) it is rendered with.
struct RandomCase {
    /// The chain rendered; some of its numbers may be expressions (`addExpressions`).
    var chain: Chain
    /// The same chain with every number a literal (what the expressions take): the oracle's.
    var literal: Chain
    var image: RasterImage
    /// How the image was made: "196x673 RGB 8-bit, alpha with holes".
    var imageDescription: String
    var schedules: [(threads: Int, stripHeight: Int)]
    /// Positions whose previews are compared with the chain cut there.
    var cuts: [Int]
}

/// How large the cases get.
struct CaseLimits {
    /// Largest side of the input image.
    var side = 700
    /// Largest area of the image at any step (the input's and every geometry step's output).
    var area = 1_500
    var maxSteps = 8
    var maxThreads = 4
    var maxStrip = 200
    /// The share of cases that are graphs (references, blends, masks, an extra image).
    var graphs = 0.4
    /// The share of cases whose numbers are partly expressions and variables.
    var expressions = 0.35

    /// The `render` fuzzer's (and its kept inputs').
    static let fuzz = CaseLimits(side: 400, area: 12_000, maxSteps: 8, maxThreads: 4, maxStrip: 200)
}

enum RandomChains {
    /// The .cube files a lut step may name (absolute paths); none: no lut steps.
    nonisolated(unsafe) static var cubeFiles: [String] = []

    static func makeCase(_ e: inout some CaseEntropy, limits: CaseLimits = CaseLimits()) -> RandomCase {
        let (image, description) = makeImage(&e, limits: limits)
        let space: WorkingSpace = e.chance(0.3) ? .linear : .srgb
        // A graph now and then: steps reading earlier steps, blends, masks, an extra image.
        let graph = e.chance(limits.graphs)
        var images: [ChainImage] = []
        if graph && e.chance(0.5) {
            var small = limits
            small.area = max(1, limits.area / 4)
            let (extra, _) = makeImage(&e, limits: small)
            images.append(ChainImage(id: "00000000-0000-4000-9000-000000000000", name: "picture", file: "picture.png", image: extra))
        }
        // The size of the image at each node, for the steps drawn later: [source, images..., steps...].
        var sizes: [GraphNode: ImageSize] = [.source: ImageSize(width: image.width, height: image.height)]
        for (i, extra) in images.enumerated() { sizes[.image(i)] = ImageSize(width: extra.image!.width, height: extra.image!.height) }
        var steps: [Step] = []
        // The size of each step's input, for expressions that read width and height.
        var inputSizes: [ImageSize] = []
        let count = e.int(1...limits.maxSteps)
        var attempts = 0
        func reference(to node: GraphNode) -> FilterChain.Reference {
            switch node {
            case .source: return .source
            case .image(let i): return FilterChain.Reference(e.chance(0.5) ? images[i].id : images[i].name!)
            case .step(let i): return FilterChain.Reference(e.chance(0.5) ? steps[i].id : steps[i].name!)
            }
        }
        func anyNode() -> GraphNode {
            let nodes: [GraphNode] = [.source] + images.indices.map { .image($0) } + steps.indices.map { .step($0) }
            return e.pick(nodes)
        }
        while steps.count < count && attempts < 20 * count {
            attempts += 1
            var input: GraphNode = steps.isEmpty ? .source : .step(steps.count - 1)
            var inputReference: FilterChain.Reference?
            if graph && e.chance(0.25) {
                let node = anyNode()
                if node != input || e.chance(0.3) {
                    input = node
                    inputReference = reference(to: node)
                }
            }
            var size = sizes[input]!
            let filter: any Filter
            if graph && e.chance(0.25) {
                filter = Blend(layer: reference(to: anyNode()), mode: e.pick(BlendMode.allCases),
                               opacity: e.chance(0.2) ? 1 : (e.unit() * 1000).rounded() / 1000,
                               placement: makePlacement(&e))
            } else {
                guard let f = makeFilter(&e, size: size) else { continue }
                filter = f
            }
            // Geometry steps must fit the size limits and apply to the image as it is then.
            var mask: Mask?
            if case .geometry(let kernel) = filter.operation() {
                guard let layout = try? kernel.layout(for: size) else { continue }
                let out = layout.outputSize(from: size)
                if case .resample(let to, _) = layout, to.width * to.height > 4 * limits.area { continue }
                guard out.width * out.height <= limits.area, out.width >= 1, out.height >= 1 else { continue }
                size = out
            } else if graph && e.chance(0.3) {
                let source = reference(to: anyNode())
                mask = makeMask(&e, source: source)
            }
            let enabled = e.chance(0.85)
            let index = steps.count
            inputSizes.append(sizes[input]!)
            sizes[.step(index)] = enabled ? size : sizes[input]!
            steps.append(Step(id: "00000000-0000-4000-8000-" + twelveDigits(index), name: graph ? "s\(index)" : nil,
                              enabled: enabled, filter: filter, input: inputReference, mask: mask))
        }
        // A disabled geometry step leaves the size unchanged, so the sizes tracked above are
        // the largest any step sees; they only bound the work.
        // 1, 2 and 4 threads (up to the limit's most for the third), strips of 1 to 200 rows.
        let literal = Chain(workingSpace: space, images: images, steps: steps)
        var chain = literal
        if e.chance(limits.expressions) {
            addExpressions(&e, to: &chain, inputSizes: inputSizes)
        }
        let threads = [1, min(2, limits.maxThreads), limits.maxThreads == 4 ? 4 : e.int(min(3, limits.maxThreads)...limits.maxThreads)]
        let schedules = threads.map { ($0, e.chance(0.2) ? 1 : e.int(1...limits.maxStrip)) }
        return RandomCase(chain: chain, literal: literal, image: image, imageDescription: description,
                          schedules: schedules, cuts: [e.int(0...steps.count)])
    }

    /// Rewrites some numbers of the steps (numbers, whole numbers, choices of whole numbers,
    /// the numbers of colours, points and matrices) as expressions that take exactly the
    /// value they had: through variables (literal, or an expression over one above), the
    /// step's input size (`width - W + v`, with W the size the generator tracked: a wrong
    /// `width` gives a wrong value), the source's size, functions, and whole numbers that
    /// need rounding half away from zero (`v + 0.4`, `v - 0.5` for v > 0).
    static func addExpressions(_ e: inout some CaseEntropy, to chain: inout Chain, inputSizes: [ImageSize]) {
        var variables: [ChainVariable] = []
        func number(_ v: Double) -> String { JSONWriter.number(v) }
        func expression(_ v: Double, whole: Bool, size: ImageSize) -> String {
            let isWhole = v == v.rounded() && abs(v) < 1e9
            var forms = [0, 1, 2, 3, 4, 5, 6, 7]
            if isWhole { forms += [8, 9] }
            if whole { forms += [10, 10] }
            switch e.pick(forms) {
            case 0: return "=" + number(v)
            case 1:
                let name = "n\(variables.count)"
                variables.append(ChainVariable(name: name, value: .number(v)))
                return "=" + name
            case 2: return "=if(width > 0, \(number(v)), 0)"
            case 3: return e.chance(0.5) ? "=min(\(number(v)), 1e300)" : "=max(-1e300, \(number(v)))"
            case 4: return "=clamp(\(number(v)), -1e300, 1e300)"
            case 5: return "=\(number(v)) + 0 * height"
            case 6:
                let a = "a\(variables.count)", b = "b\(variables.count)"
                variables.append(ChainVariable(name: a, value: .number(v)))
                variables.append(ChainVariable(name: b, value: .expression(try! NumberExpression("=\(a) * 1", names: variables.map(\.name)))))
                return "=" + b
            case 7: return "=sourceWidth - sourceWidth + \(number(v))"
            case 8: return "=width - \(size.width) + \(number(v))"
            case 9: return "=height - \(size.height) + \(number(v))"
            default: return v > 0 ? (e.chance(0.5) ? "=\(number(v)) - 0.5" : "=\(number(v)) + 0.4") : "=\(number(v)) + 0.5"
            }
        }
        var edits: [(step: Int, name: String, value: JSONNode)] = []
        for i in chain.steps.indices where e.chance(0.5) {
            let filter = chain.steps[i].filter
            guard case .object(let members) = filter.parametersJSON.value else { continue }
            for parameter in type(of: filter).info.parameters where e.chance(0.6) {
                let whole: Bool
                switch parameter.kind {
                case .number, .color, .point, .matrix: whole = false
                case .integer, .integerChoice: whole = true
                default: continue
                }
                guard let value = members.first(where: { $0.key == parameter.name })?.value else { continue }
                func rewrite(_ node: JSONNode) -> JSONNode {
                    switch node.value {
                    case .number(let v): return e.chance(0.7) ? JSONNode(.string(expression(v, whole: whole, size: inputSizes[i]))) : node
                    case .array(let items): return JSONNode(.array(items.map(rewrite)))
                    default: return node
                    }
                }
                edits.append((i, parameter.name, rewrite(value)))
            }
        }
        chain.variables = variables
        for (i, name, value) in edits {
            do { try chain.setParameter(at: i, name, to: value, file: "random") } catch {
                preconditionFailure("a random expression was refused: \(error)")
            }
        }
    }

    static func makePlacement(_ e: inout some CaseEntropy) -> Placement {
        guard e.chance(0.7) else { return .default }
        return Placement(fit: e.chance(0.5) ? .none : e.pick(Placement.Fit.allCases), gravity: e.pick(Placement.Gravity.allCases),
                         offset: e.chance(0.5) ? (0, 0) : (e.int(-6...30), e.int(-6...30)))
    }

    static func makeMask(_ e: inout some CaseEntropy, source: FilterChain.Reference) -> Mask {
        func fraction() -> Double { (e.double(-0.2...1.2) * 1000).rounded() / 1000 }
        func point() -> ImagePoint { ImagePoint(fraction(), fraction()) }
        let shape: Mask.Shape
        switch e.int(0...3) {
        case 0:
            let from = point()
            var to = point()
            if to == from { to.x += 0.5 }
            shape = .linear(from: from, to: to)
        case 1:
            // A radial mask's centre is within the image (0...1); a linear one's ends may lie outside.
            shape = .radial(center: ImagePoint((e.unit() * 1000).rounded() / 1000, (e.unit() * 1000).rounded() / 1000), radius: (e.double(0...2) * 1000).rounded() / 1000,
                            feather: e.chance(0.2) ? 0 : (e.unit() * 1000).rounded() / 1000)
        case 2:
            let a = (e.unit() * 1000).rounded() / 1000, b = (e.unit() * 1000).rounded() / 1000
            shape = .luminance(low: min(a, b), high: max(a, b), feather: e.chance(0.2) ? 0 : (e.unit() * 1000).rounded() / 1000)
        default:
            shape = .image(source: source, channel: e.pick(MaskChannel.allCases), placement: makePlacement(&e))
        }
        return Mask(shape, invert: e.chance(0.3), opacity: e.chance(0.5) ? 1 : (e.unit() * 1000).rounded() / 1000)
    }

    /// A random image: size (log-uniform sides, thin and one-pixel ones included), layout,
    /// depth (8, 16 or float), and content (noise, gradients, flat areas; alpha opaque, random or with holes).
    static func makeImage(_ e: inout some CaseEntropy, limits: CaseLimits) -> (RasterImage, String) {
        var width = e.side(limits.side), height = e.side(limits.side)
        if e.chance(0.1) { width = 1 } else if e.chance(0.1) { height = 1 }
        while width * height > limits.area {
            if width > height { width = max(1, width / 2) } else { height = max(1, height / 2) }
        }
        let channels = e.pick([Channels.grey, .greyAlpha, .rgb, .rgba])
        let depth: BitDepth = e.chance(0.5) ? .eight : .sixteen
        let format = PixelFormat(channels, depth)
        let alphaKind = channels.hasAlpha ? e.int(0...2) : 0
        let content = e.int(0...2)
        // The samples come from a generator seeded here, so a fuzzer's few bytes still make
        // a whole image.
        var e = SeedEntropy(e.next())
        let maxValue = depth.maxValue
        let n = channels.count
        var samples = [Int](repeating: 0, count: width * height * n)
        let phase = e.unit()
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<n {
                    let isAlpha = channels.hasAlpha && c == n - 1
                    var v: Double
                    if isAlpha {
                        switch alphaKind {
                        case 1: v = e.unit()
                        case 2: v = e.chance(0.3) ? 0 : (e.chance(0.5) ? 1 : e.unit())
                        default: v = 1
                        }
                    } else {
                        switch content {
                        case 0: v = e.unit()
                        case 1: v = 0.5 + 0.5 * sin(Double(x) * 0.3 + Double(y) * 0.17 + Double(c) + phase * 6)
                        default: v = (x / 7 + y / 5 + c) % 3 == 0 ? e.unit() : Double((x + y) % 2)
                        }
                    }
                    samples[(y * width + x) * n + c] = Int((v * Double(maxValue)).rounded())
                }
            }
        }
        var image = try! RasterImage(width: width, height: height, format: format, samples: samples)
        // A fifth of the 16-bit images become float ones (a float TIFF's samples), colour
        // stretched past [0, 1] (-0.15 to 1.15): drawn last, so the other images and every
        // chain are as they were.
        if depth == .sixteen && e.chance(0.2) {
            var floats = [Float](repeating: 0, count: samples.count)
            for (i, v) in samples.enumerated() {
                let unit = Float(v) / 65535
                floats[i] = channels.hasAlpha && i % n == n - 1 ? unit : unit * 1.3 - 0.15
            }
            image = try! RasterImage(width: width, height: height, format: PixelFormat(channels, .float32),
                                     pixels: floats.withUnsafeBytes { Array($0) })
        }
        let alpha = ["", ", random alpha", ", alpha with holes"][alphaKind]
        let kind = ["noise", "waves", "blocks"][content]
        return (image, "\(width)x\(height) \(image.format) \(kind)\(alpha)")
    }

    /// A filter of a random type with random parameters across their ranges (each left at
    /// its default now and then); nil when the values drawn break a rule across parameters.
    /// `size`: the image the step will see (lengths in pixels mostly stay within it).
    static func makeFilter(_ e: inout some CaseEntropy, size: ImageSize) -> (any Filter)? {
        var types = FilterRegistry.types
        if cubeFiles.isEmpty { types.removeAll { $0.typeName == "lut" } }
        // Blends read other images: makeCase draws them with the graph.
        types.removeAll { $0.typeName == "blend" }
        let type = e.pick(types)
        var filter: any Filter = type.init()
        for parameter in type.info.parameters {
            let required = parameter.kind.isFile
            guard required || e.chance(0.75) else { continue }
            guard let value = makeValue(parameter, &e, size: size) else { continue }
            if let changed = try? filter.setting(parameter.name, to: value) { filter = changed }
        }
        guard filter.missingParameters.isEmpty, (try? filter.checkCombination()) != nil else { return nil }
        return filter
    }

    static func makeValue(_ parameter: ParameterInfo, _ e: inout some CaseEntropy, size: ImageSize) -> JSONNode? {
        func number(_ v: Double) -> JSONNode { JSONNode(.number(v)) }
        func draw(_ r: ClosedRange<Double>) -> Double {
            if e.chance(0.08) { return e.chance(0.5) ? r.lowerBound : r.upperBound }
            // Wide positive ranges (a sigma of 0.1...100) log-uniformly, others uniformly.
            if r.lowerBound > 0 && r.upperBound / r.lowerBound > 50 {
                return (exp(e.double(log(r.lowerBound)...log(r.upperBound))) * 1000).rounded() / 1000
            }
            return (e.double(r) * 1000).rounded() / 1000
        }
        switch parameter.kind {
        case .number(let r):
            // Lengths in pixels mostly within the image's size (a blur far wider than the
            // image now and then).
            if parameter.unit == .pixels, r.upperBound > 64 {
                let reach = e.chance(0.9) ? max(2, Double(min(size.width, size.height)) / 2) : 24
                return number(draw(r.lowerBound...max(r.lowerBound, min(r.upperBound, reach))))
            }
            return number(min(r.upperBound, max(r.lowerBound, draw(r))))
        case .integer(let r):
            let high = min(r.upperBound, 400)
            return number(Double(e.chance(0.7) ? e.int(max(r.lowerBound, 1)...max(1, min(high, 120))) : e.int(r.lowerBound...high)))
        case .choice(let options):
            return JSONNode(.string(e.pick(options)))
        case .integerChoice(let options):
            return number(Double(e.pick(options)))
        case .boolean:
            return JSONNode(.bool(e.chance(0.5)))
        case .points(let count, _):
            // x strictly increasing: one point in each of n equal cells, away from the cells' edges.
            let n = e.int(count.lowerBound...min(count.upperBound, 6))
            let xs = (0..<n).map { i in ((Double(i) + e.double(0.05...0.95)) / Double(n) * 1000).rounded() / 1000 }
            return JSONNode(.array(xs.map { JSONNode(.array([number($0), number((e.unit() * 1000).rounded() / 1000)])) }))
        case .color(let r, let positiveLuma):
            var c = (0..<3).map { _ in draw(r) }
            for _ in 0..<10 where positiveLuma && 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2] <= 0 {
                c = (0..<3).map { _ in draw(r) }
            }
            if positiveLuma && 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2] <= 0 { c = [r.upperBound, r.upperBound, r.upperBound] }
            return JSONNode(.array(c.map(number)))
        case .point(let r):
            return JSONNode(.array([number(draw(r)), number(draw(r))]))
        case .reference, .placement:
            // Graph parameters are drawn with the graph (references need the steps above).
            return nil
        case .matrix(let rows, let columns, let r):
            // Near the identity mostly (a colour matrix that keeps the picture), anything now and then.
            let wild = e.chance(0.3)
            return JSONNode(.array((0..<rows).map { i in
                JSONNode(.array((0..<columns).map { j in
                    let base = i == j ? 1.0 : 0.0
                    let v = wild ? draw(r) : base + (e.chance(0.5) ? e.double(-0.5...0.5) : 0)
                    return number((min(r.upperBound, max(r.lowerBound, v)) * 1000).rounded() / 1000)
                }))
            }))
        case .file:
            guard !cubeFiles.isEmpty else { return nil }
            return JSONNode(.string(e.pick(cubeFiles)))
        }
    }
}

extension ParameterKind {
    var isFile: Bool { if case .file = self { true } else { false } }
}

/// A step's number as the last twelve digits of a UUID.
func twelveDigits(_ n: Int) -> String {
    let digits = String(n)
    return String(repeating: "0", count: max(0, 12 - digits.count)) + digits
}
