/// Editing a chain as a graph of wires: wiring a node to a step's port, cutting a wire,
/// putting a new step into a wire, removing a step so that what read it reads its input,
/// renaming a step so that references follow. The one model of these edits: the editor's
/// page asks for them (`POST /api/graph`) and draws the wires this file lists.
///
/// Every edit keeps what the other steps read, reorders the list when a wire makes a step
/// read one below it (as little as it can), and leaves the chain as it was when it throws.

/// Where a step reads an image: its input, a reference parameter of its filter (a blend's
/// `layer`), or an image mask's source.
public enum StepPort: Hashable, Sendable, CustomStringConvertible {
    case input
    case parameter(String)
    case mask

    /// "input", "mask", or the parameter's name.
    public init(_ text: String) {
        self = switch text {
        case "input": .input
        case "mask": .mask
        default: .parameter(text)
        }
    }

    public var description: String {
        switch self {
        case .input: "input"
        case .mask: "mask"
        case .parameter(let name): name
        }
    }

    /// The port as a chain file's path below its step: "input", "mask.source", "parameters.layer".
    public var path: String {
        switch self {
        case .input: "input"
        case .mask: "mask.source"
        case .parameter(let name): "parameters." + name
        }
    }
}

/// A node of the graph by identity, which survives a reordering of the steps: "source",
/// "image:ID" or "step:ID" (ids in capitals: they match in any case).
public enum NodeKey: Hashable, Sendable, CustomStringConvertible {
    case source
    case image(String)
    case step(String)

    /// Reads "source", "image:ID" or "step:ID"; nil for anything else.
    public init?(_ text: String) {
        if text == "source" { self = .source; return }
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let id = String(text[text.index(after: colon)...]).uppercased()
        switch text[..<colon] {
        case "image": self = .image(id)
        case "step": self = .step(id)
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .source: "source"
        case .image(let id): "image:" + id
        case .step(let id): "step:" + id
        }
    }
}

/// A wire of the graph: the port of a step and what it reads.
public struct Wire: Sendable, Equatable {
    /// The reading step's index.
    public let step: Int
    public let port: StepPort
    /// What the port reads; nil when its reference names nothing the step may read.
    public let reads: NodeKey?
    /// True for an input left out: the step above (the source for the first step).
    public let implicit: Bool
    /// The reference as written (nil for an implicit input).
    public let reference: Reference?
    /// A step at or below the reading step that the reference names (a wire that points down).
    public let later: NodeKey?
}

extension Chain {
    /// The ports the step at `index` reads through: its input, its filter's reference
    /// parameters (declared image ports: a blend's layer), an image mask's source.
    public func ports(ofStep index: Int) -> [StepPort] {
        let step = steps[index]
        var ports: [StepPort] = [.input]
        ports += step.filter.referenceParameters.map(StepPort.parameter)
        if step.mask?.reference != nil { ports.append(.mask) }
        return ports
    }

    /// The reference a port holds (nil: an input left out, the step above).
    func reference(at port: StepPort, ofStep index: Int) -> Reference? {
        switch port {
        case .input: steps[index].input
        case .mask: steps[index].mask?.reference
        case .parameter(let name): steps[index].filter.references.first { $0.parameter == name }?.reference
        }
    }

    /// Writes `reference` into a port (nil: an input back at its default, the step above).
    mutating func setReference(_ reference: Reference?, at port: StepPort, ofStep index: Int, file: String) throws(ChainError) {
        switch port {
        case .input:
            steps[index].input = reference
        case .mask:
            guard let reference, case .image(_, let channel, let placement)? = steps[index].mask?.shape else { return }
            steps[index].mask?.shape = .image(source: reference, channel: channel, placement: placement)
        case .parameter(let name):
            guard let reference else { return }
            try setParameter(at: index, name, to: JSONNode(.string(reference.text)), file: file)
        }
    }

    /// A node's key, and back (nil for a node the chain does not have).
    public func key(_ node: GraphNode) -> NodeKey {
        switch node {
        case .source: .source
        case .image(let i): .image(images[i].id.uppercased())
        case .step(let i): .step(steps[i].id.uppercased())
        }
    }

    public func node(_ key: NodeKey) -> GraphNode? {
        switch key {
        case .source: .source
        case .image(let id): images.firstIndex { $0.id.uppercased() == id }.map { .image($0) }
        case .step(let id): steps.firstIndex { $0.id.uppercased() == id }.map { .step($0) }
        }
    }

    /// How messages name a node: "source", "image logo", "step 2 (glow)".
    public func title(_ key: NodeKey) -> String {
        switch node(key) {
        case .source: "source"
        case .image(let i): "image " + images[i].label
        case .step(let i): stepTitle(i)
        case nil: key.description
        }
    }

