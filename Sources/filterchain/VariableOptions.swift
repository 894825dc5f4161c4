import ArgumentParser
import FilterChain

/// `--set NAME=VALUE`, repeatable: overrides a variable the chain declares, for this run
/// (`apply`, `steps`, `validate`; `edit` takes it too).
struct VariableOptions: ParsableArguments {
    @Option(name: .customLong("set"), help: ArgumentHelp("Set a variable the chain declares: NAME=VALUE, a number within its range (repeatable).", valueName: "name=value"))
    var assignments: [String] = []

    func validate() throws {
        for text in assignments where ChainVariable.assignment(text) == nil {
            throw ValidationError("--set '\(text)': write NAME=VALUE with a number, like --set strength=0.8")
        }
    }

    /// The chain with the variables set. A name the chain does not declare, or a value
    /// outside the variable's range, is a usage error (64) listing the declared variables;
    /// what the new values make of the chain's expressions is checked as the file was (65).
    func apply(to chain: Chain, file: String) throws -> Chain {
        let set = try setting(chain, file: file)
        if !assignments.isEmpty { do { try set.checkExpressions(file: file) } catch { throw Failure.chain(error) } }
        return set
    }

    /// The chain with the variables set, not yet checked further (usage errors only).
    func setting(_ chain: Chain, file: String) throws -> Chain {
        guard !assignments.isEmpty else { return chain }
        do { return try chain.settingVariables(assignments.compactMap(ChainVariable.assignment), file: file) } catch {
            throw Failure.usage("--set: " + error.description)
        }
    }
}
