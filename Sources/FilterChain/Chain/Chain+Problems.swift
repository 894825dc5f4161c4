extension Chain {
    /// Every independent problem of a chain file, up to `limit`, each with its JSON path,
    /// line and column, in the order of the file: what `filterchain validate` reports.
    /// Empty when the file is valid (when `load` would succeed).
    ///
    /// Loading stops at the first problem; this goes on. Top-level keys, the working space,
    /// each image and each step are checked on their own, and inside a step each parameter
    /// on its own: after a problem, the member it is about is left out and the step read
    /// again, so the next problem found is another one. What follows from a member left out
    /// is not reported (a required parameter then missing, a rule across parameters). The
    /// graph (references, names against ids) is checked once the rest is valid: a reference
    /// to a step with a problem of its own would say nothing new. A file that is not JSON
    /// has one problem, where the JSON stops.
    public static func problems(file path: String, limit: Int = 20) -> [ChainError] {
        let bytes: [UInt8]
        do throws(ReadError) { bytes = try readFile(path) } catch {
            return [ChainError(file: path, problem: .unreadable(error.why))]
        }
        return problems(in: bytes, file: path, limit: limit)
    }

    /// Every independent problem of chain JSON, as `problems(file:limit:)`; `file` names it.
    public static func problems(in bytes: [UInt8], file: String, limit: Int = 20) -> [ChainError] {
        let root: JSONNode
        do throws(JSONSyntaxError) { root = try JSONParser.parse(bytes) } catch {
            return [ChainError(file: file, line: error.line, column: error.column, problem: .syntax(error.message))]
        }
        let decoder = ChainDecoder(file: file)
        let first: ChainError
        do throws(ChainError) { _ = try decoder.chain(root); return [] } catch { first = error }
        var collector = ProblemCollector(decoder: decoder, limit: max(1, limit))
        // In the file's order (a stable sort: problems at one place keep the order found).
        let found = collector.problems(root).enumerated().sorted {
            ($0.element.line ?? 0, $0.element.column ?? 0, $0.offset) < ($1.element.line ?? 0, $1.element.column ?? 0, $1.offset)
        }.map(\.element)
        // Whatever the collector does not reach, the decoder's own first problem stands.
        return found.isEmpty ? [first] : found
    }
}

/// Goes through a chain file's JSON piece by piece, gathering each piece's problems.
struct ProblemCollector {
    let decoder: ChainDecoder
    let limit: Int
    private(set) var found: [ChainError] = []

    init(decoder: ChainDecoder, limit: Int) {
        self.decoder = decoder
        self.limit = limit
    }

    var full: Bool { found.count >= limit }

    mutating func add(_ error: ChainError) {
        if !full { found.append(error) }
    }

    mutating func problems(_ root: JSONNode) -> [ChainError] {
        guard case .object(let top) = root.value else { return [] }
        // The version decides which keys there are; an unknown one makes the rest unknowable.
        guard let version = version(top, root) else { return found }
        checkTopKeys(top, version: version)
        if let space = top.first(where: { $0.key == "workingSpace" })?.value {
            // The working space alone, in a chain of no steps.
            let alone = JSONNode(.object([("version", JSONNode(.number(Double(version)))), ("workingSpace", space),
                                          ("filters", JSONNode(.array([])))]), line: root.line, column: root.column)
            do throws(ChainError) { _ = try decoder.chain(alone) } catch { add(error) }
        }
        var identities = Identities(reserveSource: version == 2)
        var chain = Chain()
        var complete = found.isEmpty
        var variableNames: [String] = []
        if version == 2, let list = top.first(where: { $0.key == "variables" })?.value {
            variableNames = readVariables(list, complete: &complete)
        }
        if version == 2, let list = top.first(where: { $0.key == "images" })?.value {
            chain.images = readImages(list, identities: &identities, complete: &complete)
        }
        guard let filters = top.first(where: { $0.key == "filters" })?.value else {
            add(decoder.fail("", root, .missingKey("filters")))
            return found
        }
        guard case .array(let items) = filters.value else {
            add(decoder.fail("filters", filters, .wrongType(expected: "an array", found: filters.typeName)))
            return found
        }
        chain.steps = readSteps(items, version: version, variables: variableNames, identities: &identities, complete: &complete)
        // The graph, once every piece is known and valid.
        if complete && found.isEmpty {
            do throws(ChainError) { try chain.checkGraph(file: decoder.file) } catch {
                add(decoder.fail(error.path, root.node(at: error.path) ?? root, error.problem))
            }
        }
        return found
    }

    /// The file's version (1 when it has none: that is a problem of its own); nil when it is
    /// not a number (a problem), or a number other than 1 and 2 (the rest is then unknowable).
    private mutating func version(_ top: [(key: String, value: JSONNode)], _ root: JSONNode) -> Int? {
        guard let v = top.first(where: { $0.key == "version" })?.value else {
            add(decoder.fail("", root, .missingKey("version")))
            return 1
        }
        guard case .number(let n) = v.value else {
            add(decoder.fail("version", v, .wrongType(expected: "the number 1 or 2", found: v.typeName)))
            return nil
        }
        return n == 1 || n == 2 ? Int(n) : nil
    }

    /// Keys a file of `version` does not have.
    private mutating func checkTopKeys(_ top: [(key: String, value: JSONNode)], version: Int) {
        let allowed = ChainDecoder.topKeys[version]!
        for (key, value) in top where !allowed.contains(key) {
            add(decoder.fail(key, value, version == 1 && ChainDecoder.topKeys[2]!.contains(key)
                ? .needsVersion2("\"\(key)\"")
                : .unknownKey(key, suggestion: closestMatch(key, in: allowed), allowed: allowed)))
        }
    }

