import Foundation
import XCTest
@testable import KeepTrack

/// Every file of `../shared/fixtures/wild/` (third-party movies, listed from the folder so a new file
/// is covered automatically) through every command of the built binaries, each output checked by
/// independent clients (ffprobe's packet lists, mediainfo's tracks; ProbeSupport.swift).
///
/// The invariant for every file and command: exit 0 with an output the clients confirm — every
/// kept track's packets equal (pts, dts, duration, size, key and discard flags, SHA-256), mediainfo's
/// tracks and durations equal — or a clear refusal (64/65 and a message). Never exit 0 with lost or
/// changed packets, never a crash (a signal) or a hang (timeout). `mustSucceed` names what has to
/// work; `knownSilentLoss` names what is still silently wrong and must shrink as fixes land.
final class WildCorpusTests: XCTestCase {
    static let folder = RealFixtures.folder.appendingPathComponent("wild")

    // MARK: - Tables

    static let allCommands: Set<String> = ["inspect", "inspect --json", "lint", "dump", "levels", "remux", "compare",
                                           "fix", "strip-spatial", "select", "extract"]

    /// Files every listed command must handle: exit 0 (lint: 0 or 1) and, where there is an output,
    /// an output the independent clients confirm. Progressive, unencrypted files; a file moves in
    /// here when the fix it needs lands.
    static let mustSucceed: [String: Set<String>] = {
        let progressive = [
            "androidx-media/bbb_mono_8kHz_12.2kbps_amrnb.3gp", "androidx-media/dolbyVision-hdr.MOV",
            "androidx-media/edit_list_positive_shift.mp4", "androidx-media/h265_with_metadata_track.mp4",
            "androidx-media/long_edit_list_audioonly.mp4", "androidx-media/sample_ac3.mp4",
            "androidx-media/sample_alac_20bit.mp4", "androidx-media/sample_dthd.mp4", "androidx-media/sample_eac3.mp4",
            "androidx-media/sample_ipcm_24le.mp4", "androidx-media/sample_sef_slow_motion.mp4",
            "androidx-media/sample_with_chapters.mp4", "androidx-media/sample_with_metadata.mp4",
            "androidx-media/sowt-with-video.mov", "androidx-media/water_180_mvhevc_5frames.mov",
            "eyevinn-mp4ff/prog_8s.mp4", "eyevinn-mp4ff/stereo_spatial.mp4", "gopro-gpmf-parser/max-heromode.mp4",
            "mozilla-mp4parse-rust/afconvert-aac-0.5s.mp4", "mozilla-mp4parse-rust/amr_nb_1f.3gp",
            // The last mdat claims 8 bytes past the end; every sample is inside (lint warns).
            "androidx-media/sample_mdat_too_long.mp4",
        ]
        // Fragmented movies with a moov (frag): every fragment's samples read and written progressive.
        let fragmented = [
            "abema-go-mp4/sample_fragmented.mp4", "androidx-media/sample_ac3_fragmented.mp4",
            "androidx-media/sample_ac4_fragmented.mp4", "androidx-media/sample_fragmented.mp4",
            "androidx-media/sample_fragmented_seekable_multiple_sidx.mp4", "androidx-media/sample_opus_fragmented.mp4",
            "androidx-media/sample_partially_fragmented.mp4", "eyevinn-mp4ff/bbb5s_aac_sidx.mp4", "eyevinn-mp4ff/main_1.mp4",
        ]
        var table = Dictionary(uniqueKeysWithValues: (progressive + fragmented).map { ($0, allCommands) })
        // Progressive CENC: saio follows senc through every rewrite (offsets). levels of encrypted audio is not asserted.
        table["mozilla-mp4parse-rust/short-cenc.mp4"] = allCommands.subtracting(["levels"])
        return table
    }()

