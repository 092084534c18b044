package render

import (
	"encoding/binary"
	"math"
	"testing"

	"vastview/loader"
)

func TestPlaneWindowMapsLinearly(t *testing.T) {
	vals := []uint16{0, 100, 150, 200, 300, 65535}
	buf := make([]byte, 2*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint16(buf[2*i:], v)
	}
	cm, _ := ColormapNamed("gray")
	img := Plane(buf, loader.Uint16, 3, 2, 100, 200, cm)
	want := []uint8{0, 0, 128, 255, 255, 255}
	for i, w := range want {
		if got := img.Pix[4*i]; got != w || img.Pix[4*i+3] != 255 {
			t.Errorf("sample %d (%d): gray %d alpha %d, want %d", i, vals[i], got, img.Pix[4*i+3], w)
		}
	}
	inv, _ := ColormapNamed("gray-inverted")
	if got := Plane(buf, loader.Uint16, 3, 2, 100, 200, inv).Pix[0]; got != 255 {
		t.Errorf("inverted low value: %d, want 255", got)
	}
}

func TestColormapNamedUnknown(t *testing.T) {
	if _, err := ColormapNamed("rainbow"); err == nil {
		t.Error("no error for an unknown colormap")
	}
}

func TestPlaneSignedAndWideTypes(t *testing.T) {
	cm, _ := ColormapNamed("gray")
	i16 := []int16{-100, 0, 100, -32768}
	b16 := make([]byte, 8)
	for i, v := range i16 {
		binary.LittleEndian.PutUint16(b16[2*i:], uint16(v))
	}
	i8 := []byte{0x9c, 0, 100, 0x80} // -100, 0, 100, -128
	i32 := make([]byte, 16)
	for i, v := range []int32{-100, 0, 100, -1 << 31} {
		binary.LittleEndian.PutUint32(i32[4*i:], uint32(v))
	}
	want := []uint8{0, 128, 255, 0}
	for _, c := range []struct {
		dt  loader.DType
		buf []byte
	}{{loader.Int16, b16}, {loader.Int8, i8}, {loader.Int32, i32}} {
		img := Plane(c.buf, c.dt, 4, 1, -100, 100, cm)
		for i, w := range want {
			if got := img.Pix[4*i]; got != w {
				t.Errorf("%s sample %d: %d, want %d", c.dt, i, got, w)
			}
		}
	}
}

// TestPaintEverySample: 8-bit, 16-bit and float32 buffers of odd and even
// lengths are coloured sample by sample as the window and colormap say
// (the loops colour two samples at a time), the pixels after them left
// alone.
func TestPaintEverySample(t *testing.T) {
	cm, _ := ColormapNamed("viridis")
	for _, dt := range []loader.DType{loader.Uint8, loader.Int16, loader.Uint16, loader.Float32} {
		for _, n := range []int{0, 1, 2, 3, 7, 64, 65} {
			buf := make([]byte, n*dt.Size())
			for i := range n {
				v := uint64(i*37+5) % 300
				switch dt {
				case loader.Uint8:
					buf[i] = byte(v)
				case loader.Int16, loader.Uint16:
					binary.LittleEndian.PutUint16(buf[2*i:], uint16(v*211))
				case loader.Float32:
					binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(float32(v)*0.75-20))
				}
			}
			pix := make([]byte, 4*n+4)
			pix[4*n] = 7
			var p Painter
			p.Paint(pix, buf, dt, 10, 200, cm)
			for i := range n {
				c := cm.LUT[index(Sample(buf, dt, i), 10, 190)]
				if want := []byte{c[0], c[1], c[2], 255}; string(pix[4*i:4*i+4]) != string(want) {
					t.Fatalf("%v, %d samples: pixel %d = %v, want %v", dt, n, i, pix[4*i:4*i+4], want)
				}
			}
			if pix[4*n] != 7 {
				t.Fatalf("%v, %d samples: the pixel after them was painted", dt, n)
			}
		}
	}
}
