package rawvol

import (
	"context"
	"fmt"
	"sync"

	"vastview/loader"
)

// unpacked is an array whose planes are stored in a packed or narrower
// form (4-bit samples, half floats) and presented unpacked.
type unpacked struct {
	d             Data
	stored, plane int64
	unpack        func(dst, src []byte)
	scratch       sync.Pool
}

// Unpacked presents the planes of d, each stored in storedPlane bytes, as
// planes of planeBytes that unpack(dst, src) makes from the stored ones
// (dst of planeBytes, src of storedPlane). Its samples are what unpack
// writes: give New bigEndian false. Reads are whole planes.
func Unpacked(d Data, storedPlane, planeBytes int64, unpack func(dst, src []byte)) Data {
	return &unpacked{d: d, stored: storedPlane, plane: planeBytes, unpack: unpack}
}

func (d *unpacked) Size() int64 {
	if d.stored < 1 {
		return 0
	}
	return d.d.Size() / d.stored * d.plane
}

func (d *unpacked) Read(ctx context.Context, off, n int64, buf []byte) ([]byte, error) {
	if n != d.plane || off < 0 || off%d.plane != 0 || int64(len(buf)) < n {
		return nil, fmt.Errorf("%d bytes at %d are not a plane", n, off)
	}
	bp, _ := d.scratch.Get().(*[]byte)
	if bp == nil {
		b := make([]byte, d.stored)
		bp = &b
	}
	defer d.scratch.Put(bp)
	src, err := d.d.Read(ctx, off/d.plane*d.stored, d.stored, *bp)
	if err != nil {
		return nil, err
	}
	d.unpack(buf[:n], src)
	return buf[:n], nil
}

func (d *unpacked) Close() error { return d.d.Close() }

func (d *unpacked) file() (*loader.File, string) {
	if f, ok := d.d.(fileData); ok {
		return f.file()
	}
	return nil, ""
}
