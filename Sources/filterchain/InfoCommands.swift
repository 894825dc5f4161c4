import ArgumentParser
import FilterChain

struct Filters: ParsableCommand {
    static let configuration = CommandConfiguration(
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
            let nodes = infos.map(FilterDocs.json)
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
    static func json(_ info: FilterInfo) -> JSONNode {
        JSONNode(.object([
            ("type", JSONNode(.string(info.type))),
            ("summary", JSONNode(.string(info.summary))),
            ("parameters", JSONNode(.array(info.parameters.map { p in
                var members: [(key: String, value: JSONNode)] = [("name", JSONNode(.string(p.name)))]
                switch p.kind {
                case .number(let r):
                    members += [("kind", JSONNode(.string("number"))),
                                ("minimum", JSONNode(.number(r.lowerBound))), ("maximum", JSONNode(.number(r.upperBound)))]
                case .choice(let options):
                    members += [("kind", JSONNode(.string("choice"))), ("choices", JSONNode(.array(options.map { JSONNode(.string($0)) })))]
                case .points(let count, let optional):
                    members += [("kind", JSONNode(.string("points"))), ("minimumPoints", JSONNode(.number(Double(count.lowerBound)))),
                                ("maximumPoints", JSONNode(.number(Double(count.upperBound)))), ("optional", JSONNode(.bool(optional)))]
                }
                members += [("default", p.defaultValue ?? JSONNode(.null)), ("allowed", JSONNode(.string(p.kind.allowed))),
                            ("help", JSONNode(.string(p.help)))]
                return JSONNode(.object(members))
            }))),
        ]))
    }

    static func markdown(_ info: FilterInfo) -> String {
        var out = "## \(info.type)\n\n\(info.summary)\n\n"
        out += "| parameter | allowed | default | meaning |\n|---|---|---|---|\n"
        for p in info.parameters {
            let def = p.defaultValue.map { "`" + JSONWriter.compact($0) + "`" } ?? "absent"
            out += "| `\(p.name)` | \(p.kind.allowed) | \(def) | \(p.help) |\n"
        }
        out += "\n" + info.documentation + "\n"
        return out
    }

    static func text(_ info: FilterInfo, full: Bool) -> String {
        var out = "\(info.type): \(info.summary)\n"
        if full { out += "\n" + info.documentation.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n") + "\n\n" }
        for p in info.parameters {
            let def = p.defaultValue.map { JSONWriter.compact($0) } ?? "none"
            out += "  \(p.name)\n      \(p.help)\n      allowed: \(p.kind.allowed); default: \(def)\n"
        }
        return out
    }
}

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check chain files without any image.",
        discussion: """
            Prints each file's first problem with its JSON path, line and column. Exit status 0
            when every file is valid, 65 when any is not.

              filterchain validate chains/*.json
              filterchain validate look.json --json
            """)

    @Argument(help: "Chain files to check.")
    var chains: [String]

    @Flag(help: "Print one JSON object per file on stdout.")
    var json = false

    func validate() throws {
        if chains.isEmpty { throw ValidationError("give at least one chain file") }
    }

    func run() throws {
        var invalid = 0
        for path in chains {
            var line = JSONLine()
            line.add("file", path)
            do {
                let chain = try Chain.load(path)
                line.add("valid", true)
                line.add("steps", chain.steps.count)
                if json { Console.output(line.text) } else { Console.output("\(path): valid, \(chain.steps.count) step\(chain.steps.count == 1 ? "" : "s")") }
            } catch {
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