    /// Every wire, step by step, port by port.
    public var wires: [Wire] {
        steps.indices.flatMap { i in
            ports(ofStep: i).map { port -> Wire in
                guard let reference = reference(at: port, ofStep: i) else {
                    return Wire(step: i, port: port, reads: key(i == 0 ? .source : .step(i - 1)), implicit: true, reference: nil, later: nil)
                }
                let reads = resolve(reference, from: i).map(key)
                let later = reads == nil ? resolve(reference).map(key) : nil
                return Wire(step: i, port: port, reads: reads, implicit: false, reference: reference, later: later)
            }
        }
    }

    /// What each step reads, by step id (in capitals): port -> node. A port whose reference
    /// names nothing it may read is left out (kept as written by every edit).
    typealias Wiring = [String: [StepPort: NodeKey]]

    func wiring() -> Wiring {
        var desired = Wiring(uniqueKeysWithValues: steps.map { ($0.id.uppercased(), [:]) })
        for wire in wires { desired[steps[wire.step].id.uppercased()]![wire.port] = wire.reads }
        return desired
    }

    /// The steps each step reads (ids), from a wiring.
    static func dependencies(_ desired: Wiring) -> [String: Set<String>] {
        desired.mapValues { ports in
            Set(ports.values.compactMap { if case .step(let id) = $0 { id } else { nil } })
        }
    }

    /// An order of the steps in which every step comes after the steps it reads, as close to
    /// `ids` (the current order) as can be: each time, the first step in the current order
    /// whose steps are all placed. Nil when the reads make a cycle.
    static func stableOrder(_ ids: [String], _ deps: [String: Set<String>]) -> [String]? {
        var placed = Set<String>()
        var order: [String] = []
        while order.count < ids.count {
            guard let next = ids.first(where: { !placed.contains($0) && deps[$0, default: []].isSubset(of: placed) }) else { return nil }
            placed.insert(next)
            order.append(next)
        }
        return order
    }

    /// A path of reads from step `from` to step `to` (ids): from reads a, a reads b, ... to.
    static func readPath(_ deps: [String: Set<String>], from: String, to: String) -> [String]? {
        var previous: [String: String?] = [from: nil]
        var queue = [from]
        while !queue.isEmpty {
            let id = queue.removeFirst()
            if id == to {
                var path: [String] = []
                var at: String? = to
                while let a = at { path.insert(a, at: 0); at = previous[a] ?? nil }
                return path
            }
            for d in deps[id, default: []].sorted() where previous[d] == nil { previous[d] = id; queue.append(d) }
        }
        return nil
    }

    /// How a reference to `key` is written: "source", else the image's or step's name, else its id.
    func referenceText(_ key: NodeKey) -> Reference {
        switch node(key) {
        case .image(let i): Reference(images[i].name ?? images[i].id)
        case .step(let i): Reference(steps[i].name ?? steps[i].id)
        default: .source
        }
    }

    /// Puts the steps in `order` (ids) and makes every port read what `desired` says. A
    /// reference that still names the right node is kept as written; otherwise it is written
    /// anew, and an input that is the step above is left out. Steps in `touched` (moved, or
    /// rewired on purpose) also lose an input that names the step above, since it is the default.
    mutating func apply(order: [String], _ desired: Wiring, touched: Set<String>, file: String) throws(ChainError) {
        let byID = Dictionary(uniqueKeysWithValues: steps.map { ($0.id.uppercased(), $0) })
        steps = order.map { byID[$0]! }
        for j in steps.indices {
            let id = steps[j].id.uppercased()
            for port in ports(ofStep: j) {
                guard let want = desired[id]?[port] else { continue }
                let written = reference(at: port, ofStep: j)
                let above = key(j == 0 ? .source : .step(j - 1))
                let now = written.map { resolve($0, from: j).map(key) } ?? above
                let isDefault = port == .input && want == above
                if now == want {
                    if isDefault, written != nil, touched.contains(id) { steps[j].input = nil }
                    continue
                }
                try setReference(isDefault ? nil : referenceText(want), at: port, ofStep: j, file: file)
            }
        }
    }

    /// The index of the step with id `id` (in any case).
    public func index(ofStep id: String, file: String) throws(ChainError) -> Int {
        guard let i = steps.firstIndex(where: { $0.id.uppercased() == id.uppercased() }) else {
            throw ChainError(file: file, problem: .graphEdit("refused: no step has the id \(id)"))
        }
        return i
    }

    func checkPort(_ port: StepPort, ofStep index: Int, file: String) throws(ChainError) {
        guard ports(ofStep: index).contains(port) else {
            throw ChainError(file: file, path: "filters[\(index)]", problem: .graphEdit(
                "refused: \(stepTitle(index)) has no port \(port); it has " + ports(ofStep: index).map(\.description).joined(separator: ", ")))
        }
    }

