import ArgumentParser
import FilterChain

/// `--step 'TYPE name=value ...'` and `--save-chain FILE`, for `apply` and `steps`: a chain
/// given on the command line (a one-liner, like vipsthumbnail's), or steps appended to a
/// chain file. Each step is read as `chain add` reads its arguments: the same `name=value`
/// syntax (JSON values, a bare word is a string), validation and messages.
struct InlineStepOptions: ParsableArguments {
    @Option(name: .customLong("step"), help: ArgumentHelp("A step, as 'TYPE name=value ...' with the syntax of 'chain add' (repeat for more; they run in order, after the chain file's steps when one is given; then CHAIN may be left out). Relative file paths (a lut's file=) start at the working directory.", valueName: "'TYPE name=value ...'"))
    var steps: [String] = []

    @Option(name: .customLong("save-chain"), help: ArgumentHelp("Write the chain that runs (the chain file's steps and the --step steps) to this chain file, before any image is read.", valueName: "file"))
    var saveChain: String?

    /// The chain to run, what messages call it, the image paths, and what `save` needs.
    struct Resolved {
        var chain: Chain
        /// The chain file, or "--step" when the steps are all on the command line.
        var label: String
        var paths: [String]
        /// How many of the steps come from the chain file, and its folder.
        var fileSteps: Int
        var origin: String
    }

    /// The chain to run and the image paths, from CHAIN (when given) and the paths after it.
    /// Without --step, the first path is the chain file. With --step, it is one only when it
    /// is one: a file whose first byte, after white space, is `{`, or a name ending in
    /// `.json` (a missing chain file is then said to be missing); otherwise every path is an
    /// image.
    func resolve(chain first: String?, paths: [String]) throws -> Resolved {
        guard !steps.isEmpty else {
            guard let first else { throw Failure.usage("give a chain file, or the steps with --step 'TYPE name=value ...'") }
            if let format = sniffedFormat(first) { throw Self.imageGivenAsChain(first, format: format, paths: paths) }
            let chain = try loadChain(first)
            return Resolved(chain: chain, label: first, paths: paths, fileSteps: chain.steps.count,
                            origin: ParameterContext(chainFile: first).directory)
        }
        var resolved = Resolved(chain: Chain(), label: "--step", paths: paths, fileSteps: 0, origin: ".")
        if let first {
            if Self.looksLikeChainFile(first) {
                resolved.chain = try loadChain(first)
                resolved.label = first
                resolved.fileSteps = resolved.chain.steps.count
                resolved.origin = ParameterContext(chainFile: first).directory
            } else {
                resolved.paths.insert(first, at: 0)
            }
        }
        for (n, text) in steps.enumerated() { try Self.append(text, number: n + 1, to: &resolved.chain) }
        return resolved
    }

    /// The chain file named is an image (`filterchain apply photos/* --output-dir w`): said so,
    /// with the command line as it was probably meant, with a chain file or with --step (the
    /// images after the first two elided).
    static func imageGivenAsChain(_ path: String, format: ImageFormat, paths: [String],
                                  arguments: [String] = CommandLine.arguments) -> Failure {
        let images = [path] + paths
        var words: [String] = []
        var shown = 0
        for word in arguments.dropFirst() {
            guard images.contains(word) else { words.append(shellQuoted(word)); continue }
            shown += 1
            if shown <= 2 { words.append(shellQuoted(word)) } else if shown == 3 { words.append("...") }
        }
        var withChain = words, withSteps = words
        if let at = withChain.firstIndex(of: shellQuoted(path)) { withChain.insert("CHAIN.json", at: at) }
        withSteps.insert("--step 'resize width=800'", at: min(1, withSteps.count))
        return Failure.usage("""
            \(path) is an image (\(format.declaration.name)), not a chain file: the chain file comes first, then the images. Give one, or the steps with --step:
              filterchain \(withChain.joined(separator: " "))
              filterchain \(withSteps.joined(separator: " "))
            (to make thumbnails: filterchain thumbnail IMAGE... -s 800 -o DIR)
            """)
    }

    /// A word as a POSIX shell reads it back: quoted only when it needs to be.
    static func shellQuoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:,+@%".contains($0) }
        return plain ? word : "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    /// Writes the chain that runs to --save-chain, when given: atomically, with relative
    /// paths made relative to its folder. Never over one of `inputs`.
    func save(_ resolved: Resolved, inputs: [String]) throws {
        guard let saveChain else { return }
        try InputGuard(inputs: inputs).check(saveChain)
        let folder = ParameterContext(chainFile: saveChain).directory
        guard isDirectory(folder) else {
            throw Failure(message: "\(saveChain): cannot write the chain file: no such folder \(folder)", status: Status.failure)
        }
        let saved = try Self.rebased(resolved.chain, fileSteps: resolved.fileSteps, from: resolved.origin,
                                     to: folder, file: saveChain)
        try ChainCommand.save(saved, to: saveChain)
    }

