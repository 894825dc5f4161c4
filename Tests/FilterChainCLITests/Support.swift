import Foundation
import Testing
import FilterChain

/// Runs the built `filterchain` binary.
enum CLI {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let samples = packageRoot.appendingPathComponent("samples").path

    /// The binary beside the test bundle (the test target depends on it, so it is built).
    static let binary: String = {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        }
        for _ in 0..<5 {
            let candidate = dir.appendingPathComponent("filterchain").path
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDir), !isDir.boolValue { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return packageRoot.appendingPathComponent(".build/debug/filterchain").path
    }()

    struct Result {
        var status: Int32
        var stdout: Data
        var stderr: String
        var out: String { String(decoding: stdout, as: UTF8.self) }
    }

    @discardableResult
    /// Runs `executable` (by default the binary) with `arguments`; `environment` replaces the
    /// inherited one when given.
    static func run(_ arguments: [String], in folder: String? = nil, stdin: Data? = nil,
                    executable: String? = nil, environment: [String: String]? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable ?? binary)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        try process.run()
        // Read both pipes while the process runs, so that a full pipe never blocks it.
        // The semaphore orders the reader's write before our read (polling Thread.isFinished
        // does not, and ThreadSanitizer says so).
        nonisolated(unsafe) var errData = Data()
        let errRead = DispatchSemaphore(value: 0)
        let errReader = Thread {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            errRead.signal()
        }
        errReader.start()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try? input.fileHandleForWriting.close()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        errRead.wait()
        return Result(status: process.terminationStatus, stdout: outData, stderr: String(decoding: errData, as: UTF8.self))
    }

    static func temporaryFolder() -> String {
        let path = NSTemporaryDirectory() + "filterchain-cli-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func write(_ text: String, to path: String) {
        try! text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// The decoded samples of an image file.
    static func pixels(_ path: String) throws -> (ImageInfo, [UInt8]) {
        let reader = try ImageReader.open(.file(path))
        return (reader.info, try reader.readAll())
    }

    static func files(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    static let lookChain = samples + "/chains/look.json"
    #if os(Linux)
    static let isLinux = true
    #else
    static let isLinux = false
    #endif
}
