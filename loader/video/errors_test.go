package video

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// TestBadFiles checks that files that are not (readable) videos give one
// clear line that does not repeat the path.
func TestBadFiles(t *testing.T) {
	testtool.Require(t, "ffprobe")
	useCache(t)
	dir := t.TempDir()
	whole := ffmpegMake(t, dir, "whole.mp4", append(pattern("160x120", 25), "-frames:v", "50", "-c:v", "libx264")...)
	b, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	audio := ffmpegMake(t, dir, "audio.mp4", "-f", "lavfi", "-i", "sine=d=1", "-c:a", "aac")
	files := map[string][]byte{
		"garbage.mp4":   append([]byte("\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2"), make([]byte, 4000)...),
		"truncated.mp4": b[:len(b)/3], // mdat without the moov that follows it
		"empty.mkv":     []byte("\x1a\x45\xdf\xa3\x80"),
		"garbage.avi":   append([]byte("RIFF\x00\x10\x00\x00AVI LIST"), make([]byte, 200)...),
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		checkOpenError(t, p, "")
	}
	checkOpenError(t, audio, "video: no video stream")

	text := filepath.Join(dir, "notes.mp4")
	os.WriteFile(text, []byte("hello, this is not a video\n"), 0o644)
	if _, err := loader.Open(context.Background(), text); !errors.Is(err, loader.ErrFormat) {
		t.Fatalf("text file named .mp4: %v, want ErrFormat", err)
	}
}

// checkOpenError opens p through the loader and wants a one-line
// FormatError that does not name the path (and equals want if given).
func checkOpenError(t *testing.T, p, want string) {
	t.Helper()
	src, err := loader.Open(context.Background(), p)
	if err == nil {
		src.Close()
		t.Fatalf("%s: opened", filepath.Base(p))
	}
	var fe *loader.FormatError
	msg := err.Error()
	switch {
	case !errors.As(err, &fe) || fe.Format != "video":
		t.Errorf("%s: %T %v, want a video FormatError", filepath.Base(p), err, err)
	case strings.Contains(msg, "\n") || strings.Contains(msg, p) || strings.Contains(msg, filepath.Base(p)):
		t.Errorf("%s: error %q is not one line without the path", filepath.Base(p), msg)
	case want != "" && msg != want:
		t.Errorf("%s: %q, want %q", filepath.Base(p), msg, want)
	}
	t.Logf("%s: %v", filepath.Base(p), err)
}

// TestMissingFFmpeg runs with an empty PATH: one clear message.
func TestMissingFFmpeg(t *testing.T) {
	useCache(t)
	p := filepath.Join(t.TempDir(), "a.mp4")
	os.WriteFile(p, []byte("\x00\x00\x00\x18ftypisom"), 0o644)
	t.Setenv("PATH", "")
	_, err := loader.Open(context.Background(), p)
	if err == nil || err.Error() != "video: ffprobe not found (install the ffmpeg package)" {
		t.Fatalf("got %v", err)
	}
}

// TestMatch checks recognition by magic bytes, the extension being only a
// hint for old QuickTime files.
func TestMatch(t *testing.T) {
	cases := []struct {
		path string
		head string
		want bool
	}{
		{"a.bin", "\x00\x00\x00\x20ftypisom\x00\x00\x02\x00", true},
		{"a.bin", "\x00\x00\x00\x14ftypqt  \x00\x00\x00\x00", true},
		{"a.mp4", "\x00\x00\x00\x18ftypheic\x00\x00\x00\x00", false},
		{"a.mp4", "\x00\x00\x00\x18ftypavif\x00\x00\x00\x00", false},
		{"a.avi", "RIFF\x00\x00\x00\x00AVI LIST", true},
		{"a.wav", "RIFF\x00\x00\x00\x00WAVEfmt ", false},
		{"a.bin", "\x1a\x45\xdf\xa3\x9f\x42\x86\x81", true},
		{"a.mov", "\x00\x00\x00\x08wide\x00\x00\x00\x00", true},
		{"a.bin", "\x00\x00\x00\x08wide\x00\x00\x00\x00", false},
		{"a.mov", "\x00\x01\x02\x03", false},
		{"a.mp4", "", false},
	}
	for _, c := range cases {
		if got := Match(c.path, []byte(c.head)); got != c.want {
			t.Errorf("Match(%s, %q) = %v", c.path, c.head, got)
		}
	}
}

// TestReadArguments checks that bad chunk requests are errors, not
// panics.
func TestReadArguments(t *testing.T) {
	useCache(t)
	s := openVideo(t, ffmpegMake(t, t.TempDir(), "a.avi", append(pattern("64x48", 25), "-frames:v", "5", "-c:v", "mjpeg")...))
	ctx := context.Background()
	good := make([]byte, s.meta.Levels[0].ChunkBytes(s.meta.DType))
	for _, c := range []struct {
		level int
		idx   []int
		dst   []byte
	}{
		{1, []int{0, 0, 0, 0}, good},
		{0, []int{0, 0, 0}, good},
		{0, []int{5, 0, 0, 0}, good},
		{0, []int{-1, 0, 0, 0}, good},
		{0, []int{0, 1, 0, 0}, good},
		{0, []int{0, 0, 0, 0}, good[1:]},
	} {
		if err := s.ReadChunk(ctx, c.level, c.idx, c.dst); err == nil {
			t.Errorf("ReadChunk(%d, %v, %d bytes) did not fail", c.level, c.idx, len(c.dst))
		}
	}
	if err := s.ReadChunk(ctx, 0, []int{4, 0, 0, 0}, good); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := s.ReadChunk(ctx, 0, []int{4, 0, 0, 0}, good); err == nil {
		t.Fatal("read after Close did not fail")
	}
}
