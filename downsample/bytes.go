package downsample

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"
)

// hostLE reports whether this machine stores integers little-endian, so
// that little-endian sample bytes can be used in place as typed samples.
var hostLE = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

func meanBytes[T Number](dst, src []byte, shape []int, reduce []bool) error {
	d, s, ok, err := views[T](dst, src)
	if err != nil {
		return err
	}
	if ok {
		return MeanOf(d, s, shape, reduce)
	}
	d, s = decode[T](dst, src)
	if err := MeanOf(d, s, shape, reduce); err != nil {
		return err
	}
	encode(dst, d)
	return nil
}

func modeBytes[T Label](dst, src []byte, shape []int, reduce []bool) error {
	d, s, ok, err := views[T](dst, src)
	if err != nil {
		return err
	}
	if ok {
		return ModeOf(d, s, shape, reduce)
	}
	d, s = decode[T](dst, src)
	if err := ModeOf(d, s, shape, reduce); err != nil {
		return err
	}
	encode(dst, d)
	return nil
}

// views returns dst and src as typed samples sharing their memory; ok is
// false if that is not possible (misaligned memory or a big-endian machine).
func views[T Number](dst, src []byte) (d, s []T, ok bool, err error) {
	var zero T
	size := int(unsafe.Sizeof(zero))
	if len(dst)%size != 0 || len(src)%size != 0 {
		return nil, nil, false, fmt.Errorf("%w: buffers of %d and %d bytes do not hold whole %d-byte samples",
			ErrShape, len(dst), len(src), size)
	}
	if !hostLE || !aligned[T](dst) || !aligned[T](src) {
		return nil, nil, false, nil
	}
	return asSamples[T](dst), asSamples[T](src), true, nil
}

func aligned[T Number](b []byte) bool {
	var zero T
	return uintptr(unsafe.Pointer(unsafe.SliceData(b)))%unsafe.Alignof(zero) == 0
}

// asSamples views b, aligned and of a whole number of samples, as samples.
func asSamples[T Number](b []byte) []T {
	var zero T
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/int(unsafe.Sizeof(zero)))
}

// asBytes views samples as their bytes in native order.
func asBytes[T Number](s []T) []byte {
	var zero T
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(zero)))
}

// decode copies little-endian bytes into new typed slices (the slow path).
func decode[T Number](dst, src []byte) ([]T, []T) {
	var zero T
	size := int(unsafe.Sizeof(zero))
	d := make([]T, len(dst)/size)
	s := make([]T, len(src)/size)
	for i := range s {
		s[i] = load[T](src[i*size:])
	}
	return d, s
}

// encode writes samples as little-endian bytes.
func encode[T Number](dst []byte, s []T) {
	var zero T
	size := int(unsafe.Sizeof(zero))
	for i, v := range s {
		store(dst[i*size:], v)
	}
}

func load[T Number](b []byte) T {
	var v T
	switch p := any(&v).(type) {
	case *uint8:
		*p = b[0]
	case *int8:
		*p = int8(b[0])
	case *uint16:
		*p = binary.LittleEndian.Uint16(b)
	case *int16:
		*p = int16(binary.LittleEndian.Uint16(b))
	case *uint32:
		*p = binary.LittleEndian.Uint32(b)
	case *int32:
		*p = int32(binary.LittleEndian.Uint32(b))
	case *uint64:
		*p = binary.LittleEndian.Uint64(b)
	case *int64:
		*p = int64(binary.LittleEndian.Uint64(b))
	case *float32:
		*p = math.Float32frombits(binary.LittleEndian.Uint32(b))
	case *float64:
		*p = math.Float64frombits(binary.LittleEndian.Uint64(b))
	}
	return v
}

func store[T Number](b []byte, v T) {
	switch x := any(v).(type) {
	case uint8:
		b[0] = x
	case int8:
		b[0] = byte(x)
	case uint16:
		binary.LittleEndian.PutUint16(b, x)
	case int16:
		binary.LittleEndian.PutUint16(b, uint16(x))
	case uint32:
		binary.LittleEndian.PutUint32(b, x)
	case int32:
		binary.LittleEndian.PutUint32(b, uint32(x))
	case uint64:
		binary.LittleEndian.PutUint64(b, x)
	case int64:
		binary.LittleEndian.PutUint64(b, uint64(x))
	case float32:
		binary.LittleEndian.PutUint32(b, math.Float32bits(x))
	case float64:
		binary.LittleEndian.PutUint64(b, math.Float64bits(x))
	}
}
