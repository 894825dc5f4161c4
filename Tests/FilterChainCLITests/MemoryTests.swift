import Foundation
import Testing
import FilterChain

/// Memory claims, measured as the peak resident size of a child process running the
/// release build: FILTERCHAIN_RELEASE_BINARY when set (CI gives the binary README's first
/// command built, with the Swift runtime linked in), else .build/release/filterchain (what
/// `swift test -c release` builds beside the tests). Images are made here.
@Suite(.serialized) struct MemoryTests {
    static let binary = ProcessInfo.processInfo.environment["FILTERCHAIN_RELEASE_BINARY"]
        ?? CLI.packageRoot.appendingPathComponent(".build/release/filterchain").path
    static let available = FileManager.default.isExecutableFile(atPath: binary)
    /// In CI (.ci/run builds the release binary first) a missing binary fails the tests.
    static let required = ProcessInfo.processInfo.environment["CI"] != nil

    let folder = CLI.temporaryFolder()

    /// A tiny C program that runs a command in a forked child and writes the child's peak
    /// resident size (KiB) to a file. Measuring from here directly would be wrong: a child
    /// spawned from this (large) test process by vfork inherits this process's high-water
    /// mark at exec, so ru_maxrss would report this process, not the child.
    static let helper: String? = {
        let source = """
            #include <stdio.h>
            #include <sys/resource.h>
            #include <sys/wait.h>
            #include <unistd.h>
            int main(int argc, char **argv) {
                if (argc < 3) return 64;
                pid_t pid = fork();
                if (pid == 0) { execv(argv[2], argv + 2); _exit(127); }
                int status = 0;
                struct rusage usage;
                if (pid < 0 || wait4(pid, &status, 0, &usage) < 0) return 70;
                FILE *f = fopen(argv[1], "w");
                if (!f) return 73;
                fprintf(f, "%ld\\n", usage.ru_maxrss);
                fclose(f);
                return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            }
            """
        let folder = CLI.temporaryFolder()
        CLI.write(source, to: folder + "/peak.c")
        guard let built = try? CLI.run(["clang", "-O1", "-o", folder + "/peak", folder + "/peak.c"], executable: "/usr/bin/env"),
              built.status == 0 else { return nil }
        return folder + "/peak"
    }()

    /// Runs the release binary (give it absolute paths) and returns its exit status and peak
    /// resident size in KiB; its stderr goes to the result.
    static func peak(_ arguments: [String], in folder: String) throws -> (status: Int32, kib: Int, stderr: String) {
        let helper = try #require(Self.helper, "cannot build the measuring helper with clang")
        let report = folder + "/peak.txt"
        let run = try CLI.run([report, binary] + arguments, in: folder, executable: helper)
        let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
        let kib = try #require(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), "no measurement: \(run.stderr)")
        return (run.status, kib, run.stderr)
    }

    /// A photograph-like test image, written strip by strip (never whole in memory here):
    /// smooth gradients with fine texture, so that the codecs do real work. Rows are cut
    /// from a band of 256 computed rows at a shift that changes with the row, so that making
    /// a 48 MP image is copying, not arithmetic (a debug build computes slowly).
    static func makeImage(_ path: String, width: Int, height: Int, format: ImageFormat) throws {
        let writer = try ImageWriter(.file(path), format: format,
                                     header: EncodeHeader(width: width, height: height, format: PixelFormat(.rgb, .eight)),
                                     options: EncodeOptions(quality: 90))
        let rowBytes = width * 3, bandRows = 256
        // Each band row is twice as wide, so that any shift of up to a row is one copy.
        var band = [UInt8](repeating: 0, count: 2 * rowBytes * bandRows)
        for r in 0..<bandRows {
            for x in 0..<(2 * width) {
                let i = (r * 2 * width + x) * 3
                let texture = (x &* 2654435761 ^ r &* 40503) >> 7 & 15
                band[i] = UInt8(truncatingIfNeeded: (x % width) * 255 / width + texture)
                band[i + 1] = UInt8(truncatingIfNeeded: r + texture)
                band[i + 2] = UInt8(truncatingIfNeeded: x / 16 + r / 2 + texture)
            }
        }
        let rows = 64
        var strip = [UInt8](repeating: 0, count: rowBytes * rows)
        var y = 0
        while y < height {
            let count = min(rows, height - y)
            for r in 0..<count {
                let yy = y + r
                let from = (yy % bandRows) * 2 * rowBytes + (yy / bandRows * 37 % width) * 3
                strip.replaceSubrange((r * rowBytes)..<((r + 1) * rowBytes), with: band[from..<(from + rowBytes)])
            }
            try strip.withUnsafeBytes { try writer.writeNow(rows: $0.baseAddress!, stride: rowBytes, count: count) }
            y += count
        }
        try writer.finish()
    }