    /// Commands that today exit 0 while the output (or the report) is wrong, by file: what is lost
    /// and which work fixes it. The test requires each entry to still reproduce, so when a fix lands
    /// this fails until the entry is removed (and the file moves into `mustSucceed`).
    static let knownSilentLoss: [String: [String: String]] = {
        var table: [String: [String: String]] = [:]
        // Not a loss: ffprobe stops at the first of this encrypted file's two moofs ("Incorrect number
        // of samples in encryption info"): 91 of 182 video samples, 4 of 5 audio. Writing commands
        // refuse the encrypted video track (65); the audio track alone is written progressive.
        let ffprobeStops = "frag: ffprobe reads only the first moof of this encrypted file; keeptrack reads both (91 + 91 video samples)"
        table["eyevinn-mp4ff/cbcs.mp4"] = ["inspect --json": ffprobeStops, "extract": ffprobeStops]
        return table
    }()

    // MARK: - The test

    func testEveryWildFileThroughEveryCommand() throws {
        let folder = try RealFixtures.require(Self.folder.path)
        let files = try Self.files(in: folder)
        XCTAssertGreaterThanOrEqual(files.count, 38, "the wild corpus has at least 38 movies")
        Self.check(folder: folder, files: files, mustSucceed: Self.mustSucceed, knownSilentLoss: Self.knownSilentLoss, name: "wild corpus")
    }

    /// Runs every command on every file (in parallel) and asserts the invariant and both tables.
    static func check(folder: String, files: [String], mustSucceed: [String: Set<String>], knownSilentLoss: [String: [String: String]],
                      name: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNoThrow(try ChildProcess.binary(), file: file, line: line)
        let collected = Collected()
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            collected.add(WildFileRun(folder: folder, file: files[index]).run())
        }
        let outcomes = collected.outcomes.sorted { ($0.file, $0.command) < ($1.file, $1.command) }

        // The invariant: verified or refused, never silently wrong, never a crash or a hang.
        var seenSilent: [String: Set<String>] = [:]
        for outcome in outcomes {
            switch outcome.verdict {
            case .verified, .refused: break
            case .broken(let why):
                XCTFail("\(outcome.file) \(outcome.command): \(why)", file: file, line: line)
            case .silentlyWrong(let why):
                seenSilent[outcome.file, default: []].insert(outcome.family)
                if knownSilentLoss[outcome.file]?[outcome.family] == nil {
                    XCTFail("\(outcome.file) \(outcome.command): exit \(outcome.code) but \(why)", file: file, line: line)
                }
            }
        }
        // Known silent losses must still reproduce: a fixed one must leave the list.
        for (path, commands) in knownSilentLoss where files.contains(path) {
            for (command, what) in commands where !(seenSilent[path]?.contains(command) ?? false) {
                XCTFail("\(path) \(command) no longer loses silently (\(what)): remove it from knownSilentLoss and add the file to mustSucceed",
                        file: file, line: line)
            }
        }
        // What must succeed does.
        for (path, commands) in mustSucceed {
            XCTAssertTrue(files.contains(path), "\(path) listed in mustSucceed is not in the corpus", file: file, line: line)
            for command in commands {
                let runs = outcomes.filter { $0.file == path && $0.family == command }
                XCTAssertFalse(runs.isEmpty, "\(path) \(command): not run", file: file, line: line)
                for run in runs where !run.isSuccess {
                    XCTFail("\(path) \(command) must succeed: exit \(run.code), \(run.summary)", file: file, line: line)
                }
            }
        }
        // What was not plainly confirmed, for the log; then the totals.
        print(outcomes.filter { !$0.isSuccess }.map(\.line).joined(separator: "\n"))
        print("\(name): \(files.count) files, \(outcomes.count) runs, \(outcomes.filter(\.isSuccess).count) confirmed")
    }

    /// Every regular file under the folder but the provenance notes, relative paths, sorted.
    static func files(in folder: String) throws -> [String] {
        let enumerator = try XCTUnwrap(FileManager.default.enumerator(atPath: folder))
        var files: [String] = []
        while let path = enumerator.nextObject() as? String {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isFolder), !isFolder.boolValue,
                  !path.hasSuffix(".md"), !(path as NSString).lastPathComponent.hasPrefix(".") else { continue }
            files.append(path)
        }
        return files.sorted()
    }
}

