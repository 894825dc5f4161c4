import CLCMS

/// Why lcms2 could not do something: its first message, as the shim collected it.
func lcmsMessage(_ report: fc_lcms_report) -> String {
    var r = report
    let text = withUnsafeBytes(of: &r.message) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
    return text.isEmpty ? "unknown lcms2 error" : text
}

/// An lcms2 profile (through the CLCMS shim). lcms2 reads a profile's tags lazily, so every
/// use goes through `access`, one thread at a time. (@unchecked Sendable: the C pointer is used
/// only under `monitor`, in `access`.)
final class LCMSProfile: @unchecked Sendable {
    private let pointer: OpaquePointer
    private let monitor = Monitor()

    init(pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { fc_lcms_profile_free(pointer) }

    func access<T>(_ body: (OpaquePointer) throws -> T) rethrows -> T {
        try monitor.locked { try body(pointer) }
    }

    /// Opens ICC bytes; throws lcms2's message when it cannot read them.
    static func open(_ bytes: [UInt8]) throws(ColorProfileError) -> LCMSProfile {
        var report = fc_lcms_report()
        let p = bytes.withUnsafeBytes { raw in fc_lcms_profile_open(raw.baseAddress, raw.count, &report) }
        guard let p else { throw .unreadable(lcmsMessage(report)) }
        return LCMSProfile(pointer: p)
    }

    /// A profile lcms2 makes for a working space (cmsCreateRGBProfile: D65 white adapted to
    /// D50 with Bradford, the space's primaries and curve).
    static func make(_ space: WorkingSpace) throws(ColorProfileError) -> LCMSProfile {
        guard case .parametric(let type, let params) = space.curve else { preconditionFailure("a working space's curve is parametric") }
        var report = fc_lcms_report()
        let white = [space.white.x, space.white.y]
        let p = space.primaries
        let primaries = [p.red.0, p.red.1, p.green.0, p.green.1, p.blue.0, p.blue.1]
        var parameters = params + [Double](repeating: 0, count: 10 - params.count)
        let made = parameters.withUnsafeMutableBufferPointer { q in
            fc_lcms_profile_create_rgb(white, primaries, Int32(type), q.baseAddress, &report)
        }
        guard let made else { throw .unreadable(lcmsMessage(report)) }
        return LCMSProfile(pointer: made)
    }

    /// An RGB profile from primaries, a white (x, y) and one parametric curve (lcms2's type
    /// and parameters), as cmsCreateRGBProfile makes it.
    static func makeRGB(white: (Double, Double), primaries: [(Double, Double)], curveType: Int,
                        curveParameters: [Double]) throws(ColorProfileError) -> LCMSProfile {
        var report = fc_lcms_report()
        let xy = primaries.flatMap { [$0.0, $0.1] }
        var parameters = curveParameters + [Double](repeating: 0, count: max(0, 10 - curveParameters.count))
        let made = parameters.withUnsafeMutableBufferPointer { q in
            fc_lcms_profile_create_rgb([white.0, white.1], xy, Int32(curveType), q.baseAddress, &report)
        }
        guard let made else { throw .unreadable(lcmsMessage(report)) }
        return LCMSProfile(pointer: made)
    }

    /// A grey profile with one parametric curve.
    static func makeGrey(curveType: Int, curveParameters: [Double]) throws(ColorProfileError) -> LCMSProfile {
        var report = fc_lcms_report()
        var parameters = curveParameters + [Double](repeating: 0, count: max(0, 10 - curveParameters.count))
        let made = parameters.withUnsafeMutableBufferPointer { q in
            fc_lcms_profile_create_grey(Int32(curveType), q.baseAddress, &report)
        }
        guard let made else { throw .unreadable(lcmsMessage(report)) }
        return LCMSProfile(pointer: made)
    }

    /// The profile as ICC bytes, with this description and copyright.
    func iccData(description: String, copyright: String) -> [UInt8]? {
        access { p -> [UInt8]? in
            guard fc_lcms_profile_set_text(p, description, copyright) != 0 else { return nil }
            let size = fc_lcms_profile_save(p, nil, 0)
            guard size > 0 else { return nil }
            var bytes = [UInt8](repeating: 0, count: size)
            let written = bytes.withUnsafeMutableBytes { fc_lcms_profile_save(p, $0.baseAddress, size) }
            guard written == size, size >= 128 else { return nil }
            // lcms2 stamps the header with the time the profile was made (bytes 24-35): a fixed
            // date instead, so that every output carrying it is the same bytes on every run.
            let date: [UInt16] = [2026, 1, 1, 0, 0, 0]
            for (i, v) in date.enumerated() {
                bytes[24 + 2 * i] = UInt8(v >> 8)
                bytes[25 + 2 * i] = UInt8(v & 0xFF)
            }
            return bytes
        }
    }

    /// Evaluates curve `channel` (or lcms2's inverse of it) at `values`, as lcms2's float
    /// transforms do; nil when the curve is missing.
    func evaluateCurve(_ channel: Int, inverse: Bool, at values: [Float]) -> [Float]? {
        var out = [Float](repeating: 0, count: values.count)
        let ok = access { p in
            out.withUnsafeMutableBufferPointer { o in
                fc_lcms_profile_eval_curve(p, Int32(channel), inverse ? 1 : 0, values, o.baseAddress, values.count)
            }
        }
        return ok == 0 ? nil : out
    }
}

/// An lcms2 float transform between two profiles, made with cmsFLAGS_NOCACHE: one transform
/// runs on any number of threads at once. (@unchecked Sendable: immutable after init; the C
/// transform, made without a cache, is only read when it runs.)
package final class LCMSTransform: @unchecked Sendable {
    private let pointer: OpaquePointer
    /// Floats per pixel in and out: 3 RGB, 1 grey, 4 CMYK (lcms2's float CMYK: 0 to 100).
    public let inputChannels: Int
    public let outputChannels: Int

    /// lcms2's transform from `source` to `destination` with an ICC intent (0 perceptual,
    /// 1 relative colorimetric, 2 saturation, 3 absolute colorimetric) and black-point
    /// compensation.
    public init(from source: ColorProfile, to destination: ColorProfile, intent: RenderingIntent,
                blackPointCompensation: Bool) throws(ColorProfileError) {
        var report = fc_lcms_report()
        let bpc: Int32 = blackPointCompensation ? 1 : 0
        let made = source.engine.access { s in
            // One profile both ways is locked once (the lock is not recursive).
            source.engine === destination.engine
                ? fc_lcms_transform_new(s, s, Int32(intent.rawValue), bpc, &report)
                : destination.engine.access { d in fc_lcms_transform_new(s, d, Int32(intent.rawValue), bpc, &report) }
        }
        guard let made else { throw .noTransform(lcmsMessage(report)) }
        pointer = made
        inputChannels = Int(fc_lcms_transform_input_channels(made))
        outputChannels = Int(fc_lcms_transform_output_channels(made))
    }

    /// lcms2's integer transform from `source`'s samples (`bytes` 1 or 2 a channel) to 16-bit
    /// samples of `destination`, optimised as lcms2 does by default (a LUT-based profile
    /// becomes one precalculated table). A CMYK source's table is interpolated by fc_lcms's
    /// routine for four inputs and three outputs (lcms2's arithmetic, faster), unless
    /// `lcms2Interpolation` asks for lcms2's own (the tests' reference).
    public convenience init(samplesFrom source: ColorProfile, bytes: Int, to destination: ColorProfile,
                            intent: RenderingIntent, blackPointCompensation: Bool) throws(ColorProfileError) {
        try self.init(samplesFrom: source, bytes: bytes, to: destination, intent: intent,
                      blackPointCompensation: blackPointCompensation, lcms2Interpolation: false)
    }

    init(samplesFrom source: ColorProfile, bytes: Int, to destination: ColorProfile, intent: RenderingIntent,
         blackPointCompensation: Bool, lcms2Interpolation: Bool) throws(ColorProfileError) {
        var report = fc_lcms_report()
        let bpc: Int32 = blackPointCompensation ? 1 : 0
        let make = lcms2Interpolation ? fc_lcms_transform_new_samples_lcms2 : fc_lcms_transform_new_samples
        let made = source.engine.access { s in
            source.engine === destination.engine
                ? make(s, s, Int32(bytes), Int32(intent.rawValue), bpc, &report)
                : destination.engine.access { d in
                    make(s, d, Int32(bytes), Int32(intent.rawValue), bpc, &report)
                }
        }
        guard let made else { throw .noTransform(lcmsMessage(report)) }
        pointer = made
        inputChannels = Int(fc_lcms_transform_input_channels(made))
        outputChannels = Int(fc_lcms_transform_output_channels(made))
    }

    deinit { fc_lcms_transform_free(pointer) }

    /// Whether fc_lcms's own interpolation serves this transform (see `init(samplesFrom:)`).
    var usesOwnInterpolation: Bool { fc_lcms_transform_uses_own_interpolation(pointer) != 0 }
    /// Whether this CMYK-to-RGB transform's table was made by fc_lcms on several threads.
    var madeOwnTable: Bool { fc_lcms_transform_made_own_table(pointer) != 0 }

    /// How this (8-bit CMYK to RGB) transform is evaluated straight from lcms2's table: 0 it
    /// is not, 1 in scalar code, 2 with AVX2.
    var directEvaluation: Int { Int(fc_lcms_transform_evaluates_directly(pointer)) }

    /// Transforms `count` pixels of interleaved integer samples (an integer transform's).
    func run(samples source: UnsafeRawPointer, into destination: UnsafeMutablePointer<UInt16>, count: Int) {
        fc_lcms_transform_run_samples(pointer, source, destination, count)
    }

    /// Transforms `count` pixels of integer samples into RGB planes of floats, each 16-bit
    /// result over 65535 (an integer transform's whose output is RGB).
    func run(samples source: UnsafeRawPointer, red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>,
             blue: UnsafeMutablePointer<Float>, count: Int) {
        precondition(outputChannels == 3, "an RGB output")
        fc_lcms_transform_run_samples_rgb(pointer, source, red, green, blue, count)
    }

    /// Transforms `count` pixels of interleaved floats.
    public func run(_ source: UnsafePointer<Float>, into destination: UnsafeMutablePointer<Float>, count: Int) {
        fc_lcms_transform_run(pointer, source, destination, count)
    }

    /// Convenience for tests and small jobs: transforms interleaved floats.
    public func run(_ source: [Float]) -> [Float] {
        precondition(source.count % inputChannels == 0, "whole pixels")
        let count = source.count / inputChannels
        var out = [Float](repeating: 0, count: count * outputChannels)
        source.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { o in
                if count > 0 { run(s.baseAddress!, into: o.baseAddress!, count: count) }
            }
        }
        return out
    }
}

/// The ICC rendering intents.
public enum RenderingIntent: Int, Sendable, CaseIterable {
    case perceptual = 0
    case relative = 1
    case saturation = 2
    case absolute = 3
}
