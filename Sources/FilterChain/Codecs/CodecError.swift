/// Why an image could not be read or written. `file` names the file ("-" is standard
/// input or output); `description` is one line a person can act on.
public struct CodecError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Reason: Equatable, Sendable {
        case notFound
        case isDirectory
        case permissionDenied
        case empty
        case readFailed(String)
        /// The first bytes are no format filterchain reads; what they look like instead.
        case unsupportedFormat(looksLike: String)
        /// An output name whose extension names no format we write.
        case unsupportedOutputFormat(String)
        case tooManyPixels(width: Int, height: Int, limit: Int)
        /// The library found damage; its own words.
        case corrupt(format: ImageFormat, String)
        case unsupported(String)
        case writeFailed(String)
        case outOfMemory
        /// The system library a format needs cannot be used (not installed, or too old); why.
        case libraryUnavailable(format: String, String)
    }

    public var file: String
    public var reason: Reason

    public init(_ file: String, _ reason: Reason) {
        self.file = file
        self.reason = reason
    }

    public var displayName: String { file == "-" ? "<stdin>" : file }

    public var message: String {
        switch reason {
        case .notFound: "no such file"
        case .isDirectory: "is a directory, not an image file"
        case .permissionDenied: "permission denied"
        case .empty: "the file is empty"
        case .readFailed(let why): "cannot read: \(why)"
        case .unsupportedFormat(let what):
            "unsupported format: \(what) (filterchain reads \(CodecRegistry.list(CodecRegistry.readable.map(\.name))))"
        case .unsupportedOutputFormat(let ext):
            ext.isEmpty
                ? "cannot tell the output format: no extension (end the name with \(CodecError.extensions), or set EncodeOptions.format)"
                : "unsupported output format '.\(ext)' (end the name with \(CodecError.extensions), or set EncodeOptions.format)"
        case .tooManyPixels(let w, let h, let limit):
            // A header's sizes can make a product past Int.max (found by fuzzing).
            "image is \(w) x \(h) = \(w.multipliedReportingOverflow(by: h).overflow ? "more than \(Int.max)" : String(w * h)) pixels, over the limit of \(limit) (raise DecodeOptions.maxPixels; 0 for none)"
        case .corrupt(let format, let why): "damaged \(format.name) data: \(why)"
        case .unsupported(let why): why
        case .writeFailed(let why): "cannot write: \(why)"
        case .outOfMemory: "out of memory"
        case .libraryUnavailable(let format, let why): "\(format) needs a library that cannot be used here: \(why)"
        }
    }

    public var description: String { "\(displayName): \(message)" }

    /// ".png, .jpg, .jpeg, .webp": the extensions outputs can have.
    static var extensions: String { CodecRegistry.writable.flatMap(\.extensions).map { "." + $0 }.joined(separator: ", ") }
}
