package tiff

import (
	"encoding/binary"
	"path/filepath"
	"reflect"
	"testing"

	"vastview/base/testtool"
)

// paletteAlphaInput writes few.png and many.png: 5 and 40 colours (as a
// palette holds them) under alpha of three levels.
const paletteAlphaInput = `
from PIL import Image
rng = np.random.default_rng(3)
for name, n in (('few', 5), ('many', 40)):
    cols = rng.integers(0, 255, (n, 3), dtype=np.uint8, endpoint=True)
    px = np.zeros((20, 30, 4), np.uint8)
    px[..., :3] = cols[rng.integers(0, n, (20, 30))]
    px[..., 3] = rng.integers(0, 3, (20, 30)) * 119 + 17
    Image.fromarray(px).save(d + '/' + name + '.png')
`

// TestPaletteAlpha reads palette images with an alpha sample, which
// ImageMagick writes from RGBA, as palette indices (C 0, coloured by
// Meta.Palette) and alpha (C 1), and checks the colours the palette gives
// and the alpha against ImageMagick's reading of the file as RGBA.
func TestPaletteAlpha(t *testing.T) {
	testtool.Require(t, "convert")
	testtool.RequirePython(t, "PIL", "numpy")
	dir := t.TempDir()
	python(t, dir, paletteAlphaInput)
	cases := []struct {
		name, in string
		args     []string
		bits     int
	}{
		{"pa4", "few", nil, 4}, // ImageMagick packs 5 colours and their alpha in 4 bits
		{"pa4_zip", "few", []string{"-compress", "Zip"}, 4},
		{"pa8", "many", nil, 8},
		{"pa8_lzw", "many", []string{"-compress", "LZW"}, 8},
		{"pa8_tiled", "many", []string{"-define", "tiff:tile-geometry=16x16"}, 8},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name+".tif")
			args := append([]string{filepath.Join(dir, c.in+".png"), "-type", "PaletteAlpha"}, c.args...)
			testtool.Run(t, "convert", append(args, path)...)
			src := openTIFF(t, path)
			p := src.(*source).p0
			if p.photometric != 3 || p.spp != 2 || p.bits != c.bits {
				t.Fatalf("ImageMagick wrote photometric %d, %d samples of %d bits", p.photometric, p.spp, p.bits)
			}
			m := src.Meta()
			if m.Axes != "CYX" || !reflect.DeepEqual(m.Shape, []int{2, 20, 30}) || m.RGB || len(m.Palette) != 1<<c.bits || len(m.Notes) != 1 {
				t.Fatalf("meta %s %v RGB %v, palette of %d, notes %q", m.Axes, m.Shape, m.RGB, len(m.Palette), m.Notes)
			}
			out := filepath.Join(dir, c.name+".rgba")
			testtool.Run(t, "convert", path, "-depth", "16", "-endian", "LSB", "rgba:"+out)
			want := readFile(t, out)
			got := readAll(t, src)
			n := 20 * 30
			if len(want) != 8*n || len(got) != 2*n {
				t.Fatalf("%d bytes of RGBA from ImageMagick, %d read", len(want), len(got))
			}
			amax := 1<<c.bits - 1
			for i := 0; i < n; i++ {
				e := m.Palette[got[i]]
				var w [4]int
				for k := range w {
					w[k] = int(binary.LittleEndian.Uint16(want[8*i+2*k:]))
				}
				// ImageMagick scales the stored alpha to 16 bits.
				if [3]int{int(e[0]), int(e[1]), int(e[2])} != [3]int(w[:3]) || int(got[n+i]) != (w[3]*amax+32767)/65535 {
					t.Fatalf("pixel %d: index %d (colour %v) alpha %d; ImageMagick reads RGBA %v", i, got[i], e, got[n+i], w)
				}
			}
		})
	}
}
