//go:build !nojxr && cgo

package czi

import (
	"context"
	"encoding/binary"
	"fmt"

	"vastview/base/subproc"
)

// jxrChild names the child process handler that decodes JPEG XR.
const jxrChild = "JPEG XR decoder"

func init() { subproc.Register(jxrChild, jxrServe) }

// decodeJXR decodes the JPEG XR file data into exactly the stored pixels
// of a w x h subblock of CZI pixel type pt: little-endian samples, rows
// packed, Bgr order for colour. The container is checked here; libjxr
// decodes in a child process, so that a codestream that crashes it fails
// this subblock only. It is safe for concurrent use.
func decodeJXR(data []byte, pt int32, w, h int) ([]byte, error) {
	if _, _, err := jxrCheck(data, pt); err != nil {
		return nil, err
	}
	req := make([]byte, 12, 12+len(data))
	binary.LittleEndian.PutUint32(req, uint32(pt))
	binary.LittleEndian.PutUint32(req[4:], uint32(w))
	binary.LittleEndian.PutUint32(req[8:], uint32(h))
	out, err := subproc.Call(context.Background(), jxrChild, append(req, data...))
	if err != nil {
		return nil, err
	}
	if want := w * h * pixels[pt].bytes(); len(out) != want {
		return nil, fmt.Errorf("JPEG XR subblock decoded to %d bytes, not %d", len(out), want)
	}
	return out, nil
}

// jxrServe is decodeJXR's request served in the child.
func jxrServe(req []byte) ([]byte, error) {
	if len(req) < 12 {
		return nil, fmt.Errorf("request of %d bytes", len(req))
	}
	le := binary.LittleEndian
	pt, w, h := int32(le.Uint32(req)), int(le.Uint32(req[4:])), int(le.Uint32(req[8:]))
	if w <= 0 || h <= 0 || int64(w)*int64(h) > maxTileBytes {
		return nil, fmt.Errorf("a subblock of %d x %d", w, h)
	}
	return decodeJXRHere(req[12:], pt, w, h)
}
