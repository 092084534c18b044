package sequence

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// convert runs ImageMagick.
func convert(t testing.TB, args ...string) {
	t.Helper()
	testtool.Require(t, "convert")
	testtool.Run(t, "convert", args...)
}

// identify returns ImageMagick's description of a file in the given format.
func identify(t testing.TB, format, path string) string {
	t.Helper()
	testtool.Require(t, "identify")
	return string(testtool.Run(t, "identify", "-format", format, path))
}

// magickRaw returns the samples ImageMagick reads from path, interleaved,
// little-endian, with depth bits per sample; channels is an ImageMagick raw
// format such as "gray", "rgb" or "rgba".
func magickRaw(t testing.TB, path, channels string, depth int) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "ref.raw")
	convert(t, path, "-depth", fmt.Sprint(depth), "-endian", "LSB", channels+":"+out)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// planar reorders interleaved samples (c per pixel, es bytes each) into c
// planes of w*h samples.
func planar(inter []byte, c, w, h, es int) []byte {
	out := make([]byte, len(inter))
	for p := 0; p < w*h; p++ {
		for ch := 0; ch < c; ch++ {
			copy(out[(ch*w*h+p)*es:(ch*w*h+p+1)*es], inter[(p*c+ch)*es:(p*c+ch+1)*es])
		}
	}
	return out
}

// readAll opens path with loader.Open and reads all of level 0.
func readAll(t testing.TB, path string) (*loader.Meta, []byte) {
	t.Helper()
	src, err := loader.Open(context.Background(), path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer src.Close()
	data, err := loader.ReadAll(context.Background(), src, 0, 1<<30)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return src.Meta(), data
}

// checkMeta fails t unless m is a sequence with the given axes, shape and
// dtype, whose C axis, if any, holds colour pixels.
func checkMeta(t testing.TB, m *loader.Meta, axes string, shape []int, dt loader.DType) {
	t.Helper()
	checkFormat(t, m, "sequence", axes, shape, dt)
}

// checkFormat fails t unless m has the given format, axes, shape and
// dtype, and says it holds colour pixels exactly when it has a C axis.
func checkFormat(t testing.TB, m *loader.Meta, format, axes string, shape []int, dt loader.DType) {
	t.Helper()
	if m.Format != format || m.Axes != axes || fmt.Sprint(m.Shape) != fmt.Sprint(shape) || m.DType != dt {
		t.Fatalf("got %s %s %v %v, want %s %s %v %v", m.Format, m.Axes, m.Shape, m.DType, format, axes, shape, dt)
	}
	if rgb := strings.Contains(axes, "C"); m.RGB != rgb {
		t.Fatalf("Meta.RGB is %v for axes %s", m.RGB, axes)
	}
}

// firstDiff returns a description of the first differing sample, or "".
func firstDiff(got, want []byte) string {
	if len(got) != len(want) {
		return fmt.Sprintf("length %d, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Sprintf("byte %d is %d, want %d", i, got[i], want[i])
		}
	}
	return ""
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
