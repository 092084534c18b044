package nrrd

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

// TestAnatomy reads the anatomy of hand-written headers in the anatomical
// spaces, stored RAS, LPS, LAS, permuted and oblique, and compares it with
// nibabel's reading of the same affine.
func TestAnatomy(t *testing.T) {
	c, s := math.Cos(0.4), math.Sin(0.4)
	cases := []struct {
		name, header string
		want         [3][4]float64
		space        string
	}{
		{"lps", "space: left-posterior-superior\nsizes: 4 3 2\nspace directions: (0.5,0,0) (0,0.7,0) (0,0,2)\nspace origin: (10,-20,30.5)\n",
			[3][4]float64{{0.5, 0, 0, 10}, {0, 0.7, 0, -20}, {0, 0, 2, 30.5}}, loader.SpaceLPS},
		{"ras", "space: RAS\nsizes: 4 3 2\nspace directions: (1,0,0) (0,1.5,0) (0,0,-2)\nspace origin: (-5,6,7)\n",
			[3][4]float64{{1, 0, 0, -5}, {0, 1.5, 0, 6}, {0, 0, -2, 7}}, loader.SpaceRAS},
		// LAS coordinates are RAS ones with x turned round.
		{"las", "space: left-anterior-superior\nsizes: 4 3 2\nspace directions: (0.9,0,0) (0,1.1,0) (0,0,3)\nspace origin: (45,-60,-30)\n",
			[3][4]float64{{-0.9, 0, 0, -45}, {0, 1.1, 0, -60}, {0, 0, 3, -30}}, loader.SpaceRAS},
		{"lps-permuted", "space: LPS\nsizes: 4 3 2\nspace directions: (0,0,-2) (1.5,0,0) (0,-1,0)\nspace origin: (1,2,3)\n",
			[3][4]float64{{0, 1.5, 0, 1}, {0, 0, -1, 2}, {-2, 0, 0, 3}}, loader.SpaceLPS},
		{"lps-oblique", "space: left-posterior-superior\nsizes: 4 3 2\n" +
			"space directions: (" + f(c) + ",0," + f(-s) + ") (0,1,0) (" + f(2*s) + ",0," + f(2*c) + ")\nspace origin: (0,0,0)\n",
			[3][4]float64{{c, 0, 2 * s, 0}, {0, 1, 0, 0}, {-s, 0, 2 * c, 0}}, loader.SpaceLPS},
		{"ras-2d", "space: RAS\nsizes: 4 3\nspace directions: (0,0,-1) (1,0,0)\n",
			[3][4]float64{{0, 1, 0, 0}, {0, 0, -1, 0}, {-1, 0, 0, 0}}, loader.SpaceRAS},
		{"rast-4d", "space: right-anterior-superior-time\nsizes: 4 3 2 2\nkinds: space space space time\n" +
			"space directions: (-2,0,0,0) (0,2,0,0) (0,0,2,0) none\nspace origin: (1,1,1,0)\n",
			[3][4]float64{{-2, 0, 0, 1}, {0, 2, 0, 1}, {0, 0, 2, 1}}, loader.SpaceRAS},
	}
	var checks []loadertest.AnatomyCase
	for _, k := range cases {
		checks = append(checks, loadertest.AnatomyCase{Name: k.name, Got: anatomyOfHeader(t, k.header), Want: k.want, Space: k.space})
	}
	loadertest.CheckAnatomies(t, checks)
	for _, h := range []string{
		"sizes: 4 3 2\nspacings: 1 1 1\n",
		"space: scanner-xyz\nsizes: 4 3 2\nspace directions: (1,0,0) (0,1,0) (0,0,1)\n",
		"space: 3D-right-handed\nsizes: 4 3 2\nspace directions: (1,0,0) (0,1,0) (0,0,1)\n",
	} {
		if a := anatomyOfHeader(t, h); a != nil {
			t.Errorf("%q: anatomy %+v, want none", h, a)
		}
	}
}

func f(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// anatomyOfHeader writes a uint8 NRRD with the header fields given (its
// dimension counted from sizes) and returns the anatomy Open reads.
func anatomyOfHeader(t *testing.T, fields string) *loader.Anatomy {
	t.Helper()
	sizes := strings.Fields(strings.SplitN(strings.SplitN(fields, "sizes: ", 2)[1], "\n", 2)[0])
	n := 1
	for _, s := range sizes {
		n *= int(s[0] - '0')
	}
	text := "NRRD0004\ntype: uint8\ndimension: " + string(rune('0'+len(sizes))) + "\nencoding: raw\n" + fields + "\n"
	p := filepath.Join(t.TempDir(), "a.nrrd")
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
