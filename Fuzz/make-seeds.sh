#!/usr/bin/env bash
# Regenerates the committed fuzz seeds (Fuzz/seeds/): a few frames of a tiny video in every layout
# keeptrack reads — progressive moov-last and moov-first (.mov/.mp4), fragmented by ffmpeg
# (frag_keyframe+empty_moov, frag_every_frame, dash, cmaf, a partially fragmented file whose moov
# holds the first samples, default_base_moof, negative CTS offsets), HEVC, and tiny keeptrack
# fixture variants (iPhone layout: stereo + APAC in one alternate group, mebx, fall references).
# ffmpeg's +global_sidx and files that taggers rewrote (mutagen, AtomicParsley: fragment offsets left stale).
# Each seed is a few KB. Reproduce: Fuzz/make-seeds.sh   (needs ffmpeg, python3-mutagen, AtomicParsley
# and a release build: `make setup` installs them)
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=Fuzz/seeds
mkdir -p "$seeds"
KT=.build/release/keeptrack
[ -x "$KT" ] || swift build -c release --static-swift-stdlib >/dev/null
in=(-f lavfi -i "testsrc=size=32x32:rate=10:duration=0.6" -f lavfi -i "sine=frequency=440:sample_rate=8000:duration=0.6")
h264=(-c:v libx264 -preset ultrafast -g 3 -bf 1 -pix_fmt yuv420p -c:a aac -b:a 8k -ac 1)
ff() { ffmpeg -v error -nostdin -y "${in[@]}" "${h264[@]}" "$@"; }
ff "$seeds/ff-progressive.mov"
ff -movflags +faststart "$seeds/ff-faststart.mp4"
ff -movflags frag_keyframe+empty_moov "$seeds/ff-frag-keyframe.mp4"
ff -movflags frag_every_frame+empty_moov "$seeds/ff-frag-every-frame.mp4"
ff -movflags +dash "$seeds/ff-dash.mp4"
ff -movflags +cmaf "$seeds/ff-cmaf.mp4"
ff -movflags frag_keyframe "$seeds/ff-partially-fragmented.mp4"
ff -movflags frag_keyframe+empty_moov+default_base_moof+omit_tfhd_offset "$seeds/ff-default-base-moof.mp4"
ff -movflags frag_keyframe+empty_moov+negative_cts_offsets "$seeds/ff-negative-cts.mp4"
ff -f mov -movflags frag_keyframe+empty_moov "$seeds/ff-frag.mov"
ff -movflags frag_keyframe+empty_moov+global_sidx "$seeds/ff-global-sidx.mp4"
# Fragmented files a tool moved without updating their offsets (FragmentOffsetRepair's evidence path):
# mutagen grows moov and updates only the first tfhd; AtomicParsley re-bases every tfhd wrongly;
# mutagen on default_base_moof leaves only the mfra index stale (a short title keeps them small).
tag_mutagen() { /usr/bin/python3 -c 'import sys, mutagen.mp4
m = mutagen.mp4.MP4(sys.argv[1]); m["\xa9nam"] = ["beach " * 40]; m.save()' "$1"; }
cp "$seeds/ff-frag-keyframe.mp4" "$seeds/tagged-mutagen-frag.mp4"; tag_mutagen "$seeds/tagged-mutagen-frag.mp4"
cp "$seeds/ff-default-base-moof.mp4" "$seeds/tagged-mutagen-base-moof.mp4"; tag_mutagen "$seeds/tagged-mutagen-base-moof.mp4"
cp "$seeds/ff-frag-keyframe.mp4" "$seeds/tagged-atomicparsley-frag.mp4"
AtomicParsley "$seeds/tagged-atomicparsley-frag.mp4" --title "beach" --overWrite >/dev/null
ffmpeg -v error -nostdin -y "${in[@]}" -c:v libx265 -x265-params log-level=error -preset ultrafast -tag:v hvc1 -pix_fmt yuv420p \
    -c:a aac -b:a 8k -ac 1 "$seeds/ff-hevc.mov"
# Spatial (stereo) video's boxes, as Apple's spec lays them out, added to the HEVC seed's sample entry:
# vexu{eyes{stri, hero, cams{blin}, cmfy{dadj}}, proj{prji}} and hfov (moov follows mdat: no offset moves).
/usr/bin/python3 - "$seeds/ff-hevc.mov" "$seeds/ff-hevc-stereo.mov" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
box = lambda kind, payload: struct.pack(">I", 8 + len(payload)) + kind + payload
full = lambda kind, payload: box(kind, b"\0\0\0\0" + payload)
eyes = box(b"eyes", full(b"stri", b"\x03") + full(b"hero", b"\x01") + box(b"cams", full(b"blin", struct.pack(">I", 19240)))
           + box(b"cmfy", full(b"dadj", struct.pack(">i", 200))))
added = box(b"vexu", eyes + box(b"proj", full(b"prji", b"rect"))) + box(b"hfov", struct.pack(">I", 64000))
# Walk moov/trak/mdia/minf/stbl/stsd/hvc1 (stsd has 8 bytes before its entries, a visual entry 78).
path, start, end, parents = [b"moov", b"trak", b"mdia", b"minf", b"stbl", b"stsd", b"hvc1"], 0, len(data), []
for kind in path:
    offset = start
    while offset < end and data[offset + 4:offset + 8] != kind:
        offset += struct.unpack(">I", data[offset:offset + 4])[0]
    assert offset < end, kind
    parents.append(offset)
    size = struct.unpack(">I", data[offset:offset + 4])[0]
    start, end = offset + 8 + {b"stsd": 8, b"hvc1": 78}.get(kind, 0), offset + size
data[end:end] = added
for offset in parents:
    data[offset:offset + 4] = struct.pack(">I", struct.unpack(">I", data[offset:offset + 4])[0] + len(added))
open(sys.argv[2], "wb").write(data)
PY
# Annex B streams as libx264/libx265 emit them (parameter sets first): the input of the avcC/hvcC
# builder (VideoParameterSets, FuzzTargets.exerciseParameterSets), the first frame only.
ffmpeg -v error -nostdin -y -f lavfi -i "testsrc=size=32x32:rate=10:duration=0.1" -frames:v 1 -c:v libx264 -preset medium \
    -pix_fmt yuv420p -f h264 "$seeds/annexb.h264"
ffmpeg -v error -nostdin -y -f lavfi -i "testsrc=size=32x32:rate=10:duration=0.1" -frames:v 1 -c:v libx265 -x265-params log-level=error \
    -preset ultrafast -pix_fmt yuv420p10le -f hevc "$seeds/annexb.hevc"
for variant in iphone spatial-first both-enabled no-fall moov-first co64 mp4 lpcm-spatial audio-only five-channel; do
    "$KT" fixture "$variant" "$seeds/kt-$variant" --duration 0.1 --video-frame-bytes 16 --force >/dev/null
done
# A bare dapa box (FuzzTargets.exerciseAPACConfiguration): a made-up first-order HOA configuration, G=4,
# layout tag 0x00BE0004, remapping present (1 0 3 2), written field by field to the grammar the walk reads.
python3 - "$seeds/dapa-hoa.bin" <<'PY'
import sys
fields = [(0x0800, 16), (0, 6), (0, 4), (0, 1), (3, 6), (0, 6), (4, 8), (0, 8), (0, 1), (1, 3),  # global, G=4, one component
          (0, 8), (2, 3), (1, 1), (0, 1), (0, 1), (0, 3), (0, 1), (0, 6), (1, 4), (0, 4), (3, 2),  # HOA, order 1, 4 ambient
          (0, 1), (0, 1), (4, 5), (0, 3), (0, 3), (0, 3), (0, 3), (0, 1), (0x00BE, 16), (4, 16),   # 4 mono elements, layout
          (1, 1), (1, 2), (0, 2), (3, 2), (2, 2)]                                                 # remapping
bits = "".join(format(value, "0%db" % width) for value, width in fields)
bits += "0" * (-len(bits) % 8)
payload = bytes(4) + int(bits, 2).to_bytes(len(bits) // 8, "big")
open(sys.argv[1], "wb").write((len(payload) + 8).to_bytes(4, "big") + b"dapa" + payload)
PY
# A movie cut short inside its mdat (moov whole): the truncated reading and salvage (FuzzTargets.exerciseTruncated).
python3 - "$seeds/kt-moov-first" "$seeds/kt-moov-first-truncated" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
at = data.rfind(b"mdat") - 4
open(sys.argv[2], "wb").write(data[:at + (len(data) - at) // 2])
PY
# Motion photos (MotionPhoto.find, FuzzTargets.exerciseMotionPhoto): a JPEG with Google's XMP and a movie
# appended, and a HEIF still with Samsung's mpvd box holding the movie.
ffmpeg -v error -nostdin -y -f lavfi -i "testsrc=size=16x16" -frames:v 1 "$seeds/tiny.jpg"
"$KT" fixture mp4 "$seeds/movie.tmp" --duration 0.1 --video-frame-bytes 16 --force >/dev/null
python3 - "$seeds/tiny.jpg" "$seeds/movie.tmp" "$seeds/photo-google.jpg" "$seeds/photo-samsung.heic" <<'PY'
import struct, sys
jpeg, movie = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
xmp = b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:Description GCamera:MotionPhoto="1"><Container:Directory><rdf:Seq>' \
      b'<rdf:li><Container:Item Item:Semantic="Primary" Item:Length="0"/></rdf:li>' \
      b'<rdf:li><Container:Item Item:Semantic="MotionPhoto" Item:Length="%d"/></rdf:li>' \
      b'</rdf:Seq></Container:Directory></rdf:Description></x:xmpmeta>' % len(movie)
app1 = b"http://ns.adobe.com/xap/1.0/\0" + xmp
open(sys.argv[3], "wb").write(jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + jpeg[2:] + movie)
heif = struct.pack(">I", 20) + b"ftypheic" + b"\0\0\0\0" + b"mif1" + struct.pack(">I", 8) + b"mdat"
open(sys.argv[4], "wb").write(heif + struct.pack(">I", len(movie) + 8) + b"mpvd" + movie)
PY
rm -f "$seeds/tiny.jpg" "$seeds/movie.tmp"
ls -l "$seeds" | awk 'NR > 1 { total += $5; n++ } END { print n " seeds, " total " bytes" }'
