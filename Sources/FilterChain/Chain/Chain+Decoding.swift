#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Chain {
    /// Reads and validates a chain file.
    public static func load(_ path: String) throws(ChainError) -> Chain {
        let bytes: [UInt8]
        do throws(ReadError) { bytes = try readFile(path) } catch { throw ChainError(file: path, problem: .unreadable(error.why)) }
        return try parse(bytes, file: path)
    }

    /// Parses and validates chain JSON; `file` names it in errors.
    public static func parse(_ bytes: [UInt8], file: String) throws(ChainError) -> Chain {
        let root: JSONNode
        do throws(JSONSyntaxError) { root = try JSONParser.parse(bytes) } catch {
            throw ChainError(file: file, line: error.line, column: error.column, problem: .syntax(error.message))
        }
        var decoder = ChainDecoder(file: file)
        decoder.source = bytes
        return try decoder.chain(root)
    }

    /// As `parse`, except that with `upgrading` a version 1 chain that uses what only
    /// version 2 says is read as version 2: for an editor, whose edits (a wire, a variable,
    /// a mask) may make a chain need version 2. `jsonNode` writes the version a chain needs.
    public static func parse(_ bytes: [UInt8], file: String, upgrading: Bool) throws(ChainError) -> Chain {
        do { return try parse(bytes, file: file) } catch {
            guard upgrading, case .needsVersion2 = error.problem, let root = try? JSONParser.parse(bytes),
                  root.member("version")?.value == .number(1) else { throw error }
            return try parse(Array(JSONWriter.pretty(root.setting(["version"], to: JSONNode(.number(2)))).utf8), file: file)
        }
    }

    struct ReadError: Error { var why: String }

    static func readFile(_ path: String) throws(ReadError) -> [UInt8] {
        var st = stat()
        guard stat(path, &st) == 0 else {
            throw ReadError(why: errno == ENOENT ? "no such file" : String(cString: strerror(errno)))
        }
        if (st.st_mode & S_IFMT) == S_IFDIR { throw ReadError(why: "is a directory") }
        guard let f = fopen(path, "rb") else { throw ReadError(why: String(cString: strerror(errno))) }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&chunk, 1, chunk.count, f)
            if n > 0 { bytes.append(contentsOf: chunk[0..<n]) }
            if n < chunk.count {
                if ferror(f) != 0 { throw ReadError(why: String(cString: strerror(errno))) }
                break
            }
        }
        if bytes.isEmpty { throw ReadError(why: "the file is empty") }
        return bytes
    }
}

/// Walks the JSON tree, turning every problem into a ChainError with its path and position.
struct ChainDecoder {
    let file: String
    /// The chain file's folder, and whether files it names (images, .cube LUTs) are read.
    var context: ParameterContext
    /// The file's bytes, for the column of a character inside a string (an expression's).
    var source: [UInt8]?

    init(file: String, context: ParameterContext? = nil) {
        self.file = file
        self.context = context ?? ParameterContext(chainFile: file)
    }

    func fail(_ path: String, _ node: JSONNode, _ problem: ChainError.Problem) -> ChainError {
        ChainError(file: file, path: path, line: node.line, column: node.column, problem: problem)
    }

    /// The object's members, refusing keys not in `allowed`.
    func members(_ node: JSONNode, _ path: String, allowed: [String]) throws(ChainError) -> [String: JSONNode] {
        guard case .object(let list) = node.value else {
            throw fail(path, node, .wrongType(expected: "an object", found: node.typeName))
        }
        var result: [String: JSONNode] = [:]
        for (key, value) in list {
            guard allowed.contains(key) else {
                throw fail(path.isEmpty ? key : path + "." + key, value,
                           .unknownKey(key, suggestion: closestMatch(key, in: allowed), allowed: allowed))
            }
            result[key] = value
        }
        return result
    }

    func required(_ members: [String: JSONNode], _ key: String, _ path: String, _ node: JSONNode) throws(ChainError) -> JSONNode {
        guard let value = members[key] else { throw fail(path, node, .missingKey(key)) }
        return value
    }

    func string(_ node: JSONNode, _ path: String) throws(ChainError) -> String {
        guard case .string(let s) = node.value else {
            throw fail(path, node, .wrongType(expected: "a string", found: node.typeName))
        }
        return s
    }

    /// The top-level keys of each version, and a step's.
    static let topKeys = [1: ["version", "workingSpace", "filters"], 2: ["version", "workingSpace", "variables", "images", "filters"]]
    static let stepKeys = [1: ["id", "type", "name", "enabled", "parameters"],
                           2: ["id", "type", "name", "enabled", "input", "mask", "parameters", "layout"]]

