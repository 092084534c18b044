package sequence

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// framesScript writes gray PNG frames with Pillow: argv is the folder, the
// width, the height, then name=k pairs; frame k's sample (y, x) is
// (k + y*w + x) mod 256.
const framesScript = `
import sys, numpy as np
from PIL import Image
out, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for arg in sys.argv[4:]:
    name, k = arg.rsplit("=", 1)
    a = ((int(k) + np.arange(w*h)) % 256).astype(np.uint8).reshape(h, w)
    Image.fromarray(a, "L").save(out + "/" + name, format="PNG")
`

// writeFrames writes gray w x h PNG frames: names[k] (relative to dir) gets
// first sample k.
func writeFrames(t testing.TB, dir string, w, h int, names ...string) {
	t.Helper()
	testtool.RequirePython(t, "numpy", "PIL")
	args := []string{dir, fmt.Sprint(w), fmt.Sprint(h)}
	for k, n := range names {
		args = append(args, fmt.Sprintf("%s=%d", n, k))
	}
	testtool.RunPython(t, framesScript, args...)
}

func TestNaturalCompare(t *testing.T) {
	sorted := []string{"", "01", "1", "2", "10", "F3", "f", "f1", "f01a", "f1a", "f2", "f2a9", "f2a10", "f10", "f0101", "f101", "g"}
	for i := range sorted {
		for j := range sorted {
			got := loader.NaturalCompare(sorted[i], sorted[j])
			if (i < j && got >= 0) || (i == j && got != 0) || (i > j && got <= 0) {
				t.Errorf("loader.NaturalCompare(%q, %q) = %d", sorted[i], sorted[j], got)
			}
		}
	}
}

