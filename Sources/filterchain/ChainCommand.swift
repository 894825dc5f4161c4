import ArgumentParser
import FilterChain

struct ChainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chain",
        abstract: "Create and edit chain files from scripts.",
        discussion: """
            Every write is validated first and replaces the file atomically. Ids are made once and never change; step and image names are unique. STEP is a position, a full id, an id prefix of at least 4 characters, a name, or a filter type when exactly one step has that type, as for 'apply --preview'. REF (what a step reads: input=, a blend's layer=, mask.source=) is "source", an image's id or name, or a STEP above it; the file keeps the step's name, else its id. Steps that other steps read cannot be removed, nor moved below them.

              filterchain chain new look.json
              filterchain chain add look.json colorControls --name colour saturation=1.2
              filterchain chain add look.json gaussianBlur sigma=2
              filterchain chain set look.json colour contrast=1.1 brightness=0.05
              filterchain chain move look.json 2 --to 1
              filterchain chain show look.json

              filterchain chain image add look.json logo.png --name logo
              filterchain chain add look.json blend layer=logo opacity=0.8 \\
                placement.gravity=southEast
              filterchain chain set look.json 2 mask.type=radial mask.radius=0.4
              filterchain chain set look.json 3 input=source mask=null

              filterchain chain var add look.json strength 0.5 --min 0 --max 1 \\
                --help "how strong the look is"
              filterchain chain set look.json colour saturation='=1 + strength'
              filterchain chain var set look.json strength 0.8
            """,
        subcommands: [New.self, Add.self, Set.self, Remove.self, Move.self, Enable.self, Disable.self, Show.self, ImageCommand.self,
                      VariableCommand.self])

    /// Applies `name=value` assignments to the step at `index`: parameters, `input`, `mask`,
    /// and dotted fields (`mask.radius`, `placement.gravity`); values are JSON or a bare word.
    /// Then checks the step and the graph.
    static func assign(_ assignments: [String], to chain: inout Chain, index: Int, file: String) throws {
        var values: [(key: String, value: JSONNode)] = []
        for assignment in assignments {
            guard let eq = assignment.firstIndex(of: "="), eq != assignment.startIndex else {
                throw Failure.usage("'\(assignment)': write parameters as name=value, like sigma=2")
            }
            let name = String(assignment[..<eq])
            let text = String(assignment[assignment.index(after: eq)...])
            var value = Chain.parameterValue(text)
            if takesReference(name, chain.steps[index].filter), value.value != .null {
                value = JSONNode(.string(commandLineReference(text, in: chain)))
            }
            values.append((name, value))
        }
        // A value the chain file would refuse (out of range, unknown, a bad .cube) would make
        // the chain invalid: 65, as a chain file with it is.
        do { try chain.set(values, atStep: index, file: file) } catch { throw Failure.chain(error) }
        do { try chain.checkStep(at: index, file: file) } catch { throw Failure.chain(error) }
        try checkGraph(chain, file: file)
    }

    /// Whether the key `name=` takes a reference: input, mask.source, or a reference parameter.
    static func takesReference(_ name: String, _ filter: any Filter) -> Bool {
        name == "input" || name == "mask.source" || type(of: filter).info.parameters.contains { $0.name == name && $0.kind == .reference }
    }

    /// REF as the command line writes it, as the file keeps it: "source" (or 0), an image's
    /// id or name, or a STEP (position, id, id prefix, name, type), kept as its name, else its
    /// full id. Anything else is kept as written, for the chain's own message.
    static func commandLineReference(_ text: String, in chain: Chain) -> String {
        let reference = Reference(text)
        if reference.isSource { return text }
        if case .image? = chain.resolve(reference) { return text }
        guard let position = try? StepReference(text).resolve(in: chain) else { return text }
        if position == 0 { return Reference.source.text }
        let step = chain.steps[position - 1]
        return step.name ?? step.id
    }

    /// Refuses an edit that leaves a reference naming nothing, or a step below, or a mask on
    /// a geometry step: the chain would be invalid (65).
    static func checkGraph(_ chain: Chain, file: String) throws {
        do { try chain.checkGraph(file: file) } catch { throw Failure.chain(error) }
    }

    static func save(_ chain: Chain, to path: String) throws {
        do { try chain.save(to: path) } catch {
            throw Failure(message: error.description, status: Status.failure)
        }
    }

    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "new",
            abstract: "Create an empty chain file.",
            discussion: "  filterchain chain new look.json --working-space linear")

        @Argument(help: "The chain file to create.")
        var file: String

        @Option(name: .customLong("working-space"), help: ArgumentHelp("srgb (filters see stored values) or linear.", valueName: "srgb|linear"))
        var workingSpace: String = "srgb"

        @Flag(help: "Replace an existing file.")
        var force = false

        func run() throws {
            guard let space = WorkingSpace(rawValue: workingSpace) else {
                throw Failure.usage("--working-space: '\(workingSpace)'; allowed srgb or linear")
            }
            if fileExists(file) && !force { throw Failure.usage("\(file): already exists (use --force to replace it)") }
            try ChainCommand.save(Chain(workingSpace: space, steps: []), to: file)
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a filter; prints its new id.",
            discussion: "  filterchain chain add look.json toneCurve --at 1 \\\n    'points=[[0,0],[0.5,0.6],[1,1]]'")

        @Argument(help: "The chain file.")
        var file: String

        @Argument(help: "The filter type (see 'filterchain filters').")
        var type: String

        @Argument(help: ArgumentHelp("Parameters as name=value (JSON values; a bare word is a string).", valueName: "name=value"))
        var parameters: [String] = []

        @Option(help: "A name for the step.")
        var name: String?

        @Option(help: ArgumentHelp("Position the new step takes (1-based; default: the end).", valueName: "pos"))
        var at: Int?

        @Option(help: ArgumentHelp("What the step reads: \"source\", an image, or a step above it (default: the step above).", valueName: "REF"))
        var input: String?

        func run() throws {
            var chain = try loadChain(file)
            let step: Step
            // An unknown type would make the chain invalid, as it does in a file.
            do { step = try Chain.makeStep(type: type, name: name, file: file) } catch { throw Failure.chain(error) }
            let position = at ?? chain.steps.count + 1
            guard (1...chain.steps.count + 1).contains(position) else {
                throw Failure.usage("--at \(position): allowed 1...\(chain.steps.count + 1)")
            }
            let before = chain
            chain.steps.insert(step, at: position - 1)
            do { try chain.checkUniqueNames(file: file) } catch { throw Failure.chain(error) }
            if let input {
                chain.steps[position - 1].input = Reference(ChainCommand.commandLineReference(input, in: before))
            }
            try ChainCommand.assign(parameters, to: &chain, index: position - 1, file: file)
            if let missing = chain.steps[position - 1].filter.missingParameters.first {
                throw Failure(message: "\(type) needs \(missing)=... (see 'filterchain filters \(type)')", status: Status.invalidChain)
            }
            try ChainCommand.save(chain, to: file)
            Console.output(step.id)
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Set parameters, the input or the mask of a step.",
            discussion: """
                KEY=VALUE sets a parameter, a field of one (placement.gravity=southEast), the step's input (input=REF; input=null for the step above) or its mask: mask={...} or mask=null, or a field (mask.type=radial|linear|luminance|image, mask.center=[0.5,0.5], mask.radius=1, mask.feather=0.5, mask.from=[0,0], mask.to=[0,1], mask.range=[0.5,1], mask.source=REF, mask.channel=luminance, mask.placement.gravity=center, mask.invert=false, mask.opacity=1). Another mask.type starts that type at its defaults. layout=[x,y] places the step's node in the editor's graph view (layout=null: where the view's layout puts it); the engine ignores it.

                  filterchain chain set look.json 3 sigma=4
                  filterchain chain set look.json blur mask.type=radial mask.radius=0.6
                """)

        @Argument(help: "The chain file.")
        var file: String

        @Argument(help: "The step.")
        var step: String

        @Argument(help: ArgumentHelp("Parameters, input or mask as key=value.", valueName: "key=value"))
        var parameters: [String] = []

        @Option(help: "A new name for the step (unique in the chain).")
        var name: String?

        func validate() throws {
            if parameters.isEmpty && name == nil { throw ValidationError("give at least one name=value, or --name") }
        }

        func run() throws {
            var chain = try loadChain(file)
            let position = try stepPosition(step, chain, file)
            if let name {
                chain.steps[position - 1].name = name
                do { try chain.checkUniqueNames(file: file) } catch { throw Failure.chain(error) }
            }
            try ChainCommand.assign(parameters, to: &chain, index: position - 1, file: file)
            try ChainCommand.save(chain, to: file)
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a step.", discussion: "  filterchain chain remove look.json colour")

        @Argument(help: "The chain file.") var file: String
        @Argument(help: "The step.") var step: String

        func run() throws {
            var chain = try loadChain(file)
            // A step other steps read cannot go: the chain would be invalid.
            do { try chain.removeStep(at: try stepPosition(step, chain, file) - 1, file: file) } catch let error as ChainError {
                throw Failure.chain(error)
            }
            try ChainCommand.save(chain, to: file)
        }
    }

    struct Move: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "move", abstract: "Move a step to another position.",
                                                        discussion: "  filterchain chain move look.json 3 --to 1")

        @Argument(help: "The chain file.") var file: String
        @Argument(help: "The step.") var step: String
        @Option(help: ArgumentHelp("The position it takes (1-based).", valueName: "pos")) var to: Int

        func run() throws {
            var chain = try loadChain(file)
            let from = try stepPosition(step, chain, file)
            guard (1...chain.steps.count).contains(to) else { throw Failure.usage("--to \(to): allowed 1...\(chain.steps.count)") }
            do { try chain.moveStep(from: from - 1, to: to - 1, file: file) } catch { throw Failure.chain(error) }
            try ChainCommand.save(chain, to: file)
        }
    }

    struct Enable: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "enable", abstract: "Enable a step.", discussion: "  filterchain chain enable look.json blur")
        @Argument(help: "The chain file.") var file: String
        @Argument(help: "The step.") var step: String
        func run() throws { try setEnabled(file, step, true) }
    }

    struct Disable: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "disable", abstract: "Disable a step (it still counts as a step).",
                                                        discussion: "  filterchain chain disable look.json blur")
        @Argument(help: "The chain file.") var file: String
        @Argument(help: "The step.") var step: String
        func run() throws { try setEnabled(file, step, false) }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show a chain as a table.", discussion: "  filterchain chain show look.json")
        @Argument(help: "The chain file.") var file: String

        func run() throws {
            let chain = try loadChain(file)
            var rows = [["#", "id", "name", "type", "enabled", "parameters"]]
            for (i, step) in chain.steps.enumerated() {
                var cell = JSONWriter.compact(step.parametersJSON)
                if let input = step.input { cell += " input=" + input.text }
                if let mask = step.mask { cell += " mask=" + JSONWriter.compact(mask.jsonNode) }
                rows.append(["\(i + 1)", step.shortID, step.name ?? "-", step.type, step.enabled ? "yes" : "no", cell])
            }
            let widths = (0..<6).map { c in rows.map { $0[c].count }.max()! }
            Console.output("working space: \(chain.workingSpace.rawValue)")
            for variable in chain.variables {
                let value: String = switch variable.value {
                case .number(let v): JSONWriter.number(v)
                case .expression(let e): e.text
                }
                let range = variable.minimum != nil || variable.maximum != nil ? "  (\(variable.allowed))" : ""
                Console.output("variable \(variable.name) = \(value)\(range)" + (variable.help.map { "  \($0)" } ?? ""))
            }
            for image in chain.images {
                Console.output("image \(String(image.id.prefix(8)))  \(image.name ?? "-")  \(image.file)"
                               + (image.image.map { "  \($0.width) x \($0.height)" } ?? ""))
            }
            for row in rows {
                let line = row.enumerated().map { c, cell in
                    c == 5 ? cell : cell + String(repeating: " ", count: widths[c] - cell.count)
                }.joined(separator: "  ")
                Console.output(line)
            }
        }
    }
}

private func stepPosition(_ text: String, _ chain: Chain, _ file: String) throws -> Int {
    let position = try resolveStep(text, in: chain, file: file)
    if position == 0 { throw Failure.usage("\(file): step 0 is the input, not a filter") }
    return position
}

private func setEnabled(_ file: String, _ step: String, _ enabled: Bool) throws {
    var chain = try loadChain(file)
    chain.steps[try stepPosition(step, chain, file) - 1].enabled = enabled
    try ChainCommand.save(chain, to: file)
}
