package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
)

// rangeCase is a GetRange call on a 1000-byte value and what it returns.
type rangeCase struct {
	off, n   int64
	from, to int    // want value[from:to]; from < 0: an ErrOutOfRange
	header   string // the Range header sent
}

var rangeCases = []rangeCase{
	{0, 100, 0, 100, "bytes=0-99"},        // prefix
	{300, 200, 300, 500, "bytes=300-499"}, // middle
	{999, 1, 999, 1000, "bytes=999-999"},  // last byte
	{0, 1000, 0, 1000, "bytes=0-999"},     // all of it
	{-100, 0, 900, 1000, "bytes=-100"},    // suffix
	{-1000, 7, 0, 1000, "bytes=-1000"},    // suffix of all of it; n ignored
	{900, 200, -1, 0, "bytes=900-1099"},   // runs past the end
	{1000, 10, -1, 0, "bytes=1000-1009"},  // starts at the end
	{5000, 10, -1, 0, "bytes=5000-5009"},  // starts beyond the end
	{-1001, 0, -1, 0, "bytes=-1001"},      // suffix longer than the value
	{-4000, 0, -1, 0, "bytes=-4000"},      // much longer
	{1 << 40, 1, -1, 0, "bytes=1099511627776-1099511627776"},
}

// checkRanges runs rangeCases against st, which holds value under key.
func checkRanges(t *testing.T, st Store, key string, value []byte) {
	t.Helper()
	for _, c := range rangeCases {
		got, err := st.GetRange(context.Background(), key, c.off, c.n)
		what := fmt.Sprintf("GetRange(%d, %d)", c.off, c.n)
		if c.from < 0 {
			if !errors.Is(err, ErrOutOfRange) {
				t.Errorf("%s = %d bytes, %v; want ErrOutOfRange", what, len(got), err)
			}
			continue
		}
		if err != nil || !bytes.Equal(got, value[c.from:c.to]) {
			t.Errorf("%s = %d bytes, %v; want bytes %d-%d", what, len(got), err, c.from, c.to-1)
		}
	}
	got, err := st.GetRange(context.Background(), key, 10, 0)
	if err != nil || got == nil || len(got) != 0 {
		t.Errorf("GetRange(10, 0) = %v, %v; want empty", got, err)
	}
	for _, c := range [][2]int64{{0, -1}, {-1 << 63, 0}, {1 << 62, 1 << 62}} {
		if _, err := st.GetRange(context.Background(), key, c[0], c[1]); err == nil {
			t.Errorf("GetRange(%d, %d) succeeded", c[0], c[1])
		}
	}
}

func TestHTTPGetRange(t *testing.T) {
	for _, f := range []fault{ok, ignoreRange, chunked} {
		t.Run(string(f), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newFaultServer(t)
				h := newStore(t, s, testOptions())
				value := s.put("s0/c/0/0", 1000)
				s.always = f
				checkRanges(t, h, "s0/c/0/0", value)
				if f != ok {
					return
				}
				for i, c := range rangeCases {
					if s.ranges[i] != c.header {
						t.Errorf("GetRange(%d, %d) sent Range %q, want %q", c.off, c.n, s.ranges[i], c.header)
					}
				}
				if st := h.Stats(); st.Retries != 0 {
					t.Errorf("out-of-range reads were retried: %+v", st)
				}
				if _, err := h.GetRange(context.Background(), "nope", 0, 10); !errors.Is(err, ErrNotFound) {
					t.Errorf("range of a missing key: %v", err)
				}
			})
		})
	}
}

func TestPlan(t *testing.T) {
	for _, c := range []struct {
		r                    byteRange
		start, length, tot   int64
		skip, take           int64
		outOfRange, protocol bool
	}{
		{r: byteRange{all: true}, start: 0, length: 10, tot: 10, take: 10},
		{r: byteRange{all: true}, start: 2, length: 8, tot: 10, protocol: true},
		{r: byteRange{off: 3, n: 4}, start: 3, length: 4, tot: 10, take: 4},
		{r: byteRange{off: 3, n: 4}, start: 0, length: 10, tot: 10, skip: 3, take: 4},
		{r: byteRange{off: 3, n: 4}, start: 3, length: 10, tot: -1, take: 4}, // more than asked: keep the front
		{r: byteRange{off: 3, n: 4}, start: 4, length: 3, tot: 10, protocol: true},
		{r: byteRange{off: 3, n: 4}, start: 3, length: 2, tot: 5, outOfRange: true},
		{r: byteRange{off: 3, n: 4}, start: 3, length: 2, tot: 10, protocol: true},
		{r: byteRange{off: 3, n: 4}, start: 3, length: 2, tot: -1, protocol: true},
		{r: byteRange{suffix: true, n: 4}, start: 6, length: 4, tot: 10, take: 4},
		{r: byteRange{suffix: true, n: 4}, start: 6, length: 4, tot: -1, take: 4},
		{r: byteRange{suffix: true, n: 4}, start: 0, length: 10, tot: 10, skip: 6, take: 4},
		{r: byteRange{suffix: true, n: 4}, start: 0, length: 3, tot: 3, outOfRange: true},
		{r: byteRange{suffix: true, n: 4}, start: 7, length: 3, tot: 10, protocol: true},
		{r: byteRange{suffix: true, n: 4}, start: 5, length: 4, tot: 10, protocol: true},
	} {
		sp, err := c.r.plan(c.start, c.length, c.tot)
		switch {
		case c.outOfRange || c.protocol:
			if c.outOfRange != errors.Is(err, ErrOutOfRange) || c.protocol != errors.Is(err, errProtocol) {
				t.Errorf("%s of body %d+%d/%d: %v", c.r, c.start, c.length, c.tot, err)
			}
		case err != nil || sp != (span{c.skip, c.take}):
			t.Errorf("%s of body %d+%d/%d: %+v, %v; want skip %d take %d", c.r, c.start, c.length, c.tot, sp, err, c.skip, c.take)
		}
	}
}

func TestParseContentRange(t *testing.T) {
	for _, c := range []struct {
		s                  string
		first, last, total int64
	}{
		{"bytes 0-99/1000", 0, 99, 1000},
		{"bytes 900-999/*", 900, 999, -1},
		{"bytes 5-5/6", 5, 5, 6},
	} {
		f, l, tot, err := parseContentRange(c.s)
		if err != nil || f != c.first || l != c.last || tot != c.total {
			t.Errorf("%q: %d %d %d %v", c.s, f, l, tot, err)
		}
	}
	for _, s := range []string{"", "bytes", "bytes */1000", "bytes 10-5/100", "bytes 0-99/99", "bytes -1-5/10",
		"bytes 0-+5/10", "items 0-9/10", "bytes 0-9", "bytes 0-99999999999999999999/*", "bytes 0x1-2/3"} {
		if _, _, _, err := parseContentRange(s); !errors.Is(err, errProtocol) {
			t.Errorf("%q accepted", s)
		}
	}
}
