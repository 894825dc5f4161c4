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

    /// How the entropy thread decoded: this project's decoder alone (libjpeg decoded no MCU),
    /// and with the second thread's MCUs.
    struct Path: Equatable {
        var ownDecoderOnly = false, split = false
    }

    /// Decodes `path`, in parallel when `chunk` is given (MCUs per hand-over; any image size
    /// qualifies), at 1/`shrink` scale, with a second Huffman thread from `split` MCUs (0:
    /// never). Also returns whether a thread was started, and how it decoded.
    static func decode(_ path: String, lenient: Bool = false, chunk: Int? = nil, split: Int = 0, shrink: Int = 1,
                       maxPixels: Int = DecodeOptions.defaultMaxPixels) -> (Outcome, parallel: Bool, path: Path) {
        var parallel = false
        var reader: ImageReader?
        func how() -> Path {
            guard let reader else { return Path() }
            return Path(ownDecoderOnly: reader.entropyPath.ownDecoderOnly, split: reader.entropyPath.split)
        }
        do {
            let opened = try ImageReader.open(.file(path), options: DecodeOptions(maxPixels: maxPixels, lenient: lenient))
            reader = opened
            if shrink > 1 {
                try opened.shrink(keepingAtLeast: ImageSize(width: opened.info.width / shrink, height: opened.info.height / shrink))
            }
            if let chunk { parallel = opened.decodeInParallel(minimumMCUs: 1, chunkMCUs: chunk, splitMCUs: split) }
            let pixels = try opened.readAll()
            return (.decoded(pixels: pixels, width: opened.info.width, height: opened.info.height,
                             warnings: opened.warnings, notices: opened.notices), parallel, how())
        } catch let error as CodecError {
            return (.failed(error.message), parallel, how())
        } catch {
            return (.failed("\(error)"), parallel, how())
        }
    }

    /// libjpeg-turbo's fuzzed corpus and test images, strict and lenient, with a 7-MCU
    /// hand-over so that the ring wraps many times even in small images, and the second
    /// Huffman thread taken from 4 MCUs (every plain scan of 64 bytes or more).
    @Test func corpusDecodesAsOnOneThread() throws {
        let fixtures = FuzzRegressionTests.files("jpeg")
        let files = JPEGConformanceTests.fuzzFiles.map { TestData.jpegFuzz.appendingPathComponent($0).path }
            + ["testorig.jpg", "testimgint.jpg", "testimgari.jpg"].map { TestData.jpegImages.appendingPathComponent($0).path }
            + fixtures
        #expect(files.count == 882 + fixtures.count && !fixtures.isEmpty)
        var parallel = 0, failedBoth = 0, own = 0, split = 0, damagedOwn = 0
        for path in files {
            for lenient in [false, true] {
                let (serial, _, _) = Self.decode(path, lenient: lenient, maxPixels: 4_000_000)
                let (threaded, wasParallel, how) = Self.decode(path, lenient: lenient, chunk: 7, split: 4, maxPixels: 4_000_000)
                #expect(threaded == serial, "\(path) lenient \(lenient): \(threaded) against \(serial)")
                if wasParallel { parallel += 1 }
                if case .failed = serial { failedBoth += 1 }
                if how.ownDecoderOnly { own += 1 }
                if how.split { split += 1 }
                // A file this project's decoder took alone is one whose scan libjpeg decodes
                // without a warning (it may warn about headers: "Invalid SOS parameters").
                if how.ownDecoderOnly {
                    switch serial {
                    case .failed: damagedOwn += 1
                    case .decoded(_, _, _, let warnings, _):
                        if warnings.contains(where: { $0.contains("Corrupt") || $0.contains("Premature") }) { damagedOwn += 1 }
                    }
                }
            }
        }
        // Most of the corpus is progressive, arithmetic-coded or fails in its headers, which
        // decodes on one thread either way; 202 of the 1764 decodes qualify. Most of those are
        // damaged in the scan, where libjpeg takes over.
        #expect(parallel >= 200, "\(parallel) decodes took the entropy thread")
        #expect(failedBoth > 100, "the damaged files are part of the comparison (\(failedBoth))")
        #expect(own >= 4 && split >= 2, "this project's decoder alone: \(own), with the second thread: \(split)")
        #expect(damagedOwn == 0)
    }

    /// A photograph at full and reduced scale, with the default hand-over and a small one,
    /// Huffman-decoded on one thread and on two.
    @Test(arguments: [1, 2, 4, 8])
    func photographDecodesAsOnOneThread(shrink: Int) throws {
        let path = TestData.shared.appendingPathComponent("images/hubble_deep_field.jpg").path
        let (serial, _, _) = Self.decode(path, shrink: shrink)
        for chunk in [512, 5] {
            for split in [0, 1000] {
                let (threaded, parallel, how) = Self.decode(path, chunk: chunk, split: split, shrink: shrink)
                #expect(parallel)
                #expect(threaded == serial, "chunk \(chunk), split \(split)")
                #expect(how == Path(ownDecoderOnly: true, split: split > 0))
            }
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
            let (serial, _, _) = Self.decode(path, lenient: lenient)
            let (threaded, parallel, how) = Self.decode(path, lenient: lenient, chunk: 64, split: 1000)
            #expect(parallel)
            #expect(threaded == serial)
            #expect(!how.ownDecoderOnly)
            switch serial {
            case .failed(let message): #expect(!lenient && message.lowercased().contains("premature end"), "\(message)")
            case .decoded(_, _, _, let warnings, _): #expect(lenient && warnings.count == 1, "\(warnings)")
            }
        }
    }

    /// The offset of the first byte after the SOS segment.
    static func scanStart(_ bytes: [UInt8]) -> Int? {
        var i = 2
        while i + 4 <= bytes.count, bytes[i] == 0xFF {
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if bytes[i + 1] == 0xDA { return i + 2 + length }
            i += 2 + length
        }
        return nil
    }

    /// Writes `bytes` to a file of its own and compares its decodes (strict and lenient, at
    /// full and 1/4 scale): one thread against the entropy thread with the second Huffman
    /// thread. Returns the serial outcomes and how the threaded decodes went.
    static func compare(_ bytes: [UInt8], _ note: String) throws -> [(Outcome, Path)] {
        let folder = TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("damaged.jpg").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        var results: [(Outcome, Path)] = []
        for lenient in [false, true] {
            for shrink in [1, 4] {
                let (serial, _, _) = Self.decode(path, lenient: lenient, shrink: shrink)
                let (threaded, parallel, how) = Self.decode(path, lenient: lenient, chunk: 16, split: 1000, shrink: shrink)
                #expect(parallel, "\(note)")
                #expect(threaded == serial, "\(note), lenient \(lenient), 1/\(shrink): \(threaded) against \(serial)")
                results.append((serial, how))
            }
        }
        return results
    }

    /// Damage in the scan, before the point where the second thread starts, at it, and in
    /// the second half: libjpeg takes over at the damaged MCU and reports what it reports on
    /// one thread; the MCUs before it are this project's decoder's (and the second thread's).
    @Test(arguments: [0.2, 0.5, 0.5003, 0.75, 0.97])
    func damageInTheScanIsLibjpegs(at fraction: Double) throws {
        let whole = try [UInt8](Data(contentsOf: TestData.shared.appendingPathComponent("images/hubble_deep_field.jpg")))
        let start = try #require(Self.scanStart(whole))
        let end = whole.count - 2  // EOI
        var bytes = whole
        // 48 one bits (0xFF 0x00 is a stuffed 0xFF: entropy-coded data, not a marker). Past at
        // most 15 extra bits, a code starts inside them, and 16 ones are no code of an
        // encoder's table (T.81 C: the all-ones code is not used).
        let at = start + Int(Double(end - start) * fraction)
        for k in 0..<12 { bytes[at + k] = k % 2 == 0 ? 0xFF : 0x00 }
        let results = try Self.compare(bytes, "damage at \(fraction)")
        // The damage shows (libjpeg-turbo's fast path reads a bad code as symbol 0, without a
        // warning, so the pixels say it, not always a warning).
        let (intact, _, _) = Self.decode(TestData.shared.appendingPathComponent("images/hubble_deep_field.jpg").path)
        #expect(results[0].0 != intact)
        for (outcome, how) in results {
            if case .decoded = outcome { #expect(!how.ownDecoderOnly) }
        }
    }

    /// A scan that does not end plainly: bytes before EOI, a file without EOI, a marker other
    /// than EOI after the scan. libjpeg reads what follows the scan, as on one thread.
    @Test func unusualEndsAreLibjpegs() throws {
        let whole = try [UInt8](Data(contentsOf: TestData.shared.appendingPathComponent("images/hubble_deep_field.jpg")))
        #expect(Array(whole.suffix(2)) == [0xFF, 0xD9])
        let scan = Array(whole.dropLast(2))
        let cases: [(String, [UInt8])] = [
            ("bytes before EOI", scan + [0x12, 0x34, 0x56, 0xFF, 0xD9]),
            ("no EOI", scan),
            ("a comment before EOI", scan + [0xFF, 0xFE, 0x00, 0x04, 0x41, 0x42, 0xFF, 0xD9]),
            ("fill bytes before EOI", scan + [0xFF, 0xFF, 0xFF, 0xD9]),
            ("bytes after EOI", whole + [0x00, 0xFF, 0xD8, 0x99]),
        ]
        for (note, bytes) in cases {
            let results = try Self.compare(bytes, note)
            // Fill bytes and bytes after EOI are plain: libjpeg decodes nothing again.
            let plain = note.hasPrefix("fill") || note.hasPrefix("bytes after")
            // (How a decode went is known after its finish: a failed one does not say.)
            for (outcome, how) in results {
                guard case .decoded(_, _, _, let warnings, _) = outcome else { continue }
                #expect(how.ownDecoderOnly == plain, "\(note)")
                #expect(how.split, "\(note)")
                if plain { #expect(warnings.isEmpty, "\(note)") }
            }
        }
    }

    /// The real photographs at hand (4:4:4 and 4:2:0), with the second Huffman thread: the same
    /// pixels as on one thread, every MCU from this project's decoder.
    @Test func photographsDecodeAsOnOneThread() throws {
        let paths = ["images/rocket.jpg", "images/hubble_deep_field.jpg"].map { TestData.shared.appendingPathComponent($0).path }
        for path in paths {
            for shrink in [2, 8] {
                let (serial, _, _) = Self.decode(path, shrink: shrink)
                let (threaded, _, how) = Self.decode(path, chunk: 512, split: 1000, shrink: shrink)
                #expect(threaded == serial, "\(path) 1/\(shrink)")
                #expect(how == Path(ownDecoderOnly: true, split: true), "\(path)")
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

