package video

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
	"vastview/loader"
)

// TestTimestamps compares the index's frame times with the
// best_effort_timestamp ffprobe reports for every decoded frame of the
// variable-frame-rate fixtures, and the T spacing with their mean step.
func TestTimestamps(t *testing.T) {
	useCache(t)
	for _, fx := range fixtures {
		if fx.name != "vfr_concat.mkv" && fx.name != "vfr_setpts.mp4" && fx.name != "cut_editlist.mp4" {
			continue
		}
		t.Run(fx.name, func(t *testing.T) {
			path := fx.make(t, t.TempDir())
			s := openVideo(t, path)
			want := probeFrameTimes(t, path)
			if !reflect.DeepEqual(s.ix.pts, want) {
				t.Fatalf("index timestamps\n%v\nffprobe frames\n%v", s.ix.pts, want)
			}
			steps := map[int64]bool{}
			for i := 1; i < len(want); i++ {
				steps[want[i]-want[i-1]] = true
			}
			if fx.name != "cut_editlist.mp4" && len(steps) < 3 {
				t.Fatalf("fixture is not variable-rate: steps %v", steps)
			}
			n := len(want)
			mean := float64(want[n-1]-want[0]) / float64(n-1) * float64(s.ix.tbNum) / float64(s.ix.tbDen)
			if got := s.meta.Spacing[0]; math.Abs(got-mean) > 1e-12*mean || s.meta.Units[0] != "second" {
				t.Fatalf("T spacing %v %s, want %v second", got, s.meta.Units[0], mean)
			}
			if got, w := s.Time(n-1), float64(want[n-1])*float64(s.ix.tbNum)/float64(s.ix.tbDen); got != w {
				t.Fatalf("Time(last) = %v, want %v", got, w)
			}
		})
	}
}

