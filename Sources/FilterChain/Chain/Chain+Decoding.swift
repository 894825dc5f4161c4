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
        return try ChainDecoder(file: file).chain(root)
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
    static let topKeys = [1: ["version", "workingSpace", "filters"], 2: ["version", "workingSpace", "images", "filters"]]
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
            let step = try self.step(item, "filters[\(i)]", version: version)
            chain.steps.append(step)
            try claim(step.id, step.name, item, "filters[\(i)]", .step(i))
        }
        // References, once every step is known (a reference to a later one says which it is).
        do throws(ChainError) { try chain.checkGraph(file: file) } catch {
            let node = root.node(at: error.path) ?? root
            throw fail(error.path, node, error.problem)
        }
        return chain
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

    func step(_ node: JSONNode, _ path: String, version: Int) throws(ChainError) -> Step {
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
        do throws(ParameterError) {
            filter = try decodeFilter(type, parameters, context: context)
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
        return Step(id: id, name: name, enabled: enabled, filter: filter, input: input, mask: mask, layout: layout)
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