    /// A chain file by its content (JSON starts with `{`) or its name.
    static func looksLikeChainFile(_ path: String) -> Bool {
        if path.lowercased().hasSuffix(".json") { return true }
        guard path != "-", let bytes = readPrefix(path, count: 64) else { return false }
        return bytes.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) } == UInt8(ascii: "{")
    }

    /// Appends the step `--step` number `number` describes.
    static func append(_ text: String, number: Int, to chain: inout Chain) throws {
        let words = split(text)
        let title = "--step \(number) '\(text)'"
        guard let type = words.first, !type.contains("=") else {
            throw Failure.usage("\(title): give a filter type first, then its parameters as name=value, like --step 'resize width=800'")
        }
        let step: Step
        do { step = try Chain.makeStep(type: type, name: nil, file: title) } catch { throw Failure.chain(error) }
        chain.steps.append(step)
        let index = chain.steps.count - 1
        // Relative paths in values start at the working directory: the file name "--step"
        // has no folder.
        do { try ChainCommand.assign(Array(words.dropFirst()), to: &chain, index: index, file: "--step") } catch var failure as Failure {
            failure.message = retitled(failure.message, title: title, index: index)
            throw failure
        }
        if let missing = chain.steps[index].filter.missingParameters.first {
            throw Failure(message: "\(title): \(type) needs \(missing)=... (see 'filterchain filters \(type)')", status: Status.invalidChain)
        }
    }

    /// "--step: filters[3].parameters.sigma: ..." as "--step 2 'gaussianBlur sigma=-1': sigma: ...".
    static func retitled(_ message: String, title: String, index: Int) -> String {
        var rest = Substring(message)
        if rest.hasPrefix("--step: ") { rest = rest.dropFirst("--step: ".count) }
        for prefix in ["filters[\(index)].parameters.", "filters[\(index)].parameters: ", "filters[\(index)]."] where rest.hasPrefix(prefix) {
            rest = rest.dropFirst(prefix.count)
            break
        }
        // A relative path in a --step starts at the working directory, not a chain's folder.
        return title + ": " + String(rest).replacing("; paths in a chain file are relative to its folder",
                                                     with: "; paths in --step start at the working directory")
    }

    /// The words of a step: split at white space outside brackets, braces and quotes, so
    /// that `points=[[0,0], [1,1]]` stays one word.
    static func split(_ text: String) -> [String] {
        var words: [String] = []
        var word = ""
        var depth = 0
        var quote: Character?
        for ch in text {
            if let q = quote {
                word.append(ch)
                if ch == q { quote = nil }
                continue
            }
            switch ch {
            case "\"", "'": quote = ch; word.append(ch)
            case "[", "{": depth += 1; word.append(ch)
            case "]", "}": depth -= 1; word.append(ch)
            case _ where ch.isWhitespace && depth <= 0:
                if !word.isEmpty { words.append(word); word = "" }
            default: word.append(ch)
            }
        }
        if !word.isEmpty { words.append(word) }
        // 'a b' in single quotes is the string a b (a shell would have taken them off).
        return words.map { word in
            guard let eq = word.firstIndex(of: "="), word[word.index(after: eq)...].hasPrefix("'"), word.hasSuffix("'"),
                  word.count - word.distance(from: word.startIndex, to: eq) >= 3 else { return word }
            let value = word[word.index(eq, offsetBy: 2)..<word.index(before: word.endIndex)]
            return String(word[...eq]) + JSONWriter.quote(String(value))
        }
    }

    /// The chain as a file at `file` (in `folder`) must say it: relative file paths of the
    /// chain file's steps and images (from `origin`, its folder) and of the --step steps
    /// (from the working directory) made relative to `folder`, so they name the same files.
    static func rebased(_ chain: Chain, fileSteps: Int, from origin: String, to folder: String, file: String) throws -> Chain {
        var chain = chain
        func moved(_ path: String, from start: String) -> String {
            path.hasPrefix("/") ? path : relativePath(ParameterContext(directory: start).resolve(path), from: folder, keepingAbsolute: false)
        }
        for i in chain.images.indices { chain.images[i].file = moved(chain.images[i].file, from: origin) }
        for (i, step) in chain.steps.enumerated() {
            for parameter in type(of: step.filter).info.parameters {
                guard case .file = parameter.kind, case .string(let path)? = step.filter.parametersJSON.member(parameter.name)?.value
                else { continue }
                let now = moved(path, from: i < fileSteps ? origin : ".")
                guard now != path else { continue }
                do { try chain.setParameter(at: i, parameter.name, to: JSONNode(.string(now)), file: file) } catch {
                    throw Failure.chain(error)
                }
            }
        }
        return chain
    }
}

extension JSONNode {
    /// The value of an object's member `key`.
    func member(_ key: String) -> JSONNode? {
        guard case .object(let members) = value else { return nil }
        return members.first { $0.key == key }?.value
    }
}
