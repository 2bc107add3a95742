import CFFmpeg
import Foundation

/// Whether the encoders get the transparent huge pages libx264 asks for (madvise MADV_HUGEPAGE on each big buffer).
///
/// They are turned off only on a virtual machine whose hypervisor takes free memory back (a virtio balloon with free
/// page reporting): there a 2 MB page that was free for more than about 2 s has gone back to the host, and faulting it
/// in again runs at about 0.5 GB/s, against 2.7 GB/s for 4 KB pages, which the guest keeps (2026-12-05, a 512 MB touch
/// loop, Firecracker guest with `page_reporting_order=11`). A 4K stereo transcode, each run started 4 s after the last
/// ended, took 0.66 s (median of 6) with them off and 0.95 s with them on; FFmpeg 9 (on) 0.88 s. Elsewhere they are
/// left on, as FFmpeg leaves them: with pages the host still backs (runs back to back), the same transcode took 0.56 s
/// with them and 0.66 s without (docs/stereo.md).
public enum HugePagePolicy {
    /// virtio device id 5 is the memory balloon; feature bit 5 is VIRTIO_BALLOON_F_REPORTING (virtio 1.2, 5.5.3).
    static let balloonDeviceID = 5
    static let freePageReportingBit = 5

    /// True when one of the virtio devices is a balloon that negotiated free page reporting. `features` is the sysfs
    /// `features` text: one '0' or '1' per bit, bit 0 first.
    public static func hostReclaimsFreeMemory(devices: [(device: String, features: String)]) -> Bool {
        devices.contains { entry in
            let id = entry.device.trimmingCharacters(in: .whitespacesAndNewlines)
            let number = id.hasPrefix("0x") ? Int(id.dropFirst(2), radix: 16) : Int(id)
            guard number == balloonDeviceID else { return false }
            let bits = Array(entry.features.trimmingCharacters(in: .whitespacesAndNewlines))
            return bits.count > freePageReportingBit && bits[freePageReportingBit] == "1"
        }
    }

    /// The virtio devices this machine has (none on bare metal or without sysfs).
    static func virtioDevices(root: String = "/sys/bus/virtio/devices") -> [(device: String, features: String)] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: root) else { return [] }
        return names.compactMap { name in
            guard let device = try? String(contentsOfFile: "\(root)/\(name)/device", encoding: .utf8),
                  let features = try? String(contentsOfFile: "\(root)/\(name)/features", encoding: .utf8) else { return nil }
            return (device, features)
        }
    }

    /// Read once per process.
    public static let hostReclaimsFreeMemory: Bool = hostReclaimsFreeMemory(devices: virtioDevices())

    /// Applied before the first encoder opens; prctl's setting is inherited by the processes started after it.
    static let applied: Void = {
        if hostReclaimsFreeMemory { _ = cffmpeg_disable_huge_pages() }
    }()
}
