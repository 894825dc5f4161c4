import Foundation
import Testing

/// `filterchain report merge` on reports written by hand: each input of the list done or
/// skipped exactly once, or the command says which are not and exits 1.
@Suite struct ReportMergeTests {
    let folder = CLI.temporaryFolder()

    /// A report line as --report writes it.
    static func line(_ input: String, _ status: String, shard: String, time: String = "2025-01-01T00:00:00.000Z",
                     error: String? = nil) -> String {
        let error = error.map { "\"\($0)\"" } ?? "null"
        return #"{"input":"\#(input)","output":"out/\#(input)","status":"\#(status)","error":\#(error),"seconds":0.5,"shard":"\#(shard)","time":"\#(time)"}"#
    }

    func report(_ name: String, _ lines: [String]) {
        CLI.write(lines.map { $0 + "\n" }.joined(), to: folder + "/" + name)
    }

    func list(_ inputs: [String]) {
        CLI.write(inputs.joined(separator: "\n") + "\n", to: folder + "/list.txt")
    }

    func merge(_ arguments: [String]) throws -> CLI.Result {
        try CLI.run(["report", "merge"] + arguments, in: folder)
    }

    @Test func everyInputOnceIsComplete() throws {
        list(["a.png", "b.png", "c.png", "d.png"])
        report("r1.jsonl", [Self.line("a.png", "done", shard: "1/2"), Self.line("c.png", "skipped", shard: "1/2")])
        report("r2.jsonl", [Self.line("b.png", "done", shard: "2/2"), Self.line("d.png", "done", shard: "2/2")])
        let r = try merge(["r1.jsonl", "r2.jsonl", "--files-from", "list.txt"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.out == "4 inputs: 3 done, 1 skipped, 0 failed, 0 in no report, 0 duplicated\n")
        #expect(r.stderr.isEmpty)
    }

    @Test func failedAndMissingInputsAreNamed() throws {
        list(["a.png", "b.png", "c.png", "d.png"])
        report("r1.jsonl", [Self.line("a.png", "done", shard: "1/2"), Self.line("c.png", "failed", shard: "1/2", error: "c.png: not a PNG file")])
        report("r2.jsonl", [Self.line("b.png", "done", shard: "2/2")])
        let r = try merge(["r1.jsonl", "r2.jsonl", "--files-from", "list.txt"])
        #expect(r.status == 1)
        #expect(r.out == """
            4 inputs: 2 done, 0 skipped, 1 failed, 1 in no report, 0 duplicated
            failed:
              c.png: not a PNG file (shard 1/2, r1.jsonl:2)
            in no report:
              d.png

            """, "\(r.out)")
    }

    @Test func inputsInTwoSharesOrDoneTwiceAreDuplicated() throws {
        list(["a.png", "b.png", "c.png"])
        // a.png in a 1/2 split and a 2/2 split; b.png done by two runs of one share.
        report("r1.jsonl", [Self.line("a.png", "done", shard: "1/2"), Self.line("b.png", "done", shard: "1/2"),
                            Self.line("c.png", "done", shard: "1/2"), Self.line("b.png", "done", shard: "1/2", time: "2025-01-02T00:00:00.000Z")])
        report("r2.jsonl", [Self.line("a.png", "skipped", shard: "2/2")])
        let r = try merge(["r1.jsonl", "r2.jsonl", "--files-from", "list.txt"])
        #expect(r.status == 1)
        #expect(r.out == """
            3 inputs: 1 done, 0 skipped, 0 failed, 0 in no report, 2 duplicated
            duplicated:
              a.png: in shards 1/2 and 2/2: done in shard 1/2 (r1.jsonl:1), skipped in shard 2/2 (r2.jsonl:1)
              b.png: done 2 times: done in shard 1/2 (r1.jsonl:2), done in shard 1/2 (r1.jsonl:4)

            """, "\(r.out)")
    }

    struct ReRun: CustomTestStringConvertible, Sendable {
        var statuses: [String]
        var counts: String
        var status: Int32
        var testDescription: String { statuses.joined(separator: " then ") }
    }

    /// Runs of one share, oldest first: the latest counts; only two `done` make a duplicate.
    @Test(arguments: [
        ReRun(statuses: ["failed", "done"], counts: "1 done, 0 skipped, 0 failed", status: 0),
        ReRun(statuses: ["done", "skipped"], counts: "0 done, 1 skipped, 0 failed", status: 0),
        ReRun(statuses: ["done", "skipped", "skipped"], counts: "0 done, 1 skipped, 0 failed", status: 0),
        ReRun(statuses: ["failed", "failed"], counts: "0 done, 0 skipped, 1 failed", status: 1),
        ReRun(statuses: ["done", "failed"], counts: "0 done, 0 skipped, 1 failed", status: 1),
        ReRun(statuses: ["skipped", "done"], counts: "1 done, 0 skipped, 0 failed", status: 0),
    ])
    func theLatestRecordOfAShareCounts(_ c: ReRun) throws {
        list(["a.png"])
        report("r.jsonl", c.statuses.enumerated().map { k, status in
            Self.line("a.png", status, shard: "3/4", time: "2025-01-0\(k + 1)T00:00:00.000Z", error: status == "failed" ? "a.png: broken" : nil)
        })
        let r = try merge(["r.jsonl", "--files-from", "list.txt"])
        #expect(r.status == c.status)
        #expect(r.out.hasPrefix("1 input: \(c.counts), 0 in no report, 0 duplicated\n"), "\(r.out)")
    }

    /// A share's runs written to two files: the later time wins, whatever the files' order.
    @Test func latestIsByTimeAcrossFiles() throws {
        list(["a.png"])
        report("z-first-run.jsonl", [Self.line("a.png", "failed", shard: "1/1", time: "2025-01-01T10:00:00.000Z", error: "a.png: cut")])
        report("a-second-run.jsonl", [Self.line("a.png", "done", shard: "1/1", time: "2025-01-01T11:00:00.000Z")])
        let r = try merge(["a-second-run.jsonl", "z-first-run.jsonl", "--files-from", "list.txt"])
        #expect(r.status == 0 && r.out.hasPrefix("1 input: 1 done,"), "\(r.out)")
    }

    @Test func jsonForScripts() throws {
        list(["a.png", "b.png", "c.png", "d.png"])
        report("r1.jsonl", [Self.line("a.png", "done", shard: "1/2"), Self.line("b.png", "failed", shard: "1/2", error: "b.png: truncated"),
                            Self.line("c.png", "done", shard: "1/2"), Self.line("e.png", "done", shard: "1/2")])
        report("r2.jsonl", [Self.line("c.png", "done", shard: "2/2")])
        let r = try merge(["r1.jsonl", "r2.jsonl", "--files-from", "list.txt", "--json"])
        #expect(r.status == 1)
        let json = try #require(JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        #expect(json["complete"] as? Bool == false)
        #expect(json["inputs"] as? Int == 4 && json["done"] as? Int == 1 && json["skipped"] as? Int == 0)
        let failed = try #require(json["failed"] as? [[String: Any]])
        #expect(failed.count == 1 && failed[0]["input"] as? String == "b.png" && failed[0]["error"] as? String == "b.png: truncated")
        #expect(failed[0]["shard"] as? String == "1/2" && failed[0]["report"] as? String == "r1.jsonl" && failed[0]["line"] as? Int == 2)
        #expect(json["missing"] as? [String] == ["d.png"])
        let duplicated = try #require(json["duplicated"] as? [[String: Any]])
        #expect(duplicated.count == 1 && duplicated[0]["input"] as? String == "c.png")
        let records = try #require(duplicated[0]["records"] as? [[String: Any]])
        #expect(records.map { $0["shard"] as? String } == ["1/2", "2/2"] && records.map { $0["report"] as? String } == ["r1.jsonl", "r2.jsonl"])
        #expect(json["unlisted"] as? [String] == ["e.png"])
        #expect((json["unreadable"] as? [Any])?.isEmpty == true)

        list(["a.png"])
        let complete = try merge(["r1.jsonl", "--files-from", "list.txt", "--json"])
        #expect(complete.status == 0)
        let done = try #require(JSONSerialization.jsonObject(with: complete.stdout) as? [String: Any])
        #expect(done["complete"] as? Bool == true && done["unlisted"] as? [String] == ["b.png", "c.png", "e.png"])
    }

    @Test func withoutAListTheReportsInputsAreCounted() throws {
        report("r.jsonl", [Self.line("a.png", "done", shard: "1/1"), Self.line("b.png", "skipped", shard: "1/1")])
        let r = try merge(["r.jsonl"])
        #expect(r.status == 0)
        #expect(r.out == "2 inputs in the reports: 1 done, 1 skipped, 0 failed, 0 duplicated\n(without --files-from, inputs that no report names cannot be counted)\n")
        let json = try #require(JSONSerialization.jsonObject(with: try merge(["r.jsonl", "--json"]).stdout) as? [String: Any])
        #expect(json["missing"] is NSNull)
    }

    @Test func aLineThatIsNotAReportLineIsNamed() throws {
        list(["a.png"])
        CLI.write(Self.line("a.png", "done", shard: "1/1") + "\n{\"input\":\"b.png\",\"status\":\"lost\",\"shard\":\"1/1\"}\nhello\n", to: folder + "/r.jsonl")
        let r = try merge(["r.jsonl", "--files-from", "list.txt"])
        #expect(r.status == 65)
        #expect(r.out.contains("unreadable report lines:\n  r.jsonl:2: \"status\" is not \"done\", \"skipped\" or \"failed\"\n  r.jsonl:3: not JSON"), "\(r.out)")
    }

    @Test func usageErrors() throws {
        let none = try merge([])
        #expect(none.status == 64 && none.stderr.contains("report merge needs the report files"), "\(none.stderr)")
        let missing = try merge(["nowhere.jsonl"])
        #expect(missing.status == 64 && missing.stderr == "filterchain: error: nowhere.jsonl: cannot read the report\n", "\(missing.stderr)")
        report("r.jsonl", [Self.line("a.png", "done", shard: "1/1")])
        let noList = try merge(["r.jsonl", "--files-from", "nolist.txt"])
        #expect(noList.status == 64 && noList.stderr.contains("nolist.txt: cannot read the list of inputs"), "\(noList.stderr)")
    }

    /// Real reports of four shares, a re-run with --skip-existing, a re-run without it and a
    /// list split two ways.
    @Test func reportsOfRealShares() throws {
        let reports = ReportTests()
        let names = try reports.inputs()
        let dir = reports.folder
        func apply(_ args: [String]) throws -> Int32 { try reports.apply(args + ["-q"]).status }
        for shard in 1...4 { _ = try apply(["--shard", "\(shard)/4", "--report", "reports/s-{shard}.jsonl"]) }
        let shards = (1...4).map { "reports/s-\($0).jsonl" }
        let first = try CLI.run(["report", "merge"] + shards + ["--files-from", "list.txt"], in: dir)
        #expect(first.status == 1)
        #expect(first.out.hasPrefix("9 inputs: 8 done, 0 skipped, 1 failed, 0 in no report, 0 duplicated\nfailed:\n  in/damaged.png: "), "\(first.out)")
        // Without share 2's report, its inputs are in no report.
        let partial = try CLI.run(["report", "merge", shards[0], shards[2], shards[3], "--files-from", "list.txt"], in: dir)
        #expect(partial.out.contains("in no report:\n  \(names[1])\n  \(names[5])\n"), "\(partial.out)")

        #expect(try apply(["--shard", "3/4", "--report", "reports/s-{shard}.jsonl", "--skip-existing"]) == 0)
        let resumed = try CLI.run(["report", "merge"] + shards + ["--files-from", "list.txt"], in: dir)
        #expect(resumed.out.hasPrefix("9 inputs: 6 done, 2 skipped, 1 failed, 0 in no report, 0 duplicated\n"), "\(resumed.out)")

        #expect(try apply(["--shard", "2/4", "--report", "reports/s-{shard}.jsonl"]) == 0)
        let redone = try CLI.run(["report", "merge"] + shards + ["--files-from", "list.txt"], in: dir)
        #expect(redone.out.hasPrefix("9 inputs: 4 done, 2 skipped, 1 failed, 0 in no report, 2 duplicated\n"), "\(redone.out)")
        #expect(redone.out.contains("\(names[1]): done 2 times"), "\(redone.out)")

        _ = try apply(["--shard", "1/2", "--report", "reports/half-{shard}.jsonl", "--skip-existing"])
        let twoWays = try CLI.run(["report", "merge"] + shards + ["reports/half-1.jsonl", "--files-from", "list.txt"], in: dir)
        #expect(twoWays.status == 1)
        #expect(twoWays.out.contains("\(names[0]): in shards 1/4 and 1/2: done in shard 1/4"), "\(twoWays.out)")
    }
}
