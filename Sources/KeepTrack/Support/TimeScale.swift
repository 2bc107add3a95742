/// Times moved between time scales (media ↔ movie) in 128-bit intermediate arithmetic. A result
/// beyond 64 bits (a lying duration moved to a finer scale) saturates at all ones, the
/// "unknown" duration, instead of trapping: fuzzed and hostile files reach here.
public enum TimeScale {
    public enum Rounding: Sendable { case down, up, nearest }

    public static func convert(_ value: UInt64, from: UInt32, to: UInt32, rounding: Rounding) -> UInt64 {
        guard from > 0, from != to else { return value }
        let product = value.multipliedFullWidth(by: UInt64(to))
        guard product.high < UInt64(from) else { return .max }
        let (quotient, remainder) = UInt64(from).dividingFullWidth((product.high, product.low))
        let roundsUp: Bool
        switch rounding {
        case .down: roundsUp = false
        case .up: roundsUp = remainder > 0
        case .nearest: roundsUp = remainder * 2 >= UInt64(from)
        }
        return roundsUp && quotient < .max ? quotient + 1 : quotient
    }
}
