#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A chain is a graph: each step reads an image (by default the step above it) and may read
/// others (a blend's layer, an image mask's source). What a reference names, and where
/// images are placed over one another, is said here once.

/// Names an image of a chain: `"source"` (the decoded input), an entry of `Chain.images`, or
/// a step, by its id or its name. A step may refer only to the source, the images and the
/// steps above it, so a chain's graph never has a cycle.
public struct Reference: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The id or name as written.
    public var text: String

    public init(_ text: String) { self.text = text }
    public init(stringLiteral value: String) { text = value }

    /// The decoded input image.
    public static let source = Reference("source")
    public var isSource: Bool { text == "source" }
    public var description: String { text }
}

/// What a reference resolves to in a chain.
public enum GraphNode: Sendable, Hashable {
    /// The decoded input image.
    case source
    /// `Chain.images[i]`.
    case image(Int)
    /// The output of `Chain.steps[i]`.
    case step(Int)
}

/// Where a step's node lies in the editor's graph view: its top-left corner in the view's
/// units (CSS pixels at zoom 1), x to the right and y down. A chain file writes it as
/// `"layout": [x, y]`; the engine never reads it.
public struct NodePosition: Sendable, Hashable {
    public var x: Double
    public var y: Double

    public init(_ x: Double, _ y: Double) {
        self.x = x
        self.y = y
    }

    /// How far a coordinate may lie from the origin.
    public static let range: ClosedRange<Double> = -1_000_000...1_000_000
}

/// An extra input of a chain: an image file read relative to the chain file's folder.
public struct ChainImage: Sendable {
    /// A UUID, as written in the file.
    public var id: String
    public var name: String?
    /// The path as written (relative to the chain file's folder, or absolute).
    public var file: String
    /// The decoded image, upright (EXIF orientation applied); nil until loaded.
    public var image: RasterImage?

    public init(id: String = UUID().uuidString, name: String? = nil, file: String, image: RasterImage? = nil) {
        self.id = id
        self.name = name
        self.file = file
        self.image = image
    }

    /// What messages call it: its name, else its file.
    public var label: String { name ?? file }
}

/// Where a layer (a blend's, an image mask's) lies over an image of another size.
public struct Placement: Sendable, Hashable {
    public enum Fit: String, CaseIterable, Sendable {
        /// The layer's own size.
        case none
        /// Resized as the `resize` step does (Lanczos3, its size rule) to the image's size:
        /// the largest size inside it, the smallest covering it (then its middle), or exactly it.
        case contain, cover, fill
    }

    public enum Gravity: String, CaseIterable, Sendable {
        case center, north, south, east, west, northEast, northWest, southEast, southWest
    }

    public var fit: Fit
    public var gravity: Gravity
    /// Whole pixels inward from the gravity's edges (for center: right and down).
    public var offsetX: Int
    public var offsetY: Int

    public init(fit: Fit = .none, gravity: Gravity = .center, offset: (x: Int, y: Int) = (0, 0)) {
        self.fit = fit
        self.gravity = gravity
        offsetX = offset.x
        offsetY = offset.y
    }

    public static let `default` = Placement()
    public var isDefault: Bool { self == .default }

    /// The layer's size once fitted to an image of `canvas`.
    public func fittedSize(_ layer: ImageSize, canvas: ImageSize) -> ImageSize {
        guard let resize = resize(canvas: canvas),
              let layout = try? resize.layout(for: layer) else { return layer }
        return layout.outputSize(from: layer)
    }

    /// The resize that fits the layer, if any.
    func resize(canvas: ImageSize) -> Resize? {
        switch fit {
        case .none: nil
        case .contain: Resize(width: canvas.width, height: canvas.height, fit: .contain)
        case .cover: Resize(width: canvas.width, height: canvas.height, fit: .cover)
        case .fill: Resize(width: canvas.width, height: canvas.height, fit: .fill)
        }
    }

    /// The top-left corner of a (fitted) layer of `layer` over an image of `canvas`, in whole
    /// pixels: for west x = ox, for east x = W - w - ox, for center x = floor((W - w) / 2) + ox
    /// (y alike). Parts outside the image are cut off.
    public func origin(_ layer: ImageSize, canvas: ImageSize) -> (x: Int, y: Int) {
        func along(_ edge: Int, _ inner: Int, _ outer: Int, _ offset: Int) -> Int {
            switch edge {
            case -1: offset
            case 1: outer - inner - offset
            default: Int((Double(outer - inner) / 2).rounded(.down)) + offset
            }
        }
        let (ex, ey): (Int, Int) = switch gravity {
        case .center: (0, 0)
        case .north: (0, -1)
        case .south: (0, 1)
        case .east: (1, 0)
        case .west: (-1, 0)
        case .northEast: (1, -1)
        case .northWest: (-1, -1)
        case .southEast: (1, 1)
        case .southWest: (-1, 1)
        }
        return (along(ex, layer.width, canvas.width, offsetX), along(ey, layer.height, canvas.height, offsetY))
    }
}

