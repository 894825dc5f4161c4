import Foundation
import Testing
@testable import FilterChain

/// Huffman decoding on a thread of its own (fc_jpeg.c, "Entropy decoding on a thread of its
/// own") against libjpeg's ordinary single-threaded decoding of the same files: the same
/// pixels, warnings and notices, or the same error.
@Suite struct ParallelEntropyTests {
    /// What decoding a file gave: its pixels and reports, or the error's message.
    enum Outcome: Equatable, CustomStringConvertible {
        case decoded(pixels: [UInt8], width: Int, height: Int, warnings: [String], notices: [String])
        case failed(String)

        /// Short: failures print this, not every pixel.
        var description: String {
            switch self {
            case .decoded(let pixels, let width, let height, let warnings, let notices):
                var hash: UInt64 = 14695981039346656037
                for byte in pixels { hash = (hash ^ UInt64(byte)) &* 1099511628211 }
                return "\(width)x\(height) pixels \(String(hash, radix: 16)), warnings \(warnings), notices \(notices)"
            case .failed(let message): return "failed: \(message)"
            }
        }
    }

    /// Decodes `path`, in parallel when `chunk` is given (MCUs per hand-over; any image size
    /// qualifies), at 1/`shrink` scale. Also returns whether a thread was started.
    static func decode(_ path: String, lenient: Bool = false, chunk: Int? = nil, shrink: Int = 1,
                       maxPixels: Int = DecodeOptions.defaultMaxPixels) -> (Outcome, parallel: Bool) {
        var parallel = false
        do {
            let reader = try ImageReader.open(.file(path), options: DecodeOptions(maxPixels: maxPixels, lenient: lenient))
            if shrink > 1 {
                try reader.shrink(keepingAtLeast: ImageSize(width: reader.info.width / shrink, height: reader.info.height / shrink))
            }
            if let chunk { parallel = reader.decodeInParallel(minimumMCUs: 1, chunkMCUs: chunk) }
            let pixels = try reader.readAll()
            return (.decoded(pixels: pixels, width: reader.info.width, height: reader.info.height,
                             warnings: reader.warnings, notices: reader.notices), parallel)
        } catch let error as CodecError {
            return (.failed(error.message), parallel)
        } catch {
            return (.failed("\(error)"), parallel)
        }
    }

    /// libjpeg-turbo's fuzzed corpus and test images, strict and lenient, with a 7-MCU
    /// hand-over so that the ring wraps many times even in small images.
    @Test func corpusDecodesAsOnOneThread() throws {
        let fixtures = FuzzRegressionTests.files("jpeg")
        let files = JPEGConformanceTests.fuzzFiles.map { TestData.jpegFuzz.appendingPathComponent($0).path }
            + ["testorig.jpg", "testimgint.jpg", "testimgari.jpg"].map { TestData.jpegImages.appendingPathComponent($0).path }
            + fixtures
        #expect(files.count == 882 + fixtures.count && !fixtures.isEmpty)
        var parallel = 0, failedBoth = 0
        for path in files {
            for lenient in [false, true] {
                let (serial, _) = Self.decode(path, lenient: lenient, maxPixels: 4_000_000)
                let (split, wasParallel) = Self.decode(path, lenient: lenient, chunk: 7, maxPixels: 4_000_000)
                #expect(split == serial, "\(path) lenient \(lenient): \(split) against \(serial)")
                if wasParallel { parallel += 1 }
                if case .failed = serial { failedBoth += 1 }
            }
        }
        // Most of the corpus is progressive, arithmetic-coded or fails in its headers, which
        // decodes on one thread either way; 202 of the 1764 decodes qualify.
        #expect(parallel >= 200, "\(parallel) decodes took the entropy thread")
        #expect(failedBoth > 100, "the damaged files are part of the comparison (\(failedBoth))")
    }

    /// A photograph at full and reduced scale, with the default hand-over and a small one.
    @Test(arguments: [1, 2, 4, 8])
    func photographDecodesAsOnOneThread(shrink: Int) throws {
        let path = TestData.shared.appendingPathComponent("images/hubble_deep_field.jpg").path
        let (serial, _) = Self.decode(path, shrink: shrink)
        for chunk in [512, 5] {
            let (split, parallel) = Self.decode(path, chunk: chunk, shrink: shrink)
            #expect(parallel)
            #expect(split == serial, "chunk \(chunk)")
        }
        guard case .decoded(let pixels, let width, _, _, _) = serial else {
            Issue.record("the photograph did not decode")
            return
        }
        #expect(width == (1000 + shrink - 1) / shrink)
        #expect(pixels.contains { $0 != 0 })
    }

    /// The default threshold (2048 MCUs) leaves small images on one thread.
    @Test func smallImagesStayOnOneThread() throws {
        let reader = try ImageReader.open(.file(TestData.jpegImages.appendingPathComponent("testorig.jpg").path))
        #expect(!reader.decodeInParallel())
        let big = try ImageReader.open(.file(TestData.shared.appendingPathComponent("images/hubble_deep_field.jpg").path))
        #expect(big.decodeInParallel())
    }

