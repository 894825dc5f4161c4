#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The colour space filters work in.
/// The RGB space filters work in (see `WorkingSpace+Colorimetry.swift` for primaries, white
/// and curve). Every input is converted into it once, after decoding, and every output out of
/// it, before encoding: see "Colour management" in filters.md.
public enum WorkingSpace: String, Sendable, CaseIterable {
    /// sRGB primaries, sRGB-encoded: for an sRGB or untagged input, the stored values.
    case srgb
    /// sRGB primaries, linear light (colour decoded with the sRGB function).
    case linear
    /// Display P3 primaries (Apple's), sRGB-encoded.
    case displayP3
    /// Display P3 primaries, linear light.
    case linearDisplayP3
    /// ITU-R BT.2020 primaries, linear light (darktable's default: wide enough that edits
    /// of a wide-gamut photograph do not clip).
    case linearRec2020
}

/// One step of a chain as a file writes it: a filter with its identity, where it reads, and
/// the parameters it computes from expressions. What runs is its resolved form
/// (`ResolvedStep`, from `Chain.resolved(sourceSize:)`); where the editor draws it is the
/// chain's `layout`.
public struct Step: ChainStep {
    /// A UUID, as written in the file; made once and never changed.
    public var id: String
    public var name: String?
    public var enabled: Bool
    public var filter: any Filter
    /// Where the step reads its image; nil: the step above it (the source for the first).
    public var input: Reference?
    /// Where the step acts; nil: everywhere.
    public var mask: Mask?
    /// Parameters written with expressions (`"sigma": "=0.002 * min(width, height)"`), by
    /// name. The filter holds their defaults until the chain is resolved for an image
    /// (`Chain.resolved(sourceSize:)`), which sets their values.
    public var computed: [String: ComputedParameter]

    public init(id: String = UUID().uuidString, name: String? = nil, enabled: Bool = true, filter: any Filter,
                input: Reference? = nil, mask: Mask? = nil, computed: [String: ComputedParameter] = [:]) {
        self.id = id
        self.name = name
        self.enabled = enabled
        self.filter = filter
        self.input = input
        self.mask = mask
        self.computed = computed
    }
}

/// Steps, as a chain file holds them: a straight line (version 1), or a graph whose steps
/// read earlier steps and extra images (version 2).
public struct Chain: StepGraph {
    /// The newest version this library reads and writes.
    public static let version = 2
    public var workingSpace: WorkingSpace
    public var steps: [Step]
    /// Extra input images that steps may refer to.
    public var images: [ChainImage]
    /// Where the editor's graph view draws each step a person has placed there, by the step's
    /// id (a file writes it as the step's `"layout": [x, y]`); a step without one is drawn
    /// where the view's own layout puts it. Editor metadata: no render reads it.
    public var layout: [String: NodePosition] = [:]
    /// Named numbers that parameters read in expressions (version 2).
    public var variables: [ChainVariable]
    /// The chain file it was read from (`load`, `parse`): errors found while it runs on an
    /// image (an expression's value out of range) name it. Nil for a chain made in code.
    public var file: String?
    /// The animation frame expressions see (`frame`, `frames`, `time`): a render of an
    /// animation sets it for each frame; a still is frame 0 of 1.
    public var frame = FrameClock.still

    public init(workingSpace: WorkingSpace = .srgb, variables: [ChainVariable] = [], images: [ChainImage] = [],
                steps: [Step] = []) {
        self.workingSpace = workingSpace
        self.variables = variables
        self.images = images
        self.steps = steps
    }

    /// A chain of filters with fresh ids.
    public init(workingSpace: WorkingSpace = .srgb, _ filters: [any Filter]) {
        self.init(workingSpace: workingSpace, steps: filters.map { Step(filter: $0) })
    }

    /// The first step whose name an earlier step already has: (earlier index, its index).
    public var duplicateName: (first: Int, second: Int)? {
        var seen: [String: Int] = [:]
        for (i, step) in steps.enumerated() {
            guard let name = step.name else { continue }
            if let first = seen[name] { return (first, i) }
            seen[name] = i
        }
        return nil
    }

    /// Throws when two steps share a name (a name must pick one step), naming both.
    public func checkUniqueNames(file: String) throws(ChainError) {
        guard let (first, second) = duplicateName else { return }
        throw ChainError(file: file, path: "filters[\(second)].name",
                         problem: .duplicateName(steps[second].name ?? "", first: "filters[\(first)] (step \(first + 1); this is step \(second + 1))"))
    }

    /// The steps as far as position `position` (0 or less: none; past the end: all).
    public func prefix(through position: Int) -> Chain {
        var chain = Chain(workingSpace: workingSpace, variables: variables, images: images, steps: Array(steps.prefix(max(0, position))))
        chain.file = file
        let kept = Set(chain.steps.map(\.id))
        chain.layout = layout.filter { kept.contains($0.key) }
        return chain
    }
}
