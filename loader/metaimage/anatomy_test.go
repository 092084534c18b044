package metaimage

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"vastview/loader"
	"vastview/loader/internal/loadertest"
)

// TestAnatomy reads the anatomy of hand-written MetaImage headers (ITK's
// LPS frame; TransformMatrix lists each axis' direction in turn) stored
// LPS, RAS, LAS, permuted and oblique, and compares it with nibabel's
// reading of the same affine. As ITK's MetaImageIO, the direction is the
// TransformMatrix's whatever AnatomicalOrientation says (the identity:
// LPS, as ITK reads every MetaImage); AnatomicalOrientation's letters
// count only without a matrix, and a header with neither (or unknown
// letters, MetaIO's "???") has no orientation.
func TestAnatomy(t *testing.T) {
	c, s := math.Cos(0.3), math.Sin(0.3)
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	cases := []struct {
		name, header string
		want         [3][4]float64
	}{
		{"lps", "NDims = 3\nDimSize = 4 3 2\nElementSpacing = 0.5 0.7 2\nOffset = 10 -20 30.5\nTransformMatrix = 1 0 0 0 1 0 0 0 1\n",
			[3][4]float64{{0.5, 0, 0, 10}, {0, 0.7, 0, -20}, {0, 0, 2, 30.5}}},
		{"ras", "NDims = 3\nDimSize = 4 3 2\nElementSpacing = 1 1 2\nOffset = 1 2 3\nTransformMatrix = -1 0 0 0 -1 0 0 0 1\n",
			[3][4]float64{{-1, 0, 0, 1}, {0, -1, 0, 2}, {0, 0, 2, 3}}},
		{"las", "NDims = 3\nDimSize = 4 3 2\nElementSpacing = 1 1 1\nTransformMatrix = 1 0 0 0 -1 0 0 0 1\n",
			[3][4]float64{{1, 0, 0, 0}, {0, -1, 0, 0}, {0, 0, 1, 0}}},
		{"permuted", "NDims = 3\nDimSize = 4 3 2\nElementSpacing = 2 1.5 1\nOffset = 5 6 7\nTransformMatrix = 0 0 -1 1 0 0 0 -1 0\n",
			[3][4]float64{{0, 1.5, 0, 5}, {0, 0, -1, 6}, {-2, 0, 0, 7}}},
		{"oblique", "NDims = 3\nDimSize = 4 3 2\nElementSpacing = 1 1 1\nTransformMatrix = " +
			g(c) + " " + g(s) + " 0 " + g(-s) + " " + g(c) + " 0 0 0 1\n",
			[3][4]float64{{c, -s, 0, 0}, {s, c, 0, 0}, {0, 0, 1, 0}}},
		{"itk-written", "NDims = 3\nDimSize = 4 3 2\nBinaryData = True\nCompressedData = False\nTransformMatrix = 1 0 0 0 1 0 0 0 1\n" +
			"Offset = -1.5 2 3\nCenterOfRotation = 0 0 0\nAnatomicalOrientation = RAI\nElementSpacing = 0.5 0.5 1.25\n",
			[3][4]float64{{0.5, 0, 0, -1.5}, {0, 0.5, 0, 2}, {0, 0, 1.25, 3}}},
		{"matrix-over-letters", "NDims = 3\nDimSize = 4 3 2\nElementSpacing = 1 1 1\nTransformMatrix = -1 0 0 0 -1 0 0 0 1\nAnatomicalOrientation = RAI\n",
			[3][4]float64{{-1, 0, 0, 0}, {0, -1, 0, 0}, {0, 0, 1, 0}}},
		{"letters-only", "NDims = 3\nDimSize = 4 3 2\nElementSpacing = 1 2 3\nAnatomicalOrientation = LPI\n",
			[3][4]float64{{-1, 0, 0, 0}, {0, -2, 0, 0}, {0, 0, 3, 0}}},
		{"2d", "NDims = 2\nDimSize = 4 3\nElementSpacing = 0.5 0.5\nOffset = 1 2\nTransformMatrix = 1 0 0 -1\n",
			[3][4]float64{{0.5, 0, 0, 1}, {0, -0.5, 0, 2}, {0, 0, -1, 0}}},
	}
	var checks []loadertest.AnatomyCase
	for _, k := range cases {
		checks = append(checks, loadertest.AnatomyCase{Name: k.name, Got: anatomyOfHeader(t, k.header), Want: k.want, Space: loader.SpaceLPS})
	}
	loadertest.CheckAnatomies(t, checks)
	for _, h := range []string{"", "AnatomicalOrientation = ???\n"} {
		if a := anatomyOfHeader(t, "NDims = 3\nDimSize = 4 3 2\nElementSpacing = 1 1 1\n"+h); a != nil {
			t.Errorf("no TransformMatrix, AnatomicalOrientation %q: anatomy %+v", strings.TrimSpace(h), a)
		}
	}
}

// anatomyOfHeader writes a uint8 .mha with the header lines given and
// returns the anatomy Open reads.
func anatomyOfHeader(t *testing.T, fields string) *loader.Anatomy {
	t.Helper()
	n := 1
	for _, s := range strings.Fields(strings.SplitN(strings.SplitN(fields, "DimSize = ", 2)[1], "\n", 2)[0]) {
		v, _ := strconv.Atoi(s)
		n *= v
	}
	text := "ObjectType = Image\n" + fields + "ElementType = MET_UCHAR\nElementDataFile = LOCAL\n"
	p := filepath.Join(t.TempDir(), "a.mha")
	if err := os.WriteFile(p, append([]byte(text), make([]byte, n)...), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := Open(context.Background(), p)
	if err != nil {
		t.Fatalf("%q: %v", fields, err)
	}
	defer src.Close()
	return src.Meta().Anatomy
}
