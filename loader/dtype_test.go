package loader

import (
	"encoding/binary"
	"math"
	"testing"
)

// 64-bit integer samples keep every digit: label ids beyond 2^53 that a
// float64 cannot tell apart read back exactly.
func TestDType64BitExact(t *testing.T) {
	for _, c := range []struct {
		name string
		dt   DType
		bits uint64
		text string
	}{
		{"uint64", Uint64, 1<<53 + 1, "9007199254740993"},
		{"uint64", Uint64, math.MaxUint64, "18446744073709551615"},
		{"int64", Int64, uint64(1<<63 - 1), "9223372036854775807"},
		{"int64", Int64, 1 << 63, "-9223372036854775808"},
		{"int64", Int64, ^uint64(0), "-1"},
	} {
		dt, err := ParseDType(c.name)
		if err != nil || dt != c.dt || dt.String() != c.name || dt.Size() != 8 || !dt.Is64BitInt() || dt.Float() {
			t.Fatalf("%s: parsed %v, %v (size %d)", c.name, dt, err, dt.Size())
		}
		buf := make([]byte, 16)
		binary.LittleEndian.PutUint64(buf[8:], c.bits)
		if got := dt.Bits(buf, 1); got != c.bits {
			t.Errorf("%s Bits = %#x, want %#x", c.name, got, c.bits)
		}
		if got := dt.Text(buf, 1); got != c.text {
			t.Errorf("%s Text = %s, want %s", c.name, got, c.text)
		}
	}
	if IntDType(64, false) != Uint64 || IntDType(64, true) != Int64 || !Int64.Signed() || Uint64.Signed() {
		t.Error("IntDType or Signed wrong for 64 bits")
	}
	if lo, hi := Int64.Limits(); lo != math.MinInt64 || hi != math.MaxInt64 {
		t.Errorf("int64 limits %g %g", lo, hi)
	}
	buf := make([]byte, 8)
	Int64.Put(buf, 0, -5)
	if Int64.At(buf, 0) != -5 || Int64.Text(buf, 0) != "-5" {
		t.Errorf("int64 Put/At: %s", Int64.Text(buf, 0))
	}
	Uint16.Put(buf, 0, 65535)
	if Uint16.Text(buf, 0) != "65535" || Float32.Text([]byte{0, 0, 0xc0, 0x3f}, 0) != "1.5" {
		t.Error("Text of narrow types")
	}
}
