import Foundation
import Testing

/// `--report FILE`: one JSON line per finished input, appended whole.
@Suite struct ReportTests {
    let folder = CLI.temporaryFolder()

    /// in/img0.png ... in/img7.png with a damaged PNG at position 3, and list.txt.
    func inputs() throws -> [String] {
        try FileManager.default.createDirectory(atPath: folder + "/in", withIntermediateDirectories: true)
        var names = (0..<8).map { "in/img\($0).png" }
        for name in names { try FileManager.default.copyItem(atPath: CLI.samples + "/gamma-stripes.png", toPath: folder + "/" + name) }
        let good = try Data(contentsOf: URL(fileURLWithPath: CLI.samples + "/coffee.png"))
        try good.prefix(good.count / 3).write(to: URL(fileURLWithPath: folder + "/in/damaged.png"))
        names.insert("in/damaged.png", at: 3)
        CLI.write(names.joined(separator: "\n") + "\n", to: folder + "/list.txt")
        return names
    }

    func apply(_ arguments: [String]) throws -> CLI.Result {
        try CLI.run(["apply", CLI.samples + "/chains/invert.json", "--files-from", "list.txt", "--output-dir", "out"] + arguments,
                    in: folder, environment: ShardAutoTests.environment([:]))
    }

    /// The lines of a report, each parsed by Foundation's JSON parser; every line ends in a
    /// newline.
    func lines(_ path: String) throws -> [[String: Any]] {
        let text = try String(contentsOfFile: folder + "/" + path, encoding: .utf8)
        #expect(text.hasSuffix("\n"))
        return try text.split(separator: "\n").map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    /// "2025-01-31T12:00:00.123Z".
    static func isUTCTime(_ text: String) -> Bool {
        let pattern = Array("dddd-dd-ddTdd:dd:dd.dddZ")
        let chars = Array(text)
        return chars.count == pattern.count && zip(chars, pattern).allSatisfy { c, p in p == "d" ? c.isASCII && c.isNumber : c == p }
    }

    @Test func oneLinePerInputWithItsOutcome() throws {
        let names = try inputs()
        let r = try apply(["--shard", "2/2", "--report", "reports/r-{shard}.jsonl", "--jobs", "3"])
        #expect(r.status == 1, "\(r.stderr)")
        let lines = try lines("reports/r-2.jsonl")
        // Share 2 of 2: positions 1, 3, 5, 7.
        let share = [names[1], names[3], names[5], names[7]]
        #expect(Set(lines.compactMap { $0["input"] as? String }) == Set(share) && lines.count == 4)
        for line in lines {
            #expect(Set(line.keys) == ["input", "output", "status", "error", "seconds", "shard", "time"])
            let input = try #require(line["input"] as? String)
            let damaged = input == "in/damaged.png"
            #expect(line["output"] as? String == "out/" + (input as NSString).lastPathComponent)
            #expect(line["status"] as? String == (damaged ? "failed" : "done"))
            if damaged {
                #expect((line["error"] as? String)?.hasPrefix("in/damaged.png: ") == true, "\(line)")
            } else {
                #expect(line["error"] is NSNull)
            }
            #expect((line["seconds"] as? Double ?? -1) >= 0)
            #expect(line["shard"] as? String == "2/2")
            #expect(Self.isUTCTime(line["time"] as? String ?? ""), "\(line)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder + "/reports/r-1.jsonl"))
    }

    @Test func aReRunAppendsAfterTheFirstRunsLines() throws {
        _ = try inputs()
        #expect(try apply(["--report", "r.jsonl", "-q"]).status == 1)
        let first = try String(contentsOfFile: folder + "/r.jsonl", encoding: .utf8)
        #expect(try apply(["--report", "r.jsonl", "--skip-existing", "-q"]).status == 1)
        let both = try String(contentsOfFile: folder + "/r.jsonl", encoding: .utf8)
        #expect(both.hasPrefix(first))
        let lines = try lines("r.jsonl")
        #expect(lines.count == 18)
        let statuses = lines.map { $0["status"] as? String ?? "" }
        #expect(statuses.prefix(9).filter { $0 == "done" }.count == 8 && statuses.prefix(9).filter { $0 == "failed" }.count == 1)
        // The second run skips what the first wrote and tries the damaged file again.
        #expect(statuses.suffix(9).filter { $0 == "skipped" }.count == 8 && statuses.suffix(9).filter { $0 == "failed" }.count == 1)
        // Without --shard the whole list is share 1 of 1.
        #expect(lines.allSatisfy { $0["shard"] as? String == "1/1" })
    }

    @Test func shardInTheNameIsTheShareNumber() throws {
        _ = try inputs()
        #expect(try apply(["--report", "r-{shard}-of-4-{shard}.jsonl", "--shard", "3/4", "-q"]).status == 0)
        #expect(try apply(["--report", "plain-{shard}.jsonl", "-q", "--skip-existing"]).status == 1)
        #expect(CLI.files(in: folder).filter { $0.hasSuffix(".jsonl") } == ["plain-1.jsonl", "r-3-of-4-3.jsonl"])
    }

    /// Two shares running at once append to one file, 4 images at a time each: every line
    /// stays whole.
    @Test func processesSharingOneReportKeepTheirLinesWhole() throws {
        let names = try inputs()
        func start(_ shard: String) throws -> Process {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: CLI.binary)
            p.arguments = ["apply", CLI.samples + "/chains/invert.json", "--files-from", "list.txt", "--output-dir", "out",
                           "--shard", shard, "--jobs", "4", "--report", "shared.jsonl", "-q"]
            p.currentDirectoryURL = URL(fileURLWithPath: folder)
            p.standardError = FileHandle.nullDevice
            try p.run()
            return p
        }
        let a = try start("1/2"), b = try start("2/2")
        a.waitUntilExit()
        b.waitUntilExit()
        let lines = try lines("shared.jsonl")
        #expect(lines.count == names.count)
        #expect(Set(lines.compactMap { $0["input"] as? String }) == Set(names))
    }

    /// A line cut short by a killed writer is ended before the next run's lines, so they
    /// stand alone; `report merge` names the cut line.
    @Test func aLineCutShortIsEndedBeforeTheNextLine() throws {
        _ = try inputs()
        CLI.write(#"{"input":"in/img0.png","output":"out/img0.png","status":"do"#, to: folder + "/r.jsonl")
        #expect(try apply(["--report", "r.jsonl", "-q"]).status == 1)
        let text = try String(contentsOfFile: folder + "/r.jsonl", encoding: .utf8)
        let lines = text.split(separator: "\n")
        #expect(lines.count == 10 && lines[0] == #"{"input":"in/img0.png","output":"out/img0.png","status":"do"#)
        for line in lines.dropFirst() { #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "\(line)") }
        let merge = try CLI.run(["report", "merge", "r.jsonl", "--files-from", "list.txt"], in: folder)
        #expect(merge.status == 65)
        #expect(merge.out.contains("unreadable report lines:\n  r.jsonl:1: not JSON"), "\(merge.out)")
    }

    @Test func reportNeedsABatch() throws {
        _ = try inputs()
        let r = try CLI.run(["apply", CLI.samples + "/chains/invert.json", "in/img0.png", "o.png", "--report", "r.jsonl"], in: folder)
        #expect(r.status == 64 && r.stderr.contains("--report records a batch"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/r.jsonl"))
    }
}
