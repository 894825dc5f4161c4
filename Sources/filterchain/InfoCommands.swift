import ArgumentParser
import FilterChain

struct Filters: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "filters",
        abstract: "List the filter types with their parameters, defaults, ranges and help.",
        discussion: """
            Generated from the filters' own declarations, as chain files are checked against them.

              filterchain filters
              filterchain filters toneCurve
              filterchain filters --json
            """)

    @Argument(help: "Show only this filter type, with its full documentation.")
    var type: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    @Flag(help: "Print Markdown (as in filters.md).")
    var markdown = false

    func run() throws {
        var infos = FilterRegistry.infos
        if let type {
            guard let info = infos.first(where: { $0.type == type }) else {
                let names = FilterRegistry.names
                let hint = FilterRegistry.closestName(to: type)
                throw Failure.usage("unknown filter type '\(type)'" + (hint.map { "; did you mean '\($0)'?" } ?? "")
                                    + " (known: \(names.joined(separator: ", ")))")
            }
            infos = [info]
        }
        if json {
            let nodes = infos.map(\.jsonNode)
            print(JSONWriter.pretty(JSONNode(.array(nodes))))
            return
        }
        if markdown {
            print(infos.map(FilterDocs.markdown).joined(separator: "\n"), terminator: "")
            return
        }
        print(infos.map { FilterDocs.text($0, full: type != nil) }.joined(separator: "\n"), terminator: "")
    }
}

enum FilterDocs {
    static func markdown(_ info: FilterInfo) -> String {
        var out = "## \(info.type)\n\n\(info.summary)\n\n"
        out += "| parameter | allowed | default | meaning |\n|---|---|---|---|\n"
        for p in info.parameters {
            let def = p.defaultValue.map { "`" + JSONWriter.compact($0) + "`" } ?? (p.kind.isRequired ? "required" : "absent")
            out += "| `\(p.name)` | \(p.kind.allowed) | \(def) | \(p.help) |\n"
        }
        out += "\n" + info.documentation + "\n"
        return out
    }

    static func text(_ info: FilterInfo, full: Bool) -> String {
        var out = "\(info.type): \(info.summary)\n"
        if full { out += "\n" + info.documentation.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n") + "\n\n" }
        for p in info.parameters {
            let def = p.defaultValue.map { JSONWriter.compact($0) } ?? (p.kind.isRequired ? "none (required)" : "none")
            out += "  \(p.name)\n      \(p.help)\n      allowed: \(p.kind.allowed); default: \(def)\n"
        }
        return out
    }
}

struct Formats: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "formats",
        abstract: "List the image formats with what each holds and its options.",
        discussion: """
            Generated from the codec registry, which reading and writing use. An option the output format does not take is a usage error.

              filterchain formats
              filterchain formats webp
              filterchain formats --json
            """)

    @Argument(help: "Show only this format (its name or an extension).")
    var format: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        var declarations = CodecRegistry.declarations
        if let format {
            guard let found = ImageFormat(rawValue: format) else {
                throw Failure.usage("unknown format '\(format)' (known: \(declarations.map(\.format.id).joined(separator: ", ")))")
            }
            declarations = [found.declaration]
        }
        if json {
            print(JSONWriter.pretty(JSONNode(.array(declarations.map(\.jsonNode)))))
            return
        }
        print(declarations.map(FormatDocs.text).joined(separator: "\n"), terminator: "")
    }
}

enum FormatDocs {
    static func text(_ d: FormatDeclaration) -> String { text(d, ownFlags: CodecOptions.ownFlags) }

    /// `ownFlags`: the options with a flag of their own (the others are named as `--encode` takes them).
    static func text(_ d: FormatDeclaration, ownFlags: Set<String>) -> String {
        let caps = d.capabilities
        let io = [d.reads ? "read" : nil, d.writes ? "written" : nil].compactMap { $0 }.joined(separator: " and ")
        var out = "\(d.format.id): \(d.name) (\(d.extensions.map { "." + $0 }.joined(separator: ", "))), \(io)\n"
        out += "  \(d.summary)\n"
        if let why = d.libraryProblem { out += "  NOT USABLE HERE: \(why)\n" }
        var holds = [caps.alpha ? "alpha" : "no alpha",
                     listText(caps.depths.filter { !$0.isFloat }.map { String($0.rawValue) }, and: "or") + " bits"
                        + (caps.depths.contains(.float32) ? " or float (32-bit)" : ""),
                     caps.grey ? "grey" : "no grey (written as RGB)"]
        if d.readsAnimations || d.writesAnimations {
            holds.append("animation (" + [d.readsAnimations ? "read" : nil, d.writesAnimations ? "written" : nil]
                .compactMap { $0 }.joined(separator: " and ") + " frame by frame)")
        } else if caps.animation {
            holds.append("animation (the first frame is read)")
        }
        if let side = caps.maxSide { holds.append("at most \(side) pixels on a side") }
        out += "  holds: \(holds.joined(separator: ", "))\n"
        out += "  metadata: \(caps.metadata.sorted().map(\.displayName).joined(separator: ", "))\n"
        if caps.exifOrientation { out += "  EXIF Orientation applied on reading (--no-auto-orient keeps the pixels as stored)\n" }
        if !d.options.isEmpty {
            out += "  options:\n"
            for o in d.options {
                let def = (o.defaultNote.map { "\($0), else " } ?? "") + o.defaultValue.description
                let values = o.kind == .boolean ? nil : o.allowed.split(separator: "...").joined(separator: "-")
                let spelling = ownFlags.contains(o.name) || values != nil
                    ? CodecOptions.spelled(o.name, values, ownFlags: ownFlags) : CodecOptions.spelled(o.name, "true", ownFlags: ownFlags)
                out += "    \(spelling)\n      \(o.help); default: \(def)\n"
            }
        }
        return out
    }
}

