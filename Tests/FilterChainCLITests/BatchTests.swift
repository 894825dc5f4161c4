import Foundation
import Testing
import FilterChain

@Suite struct BatchTests {
    let folder = CLI.temporaryFolder()

    /// Copies of the samples plus one corrupt file, as inputs in `folder`/in.
    func inputs(corrupt: Bool = true) throws -> [String] {
        try FileManager.default.createDirectory(atPath: folder + "/in", withIntermediateDirectories: true)
        var names: [String] = []
        for (i, sample) in ["chelsea.png", "coffee.png", "rocket.jpg", "camera.png"].enumerated() {
            for copy in 0..<2 {
                let ext = (sample as NSString).pathExtension
                let name = "in/img\(i)\(copy).\(ext)"
                try FileManager.default.copyItem(atPath: CLI.samples + "/" + sample, toPath: folder + "/" + name)
                names.append(name)
            }
        }
        if corrupt {
            let data = try Data(contentsOf: URL(fileURLWithPath: CLI.samples + "/coffee.png"))
            var damaged = data
            damaged[data.count / 2] ^= 0xFF
            try damaged.write(to: URL(fileURLWithPath: folder + "/in/damaged.png"))
            names.insert("in/damaged.png", at: 3)
        }
        return names
    }

    @Test func aCorruptInputDoesNotStopTheOthers() throws {
        let names = try inputs()
        let r = try CLI.run(["apply", CLI.lookChain] + names + ["--output-dir", "out", "--json"], in: folder)
        #expect(r.status == 1)
        #expect(r.stderr.contains("filterchain: error: in/damaged.png: "), "\(r.stderr)")
        #expect(r.stderr.hasSuffix("8 written, 1 failed\n"), "\(r.stderr)")
        let written = CLI.files(in: folder + "/out")
        #expect(written.count == 8 && !written.contains("damaged.png"), "\(written)")
        let lines = r.out.split(separator: "\n").map { try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        #expect(lines.count == 9)
        for line in lines {
            let failed = (line["input"] as? String) == "in/damaged.png"
            #expect(line["status"] as? String == (failed ? "failed" : "written"))
            #expect(line["output"] is String && line["milliseconds"] is Int)
            if failed { #expect((line["error"] as? String)?.contains("damaged") == true) } else {
                #expect((line["width"] as? Int ?? 0) > 0 && (line["height"] as? Int ?? 0) > 0)
            }
        }
    }

    /// One image, `--json`: the line a batch prints for it (written: size, format, options;
    /// failed: the error, exit 1, nothing written); with the image on stdout it is refused.
    @Test func oneImageGivesTheBatchLine() throws {
        let r = try CLI.run(["apply", CLI.lookChain, CLI.samples + "/coffee.png", "one.jpg", "--quality", "80", "--json"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        let line = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as! [String: Any]
        #expect(line["status"] as? String == "written" && line["output"] as? String == "one.jpg")
        #expect(line["format"] as? String == "jpeg" && line["quality"] as? Int == 80)
        let image = try RasterImage(contentsOf: folder + "/one.jpg")
        #expect(line["width"] as? Int == image.width && line["height"] as? Int == image.height)
        #expect(line["milliseconds"] is Int && line["error"] is NSNull)
        let failed = try CLI.run(["apply", CLI.lookChain, "missing.png", "two.jpg", "--json"], in: folder)
        #expect(failed.status == 1)
        let failure = try JSONSerialization.jsonObject(with: Data(failed.out.utf8)) as! [String: Any]
        #expect(failure["status"] as? String == "failed" && (failure["error"] as? String)?.contains("missing.png") == true)
        #expect(!CLI.files(in: folder).contains("two.jpg"))
        let piped = try CLI.run(["apply", CLI.lookChain, CLI.samples + "/coffee.png", "-", "--format", "png", "--json"], in: folder)
        #expect(piped.status == 64 && piped.out.isEmpty && piped.stderr.contains("--json prints on standard output"))
    }

    #if os(Linux)
    /// On a terminal (a pty from util-linux `script`) the progress line is redrawn in place
    /// after each image and cleared before the summary; --quiet and a pipe get neither.
    /// util-linux `script` can give a command a pty here (not in every container).
    static let terminalAvailable: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { return false }
        return (try? CLI.run(["-qec", "test -t 2", "/dev/null"], executable: "/usr/bin/script").status == 0) ?? false
    }()

    /// In CI (.ci/run sets CI and installs util-linux) a missing pty fails the test.
    static let required = ProcessInfo.processInfo.environment["CI"] != nil

    @Test(.enabled(if: terminalAvailable || required, "needs a pty from util-linux script"))
    func progressLineOnlyOnATerminal() throws {
        try #require(Self.terminalAvailable, "no pty from /usr/bin/script (util-linux), which CI installs")
        let names = try inputs(corrupt: false).prefix(3)
        let command = ([CLI.binary, "apply", CLI.lookChain] + names + ["--output-dir", "out"])
            .map { "'" + $0 + "'" }.joined(separator: " ")
        let onTerminal = try CLI.run(["-qec", command, "/dev/null"], in: folder, executable: "/usr/bin/script")
        #expect(onTerminal.status == 0, "\(onTerminal.stderr)")
        let screen = onTerminal.out
        for n in 1...3 {
            #expect(screen.contains("\r\u{1B}[K\(n)/3 images, "), "\(screen.debugDescription)")
        }
        #expect(screen.contains(", 0:0"), "time left: \(screen.debugDescription)")
        #expect(screen.hasSuffix("\r\u{1B}[K3 written, 0 failed\r\n"), "\(screen.debugDescription)")

        let quiet = try CLI.run(["-qec", command.replacingOccurrences(of: "'out'", with: "'out3'") + " --quiet", "/dev/null"],
                                in: folder, executable: "/usr/bin/script")
        #expect(quiet.status == 0 && quiet.out.isEmpty, "\(quiet.out.debugDescription)")
        #expect(CLI.files(in: folder + "/out3").count == 3)
        let piped = try CLI.run(["apply", CLI.lookChain] + names + ["--output-dir", "out2"], in: folder)
        #expect(piped.status == 0 && !piped.stderr.contains("\u{1B}"), "\(piped.stderr.debugDescription)")
        #expect(piped.stderr == "3 written, 0 failed\n", "\(piped.stderr.debugDescription)")
    }
    #endif

    @Test func outputsAreByteIdenticalWhateverJobsAndShards() throws {
        let names = try inputs(corrupt: false)
        #expect(try CLI.run(["apply", CLI.lookChain] + names + ["--output-dir", "one", "--jobs", "1", "-q"], in: folder).status == 0)
        #expect(try CLI.run(["apply", CLI.lookChain] + names + ["--output-dir", "many", "--jobs", "3", "-q"], in: folder).status == 0)
        for shard in 1...3 {
            #expect(try CLI.run(["apply", CLI.lookChain] + names + ["--output-dir", "sharded", "--shard", "\(shard)/3", "-q"], in: folder).status == 0)
        }
        let one = CLI.files(in: folder + "/one")
        #expect(one.count == names.count)
        #expect(CLI.files(in: folder + "/many") == one && CLI.files(in: folder + "/sharded") == one)
        for name in one {
            let a = try Data(contentsOf: URL(fileURLWithPath: folder + "/one/" + name))
            #expect(a == (try Data(contentsOf: URL(fileURLWithPath: folder + "/many/" + name))), "\(name)")
            #expect(a == (try Data(contentsOf: URL(fileURLWithPath: folder + "/sharded/" + name))), "\(name)")
        }
    }

    @Test func shardsAreDisjointAndCoverTheList() throws {
        let names = try inputs(corrupt: false)
        var seen: [String] = []
        for shard in 1...4 {
            let r = try CLI.run(["apply", CLI.lookChain] + names + ["--output-dir", "s\(shard)", "--shard", "\(shard)/4", "-q"], in: folder)
            #expect(r.status == 0)
            seen += CLI.files(in: folder + "/s\(shard)")
        }
        #expect(Set(seen).count == names.count && seen.count == names.count)
        let bad = try CLI.run(["apply", CLI.lookChain] + names + ["--output-dir", "x", "--shard", "5/4"], in: folder)
        #expect(bad.status == 64)
    }

    @Test func namingSuffixFormatClashesAndFilesFrom() throws {
        let names = try inputs(corrupt: false)
        CLI.write(names.joined(separator: "\n") + "\n", to: folder + "/list.txt")
        let r = try CLI.run(["apply", CLI.lookChain, "--files-from", "list.txt", "--output-dir", "o", "--format", "jpeg",
                             "--suffix=-edit", "-q"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        // A .jpg input keeps its extension, which names the format already.
        #expect(CLI.files(in: folder + "/o") == names.map { ($0 as NSString).lastPathComponent }
            .map { ($0 as NSString).deletingPathExtension + "-edit." + ($0.hasSuffix(".jpg") ? "jpg" : "jpeg") }.sorted())
        // Two inputs with one base name: an error before any work.
        try FileManager.default.createDirectory(atPath: folder + "/in2", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: CLI.samples + "/chelsea.png", toPath: folder + "/in2/img00.png")
        let clash = try CLI.run(["apply", CLI.lookChain, "in/img00.png", "in/img01.png", "in2/img00.png", "--output-dir", "c"], in: folder)
        #expect(clash.status == 64 && clash.stderr.contains("in2/img00.png") && clash.stderr.contains("in/img00.png"), "\(clash.stderr)")
        #expect(CLI.files(in: folder + "/c").isEmpty)
        // Files from stdin.
        let piped = try CLI.run(["apply", CLI.lookChain, "--files-from", "-", "--output-dir", "p", "-q"], in: folder,
                                stdin: Data((names.prefix(2).joined(separator: "\n")).utf8))
        #expect(piped.status == 0 && CLI.files(in: folder + "/p").count == 2)
    }

    /// `--format` names the output's format; an input whose extension already names that
    /// format keeps it (rocket.jpg stays .jpg, a .JPEG stays .JPEG), others take the name
    /// given to --format.
    @Test func formatKeepsAnExtensionThatAlreadyNamesIt() throws {
        try FileManager.default.createDirectory(atPath: folder + "/in", withIntermediateDirectories: true)
        for (sample, name) in [("rocket.jpg", "rocket.jpg"), ("rocket.jpg", "second.JPEG"), ("coffee.png", "coffee.png")] {
            try FileManager.default.copyItem(atPath: CLI.samples + "/" + sample, toPath: folder + "/in/" + name)
        }
        let jpeg = try CLI.run(["apply", CLI.lookChain, "in/rocket.jpg", "in/second.JPEG", "in/coffee.png",
                                "--output-dir", "o", "--format", "jpeg", "-q"], in: folder)
        #expect(jpeg.status == 0, "\(jpeg.stderr)")
        #expect(CLI.files(in: folder + "/o") == ["coffee.jpeg", "rocket.jpg", "second.JPEG"])
        for name in CLI.files(in: folder + "/o") { #expect(try CLI.pixels(folder + "/o/" + name).0.sourceFormat == .jpeg) }
        let jpg = try CLI.run(["apply", CLI.lookChain, "in/coffee.png", "--output-dir", "j", "--format", "jpg", "-q"], in: folder)
        #expect(jpg.status == 0 && CLI.files(in: folder + "/j") == ["coffee.jpg"], "\(jpg.stderr)")
        let png = try CLI.run(["apply", CLI.lookChain, "in/rocket.jpg", "in/coffee.png", "--output-dir", "p", "--format", "png", "-q"], in: folder)
        #expect(png.status == 0 && CLI.files(in: folder + "/p") == ["coffee.png", "rocket.png"], "\(png.stderr)")
    }

    /// A folder given as INPUT is said to be a folder, with how to give its images, before
    /// any work and whatever else the command line says (no "use --format", no "is a
    /// directory" later).
    @Test func aFolderAsInputIsNamedAsAFolder() throws {
        _ = try inputs(corrupt: false)
        let advice = "in: is a folder, not an image; give its images with a glob and --output-dir (in/*.jpg --output-dir out) or list them with --files-from (find in -name '*.jpg' > list.txt; --files-from list.txt --output-dir out)\n"
        for arguments in [["in", "out.png"], ["in", "--output-dir", "o"], ["in", "--output-dir", "o", "--format", "png"],
                          ["in/img00.png", "in", "--output-dir", "o"]] {
            let r = try CLI.run(["apply", CLI.lookChain] + arguments, in: folder)
            #expect(r.status == 64, "\(arguments): \(r.stderr)")
            #expect(r.stderr == "filterchain: error: " + advice, "\(arguments)")
        }
        CLI.write("in/img00.png\nin/\n", to: folder + "/list.txt")
        let listed = try CLI.run(["apply", CLI.lookChain, "--files-from", "list.txt", "--output-dir", "o"], in: folder)
        #expect(listed.status == 64 && listed.stderr.hasPrefix("filterchain: error: in/: is a folder, not an image; give its images with a glob"), "\(listed.stderr)")
        let steps = try CLI.run(["steps", CLI.lookChain, "in", "--output-dir", "s"], in: folder)
        #expect(steps.status == 64 && steps.stderr == "filterchain: error: " + advice, "\(steps.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/o") && !FileManager.default.fileExists(atPath: folder + "/s")
                && !FileManager.default.fileExists(atPath: folder + "/out.png"))
    }

    @Test func skipExistingResumes() throws {
        let names = try inputs(corrupt: false)
        try FileManager.default.createDirectory(atPath: folder + "/out", withIntermediateDirectories: true)
        CLI.write("keep me", to: folder + "/out/img00.png")
        let r = try CLI.run(["apply", CLI.lookChain] + names + ["--output-dir", "out", "--skip-existing", "--json"], in: folder)
        #expect(r.status == 0)
        #expect(try String(contentsOfFile: folder + "/out/img00.png", encoding: .utf8) == "keep me")
        #expect(r.stderr.contains("7 written, 0 failed, 1 skipped"), "\(r.stderr)")
        #expect(r.out.contains("\"status\":\"skipped\""))
    }

    /// The batch stalls deterministically on its third input, a FIFO that nothing writes to
    /// until the signal has been sent, so SIGTERM always lands mid-batch: the two images
    /// before it are complete, nothing after it starts, no temporary file stays.
    @Test func sigtermStopsCleanly() throws {
        let names = Array(try inputs(corrupt: false).prefix(4))
        let fifo = folder + "/in/stall.png"
        #expect(mkfifo(fifo, 0o600) == 0)
        let list = Array(names.prefix(2)) + ["in/stall.png"] + Array(names.suffix(2))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = ["apply", CLI.lookChain] + list + ["--output-dir", "out", "--jobs", "1", "-q"]
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        // --jobs 1 takes the inputs in order: two outputs appear, then it waits on the FIFO.
        let deadline = Date().addingTimeInterval(120)
        while CLI.files(in: folder + "/out").filter({ !$0.hasPrefix(".") }).count < 2 && Date() < deadline { usleep(2000) }
        #expect(CLI.files(in: folder + "/out").filter { !$0.hasPrefix(".") }.count == 2)
        process.terminate()
        // Release the FIFO (an empty input) whether or not the batch has opened it yet.
        while process.isRunning {
            let fd = open(fifo, O_WRONLY | O_NONBLOCK)
            if fd >= 0 { close(fd) }
            usleep(5000)
        }
        process.waitUntilExit()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 130, "\(stderr)")
        let out = CLI.files(in: folder + "/out")
        #expect(out == ["img00.png", "img01.png"], "\(out)")
        for name in out { #expect((try? CLI.pixels(folder + "/out/" + name)) != nil, "\(name) is damaged") }
    }

    /// A second signal ends the run at once, even while it waits on an input that never
    /// comes (the FIFO is not released): exit 130, the finished outputs kept, nothing else.
    /// The signals are taken by a thread of the tool's own, so the main thread's wait does not
    /// keep them from arriving.
    @Test func aSecondSignalExitsAtOnce() throws {
        let names = Array(try inputs(corrupt: false).prefix(3))
        let fifo = folder + "/in/stall.png"
        #expect(mkfifo(fifo, 0o600) == 0)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = ["apply", CLI.lookChain] + Array(names.prefix(2)) + ["in/stall.png", names[2], "--output-dir", "out", "--jobs", "1", "-q"]
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        process.standardError = Pipe()
        try process.run()
        var deadline = Date().addingTimeInterval(120)
        while CLI.files(in: folder + "/out").filter({ !$0.hasPrefix(".") }).count < 2 && Date() < deadline { usleep(2000) }
        // Signals until it ends (two that arrive together count once).
        deadline = Date().addingTimeInterval(20)
        while process.isRunning && Date() < deadline {
            process.terminate()
            usleep(100_000)
        }
        let ended = !process.isRunning
        #expect(ended, "still running 20 s after the first signal")
        while process.isRunning {
            let fd = open(fifo, O_WRONLY | O_NONBLOCK)
            if fd >= 0 { close(fd) }
            usleep(5000)
        }
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        #expect(CLI.files(in: folder + "/out") == ["img00.png", "img01.png"])
    }
}