// TestIndexCache checks that a second Open reuses the cached index (no
// ffprobe run), that a damaged entry or a changed file is indexed anew,
// and that entries are written whole (no temporary files left).
func TestIndexCache(t *testing.T) {
	cache := useCache(t)
	dir := t.TempDir()
	path := ffmpegMake(t, dir, "a.avi", append(pattern("160x120", 25), "-frames:v", "30", "-c:v", "mjpeg")...)
	runs := probeRuns.Load()

	s1, err := OpenVideo(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	first := readFrame(t, s1, 29)
	s1.Close()
	if got := probeRuns.Load() - runs; got != 1 {
		t.Fatalf("first open ran ffprobe %d times", got)
	}

	s2 := openVideo(t, path)
	if got := probeRuns.Load() - runs; got != 1 {
		t.Fatalf("second open ran ffprobe again (%d runs)", got)
	}
	if !reflect.DeepEqual(s2.ix.pts, s1.ix.pts) || !reflect.DeepEqual(s2.ix.key, s1.ix.key) || !reflect.DeepEqual(s2.meta, s1.meta) {
		t.Fatal("cached index differs from the probed one")
	}
	if !bytes.Equal(readFrame(t, s2, 29), first) {
		t.Fatal("frame read through the cached index differs")
	}

	entries, _ := filepath.Glob(filepath.Join(cache, "*"))
	if len(entries) != 1 || filepath.Ext(entries[0]) != ".idx" {
		t.Fatalf("cache holds %v, want one .idx entry", entries)
	}
	b, err := os.ReadFile(entries[0])
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x40
	if err := os.WriteFile(entries[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	s3 := openVideo(t, path)
	if got := probeRuns.Load() - runs; got != 2 {
		t.Fatalf("damaged cache entry: %d ffprobe runs, want 2", got)
	}
	if s3.Frames() != 30 {
		t.Fatalf("rebuilt index has %d frames", s3.Frames())
	}

	// Change the file: a new size and modification time.
	ffmpegMake(t, dir, "a.avi", append(pattern("160x120", 25), "-frames:v", "40", "-c:v", "mjpeg")...)
	future := time.Now().Add(time.Minute)
	os.Chtimes(path, future, future)
	s4 := openVideo(t, path)
	if got := probeRuns.Load() - runs; got != 3 {
		t.Fatalf("changed file: %d ffprobe runs, want 3", got)
	}
	if s4.Frames() != 40 {
		t.Fatalf("changed file: %d frames, want 40", s4.Frames())
	}
	s5 := openVideo(t, path)
	if got := probeRuns.Load() - runs; got != 3 || s5.Frames() != 40 {
		t.Fatalf("reopening the changed file: %d ffprobe runs, %d frames", got, s5.Frames())
	}
	entries, _ = filepath.Glob(filepath.Join(cache, "*"))
	hidden, _ := filepath.Glob(filepath.Join(cache, ".*"))
	if len(entries) != 1 || len(hidden) != 0 {
		t.Fatalf("cache holds %v and %v, want one entry", entries, hidden)
	}
}

// TestCacheRoundTrip checks the cache format on a probed index: what is
// written reads back equal, and any other identity or a cut file is
// refused.
func TestCacheRoundTrip(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "h264_bframes.probe"))
	if err != nil {
		t.Fatal(err)
	}
	ix, err := parseProbe(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	id := loader.Identity{Path: "/videos/a.mp4", Size: 1234, MTime: 5678}
	enc := encodeIndex(ix, id)
	got, err := decodeIndex(enc, id)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, ix) {
		t.Fatalf("round trip:\n%+v\nwant\n%+v", got, ix)
	}
	for _, other := range []loader.Identity{{Path: "/videos/b.mp4", Size: 1234, MTime: 5678}, {Path: "/videos/a.mp4", Size: 1235, MTime: 5678}, {Path: "/videos/a.mp4", Size: 1234, MTime: 5679}} {
		if _, err := decodeIndex(enc, other); err == nil {
			t.Fatalf("entry accepted for %+v", other)
		}
	}
	for _, n := range []int{0, 8, len(enc) / 2, len(enc) - 1} {
		if _, err := decodeIndex(enc[:n], id); err == nil {
			t.Fatalf("entry cut to %d bytes accepted", n)
		}
	}
}

// TestParseSeeds checks what the index makes of real ffprobe output:
// frames in presentation order, discarded packets left out, 4:0:0 H.264
// told from colour, a display rotation swapping width and height.
func TestParseSeeds(t *testing.T) {
	cases := []struct {
		name          string
		frames, keys  int
		mono          bool
		width, height int
	}{
		{"h264_bframes", 40, 4, false, 64, 48},
		{"h264_gray", 20, 1, true, 64, 48},
		{"mjpeg_avi", 20, 20, false, 64, 48},
		{"vfr_mkv", 16, 1, false, 64, 48},
		{"editlist_cut", 27, 2, false, 64, 48},
		{"rotated", 40, 4, false, 48, 64},
	}
	for _, c := range cases {
		b, err := os.ReadFile(filepath.Join("testdata", c.name+".probe"))
		if err != nil {
			t.Fatal(err)
		}
		ix, err := parseProbe(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		packets := bytes.Count(b, []byte("packet|")) - bytes.Count(b, []byte("flags=KD")) - bytes.Count(b, []byte("flags=_D"))
		w, h := ix.size()
		if ix.frames() != c.frames || ix.frames() != packets || len(ix.keys) != c.keys || ix.mono != c.mono || w != c.width || h != c.height {
			t.Errorf("%s: %d frames (%d packets shown), %d keyframes, mono %v, %dx%d; want %d, %d, %v, %dx%d",
				c.name, ix.frames(), packets, len(ix.keys), ix.mono, w, h, c.frames, c.keys, c.mono, c.width, c.height)
		}
		for i := 1; i < ix.frames(); i++ {
			if ix.pts[i] <= ix.pts[i-1] {
				t.Errorf("%s: frame %d at %d after %d", c.name, i, ix.pts[i], ix.pts[i-1])
			}
		}
	}
}