/// Outcomes gathered from the files run in parallel.
final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [Outcome] = []
    func add(_ outcomes: [Outcome]) { lock.lock(); list += outcomes; lock.unlock() }
    var outcomes: [Outcome] { lock.lock(); defer { lock.unlock() }; return list }
}

// MARK: - One file through every command

struct Outcome {
    enum Verdict {
        /// Exit 0 and confirmed (or nothing to confirm).
        case verified
        /// 64/65 with a message.
        case refused
        /// A crash, a hang, an unexpected exit status, a refusal without a message.
        case broken(String)
        /// Exit 0 (or "identical") but the independent clients disagree.
        case silentlyWrong(String)
    }

    var file: String
    /// `extract --track 2 (.m4a)`, `remux`, ...
    var command: String
    /// The command's name in the tables (`extract` for every track).
    var family: String
    var code: Int32
    var summary: String
    var verdict: Verdict

    var isSuccess: Bool {
        guard case .verified = verdict else { return false }
        return code == 0 || (family == "lint" && code == 1)
    }

    var line: String {
        let mark: String
        switch verdict {
        case .verified: mark = "ok"
        case .refused: mark = "refused"
        case .broken(let why): mark = "BROKEN: \(why)"
        case .silentlyWrong(let why): mark = "SILENTLY WRONG: \(why)"
        }
        return "\(file)  \(command)  exit \(code)  \(mark)  \(summary.prefix(120))"
    }
}

/// Runs the commands on one file, each in its own child process, and judges each result.
struct WildFileRun {
    let folder: String
    let file: String
    let scratch = TemporaryFolder()
    var input: String { folder + "/" + file }
    /// A fragmented source is compared with its progressive copies by ProbeSupport's fragmented rules.
    var fragmented: Bool { (try? Movie.open(path: input))?.isFragmented ?? false }

    func run() -> [Outcome] {
        var outcomes: [Outcome] = []
        let probe = try? FFprobe.probe(input)
        let info = try? MediaInfo.report(input)
        func record(_ command: String, _ family: String, _ result: KeeptrackRun, _ verdict: Outcome.Verdict) {
            outcomes.append(Outcome(file: file, command: command, family: family, code: result.code,
                                    summary: result.lastLine, verdict: verdict))
        }

        // inspect --json: the tracks, and their sample counts and bytes against ffprobe's packets.
        let json = keeptrack(["inspect", "--json", input])
        var tracks: [(id: UInt32, kind: String, chapters: Bool)] = []
        if json.code == 0, let object = try? JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any] {
            let list = object["tracks"] as? [[String: Any]] ?? []
            tracks = list.map { track in
                let referencedBy = track["referencedBy"] as? [String: Any] ?? [:]
                return (UInt32(track["id"] as? Int ?? 0), track["kind"] as? String ?? "?", referencedBy["chap"] != nil)
            }
            record("inspect --json", "inspect --json", json, exitZero(json) ?? inspectVerdict(list, probe))
        } else {
            record("inspect --json", "inspect --json", json, json.code == 0 ? .broken("inspect --json printed no JSON object") : judgeRefusal(json))
        }

        let text = keeptrack(["inspect", input])
        record("inspect", "inspect", text, exitZero(text).map { $0 } ?? (text.code == json.code ? .verified
                   : .broken("inspect exits \(text.code) where inspect --json exits \(json.code)")))

        let lint = keeptrack(["lint", input])
        record("lint", "lint", lint, lint.code == 1 ? .verified : exitZero(lint) ?? .verified)

        let dump = keeptrack(["dump", input])
        record("dump", "dump", dump, exitZero(dump) ?? dumpVerdict(dump.out))

