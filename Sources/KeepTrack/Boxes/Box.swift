/// One box (QuickTime: atom) exactly as it was read, so that writing an unmodified tree
/// reproduces the input byte for byte.
///
/// Containers keep the bytes before their children (`prefix`: full-box version/flags, entry counts,
/// sample-entry fields) and any bytes after the last child (`trailer`, such as QuickTime's 4-byte
/// zero terminator). Boxes we do not understand stay `bytes`. Large media payloads (`mdat`) stay in
/// the file as `external` ranges and are never loaded.
public struct Box: Sendable {
    public enum HeaderForm: Sendable, Equatable {
        /// 32-bit size.
        case compact
        /// size field 1 followed by a 64-bit size.
        case large
        /// size field 0: the box runs to the end of the file.
        case toEnd
    }

    public struct Container: Sendable {
        public var prefix: [UInt8]
        public var children: [Box]
        public var trailer: [UInt8]

        public init(prefix: [UInt8] = [], children: [Box] = [], trailer: [UInt8] = []) {
            self.prefix = prefix
            self.children = children
            self.trailer = trailer
        }
    }

    public enum Content: Sendable {
        case bytes([UInt8])
        case container(Container)
        case external(offset: UInt64, length: UInt64)
    }

    public var type: FourCC
    public var headerForm: HeaderForm
    /// The 16-byte extended type of a `uuid` box.
    public var userType: [UInt8]?
    public var content: Content
    /// Where the box started in the file it was read from (0 for boxes built in memory).
    public var offset: UInt64

    public init(type: FourCC, content: Content, headerForm: HeaderForm = .compact, userType: [UInt8]? = nil, offset: UInt64 = 0) {
        self.type = type
        self.content = content
        self.headerForm = headerForm
        self.userType = userType
        self.offset = offset
    }

    public init(type: FourCC, bytes: [UInt8]) {
        self.init(type: type, content: .bytes(bytes))
    }

    public init(type: FourCC, prefix: [UInt8] = [], children: [Box]) {
        self.init(type: type, content: .container(Container(prefix: prefix, children: children)))
    }

    // MARK: Sizes

    public var payloadSize: UInt64 {
        switch content {
        case .bytes(let bytes): return UInt64(bytes.count)
        case .external(_, let length): return length
        case .container(let container):
            var total = UInt64(container.prefix.count + container.trailer.count)
            for child in container.children { total += child.size }
            return total
        }
    }

    /// The header form actually written: a compact header that cannot hold the size becomes large.
    public var effectiveHeaderForm: HeaderForm { writtenForm(payloadSize: payloadSize) }

    public var headerSize: UInt64 { headerSize(payloadSize: payloadSize) }

    /// Computes the payload size once: a container's size walks its subtree, and asking it twice per
    /// level (header form, then payload) doubled the work at every level of nesting.
    public var size: UInt64 {
        let payload = payloadSize
        return headerSize(payloadSize: payload) + payload
    }

    func writtenForm(payloadSize payload: UInt64) -> HeaderForm {
        if headerForm == .compact, payload + 8 + UInt64(userType?.count ?? 0) > UInt64(UInt32.max) { return .large }
        return headerForm
    }

    func headerSize(payloadSize payload: UInt64) -> UInt64 {
        (writtenForm(payloadSize: payload) == .large ? 16 : 8) + UInt64(userType?.count ?? 0)
    }

    // MARK: Access

    public var children: [Box] {
        if case .container(let container) = content { return container.children }
        return []
    }

    public var isContainer: Bool {
        if case .container = content { return true }
        return false
    }

    /// The payload of a leaf box, or the prefix of a container (where typed fields live).
    public var payload: [UInt8] {
        switch content {
        case .bytes(let bytes): return bytes
        case .container(let container): return container.prefix
        case .external: return []
        }
    }

    /// Offset in the source file of the first payload byte.
    public var payloadOffset: UInt64 { offset + headerSize }

    public func first(_ type: FourCC) -> Box? { children.first { $0.type == type } }
    public func all(_ type: FourCC) -> [Box] { children.filter { $0.type == type } }

    /// Follows a path of types (`["mdia", "minf", "stbl"]`), taking the first match at each level.
    public func find(_ path: [FourCC]) -> Box? {
        var current = self
        for type in path {
            guard let next = current.first(type) else { return nil }
            current = next
        }
        return current
    }

    public mutating func modifyChildren(_ body: (inout [Box]) throws -> Void) rethrows {
        guard case .container(var container) = content else { return }
        try body(&container.children)
        content = .container(container)
    }

    // MARK: Serialization

    public func writeHeader(to writer: inout ByteWriter) {
        let payload = payloadSize
        let form = writtenForm(payloadSize: payload)
        let size = headerSize(payloadSize: payload) + payload
        switch form {
        case .compact: writer.u32(UInt32(size))
        case .large: writer.u32(1)
        case .toEnd: writer.u32(0)
        }
        writer.fourCC(type)
        if form == .large { writer.u64(size) }
        if let userType { writer.append(userType) }
    }

    /// Serializes the box. External payloads are read from `source`; without one they cannot be written.
    public func write(to writer: inout ByteWriter, source: ByteSource? = nil) throws {
        writeHeader(to: &writer)
        switch content {
        case .bytes(let bytes): writer.append(bytes)
        case .container(let container):
            writer.append(container.prefix)
            for child in container.children { try child.write(to: &writer, source: source) }
            writer.append(container.trailer)
        case .external(let offset, let length):
            guard let source else { throw KeepTrackError.unsupported("box \(type) holds \(length) bytes that stay in the file") }
            writer.append(try source.read(at: offset, count: Int(length)))
        }
    }

    public func serialized(source: ByteSource? = nil) throws -> [UInt8] {
        var writer = ByteWriter(capacity: Int(min(size, 1 << 26)))
        try write(to: &writer, source: source)
        return writer.bytes
    }
}