    /// A reader dropped part way (a failed render) stops its entropy thread, even one that
    /// waits for room in the ring, and closes the thread's own handle on the file; so does
    /// one that finished. (A thread left waiting would hang this test; ASan and TSan in CI
    /// watch the rest.)
    @Test func droppedReaderStopsItsThread() throws {
        // A copy of its own, so that other tests' open files do not count.
        let folder = TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("photo.jpg").path
        try FileManager.default.copyItem(atPath: TestData.shared.appendingPathComponent("images/hubble_deep_field.jpg").path,
                                         toPath: path)
        func openFiles() -> Int {
            #if os(Linux)
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return fds.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == path }.count
            #else
            return 0
            #endif
        }
        let before = openFiles()
        #expect(before == 0)
        for rows in [0, 1, 16, 300, 872] {
            do {
                let reader = try ImageReader.open(.file(path))
                #expect(reader.decodeInParallel(chunkMCUs: 3))
                var buffer = [UInt8](repeating: 0, count: reader.info.rowBytes * max(rows, 1))
                if rows > 0 {
                    try buffer.withUnsafeMutableBytes { try reader.read(into: $0.baseAddress!, stride: reader.info.rowBytes, rows: rows) }
                }
                if rows == 872 { try reader.finish() }
                #if os(Linux)
                // The reader's handle and, until the finish, the thread's.
                #expect(openFiles() == (rows == 872 ? 1 : 2), "after \(rows) rows")
                #endif
            }
            #expect(openFiles() == before, "after \(rows) rows")
        }
    }

    /// Finishing before the last row fails the same way on both paths (libjpeg's "too few
    /// scanlines"), and does not wait for an entropy thread that waits for room.
    @Test func earlyFinishFailsTheSame() throws {
        let path = TestData.shared.appendingPathComponent("images/hubble_deep_field.jpg").path
        var messages: [String] = []
        for parallel in [false, true] {
            let reader = try ImageReader.open(.file(path))
            if parallel { #expect(reader.decodeInParallel(chunkMCUs: 3)) }
            var buffer = [UInt8](repeating: 0, count: reader.info.rowBytes * 16)
            try buffer.withUnsafeMutableBytes { try reader.read(into: $0.baseAddress!, stride: reader.info.rowBytes, rows: 16) }
            do {
                try reader.finish()
                Issue.record("finishing after 16 rows succeeded")
            } catch let error as CodecError {
                messages.append(error.message)
            }
        }
        #expect(messages.count == 2 && messages[0] == messages[1], "\(messages)")
        #expect(messages.first?.contains("too few scanlines") == true, "\(messages)")
    }

    /// Bytes of a file cut short: the entropy thread's failure (strict) or warning (lenient)
    /// reaches the reader exactly as on one thread.
    @Test func truncatedFileReportsTheSame() throws {
        let whole = try [UInt8](Data(contentsOf: TestData.shared.appendingPathComponent("images/hubble_deep_field.jpg")))
        let folder = TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("cut.jpg").path
        try Data(whole.prefix(whole.count * 2 / 3)).write(to: URL(fileURLWithPath: path))
        for lenient in [false, true] {
            let (serial, _) = Self.decode(path, lenient: lenient)
            let (split, parallel) = Self.decode(path, lenient: lenient, chunk: 64)
            #expect(parallel)
            #expect(split == serial)
            switch serial {
            case .failed(let message): #expect(!lenient && message.lowercased().contains("premature end"), "\(message)")
            case .decoded(_, _, _, let warnings, _): #expect(lenient && warnings.count == 1, "\(warnings)")
            }
        }
    }

    /// A fast resize decoded at a reduced scale takes the entropy thread on a renderer of two
    /// threads and gives the bytes a renderer of one thread gives; a full-scale decode does
    /// not take it.
    @Test func rendersEqualOneThreadRenders() throws {
        let path = TestData.shared.appendingPathComponent("images/hubble_deep_field.jpg").path
        var blur = GaussianBlur()
        blur.sigma = 1.5
        // 1000 x 872 fitted in 200 x 200 is 200 x 174: decoded at 1/2 (500 x 436).
        for (chain, shrunk) in [(Chain([Resize(width: 200, height: 200, fast: true)]), 2), (Chain([blur]), 1)] {
            let outputs = [RenderOutput(step: chain.steps.count, .memory())]
            let one = try Renderer(threads: 1).render(chain, source: .file(path), outputs: outputs)
            let two = try Renderer(threads: 2).render(chain, source: .file(path), outputs: outputs)
            #expect(!one.decodedInParallel)
            #expect(two.decodedInParallel == (shrunk > 1))
            #expect(two.images == one.images)
            #expect(one.shrunkOnLoad == shrunk && two.shrunkOnLoad == shrunk)
        }
    }
}

