package sequence

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// writePictures writes w x h pictures with picturesScript: names[i] in
// mode modes[i].
func writePictures(t *testing.T, dir string, w, h int, names, modes []string) {
	t.Helper()
	testtool.RequirePython(t, "numpy", "PIL")
	args := []string{dir, fmt.Sprint(w), fmt.Sprint(h)}
	for i, n := range names {
		args = append(args, n+"="+modes[i])
	}
	testtool.RunPython(t, picturesScript, args...)
}

// TestColourFolder reads a folder of colour frames in every colour format
// as one RGB stack: a C axis of red, green and blue, every sample as the
// picture shows it.
func TestColourFolder(t *testing.T) {
	const w, h = 29, 17
	dir := t.TempDir()
	names := []string{"f1.png", "f2.png", "f3.png", "f4.bmp", "f5.gif", "f6.bmp"}
	writePictures(t, dir, w, h, names, []string{"RGB", "RGBA", "P", "RGB", "P", "P"})
	convert(t, filepath.Join(dir, "f1.png"), "-quality", "95", filepath.Join(dir, "f7.jpg"))
	var want []byte
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n+".bin"))
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, planar(b, 3, w, h, 1)...)
	}
	want = append(want, goJPEG(t, filepath.Join(dir, "f7.jpg"))...)
	m, got := readAll(t, dir)
	checkMeta(t, m, "ZCYX", []int{7, 3, h, w}, loader.Uint8)
	if d := firstDiff(got, want); d != "" {
		t.Fatal(d)
	}
}

// TestMixedFolder checks that a frame unlike the first (gray among colour
// frames, colour among gray ones, another bit depth, an animation) is one
// error naming it and the first frame, from ReadChunk and from Check,
// which reports the first such frame.
func TestMixedFolder(t *testing.T) {
	cases := []struct {
		name  string
		modes []string // of f1.png .. f4.png
		want  string   // Check's error
	}{
		{"gray among colour", []string{"RGB", "RGBA", "L", "LA"}, "f3.png: 21x9 uint8, but f1.png is 21x9 uint8 RGB"},
		{"colour among gray", []string{"L", "LA", "Pgray", "P"}, "f4.png: 21x9 uint8 RGB, but f1.png is 21x9 uint8"},
		{"1-bit among 8-bit", []string{"L", "L", "1", "L"}, "f3.png: 21x9 uint8 (1-bit), but f1.png is 21x9 uint8"},
		{"16-bit among 8-bit", []string{"L", "I;16", "L", "L"}, "f2.png: 21x9 uint16, but f1.png is 21x9 uint8"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writePictures(t, dir, 21, 9, []string{"f1.png", "f2.png", "f3.png", "f4.png"}, tc.modes)
			src, err := Open(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := src.Check(context.Background()); err == nil || err.Error() != tc.want {
				t.Fatalf("Check: %v, want %s", err, tc.want)
			}
			bad := int(tc.want[1] - '1')
			idx := make([]int, len(src.Meta().Axes))
			idx[0] = bad
			dst := make([]byte, src.Meta().Levels[0].ChunkBytes(src.Meta().DType))
			if err := src.ReadChunk(context.Background(), 0, idx, dst); err == nil || err.Error() != tc.want {
				t.Fatalf("ReadChunk: %v, want %s", err, tc.want)
			}
		})
	}
}

// TestAnimationAmongFrames checks that a GIF of several frames is refused
// as a frame of a folder, and a GIF of one frame is read.
func TestAnimationAmongFrames(t *testing.T) {
	dir := t.TempDir()
	writePictures(t, dir, 16, 12, []string{"a1.gif", "a2.gif"}, []string{"P", "P"})
	args := append(append([]string{}, gifFrames[0]...), gifFrames[1]...)
	convert(t, append(args, "GIF:"+filepath.Join(dir, "a3.gif"))...)
	src, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	want := "a3.gif: holds 2 images; a frame must be a single image"
	if err := src.Check(context.Background()); err == nil || err.Error() != want {
		t.Fatalf("Check: %v, want %s", err, want)
	}
	dst := make([]byte, 3*16*12)
	if err := src.ReadChunk(context.Background(), 0, []int{1, 0, 0, 0}, dst); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "a2.gif.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if d := firstDiff(dst, planar(b, 3, 16, 12, 1)); d != "" {
		t.Fatal(d)
	}
}
