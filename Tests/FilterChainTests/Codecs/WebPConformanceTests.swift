import Foundation
import Testing
@testable import FilterChain

/// ../shared/conformance/webp: every file meets its manifest. Decodes are compared exactly
/// with dwebp's (stills) and Pillow's WebPAnimDecoder's (the first frame of an animation,
/// RGB only where alpha > 0, as the folder's README says); invalid files are refused.
@Suite struct WebPConformanceTests {
    static let folder = TestData.conformance.appendingPathComponent("webp")

    struct Entry: CustomStringConvertible, Sendable {
        var file: String
        var expect: String
        var references: [String]
        var kind: String
        var description: String { file }
    }

    static let manifest: [Entry] = {
        let text = try! String(contentsOf: folder.appendingPathComponent("manifest.tsv"), encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Entry(file: f[0], expect: f[2], references: f[3].split(separator: ",").map(String.init), kind: f[1])
        }
    }()

    @Test func theManifestListsEveryFile() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.appendingPathComponent("files").path)
        #expect(Set(files.map { "files/" + $0 }) == Set(Self.manifest.map(\.file)))
        #expect(Self.manifest.count == 52)
        #expect(Self.manifest.filter { $0.expect == "decode" }.count == 41)
    }

    @Test(arguments: manifest.filter { $0.expect == "decode" })
    func decodesExactlyAsTheReference(entry: Entry) throws {
        let path = Self.folder.appendingPathComponent(entry.file).path
        // The references are as stored: the EXIF orientation is not applied.
        let reader = try ImageReader.open(.file(path), options: DecodeOptions(autoOrient: false))
        #expect(reader.info.sourceFormat == .webp)
        let decoded = Pixels(bytes: try reader.readAll(), width: reader.info.width, height: reader.info.height,
                             format: reader.info.format)
        let (reference, refInfo) = try Pixels.read(Self.folder.appendingPathComponent(entry.references[0]).path)
        #expect(decoded.width == reference.width && decoded.height == reference.height)
        if entry.kind == "animated" {
            #expect(reader.notices.contains { $0.contains("only the first frame") }, "\(reader.notices)")
            let a = decoded.rgba, b = reference.rgba
            var differences = 0
            for i in stride(from: 0, to: a.count, by: 4) where a[i + 3] != b[i + 3] || (b[i + 3] > 0 && a[i..<i + 3] != b[i..<i + 3]) {
                differences += 1
            }
            #expect(differences == 0, "\(entry.file): \(differences) pixels differ")
        } else {
            #expect(reader.notices.isEmpty, "\(reader.notices)")
            #expect(decoded.format == refInfo.format, "\(entry.file): \(decoded.format) vs \(refInfo.format)")
            #expect(decoded.samples == reference.samples, "\(entry.file)")
        }
    }

    @Test(arguments: manifest.filter { $0.expect == "reject" })
    func refusesInvalidFiles(entry: Entry) throws {
        let path = Self.folder.appendingPathComponent(entry.file).path
        for lenient in [false, true] {
            #expect(throws: CodecError.self, "\(entry.file)") {
                _ = try ImageReader.open(.file(path), options: DecodeOptions(lenient: lenient)).readAll()
            }
        }
    }

    /// The same pixels whether rows are asked for one at a time or all at once (the
    /// incremental decoder is fed only as far as the rows need).
    @Test(arguments: ["files/lossy_q75.webp", "files/lossless_z9.webp", "files/lossy_alpha.webp", "files/anim_mixed_4f.webp"])
    func rowByRowEqualsWhole(file: String) throws {
        let path = Self.folder.appendingPathComponent(file).path
        let whole = try ImageReader.open(.file(path)).readAll()
        let reader = try ImageReader.open(.file(path))
        let rowBytes = reader.info.rowBytes
        var rows = [UInt8](repeating: 0, count: rowBytes * reader.info.height)
        try rows.withUnsafeMutableBytes { p in
            for y in 0..<reader.info.height { try reader.read(into: p.baseAddress! + y * rowBytes, stride: rowBytes, rows: 1) }
        }
        try reader.finish()
        #expect(rows == whole)
    }
}
