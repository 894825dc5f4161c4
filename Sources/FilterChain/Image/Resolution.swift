#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Pixel density, in the unit the source gave it (JFIF: per inch or per centimetre; PNG
/// pHYs: per metre), or only the pixels' aspect ratio.
public struct Resolution: Sendable, Hashable, CustomStringConvertible {
    public enum Unit: Sendable, Hashable {
        /// No unit: x and y only give the pixels' shape.
        case aspectRatio
        case perInch
        case perCentimetre
        case perMetre
    }

    public var x: Double
    public var y: Double
    public var unit: Unit

    public init(x: Double, y: Double, unit: Unit) {
        self.x = x
        self.y = y
        self.unit = unit
    }

    public var description: String {
        let suffix = switch unit {
        case .aspectRatio: " (aspect ratio)"
        case .perInch: " dpi"
        case .perCentimetre: " per cm"
        case .perMetre: " per metre"
        }
        let n = { (v: Double) in v == v.rounded() ? String(Int(v)) : String(v) }
        return "\(n(x)) x \(n(y))\(suffix)"
    }

    /// Pixels per metre (PNG pHYs unit 1), or the ratio as stored with no unit.
    var pngValues: (x: UInt32, y: UInt32, unit: UInt8) {
        let scale: Double = switch unit {
        case .aspectRatio, .perMetre: 1
        case .perInch: 1 / 0.0254
        case .perCentimetre: 100
        }
        let clamp = { (v: Double) in UInt32(min(max((v * scale).rounded(), 1), Double(Int32.max))) }
        return (clamp(x), clamp(y), unit == .aspectRatio ? 0 : 1)
    }

    /// JFIF density: unit 0 (aspect ratio), 1 (per inch) or 2 (per cm), values 1...65535.
    /// Per metre becomes per centimetre when that is exact, else per inch.
    var jfifValues: (unit: Int32, x: Int32, y: Int32) {
        let clamp = { (v: Double) in Int32(min(max(v.rounded(), 1), 65535)) }
        switch unit {
        case .aspectRatio: return (0, clamp(x), clamp(y))
        case .perInch: return (1, clamp(x), clamp(y))
        case .perCentimetre: return (2, clamp(x), clamp(y))
        case .perMetre:
            if x.truncatingRemainder(dividingBy: 100) == 0 && y.truncatingRemainder(dividingBy: 100) == 0 {
                return (2, clamp(x / 100), clamp(y / 100))
            }
            return (1, clamp(x * 0.0254), clamp(y * 0.0254))
        }
    }
}