    /// The variables' first problem, and every name declared: a step reading one whose own
    /// value has a problem is not blamed for it again.
    private mutating func readVariables(_ list: JSONNode, complete: inout Bool) -> [String] {
        var names: [String] = []
        if case .array(let items) = list.value {
            names = items.compactMap { item in
                guard case .string(let name)? = item.member("name")?.value else { return nil }
                return name
            }
        }
        do throws(ChainError) {
            var variables = Chain()
            variables.variables = try decoder.variables(list)
            _ = try variables.variableValues(file: decoder.file)
        } catch {
            add(error)
            complete = false
        }
        return names
    }

    /// Each image's problems; the images that read (their ids and names claimed).
    private mutating func readImages(_ list: JSONNode, identities: inout Identities, complete: inout Bool) -> [ChainImage] {
        guard case .array(let items) = list.value else {
            add(decoder.fail("images", list, .wrongType(expected: "an array", found: list.typeName)))
            complete = false
            return []
        }
        let decoder = self.decoder
        var images: [ChainImage] = []
        for (i, item) in items.enumerated() where !full {
            let path = "images[\(i)]"
            var placeholderID = false
            let before = found.count
            guard let image = read(item, path, { node throws(ChainError) in try decoder.image(node, path) },
                                   placeholderID: &placeholderID) else {
                complete = false
                continue
            }
            if found.count > before { complete = false }
            if !placeholderID { claim(&identities, image.id, image.name, item, path, .image(i)) }
            images.append(image)
        }
        return images
    }

    /// Each step's problems; the steps that read (with members left out: their ids and names
    /// still count).
    private mutating func readSteps(_ items: [JSONNode], version: Int, variables: [String], identities: inout Identities,
                                    complete: inout Bool) -> [Step] {
        let decoder = self.decoder
        var steps: [Step] = []
        for (i, item) in items.enumerated() where !full {
            let path = "filters[\(i)]"
            var placeholderID = false
            let before = found.count
            guard let step = read(item, path, { node throws(ChainError) in
                try decoder.step(node, path, version: version, variables: variables).step
            }, placeholderID: &placeholderID) else {
                complete = false
                continue
            }
            if found.count > before { complete = false }
            if !placeholderID { claim(&identities, step.id, step.name, item, path, .step(i)) }
            steps.append(step)
        }
        return steps
    }

    private mutating func claim(_ identities: inout Identities, _ id: String, _ name: String?, _ item: JSONNode,
                                _ path: String, _ node: GraphNode) {
        guard let (key, problem) = identities.claim(id, name, node) else { return }
        add(decoder.fail(path + "." + key, item.member(key) ?? item, problem))
    }

    /// Reads a step (or an image) again and again, each time without the member the last
    /// problem was about, until it reads or a problem leaves nothing more to learn. The
    /// value when it finally reads (with members left out, it is only good for its id and
    /// name), or nil.
    private mutating func read<T>(_ item: JSONNode, _ path: String, _ decode: (JSONNode) throws(ChainError) -> T,
                                  placeholderID: inout Bool) -> T? {
        var node = item
        var leftOut: Set<String> = []
        var problems = 0
        while !full && problems <= 64 {
            let error: ChainError
            do throws(ChainError) { return try decode(node) } catch let e { error = e }
            // What only follows from a parameter left out: no news.
            if !leftOut.isEmpty {
                if case .combination = error.problem, error.path.hasPrefix(path + ".parameters") { return nil }
                if case .missingKey(let key) = error.problem, leftOut.contains(key) { return nil }
            }
            add(error)
            problems += 1
            let rest = error.path.hasPrefix(path) ? String(error.path.dropFirst(path.count)) : ""
            if case .missingKey("id") = error.problem, rest.isEmpty {
                // Read on with a stand-in id (not claimed: it is no one's).
                node = node.setting(["id"], to: JSONNode(.string("00000000-0000-4000-8000-000000000000")))
                placeholderID = true
                continue
            }
            let parts = Self.components(rest)
            guard let first = parts.first else { return nil }
            switch first {
            case "parameters":
                // One parameter is left out; a problem with the parameters together (or their
                // JSON type) ends the step.
                guard parts.count > 1, let parameters = node.member("parameters") else { return nil }
                node = node.setting(["parameters"], to: parameters.removing(parts[1]))
                leftOut.insert(parts[1])
            case "id":
                node = node.setting(["id"], to: JSONNode(.string("00000000-0000-4000-8000-000000000000")))
                placeholderID = true
            case "type":
                return nil
            default:
                // An unknown key, a name or flag of the wrong type, the input, the mask.
                guard node.member(first) != nil else { return nil }
                node = node.removing(first)
                leftOut.insert(first)
            }
        }
        return nil
    }

    /// ".parameters.points[2]" as ["parameters", "points", "2"].
    static func components(_ path: String) -> [String] {
        path.split(whereSeparator: { $0 == "." || $0 == "[" || $0 == "]" }).map(String.init)
    }
}

extension JSONNode {
    /// A copy of an object without its member `key`.
    func removing(_ key: String) -> JSONNode {
        guard case .object(let members) = value else { return self }
        return JSONNode(.object(members.filter { $0.key != key }), line: line, column: column)
    }
}
