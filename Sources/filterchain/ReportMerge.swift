import FilterChain
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `--report` files of a batch's shares read together: what became of each input.
///
/// The rules (OnACluster.md in the DocC catalog; README, "On a cluster"):
/// - A share's report may hold several runs of it (a task re-run appends): for each input,
///   the latest record of a share counts, latest by its `time`, then by the order of the
///   reports given and of their lines. So `failed` then `done` (the image replaced, the task
///   re-run) is done, `done` then `skipped` (re-run with --skip-existing) is skipped, and
///   `done` then `failed` is failed.
/// - An input is duplicated when records of it come from two shares (the list was split
///   two ways, or two lists overlap), or when it was done more than once (a share re-run
///   without --skip-existing did the work again).
/// - An input of the list with no record is in no report: its share never reached it.
struct ReportMerge {
    struct Record {
        var input: String
        var status: BatchReport.Outcome
        var error: String?
        var shard: String
        var time: String
        var report: String
        var reportIndex: Int
        var line: Int

        var place: String { "\(report):\(line)" }
    }

    struct Unreadable {
        var report: String
        var line: Int
        var reason: String
    }

    struct Duplicate {
        var input: String
        var reason: String
        var records: [Record]
    }

    private(set) var records: [Record] = []
    private(set) var unreadable: [Unreadable] = []

    /// Reads every report; a file that cannot be read is a usage error, a line that is not a
    /// report line is kept in `unreadable`.
    init(reports: [String]) throws {
        for (index, path) in reports.enumerated() {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw Failure.usage("\(path): cannot read the report")
            }
            let lines = [UInt8](data).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            for (k, bytes) in lines.enumerated() {
                if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
                switch Self.record(Array(bytes)) {
                case .success(var record):
                    record.report = path
                    record.reportIndex = index
                    record.line = k + 1
                    records.append(record)
                case .failure(let problem):
                    unreadable.append(Unreadable(report: path, line: k + 1, reason: problem.message))
                }
            }
        }
    }

    struct LineProblem: Error { var message: String }

    /// One line as `BatchReport` writes it: an object with input, status and shard.
    static func record(_ bytes: [UInt8]) -> Result<Record, LineProblem> {
        let node: JSONNode
        do { node = try JSONParser.parse(bytes) } catch {
            return .failure(LineProblem(message: "not JSON (\(error.message), column \(error.column)); a line cut short?"))
        }
        guard case .object(let members) = node.value else { return .failure(LineProblem(message: "not a JSON object")) }
        func string(_ key: String) -> String? {
            if case .string(let s)? = members.first(where: { $0.key == key })?.value.value { return s }
            return nil
        }
        guard let input = string("input") else { return .failure(LineProblem(message: "no \"input\"")) }
        guard let text = string("status"), let status = BatchReport.Outcome(rawValue: text) else {
            return .failure(LineProblem(message: "\"status\" is not \"done\", \"skipped\" or \"failed\""))
        }
        guard let shard = string("shard") else { return .failure(LineProblem(message: "no \"shard\"")) }
        return .success(Record(input: input, status: status, error: string("error"), shard: shard, time: string("time") ?? "",
                               report: "", reportIndex: 0, line: 0))
    }

    struct Summary {
        /// The inputs accounted for: the list's, or without one those in the reports.
        var inputs: [String]
        var listed: Bool
        var done = 0
        var skipped = 0
        var failed: [Record] = []
        var missing: [String] = []
        var duplicated: [Duplicate] = []
        /// In the reports but not in the list.
        var unlisted: [String] = []
        var unreadable: [Unreadable] = []

        /// Every input done or skipped exactly once, and every report line read.
        var complete: Bool { failed.isEmpty && missing.isEmpty && duplicated.isEmpty && unreadable.isEmpty }

        /// 0 complete; 65 a report line could not be read; 1 otherwise.
        var status: Int32 {
            if !unreadable.isEmpty { return Status.invalidReport }
            return complete ? Status.success : Status.failure
        }
    }

    /// What became of each input of `list` (nil: of every input in the reports).
    func summary(list: [String]?) -> Summary {
        var byInput: [String: [Record]] = [:]
        var order: [String] = []
        for record in records {
            if byInput[record.input] == nil { order.append(record.input) }
            byInput[record.input, default: []].append(record)
        }
        var summary = Summary(inputs: [], listed: list != nil, unreadable: unreadable)
        if let list {
            var seen = Set<String>()
            summary.inputs = list.filter { seen.insert($0).inserted }
            summary.unlisted = order.filter { !seen.contains($0) }
        } else {
            summary.inputs = order
        }
        for input in summary.inputs {
            guard let all = byInput[input] else {
                summary.missing.append(input)
                continue
            }
            var shards: [String] = []
            for record in all where !shards.contains(record.shard) { shards.append(record.shard) }
            let doneCount = all.filter { $0.status == .done }.count
            if shards.count > 1 || doneCount > 1 {
                var reasons: [String] = []
                if shards.count > 1 { reasons.append("in shards \(listText(shards))") }
                if doneCount > 1 { reasons.append("done \(doneCount) times") }
                summary.duplicated.append(Duplicate(input: input, reason: reasons.joined(separator: ", "), records: all))
                continue
            }
            let latest = all.max { a, b in
                (a.time, a.reportIndex, a.line) < (b.time, b.reportIndex, b.line)
            }!
            switch latest.status {
            case .done: summary.done += 1
            case .skipped: summary.skipped += 1
            case .failed: summary.failed.append(latest)
            }
        }
        return summary
    }
}

