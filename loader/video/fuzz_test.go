package video

import (
	"bytes"
	"context"
	"encoding/binary"
	"flag"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"vastview/loader"
)

var update = flag.Bool("update", false, "regenerate the ffprobe outputs in testdata")

// seedVideos are the small videos whose ffprobe output seeds the fuzz
// targets: B-frames, 4:0:0, intra-only AVI, variable rate, an edit list
// with discarded packets, a display rotation (the last two made from
// h264_bframes by stream copies).
var seedVideos = map[string][]string{
	"h264_bframes": append(pattern("64x48", 25), "-frames:v", "40", "-c:v", "libx264", "-g", "12", "-bf", "3", "-f", "mp4"),
	"h264_gray":    append(pattern("64x48", 25), "-frames:v", "20", "-vf", "format=gray", "-c:v", "libx264", "-pix_fmt", "gray", "-f", "mp4"),
	"mjpeg_avi":    append(pattern("64x48", 25), "-frames:v", "20", "-c:v", "mjpeg", "-f", "avi"),
	"vfr_mkv": {"-filter_complex", "testsrc2=s=64x48:r=10:d=1[a];testsrc2=s=64x48:r=3:d=2[b];[a][b]concat=n=2:v=1",
		"-fps_mode", "passthrough", "-c:v", "libx264", "-bf", "2", "-f", "matroska"},
}

// TestUpdateSeeds rewrites testdata/*.probe from the seed videos when run
// with -update.
func TestUpdateSeeds(t *testing.T) {
	if !*update {
		t.Skip("run with -update to regenerate testdata")
	}
	dir := t.TempDir()
	for name, args := range seedVideos {
		v := ffmpegMake(t, dir, name, args...)
		writeProbe(t, v, name)
		if name == "h264_bframes" {
			writeProbe(t, ffmpegMake(t, dir, "cut.mp4", "-ss", "0.5", "-i", v, "-c", "copy"), "editlist_cut")
			writeProbe(t, ffmpegMake(t, dir, "rot.mp4", "-i", v, "-c", "copy", "-metadata:s:v", "rotate=90"), "rotated")
		}
	}
	writeLogSeeds(t, dir)
}

