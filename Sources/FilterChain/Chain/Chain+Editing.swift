#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Chain {
    /// A parameter value as a script writes it after `name=`: JSON (`2`, `[[0,0],[1,1]]`,
    /// `"linear"`), or a bare word taken as a string (`linear`).
    public static func parameterValue(_ text: String) -> JSONNode {
        if let node = try? JSONParser.parse(Array(text.utf8)) { return node }
        return JSONNode(.string(text))
    }

    /// Sets one parameter of the step at `index` (0-based), validated as a chain file's value.
    public mutating func setParameter(at index: Int, _ name: String, to value: JSONNode, file: String) throws(ChainError) {
        let step = steps[index]
        do throws(ParameterError) {
            steps[index].filter = try step.filter.setting(name, to: value)
        } catch {
            throw ChainError(file: file, path: "filters[\(index)].parameters" + error.subpath,
                             problem: error.problem)
        }
    }

    /// A new step of filter type `type` with default parameters.
    public static func makeStep(type: String, name: String?, file: String) throws(ChainError) -> Step {
        guard let filterType = FilterRegistry.type(named: type) else {
            let known = FilterRegistry.names
            throw ChainError(file: file, problem: .unknownFilterType(type, suggestion: closestMatch(type, in: known), known: known))
        }
        return Step(name: name, filter: filterType.init())
    }

    /// Writes the chain as JSON, replacing `path` atomically: the text goes to a temporary
    /// file beside it, which is renamed over the old file only once completely written.
    /// The text is parsed back first, so an invalid chain is never written.
    public func save(to path: String) throws(ChainError) {
        let text = jsonText
        _ = try Chain.parse(Array(text.utf8), file: path)
        let (folder, base) = OutputFile.split(path)
        var template = Array("\(folder)/.\(base).filterchain-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw ChainError(file: path, problem: .unwritable(String(cString: strerror(errno)))) }
        let temp = String(cString: template)
        var mode: mode_t = 0o644
        var st = stat()
        if stat(path, &st) == 0 { mode = st.st_mode & 0o777 }
        fchmod(fd, mode)
        let bytes = Array(text.utf8)
        var written = 0
        var failure: String?
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
            if n <= 0 { failure = String(cString: strerror(errno)); break }
            written += n
        }
        if failure == nil, fsync(fd) != 0 { failure = String(cString: strerror(errno)) }
        if close(fd) != 0, failure == nil { failure = String(cString: strerror(errno)) }
        if failure == nil, rename(temp, path) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temp)
            throw ChainError(file: path, problem: .unwritable(failure))
        }
    }
}
