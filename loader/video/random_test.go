package video

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"vastview/base/testtool"
)

// seekKeys forces keyframes at frames 0, 76 and 145, spaced unevenly as
// scene cuts place them.
const seekKeys = "expr:eq(n,0)+eq(n,76)+eq(n,145)"

// seekFixtures are small videos whose keyframes a seek may land on
// without reproducing a decode from the start: open GOPs (non-IDR
// keyframes whose leading B-frames refer to the previous GOP), x264's
// periodic intra refresh (keyframes that are P-frames, whose pictures
// are whole only some frames later), HEVC (CRA keyframes; and a file
// whose container flags the wrong frames as keyframes), VP9 (hidden
// alternate reference frames) and MJPEG.
var seekFixtures = []struct {
	name   string
	frames int
	args   []string
	// fault: seeks to some keyframe cannot give the frames a decode
	// from the start gives, so that reads must find it out.
	fault bool
}{
	{"h264_yuv420p_opengop.mp4", 180, []string{"-c:v", "libx264", "-pix_fmt", "yuv420p", "-bf", "3",
		"-force_key_frames", seekKeys, "-x264-params", "keyint=1000:scenecut=0:open-gop=1"}, false},
	{"h264_yuv444p_opengop.mp4", 180, []string{"-c:v", "libx264", "-pix_fmt", "yuv444p", "-bf", "3",
		"-force_key_frames", seekKeys, "-x264-params", "keyint=1000:scenecut=0:open-gop=1"}, false},
	{"h264_yuv444p_intra_refresh.mp4", 180, []string{"-c:v", "libx264", "-pix_fmt", "yuv444p", "-bf", "0",
		"-x264-params", "keyint=76:scenecut=0:intra-refresh=1"}, true},
	{"hevc_opengop.mp4", 180, []string{"-c:v", "libx265", "-pix_fmt", "yuv420p", "-tag:v", "hvc1",
		"-x265-params", "log-level=error:keyint=76:min-keyint=76:scenecut=0:bframes=3:open-gop=1"}, false},
	{"vp9_altref.webm", 180, []string{"-c:v", "libvpx-vp9", "-g", "76", "-auto-alt-ref", "1", "-lag-in-frames", "16",
		"-deadline", "good", "-cpu-used", "8", "-b:v", "200k"}, false},
	{"hevc_false_keyframes.mp4", 180, []string{"-c:v", "libx265", "-pix_fmt", "yuv420p", "-tag:v", "hvc1",
		"-x265-params", "log-level=error:keyint=76:min-keyint=76:scenecut=0:bframes=3:open-gop=0"}, true},
	{"mjpeg.avi", 60, []string{"-c:v", "mjpeg", "-q:v", "5"}, false},
}

// falseKeyframes moves each sync sample of the MP4 file at path but the
// first two samples on, as a faulty muxer might: the frames flagged as
// keyframes are then P- or B-frames.
func falseKeyframes(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.LastIndex(b, []byte("stss"))
	if i < 4 || i+12 > len(b) {
		t.Fatal("no stss box")
	}
	n := int(binary.BigEndian.Uint32(b[i+8:]))
	if int(binary.BigEndian.Uint32(b[i-4:])) != 16+4*n || i+12+4*n > len(b) {
		t.Fatal("stss box of an unexpected size")
	}
	for j := 1; j < n; j++ {
		e := b[i+12+4*j:]
		binary.BigEndian.PutUint32(e, binary.BigEndian.Uint32(e)+2)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRandomAccess reads the frames at and around the first keyframes of
// each seek fixture, each with a new decoder (so that it seeks to its
// frame's keyframe), then every frame in a shuffled order, then
// backwards (24 frames of each under -short), and compares each with ffmpeg's decode of the whole file
// from its start.
func TestRandomAccess(t *testing.T) {
	useCache(t)
	for _, fx := range seekFixtures {
		t.Run(fx.name, func(t *testing.T) {
			t.Parallel()
			args := append(append(pattern("64x48", 30), "-frames:v", strconv.Itoa(fx.frames)), fx.args...)
			path := ffmpegMake(t, t.TempDir(), fx.name, args...)
			if strings.Contains(fx.name, "false_keyframes") {
				falseKeyframes(t, path)
			}
			s := openVideo(t, path)
			ref := reference(t, s)
			if s.Frames() != len(ref) {
				t.Fatalf("index has %d frames, ffmpeg decodes %d", s.Frames(), len(ref))
			}
			if len(s.ix.keys) < 3 {
				t.Fatalf("keyframes %v: the fixture has nothing to seek to", s.ix.keys)
			}
			idle := s.maxIdle
			s.maxIdle = 0
			for _, f := range aroundKeys(s.ix.keys[:min(len(s.ix.keys), 5)], len(ref)) {
				if got := readFrame(t, s, f); !bytes.Equal(got, ref[f]) {
					t.Fatalf("read after a seek: frame %d (keyframes %v) differs from the decode from the start", f, s.ix.keys)
				}
			}
			// More idle decoders than the default make a shuffled read of
			// every frame affordable (fewer ffmpeg starts).
			s.maxIdle = max(idle, 8)
			for _, f := range testtool.Quick(rand.New(rand.NewPCG(2, uint64(len(ref)))).Perm(len(ref)), 24) {
				if got := readFrame(t, s, f); !bytes.Equal(got, ref[f]) {
					t.Fatalf("shuffled read: frame %d (keyframes %v) differs from the decode from the start", f, s.ix.keys)
				}
			}
			for _, f := range testtool.Quick(backwards(len(ref)), 24) {
				if got := readFrame(t, s, f); !bytes.Equal(got, ref[f]) {
					t.Fatalf("backward read: frame %d (keyframes %v) differs from the decode from the start", f, s.ix.keys)
				}
			}
			if bad := s.badKeys(); fx.fault != (len(bad) > 0) {
				t.Fatalf("keyframes found not to seek right: %v; the fixture is meant to have such: %v", bad, fx.fault)
			}
		})
	}
}

// aroundKeys lists, once each and in order, the frames from one before to
// two after each keyframe in keys, of a video of n frames.
func aroundKeys(keys []int, n int) []int {
	var fs []int
	for _, k := range keys {
		for f := max(k-1, 0); f <= min(k+2, n-1); f++ {
			if len(fs) == 0 || f > fs[len(fs)-1] {
				fs = append(fs, f)
			}
		}
	}
	return fs
}