        let levels = keeptrack(["levels", "--json", input])
        record("levels --json", "levels", levels, exitZero(levels) ?? levelsVerdict(levels.out, probe))

        let ext = (file as NSString).pathExtension.lowercased()
        let movieExtension = ["mov", "qt"].contains(ext) ? "mov" : "mp4"
        let allIDs = tracks.map(\.id)
        let chapterIDs = Set(tracks.filter(\.chapters).map(\.id))

        let remuxed = scratch.path("remux.\(movieExtension)")
        let remux = keeptrack(["remux", input, remuxed])
        let remuxVerdict = exitZero(remux) ?? outputVerdict(remuxed, probe, info, kept: allIDs, whole: true, chapters: chapterIDs)
        record("remux", "remux", remux, remuxVerdict)
        if remux.code == 0 {
            let compare = keeptrack(["compare", input, remuxed])
            var verdict = exitZero(compare, allowing: [1]) ?? .verified
            if compare.code == 0, case .silentlyWrong(let why) = remuxVerdict {
                verdict = .silentlyWrong("compare says identical, but \(why)")
            }
            record("compare", "compare", compare, verdict)
        }

        let fixed = scratch.path("fix.\(movieExtension)")
        let fix = keeptrack(["fix", input, fixed])
        var fixVerdict = exitZero(fix) ?? (FileManager.default.fileExists(atPath: fixed)
                   ? outputVerdict(fixed, probe, info, kept: allIDs, whole: true, chapters: chapterIDs)
                   : nothingWritten(fix, "nothing to fix"))
        if fix.code == 0, tracks.isEmpty, FileManager.default.fileExists(atPath: fixed) {
            // Refused as recorded, repaired by fix (stale fragment offsets): ffprobe misreads such a
            // source too, so TaggerFlavourTests checks the repair against the file before it broke.
            let lint = keeptrack(["lint", "--json", input])
            fixVerdict = lint.out.contains("\"fragment-offsets-stale\"") ? .verified : .silentlyWrong("fix wrote an output from a file inspect refuses")
        }
        record("fix", "fix", fix, fixVerdict)

        for (command, extra) in [("strip-spatial", [String]()), ("select", ["--prefer", "enabled"])] {
            let output = scratch.path("\(command).\(movieExtension)")
            let result = keeptrack([command, input, output] + extra)
            var verdict = exitZero(result) ?? nothingWritten(result, "nothing written")
            if result.code == 0, FileManager.default.fileExists(atPath: output) {
                // One ffprobe answer (packets included) tells which tracks were kept and is the one judged.
                let written = try? FFprobe.probe(output)
                let kept = written?.streams.compactMap(\.trackID) ?? []
                verdict = kept.allSatisfy(allIDs.contains)
                    ? outputVerdict(output, probe, info, kept: kept, whole: kept == allIDs, chapters: chapterIDs, written: written)
                    : .silentlyWrong("output tracks \(kept) are not among the source's \(allIDs)")
            }
            record(command, command, result, verdict)
        }

