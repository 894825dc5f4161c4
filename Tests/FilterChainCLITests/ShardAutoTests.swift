import Foundation
import Testing

/// `--shard auto`: the share from a scheduler's environment, the same share `--shard I/N`
/// gives (input k, from 0, in share k % N + 1).
@Suite struct ShardAutoTests {
    let folder = CLI.temporaryFolder()
    static let count = 12

    /// img00.png ... img11.png (small grey copies), and list.txt naming them in order.
    func inputs() throws -> [String] {
        try FileManager.default.createDirectory(atPath: folder + "/in", withIntermediateDirectories: true)
        let names = (0..<Self.count).map { String(format: "in/img%02d.png", $0) }
        for name in names { try FileManager.default.copyItem(atPath: CLI.samples + "/gamma-stripes.png", toPath: folder + "/" + name) }
        CLI.write(names.joined(separator: "\n") + "\n", to: folder + "/list.txt")
        return names
    }

    /// The test's environment without any scheduler's variables, plus `variables`.
    static func environment(_ variables: [String: String]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment.filter {
            !$0.key.hasPrefix("SLURM_") && $0.key != "JOB_COMPLETION_INDEX" && $0.key != "FILTERCHAIN_SHARD_COUNT"
        }
        env.merge(variables) { $1 }
        return env
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var variables: [String: String]
        var arguments: [String] = []
        /// The share, 1-based, worked out by hand.
        var index: Int
        var shares: Int
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "Slurm --array=0-3, task 2", variables: slurm(id: 2, min: 0, max: 3, step: 1, count: 4), index: 3, shares: 4),
        Case(name: "Slurm --array=1-4, task 1", variables: slurm(id: 1, min: 1, max: 4, step: 1, count: 4), index: 1, shares: 4),
        Case(name: "Slurm --array=1-7:2, task 5", variables: slurm(id: 5, min: 1, max: 7, step: 2, count: 4), index: 3, shares: 4),
        Case(name: "Slurm --array=10-40:10%2, task 40", variables: slurm(id: 40, min: 10, max: 40, step: 10, count: 4), index: 4, shares: 4),
        Case(name: "Slurm --array=5-7, task 6, 3 shares", variables: slurm(id: 6, min: 5, max: 7, step: 1, count: 3), index: 2, shares: 3),
        Case(name: "Slurm without STEP and MAX (older releases)",
             variables: ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "4"], index: 3, shares: 4),
        Case(name: "Slurm task 2 resubmitted alone (--array=2) with FILTERCHAIN_SHARD_COUNT=4",
             variables: slurm(id: 2, min: 2, max: 2, step: 1, count: 1).merging(["FILTERCHAIN_SHARD_COUNT": "4"]) { $1 }, index: 3, shares: 4),
        Case(name: "Slurm task 3 with --shard-count 4", variables: slurm(id: 3, min: 3, max: 3, step: 1, count: 1),
             arguments: ["--shard-count", "4"], index: 4, shares: 4),
        Case(name: "Kubernetes index 0 with --shard-count 4", variables: ["JOB_COMPLETION_INDEX": "0"],
             arguments: ["--shard-count", "4"], index: 1, shares: 4),
        Case(name: "Kubernetes index 2 with FILTERCHAIN_SHARD_COUNT=3", variables: ["JOB_COMPLETION_INDEX": "2", "FILTERCHAIN_SHARD_COUNT": "3"],
             index: 3, shares: 3),
        Case(name: "--shard-count wins over FILTERCHAIN_SHARD_COUNT", variables: ["JOB_COMPLETION_INDEX": "1", "FILTERCHAIN_SHARD_COUNT": "2"],
             arguments: ["--shard-count", "6"], index: 2, shares: 6),
    ]

    static func slurm(id: Int, min: Int, max: Int, step: Int, count: Int) -> [String: String] {
        ["SLURM_ARRAY_TASK_ID": "\(id)", "SLURM_ARRAY_TASK_MIN": "\(min)", "SLURM_ARRAY_TASK_MAX": "\(max)",
         "SLURM_ARRAY_TASK_STEP": "\(step)", "SLURM_ARRAY_TASK_COUNT": "\(count)", "SLURM_JOB_ID": "1234", "SLURM_ARRAY_JOB_ID": "1230"]
    }

    @Test(arguments: cases)
    func autoTakesTheShareFromTheEnvironment(_ c: Case) throws {
        let names = try inputs()
        let r = try CLI.run(["apply", CLI.samples + "/chains/invert.json", "--files-from", "list.txt", "--output-dir", "out",
                             "--shard", "auto", "--report", "r.jsonl"] + c.arguments,
                            in: folder, environment: Self.environment(c.variables))
        #expect(r.status == 0, "\(r.stderr)")
        // Every N-th input, starting with the I-th.
        let expected = names.enumerated().filter { $0.offset % c.shares == c.index - 1 }
            .map { ($0.element as NSString).lastPathComponent }
        #expect(CLI.files(in: folder + "/out") == expected)
        #expect(r.stderr.hasPrefix("shard \(c.index)/\(c.shares) ("), "\(r.stderr)")
        #expect(r.stderr.contains("): \(expected.count) of \(Self.count) inputs\n"), "\(r.stderr)")
        let report = try String(contentsOfFile: folder + "/r.jsonl", encoding: .utf8)
        #expect(report.components(separatedBy: "\"shard\":\"\(c.index)/\(c.shares)\"").count - 1 == expected.count, "\(report)")
    }

    struct Refusal: CustomTestStringConvertible, Sendable {
        var name: String
        var variables: [String: String]
        var arguments: [String] = []
        /// What the one error line must say.
        var says: [String]
        var testDescription: String { name }
    }

    static let refusals: [Refusal] = [
        Refusal(name: "no scheduler", variables: [:],
                says: ["--shard auto: no scheduler task index", "SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "--shard I/N"]),
        Refusal(name: "a Slurm job that is not an array", variables: ["SLURM_JOB_ID": "77"],
                says: ["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "not an array: submit it with sbatch --array"]),
        Refusal(name: "Kubernetes without a count", variables: ["JOB_COMPLETION_INDEX": "1"],
                says: ["JOB_COMPLETION_INDEX=1", "--shard-count N or FILTERCHAIN_SHARD_COUNT"]),
        Refusal(name: "Kubernetes index beyond the count", variables: ["JOB_COMPLETION_INDEX": "4"], arguments: ["--shard-count", "4"],
                says: ["JOB_COMPLETION_INDEX=4 is not a shard index below 4"]),
        Refusal(name: "a Slurm array that is a list (--array=1,3,10)", variables: slurm(id: 3, min: 1, max: 10, step: 1, count: 3),
                says: ["not evenly spaced", "SLURM_ARRAY_TASK_MIN=1, MAX=10, STEP=1, COUNT=3"]),
        Refusal(name: "a Slurm task off the array's step", variables: slurm(id: 2, min: 1, max: 7, step: 2, count: 4),
                says: ["SLURM_ARRAY_TASK_ID=2 is not in the array"]),
        Refusal(name: "a Slurm value that is not a number", variables: slurm(id: 1, min: 0, max: 3, step: 1, count: 4)
                    .merging(["SLURM_ARRAY_TASK_COUNT": "four"]) { $1 },
                says: ["SLURM_ARRAY_TASK_COUNT='four' is not a whole number"]),
        Refusal(name: "a Slurm task without MIN and COUNT", variables: ["SLURM_ARRAY_TASK_ID": "1"],
                says: ["SLURM_ARRAY_TASK_MIN or SLURM_ARRAY_TASK_COUNT is not"]),
        Refusal(name: "FILTERCHAIN_SHARD_COUNT that is not a count", variables: ["JOB_COMPLETION_INDEX": "0", "FILTERCHAIN_SHARD_COUNT": "0"],
                says: ["FILTERCHAIN_SHARD_COUNT='0' is not a number of shares"]),
        Refusal(name: "--shard-count without --shard auto", variables: ["JOB_COMPLETION_INDEX": "0"], arguments: ["--shard", "1/4", "--shard-count", "4"],
                says: ["--shard-count goes with --shard auto"]),
    ]

    @Test(arguments: refusals)
    func withoutAUsableIndexItIsAUsageError(_ c: Refusal) throws {
        _ = try inputs()
        let r = try CLI.run(["apply", CLI.samples + "/chains/invert.json", "--files-from", "list.txt", "--output-dir", "out",
                             "--report", "r.jsonl"] + (c.arguments.contains("--shard") ? [] : ["--shard", "auto"]) + c.arguments,
                            in: folder, environment: Self.environment(c.variables))
        #expect(r.status == 64)
        #expect(r.stderr.hasPrefix("filterchain: error: ") && r.stderr.filter { $0 == "\n" }.count == 1, "\(r.stderr)")
        for text in c.says { #expect(r.stderr.contains(text), "\(r.stderr)") }
        #expect(!FileManager.default.fileExists(atPath: folder + "/out") && !FileManager.default.fileExists(atPath: folder + "/r.jsonl"))
    }
}
