#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The colour an output is written in (`--output-profile`).
public enum OutputProfile: Sendable, Hashable, CustomStringConvertible {
    /// The input's own: an RGB or grey input keeps its profile and its colours (a chain of no
    /// steps changes no colour); an input without a description stays sRGB and untagged; a
    /// CMYK input is written as sRGB.
    case source
    /// sRGB, tagged: PNG's sRGB chunk, a compact sRGB ICC profile in the other formats.
    case srgb
    /// Display P3, with its ICC profile.
    case displayP3
    /// An ICC profile from a file (RGB or grey), written with the output.
    case icc(name: String, data: [UInt8])

    /// Reads `path` as an ICC profile for outputs: one lcms2 can read, of an RGB, grey or
    /// CMYK space (CMYK outputs are JPEG and TIFF; the profile needs an output direction).
    public static func file(_ path: String) throws(ColorProfileError) -> OutputProfile {
        let data: [UInt8]
        switch readWholeFile(path) {
        case .success(let bytes): data = bytes
        case .failure(let reason): throw .cannotUse("cannot read it: \(reason)")
        }
        let profile = try ColorProfile(iccData: data)
        if profile.space == .cmyk {
            // lcms2 makes the transform only when the profile can be written to (a BToA table).
            do {
                _ = try LCMSTransform(from: ColorProfile(workingSpace: .srgb), to: profile, intent: .relative,
                                      blackPointCompensation: true)
            } catch {
                throw .cannotUse("a CMYK profile that cannot be written to (it has no output direction): \(error)")
            }
        }
        return .icc(name: path, data: data)
    }

    public var description: String {
        switch self {
        case .source: "source"
        case .srgb: "srgb"
        case .displayP3: "displayP3"
        case .icc(let name, _): name
        }
    }

    struct ReadFailure: Error, CustomStringConvertible {
        let description: String
    }

    private static func readWholeFile(_ path: String) -> Result<[UInt8], ReadFailure> {
        guard let f = fopen(path, "rb") else { return .failure(ReadFailure(description: String(cString: strerror(errno)).lowercased())) }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
            if n > 0 { bytes += buffer[0..<n] }
            if n < buffer.count { break }
            if bytes.count > 64 << 20 { return .failure(ReadFailure(description: "over 64 MB, too large for an ICC profile")) }
        }
        return ferror(f) == 0 ? .success(bytes) : .failure(ReadFailure(description: "a read error"))
    }
}
