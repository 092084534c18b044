package tiff

import (
	"errors"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// faxInput writes bw.png and bw.pbm, a 203x61 bilevel picture of stripes
// and a disc (long and short runs of both colours), fine.png and fine.pbm,
// 64x40 of narrower stripes (rows whose codes end in zeros), and
// pil_*.tif, the CCITT files Pillow (with libtiff) writes from bw.
const faxInput = `
from PIL import Image
y, x = np.mgrid[0:40, 0:64]
a = (((x // 5 + y // 3) % 3 == 0) | ((x - 30) ** 2 + (y - 20) ** 2 < 150)).astype(np.uint8) * 255
Image.fromarray(a).convert('1').save(d + '/fine.png')
Image.fromarray(a).convert('1').save(d + '/fine.pbm')
y, x = np.mgrid[0:61, 0:203]
a = (((x // 7 + y // 5) % 3 == 0) | ((x - 100) ** 2 + (y - 30) ** 2 < 400)).astype(np.uint8) * 255
im = Image.fromarray(a).convert('1')
im.save(d + '/bw.png')
im.save(d + '/bw.pbm')
im.save(d + '/pil_g4.tif', compression='group4')
im.save(d + '/pil_g3.tif', compression='group3')
`

// TestFax reads CCITT Group 3 and 4 files that ImageMagick, netpbm's
// pamtotiff and Pillow write (white as 0 or as 1, FillOrder 1 and 2, Group
// 3 with and without fill bits, several strips, two pages) and compares the
// bits with ImageMagick's (libtiff's) reading of each file.
func TestFax(t *testing.T) {
	testtool.Require(t, "convert")
	testtool.RequirePython(t, "PIL", "numpy")
	dir := t.TempDir()
	python(t, dir, faxInput)
	png, pbm := filepath.Join(dir, "bw.png"), filepath.Join(dir, "bw.pbm")
	im := func(args ...string) func(string) {
		return func(out string) { testtool.Run(t, "convert", append(append([]string{png}, args...), out)...) }
	}
	imFine := func(args ...string) func(string) {
		return func(out string) {
			testtool.Run(t, "convert", append(append([]string{filepath.Join(dir, "fine.png")}, args...), out)...)
		}
	}
	im2 := func(args ...string) func(string) { // two pages
		return func(out string) { testtool.Run(t, "convert", append(append([]string{png, png}, args...), out)...) }
	}
	pam := func(args ...string) func(string) {
		return func(out string) {
			testtool.Require(t, "pamtotiff")
			cmd := exec.Command("pamtotiff", append(args, "-output", out, pbm)...)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("pamtotiff %v: %v\n%s", args, err, b)
			}
		}
	}
	cases := []struct {
		name        string
		write       func(string)
		comp, pages int
		photometric int
		lsb, fill   bool
	}{
		{"im_g4", im("-compress", "Group4"), cG4, 1, 0, false, false},
		{"im_g4_pages", im2("-compress", "Group4", "-define", "tiff:rows-per-strip=16"), cG4, 2, 0, false, false},
		{"im_g3_fill", im("-compress", "Fax"), cG3, 1, 0, false, true},
		{"im_g3_fill_lsb", im("-compress", "Fax", "-define", "tiff:fill-order=lsb"), cG3, 1, 0, true, true},
		{"im_g4_lsb", im("-compress", "Group4", "-define", "tiff:fill-order=lsb"), cG4, 1, 0, true, false},
		{"im_g3_fill_fine", imFine("-compress", "Fax", "-define", "tiff:rows-per-strip=7"), cG3, 1, 0, false, true},
		{"im_g3_fill_lsb_fine", imFine("-compress", "Fax", "-define", "tiff:fill-order=lsb"), cG3, 1, 0, true, true},
		{"im_g4_fine", imFine("-compress", "Group4"), cG4, 1, 0, false, false},
		{"pam_g3", pam("-g3"), cG3, 1, 0, false, false},
		{"pam_g3_fill", pam("-g3", "-fill", "-rowsperstrip=10"), cG3, 1, 0, false, true},
		{"pam_g3_lsb", pam("-g3", "-lsb2msb"), cG3, 1, 0, true, false},
		{"pam_g4", pam("-g4", "-rowsperstrip=16"), cG4, 1, 0, false, false},
		{"pam_g4_lsb", pam("-g4", "-lsb2msb"), cG4, 1, 0, true, false},
		{"pil_g4", nil, cG4, 1, 1, false, false},
		{"pil_g3", nil, cG3, 1, 1, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name+".tif")
			if c.write != nil {
				c.write(path)
			}
			src := openTIFF(t, path)
			p := src.(*source).p0
			if p.compression != c.comp || p.photometric != c.photometric || p.lsbFirst != c.lsb || p.faxFill != c.fill {
				t.Fatalf("wrote compression %d, photometric %d, FillOrder 2 %v, fill bits %v", p.compression, p.photometric, p.lsbFirst, p.faxFill)
			}
			m := src.Meta()
			shape := []int{61, 203}
			if strings.HasSuffix(c.name, "_fine") {
				shape = []int{40, 64}
			}
			if c.pages > 1 {
				shape = append([]int{c.pages}, shape...)
			}
			if !reflect.DeepEqual(m.Shape, shape) || m.DType != loader.Uint8 {
				t.Fatalf("meta %s %v %s", m.Axes, m.Shape, m.DType)
			}
			out := filepath.Join(dir, c.name+".gray")
			testtool.Run(t, "convert", path, "-depth", "8", "gray:"+out)
			ref := readFile(t, out)
			// The stored bit: white is 0 under WhiteIsZero, else 1.
			want := make([]byte, len(ref))
			for i, v := range ref {
				if (v != 0) == (c.photometric == 1) {
					want[i] = 1
				}
			}
			got := readAll(t, src)
			if string(got) != string(want) {
				t.Fatalf("bits differ from ImageMagick's at %d of %d", firstDiff(got, want), len(want))
			}
		})
	}
	t.Run("g3_2d", func(t *testing.T) {
		path := filepath.Join(dir, "g3_2d.tif")
		pam("-g3", "-2d")(path)
		err := openErr(t, path)
		var ue *loader.UnsupportedError
		if !errors.As(err, &ue) || ue.Feature != "2-D CCITT Group 3 coding" {
			t.Fatalf("error %v, want unsupported 2-D CCITT Group 3 coding", err)
		}
	})
}
