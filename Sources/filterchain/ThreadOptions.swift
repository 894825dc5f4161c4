import ArgumentParser
import FilterChain

/// How many threads render: shared by every command that renders. The renderer's one pool
/// of N threads serves every image in flight, so N bounds the threads doing pixel work.
struct ThreadOptions: ParsableArguments {
    /// Unconditional: `--threads -2` is a bad count, not a missing value and an unknown option.
    @Option(parsing: .unconditional, help: ArgumentHelp("Threads that render, 1 or more (default: the number of cores).", valueName: "n"))
    var threads: Int?

    func validate() throws {
        if let threads, threads < 1 { throw ValidationError("--threads: \(threads); must be 1 or more") }
    }

    /// The number of threads: --threads, else one per core.
    var count: Int { threads ?? WorkerPool.availableCores }

    /// A renderer with that many threads.
    func renderer() -> Renderer { Renderer(threads: count) }
}
