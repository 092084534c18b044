package video

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// useCache points the index cache at a fresh folder for the test.
func useCache(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	old := CacheDir
	CacheDir = func() (string, error) { return dir, nil }
	t.Cleanup(func() { CacheDir = old })
	return dir
}

// ffmpegMake runs ffmpeg to write a fixture named name in dir; args go
// between the global options and the output name.
func ffmpegMake(t testing.TB, dir, name string, args ...string) string {
	t.Helper()
	testtool.Require(t, "ffmpeg")
	out := filepath.Join(dir, name)
	all := append([]string{"-hide_banner", "-nostdin", "-loglevel", "error", "-y"}, args...)
	testtool.Run(t, "ffmpeg", append(all, out)...)
	return out
}

// openVideo opens path through the loader, so that the format is found by
// its magic bytes, and returns the video source.
func openVideo(t testing.TB, path string) *Source {
	t.Helper()
	src, err := loader.Open(context.Background(), path)
	if err != nil {
		t.Fatalf("open %s: %v", filepath.Base(path), err)
	}
	s, ok := src.(*Source)
	if !ok {
		src.Close()
		t.Fatalf("open %s: got a %T, not a video", filepath.Base(path), src)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// reference decodes every frame of path with one ffmpeg run, with the
// output pixel format and filters vastview uses, and returns the frames
// with planes in R, G, B order.
func reference(t testing.TB, s *Source) [][]byte {
	t.Helper()
	w, h := s.ix.size()
	cmd := exec.Command("ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error",
		"-i", s.path, "-map", "0:V:0", "-fps_mode", "passthrough",
		"-vf", s.layout.filter(w, h), "-f", "rawvideo", "-pix_fmt", s.layout.outPixFmt(), "pipe:1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("reference decode: %v\n%s", err, errb.String())
	}
	raw := out.Bytes()
	if len(raw)%s.frameBytes != 0 {
		t.Fatalf("reference decode: %d bytes is not a whole number of %d-byte frames", len(raw), s.frameBytes)
	}
	order := s.layout.planeOrder()
	var frames [][]byte
	for off := 0; off < len(raw); off += s.frameBytes {
		f := make([]byte, s.frameBytes)
		for i, ch := range order {
			copy(f[ch*s.plane:(ch+1)*s.plane], raw[off+i*s.plane:off+(i+1)*s.plane])
		}
		frames = append(frames, f)
	}
	return frames
}

// readFrame reads frame t of s.
func readFrame(t testing.TB, s *Source, frame int) []byte {
	t.Helper()
	dst := make([]byte, s.frameBytes)
	idx := make([]int, len(s.meta.Axes))
	idx[0] = frame
	if err := s.ReadChunk(context.Background(), 0, idx, dst); err != nil {
		t.Fatalf("frame %d: %v", frame, err)
	}
	return dst
}

// probeFrameTimes asks ffprobe for every decoded frame's
// best_effort_timestamp (in stream time-base units).
func probeFrameTimes(t testing.TB, path string) []int64 {
	t.Helper()
	out := testtool.Run(t, "ffprobe", "-v", "error", "-select_streams", "V:0",
		"-show_entries", "frame=best_effort_timestamp", "-of", "csv=p=0", path)
	var ts []int64
	for _, l := range strings.Fields(string(out)) {
		v, err := strconv.ParseInt(strings.TrimSuffix(l, ","), 10, 64)
		if err != nil {
			t.Fatalf("ffprobe frame line %q: %v", l, err)
		}
		ts = append(ts, v)
	}
	return ts
}

// children lists the processes whose parent is this test process.
func children(t testing.TB) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	me := strconv.Itoa(os.Getpid())
	var kids []string
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 1 && f[1] == me {
			kids = append(kids, s[:i+1]+" "+f[0])
		}
	}
	return kids
}

// backwards lists the frames n-1 down to 0.
func backwards(n int) []int {
	fs := make([]int, n)
	for i := range fs {
		fs[i] = n - 1 - i
	}
	return fs
}
