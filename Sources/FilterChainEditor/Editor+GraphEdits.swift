import FilterChain
import Foundation

/// The graph view's edits and wires. The page holds no graph model of its own: it asks the
/// library's (Chain+Wiring.swift) here and draws what it answers.
extension Editor {
    /// Makes one graph edit of the page's chain, without keeping it: the page takes the
    /// answer's chain as an edit of its own (undo, then PUT). The body is
    /// `{"chain": {...}, "edit": {"op": ..., ...}}`; the ops:
    ///
    /// - `connect` `from` (a node: "source", "image:ID", "step:ID"), `step` (an id), `port`;
    /// - `disconnect` `step`, `port`: the port back at its default, the step above;
    /// - `insert` `step` (a step object), `at` (its index), `reads` ({port: node}), `feeds`
    ///   ([{"step", "port"}]): the steps in `feeds` read the new step;
    /// - `remove` `step`: what read it reads its input;
    /// - `rename` `step`, `name` (null: none): references follow the new name;
    /// - `move` `from`, `to` (indices): refused when a step would read one below it.
    ///
    /// The answer: `{"chain": {...}, "moved": bool, "graph": {...}}` (`graphJSON`); a refusal
    /// is a 422 whose `message` says why ("refused: ... would make a cycle: ...").
    public func graphEdit(_ body: [UInt8]) throws -> JSONNode {
        let root: JSONNode
        do { root = try JSONParser.parse(body) } catch {
            throw EditorError(status: 400, "the body is not JSON: \(error.message)")
        }
        guard let chainNode = root.member("chain"), let edit = root.member("edit"),
              case .string(let op)? = edit.member("op")?.value else {
            throw EditorError(status: 400, "the body must be {\"chain\": {...}, \"edit\": {\"op\": ...}}")
        }
        var chain = try pageChain(chainNode)
        var moved = false
        do {
            switch op {
            case "connect":
                guard let from = NodeKey(try Self.text(edit, "from")) else {
                    throw EditorError(status: 400, "from: a node is \"source\", \"image:ID\" or \"step:ID\"")
                }
                moved = try chain.connect(from, toStep: try Self.text(edit, "step"), port: StepPort(try Self.text(edit, "port")), file: chainPath)
            case "disconnect":
                try chain.disconnect(step: try Self.text(edit, "step"), port: StepPort(try Self.text(edit, "port")), file: chainPath)
            case "insert":
                try insert(into: &chain, edit)
            case "remove":
                try chain.removeStepRewiring(at: try chain.index(ofStep: try Self.text(edit, "step"), file: chainPath), file: chainPath)
            case "rename":
                let index = try chain.index(ofStep: try Self.text(edit, "step"), file: chainPath)
                let name = edit.member("name").flatMap { if case .string(let s) = $0.value, !s.isEmpty { s } else { nil } }
                try chain.rename(stepAt: index, to: name, file: chainPath)
            case "move":
                try chain.moveStep(from: try Self.whole(edit, "from"), to: try Self.whole(edit, "to"), file: chainPath)
            default:
                throw EditorError(status: 400, "op: '\(op)' is not allowed; allowed: connect, disconnect, insert, remove, rename, move")
            }
        } catch let error as ChainError {
            throw EditorError(chainError: error, status: 422)
        }
        return JSONNode(.object([("chain", chain.jsonNode), ("moved", JSONNode(.bool(moved))), ("graph", Self.graphJSON(chain))]))
    }

    /// The page's chain, read as the chain file is (a version 1 chain that needs version 2 is
    /// read as version 2: the page does not track versions).
    func pageChain(_ node: JSONNode) throws -> Chain {
        do { return try Chain.parse(Array(JSONWriter.compact(node).utf8), file: chainPath, upgrading: true) } catch {
            throw EditorError(chainError: error, status: 422)
        }
    }

    /// `insert`: the step object is read as a chain file's step is (by reading the chain with
    /// it at the end), then put in its place.
    private func insert(into chain: inout Chain, _ edit: JSONNode) throws {
        guard let stepNode = edit.member("step") else { throw EditorError(status: 400, "step: missing; give the new step's object") }
        var withStep = chain.jsonNode
        if case .object(var top) = withStep.value, let f = top.firstIndex(where: { $0.key == "filters" }),
           case .array(var steps) = top[f].value.value {
            steps.append(stepNode)
            top[f].value = JSONNode(.array(steps))
            top.removeAll { $0.key == "version" }
            top.insert(("version", JSONNode(.number(2))), at: 0)
            withStep = JSONNode(.object(top))
        }
        var read = try pageChain(withStep)
        let step = read.steps.removeLast()
        var reads: [StepPort: NodeKey] = [:]
        if case .object(let list)? = edit.member("reads")?.value {
            for (port, node) in list {
                guard case .string(let text) = node.value, let key = NodeKey(text) else {
                    throw EditorError(status: 400, "reads.\(port): a node is \"source\", \"image:ID\" or \"step:ID\"")
                }
                reads[StepPort(port)] = key
            }
        }
        var feeds: [(step: String, port: StepPort)] = []
        if case .array(let list)? = edit.member("feeds")?.value {
            for feed in list { feeds.append((try Self.text(feed, "step"), StepPort(try Self.text(feed, "port")))) }
        }
        let at = try Self.whole(edit, "at")
        do throws(ChainError) { try chain.insert(step, at: at, reads: reads, feeds: feeds, file: chainPath) } catch {
            throw EditorError(chainError: error, status: 422)
        }
        chain.layout[step.id] = read.layout[step.id]
    }

    /// What the graph view draws, from the library's model: every wire
    /// (`{"step": ID, "index", "port", "reads": node or null, "implicit", "reference", "later"}`)
    /// and every step's ports (`{ID: ["input", "layer", "mask"]}`).
    public static func graphJSON(_ chain: Chain) -> JSONNode {
        let wires = chain.wires.map { w in
            JSONNode(.object([
                ("step", JSONNode(.string(chain.steps[w.step].id.uppercased()))),
                ("index", JSONNode(.number(Double(w.step)))),
                ("port", JSONNode(.string(w.port.description))),
                ("reads", w.reads.map { JSONNode(.string($0.description)) } ?? JSONNode(.null)),
                ("implicit", JSONNode(.bool(w.implicit))),
                ("reference", w.reference.map { JSONNode(.string($0.text)) } ?? JSONNode(.null)),
                ("later", w.later.map { JSONNode(.string($0.description)) } ?? JSONNode(.null)),
            ]))
        }
        let ports = chain.steps.indices.map { i in
            (key: chain.steps[i].id.uppercased(), value: JSONNode(.array(chain.ports(ofStep: i).map { JSONNode(.string($0.description)) })))
        }
        return JSONNode(.object([("wires", JSONNode(.array(wires))), ("ports", JSONNode(.object(ports)))]))
    }

    /// `{"chain": ..., "graph": ...}`: a chain's JSON and what the graph view draws of it.
    static func withGraph(_ chain: Chain) -> JSONNode {
        JSONNode(.object([("chain", chain.jsonNode), ("graph", graphJSON(chain))]))
    }

    static func text(_ node: JSONNode, _ key: String) throws -> String {
        guard case .string(let s)? = node.member(key)?.value else { throw EditorError(status: 400, "\(key): missing; give a string") }
        return s
    }

    static func whole(_ node: JSONNode, _ key: String) throws -> Int {
        guard case .number(let n)? = node.member(key)?.value, n == n.rounded(), abs(n) < 1e9 else {
            throw EditorError(status: 400, "\(key): missing; give a whole number")
        }
        return Int(n)
    }
}
