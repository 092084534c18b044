//go:build !nojxr && cgo

package czi

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"vastview/loader"
	"vastview/loader/internal/loadertest"
)

// JPEG XR fixtures are made by jxrlib's own JxrEncApp from PNM, BMP and
// TIFF files written here, as jxrlib reads them: PNM samples of 16 bits
// are read in the machine's order (little-endian), not PNM's big-endian;
// BMP rows bottom-up, padded to four bytes, in B, G, R order.

func needJxrTools(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("JxrEncApp"); err != nil {
		t.Skip("JxrEncApp not installed (Debian: libjxr-tools)")
	}
}

// jxrEncode writes src to a file called name and encodes it losslessly
// with JxrEncApp as pixel format number format.
func jxrEncode(t testing.TB, name string, src []byte, format int, extra ...string) []byte {
	t.Helper()
	dir := t.TempDir()
	in, out := filepath.Join(dir, name), filepath.Join(dir, "out.jxr")
	if err := os.WriteFile(in, src, 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-i", in, "-o", out, "-q", "1", "-c", fmt.Sprint(format)}, extra...)
	cmd := exec.Command("JxrEncApp", args...)
	msg, err := cmd.CombinedOutput()
	b, rerr := os.ReadFile(out)
	if err != nil || rerr != nil || len(b) == 0 {
		t.Fatalf("JxrEncApp %s: %v %v\n%s", strings.Join(args, " "), err, rerr, msg)
	}
	return b
}

// jxrDecApp decodes a JPEG XR file with JxrDecApp to a file of extension
// ext and returns that file.
func jxrDecApp(t testing.TB, jxr []byte, ext string) []byte {
	t.Helper()
	if _, err := exec.LookPath("JxrDecApp"); err != nil {
		t.Skip("JxrDecApp not installed (Debian: libjxr-tools)")
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.jxr"), filepath.Join(dir, "out"+ext)
	if err := os.WriteFile(in, jxr, 0o644); err != nil {
		t.Fatal(err)
	}
	msg, err := exec.Command("JxrDecApp", "-i", in, "-o", out).CombinedOutput()
	b, rerr := os.ReadFile(out)
	if err != nil || rerr != nil {
		t.Fatalf("JxrDecApp: %v %v\n%s", err, rerr, msg)
	}
	return b
}

// pnm is a PGM (channels 1) or PPM (3) of samples of 1 or 2 bytes, the
// latter little-endian as jxrlib reads them.
func pnm(w, h, channels, sampleBytes int, pix []byte) []byte {
	magic, maxval := "P5", 255
	if channels == 3 {
		magic = "P6"
	}
	if sampleBytes == 2 {
		maxval = 65535
	}
	return append([]byte(fmt.Sprintf("%s\n%d %d\n%d\n", magic, w, h, maxval)), pix...)
}

// pnmPixels returns the samples of a PNM file JxrDecApp wrote.
func pnmPixels(t *testing.T, b []byte, n int) []byte {
	t.Helper()
	// Three header lines: magic, size, maxval.
	at := 0
	for k := 0; k < 3; k++ {
		i := bytes.IndexByte(b[at:], '\n')
		if i < 0 {
			t.Fatalf("PNM header %q", b[:min(len(b), 40)])
		}
		at += i + 1
	}
	if len(b)-at != n {
		t.Fatalf("PNM of %d sample bytes, want %d", len(b)-at, n)
	}
	return b[at:]
}

// bmp24 is a 24-bit BMP of rows of B, G, R bytes (given top-down).
func bmp24(w, h int, bgr []byte) []byte {
	stride := (3*w + 3) &^ 3
	b := make([]byte, 54+stride*h)
	le := binary.LittleEndian
	copy(b, "BM")
	le.PutUint32(b[2:], uint32(len(b)))
	le.PutUint32(b[10:], 54)
	le.PutUint32(b[14:], 40)
	le.PutUint32(b[18:], uint32(w))
	le.PutUint32(b[22:], uint32(h))
	le.PutUint16(b[26:], 1)
	le.PutUint16(b[28:], 24)
	le.PutUint32(b[34:], uint32(stride*h))
	for y := 0; y < h; y++ {
		copy(b[54+(h-1-y)*stride:], bgr[3*w*y:3*w*(y+1)])
	}
	return b
}

// tiffFloat is a little-endian TIFF of one 32-bit float sample per pixel
// in two strips (two, so that StripOffsets and StripByteCounts point to
// arrays, which is how jxrlib reads them even for one strip).
func tiffFloat(w, h int, pix []byte) []byte {
	le := binary.LittleEndian
	rows := (h + 1) / 2
	type ent struct {
		tag, typ uint16
		val      uint32
		count    uint32
	}
	const nEnt = 10
	ifd := 8
	arrays := ifd + 2 + 12*nEnt + 4
	data := arrays + 16
	ents := []ent{
		{256, 4, uint32(w), 1},
		{257, 4, uint32(h), 1},
		{258, 3, 32, 1},
		{259, 3, 1, 1},
		{262, 3, 1, 1}, // black is zero
		{273, 4, uint32(arrays), 2},
		{277, 3, 1, 1},
		{278, 4, uint32(rows), 1},
		{279, 4, uint32(arrays + 8), 2},
		{339, 3, 3, 1}, // IEEE float
	}
	b := make([]byte, data+len(pix))
	copy(b, "II*\x00")
	le.PutUint32(b[4:], uint32(ifd))
	le.PutUint16(b[ifd:], nEnt)
	for i, e := range ents {
		o := b[ifd+2+12*i:]
		le.PutUint16(o, e.tag)
		le.PutUint16(o[2:], e.typ)
		le.PutUint32(o[4:], e.count)
		if e.typ == 3 {
			le.PutUint16(o[8:], uint16(e.val))
		} else {
			le.PutUint32(o[8:], e.val)
		}
	}
	first := 4 * w * rows
	le.PutUint32(b[arrays:], uint32(data))
	le.PutUint32(b[arrays+4:], uint32(data+first))
	le.PutUint32(b[arrays+8:], uint32(first))
	le.PutUint32(b[arrays+12:], uint32(len(pix)-first))
	copy(b[data:], pix)
	return b
}

// tiffPixels returns the strip data of a TIFF JxrDecApp wrote (one
// strip or several, contiguous).
func tiffPixels(t *testing.T, b []byte, n int) []byte {
	t.Helper()
	le := binary.LittleEndian
	ifd := int(le.Uint32(b[4:]))
	cnt := int(le.Uint16(b[ifd:]))
	off, count, size := -1, 0, 0
	for i := 0; i < cnt; i++ {
		e := b[ifd+2+12*i:]
		tag, typ, c, v := le.Uint16(e), le.Uint16(e[2:]), int(le.Uint32(e[4:])), int(le.Uint32(e[8:]))
		if typ == 3 {
			v = int(le.Uint16(e[8:]))
		}
		switch tag {
		case 273:
			off, count = v, c
		case 279:
			size = v
		}
	}
	if off < 0 || count != 1 || off+n > len(b) || size != n {
		t.Fatalf("TIFF of %d strips at %d, %d bytes; want one of %d", count, off, size, n)
	}
	return b[off : off+n]
}

// jxrFixture is a JPEG XR codestream and the bytes an uncompressed CZI
// subblock of its pixel type would hold.
type jxrFixture struct {
	name   string
	pixel  int32
	w, h   int
	jxr    []byte
	stored []byte
}

func jxrFixtures(t *testing.T, w, h int) []jxrFixture {
	n := w * h
	g8 := make([]byte, n)
	for i := range g8 {
		g8[i] = byte(i*37 + i/w)
	}
	g16 := make([]byte, 2*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint16(g16[2*i:], uint16(i*977+5))
	}
	rgb := make([]byte, 3*n)
	for i := range rgb {
		rgb[i] = byte(i*7 + i/(3*w)*13)
	}
	rgb48 := make([]byte, 6*n)
	for i := 0; i < 3*n; i++ {
		binary.LittleEndian.PutUint16(rgb48[2*i:], uint16(i*1237+11))
	}
	f32 := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		v := float32(i)*0.37 - 20
		if i%5 == 0 {
			v = float32(math.Pow(2, float64(i%40-20))) * 1.171875
		}
		binary.LittleEndian.PutUint32(f32[4*i:], math.Float32bits(v))
	}
	swapped := func(b []byte, es int) []byte {
		out := bytes.Clone(b)
		for i := 0; i < len(out); i += 3 * es {
			copy(out[i:i+es], b[i+2*es:i+3*es])
			copy(out[i+2*es:i+3*es], b[i:i+es])
		}
		return out
	}
	return []jxrFixture{
		{"gray8", 0, w, h, jxrEncode(t, "g.pgm", pnm(w, h, 1, 1, g8), 2), g8},
		{"gray16", 1, w, h, jxrEncode(t, "g.pgm", pnm(w, h, 1, 2, g16), 3), g16},
		{"bgr24", 3, w, h, jxrEncode(t, "c.bmp", bmp24(w, h, rgb), 0), rgb},
		{"rgb24", 3, w, h, jxrEncode(t, "c.ppm", pnm(w, h, 3, 1, rgb), 9), swapped(rgb, 1)},
		{"rgb48", 4, w, h, jxrEncode(t, "c.ppm", pnm(w, h, 3, 2, rgb48), 10), swapped(rgb48, 2)},
		{"float", 2, w, h, jxrEncode(t, "f.tif", tiffFloat(w, h, f32), 8), f32},
	}
}

// storedPlanes is what ReadPlane gives for a subblock's stored bytes:
// the gray plane, or the red, green and blue planes of Bgr.
func storedPlanes(stored []byte, pixel int32) [][]byte {
	px := pixels[pixel]
	if px.shown == 1 {
		return [][]byte{stored}
	}
	es := px.dtype.Size()
	n := len(stored) / (3 * es)
	out := make([][]byte, 3)
	for c := range out {
		out[c] = make([]byte, n*es)
		off := (2 - c) * es
		for i := 0; i < n; i++ {
			copy(out[c][i*es:(i+1)*es], stored[3*es*i+off:])
		}
	}
	return out
}

func jxrCZI(t *testing.T, f jxrFixture) loader.Source {
	t.Helper()
	w := &cziWriter{blocks: []blockW{{pixel: f.pixel, comp: cJPGXR, dims: plane2D(100, 200, f.w, f.h, f.w, f.h, nil), data: f.jxr}}}
	return open(t, writeFile(t, f.name+".czi", w.bytes()))
}

// TestJXR: Gray8, Gray16, Bgr24 (from 24bppBGR and from 24bppRGB) and
// Bgr48 (from 48bppRGB, as libCZI writes it) subblocks, encoded
// losslessly by JxrEncApp, decode to exactly the source pixels, directly
// and through a CZI file; Gray32Float ones (which jxrlib cannot code
// losslessly) to within its 13-bit mantissa. All decode to exactly what
// JxrDecApp itself decodes of the same codestream. Sizes are not
// multiples of the 16-pixel macroblock.
func TestJXR(t *testing.T) {
	needJxrTools(t)
	for _, size := range [][2]int{{17, 9}, {70, 37}} {
		for _, f := range jxrFixtures(t, size[0], size[1]) {
			t.Run(fmt.Sprintf("%s_%dx%d", f.name, f.w, f.h), func(t *testing.T) {
				got, err := decodeJXR(f.jxr, f.pixel, f.w, f.h)
				if err != nil {
					t.Fatal(err)
				}
				if f.pixel == 2 {
					// jxrlib codes 32-bit floats with a mantissa of 13
					// bits by default (JxrEncApp's -m; 23 aborts the
					// encoder): not lossless. Near the source here, exact
					// against JxrDecApp below.
					for i := 0; i < len(got); i += 4 {
						a := math.Float32frombits(binary.LittleEndian.Uint32(f.stored[i:]))
						b := math.Float32frombits(binary.LittleEndian.Uint32(got[i:]))
						if math.Abs(float64(a-b)) > math.Abs(float64(a))/(1<<12)+1e-5 {
							t.Fatalf("sample %d: %v, source %v", i/4, b, a)
						}
					}
					f.stored = got
				}
				if !bytes.Equal(got, f.stored) {
					t.Fatalf("decoded bytes differ from the source (first at %d)", firstDiff(got, f.stored))
				}
				src := jxrCZI(t, f)
				m := src.Meta()
				want := storedPlanes(f.stored, f.pixel)
				if len(want) == 3 {
					checkMeta(t, m, "CYX", []int{3, f.h, f.w}, pixels[f.pixel].dtype)
				} else {
					checkMeta(t, m, "YX", []int{f.h, f.w}, pixels[f.pixel].dtype)
				}
				for c, p := range want {
					at := map[byte]int{}
					if len(want) == 3 {
						at['C'] = c
					}
					if !bytes.Equal(readPlane(t, src, 0, at), p) {
						t.Fatalf("plane %d read from the CZI file differs", c)
					}
				}
				// JxrDecApp's own decode: samples in the file's own order
				// (RGB for 24bppRGB and 48bppRGB, BGR for 24bppBGR).
				var ref []byte
				switch f.name {
				case "gray8", "gray16", "rgb24", "rgb48":
					ref = pnmPixels(t, jxrDecApp(t, f.jxr, ".pnm"), len(f.stored))
				case "bgr24":
					ref = bmpPixels(t, jxrDecApp(t, f.jxr, ".bmp"), f.w, f.h)
				case "float":
					ref = tiffPixels(t, jxrDecApp(t, f.jxr, ".tif"), len(f.stored))
				}
				if f.name == "rgb24" || f.name == "rgb48" {
					ref = storedFromRGB(ref, pixels[f.pixel].dtype.Size())
				}
				if !bytes.Equal(got, ref) {
					t.Fatalf("decoded bytes differ from JxrDecApp's (first at %d)", firstDiff(got, ref))
				}
			})
		}
	}
}

func storedFromRGB(b []byte, es int) []byte {
	out := bytes.Clone(b)
	for i := 0; i+3*es <= len(out); i += 3 * es {
		copy(out[i:i+es], b[i+2*es:i+3*es])
		copy(out[i+2*es:i+3*es], b[i:i+es])
	}
	return out
}

// bmpPixels returns the B, G, R rows (top-down) of a 24-bit BMP.
func bmpPixels(t *testing.T, b []byte, w, h int) []byte {
	t.Helper()
	le := binary.LittleEndian
	if len(b) < 54 || string(b[:2]) != "BM" || le.Uint16(b[28:]) != 24 || int(le.Uint32(b[18:])) != w || int32(le.Uint32(b[22:])) != int32(h) {
		t.Fatalf("not a %d x %d 24-bit BMP", w, h)
	}
	off, stride := int(le.Uint32(b[10:])), (3*w+3)&^3
	out := make([]byte, 0, 3*w*h)
	for y := 0; y < h; y++ {
		row := b[off+(h-1-y)*stride:]
		out = append(out, row[:3*w]...)
	}
	return out
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestJXRConcurrent: a time series of JPEG XR Gray16 subblocks read from
// many goroutines at once (each subblock by several), every plane exact.
func TestJXRConcurrent(t *testing.T) {
	needJxrTools(t)
	const w, h, nt = 67, 45, 12
	cw := &cziWriter{}
	planes := make([][]byte, nt)
	for ti := range planes {
		p := u16plane(w, h, ti+3)
		planes[ti] = p
		cw.blocks = append(cw.blocks, blockW{pixel: 1, comp: cJPGXR, dims: plane2D(0, 0, w, h, w, h, map[string]int{"T": ti}),
			data: jxrEncode(t, "g.pgm", pnm(w, h, 1, 2, p), 3)})
	}
	src := open(t, writeFile(t, "series.czi", cw.bytes()))
	checkMeta(t, src.Meta(), "TYX", []int{nt, h, w}, loader.Uint16)
	var wg sync.WaitGroup
	errs := make(chan error, 4*nt)
	for k := 0; k < 4; k++ {
		for ti := 0; ti < nt; ti++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				buf, _, _, err := loader.ReadPlane(context.Background(), src, 0, loader.Plane{Orientation: loader.XY, At: map[byte]int{'T': ti}})
				if err == nil && !bytes.Equal(buf, planes[ti]) {
					err = fmt.Errorf("time %d differs", ti)
				}
				if err != nil {
					errs <- err
				}
			}()
		}
	}
	// And the decoder alone, bypassing the tile cache.
	for ti := 0; ti < nt; ti++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := decodeJXR(cw.blocks[ti].data, 1, w, h)
			if err == nil && !bytes.Equal(got, planes[ti]) {
				err = fmt.Errorf("decodeJXR of time %d differs", ti)
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestJXRBadGivesOneClearError: broken JPEG XR files, and ones that do
// not match their subblock, give one line (a FormatError or an
// UnsupportedError) when the plane is read — never a crash in libjxr.
func TestJXRBadGivesOneClearError(t *testing.T) {
	needJxrTools(t)
	const w, h = 20, 12
	g16 := u16plane(w, h, 9)
	good := jxrEncode(t, "g.pgm", pnm(w, h, 1, 2, g16), 3)
	if _, err := decodeJXR(good, 1, w, h); err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	// entry returns the offset of the container's directory entry for tag.
	entry := func(b []byte, tag uint16) int {
		ifd := int(le.Uint32(b[4:]))
		for i := 0; i < int(le.Uint16(b[ifd:])); i++ {
			if le.Uint16(b[ifd+2+12*i:]) == tag {
				return ifd + 2 + 12*i
			}
		}
		t.Fatalf("no tag %#x", tag)
		return 0
	}
	edit := func(f func(b []byte)) []byte {
		b := bytes.Clone(good)
		f(b)
		return b
	}
	csAt := int(le.Uint32(good[entry(good, jxrTagImageOffset)+8:]))
	cases := []struct {
		name   string
		pixel  int32
		sw, sh int
		data   []byte
		want   string
	}{
		{"zeros", 1, w, h, make([]byte, 64), "no JPEG XR file header"},
		{"cut", 1, w, h, good[:len(good)/2], "truncated"},
		{"dir", 1, w, h, edit(func(b []byte) { le.PutUint32(b[4:], 1<<30) }), "a JPEG XR directory at 1073741824"},
		{"orientation", 1, w, h, edit(func(b []byte) { le.PutUint32(b[entry(b, jxrTagTransformation)+8:], 9) }), "JPEG XR orientation 9"},
		{"rotated", 1, w, h, edit(func(b []byte) { le.PutUint32(b[entry(b, jxrTagTransformation)+8:], 5) }), "rotated or flipped"},
		{"nocodestream", 1, w, h, edit(func(b []byte) { copy(b[csAt:], "XXXXXXX") }), "no JPEG XR codestream"},
		{"version", 1, w, h, edit(func(b []byte) { b[csAt+8] = 0xf0 }), "JPEG XR: reading the header"},
		{"size", 1, w - 1, h, good, "a JPEG XR picture of 20 x 12 for a subblock of 19 x 12"},
		{"type", 0, w, h, good, "a JPEG XR picture of 16bppGray pixels for a subblock of Gray8 pixels"},
		{"bgra", 9, w, h, good, "JPEG XR compression of Bgra32 pixels"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		cw := &cziWriter{blocks: []blockW{{pixel: c.pixel, comp: cJPGXR, dims: plane2D(0, 0, c.sw, c.sh, c.sw, c.sh, nil), data: c.data}}}
		path := filepath.Join(dir, c.name+".czi")
		if err := os.WriteFile(path, cw.bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		src, err := Open(context.Background(), path)
		if err == nil {
			_, err = loader.ReadAll(context.Background(), src, 0, 1<<24)
			src.Close()
		}
		t.Logf("%s: %v", c.name, err)
		loadertest.ClearError(t, c.name, err, c.want)
	}
}

// TestJXRCrashContained: corrupt entropy-coded data, on which libjxr can
// crash, costs the subblock only — decoding runs in a child process — and
// each failure is one line; a crash is reported as one.
func TestJXRCrashContained(t *testing.T) {
	needJxrTools(t)
	const w, h = 64, 48
	g16 := u16plane(w, h, 3)
	good := jxrEncode(t, "g.pgm", pnm(w, h, 1, 2, g16), 3)
	want, err := decodeJXR(good, 1, w, h)
	if err != nil {
		t.Fatal(err)
	}
	crashes := 0
	for at := 120; at < len(good); at++ {
		b := bytes.Clone(good)
		b[at] ^= 0x5a
		_, err := decodeJXR(b, 1, w, h)
		if err == nil {
			continue
		}
		if strings.Contains(err.Error(), "\n") {
			t.Fatalf("byte %d: error of several lines: %q", at, err)
		}
		if strings.Contains(err.Error(), "JPEG XR decoder child process crashed") {
			crashes++
		}
	}
	t.Logf("%d of %d one-byte corruptions crashed libjxr", crashes, len(good)-120)
	if crashes == 0 {
		t.Fatal("no corruption crashed libjxr: containment not exercised")
	}
	if got, err := decodeJXR(good, 1, w, h); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("the good subblock after the crashes: %v", err)
	}
}

// addJXRSeed adds a small CZI of one JPEG XR subblock to FuzzOpen's seeds.
func addJXRSeed(f *testing.F) {
	if _, err := exec.LookPath("JxrEncApp"); err != nil {
		return
	}
	const w, h = 24, 16
	data := jxrEncode(f, "g.pgm", pnm(w, h, 1, 2, u16plane(w, h, 5)), 3)
	cw := &cziWriter{blocks: []blockW{{pixel: 1, comp: cJPGXR, dims: plane2D(0, 0, w, h, w, h, nil), data: data}}}
	f.Add(cw.bytes())
}
