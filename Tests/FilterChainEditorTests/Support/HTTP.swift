import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A bare HTTP/1.1 client over a socket, so that tests control every byte: the Host header,
/// paths that a URL library would normalise, bodies of any size.
struct RawHTTP {
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        var json: Any? { try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]) }
        var error: String? { (json as? [String: Any])?["error"] as? String }
    }

    let port: UInt16
    static let timeoutSeconds = 600

    /// No complete answer: what came, and why the reading stopped.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Sends one request and reads the whole response, on a thread of its own: a blocking
    /// socket call must not hold one of the few threads the server's tasks run on.
    /// `pause` stops sending for that long after that many bytes of the request, as a slow
    /// uploader does.
    func send(_ method: String, _ target: String, host: String? = nil, headers: [String: String] = [:],
              body: [UInt8]? = nil, chunked: Bool = false, pause: (after: Int, seconds: Double)? = nil) async throws -> Response {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    try blockingSend(method, target, host: host, headers: headers, body: body, chunked: chunked, pause: pause)
                })
            }
        }
    }

    func blockingSend(_ method: String, _ target: String, host: String?, headers: [String: String],
                      body: [UInt8]?, chunked: Bool, pause: (after: Int, seconds: Double)? = nil) throws -> Response {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        // As long as the server's own timeout: the test suite runs many tests at once on a
        // machine of two cores, and a long synchronous test can hold a thread the server's
        // tasks need. An answer that does not come is reported as such (`Failure`).
        var timeout = timeval(tv_sec: Self.timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        var head = "\(method) \(target) HTTP/1.1\r\n"
        if let host = host ?? "127.0.0.1:\(port)" as String?, !host.isEmpty { head += "Host: \(host)\r\n" }
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        if let body {
            head += chunked ? "Transfer-Encoding: chunked\r\n" : "Content-Length: \(body.count)\r\n"
        }
        head += "Connection: close\r\n\r\n"
        var bytes = Array(head.utf8)
        if let body {
            if chunked {
                var offset = 0
                while offset < body.count {
                    let n = min(65536, body.count - offset)
                    bytes += Array((String(n, radix: 16) + "\r\n").utf8) + body[offset..<offset + n] + Array("\r\n".utf8)
                    offset += n
                }
                bytes += Array("0\r\n\r\n".utf8)
            } else {
                bytes += body
            }
        }
        // The server may answer (413) and close before reading everything: a failed write
        // is not an error here, the response is.
        var sent = 0
        var paused = pause == nil
        while sent < bytes.count {
            let end = paused ? bytes.count : min(bytes.count, pause!.after)
            if sent == end, let pause {
                Thread.sleep(forTimeInterval: pause.seconds)
                paused = true
                continue
            }
            let n = bytes[sent..<end].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }
            sent += n
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let started = Date()
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 {
                let why = n == 0 ? "the server closed the connection" : String(cString: strerror(errno))
                guard let parsed = try? Self.parse(response) else {
                    throw Failure(description: "\(method) \(target): no complete answer after \(Int(Date().timeIntervalSince(started))) s "
                                  + "(\(response.count) bytes, \(sent) of \(bytes.count) sent): \(why)")
                }
                return parsed
            }
            response += buffer[0..<n]
            // Complete once the headers and Content-Length bytes of body are in.
            if let parsed = try? Self.parse(response), let length = parsed.headers["content-length"].flatMap(Int.init),
               parsed.body.count >= length {
                return parsed
            }
        }
    }

    static func parse(_ bytes: [UInt8]) throws -> Response {
        let separator = Array("\r\n\r\n".utf8)
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else {
            throw POSIXError(.EBADMSG)
        }
        let lines = String(decoding: bytes[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(lines[0].split(separator: " ")[1]) ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(bytes[(end + 4)...])
        if let length = headers["content-length"].flatMap(Int.init), body.count > length { body = Array(body.prefix(length)) }
        return Response(status: status, headers: headers, body: body)
    }
}
