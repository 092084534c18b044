package stream

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"math/rand"
	"sync"
	"testing"
	"time"

	"vastview/loader"
)

// gzipped returns n pseudo-random, partly compressible bytes and their
// gzip encoding by the standard library.
func gzipped(t *testing.T, n int) (plain, packed []byte) {
	t.Helper()
	rng := rand.New(rand.NewSource(1))
	plain = make([]byte, n)
	for i := range plain {
		plain[i] = byte(rng.Intn(16))
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(plain)
	zw.Close()
	return plain, buf.Bytes()
}

func newGzipBuffer(t *testing.T, packed []byte, cfg Config) *Buffer {
	t.Helper()
	r, err := Gzip.NewReader(bytes.NewReader(packed))
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(r, nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// TestRandomReads reads ranges in random order from many goroutines, from
// memory and from the temporary file, and compares them with the input.
func TestRandomReads(t *testing.T) {
	plain, packed := gzipped(t, 5<<20+12345)
	const skip = 1000
	for _, limit := range []int64{0, 1 << 20} {
		b := newGzipBuffer(t, packed, Config{Skip: skip, Size: int64(len(plain)) - skip, MemoryLimit: limit, TempDir: t.TempDir()})
		var wg sync.WaitGroup
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func(seed int64) {
				defer wg.Done()
				rng := rand.New(rand.NewSource(seed))
				for i := 0; i < 20; i++ {
					n := rng.Intn(3 << 20)
					off := rng.Int63n(b.Size() - int64(n))
					p := make([]byte, n)
					if err := b.ReadAt(context.Background(), p, off); err != nil {
						t.Error(err)
						return
					}
					if !bytes.Equal(p, plain[skip+off:skip+off+int64(n)]) {
						t.Errorf("limit %d: %d bytes at %d differ", limit, n, off)
						return
					}
				}
			}(int64(g))
		}
		wg.Wait()
		if err := b.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

func TestTruncatedStream(t *testing.T) {
	plain, packed := gzipped(t, 3<<20)
	b := newGzipBuffer(t, packed[:len(packed)/2], Config{Size: int64(len(plain))})
	p := make([]byte, 100)
	err := b.ReadAt(context.Background(), p, int64(len(plain))-100)
	if !errors.Is(err, loader.ErrTruncated) {
		t.Fatalf("read past a truncated stream: %v", err)
	}
	// Data before the break is still served.
	if err := b.ReadAt(context.Background(), p, 0); err != nil || !bytes.Equal(p, plain[:100]) {
		t.Fatalf("read before the break: %v", err)
	}
}

func TestShortStream(t *testing.T) {
	plain, packed := gzipped(t, 1000)
	b := newGzipBuffer(t, packed, Config{Skip: 10, Size: int64(len(plain))})
	if err := b.Wait(context.Background()); !errors.Is(err, loader.ErrTruncated) {
		t.Fatalf("a stream shorter than its size: %v", err)
	}
}

func TestCorruptStream(t *testing.T) {
	plain, packed := gzipped(t, 1<<20)
	bad := append([]byte(nil), packed...)
	for i := 100; i < 200; i++ {
		bad[i] ^= 0x5a
	}
	b := newGzipBuffer(t, bad, Config{Size: int64(len(plain))})
	if err := b.Wait(context.Background()); err == nil {
		t.Fatal("corrupt stream decoded without error")
	}
}

// TestWaitAndClose checks that a read waits for data, honours its context,
// and that Close ends a decoder blocked in its source.
func TestWaitAndClose(t *testing.T) {
	pr, pw := io.Pipe()
	b, err := New(pr, pr, Config{Size: 100})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		p := make([]byte, 10)
		err := b.ReadAt(context.Background(), p, 0)
		if err == nil && string(p) != "0123456789" {
			err = errors.New("wrong bytes " + string(p))
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("read returned before the data arrived: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	pw.Write([]byte("0123456789"))
	// Ten bytes are not a whole block: the read waits for a block or the end.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := b.ReadAt(ctx, make([]byte, 1), 99); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("read with an expired context: %v", err)
	}
	pw.Write(make([]byte, 90))
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	// A second buffer whose source never delivers: Close must not hang.
	pr2, _ := io.Pipe()
	b2, err := New(pr2, pr2, Config{Size: 100})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { b2.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close hangs on a blocked source")
	}
	if err := b2.ReadAt(context.Background(), make([]byte, 1), 0); err == nil {
		t.Fatal("read after Close succeeded")
	}
	b.Close()
}

func TestTextCodecs(t *testing.T) {
	cases := []struct {
		codec Codec
		in    string
		want  []byte
	}{
		{Text(loader.Int16), "1 -2\n300,\t-32768", []byte{1, 0, 0xfe, 0xff, 0x2c, 1, 0, 0x80}},
		{Text(loader.Uint8), " 0 255 ", []byte{0, 255}},
		{Text(loader.Float32), "1.5 -2", []byte{0, 0, 0xc0, 0x3f, 0, 0, 0, 0xc0}},
		{Hex, "0aFF 10\n7", nil}, // odd digit count: truncated
		{Hex, "0aFF 10\n7e", []byte{0x0a, 0xff, 0x10, 0x7e}},
	}
	for _, c := range cases {
		r, _ := c.codec.NewReader(bytes.NewReader([]byte(c.in)))
		got, err := io.ReadAll(r)
		if c.want == nil {
			if err == nil {
				t.Errorf("%s %q: no error", c.codec.Name, c.in)
			}
			continue
		}
		if err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("%s %q: %v %v, want %v", c.codec.Name, c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"1 2 x", "1 70000", "-1"} {
		r, _ := Text(loader.Uint16).NewReader(bytes.NewReader([]byte(bad)))
		if _, err := io.ReadAll(r); err == nil {
			t.Errorf("text %q decoded as uint16", bad)
		}
	}
}
