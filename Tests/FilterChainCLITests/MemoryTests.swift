import Foundation
import Testing
import FilterChain

/// Memory claims, measured as the peak resident size of a child process running the
/// release build (.build/release/filterchain; CI builds it first). Images are made here.
@Suite(.serialized) struct MemoryTests {
    static let binary = CLI.packageRoot.appendingPathComponent(".build/release/filterchain").path
    static let available = FileManager.default.isExecutableFile(atPath: binary)
    /// In CI (.ci/run builds the release binary first) a missing binary fails the tests.
    static let required = ProcessInfo.processInfo.environment["CI"] != nil

    let folder = CLI.temporaryFolder()

    /// Runs the release binary (give it absolute paths) and returns its exit status and peak
    /// resident size in KiB; its stderr goes to folder/stderr.txt.
    static func peak(_ arguments: [String], in folder: String) throws -> (status: Int32, kib: Int) {
        var pid = pid_t()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, folder + "/stderr.txt", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([binary] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let spawned = posix_spawn(&pid, binary, &actions, nil, argv, environ)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        return ((status >> 8) & 0xFF, usage.ru_maxrss)
    }

    /// A photograph-like test image, written strip by strip (never whole in memory here):
    /// smooth gradients with fine texture, so that the codecs do real work.
    static func makeImage(_ path: String, width: Int, height: Int, format: ImageFormat) throws {
        let writer = try ImageWriter(.file(path), format: format,
                                     header: EncodeHeader(width: width, height: height, format: PixelFormat(.rgb, .eight)),
                                     options: EncodeOptions(quality: 90))
        let rows = 64
        var strip = [UInt8](repeating: 0, count: width * 3 * rows)
        var y = 0
        while y < height {
            let count = min(rows, height - y)
            for r in 0..<count {
                let yy = y + r
                for x in 0..<width {
                    let i = (r * width + x) * 3
                    let texture = (x &* 2654435761 ^ yy &* 40503) >> 7 & 15
                    strip[i] = UInt8(truncatingIfNeeded: x * 255 / width + texture)
                    strip[i + 1] = UInt8(truncatingIfNeeded: yy % 1000 * 255 / 1000 + texture)
                    strip[i + 2] = UInt8(truncatingIfNeeded: (x + yy) / 16 + texture)
                }
            }
            try strip.withUnsafeBytes { try writer.writeNow(rows: $0.baseAddress!, stride: width * 3, count: count) }
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
        var peaks: [Int] = []
        for height in [3000, 12000] {
            let input = folder + "/in\(height).\(ext)"
            try Self.makeImage(input, width: 4000, height: height, format: format)
            let run = try Self.peak(["apply", CLI.lookChain, input, folder + "/out.\(ext)"], in: folder)
            #expect(run.status == 0, "\(String(describing: try? String(contentsOfFile: folder + "/stderr.txt", encoding: .utf8)))")
            peaks.append(run.kib)
            try FileManager.default.removeItem(atPath: input)
        }
        let growth = Double(peaks[1]) / Double(peaks[0]) - 1
        #expect(abs(growth) <= 0.15, "\(ext): \(peaks[0]) KiB at 3000 rows, \(peaks[1]) KiB at 12000 rows")
        print("memory \(ext): \(peaks[0]) KiB at 4000x3000, \(peaks[1]) KiB at 4000x12000 (\(Int(growth * 100))%)")
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