// writeLogSeeds writes, for an open-GOP video, the log of a decode after
// a seek (the decoder complains about the leading pictures) and the
// checksums of a comparison run, to seed FuzzFFmpegOutput.
func writeLogSeeds(t *testing.T, dir string) {
	useCache(t)
	v := ffmpegMake(t, dir, "opengop.mp4", append(pattern("64x48", 25), "-frames:v", "60", "-c:v", "libx264", "-bf", "3",
		"-force_key_frames", "expr:eq(n,0)+eq(n,30)", "-x264-params", "keyint=1000:scenecut=0:open-gop=1")...)
	s, err := OpenVideo(context.Background(), v)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	args, _ := s.decodeArgs(30, 32)
	var log bytes.Buffer
	cmd := exec.Command("ffmpeg", args...)
	cmd.Stderr = &log
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	sums, err := exec.Command("ffmpeg", s.sumArgs(30, 30, 40)...).Output()
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"opengop_seek.log": log.Bytes(), "opengop.framecrc": sums} {
		b = bytes.ReplaceAll(b, []byte(v), []byte("video.mp4"))
		if err := os.WriteFile(filepath.Join("testdata", name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func writeProbe(t *testing.T, video, name string) {
	extra, err := exec.Command("ffprobe", extradataArgs(video)...).Output()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("ffprobe", probeArgs(video)...).Output()
	if err != nil {
		t.Fatal(err)
	}
	out = append(extra, out...)
	if err := os.WriteFile(filepath.Join("testdata", name+".probe"), out, 0o644); err != nil {
		t.Fatal(err)
	}
}

func probeSeeds(f *testing.F) [][]byte {
	return seeds(f, "*.probe")
}

// seeds reads the files of testdata that match pattern.
func seeds(f *testing.F, pattern string) [][]byte {
	names, _ := filepath.Glob(filepath.Join("testdata", pattern))
	if len(names) == 0 {
		f.Fatal("no seed files in testdata")
	}
	var seeds [][]byte
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	return seeds
}

// FuzzParseProbe parses arbitrary ffprobe output: no panic, and an index
// that parses is valid, in presentation order, and survives the cache
// format unchanged.
func FuzzParseProbe(f *testing.F) {
	for _, s := range probeSeeds(f) {
		f.Add(s)
	}
	id := loader.Identity{Path: "/fuzz/video.mp4", Size: 1, MTime: 2}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 64<<10 {
			return
		}
		ix, err := parseProbe(bytes.NewReader(b))
		if err != nil {
			return
		}
		if err := ix.check(); err != nil {
			t.Fatalf("parsed an invalid index: %v", err)
		}
		s, err := newSource("/fuzz/video.mp4", "ffmpeg", ix, options{})
		if err != nil {
			return // e.g. a frame too large for one chunk: refused, no panic
		}
		if err := s.meta.Validate(); err != nil {
			t.Fatalf("invalid metadata: %v", err)
		}
		s.layout.filter(ix.size())
		for t0 := range ix.frames() {
			k, first := ix.keyBefore(t0), ix.firstSame(t0)
			if k > t0 || first > t0 || ix.pts[first] != ix.pts[t0] {
				t.Fatalf("frame %d: keyframe %d, first of its time %d", t0, k, first)
			}
			ix.seekTime(k)
		}
		got, err := decodeIndex(encodeIndex(ix, id), id)
		if err != nil {
			t.Fatalf("cache round trip: %v", err)
		}
		if !reflect.DeepEqual(got, ix) {
			t.Fatalf("cache round trip changed the index")
		}
	})
}

// FuzzDecodeIndex reads arbitrary cache files: no panic, no allocation
// beyond what the file holds, and an index that loads is valid and
// encodes to the same bytes. Each input is read as it is and with its
// checksum made right, so that the fields behind the checksum are reached.
func FuzzDecodeIndex(f *testing.F) {
	id := loader.Identity{Path: "/fuzz/video.mp4", Size: 1, MTime: 2}
	for _, s := range probeSeeds(f) {
		ix, err := parseProbe(bytes.NewReader(s))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(encodeIndex(ix, id))
	}
	f.Add([]byte(cacheMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<20 {
			return
		}
		inputs := [][]byte{b}
		if len(b) >= 4 {
			body := b[: len(b)-4 : len(b)-4]
			inputs = append(inputs, binary.LittleEndian.AppendUint32(body, crc32.Checksum(body, crcTable)))
		}
		for _, in := range inputs {
			ix, err := decodeIndex(in, id)
			if err != nil {
				continue
			}
			if err := ix.check(); err != nil {
				t.Fatalf("loaded an invalid index: %v", err)
			}
			if !bytes.Equal(encodeIndex(ix, id), in) {
				t.Fatal("a loaded index encodes differently")
			}
		}
	})
}

// FuzzFFmpegOutput reads arbitrary ffmpeg output as a decoder's log and
// as framecrc checksums: no panic; frame events come with a count of
// problems that never decreases; what is kept for error messages reads
// as one line; each checksum is one line.
func FuzzFFmpegOutput(f *testing.F) {
	for _, s := range append(seeds(f, "*.log"), seeds(f, "*.framecrc")...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 64<<10 {
			return
		}
		l := newFrameLog()
		logReaders.Add(1)
		l.read(io.NopCloser(bytes.NewReader(b)))
		problems := 0
		for {
			ev, ok := l.next()
			if !ok {
				break
			}
			if ev.problems < problems {
				t.Fatalf("problems went from %d to %d", problems, ev.problems)
			}
			problems = ev.problems
		}
		if msg := l.tail.lastLine("/fuzz/video.mp4"); strings.ContainsAny(msg, "\n\r") {
			t.Fatalf("error message %q is not one line", msg)
		}
		for _, s := range parseFrameSums(b) {
			if strings.ContainsAny(s, "\n") {
				t.Fatalf("checksum %q is not one line", s)
			}
		}
	})
}