/// Which value of an image an image mask takes.
public enum MaskChannel: String, CaseIterable, Sendable {
    /// 0.2126 r + 0.7152 g + 0.0722 b of straight colour, clamped to [0, 1].
    case luminance, alpha, red, green, blue
}

/// Where a step acts: its result is mixed with its input, out = in + m (result - in), on
/// premultiplied colour and alpha, m being the mask's value at the pixel.
public struct Mask: Sendable, Hashable {
    public enum Shape: Sendable, Hashable {
        /// m = t² (3 - 2t), t the position of the pixel along from -> to (fractions of W, H).
        case linear(from: ImagePoint, to: ImagePoint)
        /// m = 1 - smoothstep from radius (1 - feather) to radius (half-diagonals) from center.
        case radial(center: ImagePoint, radius: Double, feather: Double)
        /// m = 1 where the step's input's luminance is within low...high, fading over feather.
        case luminance(low: Double, high: Double, feather: Double)
        /// A channel of another image, placed over the step's input (0 where it does not cover).
        case image(source: Reference, channel: MaskChannel, placement: Placement)
    }

    public var shape: Shape
    /// m -> 1 - m, before opacity.
    public var invert: Bool
    /// m -> m x opacity.
    public var opacity: Double

    public init(_ shape: Shape, invert: Bool = false, opacity: Double = 1) {
        self.shape = shape
        self.invert = invert
        self.opacity = opacity
    }

    /// The mask's type as chain files write it.
    public var type: String {
        switch shape {
        case .linear: "linear"
        case .radial: "radial"
        case .luminance: "luminance"
        case .image: "image"
        }
    }

    /// The image the mask reads, for an image mask.
    public var reference: Reference? {
        if case .image(let source, _, _) = shape { return source }
        return nil
    }
}

extension StepGraph {
    /// What `reference` names, as seen from the step at index `step` (nil: from after the
    /// last step, where any step may be named). Nil when it names nothing there.
    public func resolve(_ reference: Reference, from step: Int? = nil) -> GraphNode? {
        if reference.isSource { return .source }
        if let i = images.firstIndex(where: { $0.id.lowercased() == reference.text.lowercased() || $0.name == reference.text }) {
            return .image(i)
        }
        let limit = step ?? steps.count
        if let i = steps.prefix(limit).firstIndex(where: { $0.isNamed(reference.text) }) { return .step(i) }
        return nil
    }

    /// The node step `index` reads its image from: its input, by default the step above it
    /// (the source for the first). Assumes the chain is valid.
    public func inputNode(ofStep index: Int) -> GraphNode {
        if let input = steps[index].input { return resolve(input, from: index) ?? .source }
        return index == 0 ? .source : .step(index - 1)
    }

    /// The images a step reads besides its input: its filter's declared layers (a blend's),
    /// an image mask's source.
    public func sideReferences(ofStep index: Int) -> [Reference] {
        let step = steps[index]
        var refs = step.filter.layerReferences
        if let r = step.mask?.reference { refs.append(r) }
        return refs
    }

    /// True when the chain's steps read anything but the step above them, or act through a
    /// mask: what evaluates as a graph.
    public var usesGraph: Bool {
        !images.isEmpty || steps.contains { $0.input != nil || $0.mask != nil || !$0.filter.layerReferences.isEmpty }
    }

    /// The node whose image `node` is: a disabled step passes its input through.
    public func effective(_ node: GraphNode) -> GraphNode {
        var node = node
        while case .step(let i) = node, !steps[i].enabled { node = inputNode(ofStep: i) }
        return node
    }

    /// True when no enabled step but the one at `index` reads the source (as its input, a
    /// layer or a mask's image): the decoder may then deliver what that step needs only.
    func readsSourceOnlyAt(_ index: Int) -> Bool {
        steps.indices.allSatisfy { i in
            guard steps[i].enabled, i != index else { return true }
            let reads = [inputNode(ofStep: i)] + sideReferences(ofStep: i).compactMap { resolve($0, from: i) }
            return !reads.contains { effective($0) == .source }
        }
    }

    /// The image at output position `position` (0: the source, n: after step n) as a node.
    public func node(atPosition position: Int) -> GraphNode {
        position == 0 ? .source : .step(position - 1)
    }
}

extension Chain {
    /// True when the chain uses anything a version 1 file cannot say: the graph, variables or
    /// expressions, or a step's place in the editor's graph view (`layout`, a version 2 key,
    /// so that a file that has one says which readers know it).
    public var needsVersion2: Bool {
        usesGraph || usesExpressions || steps.contains { layout[$0.id] != nil }
    }
}