    /// The object's members for a file of `version`: a key only version 2 knows, in a
    /// version 1 file, is refused with a message that says to set version 2.
    func members(_ node: JSONNode, _ path: String, keys: [Int: [String]], version: Int) throws(ChainError) -> [String: JSONNode] {
        if version == 1, case .object(let list) = node.value,
           let (key, value) = list.first(where: { !keys[1]!.contains($0.key) && keys[2]!.contains($0.key) }) {
            throw fail(path.isEmpty ? key : path + "." + key, value, .needsVersion2("\"\(key)\""))
        }
        return try members(node, path, allowed: keys[version]!)
    }

    func chain(_ root: JSONNode) throws(ChainError) -> Chain {
        // The version says which keys there are; one that is not 1 or 2 is refused first.
        var version = 1
        if case .object(let list) = root.value, let v = list.first(where: { $0.key == "version" })?.value,
           case .number(let n) = v.value {
            guard n == 1 || n == 2 else { throw fail("version", v, .unsupportedVersion(JSONWriter.number(n))) }
            version = Int(n)
        }
        let top = try members(root, "", keys: Self.topKeys, version: version)
        let versionNode = try required(top, "version", "", root)
        guard case .number = versionNode.value else {
            throw fail("version", versionNode, .wrongType(expected: "the number 1 or 2", found: versionNode.typeName))
        }
        var chain = Chain()
        if let space = top["workingSpace"] {
            let s = try string(space, "workingSpace")
            guard let ws = WorkingSpace(rawValue: s) else {
                let options = WorkingSpace.allCases.map(\.rawValue)
                throw fail("workingSpace", space, .notAllowed("\"\(s)\"", allowed: ParameterKind.choice(options).allowed,
                                                             suggestion: closestMatch(s, in: options)))
            }
            chain.workingSpace = ws
        }
        if let list = top["variables"] {
            chain.variables = try variables(list)
            // Their values (an expression's range), before the steps that read them.
            _ = try chain.variableValues(file: file)
        }
        // Ids (any case) and names, unique across images and steps, as each is read.
        var identities = Identities(reserveSource: version == 2)
        func claim(_ id: String, _ name: String?, _ item: JSONNode, _ path: String, _ node: GraphNode) throws(ChainError) {
            guard let (key, problem) = identities.claim(id, name, node) else { return }
            let m = try? members(item, "", allowed: Self.stepKeys[2]! + ["file"])
            throw fail(path + "." + key, m?[key] ?? item, problem)
        }
        if let list = top["images"] {
            guard case .array(let items) = list.value else {
                throw fail("images", list, .wrongType(expected: "an array", found: list.typeName))
            }
            for (i, item) in items.enumerated() {
                let image = try self.image(item, "images[\(i)]")
                try claim(image.id, image.name, item, "images[\(i)]", .image(i))
                chain.images.append(image)
            }
        }
        let filters = try required(top, "filters", "", root)
        guard case .array(let items) = filters.value else {
            throw fail("filters", filters, .wrongType(expected: "an array", found: filters.typeName))
        }
        for (i, item) in items.enumerated() {
            let (step, layout) = try self.step(item, "filters[\(i)]", version: version, variables: chain.variables.map(\.name))
            chain.steps.append(step)
            chain.layout[step.id] = layout
            try claim(step.id, step.name, item, "filters[\(i)]", .step(i))
        }
        // References, once every step is known (a reference to a later one says which it is).
        do throws(ChainError) { try chain.checkGraph(file: file) } catch {
            let node = root.node(at: error.path) ?? root
            throw fail(error.path, node, error.problem)
        }
        // What the variables and the expressions that read no size take, known now.
        try chain.checkExpressions(file: file)
        chain.file = file
        return chain
    }

