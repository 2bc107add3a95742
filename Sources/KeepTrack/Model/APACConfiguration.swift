/// The APAC codec configuration carried in `dapa` (after its 4 bytes of version and flags), walked bit by bit
/// as far as the higher-order ambisonics (HOA) components' channel layouts and remapping arrays: the fields
/// CVE-2025-31200 abused (Apple's decoder sized its remapping array from the layout tag's channel count L,
/// not from the channels the stream has). Every read is checked against the bytes that exist; counts are
/// checked against the bits left before anything loops over them. keeptrack never decodes APAC.
public struct APACConfiguration: Sendable, Equatable {
    /// The global channel count G (8 bits at bit 39 of the stream).
    public var globalChannels: Int
    /// The audio scene components declared (the walk may stop before reading them all).
    public var componentCount: Int
    public var components: [Component] = []
    /// Why the walk ended before the end of the component list, if it did: a component type whose grammar
    /// is not walked (the rest of the stream cannot be located), or a field running past the bytes.
    public var stop: Stop?

    public struct Stop: Sendable, Equatable {
        public enum Kind: String, Sendable { case unwalkedComponentType = "unwalked-component-type", pastEnd = "past-end", outOfRange = "out-of-range" }
        public var kind: Kind
        /// Bit offset in the configuration stream (after dapa's version and flags).
        public var bit: Int
        public var reason: String
    }

    public struct Component: Sendable, Equatable {
        /// The first channel of the global layout the component fills (8 bits).
        public var firstChannel: Int
        /// 0 channel-based, 1 object, 2 HOA, …
        public var type: Int
        /// The HOA fields, for type 2 walked to the end of its remapping array (or to where its bits run out).
        public var hoa: HOA?
    }

    public struct HOA: Sendable, Equatable {
        public var order: Int
        public var coefficients: Int
        /// Salient plus ambient components: the channels the decoder's core carries.
        public var coreChannels: Int
        /// The 32-bit channel layout tag (family in the high 16 bits, L in the low 16); nil for a custom layout.
        public var layoutTag: UInt32?
        /// L: the channels the layout declares.
        public var layoutChannels: Int
        /// Bit offset of the layout tag (or of the custom layout's channel count) and of the remapping flag.
        public var layoutBit: Int
        public var remappingFlagBit: Int
        public var remappingPresent: Bool
        /// The remapping entries read (L of ⌈log2 L⌉ bits each), nil when absent or when the bits cannot hold them.
        public var remapping: [Int]?
        /// Bits the remapping array needs and the bits the stream has left, when it does not fit.
        public var remappingShortfall: Shortfall?

        public struct Shortfall: Sendable, Equatable { public var needed: Int; public var remaining: Int }
    }

    /// Bit offset of G in the stream.
    public static let globalChannelsBit = 39
    /// HOA layout family 0x00BE: ACN channel order, SN3D normalisation.
    public static let hoaACNSN3DFamily: UInt32 = 0x00BE

    /// Walks a `dapa` box's payload (version/flags first). Throws only when not even G can be read.
    public init(dapaPayload payload: [UInt8]) throws {
        guard payload.count >= 4 else {
            throw KeepTrackError.malformed(path: "dapa", offset: 0, reason: "\(payload.count) bytes, no version and flags")
        }
        var walk = Walk(bits: BitReader(Array(payload[4...]), path: "dapa"))
        try walk.bits.skip(Self.globalChannelsBit)
        globalChannels = try walk.bits.read(8)
        componentCount = 0
        do {
            _ = try walk.bits.read(8)
            _ = try walk.bits.read(1)
            componentCount = try walk.escaped([3, 6, 12])
            // A component takes at least 11 bits (first channel, type): more than the bits left cannot exist.
            guard componentCount * 11 <= walk.remaining else {
                stop = Stop(kind: .outOfRange, bit: walk.bits.position, reason: "\(componentCount) components cannot fit in the \(walk.remaining) bits left")
                return
            }
            for _ in 0..<componentCount {
                let first = try walk.bits.read(8)
                let type = try walk.bits.read(3)
                var component = Component(firstChannel: first, type: type)
                switch type {
                case 0: try walk.channelBasedComponent()
                case 2: component.hoa = try walk.hoaComponent()
                default:
                    components.append(component)
                    stop = Stop(kind: .unwalkedComponentType, bit: walk.bits.position,
                                reason: "component \(components.count - 1) is of type \(type), whose grammar keeptrack does not walk")
                    return
                }
                components.append(component)
            }
        } catch let error as Walk.OutOfRange {
            stop = Stop(kind: .outOfRange, bit: error.bit, reason: error.reason)
        } catch {
            stop = Stop(kind: .pastEnd, bit: walk.bits.position, reason: "a field runs past the end of the configuration (\(walk.bits.bytes.count) bytes)")
        }
    }
}

/// The bit-level grammar of the scene components, as far as the layouts and remapping arrays.
private struct Walk {
    var bits: BitReader

    struct OutOfRange: Error { var bit: Int; var reason: String }

    var remaining: Int { bits.bytes.count * 8 - bits.position }

