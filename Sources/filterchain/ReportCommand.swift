import ArgumentParser
import FilterChain

/// `filterchain report merge`: the reports of a batch's shares checked together.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Check the --report files of a sharded batch together.",
        subcommands: [Merge.self])

    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "merge",
            abstract: "Say what became of every input of a batch, from the --report files of its shares.",
            discussion: """
                  filterchain report merge reports/*.jsonl --files-from list.txt

                Prints how many inputs were done, skipped and failed, then lists the failed ones with their errors, the inputs of the list in no report (their share never reached them: a task that died or never ran), and the duplicated ones (in the reports of two shares, or done twice).

                A share's report may hold several runs of it: for each input, the latest record of each share counts (by its time), so an input that failed and was done on a re-run counts as done, and one done then skipped by a re-run with --skip-existing counts once.

                Exit status: 0 every input of the list done or skipped exactly once; 1 some failed, were in no report or were duplicated; 64 usage error (a report or the list cannot be read); 65 a report has a line that is not a report line (it is named).
                """)

        @Argument(help: ArgumentHelp("The report files (--report of 'filterchain apply').", valueName: "report"))
        var reports: [String] = []

        @Option(name: .customLong("files-from"), help: ArgumentHelp("The batch's list of inputs, one per line ('-': stdin), to find inputs in no report.", valueName: "file"))
        var filesFrom: String?

        @Flag(help: "Print one JSON object (counts, and the failed, missing, duplicated inputs in full).")
        var json = false

        func run() throws {
            guard !reports.isEmpty else { throw Failure.usage("report merge needs the report files") }
            let list = try filesFrom.map(BatchRun.readList)
            let summary = try ReportMerge(reports: reports).summary(list: list)
            if json {
                Console.output(JSONWriter.pretty(summary.json), newline: false)
            } else {
                Console.output(summary.text(), newline: false)
            }
            if summary.status != Status.success { throw ExitCodeFailure(status: summary.status) }
        }
    }
}
