package video

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

// longGOP makes an H.264 fixture whose frames late in the GOP take a while
// to reach: 320x240, one keyframe every 250 frames, B-frames. Its clock
// stands still, so that the cost model keeps its default (read on from a
// decoder up to 48 frames before the keyframe) however loaded the
// machine is. opts are the source's other options.
func longGOP(t *testing.T, opts options) *Source {
	t.Helper()
	useCache(t)
	p := ffmpegMake(t, t.TempDir(), "gop.mp4", append(pattern("320x240", 30),
		"-frames:v", "300", "-c:v", "libx264", "-preset", "veryfast", "-g", "250", "-bf", "3")...)
	still := time.Now()
	opts.now = func() time.Time { return still }
	s, err := openWith(context.Background(), p, opts)
	if err != nil {
		t.Fatalf("open %s: %v", p, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestWalks checks that a forward walk runs one ffmpeg, that two
// interleaved forward walks keep one each, and that a backward walk does
// not start one per frame; every frame equal to ffmpeg's.
func TestWalks(t *testing.T) {
	s := longGOP(t, options{})
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
// once; then Close leaves no process behind, and no goroutine reading
// one's log.
func TestConcurrentReads(t *testing.T) {
	readers := logReaders.Load()
	s := longGOP(t, options{})
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
	if logReaders.Load() == readers {
		t.Fatal("no log read while ffmpeg runs")
	}
	s.Close()
	if kids := children(t); len(kids) != 0 {
		t.Fatalf("processes left after Close: %v", kids)
	}
	if n := logReaders.Load() - readers; n != 0 {
		t.Fatalf("%d logs still read after Close", n)
	}
}

// TestCancel cancels a read that reads on through most of a GOP while it
// is on its way (at frame 100, from 11 to 240): it returns with the
// context's error without reading on, kills its ffmpeg, and the source
// still reads correctly afterwards.
func TestCancel(t *testing.T) {
	var passing func(f int) // set while the read to be cancelled runs
	s := longGOP(t, options{passing: func(f int) {
		if passing != nil {
			passing(f)
		}
	}})
	dst := make([]byte, s.frameBytes)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.ReadChunk(ctx, 0, []int{10, 0, 0, 0}, dst); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: %v", err)
	}
	readFrame(t, s, 10) // leaves a decoder at frame 11 to read on from

	ctx, cancel = context.WithCancel(context.Background())
	reached, resume := make(chan struct{}), make(chan struct{})
	var after []int // frames passed after the cancellation
	passing = func(f int) {
		switch {
		case f == 100:
			close(reached)
			<-resume
		case f > 100:
			after = append(after, f)
		}
	}
	done := make(chan error, 1)
	go func() { done <- s.ReadChunk(ctx, 0, []int{240, 0, 0, 0}, dst) }()
	<-reached
	cancel()
	close(resume)
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled read: %v", err)
	}
	passing = nil
	if len(after) > 1 {
		t.Fatalf("the cancelled read went on through frames %v", after)
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
// farthest asked first (each asked once the one before has a decoder or
// waits for one), as a prefetching viewer does: they take turns on the
// running ffmpeg rather than start one each.
func TestPrefetch(t *testing.T) {
	var arrived chan int // set once the reads to follow start
	s := longGOP(t, options{arrived: func(f int) {
		if arrived != nil {
			arrived <- f
		}
	}})
	ref := reference(t, s)
	readFrame(t, s, 0)
	arrived = make(chan int, 1)
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
			if got := <-arrived; got != f {
				t.Fatalf("read of frame %d arrived for %d", f, got)
			}
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
