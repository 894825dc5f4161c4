/// A step of a graph: what it is (its filter), who it is (its id and name) and what it reads
/// (its input, its mask, its filter's layers). A chain file's `Step` and the `ResolvedStep`
/// a render runs are both; what a reference names and what a step reads is said once, over
/// either (`StepGraph`).
public protocol ChainStep: Sendable {
    var id: String { get }
    var name: String? { get }
    var enabled: Bool { get }
    var filter: any Filter { get set }
    /// Where the step reads its image; nil: the step above it (the source for the first).
    var input: Reference? { get }
    /// Where the step acts; nil: everywhere.
    var mask: Mask? { get set }
}

extension ChainStep {
    public var type: String { filter.type }
    /// The first 8 characters of the id.
    public var shortID: String { String(id.prefix(8)) }
    /// What listings call it: its name, else its type.
    public var label: String { name ?? type }
    /// The step's own id and name, the strings a reference to it may use.
    func isNamed(_ text: String) -> Bool { id.lowercased() == text.lowercased() || name == text }
}

/// Steps that read the source, the graph's images and the steps above them: a chain as
/// written (`Chain`) or resolved for an image (`ResolvedChain`).
public protocol StepGraph: Sendable {
    associatedtype StepType: ChainStep
    var workingSpace: WorkingSpace { get }
    var steps: [StepType] { get set }
    var images: [ChainImage] { get set }
}

/// A step as it runs on one image: every parameter's value in its filter (expressions
/// evaluated for the image's size).
public struct ResolvedStep: ChainStep {
    public let id: String
    public let name: String?
    public let enabled: Bool
    public var filter: any Filter
    public let input: Reference?
    public var mask: Mask?

    /// `step`'s filter as it holds it: a parameter written with an expression keeps its
    /// default unless the step was resolved.
    init(_ step: Step) {
        id = step.id
        name = step.name
        enabled = step.enabled
        filter = step.filter
        input = step.input
        mask = step.mask
    }

    /// The step as a chain file would write it (ids, references and values as they run).
    public var written: Step { Step(id: id, name: name, enabled: enabled, filter: filter, input: input, mask: mask) }
}

/// A chain as it runs on one image (`Chain.resolved(sourceSize:)`): its steps resolved, its
/// images, its working space. What the planner and the renderer take; it has no expressions,
/// no variables and no editor layout.
public struct ResolvedChain: StepGraph {
    public let workingSpace: WorkingSpace
    public var steps: [ResolvedStep]
    public var images: [ChainImage]
    /// The chain file it was read from, when it was.
    public let file: String?

    /// The chain's steps as their filters hold them: what `sizes(at:input:)` plans with, and
    /// a resolved chain once its expressions are evaluated.
    init(_ chain: Chain) {
        workingSpace = chain.workingSpace
        steps = chain.steps.map(ResolvedStep.init)
        images = chain.images
        file = chain.file
    }

    /// Steps `range` of the chain, with its images and working space.
    func slice(_ range: Range<Int>, images: [ChainImage]) -> ResolvedChain {
        var copy = self
        copy.steps = Array(steps[range])
        copy.images = images
        return copy
    }
}