    /// README: "Memory does not grow with the image's height". The same chain on 4000 x 3000
    /// and 4000 x 12000 images: peak memory within 15%.
    @Test(.enabled(if: available || required, "needs the release build"), arguments: [ImageFormat.jpeg, .png])
    func memoryDoesNotGrowWithHeight(format: ImageFormat) throws {
        try #require(Self.available, "no \(Self.binary): run swift build -c release")
        let ext = format == .png ? "png" : "jpg"
        try expectSteadyPeak(ext, format: format) { input in ["apply", CLI.lookChain, input, folder + "/out.\(ext)"] }
    }

    /// An animation goes through frame by frame (issue 39): a 300-frame 640 x 360 GIF
    /// resized to half and written as a GIF peaks within 15% of a 30-frame one. Held whole,
    /// its canvases alone would be 276 MB.
    @Test(.enabled(if: available || required, "needs the release build"))
    func animationsDoNotGrowWithTheirLength() throws {
        try #require(Self.available, "no \(Self.binary): run swift build -c release")
        CLI.write(#"{"version": 1, "filters": [{"id": "5D7C2A10-3B4E-4F60-9A8B-1C2D3E4F5A6B", "type": "resize", "parameters": {"scale": 0.5}}]}"#,
                  to: folder + "/half.json")
        var peaks: [Int] = []
        for count in [30, 300] {
            let input = folder + "/anim\(count).gif"
            let writer = try AnimationWriter(.file(input), format: .gif, width: 640, height: 360, pixelFormat: PixelFormat(.rgb, .eight))
            var pixels = [UInt8](repeating: 0, count: 640 * 360 * 3)
            for k in 0..<count {
                // A background of eight colours and a box that moves: few colours, real changes.
                for i in 0..<(640 * 360) {
                    let x = i % 640, y = i / 640
                    let box = (x - 2 * k + 640) % 640 < 120 && y > 100 && y < 260
                    pixels[3 * i] = box ? 240 : UInt8((x / 80) * 30)
                    pixels[3 * i + 1] = box ? UInt8(k % 200) : UInt8((y / 45) * 30)
                    pixels[3 * i + 2] = box ? 30 : 120
                }
                try writer.add(try RasterImage(width: 640, height: 360, format: PixelFormat(.rgb, .eight), pixels: pixels), delay: 40)
            }
            try writer.finish()
            let run = try Self.peak(["apply", folder + "/half.json", input, folder + "/out\(count).gif"], in: folder)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try AnimationReader(.file(folder + "/out\(count).gif")).animation.frameCount == count)
            peaks.append(run.kib)
        }
        let growth = Double(peaks[1]) / Double(peaks[0]) - 1
        #expect(growth <= 0.15, "\(peaks[0]) KiB for 30 frames, \(peaks[1]) KiB for 300")
        print("memory gif: \(peaks[0]) KiB for 30 frames of 640x360, \(peaks[1]) KiB for 300 (\(Int(growth * 100))%)")
    }

    /// Runs `arguments(input)` on 4000 x 3000 and 4000 x 12000 images of `format`: the peaks
    /// must be within 15% of each other.
    func expectSteadyPeak(_ label: String, format: ImageFormat, arguments: (String) -> [String]) throws {
        var peaks: [Int] = []
        for height in [3000, 12000] {
            let input = folder + "/\(label)\(height).\(format == .png ? "png" : "jpg")"
            try Self.makeImage(input, width: 4000, height: height, format: format)
            let run = try Self.peak(arguments(input), in: folder)
            #expect(run.status == 0, "\(run.stderr)")
            peaks.append(run.kib)
            try FileManager.default.removeItem(atPath: input)
        }
        let growth = Double(peaks[1]) / Double(peaks[0]) - 1
        #expect(abs(growth) <= 0.15, "\(label): \(peaks[0]) KiB at 3000 rows, \(peaks[1]) KiB at 12000 rows")
        print("memory \(label): \(peaks[0]) KiB at 4000x3000, \(peaks[1]) KiB at 4000x12000 (\(Int(growth * 100))%)")
    }

    /// Graphs stream too (issue 20): the glow graph of the issue (the source screened with
    /// its own blur, an exposure through a radial mask, a logo laid over the corner) on
    /// 4000 x 3000 and 4000 x 12000 JPEGs: peak memory within 15%. The source is read by two
    /// steps and the blur by a third, so this holds only if every edge keeps just the rows its
    /// readers still need.
    @Test(.enabled(if: available || required, "needs the release build"))
    func glowGraphDoesNotGrowWithHeight() throws {
        try #require(Self.available, "no \(Self.binary): run swift build -c release")
        try FileManager.default.copyItem(atPath: CLI.packageRoot.appendingPathComponent("samples/logo.png").path,
                                         toPath: folder + "/logo.png")
        let chain = folder + "/glow.json"
        CLI.write("""
            { "version": 2, "workingSpace": "srgb",
              "images": [ { "id": "5B1E0000-0000-4000-8000-000000000001", "name": "logo", "file": "logo.png" } ],
              "filters": [
                { "id": "0F6C0000-0000-4000-8000-000000000001", "type": "gaussianBlur", "name": "soft",
                  "parameters": { "sigma": 12 } },
                { "id": "7A2D0000-0000-4000-8000-000000000001", "type": "blend", "name": "glow", "input": "source",
                  "parameters": { "layer": "soft", "mode": "screen", "opacity": 0.6 } },
                { "id": "C3D40000-0000-4000-8000-000000000001", "type": "exposure", "parameters": { "ev": 0.5 },
                  "mask": { "type": "radial", "center": [0.5, 0.45], "radius": 0.5, "feather": 0.4 } },
                { "id": "9E8F0000-0000-4000-8000-000000000001", "type": "blend", "parameters": { "layer": "logo", "opacity": 0.8,
                  "placement": { "gravity": "southEast", "offset": [24, 24] } } } ] }
            """, to: chain)
        try expectSteadyPeak("glow", format: .jpeg) { input in ["apply", chain, input, folder + "/glow-out.jpg"] }
    }

    /// Geometry streams too: a resize, a crop and a horizontal flip (with a blur between) on
    /// 4000 x 3000 and 4000 x 12000 JPEGs: peak memory within 15%.
    @Test(.enabled(if: available || required, "needs the release build"))
    func geometryDoesNotGrowWithHeight() throws {
        try #require(Self.available, "no \(Self.binary): run swift build -c release")
        let chain = folder + "/geometry.json"
        for (type, parameters) in [("resize", ["scale=0.6"]), ("gaussianBlur", ["sigma=3"]),
                                   ("crop", ["x=100", "y=50", "width=2000", "height=1500"]),
                                   ("flip", ["direction=horizontal"])] {
            if !FileManager.default.fileExists(atPath: chain) { _ = try CLI.run(["chain", "new", chain]) }
            let added = try CLI.run(["chain", "add", chain, type] + parameters)
            #expect(added.status == 0, "\(added.stderr)")
        }
        try expectSteadyPeak("geometry", format: .jpeg) { input in
            ["apply", chain, input, folder + "/geo-out.jpg", "--preview", "1", "--preview-output", folder + "/geo-preview.jpg"]
        }
    }

    /// `steps --sheet` on a 14.7 MP photograph (four PNG step files and the sheet) needs at
    /// most twice the memory of `apply` to a JPEG.
    @Test(.enabled(if: available || required, "needs the release build"))
    func stepsWithASheetStayNearApply() throws {
        try #require(Self.available, "no \(Self.binary): run swift build -c release")
        let input = folder + "/photo.jpg"
        try Self.makeImage(input, width: 4428, height: 3320, format: .jpeg)
        let apply = try Self.peak(["apply", CLI.lookChain, input, folder + "/out.jpg"], in: folder)
        let steps = try Self.peak(["steps", CLI.lookChain, input, "--output-dir", folder + "/s", "--sheet", folder + "/sheet.png"], in: folder)
        #expect(apply.status == 0 && steps.status == 0)
        #expect(CLI.files(in: folder + "/s").count == 4 && CLI.files(in: folder).contains("sheet.png"))
        #expect(steps.kib <= 2 * apply.kib, "steps --sheet \(steps.kib) KiB, apply \(apply.kib) KiB")
        print("memory 14.7 MP: apply \(apply.kib) KiB, steps --sheet \(steps.kib) KiB")
    }
}