// TestFolderOrder checks that frames come in natural order and that hidden
// files, other files and subfolders are ignored.
func TestFolderOrder(t *testing.T) {
	dir := t.TempDir()
	order := []string{"F3.PNG", "f1.png", "f2.png", "f2a9.png", "f2a10.png", "f9.png", "f10.png",
		"f11.png", "f100.png", "f0101.png", "f101.png", "g2.png"}
	shuffled := slices.Clone(order)
	slices.Reverse(shuffled)
	writeFrames(t, dir, 5, 3, shuffled...)
	// Not frames: a hidden file, other extensions, a folder named like one.
	writeFrames(t, dir, 9, 9, ".f0.png", "f5.png.bak")
	writeFile(t, filepath.Join(dir, "notes.txt"), []byte("hello"))
	if err := os.Mkdir(filepath.Join(dir, "sub.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	m, data := readAll(t, dir)
	n := len(order)
	checkMeta(t, m, "ZYX", []int{n, 3, 5}, loader.Uint8)
	for z, name := range order {
		want := slices.Index(shuffled, name) // the first sample writeFrames gave it
		if got := int(data[z*15]); got != want {
			t.Errorf("frame %d (%s): first sample %d, want %d", z, name, got, want)
		}
		if got := data[z*15+14]; int(got) != (want+14)%256 {
			t.Errorf("frame %d last sample %d", z, got)
		}
	}
	src, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	for z, name := range order {
		if src.Frame(z) != name {
			t.Errorf("Frame(%d) = %s, want %s", z, src.Frame(z), name)
		}
	}
	if err := src.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// mismatchFolder writes frame0001.png .. frame0010.png, 8x6 gray 8-bit,
// except for the frames given, written by ImageMagick: the arguments end in
// an output format prefix such as "PNG24:".
func mismatchFolder(t *testing.T, odd map[int][]string) string {
	dir := t.TempDir()
	var names []string
	for i := 1; i <= 10; i++ {
		names = append(names, fmt.Sprintf("frame%04d.png", i))
	}
	writeFrames(t, dir, 8, 6, names...)
	for i, args := range odd {
		last := len(args) - 1
		convert(t, append(args[:last:last], args[last]+filepath.Join(dir, names[i-1]))...)
	}
	return dir
}

func TestMismatch(t *testing.T) {
	dir := mismatchFolder(t, map[int][]string{
		7: {"-size", "10x6", "xc:gray50", "-depth", "8", "-define", "png:color-type=0", "PNG:"},
		4: {"-size", "8x6", "gradient:", "-depth", "16", "-define", "png:color-type=0", "-define", "png:bit-depth=16", "PNG:"},
		9: {"-size", "8x6", "xc:red", "PNG24:"},
	})
	src, err := loader.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst := make([]byte, 48)
	ctx := context.Background()
	wants := map[int]string{
		7: "frame0007.png: 10x6 uint8, but frame0001.png is 8x6 uint8",
		4: "frame0004.png: 8x6 uint16, but frame0001.png is 8x6 uint8",
		9: "frame0009.png: 8x6 uint8 RGB, but frame0001.png is 8x6 uint8",
	}
	for z := 1; z <= 10; z++ {
		err := src.ReadChunk(ctx, 0, []int{z - 1, 0, 0}, dst)
		if want, bad := wants[z]; bad {
			var fe *FrameError
			if err == nil || err.Error() != want || !errors.As(err, &fe) || fe.Frame != fmt.Sprintf("frame%04d.png", z) {
				t.Errorf("frame %d: error %v, want %s", z, err, want)
			}
		} else if err != nil {
			t.Errorf("frame %d: %v", z, err)
		}
	}
	for range 5 {
		if err := Check(ctx, src); err == nil || err.Error() != wants[4] {
			t.Fatalf("Check: %v, want %s", err, wants[4])
		}
	}
}

func TestCheckCorrupt(t *testing.T) {
	dir := mismatchFolder(t, nil)
	good, err := os.ReadFile(filepath.Join(dir, "frame0003.png"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "frame0003.png"), good[:len(good)-20]) // header intact, data cut
	writeFile(t, filepath.Join(dir, "frame0008.png"), []byte("this is not an image at all"))
	src, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dst := make([]byte, 48)
	err = src.ReadChunk(ctx, 0, []int{2, 0, 0}, dst)
	if err == nil || !strings.HasPrefix(err.Error(), "frame0003.png: png: ") {
		t.Errorf("truncated frame: %v", err)
	}
	want := "frame0008.png: not a PNG, JPEG, GIF, BMP or TIFF file"
	if err := src.ReadChunk(ctx, 0, []int{7, 0, 0}, dst); err == nil || err.Error() != want {
		t.Errorf("garbage frame: %v, want %s", err, want)
	}
	if err := src.Check(ctx); err == nil || err.Error() != want {
		t.Errorf("Check: %v, want %s", err, want)
	}
	// A corrupt first frame fails Open.
	writeFile(t, filepath.Join(dir, "frame0001.png"), good[:20])
	if _, err := loader.Open(context.Background(), dir); err == nil || err.Error() != "frame0001.png: png: truncated header" {
		t.Errorf("truncated first frame: %v", err)
	}
}

func TestNoFrames(t *testing.T) {
	dir := t.TempDir()
	want := "no PNG, JPEG, GIF, BMP or TIFF frames in the folder"
	if _, err := loader.Open(context.Background(), dir); err == nil || err.Error() != want {
		t.Errorf("empty folder: %v", err)
	}
	writeFile(t, filepath.Join(dir, "a.txt"), []byte("x"))
	writeFile(t, filepath.Join(dir, ".hidden.png"), []byte("x"))
	if _, err := loader.Open(context.Background(), dir); err == nil || err.Error() != want {
		t.Errorf("folder without frames: %v", err)
	}
	if _, err := loader.Open(context.Background(), filepath.Join(dir, "*.png")); err == nil || err.Error() != "no PNG, JPEG, GIF, BMP or TIFF files match the pattern" {
		t.Errorf("pattern without frames: %v", err)
	}
	if _, err := loader.Open(context.Background(), filepath.Join(dir, "[")); err == nil {
		t.Error("bad pattern opened")
	}
	if _, err := loader.Open(context.Background(), filepath.Join(dir, "missing")); err == nil {
		t.Error("missing folder opened")
	}
}

// TestFolderMatch checks that a folder is matched as frames and a file is
// not (a folder another format claims by a marker, a Zarr store, is left
// to it: see loader/formats).
func TestFolderMatch(t *testing.T) {
	dir := t.TempDir()
	writeFrames(t, dir, 4, 4, "a.png")
	if !Match(dir, nil) {
		t.Fatal("folder of frames not matched")
	}
	if Match(filepath.Join(dir, "a.png"), []byte("\x89PNG")) {
		t.Fatal("single file matched")
	}
}

func TestGlob(t *testing.T) {
	dir := t.TempDir()
	for _, sub := range []string{"s1", "s2", "t1"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFrames(t, dir, 4, 3, "a10.png", "a9.png", "b1.png", "s2/x1.png", "s1/x1.png", "s1/x2.png")
	writeFrames(t, dir, 6, 3, "t1/x1.png")

	src, err := loader.Open(context.Background(), filepath.Join(dir, "a*.png"))
	if err != nil {
		t.Fatal(err)
	}
	m := src.Meta()
	data, err := loader.ReadAll(context.Background(), src, 0, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	checkMeta(t, m, "ZYX", []int{2, 3, 4}, loader.Uint8)
	if data[0] != 1 || data[12] != 0 { // a9 (k=1) before a10 (k=0)
		t.Errorf("pattern order: first samples %d %d", data[0], data[12])
	}

	s, err := Open(context.Background(), filepath.Join(dir, "s?", "x*.png"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for i := range s.Len() {
		names = append(names, s.Frame(i))
	}
	if got := strings.Join(names, " "); got != "s1/x1.png s1/x2.png s2/x1.png" {
		t.Errorf("frames %s", got)
	}
	s, err = Open(context.Background(), filepath.Join(dir, "[st]*", "x1.png"))
	if err != nil {
		t.Fatal(err)
	}
	want := "t1/x1.png: 6x3 uint8, but s1/x1.png is 4x3 uint8"
	if err := s.Check(context.Background()); err == nil || err.Error() != want {
		t.Errorf("Check: %v, want %s", err, want)
	}
}

func TestReadChunkRejects(t *testing.T) {
	dir := t.TempDir()
	writeFrames(t, dir, 4, 3, "a.png", "b.png")
	src, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ok := make([]byte, 12)
	bad := []struct {
		level int
		idx   []int
		dst   []byte
	}{
		{1, []int{0, 0, 0}, ok},
		{-1, []int{0, 0, 0}, ok},
		{0, []int{0, 0}, ok},
		{0, []int{0, 0, 0, 0}, ok},
		{0, nil, ok},
		{0, []int{2, 0, 0}, ok},
		{0, []int{-1, 0, 0}, ok},
		{0, []int{0, 1, 0}, ok},
		{0, []int{0, 0, 1}, ok},
		{0, []int{0, 0, 0}, make([]byte, 11)},
		{0, []int{0, 0, 0}, make([]byte, 13)},
		{0, []int{0, 0, 0}, nil},
	}
	for _, b := range bad {
		if err := src.ReadChunk(ctx, b.level, b.idx, b.dst); err == nil {
			t.Errorf("ReadChunk(%d, %v, %d bytes) succeeded", b.level, b.idx, len(b.dst))
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := src.ReadChunk(cctx, 0, []int{1, 0, 0}, ok); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled read: %v", err)
	}
	if err := src.Check(cctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Check: %v", err)
	}
	if err := src.ReadChunk(ctx, 0, []int{1, 0, 0}, ok); err != nil || ok[0] != 1 {
		t.Errorf("good read: %v, first sample %d", err, ok[0])
	}
}

// TestConcurrentReads reads every frame from several goroutines at once.
func TestConcurrentReads(t *testing.T) {
	dir := t.TempDir()
	var names []string
	for i := range 20 {
		names = append(names, fmt.Sprintf("c%d.png", i))
	}
	writeFrames(t, dir, 16, 8, names...)
	src, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			dst := make([]byte, 128)
			for i := range 20 {
				z := (i + 5*g) % 20
				if err := src.ReadChunk(context.Background(), 0, []int{z, 0, 0}, dst); err != nil {
					t.Error(err)
					return
				}
				if dst[0] != byte(z) || dst[127] != byte(z+127) {
					t.Errorf("frame %d: samples %d %d", z, dst[0], dst[127])
				}
			}
		})
	}
	wg.Wait()
}

type otherSource struct{ loader.Source }

func TestCheckOtherSource(t *testing.T) {
	if err := Check(context.Background(), otherSource{}); err != nil {
		t.Fatal(err)
	}
}
