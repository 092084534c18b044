package render

import (
	"encoding/binary"
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