    /// "variables": each { name, value (a number or an expression over the variables above
    /// it), min, max, help, layout }, names unique and not reserved, a number value within the range.
    func variables(_ list: JSONNode) throws(ChainError) -> [ChainVariable] {
        guard case .array(let items) = list.value else {
            throw fail("variables", list, .wrongType(expected: "an array", found: list.typeName))
        }
        // Every name first, so that reading a later one says it is declared below.
        let names = items.map { item -> String? in
            if case .object(let members) = item.value, case .string(let name)? = members.first(where: { $0.key == "name" })?.value.value {
                return name
            }
            return nil
        }
        var result: [ChainVariable] = []
        for (k, item) in items.enumerated() {
            let path = "variables[\(k)]"
            let m = try members(item, path, allowed: ["name", "value", "min", "max", "help", "layout"])
            let nameNode = try required(m, "name", path, item)
            let name = try string(nameNode, path + ".name")
            if let why = ChainVariable.problem(withName: name) { throw fail(path + ".name", nameNode, .variableName(name, why: why)) }
            if let first = result.firstIndex(where: { $0.name == name }) {
                throw fail(path + ".name", nameNode, .duplicateVariable(name, first: first))
            }
            var bounds: [Double?] = [nil, nil]
            for (b, key) in ["min", "max"].enumerated() {
                guard let node = m[key] else { continue }
                guard case .number(let v) = node.value else {
                    throw fail(path + "." + key, node, .wrongType(expected: "a number", found: node.typeName))
                }
                bounds[b] = v
            }
            if let lo = bounds[0], let hi = bounds[1], lo > hi {
                throw fail(path + ".max", m["max"]!, .combination("max \(JSONWriter.number(hi)) is below min \(JSONWriter.number(lo)); min <= max"))
            }
            var help: String?
            if let h = m["help"] { help = try string(h, path + ".help") }
            var variable = ChainVariable(name: name, value: 0, minimum: bounds[0], maximum: bounds[1], help: help)
            if let l = m["layout"] {
                do throws(ParameterError) {
                    let v = try readNumbers(l, count: 2, in: NodePosition.range, what: "a position [x, y] in the editor's graph view")
                    variable.layout = NodePosition(v[0], v[1])
                } catch {
                    throw fail(path + ".layout" + error.subpath, error.node, error.problem)
                }
            }
            let valueNode = try required(m, "value", path, item)
            switch valueNode.value {
            case .number(let v):
                guard variable.allows(v) else {
                    throw fail(path + ".value", valueNode, .notAllowed(JSONWriter.number(v), allowed: variable.allowed, suggestion: nil))
                }
                variable.value = .number(v)
            case .string(let text) where NumberExpression.isExpression(text):
                variable.value = .expression(try expression(text, valueNode, path + ".value",
                                                            names: result.map(\.name) + NumberExpression.frameNames, later: names[(k + 1)...].compactMap { $0 },
                                                            reader: name))
            default:
                throw fail(path + ".value", valueNode, .wrongType(expected: "a number, or an expression starting with '='", found: valueNode.typeName))
            }
            result.append(variable)
        }
        return result
    }

    /// The expression written in the string `node`, located in the file; an error gives the
    /// column of the character it is about.
    func expression(_ text: String, _ node: JSONNode, _ path: String, names: [String], later: [String] = [],
                    reader: String? = nil) throws(ChainError) -> NumberExpression {
        let columns = JSONParser.stringColumns(source, line: node.line, quoteColumn: node.column, text: text)
        do throws(ExpressionError) {
            return try NumberExpression(text, names: names, laterNames: later, reader: reader).locating(line: node.line, quoteColumn: node.column, source: source)
        } catch {
            throw ChainError(file: file, path: path, line: node.line > 0 ? node.line : nil,
                             column: node.line > 0 ? columns[min(error.offset, columns.count - 1)] : nil,
                             problem: .expression(text, error))
        }
    }

    /// The parameters of a step that hold expressions, parsed (a version 1 file may not).
    func computedParameters(_ type: any Filter.Type, _ parameters: JSONNode, _ path: String, version: Int,
                            variables: [String]) throws(ChainError) -> [String: ComputedParameter] {
        let sites: [(name: String, sites: [(indices: [Int], node: JSONNode)])]
        do throws(ParameterError) { sites = try type.expressionSites(parameters) } catch {
            throw fail(path + ".parameters" + error.subpath, error.node, error.problem)
        }
        var computed: [String: ComputedParameter] = [:]
        for (name, list) in sites {
            var expressions: [(indices: [Int], expression: NumberExpression)] = []
            for (indices, node) in list {
                let where_ = path + ".parameters." + name + indexPath(indices)
                if version == 1 { throw fail(where_, node, .needsVersion2("an expression (a string starting with '=')")) }
                guard case .string(let text) = node.value else { continue }
                expressions.append((indices, try expression(text, node, where_, names: variables + NumberExpression.builtinNames)))
            }
            computed[name] = ComputedParameter(json: parameters.member(name)!, expressions: expressions)
        }
        return computed
    }

