/// Flags APAC configurations shaped like the CVE-2025-31200 attack on Apple's decoder (a remapping array
/// sized from the layout's channel count L rather than from the channels the stream has), and warns of
/// other inconsistencies. A gallery that serves users' movies to Apple devices can refuse such a file.
public enum APACConfigurationLint {
    /// The track's `dapa`, walked; nil when the track is not APAC or has no `dapa`.
    public static func configuration(of track: Track) -> Result<APACConfiguration, KeepTrackError>? {
        guard let entry = track.sampleEntries.first, entry.type == "apac", let dapa = entry.first("dapa") else { return nil }
        do { return .success(try APACConfiguration(dapaPayload: dapa.payload)) }
        catch let error as KeepTrackError { return .failure(error) }
        catch { return .failure(.malformed(path: "dapa", offset: 0, reason: "\(error)")) }
    }

    public static func findings(_ track: Track) -> [LintFinding] {
        switch configuration(of: track) {
        case nil: return []
        case .failure(let error):
            return [LintFinding(rule: .apacConfigInconsistent, trackIDs: [track.id], message: "track \(track.id): the APAC configuration cannot be read: \(error.description)")]
        case .success(let configuration):
            return findings(configuration).map { LintFinding(rule: $0.rule, trackIDs: [track.id], message: "track \(track.id): \($0.message)") }
        }
    }

    /// Byte offset in the `dapa` box (8-byte header, 4 bytes version and flags) of a bit of the stream.
    static func boxByte(_ bit: Int) -> Int { 12 + bit / 8 }

    public static func findings(_ configuration: APACConfiguration) -> [(rule: LintRule, message: String)] {
        var found: [(rule: LintRule, message: String)] = []
        let global = configuration.globalChannels
        for (index, component) in configuration.components.enumerated() {
            guard let hoa = component.hoa else { continue }
            let name = "dapa HOA component \(index)"
            let layout = "L=\(hoa.layoutChannels) (layout at dapa byte \(boxByte(hoa.layoutBit)))"
            if component.firstChannel + hoa.layoutChannels > global {
                found.append((.apacConfigHostile, "\(name): first channel \(component.firstChannel) + \(layout) exceeds the \(global) channels of the stream (G): the shape of CVE-2025-31200"))
            }
            if let shortfall = hoa.remappingShortfall {
                found.append((.apacConfigHostile, "\(name): remapping flag set (dapa byte \(boxByte(hoa.remappingFlagBit))) for \(hoa.layoutChannels) entries needing \(shortfall.needed) bits, \(shortfall.remaining) left: the shape of CVE-2025-31200"))
            }
            if let remapping = hoa.remapping {
                let outside = remapping.enumerated().filter { position, value in value >= (position < hoa.coreChannels ? hoa.coreChannels : hoa.layoutChannels) }
                if let (position, value) = outside.first {
                    found.append((.apacConfigHostile, "\(name): remapping entry \(position) is \(value), outside the \(hoa.coreChannels) core channels (\(outside.count) such entries): the shape of CVE-2025-31200"))
                }
                if hoa.coreChannels > hoa.layoutChannels {
                    found.append((.apacConfigInconsistent, "\(name): remapping for \(hoa.coreChannels) core channels over a layout of \(hoa.layoutChannels)"))
                }
            }
            if hoa.layoutChannels != hoa.coefficients {
                found.append((.apacConfigInconsistent, "\(name): \(layout) is not (order+1)² = \(hoa.coefficients) for order \(hoa.order)"))
            }
            if hoa.layoutChannels > 16 {
                found.append((.apacConfigInconsistent, "\(name): \(layout) is more than 16 channels (third order)"))
            }
        }
        if let stop = configuration.stop, stop.kind != .unwalkedComponentType {
            found.append((.apacConfigInconsistent, "the dapa configuration stops being readable at byte \(boxByte(stop.bit)): \(stop.reason)"))
        }
        return found
    }
}
