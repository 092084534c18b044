package video

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"
)

// longGOP makes an H.264 fixture whose frames late in the GOP take a while
// to reach: 320x240, one keyframe every 250 frames, B-frames.
func longGOP(t *testing.T) *Source {
	t.Helper()
	useCache(t)
	p := ffmpegMake(t, t.TempDir(), "gop.mp4", append(pattern("320x240", 30),
		"-frames:v", "300", "-c:v", "libx264", "-preset", "veryfast", "-g", "250", "-bf", "3")...)
	return openVideo(t, p)
}

// TestWalks checks that a forward walk runs one ffmpeg, that two
// interleaved forward walks keep one each, and that a backward walk does
// not start one per frame; every frame equal to ffmpeg's.
func TestWalks(t *testing.T) {
	s := longGOP(t)
	ref := reference(t, s)
	n := len(ref)
	check := func(f int) {
		t.Helper()
		if !bytes.Equal(readFrame(t, s, f), ref[f]) {
			t.Fatalf("frame %d differs from ffmpeg's", f)
		}
	}
	starts := decoderStarts.Load()
	for f := range n {
		check(f)
	}
	if got := decoderStarts.Load() - starts; got != 1 {
		t.Fatalf("forward walk started ffmpeg %d times", got)
	}

	starts = decoderStarts.Load()
	for i := range n / 2 {
		check(i)
		check(n/2 + i)
	}
	if got := decoderStarts.Load() - starts; got != 2 {
		t.Fatalf("two interleaved forward walks started ffmpeg %d times", got)
	}

	starts = decoderStarts.Load()
	for f := n - 1; f >= 0; f-- {
		check(f)
	}
	perStart := s.back.budget / s.frameBytes
	if got, limit := decoderStarts.Load()-starts, int64(n/perStart+2); got > limit {
		t.Fatalf("backward walk of %d frames started ffmpeg %d times (keeping %d frames per start)", n, got, perStart)
	}
}

// TestConcurrentReads reads random frames from several goroutines at
// once; then Close leaves no process and no goroutine behind.
func TestConcurrentReads(t *testing.T) {
	before := runtime.NumGoroutine()
	s := longGOP(t)
	ref := reference(t, s)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 7))
			dst := make([]byte, s.frameBytes)
			f := r.IntN(len(ref))
			for range 12 {
				if r.IntN(3) == 0 {
					f = r.IntN(len(ref))
				} else {
					f = min(f+1+r.IntN(3), len(ref)-1)
				}
				if err := s.ReadChunk(context.Background(), 0, []int{f, 0, 0, 0}, dst); err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(dst, ref[f]) {
					errs <- errors.New("a frame differs from ffmpeg's")
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(children(t)) == 0 {
		t.Fatal("no ffmpeg kept running between reads")
	}
	s.Close()
	if kids := children(t); len(kids) != 0 {
		t.Fatalf("processes left after Close: %v", kids)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines after Close, %d before Open", n, before)
	}
}

// TestCancel cancels a read that has to decode most of a GOP: it returns
// promptly with the context's error, kills its ffmpeg, and the source
// still reads correctly afterwards.
func TestCancel(t *testing.T) {
	s := longGOP(t)
	dst := make([]byte, s.frameBytes)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.ReadChunk(ctx, 0, []int{10, 0, 0, 0}, dst); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: %v", err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ReadChunk(ctx, 0, []int{240, 0, 0, 0}, dst) }()
	time.Sleep(30 * time.Millisecond)
	cancel()
	cancelled := time.Now()
	select {
	case err := <-done:
		if err == nil {
			t.Skip("the read finished before it was cancelled")
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled read: %v", err)
		}
		if d := time.Since(cancelled); d > 500*time.Millisecond {
			t.Fatalf("cancelled read returned after %v", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancelled read did not return")
	}
	if kids := children(t); len(kids) != 0 {
		t.Fatalf("the cancelled read left %v", kids)
	}
	ref := reference(t, s)
	if !bytes.Equal(readFrame(t, s, 240), ref[240]) {
		t.Fatal("frame 240 after a cancelled read differs from ffmpeg's")
	}
}

// TestPrefetch reads the frames ahead concurrently, five at a time, the
// farthest asked first, as a prefetching viewer does: they take turns on
// the running ffmpeg rather than start one each.
func TestPrefetch(t *testing.T) {
	s := longGOP(t)
	ref := reference(t, s)
	readFrame(t, s, 0)
	starts := decoderStarts.Load()
	rounds := 0
	for base := 1; base+5 <= len(ref); base += 5 {
		rounds++
		var wg sync.WaitGroup
		errs := make(chan error, 5)
		for f := base + 4; f >= base; f-- {
			wg.Add(1)
			go func() {
				defer wg.Done()
				dst := make([]byte, s.frameBytes)
				if err := s.ReadChunk(context.Background(), 0, []int{f, 0, 0, 0}, dst); err != nil {
					errs <- err
				} else if !bytes.Equal(dst, ref[f]) {
					errs <- fmt.Errorf("frame %d differs from ffmpeg's", f)
				}
			}()
			time.Sleep(time.Millisecond)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}
	got := decoderStarts.Load() - starts
	t.Logf("%d rounds of 5 concurrent reads started ffmpeg %d times", rounds, got)
	if got > int64(rounds/10) {
		t.Fatalf("%d rounds of 5 concurrent reads started ffmpeg %d times", rounds, got)
	}
}
