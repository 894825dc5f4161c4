#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CCommon

/// The one mapping from a C shim's status (`fc_status`, shared by every shim) and its
/// report's message to a typed error.
extension CodecError {
    /// A failed read of `name` in `format`: no memory; a valid file the library cannot
    /// serve ("TIFF: ..."), or one over the library's own limits ("the image is ..."); else
    /// damage, in the library's words.
    static func reading(_ name: String, _ status: fc_status, message: String, format: ImageFormat) -> CodecError {
        let message = message.isEmpty ? "unknown error" : message
        switch status {
        case FC_NO_MEMORY: return CodecError(name, .outOfMemory)
        case FC_UNSUPPORTED: return CodecError(name, .unsupported(unsupported(message, format)))
        case FC_LIMIT: return CodecError(name, .unsupported("the image is \(message)"))
        default: return CodecError(name, .corrupt(format: format, message))
        }
    }

    /// A failed write of `output` in `format`: no memory; a request the library cannot
    /// serve; the file not written (what errno says: `code` when the shim kept it, else the
    /// thread's errno now; else the library's words).
    static func writing(_ output: OutputFile, _ status: fc_status, message: String, format: ImageFormat,
                        errno code: Int32? = nil) -> CodecError {
        switch status {
        case FC_NO_MEMORY: return CodecError(output.name, .outOfMemory)
        case FC_UNSUPPORTED: return CodecError(output.name, .unsupported(unsupported(message, format)))
        case FC_WRITE_FAILED where code == nil: return output.writeError(message.isEmpty ? "write error" : message)
        case FC_WRITE_FAILED where code != 0: return CodecError(output.name, .writeFailed(String(cString: strerror(code!))))
        default: return CodecError(output.name, .writeFailed(message.isEmpty ? "\(format.name) encoding failed" : message))
        }
    }

    /// The library's words, led by the format's name ("AVIF: ...") unless they start with it.
    private static func unsupported(_ message: String, _ format: ImageFormat) -> String {
        message.hasPrefix(format.name) ? message : "\(format.name): \(message)"
    }
}
