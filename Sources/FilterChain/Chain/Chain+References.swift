/// The rules of a chain's graph, said once: chain files are checked against them when read,
/// chains built in code when rendered (`validate`), edits before they are saved.

extension Filter {
    /// The parameters that name other images of the chain (those of kind `.reference`), with
    /// their values.
    public var references: [(parameter: String, reference: Reference)] {
        Self.declaration.parameters.compactMap { p in
            guard p.kind == .reference, case .string(let text)? = p.get(self)?.value else { return nil }
            return (p.name, Reference(text))
        }
    }

    /// The names of its reference parameters (its declared image ports), set or not.
    public var referenceParameters: [String] {
        Self.declaration.parameters.filter { $0.kind == .reference }.map(\.name)
    }

    /// True for a filter that changes the image's size or turns it (resize, crop, rotate, flip).
    public var isGeometry: Bool {
        if case .geometry = operation() { return true }
        return false
    }
}

extension Chain {
    /// Every reference of the step at `index`, with its JSON path below the step: its
    /// "input", its reference parameters ("parameters.layer") and an image mask's
    /// "mask.source".
    public func references(ofStep index: Int) -> [(path: String, reference: Reference)] {
        let step = steps[index]
        var refs: [(path: String, reference: Reference)] = []
        if let input = step.input { refs.append(("input", input)) }
        for (name, reference) in step.filter.references { refs.append(("parameters." + name, reference)) }
        if let source = step.mask?.reference { refs.append(("mask.source", source)) }
        return refs
    }

    /// How messages name the step at `index`: "step 2 (soft)".
    func stepTitle(_ index: Int) -> String { "step \(index + 1) (\(steps[index].label))" }

    /// Checks what makes a chain a graph: ids and names unique across steps and images, no
    /// step or image named "source" (in chains written as version 2; a version 1 file's step
    /// may keep that name, as nothing can refer to it), every reference naming the source,
    /// an image or a step above its step, and no mask on a geometry step. The error has the
    /// JSON path of the problem.
    public func checkGraph(file: String) throws(ChainError) {
        try checkIdentities(file: file)
        for i in steps.indices {
            for (path, reference) in references(ofStep: i) {
                try checkReference(reference, ofStep: i, file: file, path: "filters[\(i)]." + path)
            }
            if steps[i].mask != nil, steps[i].filter.isGeometry {
                throw ChainError(file: file, path: "filters[\(i)].mask",
                                 problem: .maskOnGeometryStep(step: i + 1, label: steps[i].label, type: steps[i].type))
            }
        }
    }

    /// Unique ids and names across images and steps, and the reserved name.
    func checkIdentities(file: String) throws(ChainError) {
        var identities = Identities(reserveSource: needsVersion2)
        for (i, image) in images.enumerated() {
            if let (key, problem) = identities.claim(image.id, image.name, .image(i)) {
                throw ChainError(file: file, path: "images[\(i)].\(key)", problem: problem)
            }
        }
        for (i, step) in steps.enumerated() {
            if let (key, problem) = identities.claim(step.id, step.name, .step(i)) {
                throw ChainError(file: file, path: "filters[\(i)].\(key)", problem: problem)
            }
        }
    }

    /// Checks that `reference` names something the step at `index` may read.
    public func checkReference(_ reference: Reference, ofStep index: Int, file: String, path: String) throws(ChainError) {
        if resolve(reference, from: index) != nil { return }
        if case .step(let target)? = resolve(reference) {
            throw ChainError(file: file, path: path, problem: .laterReference(
                reference.text, target: target + 1, targetLabel: steps[target].label, step: index + 1, stepLabel: steps[index].label))
        }
        let imageNames = images.map { $0.name ?? $0.id }
        let above = steps.prefix(index)
        let stepNames = above.compactMap(\.name)
        let unnamed = above.count - stepNames.count
        var stepList = stepNames
        if unnamed > 0 { stepList.append("\(unnamed) unnamed, by id") }
        func list(_ items: [String]) -> String { items.isEmpty ? "none" : items.joined(separator: ", ") }
        let readable = "\"source\", the images (\(list(imageNames))) and the steps above it (\(list(stepList)))"
        let candidates = [Reference.source.text] + images.compactMap(\.name) + stepNames
        throw ChainError(file: file, path: path, problem: .unknownReference(
            reference.text, suggestion: closestMatch(reference.text, in: candidates), readable: readable))
    }

    /// The steps that read `node` by a reference, as messages name them ("step 3 (glow) in
    /// parameters.layer"), with their indices.
    public func readers(of node: GraphNode) -> [(step: Int, description: String)] {
        var result: [(step: Int, description: String)] = []
        for i in steps.indices {
            for (path, reference) in references(ofStep: i) where resolve(reference) == node {
                result.append((i, "\(stepTitle(i)) in \(path)"))
            }
        }
        return result
    }
}

/// The ids (in any case) and names of a chain's images and steps, claimed in file order:
/// each must be new, and "source" is not a name when the chain uses the graph.
struct Identities {
    let reserveSource: Bool
    private var ids: [String: GraphNode] = [:]
    private var names: [String: GraphNode] = [:]

    init(reserveSource: Bool) { self.reserveSource = reserveSource }

    /// Nil when both are new; else the key ("id" or "name") and the problem.
    mutating func claim(_ id: String, _ name: String?, _ node: GraphNode) -> (String, ChainError.Problem)? {
        if let first = ids[id.lowercased()] { return ("id", .duplicateID(id, first: Self.path(first))) }
        ids[id.lowercased()] = node
        guard let name else { return nil }
        if let first = names[name] {
            var title = Self.path(first)
            if case .step(let f) = first {
                if case .step(let i) = node { title += " (step \(f + 1); this is step \(i + 1))" } else { title += " (step \(f + 1))" }
            }
            return ("name", .duplicateName(name, first: title))
        }
        if reserveSource, name == Reference.source.text { return ("name", .reservedName(name)) }
        names[name] = node
        return nil
    }

    static func path(_ node: GraphNode) -> String {
        switch node {
        case .image(let i): "images[\(i)]"
        case .step(let i): "filters[\(i)]"
        case .source: "source"
        }
    }
}
