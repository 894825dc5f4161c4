import Foundation
@testable import FilterChain

/// Paths to the public conformance data and the repository's samples.
enum TestData {
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let shared = packageRoot.deletingLastPathComponent().appendingPathComponent("shared")
    static let conformance = shared.appendingPathComponent("conformance")
    static let pngSuite = conformance.appendingPathComponent("pngsuite")
    static let jpegImages = conformance.appendingPathComponent("jpeg/testimages")
    static let jpegFuzz = conformance.appendingPathComponent("jpeg/fuzz")
    static let samples = packageRoot.appendingPathComponent("samples")
    static let fixtures = packageRoot.appendingPathComponent("Tests/Fixtures")

    static func pngSuiteFiles() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: pngSuite.appendingPathComponent("png").path)) ?? []
        return names.filter { $0.hasSuffix(".png") }.map { String($0.dropLast(4)) }.sorted()
    }

    /// A fresh empty folder for a test's outputs.
    static func temporaryFolder() -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("filterchain-tests-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// A decoded image as plain integers, for comparisons.
struct Pixels: Equatable, CustomStringConvertible {
    var width: Int
    var height: Int
    var format: PixelFormat
    var samples: [Int]

    var description: String { "\(width)x\(height) \(format)" }

    init(width: Int, height: Int, format: PixelFormat, samples: [Int]) {
        self.width = width
        self.height = height
        self.format = format
        self.samples = samples
    }

    init(bytes: [UInt8], width: Int, height: Int, format: PixelFormat) {
        self.width = width
        self.height = height
        self.format = format
        if format.depth == .sixteen {
            samples = bytes.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)).map(Int.init) }
        } else {
            samples = bytes.map(Int.init)
        }
    }

    static func read(_ path: String, options: DecodeOptions = .init()) throws -> (Pixels, ImageInfo) {
        let reader = try ImageReader.open(.file(path), options: options)
        let bytes = try reader.readAll()
        return (Pixels(bytes: bytes, width: reader.info.width, height: reader.info.height, format: reader.info.format), reader.info)
    }

    /// The samples as RGBA, grey spread to R = G = B and a missing alpha at the maximum.
    var rgba: [Int] {
        let n = format.channels.count
        let maxValue = format.depth.maxValue
        var out: [Int] = []
        out.reserveCapacity(width * height * 4)
        for i in stride(from: 0, to: samples.count, by: n) {
            switch format.channels {
            case .grey: out += [samples[i], samples[i], samples[i], maxValue]
            case .greyAlpha: out += [samples[i], samples[i], samples[i], samples[i + 1]]
            case .rgb: out += [samples[i], samples[i + 1], samples[i + 2], maxValue]
            case .rgba: out += [samples[i], samples[i + 1], samples[i + 2], samples[i + 3]]
            }
        }
        return out
    }

    /// Host-order bytes, as encoders take them.
    var bytes: [UInt8] {
        if format.depth == .eight { return samples.map { UInt8($0) } }
        var out = [UInt8](repeating: 0, count: samples.count * 2)
        out.withUnsafeMutableBytes { p in
            let u = p.bindMemory(to: UInt16.self)
            for (i, s) in samples.enumerated() { u[i] = UInt16(s) }
        }
        return out
    }

    func write(to destination: ImageDestination, format outFormat: ImageFormat, metadata: ImageMetadata = .none,
               options: EncodeOptions = .init()) throws {
        let writer = try ImageWriter(destination, format: outFormat,
                                     header: EncodeHeader(width: width, height: height, format: format, metadata: metadata),
                                     options: options)
        let b = bytes
        try b.withUnsafeBytes { p in
            try writer.writeNow(rows: p.baseAddress!, stride: width * format.bytesPerPixel, count: height)
        }
        try writer.finish()
    }
}
