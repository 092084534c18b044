package codec

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// encodePy encodes arrays with numcodecs: sys.argv[1] is a JSON list of
// [expression over ARRAYS and np (see arraysPy), codec config] pairs (a
// null config stands for the array's own bytes); each encoding goes to
// stdout as a 4-byte little-endian length and the bytes.
const encodePy = arraysPy + `
import json, struct, sys
import numcodecs
numcodecs.blosc.use_threads = False
for expr, config in json.loads(sys.argv[1]):
    arr = np.ascontiguousarray(eval(expr))
    b = arr.tobytes() if config is None else bytes(numcodecs.get_codec(config).encode(arr))
    sys.stdout.buffer.write(struct.pack("<I", len(b)) + b)
`

// encoding is one array expression and the numcodecs config to encode it.
type encoding struct {
	expr   string
	config string
}

// numcodecsEncode returns numcodecs' encoding of each array, in one run of
// Python.
func numcodecsEncode(t *testing.T, encs ...encoding) [][]byte {
	t.Helper()
	testtool.RequirePython(t, "numcodecs", "numpy")
	var args []any
	for _, e := range encs {
		args = append(args, []any{e.expr, json.RawMessage(e.config)})
	}
	js, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	out := testtool.RunPython(t, encodePy, string(js))
	var res [][]byte
	for len(out) >= 4 {
		n := int(binary.LittleEndian.Uint32(out))
		res = append(res, out[4:4+n])
		out = out[4+n:]
	}
	if len(res) != len(encs) {
		t.Fatalf("python wrote %d encodings, want %d", len(res), len(encs))
	}
	return res
}

// bloscBuf builds a Blosc buffer by hand: the header, the block offsets and
// the blocks, each block given as its streams (csize prefixes are added).
func bloscBuf(flags, typesize byte, nbytes, blocksize int, blocks ...[][]byte) []byte {
	b := make([]byte, bloscHeaderSize+4*len(blocks))
	b[0], b[1], b[2], b[3] = bloscVersion, 1, flags, typesize
	binary.LittleEndian.PutUint32(b[4:], uint32(nbytes))
	binary.LittleEndian.PutUint32(b[8:], uint32(blocksize))
	for j, streams := range blocks {
		binary.LittleEndian.PutUint32(b[bloscHeaderSize+4*j:], uint32(len(b)))
		for _, s := range streams {
			b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
			b = append(b, s...)
		}
	}
	binary.LittleEndian.PutUint32(b[12:], uint32(len(b)))
	return b
}

// wantErr checks that err is a one-line *loader.FormatError or
// *loader.UnsupportedError whose message contains want.
func wantErr(t *testing.T, what string, err error, want string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want one containing %q", what, want)
		return
	}
	var fe *loader.FormatError
	var ue *loader.UnsupportedError
	if !errors.As(err, &fe) && !errors.As(err, &ue) {
		t.Errorf("%s: error %T %q is neither a FormatError nor an UnsupportedError", what, err, err)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, want) {
		t.Errorf("%s: error %q, want one line containing %q", what, msg, want)
	}
}
