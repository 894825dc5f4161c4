#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ChainImage {
    /// The file's path as opened: `file` as written, relative to `directory` (the chain
    /// file's folder) unless absolute.
    public func resolvedPath(relativeTo directory: String) -> String {
        file.hasPrefix("/") || directory.isEmpty || directory == "."
            ? file : (directory.hasSuffix("/") ? directory + file : directory + "/" + file)
    }

    /// Reads the image (any format the tool reads, turned upright by its EXIF orientation),
    /// or finds it already read by this process. Throws the reason, as a person reads it.
    public mutating func load(relativeTo directory: String) throws(ImageFileError) {
        image = try ImageFileCache.image(at: resolvedPath(relativeTo: directory))
    }
}

/// Why an image of a chain could not be read: the reason (the codec's message).
public struct ImageFileError: Error, Sendable, Equatable {
    public var reason: String
}

extension Chain {
    /// Reads every image of `images` not read yet, relative to `directory` (the chain file's
    /// folder); the error names the image by its path in the file (`images[0].file`).
    public mutating func loadImages(relativeTo directory: String, file: String = "chain") throws(ChainError) {
        for i in images.indices where images[i].image == nil {
            do throws(ImageFileError) { try images[i].load(relativeTo: directory) } catch {
                throw ChainError(file: file, path: "images[\(i)].file", problem: .imageFile(file: images[i].file, reason: error.reason))
            }
        }
    }
}

/// The images chains name, decoded once per process and shared (a batch reads its logo
/// once), by absolute path. A file is decoded again only when its size or modification
/// time changes, so a long-running editor sees edits.
enum ImageFileCache {
    private static let monitor = Monitor()
    nonisolated(unsafe) private static var loaded: [String: (stamp: CubeLUT.FileStamp, image: RasterImage)] = [:]

    static func image(at path: String) throws(ImageFileError) -> RasterImage {
        let key = absolute(path)
        let stamp = CubeLUT.FileStamp(path)
        if let stamp, let hit = monitor.locked({ loaded[key] }), hit.stamp == stamp { return hit.image }
        let image: RasterImage
        do { image = try RasterImage(contentsOf: path) } catch {
            throw ImageFileError(reason: (error as? CodecError)?.message ?? "\(error)")
        }
        if let stamp { monitor.locked { loaded[key] = (stamp, image) } }
        return image
    }

    /// `path` from the root: relative paths start at the working directory.
    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let cwd = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (cwd.hasSuffix("/") ? cwd : cwd + "/") + path
    }
}