struct Validate: ParsableCommand {
    /// Problems reported per file, at most.
    static let limit = 20

    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check chain files without any image.",
        discussion: """
            Prints every independent problem of each file (up to \(Validate.limit)), one line each with its JSON path, line and column: each step and each parameter is checked on its own, and references once the rest is valid. Exit status 0 when every file is valid, 65 when any is not.

            A chain with expressions is evaluated for sources of each --size (default \(ExpressionCheck.defaultSizes.map(\.description).joined(separator: ", "))), with the variables as the file sets them or as --set sets them, and every value a parameter refuses is reported, each with the size it was found for.

              filterchain validate chains/*.json
              filterchain validate look.json --json
              filterchain validate look.json --size 6000x4000
            """)

    @Argument(help: "Chain files to check.")
    var chains: [String]

    @Flag(help: "Print one JSON object per file on stdout (its problems in \"errors\"; the first also as \"error\", \"path\", \"line\" and \"column\").")
    var json = false

    @Option(name: .customLong("size"), help: ArgumentHelp("Evaluate expressions for a source image of this size, like 6000x4000 (repeatable).", valueName: "WxH"))
    var sizes: [String] = []

    @OptionGroup(title: "Variables")
    var variables: VariableOptions

    func validate() throws {
        if chains.isEmpty { throw ValidationError("give at least one chain file") }
        for text in sizes where ExpressionCheck.size(text) == nil {
            throw ValidationError("--size '\(text)': write WIDTHxHEIGHT in pixels, each 1 or more, like 6000x4000")
        }
    }

    func run() throws {
        var invalid = 0
        for path in chains {
            var line = JSONLine()
            line.add("file", path)
            let problems = Chain.problems(file: path, limit: Validate.limit + 1)
            // Problems found while the file is read, every independent one (up to the limit).
            if let first = problems.first {
                invalid += 1
                let shown = problems.prefix(Validate.limit)
                let more = problems.count > Validate.limit
                line.add("valid", false)
                line.add("error", first.message)
                line.add("path", first.path.isEmpty ? nil : first.path)
                line.add("line", first.line)
                line.add("column", first.column)
                let errors = shown.map { error -> String in
                    var item = JSONLine()
                    item.add("error", error.message)
                    item.add("path", error.path.isEmpty ? nil : error.path)
                    item.add("line", error.line)
                    item.add("column", error.column)
                    return item.text
                }
                line.addRaw("errors", "[" + errors.joined(separator: ",") + "]")
                line.add("more", more)
                if json {
                    Console.output(line.text)
                } else {
                    for error in shown { Console.error(error.description) }
                    if more { Console.note("\(path): more problems not shown; the first \(Validate.limit) are above") }
                }
                continue
            }
            // Then the expressions, for each size.
            do {
                let chain = try variables.setting(try Chain.load(path), file: path)
                try chain.checkExpressions(file: path)
                let check = ExpressionCheck(chain: chain, file: path, sizes: sizes.isEmpty ? ExpressionCheck.defaultSizes : sizes.compactMap(ExpressionCheck.size))
                if !check.errors.isEmpty {
                    invalid += 1
                    check.report(into: &line, json: json)
                    continue
                }
                line.add("valid", true)
                line.add("steps", chain.steps.count)
                check.describe(into: &line)
                if json { Console.output(line.text) } else { Console.output("\(path): valid, \(chain.steps.count) step\(chain.steps.count == 1 ? "" : "s")" + check.summary) }
            } catch let error as ChainError {
                invalid += 1
                line.add("valid", false)
                line.add("error", error.message)
                line.add("path", error.path.isEmpty ? nil : error.path)
                line.add("line", error.line)
                line.add("column", error.column)
                if json { Console.output(line.text) } else { Console.error(error.description) }
            }
        }
        if invalid > 0 { throw ExitCodeFailure(status: Status.invalidChain) }
    }
}

extension ParameterKind {
    /// A file path has no default: a chain must give it.
    var isRequired: Bool {
        if case .file = self { return true }
        return false
    }
}