extension ReportMerge.Summary {
    /// For people: a count line, then each list that is not empty (long lists cut at
    /// `limit`, as --json gives them whole).
    func text(limit: Int = 100) -> String {
        var counts = "\(done) done, \(skipped) skipped, \(failed.count) failed"
        if listed { counts += ", \(missing.count) in no report" }
        counts += ", \(duplicated.count) duplicated"
        let noun = inputs.count == 1 ? "input" : "inputs"
        var out = "\(inputs.count) \(noun)\(listed ? "" : " in the reports"): \(counts)\n"
        func section(_ title: String, _ lines: [String]) {
            guard !lines.isEmpty else { return }
            out += "\(title):\n"
            for line in lines.prefix(limit) { out += "  \(line)\n" }
            if lines.count > limit { out += "  ... and \(lines.count - limit) more (--json lists them all)\n" }
        }
        section("failed", failed.map { r in
            let error = r.error ?? "failed"
            return (error.hasPrefix(r.input) ? error : "\(r.input): \(error)") + " (shard \(r.shard), \(r.place))"
        })
        section("in no report", missing)
        section("duplicated", duplicated.map { d in
            "\(d.input): \(d.reason): " + d.records.map { "\($0.status.rawValue) in shard \($0.shard) (\($0.place))" }.joined(separator: ", ")
        })
        section("in the reports but not in the list", unlisted)
        section("unreadable report lines", unreadable.map { "\($0.report):\($0.line): \($0.reason)" })
        if !listed { out += "(without --files-from, inputs that no report names cannot be counted)\n" }
        return out
    }

    /// For scripts.
    var json: JSONNode {
        func node(_ s: String) -> JSONNode { JSONNode(.string(s)) }
        func node(_ n: Int) -> JSONNode { JSONNode(.number(Double(n))) }
        func object(_ members: [(String, JSONNode)]) -> JSONNode { JSONNode(.object(members.map { (key: $0.0, value: $0.1) })) }
        func place(_ r: ReportMerge.Record) -> [(String, JSONNode)] { [("report", node(r.report)), ("line", node(r.line))] }
        return object([
            ("complete", JSONNode(.bool(complete))),
            ("inputs", node(inputs.count)),
            ("done", node(done)),
            ("skipped", node(skipped)),
            ("failed", JSONNode(.array(failed.map { r in
                object([("input", node(r.input)), ("error", r.error.map(node) ?? JSONNode(.null)), ("shard", node(r.shard))] + place(r))
            }))),
            ("missing", listed ? JSONNode(.array(missing.map(node))) : JSONNode(.null)),
            ("duplicated", JSONNode(.array(duplicated.map { d in
                object([("input", node(d.input)), ("reason", node(d.reason)),
                        ("records", JSONNode(.array(d.records.map { r in
                            object([("status", node(r.status.rawValue)), ("shard", node(r.shard))] + place(r))
                        })))])
            }))),
            ("unlisted", JSONNode(.array(unlisted.map(node)))),
            ("unreadable", JSONNode(.array(unreadable.map { u in
                object([("report", node(u.report)), ("line", node(u.line)), ("reason", node(u.reason))])
            }))),
        ])
    }
}
