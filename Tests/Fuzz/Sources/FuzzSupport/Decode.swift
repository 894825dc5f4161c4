import FilterChain
#if canImport(Glibc)
import Glibc
#endif

/// Reads the whole image strictly and leniently; errors are expected, crashes and sanitizer
/// reports are not. A pixel limit keeps each run small (its check is part of what is fuzzed).
public func decodeBothWays(_ bytes: [UInt8]) {
    for lenient in [false, true] {
        let options = DecodeOptions(maxPixels: 1 << 22, lenient: lenient)
        do {
            let reader = try ImageReader.open(.bytes(bytes, name: "fuzz"), options: options)
            defer { _ = reader.warnings + reader.notices }
            _ = try reader.readAll()
        } catch {
            _ = "\(error)"  // the message is part of what is fuzzed
        }
    }
}

/// The same bytes as a file (one per process, rewritten for each input), read strictly and
/// leniently through `.file`: decoders that read a regular file in place (TIFF, with pread
/// as libtiff asks) take another path than bytes in memory.
public func decodeFromFile(_ bytes: [UInt8]) {
    let path = fuzzInputPath
    guard let file = fopen(path, "wb") else { return }
    let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
    fclose(file)
    guard written == bytes.count else { return }
    for lenient in [false, true] {
        do {
            let reader = try ImageReader.open(.file(path), options: DecodeOptions(maxPixels: 1 << 22, lenient: lenient))
            defer { _ = reader.warnings + reader.notices }
            _ = try reader.readAll()
        } catch {
            _ = "\(error)"
        }
    }
}

/// The file `decodeFromFile` writes, removed when the process exits.
private let fuzzInputPath: String = {
    atexit { unlink(fuzzInputPath) }
    return "/tmp/filterchain-fuzz-\(getpid()).input"
}()

/// Reads an animation frame by frame, strictly and leniently (GIF, animated WebP): the scan,
/// the frame limit, and every frame's compositing. A pixel and frame limit keep runs small.
public func decodeFrames(_ bytes: [UInt8]) {
    for lenient in [false, true] {
        do {
            let reader = try AnimationReader(.bytes(bytes, name: "fuzz"), options: DecodeOptions(maxPixels: 1 << 20, lenient: lenient),
                                             maxFrames: 64)
            _ = reader.harmlessDamage
            for _ in 0..<reader.animation.frameCount { _ = try reader.nextFrame() }
        } catch {
            _ = "\(error)"
        }
    }
}
