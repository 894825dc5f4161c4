import Foundation
import Testing
@testable import FilterChain

/// Missing, empty, foreign, truncated and oversized inputs; outputs that cannot be written.
@Suite struct BadInputTests {
    static func reason(_ body: () throws -> Void) -> CodecError.Reason? {
        do { try body() } catch let error as CodecError { return error.reason } catch { return nil }
        return nil
    }

    @Test func missingFolderAndEmptyPathsHaveTheirOwnErrors() throws {
        let folder = TestData.temporaryFolder()
        #expect(Self.reason { _ = try ImageReader.open(.file(folder.appendingPathComponent("nope.png").path)) } == .notFound)
        #expect(Self.reason { _ = try ImageReader.open(.file(folder.path)) } == .isDirectory)
        let empty = folder.appendingPathComponent("empty.png")
        _ = FileManager.default.createFile(atPath: empty.path, contents: Data())
        #expect(Self.reason { _ = try ImageReader.open(.file(empty.path)) } == .empty)
    }

    @Test func unreadableFileSaysPermissionDenied() throws {
        guard getuid() != 0 else { return }  // root reads everything
        let folder = TestData.temporaryFolder()
        let path = folder.appendingPathComponent("secret.png").path
        try Pixels.random(width: 2, height: 2, format: PixelFormat(.rgb, .eight)).write(to: .file(path), format: .png)
        chmod(path, 0)
        #expect(Self.reason { _ = try ImageReader.open(.file(path)) } == .permissionDenied)
    }

    @Test(arguments: [
        ("8BPS\u{0}\u{1}", "Photoshop PSD"),
        ("BM\u{0}\u{0}", "BMP"),
        ("{\"version\": 1}", "text (JSON?)"),
        ("hello world", "text"),
    ])
    func foreignFormatsAreNamed(bytes: String, looksLike: String) throws {
        let error = try #require(throws: CodecError.self) {
            _ = try ImageReader.open(.bytes(Array(bytes.utf8), name: "in.png"))
        }
        #expect(error.reason == .unsupportedFormat(looksLike: looksLike))
        #expect(error.description.hasPrefix("in.png: unsupported format: \(looksLike)"))
    }

    @Test func extensionDoesNotDecideTheInputFormat() throws {
        let folder = TestData.temporaryFolder()
        let path = folder.appendingPathComponent("actually-a-png.jpg").path
        try Pixels.random(width: 3, height: 3, format: PixelFormat(.rgb, .eight)).write(to: .file(path), format: .png)
        #expect(try ImageReader.open(.file(path)).info.sourceFormat == .png)
    }

    @Test(arguments: ["png", "jpg"])
    func truncatedFilesAreErrorsNamingTheFile(ext: String) throws {
        let folder = TestData.temporaryFolder()
        let whole = folder.appendingPathComponent("whole.\(ext)").path
        try Pixels.random(width: 64, height: 64, format: PixelFormat(.rgb, .eight)).write(to: .file(whole), format: ImageFormat(pathExtension: ext)!)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cut = folder.appendingPathComponent("cut.\(ext)").path
        try bytes.prefix(bytes.count * 2 / 3).write(to: URL(fileURLWithPath: cut))
        let error = try #require(throws: CodecError.self) { _ = try Pixels.read(cut) }
        guard case .corrupt = error.reason else { Issue.record("\(error)"); return }
        #expect(error.description.hasPrefix(cut + ": damaged "))
        // Leniently the damage is a warning and the rows are filled.
        let reader = try ImageReader.open(.file(cut), options: DecodeOptions(lenient: true))
        _ = try reader.readAll()
        #expect(!reader.warnings.isEmpty)
    }

    /// A PNG header claiming 100000 x 100000 fails from the header alone.
    @Test func hugeHeaderIsRefusedBeforeAllocating() throws {
        func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }
        let ihdr: [UInt8] = Array("IHDR".utf8) + be32(100_000) + be32(100_000) + [8, 6, 0, 0, 0]
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + ihdr + be32(CRC32.of(ihdr))
        let idat: [UInt8] = Array("IDAT".utf8) + [0x78, 0x9C]
        png += be32(2) + idat + be32(CRC32.of(idat))
        png += be32(0) + Array("IEND".utf8) + be32(CRC32.of(Array("IEND".utf8)))
        let error = try #require(throws: CodecError.self) { _ = try ImageReader.open(.bytes(png, name: "huge.png")) }
        #expect(error.reason == .tooManyPixels(width: 100_000, height: 100_000, limit: DecodeOptions.defaultMaxPixels))
        #expect(error.description.contains("100000 x 100000"))
        // A limit of 0 means none: the header then opens (and no rows are read here).
        let reader = try ImageReader.open(.bytes(png, name: "huge.png"), options: DecodeOptions(maxPixels: 0))
        #expect(reader.info.width == 100_000)
    }

    @Test func failedWriteLeavesNoFileAndKeepsTheExistingOne() throws {
        let folder = TestData.temporaryFolder()
        let existing = folder.appendingPathComponent("keep.png").path
        let original = Pixels.random(width: 4, height: 4, format: PixelFormat(.rgb, .eight))
        try original.write(to: .file(existing), format: .png)
        let before = try Data(contentsOf: URL(fileURLWithPath: existing))

        // Start writing over it, then give up half way.
        let writer = try ImageWriter(.file(existing), format: .png, header: EncodeHeader(width: 4, height: 4, format: original.format))
        try original.bytes.withUnsafeBytes { try writer.writeNow(rows: $0.baseAddress!, stride: 12, count: 2) }
        writer.abort()
        #expect(try Data(contentsOf: URL(fileURLWithPath: existing)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["keep.png"])

        // An output in a missing folder, or onto a folder.
        let missing = folder.appendingPathComponent("no/such/out.png").path
        #expect(throws: CodecError.self) { try original.write(to: .file(missing), format: .png) }
        #expect(Self.reason { try original.write(to: .file(folder.path), format: .png) } == .isDirectory)
    }

    @Test func outputFormatComesFromTheExtension() throws {
        let options = EncodeOptions()
        #expect(try options.resolvedFormat(for: .file("a/b.PNG")) == .png)
        #expect(try options.resolvedFormat(for: .file("b.JpEg")) == .jpeg)
        #expect(try options.resolvedFormat(for: .file("b.jpg")) == .jpeg)
        #expect(try options.resolvedFormat(for: .file("b.gif")) == .gif)
        #expect(Self.reason { _ = try options.resolvedFormat(for: .file("b.bmp")) } == .unsupportedOutputFormat("bmp"))
        #expect(Self.reason { _ = try options.resolvedFormat(for: .file("noext")) } == .unsupportedOutputFormat(""))
        #expect(try EncodeOptions(format: .png).resolvedFormat(for: .file("b.gif")) == .png)
    }
}

enum CRC32 {
    static func of(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
