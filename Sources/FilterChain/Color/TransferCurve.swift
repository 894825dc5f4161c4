#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A profile's tone curve (TRC) as lcms2 holds it, evaluated as lcms2's float transforms
/// evaluate it (cmsEvalToneCurveFloat), so that fused kernels give lcms2's results:
/// - `parametric`: lcms2's parametric types 1 to 5 (ICC 'para' function types 0 to 4, and
///   'curv' with one gamma), and their analytic inverses (negative types), with lcms2's
///   rules beyond [0, 1]: evaluated over all reals, so values outside [0, 1] survive (an
///   sRGB-like curve is linear below 0; a pure gamma gives 0 below 0 unless it is 1).
/// - `table`: a 'curv' table of 16-bit values equally spaced over [0, 1]. lcms2 evaluates
///   tables in 16 bits: the input is clamped to [0, 1] and rounded to 1/65535, interpolated
///   in fixed point, and the output is a multiple of 1/65535. A table curve therefore clamps.
public enum TransferCurve: Sendable, Equatable {
    /// lcms2's type (ICC function type + 1; negative: the inverse) and its parameters
    /// g, a, b, c, d, e, f as far as the type uses them.
    case parametric(type: Int, params: [Double])
    case table([UInt16])

    /// The sRGB curve, decoding (IEC 61966-2-1), as lcms2's type 4.
    public static let sRGB = TransferCurve.parametric(type: 4, params: [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045])

    /// lcms2's MATRIX_DET_TOLERANCE: parameters closer than this to 0 (or a gamma to 1) are
    /// treated as 0 (or 1).
    static let tolerance = 0.0001

    /// The types the fused kernels evaluate.
    public var isSupported: Bool {
        switch self {
        case .parametric(let type, let params): (1...5).contains(abs(type)) && params.count >= TransferCurve.parameterCount(abs(type))
        case .table(let t): t.count >= 2
        }
    }

    static func parameterCount(_ type: Int) -> Int { [0, 1, 3, 4, 5, 7][type] }

    /// The analytic inverse of a parametric curve (as lcms2's cmsReverseToneCurve makes it);
    /// nil for a table, whose inverse lcms2 samples (ColorProfile reads it from lcms2).
    public var analyticInverse: TransferCurve? {
        if case .parametric(let type, let params) = self, type > 0 { return .parametric(type: -type, params: params) }
        return nil
    }

    /// True when the curve is y = x everywhere (a gamma of 1, either way).
    public var isIdentity: Bool {
        if case .parametric(let type, let params) = self, abs(type) == 1, let g = params.first {
            return g == 1
        }
        return false
    }

    /// The curve at `x`, as lcms2's float transforms give it (in Double).
    public func value(_ x: Double) -> Double {
        switch self {
        case .parametric(let type, let params): TransferCurve.parametric(type, params, x)
        case .table(let t): Double(TransferCurve.lcmsTable(t, word: TransferCurve.lcmsWord(x))) / 65535
        }
    }

    /// What the profile's curve is, as the ICC defines it: a table interpolated linearly in
    /// Double at `x` (clamped to [0, 1]), without lcms2's 16-bit rounding; a parametric curve
    /// as `value`. Used to recognise a curve by what it does.
    public func exactValue(_ x: Double) -> Double {
        switch self {
        case .parametric: return value(x)
        case .table(let t):
            let position = min(max(x, 0), 1) * Double(t.count - 1)
            let cell = min(Int(position), t.count - 2)
            let f = position - Double(cell)
            return (Double(t[cell]) * (1 - f) + Double(t[cell + 1]) * f) / 65535
        }
    }

    // MARK: lcms2's arithmetic

    /// lcms2's parametric functions (DefaultEvalParametricFn) for types 1 to 5 and inverses.
    static func parametric(_ type: Int, _ p: [Double], _ r: Double) -> Double {
        let tol = tolerance
        func param(_ i: Int) -> Double { i < p.count ? p[i] : 0 }
        let g = param(0), a = param(1), b = param(2), c = param(3), d = param(4), e = param(5), f = param(6)
        switch type {
        case 1:
            if r < 0 { return abs(g - 1) < tol ? r : 0 }
            return pow(r, g)
        case -1:
            if r < 0 { return abs(g - 1) < tol ? r : 0 }
            return abs(g) < tol ? 1e22 : pow(r, 1 / g)
        case 2:
            if abs(a) < tol { return 0 }
            if r >= -b / a {
                let v = a * r + b
                return v > 0 ? pow(v, g) : 0
            }
            return 0
        case -2:
            if abs(g) < tol || abs(a) < tol { return 0 }
            let v = r < 0 ? 0 : (pow(r, 1 / g) - b) / a
            return v < 0 ? 0 : v
        case 3:
            if abs(a) < tol { return 0 }
            let disc = max(-b / a, 0)
            if r >= disc {
                let v = a * r + b
                return v > 0 ? pow(v, g) + c : 0
            }
            return c
        case -3:
            if abs(a) < tol { return 0 }
            if r >= c {
                let v = r - c
                return v > 0 ? (pow(v, 1 / g) - b) / a : 0
            }
            return -b / a
        case 4:
            if r >= d {
                let v = a * r + b
                return v > 0 ? pow(v, g) : 0
            }
            return r * c
        case -4:
            if abs(g) < tol || abs(a) < tol || abs(c) < tol { return 0 }
            let v = a * d + b
            let disc = v < 0 ? 0 : pow(v, g)
            return r >= disc ? (pow(r, 1 / g) - b) / a : r / c
        case 5:
            if r >= d {
                let v = a * r + b
                return v > 0 ? pow(v, g) + e : e
            }
            return r * c + f
        case -5:
            if abs(a) < tol || abs(c) < tol { return 0 }
            if r >= c * d + f {
                let v = r - e
                return v < 0 ? 0 : (pow(v, 1 / g) - b) / a
            }
            return (r - f) / c
        default:
            preconditionFailure("parametric curve type \(type) is not supported")
        }
    }

    /// lcms2's _cmsQuickSaturateWord(v * 65535): v in 16 bits, rounded, clamped to 0...65535
    /// (its floor rounds to 1/65536 first, as lcms2's fast floor does).
    static func lcmsWord(_ v: Double) -> Int {
        let d = v * 65535 + 0.5
        guard d > 0 else { return 0 }
        if d >= 65535 { return 65535 }
        let q = ((d - 32767) * 65536).rounded(.toNearestOrEven) / 65536
        return Int(q.rounded(.down)) + 32767
    }

    /// lcms2's 16-bit linear interpolation of a table (LinLerp1D, LinearInterp).
    static func lcmsTable(_ t: [UInt16], word w: Int) -> UInt16 {
        let domain = t.count - 1
        if w == 0xFFFF || domain == 0 { return t[domain] }
        var v = domain * w
        v += (v + 0x7FFF) / 0xFFFF
        let cell = v >> 16, rest = v & 0xFFFF
        let y0 = Int32(t[cell]), y1 = Int32(t[cell + 1])
        let dif = UInt32(bitPattern: y1 - y0) &* UInt32(rest) &+ 0x8000
        return UInt16(truncatingIfNeeded: (dif >> 16) &+ UInt32(bitPattern: y0))
    }
}
