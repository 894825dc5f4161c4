import FilterChain

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
