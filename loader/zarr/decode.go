package zarr

import (
	"vastview/loader"
	"vastview/loader/zarr/codec"
)

// decode turns the stored unit src into dst: codecs undone, samples made
// little-endian C order, samples beyond the array's edge (ext per axis)
// zeroed. Errors do not name the key.
func (s *Source) decode(a *array, src []byte, ext []int, dst []byte) error {
	want := len(dst)
	es := a.typ.dt.Size()
	out, bufs, err := s.undoCodecs(a.pipe.codecs, src, dst, a.pipe.perm == nil)
	defer s.putBufs(bufs)
	if err != nil {
		return err
	}
	if len(out) != want {
		return formatError("decodes to %d bytes, expected %d", len(out), want)
	}
	switch {
	case a.pipe.perm != nil:
		transpose(dst, out, a.chunk, a.pipe.perm, es)
	case !sameStorage(out, dst):
		copy(dst, out)
	}
	if a.pipe.big {
		loader.SwapBytes(dst, es)
	}
	if a.typ.bool {
		for i, v := range dst {
			if v > 1 {
				dst[i] = 1
			}
		}
	}
	zeroBeyond(dst, a.chunk, ext, es)
	return nil
}

// scratch is a pooled decoding buffer.
type scratch = *[]byte

// undoCodecs runs the bytes-to-bytes codecs backwards over src. The last
// stage writes into dst when direct is set; other stages use two pooled
// buffers in turn, returned in bufs for the caller to give back once the
// result has been used.
func (s *Source) undoCodecs(cs []codec.Codec, src, dst []byte, direct bool) ([]byte, [2]scratch, error) {
	var bufs [2]scratch
	data, holder := src, -1 // holder: the buffer data lies in, -1 for none
	for i := len(cs) - 1; i >= 0; i-- {
		limit := len(dst)
		if i > 0 {
			limit = max(len(data), len(dst)+len(dst)/8+4096)
		}
		if i == 0 && direct {
			out, err := cs[i].Decode(dst, data, limit)
			if err != nil {
				return nil, bufs, err
			}
			return out, bufs, nil
		}
		k := 0
		if holder == 0 {
			k = 1
		}
		if bufs[k] == nil {
			bufs[k] = s.getBuf()
		}
		out, err := cs[i].Decode(*bufs[k], data, limit)
		if err != nil {
			return nil, bufs, err
		}
		switch {
		case sameStorage(out, *bufs[k]):
			holder = k
		case holder >= 0 && sameStorage(out, *bufs[holder]):
		case sameStorage(out, src):
			holder = -1
		default: // the codec allocated: keep its buffer for next time
			*bufs[k], holder = out, k
		}
		data = out
	}
	return data, bufs, nil
}

// getBuf returns a pooled buffer (possibly empty).
func (s *Source) getBuf() scratch {
	if b, ok := s.bufs.Get().(scratch); ok {
		return b
	}
	return new([]byte)
}

// putBufs gives pooled buffers back.
func (s *Source) putBufs(bufs [2]scratch) {
	for _, b := range bufs {
		if b != nil {
			s.bufs.Put(b)
		}
	}
}

// sameStorage reports whether a and b share the end of their storage,
// as a slice and any reslicing of it do.
func sameStorage(a, b []byte) bool {
	return cap(a) > 0 && cap(b) > 0 && &a[:cap(a)][cap(a)-1] == &b[:cap(b)][cap(b)-1]
}