    /// An escaped integer: each part all ones means the next, wider part follows and is added.
    mutating func escaped(_ widths: [Int]) throws -> Int {
        var value = 0
        for width in widths {
            let part = try bits.read(width)
            value += part
            if part != (1 << width) - 1 { break }
        }
        return value
    }

    /// ⌈log2 count⌉: the width of an index below `count` (0 bits for one entry).
    static func indexWidth(_ count: Int) -> Int { count <= 1 ? 0 : Int.bitWidth - (count - 1).leadingZeroBitCount }

    mutating func counted(_ count: Int, bitsEach: Int, _ what: String) throws -> Int {
        guard count.multipliedReportingOverflow(by: bitsEach).partialValue <= remaining, count <= 1 << 16 else {
            throw OutOfRange(bit: bits.position, reason: "\(count) \(what) cannot fit in the \(remaining) bits left")
        }
        return count
    }

    /// Type 0: transport channel elements, a layout (labels, a bitmap or a tag) and an optional remapping.
    mutating func channelBasedComponent() throws {
        _ = try bits.read(1)
        let elements = try counted(escaped([5, 10, 16]), bitsEach: 3, "transport elements")
        var channels = 0
        for _ in 0..<elements { channels += try bits.read(3) == 1 ? 2 : 1 }
        switch try bits.read(16) {
        case 0: try bits.skip(try counted(channels, bitsEach: 7, "channel labels") * 7)
        case 1: try bits.skip(27)
        default: break
        }
        if try bits.read(1) == 1 { try bits.skip(try counted(channels, bitsEach: Self.indexWidth(channels), "remapping entries") * Self.indexWidth(channels)) }
    }

    /// Type 2: order, salient and ambient counts, transport elements, layout, remapping.
    mutating func hoaComponent() throws -> APACConfiguration.HOA {
        let fullOrder = try bits.read(1) == 1
        _ = try bits.read(1)
        let conditional = try bits.read(1) == 1
        if conditional { _ = try bits.read(1) }
        try bits.skip(3)
        if try bits.read(1) == 1 {
            try bits.skip(2)
            _ = try escaped([4, 6, 8])
        }
        try bits.skip(6)
        let order: Int, coefficients: Int
        if fullOrder {
            order = try escaped([4, 6, 8])
            guard order <= 10 else { throw OutOfRange(bit: bits.position, reason: "HOA order \(order) (at most 10)") }
            coefficients = (order + 1) * (order + 1)
        } else {
            coefficients = try escaped([7, 12, 17]) + 1
            guard coefficients <= 121 else { throw OutOfRange(bit: bits.position, reason: "\(coefficients) HOA coefficients (at most 121)") }
            var root = 0
            while (root + 1) * (root + 1) <= coefficients - 1 { root += 1 }
            order = root
        }
        let salient = try escaped([4, 6, 8])
        guard salient <= coefficients else { throw OutOfRange(bit: bits.position, reason: "\(salient) salient components for \(coefficients) coefficients") }
        let ambient = try bits.read(Self.indexWidth(coefficients)) + (salient == 0 ? 1 : 0)
        guard ambient <= coefficients else { throw OutOfRange(bit: bits.position, reason: "\(ambient) ambient components for \(coefficients) coefficients") }
        for _ in 0..<salient {
            _ = try escaped([4, 6, 8])
            if fullOrder { try bits.skip(Self.indexWidth(order + 1)) }
        }
        if try bits.read(1) == 1 {
            var limit = coefficients
            for index in stride(from: ambient - 1, through: 0, by: -1) {
                let value = try bits.read(Self.indexWidth(limit))
                if value == index { break }
                limit = value + 1
            }
        }
        if ambient > 3 || conditional, try bits.read(1) == 1 { try bits.skip(2) }
        let elements = try counted(escaped([5, 10, 16]), bitsEach: 3, "transport elements")
        try bits.skip(elements * 3)
        let layoutBit: Int, layoutChannels: Int, tag: UInt32?
        if try bits.read(1) == 1 {
            layoutBit = bits.position
            layoutChannels = try bits.read(16) + 1
            try bits.skip(try counted(layoutChannels, bitsEach: 32, "channel labels") * 32)
            tag = nil
        } else {
            layoutBit = bits.position
            let family = try bits.read(16)
            layoutChannels = try bits.read(16)
            tag = UInt32(family) << 16 | UInt32(layoutChannels)
        }
        var hoa = APACConfiguration.HOA(order: order, coefficients: coefficients, coreChannels: salient + ambient, layoutTag: tag,
                                        layoutChannels: layoutChannels, layoutBit: layoutBit, remappingFlagBit: bits.position,
                                        remappingPresent: try bits.read(1) == 1)
        if hoa.remappingPresent {
            let width = Self.indexWidth(layoutChannels)
            let needed = layoutChannels * width
            if needed > remaining {
                hoa.remappingShortfall = .init(needed: needed, remaining: remaining)
                bits.position = bits.bytes.count * 8
            } else {
                hoa.remapping = try (0..<layoutChannels).map { _ in try bits.read(width) }
            }
        }
        return hoa
    }
}
