package loader

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
)

// DType is a sample type.
type DType uint8

// The sample types, named as in NumPy.
const (
	Invalid DType = iota
	Uint8
	Int8
	Uint16
	Int16
	Uint32
	Int32
	Uint64
	Int64
	Float32
	Float64
)

var dtypeNames = [...]string{"invalid", "uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64", "float32", "float64"}
var dtypeSizes = [...]int{0, 1, 1, 2, 2, 4, 4, 8, 8, 4, 8}

// Size is the number of bytes of one sample (0 for Invalid).
func (d DType) Size() int {
	if int(d) < len(dtypeSizes) {
		return dtypeSizes[d]
	}
	return 0
}

func (d DType) String() string {
	if int(d) < len(dtypeNames) {
		return dtypeNames[d]
	}
	return fmt.Sprintf("DType(%d)", d)
}

// Signed reports whether d is a signed integer type.
func (d DType) Signed() bool { return d == Int8 || d == Int16 || d == Int32 || d == Int64 }

// Float reports whether d is a floating-point type.
func (d DType) Float() bool { return d == Float32 || d == Float64 }

// ParseDType returns the DType named s ("uint16", ...).
func ParseDType(s string) (DType, error) {
	for i, n := range dtypeNames[1:] {
		if n == s {
			return DType(i + 1), nil
		}
	}
	return Invalid, fmt.Errorf("unknown sample type %q", s)
}

// IntDType returns the integer type of the given bit width and signedness,
// or Invalid.
func IntDType(bits int, signed bool) DType {
	switch {
	case bits == 8 && !signed:
		return Uint8
	case bits == 8:
		return Int8
	case bits == 16 && !signed:
		return Uint16
	case bits == 16:
		return Int16
	case bits == 32 && !signed:
		return Uint32
	case bits == 32:
		return Int32
	case bits == 64 && !signed:
		return Uint64
	case bits == 64:
		return Int64
	}
	return Invalid
}

// SwapBytes reverses the byte order of every es-byte sample of b in place
// (big-endian samples to little-endian and back); es of 1 leaves b as it is.
func SwapBytes(b []byte, es int) {
	switch es {
	case 2:
		for i := 0; i+1 < len(b); i += 2 {
			b[i], b[i+1] = b[i+1], b[i]
		}
	case 4:
		for i := 0; i+3 < len(b); i += 4 {
			binary.LittleEndian.PutUint32(b[i:], binary.BigEndian.Uint32(b[i:]))
		}
	case 8:
		for i := 0; i+7 < len(b); i += 8 {
			binary.LittleEndian.PutUint64(b[i:], binary.BigEndian.Uint64(b[i:]))
		}
	}
}

// Limits returns the smallest and largest values of an integer type (for
// float types, ±the largest finite float64).
func (d DType) Limits() (lo, hi float64) {
	switch d {
	case Uint8:
		return 0, math.MaxUint8
	case Int8:
		return math.MinInt8, math.MaxInt8
	case Uint16:
		return 0, math.MaxUint16
	case Int16:
		return math.MinInt16, math.MaxInt16
	case Uint32:
		return 0, math.MaxUint32
	case Int32:
		return math.MinInt32, math.MaxInt32
	case Uint64:
		return 0, math.MaxUint64
	case Int64:
		return math.MinInt64, math.MaxInt64
	}
	return -math.MaxFloat64, math.MaxFloat64
}

// At reads sample i of type d from buf (little-endian) as a float64,
// exactly for every type but 64-bit integers beyond ±2^53, which round to
// the nearest float64 (Bits and Text are exact for them).
func (d DType) At(buf []byte, i int) float64 {
	le := binary.LittleEndian
	switch d {
	case Uint8:
		return float64(buf[i])
	case Int8:
		return float64(int8(buf[i]))
	case Uint16:
		return float64(le.Uint16(buf[2*i:]))
	case Int16:
		return float64(int16(le.Uint16(buf[2*i:])))
	case Uint32:
		return float64(le.Uint32(buf[4*i:]))
	case Int32:
		return float64(int32(le.Uint32(buf[4*i:])))
	case Uint64:
		return float64(le.Uint64(buf[8*i:]))
	case Int64:
		return float64(int64(le.Uint64(buf[8*i:])))
	case Float32:
		return float64(math.Float32frombits(le.Uint32(buf[4*i:])))
	case Float64:
		return math.Float64frombits(le.Uint64(buf[8*i:]))
	}
	return 0
}

// Put writes v as sample i of type d into buf (little-endian); v must be
// a value of the type (as At returns).
func (d DType) Put(buf []byte, i int, v float64) {
	le := binary.LittleEndian
	switch d {
	case Uint8, Int8:
		buf[i] = byte(int64(v))
	case Uint16, Int16:
		le.PutUint16(buf[2*i:], uint16(int64(v)))
	case Uint32, Int32:
		le.PutUint32(buf[4*i:], uint32(int64(v)))
	case Uint64:
		le.PutUint64(buf[8*i:], uint64(v))
	case Int64:
		le.PutUint64(buf[8*i:], uint64(int64(v)))
	case Float32:
		le.PutUint32(buf[4*i:], math.Float32bits(float32(v)))
	case Float64:
		le.PutUint64(buf[8*i:], math.Float64bits(v))
	}
}

// Is64BitInt reports whether d is a 64-bit integer type, whose values a
// float64 does not hold exactly beyond ±2^53.
func (d DType) Is64BitInt() bool { return d == Uint64 || d == Int64 }

// Bits reads sample i of integer type d from buf (little-endian) as its
// value in two's complement over 64 bits: sign-extended for signed types,
// zero-extended for unsigned ones, so that int64(Bits) is the value of a
// signed sample and Bits that of an unsigned one, exactly. Float samples
// give their value converted to int64.
func (d DType) Bits(buf []byte, i int) uint64 {
	le := binary.LittleEndian
	switch d {
	case Uint8:
		return uint64(buf[i])
	case Int8:
		return uint64(int64(int8(buf[i])))
	case Uint16:
		return uint64(le.Uint16(buf[2*i:]))
	case Int16:
		return uint64(int64(int16(le.Uint16(buf[2*i:]))))
	case Uint32:
		return uint64(le.Uint32(buf[4*i:]))
	case Int32:
		return uint64(int64(int32(le.Uint32(buf[4*i:]))))
	case Uint64, Int64:
		return le.Uint64(buf[8*i:])
	}
	return uint64(int64(d.At(buf, i)))
}

// Text is sample i of type d from buf (little-endian) in decimal: every
// digit of an integer, floats in 6 significant digits (%.6g).
func (d DType) Text(buf []byte, i int) string {
	switch {
	case d.Float():
		return strconv.FormatFloat(d.At(buf, i), 'g', 6, 64)
	case d.Signed():
		return strconv.FormatInt(int64(d.Bits(buf, i)), 10)
	}
	return strconv.FormatUint(d.Bits(buf, i), 10)
}
