package sequence

import (
	"context"
	"sync"
	"sync/atomic"

	"vastview/loader"
)

// checkWorkers is how many frame headers Check reads at once.
const checkWorkers = 2

// Check reads every frame's header in order and returns the first frame
// that cannot be read or disagrees with the first frame, as a *FrameError
// (or ctx.Err()). It reads a few dozen bytes of each PNG or JPEG file; TIFF
// frames are opened with loader.Open. It is safe for concurrent use.
func (s *Source) Check(ctx context.Context) error {
	var (
		next   atomic.Int64 // next frame to check
		mu     sync.Mutex
		bad    = len(s.paths) // lowest failing frame so far; -1 when ctx ended
		badErr error
		wg     sync.WaitGroup
	)
	next.Store(1)
	fail := func(i int, err error) {
		mu.Lock()
		if i < bad {
			bad, badErr = i, err
		}
		mu.Unlock()
	}
	for w := 0; w < checkWorkers; w++ {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				mu.Lock()
				done := i >= bad
				mu.Unlock()
				if done {
					return
				}
				if err := ctx.Err(); err != nil {
					fail(-1, err)
					return
				}
				if err := s.checkFrame(ctx, i); err != nil {
					fail(i, err)
				}
			}
		})
	}
	wg.Wait()
	if bad < 0 || badErr == nil {
		return badErr
	}
	return s.frameError(bad, badErr)
}

// checkFrame reads frame i's header and compares it with the first frame's.
func (s *Source) checkFrame(ctx context.Context, i int) error {
	info, err := readHeader(ctx, s.paths[i])
	if err != nil {
		return err
	}
	if !info.same(&s.first) {
		return &mismatchError{got: info, want: s.first}
	}
	return nil
}

// Check returns src.Check(ctx) if src is an image sequence, and nil for any
// other source.
func Check(ctx context.Context, src loader.Source) error {
	if s, ok := src.(*Source); ok {
		return s.Check(ctx)
	}
	return nil
}
