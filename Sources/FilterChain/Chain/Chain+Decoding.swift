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

    func chain(_ root: JSONNode) throws(ChainError) -> Chain {
        let top = try members(root, "", allowed: ["version", "workingSpace", "filters"])
        let version = try required(top, "version", "", root)
        guard case .number(let v) = version.value else {
            throw fail("version", version, .wrongType(expected: "the number 1", found: version.typeName))
        }
        guard v == 1 else { throw fail("version", version, .unsupportedVersion(JSONWriter.number(v))) }
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
        let filters = try required(top, "filters", "", root)
        guard case .array(let items) = filters.value else {
            throw fail("filters", filters, .wrongType(expected: "an array", found: filters.typeName))
        }
        var seen: [String: Int] = [:]
        for (i, item) in items.enumerated() {
            let step = try self.step(item, "filters[\(i)]")
            if let first = seen[step.id.lowercased()] {
                let idNode = (try? members(item, "", allowed: ["id", "type", "name", "enabled", "parameters"]))?["id"] ?? item
                throw fail("filters[\(i)].id", idNode, .duplicateID(step.id, first: "filters[\(first)]"))
            }
            seen[step.id.lowercased()] = i
            chain.steps.append(step)
            do throws(ChainError) { try chain.checkUniqueNames(file: file) } catch {
                let nameNode = (try? members(item, "", allowed: ["id", "type", "name", "enabled", "parameters"]))?["name"] ?? item
                throw fail(error.path, nameNode, error.problem)
            }
        }
        return chain
    }

    func step(_ node: JSONNode, _ path: String) throws(ChainError) -> Step {
        let m = try members(node, path, allowed: ["id", "type", "name", "enabled", "parameters"])
        let idNode = try required(m, "id", path, node)
        let id = try string(idNode, path + ".id")
        guard UUID(uuidString: id) != nil else { throw fail(path + ".id", idNode, .invalidID(id)) }
        let typeNode = try required(m, "type", path, node)
        let typeName = try string(typeNode, path + ".type")
        guard let type = FilterRegistry.type(named: typeName) else {
            let known = FilterRegistry.names
            throw fail(path + ".type", typeNode, .unknownFilterType(typeName, suggestion: closestMatch(typeName, in: known), known: known))
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
        let filter: any Filter
        // Without "parameters", required ones are reported at the step.
        let parameters = m["parameters"] ?? JSONNode(.object([]), line: node.line, column: node.column)
        do throws(ParameterError) {
            filter = try decodeFilter(type, parameters, context: ParameterContext(chainFile: file))
        } catch {
            throw fail(path + ".parameters" + error.subpath, error.node, error.problem)
        }
        return Step(id: id, name: name, enabled: enabled, filter: filter)
    }
}