    /// Wires node `from` to `port` of the step with id `id`, moving steps (as few as it can)
    /// so that every step reads only steps above it. Refused, with the reads named, when the
    /// wire would make a cycle. Returns true when steps moved.
    @discardableResult
    public mutating func connect(_ from: NodeKey, toStep id: String, port: StepPort, file: String) throws(ChainError) -> Bool {
        let index = try index(ofStep: id, file: file)
        try checkPort(port, ofStep: index, file: file)
        let to = key(.step(index))
        guard node(from) != nil else { throw ChainError(file: file, problem: .graphEdit("refused: the chain has no node \(from)")) }
        guard from != to else { throw ChainError(file: file, problem: .graphEdit("refused: \(title(to)) cannot read itself")) }
        var desired = wiring()
        let toID = steps[index].id.uppercased()
        desired[toID]![port] = from
        let ids = steps.map { $0.id.uppercased() }
        let deps = Self.dependencies(desired)
        guard let order = Self.stableOrder(ids, deps) else {
            // The new wire closes a loop: `from` already reads, through others, the step it would feed.
            guard case .step(let fromID) = from else { preconditionFailure("only a step can read another") }
            let path = Self.readPath(deps, from: fromID, to: toID) ?? [fromID, toID]
            let names = path.map { title(.step($0)) }
            let reads = zip(names, names.dropFirst()).map { "\($0) reads \($1)" }.joined(separator: ", ")
            throw ChainError(file: file, problem: .graphEdit("refused: a wire from \(title(from)) to the \(port) of \(title(to)) would make a cycle: "
                + "\(reads), and \(title(to)) would read \(title(from))"))
        }
        var copy = self
        let touched = Set([toID] + zip(order, ids).filter { $0 != $1 }.map(\.0))
        try copy.apply(order: order, desired, touched: touched, file: file)
        self = copy
        return order != ids
    }

    /// Puts `port` of the step with id `id` back at its default: the step above for an
    /// input. A layer or an image mask's source has none, so that is refused.
    public mutating func disconnect(step id: String, port: StepPort, file: String) throws(ChainError) {
        let index = try index(ofStep: id, file: file)
        try checkPort(port, ofStep: index, file: file)
        guard port == .input else {
            throw ChainError(file: file, problem: .graphEdit("refused: the \(port) of \(stepTitle(index)) is required; wire another node to it instead"))
        }
        guard steps[index].input != nil else {
            throw ChainError(file: file, problem: .graphEdit("the input of \(stepTitle(index)) is already the default, the step above it"))
        }
        steps[index].input = nil
    }

    /// Puts `step` at `index` in the list, its ports reading `reads`, the ports in `feeds`
    /// reading it, and every other step reading what it read.
    public mutating func insert(_ step: Step, at index: Int, reads: [StepPort: NodeKey] = [:],
                                feeds: [(step: String, port: StepPort)] = [], file: String) throws(ChainError) {
        guard (0...steps.count).contains(index) else {
            throw ChainError(file: file, problem: .notAllowed("index \(index)", allowed: "0...\(steps.count)", suggestion: nil))
        }
        var desired = wiring()
        let ids = steps.map { $0.id.uppercased() }
        let id = step.id.uppercased()
        guard !ids.contains(id) else { throw ChainError(file: file, problem: .duplicateID(step.id, first: "a step of the chain")) }
        for f in feeds {
            let i = try self.index(ofStep: f.step, file: file)
            try checkPort(f.port, ofStep: i, file: file)
            desired[steps[i].id.uppercased()]![f.port] = .step(id)
        }
        desired[id] = reads
        var copy = self
        copy.steps.append(step)
        var order = ids
        order.insert(id, at: index)
        try copy.apply(order: order, desired, touched: Set([id] + feeds.map { $0.step.uppercased() }), file: file)
        try copy.checkGraph(file: file)
        self = copy
    }

    /// Removes the step at `index`; whatever read it (by a reference or as the step above)
    /// reads what its input read instead.
    public mutating func removeStepRewiring(at index: Int, file: String) throws(ChainError) {
        try checkIndex(index, file: file)
        var desired = wiring()
        let id = steps[index].id.uppercased()
        let through = desired[id]![.input]
        let gone = NodeKey.step(id)
        for (other, ports) in desired where other != id {
            for (port, reads) in ports where reads == gone { desired[other]![port] = through }
        }
        desired[id] = nil
        let order = steps.map { $0.id.uppercased() }.filter { $0 != id }
        let touched = Set(order.filter { through != nil && desired[$0]!.values.contains(through!) })
        var copy = self
        try copy.apply(order: order, desired, touched: touched, file: file)
        copy.layout[steps[index].id] = nil
        self = copy
    }

    /// Names the step at `index` (nil: no name); the references that named it by its old name
    /// follow (to its id when it has no name any more).
    public mutating func rename(stepAt index: Int, to name: String?, file: String) throws(ChainError) {
        try checkIndex(index, file: file)
        var copy = self
        let old = steps[index].name
        copy.steps[index].name = name
        if let old, old != name {
            for j in copy.steps.indices {
                for port in copy.ports(ofStep: j) where copy.reference(at: port, ofStep: j)?.text == old {
                    try copy.setReference(Reference(name ?? steps[index].id), at: port, ofStep: j, file: file)
                }
            }
        }
        try copy.checkIdentities(file: file)
        self = copy
    }
}