    /// An entry of "images": its id, optional name and file, read unless only checked.
    func image(_ node: JSONNode, _ path: String) throws(ChainError) -> ChainImage {
        let m = try members(node, path, allowed: ["id", "name", "file"])
        let idNode = try required(m, "id", path, node)
        let id = try string(idNode, path + ".id")
        guard UUID(uuidString: id) != nil else { throw fail(path + ".id", idNode, .invalidID(id)) }
        var name: String?
        if let n = m["name"] { name = try string(n, path + ".name") }
        let fileNode = try required(m, "file", path, node)
        let path0 = try string(fileNode, path + ".file")
        var image = ChainImage(id: id, name: name, file: path0)
        if context.readsFiles {
            do throws(ImageFileError) { try image.load(relativeTo: context.directory) } catch {
                throw fail(path + ".file", fileNode, .imageFile(file: path0, reason: error.reason))
            }
        }
        return image
    }

    /// A step of "filters", and where the editor draws it (its "layout", when given).
    func step(_ node: JSONNode, _ path: String, version: Int, variables: [String] = []) throws(ChainError)
        -> (step: Step, layout: NodePosition?) {
        let m = try members(node, path, keys: Self.stepKeys, version: version)
        let idNode = try required(m, "id", path, node)
        let id = try string(idNode, path + ".id")
        guard UUID(uuidString: id) != nil else { throw fail(path + ".id", idNode, .invalidID(id)) }
        let typeNode = try required(m, "type", path, node)
        let typeName = try string(typeNode, path + ".type")
        guard let type = FilterRegistry.type(named: typeName) else {
            let known = FilterRegistry.names
            throw fail(path + ".type", typeNode, .unknownFilterType(typeName, suggestion: FilterRegistry.closestName(to: typeName), known: known))
        }
        if version == 1, type.info.parameters.contains(where: { $0.kind == .reference }) {
            throw fail(path + ".type", typeNode, .needsVersion2("the \(typeName) filter"))
        }
        var name: String?
        if let n = m["name"] { name = try string(n, path + ".name") }
        var enabled = true
        if let e = m["enabled"] {
            guard case .bool(let b) = e.value else {
                throw fail(path + ".enabled", e, .wrongType(expected: "true or false", found: e.typeName))
            }
            enabled = b
        }
        var input: Reference?
        if let i = m["input"] {
            let text = try string(i, path + ".input")
            guard !text.isEmpty else {
                throw fail(path + ".input", i, .wrongType(expected: "a reference (\"source\", an image's or a step's id or name)", found: "an empty string"))
            }
            input = Reference(text)
        }
        var mask: Mask?
        if let maskNode = m["mask"] {
            do throws(ParameterError) { mask = try Mask(json: maskNode) } catch {
                throw fail(path + ".mask" + error.subpath, error.node, error.problem)
            }
        }
        let filter: any Filter
        // Without "parameters", required ones are reported at the step.
        let parameters = m["parameters"] ?? JSONNode(.object([]), line: node.line, column: node.column)
        let computed = try computedParameters(type, parameters, path, version: version, variables: variables)
        do throws(ParameterError) {
            filter = try type.decode(parameters, context: context, computed: computed)
        } catch {
            throw fail(path + ".parameters" + error.subpath, error.node, error.problem)
        }
        var layout: NodePosition?
        if let l = m["layout"] {
            do throws(ParameterError) {
                let v = try readNumbers(l, count: 2, in: NodePosition.range, what: "a position [x, y] in the editor's graph view")
                layout = NodePosition(v[0], v[1])
            } catch {
                throw fail(path + ".layout" + error.subpath, error.node, error.problem)
            }
        }
        return (Step(id: id, name: name, enabled: enabled, filter: filter, input: input, mask: mask, computed: computed), layout)
    }
}

extension JSONNode {
    /// The node at a chain-file path like `filters[1].parameters.layer`, if there is one.
    func node(at path: String) -> JSONNode? {
        var node = self
        var rest = Substring(path)
        while !rest.isEmpty {
            if rest.first == "." { rest = rest.dropFirst() }
            if rest.first == "[" {
                guard let close = rest.firstIndex(of: "]"), let i = Int(rest[rest.index(after: rest.startIndex)..<close]),
                      case .array(let items) = node.value, items.indices.contains(i) else { return nil }
                node = items[i]
                rest = rest[rest.index(after: close)...]
            } else {
                let end = rest.firstIndex(where: { $0 == "." || $0 == "[" }) ?? rest.endIndex
                let key = rest[..<end]
                guard case .object(let members) = node.value,
                      let member = members.first(where: { $0.key == key })?.value else { return nil }
                node = member
                rest = rest[end...]
            }
        }
        return node
    }
}