        for track in tracks {
            let suffix = movieExtension == "mov" ? "mov" : (track.kind == "audio" ? "m4a" : "mp4")
            let output = scratch.path("extract-\(track.id).\(suffix)")
            let result = keeptrack(["extract", input, output, "--track", String(track.id)])
            record("extract --track \(track.id) (.\(suffix))", "extract", result,
                   exitZero(result) ?? outputVerdict(output, probe, info, kept: [track.id], whole: tracks.count == 1, chapters: chapterIDs))
        }
        return outcomes
    }

    // MARK: Judging

    /// nil when the command exited 0 (the caller then checks what it made); otherwise the verdict
    /// on its refusal or failure.
    func exitZero(_ result: KeeptrackRun, allowing: Set<Int32> = []) -> Outcome.Verdict? {
        if result.code == 0 && !result.timedOut && !result.signalled { return nil }
        if allowing.contains(result.code) && !result.signalled { return .verified }
        return judgeRefusal(result)
    }

    func judgeRefusal(_ result: KeeptrackRun) -> Outcome.Verdict {
        if result.timedOut { return .broken("no answer within \(Int(KeeptrackRun.timeout)) s (hang)") }
        if result.signalled || result.code >= 128 { return .broken("crashed (signal \(result.code))") }
        guard result.code == 64 || result.code == 65 else { return .broken("unexpected exit \(result.code): \(result.lastLine)") }
        // A refusal names its reason: more than the program's name (lint reports on standard output).
        let message = (result.err + result.out).trimmingCharacters(in: .whitespacesAndNewlines)
        return message.count > 20 ? .refused : .broken("exit \(result.code) without a message naming the reason")
    }

    func nothingWritten(_ result: KeeptrackRun, _ expected: String) -> Outcome.Verdict {
        result.out.contains(expected) ? .verified : .broken("exit 0, no output, and no '\(expected)'")
    }

    /// inspect's per-track samples and bytes against ffprobe's packets of the same track, and its
    /// audio channels and rate against ffprobe's.
    func inspectVerdict(_ tracks: [[String: Any]], _ probe: FFprobe.Report?) -> Outcome.Verdict {
        guard let probe else { return .silentlyWrong("inspect reads a file ffprobe cannot open") }
        if tracks.count != probe.streams.count { return .silentlyWrong("\(tracks.count) tracks, ffprobe sees \(probe.streams.count)") }
        for track in tracks {
            let id = UInt32(track["id"] as? Int ?? 0)
            guard let stream = probe.stream(track: id) else { return .silentlyWrong("ffprobe has no track \(id)") }
            // Audio channels and rate as ffmpeg decodes them (not for APAC, which it cannot decode).
            if let audio = track["audio"] as? [String: Any], stream.codecTag != "apac", let channels = stream.channels, channels > 0,
               let rate = stream.sampleRate, rate > 0 {
                let facts = (audio["channels"] as? Int, (audio["sampleRate"] as? NSNumber)?.intValue)
                if facts.0 != channels || facts.1 != rate {
                    return .silentlyWrong("track \(id): \(facts.0.map(String.init) ?? "?") ch \(facts.1.map(String.init) ?? "?") Hz, ffprobe says \(channels) ch \(rate) Hz")
                }
            }
            let samples = track["samples"] as? Int ?? -1, bytes = track["bytes"] as? Int ?? -1
            let referencedBy = track["referencedBy"] as? [String: Any] ?? [:]
            // ffprobe turns chapter text tracks into chapters, and misreads ipcm (ProbeSupport).
            if referencedBy["chap"] != nil || ["ipcm", "fpcm"].contains(stream.codecTag) { continue }
            // ffmpeg hands CEA-608 captions (c608) on re-wrapped: other sizes, the same count.
            if stream.codecTag == "c608" {
                if samples != stream.packets.count { return .silentlyWrong("track \(id): \(samples) samples, ffprobe lists \(stream.packets.count) packets") }
                continue
            }
            let packetBytes = stream.packets.reduce(0) { $0 + $1.size }
            if stream.codecName.hasPrefix("pcm_") {
                // PCM packets are chunks (ProbeSupport): only the bytes compare.
                if bytes != packetBytes { return .silentlyWrong("track \(id): \(bytes) bytes, ffprobe's packets hold \(packetBytes)") }
                continue
            }
            // ffmpeg leaves out samples after the edit list's end (the 8-byte last ALAC packet of
            // sample_alac_20bit.mp4); its nb_frames, from the sample table, still counts them.
            let trimmed = samples > stream.packets.count && samples == stream.frameCount
            if samples != stream.packets.count && !trimmed {
                return .silentlyWrong("track \(id): \(samples) samples, ffprobe lists \(stream.packets.count) packets")
            }
            if trimmed ? bytes < packetBytes : bytes != packetBytes {
                return .silentlyWrong("track \(id): \(bytes) bytes, ffprobe's packets hold \(packetBytes)")
            }
        }
        return .verified
    }

    /// Each audio track levels measured covers what ffmpeg presents: the packets without the
    /// discard flag, within two packets (or 50 ms); a track it says it decoded nothing of has no
    /// packets in ffprobe's view either. "Not decodable here" is an honest answer.
    func levelsVerdict(_ json: String, _ probe: FFprobe.Report?) -> Outcome.Verdict {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
            return .broken("levels --json printed no JSON object")
        }
        guard let probe else { return .silentlyWrong("levels measured a file ffprobe cannot open") }
        for track in object["tracks"] as? [[String: Any]] ?? [] {
            let id = UInt32(track["id"] as? Int ?? 0)
            guard let stream = probe.stream(track: id) else { return .silentlyWrong("ffprobe has no track \(id)") }
            let parts = stream.timeBase.split(separator: "/").compactMap { Double($0) }
            guard parts.count == 2, parts[1] > 0 else { continue }
            var presented = Double(stream.packets.filter { !$0.isDiscarded }.reduce(Int64(0)) { $0 + ($1.duration ?? 0) }) * parts[0] / parts[1]
            if fragmented {
                // A fragmented source: ffmpeg's discard flags and durations there are its own derivations
                // (ProbeSupport, difference(fragmented:)): every packet, each as long as the usual packet
                // (the durations ffprobe gives, else the dts steps; a first AAC packet's step holds the priming).
                let steps = zip(stream.packets, stream.packets.dropFirst()).compactMap { pair in pair.1.dts.flatMap { next in pair.0.dts.map { next - $0 } } }
                let known = stream.packets.compactMap(\.duration)
                let counts = Dictionary((known.isEmpty ? steps : known).map { ($0, 1) }, uniquingKeysWith: +)
                let usual = counts.max { $0.value < $1.value }?.key ?? 0
                presented = Double(Int64(stream.packets.count) * usual) * parts[0] / parts[1]
            }
            let note = track["note"] as? String ?? ""
            if track["decodable"] as? Bool == true {
                let seconds = (track["levels"] as? [String: Any])?["seconds"] as? Double ?? 0
                let tolerance = max(0.05, 2 * (WildFileRun.longestPacketSeconds(stream) ?? 0))
                if abs(seconds - presented) > tolerance {
                    return .silentlyWrong("levels of track \(id) cover \(seconds) s, ffmpeg presents \(presented) s")
                }
            } else if !note.hasPrefix("not decodable here"), !stream.packets.isEmpty {
                return .silentlyWrong("levels of track \(id): \(note.isEmpty ? "nothing" : note), ffprobe lists \(stream.packets.count) packets")
            }
        }
        return .verified
    }

    /// Every top-level box (walked here from the headers) appears in the dump at its offset.
    func dumpVerdict(_ dump: String) -> Outcome.Verdict {
        guard let data = FileManager.default.contents(atPath: input) else { return .broken("cannot read \(input)") }
        // Top-level lines: `moof[2]  offset 2417  size 140 ...`; the index counts repeats.
        let lines = Set(dump.split(separator: "\n").filter { !$0.hasPrefix(" ") }.map { line in
            let words = line.split(separator: " ", omittingEmptySubsequences: true).prefix(3)
            return ([String(words.first?.split(separator: "[").first ?? "")] + words.dropFirst().map(String.init)).joined(separator: " ")
        })
        var offset = 0
        while offset + 8 <= data.count {
            let size32 = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: data[offset + 4..<offset + 8], as: UTF8.self)
            var size = size32
            if size32 == 1, offset + 16 <= data.count { size = data[offset + 8..<offset + 16].reduce(0) { $0 << 8 | Int($1) } }
            if size32 == 0 { size = data.count - offset }
            guard size >= 8 else { break }
            if type.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }), !lines.contains("\(type) offset \(offset)") {
                return .silentlyWrong("dump does not show the top-level \(type) at byte \(offset)")
            }
            offset += size
        }
        return .verified
    }

    /// The output's tracks `kept` against the source's, by track id: ffprobe's packets equal,
    /// mediainfo's tracks equal (all of them for a `whole` output, those with an id otherwise).
    /// `written`: ffprobe's report of `output` when the caller already asked for it (with packets).
    func outputVerdict(_ output: String, _ probe: FFprobe.Report?, _ info: MediaInfo.Report?, kept: [UInt32],
                       whole: Bool, chapters: Set<UInt32>, written known: FFprobe.Report? = nil) -> Outcome.Verdict {
        guard FileManager.default.fileExists(atPath: output) else { return .silentlyWrong("exit 0 but no output file") }
        guard let probe else { return .silentlyWrong("wrote an output from a file ffprobe cannot open; nothing can confirm it") }
        let written: FFprobe.Report
        do { written = try known ?? FFprobe.probe(output) } catch { return .silentlyWrong("ffprobe cannot open the output (\(error))") }
        let outputIDs = written.streams.compactMap(\.trackID)
        if outputIDs != kept { return .silentlyWrong("output tracks \(outputIDs), expected \(kept)") }
        for id in kept {
            guard let before = probe.stream(track: id), let after = written.stream(track: id) else {
                return .silentlyWrong("track \(id) missing in ffprobe's view")
            }
            if chapters.contains(id) && !whole {
                // The source's chapter track, alone: ffprobe read it as chapters, now as packets.
                if after.packets.count != probe.chapterCount {
                    return .silentlyWrong("chapter track \(id): \(after.packets.count) packets for \(probe.chapterCount) chapters")
                }
                continue
            }
            let difference = fragmented ? FFprobe.difference(fragmented: before, after) : FFprobe.difference(before, after)
            if let difference { return .silentlyWrong("track \(id): \(difference)") }
        }
        guard let info else { return .verified }
        guard let afterInfo = try? MediaInfo.report(output) else { return .silentlyWrong("mediainfo cannot read the output") }
        if fragmented { return Self.fragmentedDurationVerdict(afterInfo, probe: probe, kept: kept, source: info) }
        let keptNames = Set(kept.map(String.init))
        let expected = whole ? info.tracks : info.tracks.filter { $0.id.map(keptNames.contains) ?? false }
        var actual = whole ? afterInfo.tracks : afterInfo.tracks.filter { $0.id != nil }
        if !whole, chapters.isSuperset(of: kept) {
            // A chapter text track on its own: mediainfo's Menu becomes Text.
            actual = actual.map { var track = $0; track.kind = "Menu"; return track }
        }
        // Within a frame: the longest packet of the kept tracks.
        let frame = kept.compactMap { id in probe.stream(track: id).flatMap(Self.longestPacketSeconds) }.max() ?? 0
        if let difference = MediaInfo.difference(expected, actual, tolerance: max(frame, 0.002)) {
            return .silentlyWrong("mediainfo: \(difference)")
        }
        return .verified
    }

    /// mediainfo misreads fragmented sources (`frag_every_frame` audio: 0.675 s of 1.08 s; a first
    /// `tfdt` of 10 s left out) and ffprobe's stream durations take a fragmented tkhd's (all ones:
    /// 143165 s), so a progressive copy's mediainfo durations of its audio and video tracks are
    /// checked against the source's packets as ffprobe lists them: between the end of the last
    /// decoded packet (dts + duration) and the end of the last presented one (pts + duration,
    /// discarded packets left out), within a packet. Empty tracks have no packets to confirm anything.
    /// A track of one packet without a duration in ffprobe's view (VLC's `mp4frag`) bounds nothing:
    /// there mediainfo's duration of the source track is the account, within 2 ms.
    static func fragmentedDurationVerdict(_ output: MediaInfo.Report, probe: FFprobe.Report, kept: [UInt32],
                                          source: MediaInfo.Report? = nil) -> Outcome.Verdict {
        for track in output.tracks where ["Video", "Audio"].contains(track.kind) {
            guard let id = track.id.flatMap(UInt32.init), kept.contains(id), let stream = probe.stream(track: id),
                  let actual = track.duration else { continue }
            let parts = stream.timeBase.split(separator: "/").compactMap { Double($0) }
            // ffprobe gives the last packet no duration: it lasts as long as the longest one at most.
            let steps = zip(stream.packets, stream.packets.dropFirst()).compactMap { pair in pair.1.dts.flatMap { next in pair.0.dts.map { next - $0 } } }
            let longest = (stream.packets.compactMap(\.duration) + steps).max() ?? 0
            if longest == 0, !stream.packets.isEmpty,
               let expected = source?.tracks.first(where: { $0.id == track.id && $0.kind == track.kind })?.duration {
                if abs(actual - expected) > 0.002 {
                    return .silentlyWrong("mediainfo: track \(id) (\(track.kind)) lasts \(actual) s, \(expected) s in the source (ffprobe gives its packets no duration)")
                }
                continue
            }
            let presented = stream.packets.filter { !$0.isDiscarded }.compactMap { packet in packet.pts.map { $0 + (packet.duration ?? longest) } }
            guard parts.count == 2, parts[1] > 0, let last = stream.packets.last, let lastDTS = last.dts, let presentedEnd = presented.max() else { continue }
            let decodedEnd = lastDTS + (last.duration ?? longest)
            let seconds = { (value: Int64) in Double(value) * parts[0] / parts[1] }
            let frame = max(longestPacketSeconds(stream) ?? 0, seconds(longest), 0.002)
            let low = seconds(min(decodedEnd, presentedEnd)) - frame, high = seconds(max(decodedEnd, presentedEnd)) + frame
            if actual < low || actual > high {
                return .silentlyWrong("mediainfo: track \(id) (\(track.kind)) lasts \(actual) s, the source's packets end between \(low + frame) and \(high - frame) s")
            }
        }
        return .verified
    }

    static func longestPacketSeconds(_ stream: FFprobe.Stream) -> Double? {
        let parts = stream.timeBase.split(separator: "/").compactMap { Double($0) }
        guard parts.count == 2, parts[1] > 0, let longest = stream.packets.compactMap(\.duration).max() else { return nil }
        return Double(longest) * parts[0] / parts[1]
    }

    func keeptrack(_ arguments: [String]) -> KeeptrackRun { KeeptrackRun(arguments, scratch: scratch) }
}

