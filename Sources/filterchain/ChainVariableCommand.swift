import ArgumentParser
import FilterChain

/// `filterchain chain var`: a chain's variables, which parameters read in expressions.
struct VariableCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "var",
        abstract: "Add, set or remove a chain's variables (numbers that parameters read in expressions).",
        discussion: """
            A variable is a name and a value: a number, or an expression over the variables above it ('=2 * gain'). Parameters read variables in expressions (chain set STEP sigma='=2 * strength'); --set NAME=VALUE on apply, steps, validate and edit overrides a value for one run. The file becomes version 2.

              filterchain chain var add look.json strength 0.5 --min 0 --max 1 \\
                --help "how strong the look is"
              filterchain chain var set look.json strength 0.8
              filterchain chain var remove look.json strength
            """,
        subcommands: [Add.self, Set.self, Remove.self])

    struct Add: ParsableCommand {
        // -h is the help flag: --help gives the variable's help text, as the file names it.
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add a variable (after the others).",
            discussion: "  filterchain chain var add look.json strength 0.5 --min 0 --max 1 \\\n    --help \"how strong the look is\"\n\n-h shows this help.",
            helpNames: [.short])

        @Argument(help: "The chain file.") var file: String
        @Argument(help: "The variable's name.") var name: String
        @Argument(help: ArgumentHelp("A number, or an expression over the variables above it ('=2 * gain').", valueName: "value")) var value: String
        @Option(help: ArgumentHelp("The lowest value allowed.", valueName: "number")) var min: Double?
        @Option(help: ArgumentHelp("The highest value allowed.", valueName: "number")) var max: Double?
        @Option(help: ArgumentHelp("One line saying what the variable does.", valueName: "text")) var help: String?

        func run() throws {
            var chain = try loadChain(file)
            do {
                let value = try chain.variableValue(self.value, at: chain.variables.count, file: file)
                try chain.addVariable(ChainVariable(name: name, value: value, minimum: min, maximum: max, help: help), file: file)
            } catch {
                // The chain would be invalid (a name not allowed, a value out of range or one
                // that names nothing): 65, as every chain edit that would make one.
                throw Failure(message: error.description, status: Status.invalidChain)
            }
            try ChainCommand.save(chain, to: file)
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Set a variable's value (and its range or help).",
            discussion: "  filterchain chain var set look.json strength 0.8\n  filterchain chain var set look.json strength 0.8 --max 2\n\n-h shows this help.",
            helpNames: [.short])

        @Argument(help: "The chain file.") var file: String
        @Argument(help: "The variable's name.") var name: String
        @Argument(help: ArgumentHelp("A number, or an expression over the variables above it.", valueName: "value")) var value: String?
        @Option(help: ArgumentHelp("The lowest value allowed ('none': no bound).", valueName: "number")) var min: String?
        @Option(help: ArgumentHelp("The highest value allowed ('none': no bound).", valueName: "number")) var max: String?
        @Option(help: ArgumentHelp("One line saying what the variable does ('' removes it).", valueName: "text")) var help: String?

        func validate() throws {
            if value == nil && min == nil && max == nil && help == nil { throw ValidationError("give a value, --min, --max or --help") }
            for (flag, text) in [("--min", min), ("--max", max)] {
                if let text, text != "none", Double(text)?.isFinite != true {
                    throw ValidationError("\(flag) '\(text)': a number, or none")
                }
            }
        }

        func run() throws {
            var chain = try loadChain(file)
            func bound(_ text: String?) -> Double?? { text.map { $0 == "none" ? nil : Double($0) } }
            let k: Int
            do { k = try chain.variableIndex(name, file: file) } catch { throw Failure.usage(error.description) }
            do {
                var value: ChainVariable.Value?
                if let text = self.value { value = try chain.variableValue(text, at: k, file: file) }
                try chain.setVariable(name, value: value, minimum: bound(min), maximum: bound(max),
                                      help: help.map { $0.isEmpty ? nil : $0 }, file: file)
            } catch {
                throw Failure(message: error.description, status: Status.invalidChain)
            }
            try ChainCommand.save(chain, to: file)
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Remove a variable (refused while a parameter or a variable reads it).",
            discussion: "  filterchain chain var remove look.json strength")

        @Argument(help: "The chain file.") var file: String
        @Argument(help: "The variable's name.") var name: String

        func run() throws {
            var chain = try loadChain(file)
            do { _ = try chain.variableIndex(name, file: file) } catch { throw Failure.usage(error.description) }
            // Refused while something reads it: the chain would be invalid.
            do { try chain.removeVariable(name, file: file) } catch {
                throw Failure(message: error.description, status: Status.invalidChain)
            }
            try ChainCommand.save(chain, to: file)
        }
    }
}
