import Foundation
import Testing
import FilterChain

/// What a new user meets first: README's first command, --version, and help that reads well.
@Suite struct HelpAndReadmeTests {
    /// README's first command up to the build: installs the libraries.
    static func installPart() throws -> String {
        let readme = try String(contentsOfFile: CLI.packageRoot.appendingPathComponent("README.md").path, encoding: .utf8)
        let lines = readme.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "```sh"))
        let command = lines[start + 1]
        let cut = try #require(command.range(of: " && swift build"))
        #expect(command[cut.upperBound...].hasPrefix(" -c release --static-swift-stdlib --product filterchain && .build/release/filterchain apply samples/"))
        return String(command[..<cut.lowerBound])
    }

    /// Runs the install part with only fake `apt-get` (and `sudo` when given) on PATH;
    /// returns what they were called with.
    static func runInstall(withSudo: Bool) throws -> (status: Int32, log: String) {
        let folder = CLI.temporaryFolder()
        let bin = folder + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let log = folder + "/log"
        func script(_ name: String, _ body: String) throws {
            CLI.write("#!/bin/sh\n" + body + "\n", to: bin + "/" + name)
            chmod(bin + "/" + name, 0o755)
        }
        try script("apt-get", "echo \"apt-get $*\" >> \(log)")
        if withSudo { try script("sudo", "echo \"sudo $1\" >> \(log); exec \"$@\"") }
        symlink("/bin/sh", bin + "/sh")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", try installPart()]
        process.environment = ["PATH": bin]
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }

    @Test(arguments: [false, true])
    func readmesFirstCommandInstallsAsRootWithoutSudoAndAsAUserWithSudo(withSudo: Bool) throws {
        let (status, log) = try Self.runInstall(withSudo: withSudo)
        #expect(status == 0)
        var expected = "apt-get update\napt-get install -y libpng-dev libjpeg-dev zlib1g-dev libwebp-dev liblcms2-dev libtiff-dev libheif-dev libavif-dev libgif-dev libjxl-dev libraw-dev libdav1d-dev pkg-config\n"
        if withSudo { expected = "sudo sh\n" + expected }
        #expect(log == expected)
    }

    /// README's "On a cluster" shows the sbatch recipe: the lines it shows are the file's.
    @Test func readmesSbatchRecipeIsTheSampleFile() throws {
        let readme = try String(contentsOfFile: CLI.packageRoot.appendingPathComponent("README.md").path, encoding: .utf8)
        let recipe = try String(contentsOfFile: CLI.samples + "/cluster/filterchain.sbatch", encoding: .utf8)
        let lines = readme.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "#SBATCH --job-name=filterchain"))
        let shown = lines[start...].prefix { $0 != "```" }
        #expect(shown.count >= 5)
        #expect(recipe.hasSuffix(shown.joined(separator: "\n") + "\n"), "README's sbatch lines are not the end of samples/cluster/filterchain.sbatch")
    }

    /// README's dependency line is the real form, with the repository's own URL the one
    /// thing left to fill in (OWNER, said so) and this release's version; the DocC article
    /// says the same, and CI's client package tags its clone with that version.
    @Test func readmesDependencyIsTheRealFormAtThisVersion() throws {
        let line = ".package(url: \"https://github.com/OWNER/filterchain.git\", from: \"\(filterChainVersion)\")"
        let readme = try String(contentsOfFile: CLI.packageRoot.appendingPathComponent("README.md").path, encoding: .utf8)
        #expect(readme.contains("`" + line + "`"))
        #expect(readme.contains("in place of `OWNER` (the one thing to\nfill in)"))
        #expect(!readme.contains("github.com/…"))
        let article = try String(contentsOfFile: CLI.packageRoot.appendingPathComponent("Sources/FilterChain/FilterChain.docc/GettingStarted.md").path,
                                 encoding: .utf8)
        #expect(article.contains(line + ","))
        let ci = try String(contentsOfFile: CLI.packageRoot.appendingPathComponent(".ci/client-package.sh").path, encoding: .utf8)
        #expect(ci.contains("git -C \"$work/filterchain\" tag \"$version\"") && ci.contains("from: \"$version\""))
        #expect(ci.contains("filterChainVersion") && !ci.contains("0.1.0"))
    }

    /// README's one-liners run as written, from the package root (here a folder holding
    /// the samples), and write what they say.
    @Test func readmesOneLinersRun() throws {
        let readme = try String(contentsOfFile: CLI.packageRoot.appendingPathComponent("README.md").path, encoding: .utf8)
        let lines = readme.components(separatedBy: "\n")
        let heading = try #require(lines.firstIndex(of: "### One-liners: steps on the command line"))
        let start = try #require(lines[heading...].firstIndex(of: "```sh"))
        let end = try #require(lines[(start + 1)...].firstIndex(of: "```"))
        let commands = Array(lines[(start + 1)..<end])
        #expect(commands.count == 4 && commands.allSatisfy { $0.hasPrefix("filterchain ") })
        let folder = CLI.temporaryFolder()
        try FileManager.default.createSymbolicLink(atPath: folder + "/samples", withDestinationPath: CLI.samples)
        let bin = (CLI.binary as NSString).deletingLastPathComponent
        for command in commands {
            let r = try CLI.run(["-c", command], in: folder, executable: "/bin/sh",
                                environment: ["PATH": bin + ":/usr/bin:/bin"])
            #expect(r.status == 0, "\(command): \(r.stderr)")
        }
        #expect(try CLI.pixels(folder + "/thumb.jpg").0.width == 320)
        #expect(CLI.files(in: folder + "/thumbs") == ["coffee.jpeg", "rocket.jpg"])
        #expect(try Chain.load(folder + "/mine.json").steps.map(\.type) == ["colorControls", "toneCurve", "gaussianBlur", "vignette"])
        #expect(FileManager.default.fileExists(atPath: folder + "/out.png"))
        #expect(CLI.files(in: folder + "/steps") == ["00-input.png", "01-exposure.png", "02-gaussianblur.png"])
    }

    @Test func versionIsPrinted() throws {
        let r = try CLI.run(["--version"])
        #expect(r.status == 0)
        #expect(r.out == filterChainVersion + "\n")
    }

    static let commands: [[String]] = [[], ["apply"], ["thumbnail"], ["steps"], ["info"], ["filters"], ["formats"], ["validate"], ["chain"], ["chain", "new"],
                                       ["chain", "add"], ["chain", "set"], ["chain", "remove"], ["chain", "move"],
                                       ["chain", "image"], ["chain", "image", "add"], ["chain", "image", "remove"],
                                       ["chain", "var"], ["chain", "var", "remove"],
                                       ["help", "chain", "var", "add"], ["help", "chain", "var", "set"], ["chain", "show"],
                                       ["report"], ["report", "merge"], ["edit"], ["help", "edit"], ["help", "steps"]]

    /// Wrapped lines are full: each continuation line's first word could not have fitted on
    /// the line before (ArgumentParser fills lines to 79 columns), so no line breaks
    /// mid-phrase.
    @Test(arguments: commands)
    func helpIsWrappedCleanly(command: [String]) throws {
        // `help COMMAND` where the command takes --help as an option of its own (chain var add).
        let r = try CLI.run(command.first == "help" ? command : command + ["--help"])
        #expect(r.status == 0)
        let lines = r.out.components(separatedBy: "\n")
        func indent(_ s: String) -> Int { s.prefix { $0 == " " }.count }
        for (a, b) in zip(lines, lines.dropFirst()) where !a.isEmpty && !b.isEmpty && !a.hasPrefix("USAGE:") {
            #expect(a.count <= 79, "too long: \(a)")
            // An example command is never broken by the wrapping: the line after one is
            // another example, or its continuation (after a backslash), indented.
            if indent(a) == 2, a.dropFirst(2).hasPrefix("filterchain ") || a.hasSuffix("\\") {
                #expect(indent(b) >= 2, "a command broken across lines: '\(a)' / '\(b)'")
            }
            // Nor is one quoted in prose: `...` and 'filterchain ...' / 'swift ...' close on
            // the line they open.
            #expect(a.filter { $0 == "`" }.count % 2 == 0, "a quoted command broken across lines: '\(a)' / '\(b)'")
            for opening in ["'filterchain ", "'swift "] {
                if let r = a.range(of: opening) {
                    #expect(a[r.upperBound...].contains("'"), "a quoted command broken across lines: '\(a)' / '\(b)'")
                }
            }
            // Continuations: prose at the margin, and option help continued under itself.
            let prose = indent(a) == 0 && indent(b) == 0
            func helpStartsAtColumn(_ line: String, _ column: Int) -> Bool {
                let c = Array(line)
                return c.count > column && c[column - 1] == " " && c[column] != " "
            }
            let optionHelp = indent(b) >= 10 && (indent(a) == indent(b) || (indent(a) == 2 && helpStartsAtColumn(a, indent(b))))
            guard prose || optionHelp, !a.hasSuffix("\\") else { continue }
            let word = b.drop { $0 == " " }.prefix { $0 != " " }
            #expect(a.count + 1 + word.count > 79, "broken early: '\(a)' / '\(b)'")
        }
    }
}