/// The built `keeptrack` run to the end or to its timeout, standard output and error apart.
struct KeeptrackRun {
    static let timeout: TimeInterval = 60
    var code: Int32 = -1
    var signalled = false
    var timedOut = false
    var out = ""
    var err = ""

    var lastLine: String {
        let text = err.isEmpty ? out : err
        return text.split(separator: "\n").last.map(String.init) ?? ""
    }

    init(_ arguments: [String], scratch: TemporaryFolder) {
        let name = UUID().uuidString
        let outPath = scratch.path(".\(name).out"), errPath = scratch.path(".\(name).err")
        guard FileManager.default.createFile(atPath: outPath, contents: nil), FileManager.default.createFile(atPath: errPath, contents: nil),
              let binary = try? ChildProcess.binary(), let outHandle = FileHandle(forWritingAtPath: outPath),
              let errHandle = FileHandle(forWritingAtPath: errPath) else { err = "cannot start keeptrack"; return }
        defer {
            try? outHandle.close()
            try? errHandle.close()
            out = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
            err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(atPath: outPath)
            try? FileManager.default.removeItem(atPath: errPath)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = FileHandle.nullDevice
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        do { try process.run() } catch { err = "cannot start keeptrack: \(error)"; return }
        if finished.wait(timeout: .now() + Self.timeout) == .timedOut {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
            finished.wait()
        }
        code = process.terminationStatus
        signalled = process.terminationReason == .uncaughtSignal
    }
}
