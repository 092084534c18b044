package zarr

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"vastview/base/textutil"
	"vastview/loader"
)

// sampleType is an array's data type as stored.
type sampleType struct {
	dt   loader.DType
	big  bool // samples are big-endian (only meaningful for sizes > 1)
	bool bool // Zarr bool, presented as uint8 0/1
}

// dtypeV2 parses a Zarr v2 "dtype" (a NumPy type string such as "<u2").
func dtypeV2(raw json.RawMessage) (sampleType, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '[' {
			return sampleType{}, unsupported("structured dtype")
		}
		return sampleType{}, formatError("dtype %s is not a type string", textutil.Clip(string(raw)))
	}
	if len(s) < 3 {
		return sampleType{}, formatError("dtype %q is not a NumPy type string", textutil.Clip(s))
	}
	var st sampleType
	switch s[0] {
	case '<', '|', '=':
	case '>':
		st.big = true
	default:
		return sampleType{}, formatError("dtype %q has no byte order", textutil.Clip(s))
	}
	switch s[1:] {
	case "u1":
		st.dt = loader.Uint8
	case "i1":
		st.dt = loader.Int8
	case "b1":
		st.dt, st.bool = loader.Uint8, true
	case "u2":
		st.dt = loader.Uint16
	case "i2":
		st.dt = loader.Int16
	case "u4":
		st.dt = loader.Uint32
	case "i4":
		st.dt = loader.Int32
	case "u8":
		st.dt = loader.Uint64
	case "i8":
		st.dt = loader.Int64
	case "f4":
		st.dt = loader.Float32
	case "f8":
		st.dt = loader.Float64
	default:
		return sampleType{}, unsupported("dtype %q", textutil.Clip(s))
	}
	if st.dt.Size() == 1 {
		st.big = false
	}
	return st, nil
}

// dtypeV3 parses a Zarr v3 "data_type".
func dtypeV3(raw json.RawMessage) (sampleType, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		var ext struct{ Name string }
		if json.Unmarshal(raw, &ext) == nil && ext.Name != "" {
			return sampleType{}, unsupported("data type %q", textutil.Clip(ext.Name))
		}
		return sampleType{}, formatError("data_type %s is not a name", textutil.Clip(string(raw)))
	}
	if s == "bool" {
		return sampleType{dt: loader.Uint8, bool: true}, nil
	}
	dt, err := loader.ParseDType(s)
	if err != nil {
		return sampleType{}, unsupported("data type %q", textutil.Clip(s))
	}
	return sampleType{dt: dt}, nil
}

// fillValue parses a "fill_value" into one little-endian sample of st:
// null means 0; floats may also be "NaN", "Infinity", "-Infinity" or a
// "0x" hex string of their bits (Zarr v3).
func fillValue(raw json.RawMessage, st sampleType) ([]byte, error) {
	out := make([]byte, st.dt.Size())
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return out, nil
	}
	if st.bool {
		var b bool
		if err := json.Unmarshal(t, &b); err == nil {
			if b {
				out[0] = 1
			}
			return out, nil
		}
	}
	if t[0] == '"' {
		var s string
		if err := json.Unmarshal(t, &s); err != nil {
			return nil, formatError("fill_value %s is not valid", textutil.Clip(string(t)))
		}
		return fillString(s, st, out)
	}
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(t))
	dec.UseNumber()
	if err := dec.Decode(&n); err != nil {
		return nil, formatError("fill_value %s is not a number", textutil.Clip(string(t)))
	}
	return fillNumber(n, st, out)
}

// fillString handles the string forms of a floating-point fill value.
func fillString(s string, st sampleType, out []byte) ([]byte, error) {
	if !st.dt.Float() {
		return nil, formatError("fill_value %q is not an integer", textutil.Clip(s))
	}
	var f float64
	switch s {
	case "NaN":
		// The canonical quiet NaN, as NumPy writes it.
		if st.dt == loader.Float32 {
			binary.LittleEndian.PutUint32(out, 0x7fc00000)
		} else {
			binary.LittleEndian.PutUint64(out, 0x7ff8000000000000)
		}
		return out, nil
	case "Infinity":
		f = math.Inf(1)
	case "-Infinity":
		f = math.Inf(-1)
	default:
		h, ok := strings.CutPrefix(strings.ToLower(s), "0x")
		bits, err := strconv.ParseUint(h, 16, 64)
		if !ok || err != nil || len(h) != 2*st.dt.Size() {
			return nil, formatError("fill_value %q is not a %s", textutil.Clip(s), st.dt)
		}
		if st.dt == loader.Float32 {
			binary.LittleEndian.PutUint32(out, uint32(bits))
		} else {
			binary.LittleEndian.PutUint64(out, bits)
		}
		return out, nil
	}
	putFloat(out, st.dt, f)
	return out, nil
}

// fillNumber stores a JSON number as one sample of st; integers are
// parsed exactly (64-bit fill values beyond 2^53 included).
func fillNumber(n json.Number, st sampleType, out []byte) ([]byte, error) {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil && !st.dt.Float() {
		return nil, formatError("fill_value %s is not a number", textutil.Clip(string(n)))
	}
	if st.dt.Float() {
		putFloat(out, st.dt, f)
		return out, nil
	}
	lo, hi := intRange(st.dt)
	var v uint64
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil && float64(i) >= lo && float64(i) <= hi {
		v = uint64(i)
	} else if u, err := strconv.ParseUint(string(n), 10, 64); err == nil && !st.dt.Signed() && float64(u) <= hi {
		v = u
	} else if f == math.Trunc(f) && f >= lo && f < hi+1 { // 1.0, 1e3: below 2^53 where they are exact
		v = uint64(int64(f))
		if f >= 1<<63 {
			v = uint64(f)
		}
	} else {
		return nil, formatError("fill_value %s does not fit %s", textutil.Clip(string(n)), st.dt)
	}
	for i := range out {
		out[i] = byte(v >> (8 * i))
	}
	return out, nil
}

// putFloat stores f as a little-endian float of type dt.
func putFloat(out []byte, dt loader.DType, f float64) {
	if dt == loader.Float32 {
		binary.LittleEndian.PutUint32(out, math.Float32bits(float32(f)))
	} else {
		binary.LittleEndian.PutUint64(out, math.Float64bits(f))
	}
}

// intRange is the range of integer type dt.
func intRange(dt loader.DType) (lo, hi float64) {
	bits := 8 * dt.Size()
	if dt.Signed() {
		return -math.Ldexp(1, bits-1), math.Ldexp(1, bits-1) - 1
	}
	return 0, math.Ldexp(1, bits) - 1
}
