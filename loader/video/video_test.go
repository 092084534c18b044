package video

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"time"
	"vastview/base/testtool"
)

// TestFrameExact reads every frame of each fixture forwards, in a
// shuffled order and backwards (24 frames of each under -short), and compares each with ffmpeg's own decode of the whole
// file.
func TestFrameExact(t *testing.T) {
	useCache(t)
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			path := fx.make(t, t.TempDir())
			s := openVideo(t, path)
			// More idle decoders than the default make a shuffled read of
			// every frame affordable (fewer ffmpeg starts); what is read
			// and how is the same.
			s.maxIdle = 8
			ref := reference(t, s)
			if s.Frames() != len(ref) {
				t.Fatalf("index has %d frames, ffmpeg decodes %d", s.Frames(), len(ref))
			}
			for f := range ref {
				if got := readFrame(t, s, f); !bytes.Equal(got, ref[f]) {
					t.Fatalf("forward read: frame %d differs from ffmpeg's", f)
				}
			}
			start, starts := time.Now(), decoderStarts.Load()
			order := testtool.Quick(rand.New(rand.NewPCG(1, uint64(len(ref)))).Perm(len(ref)), 24)
			for _, f := range order {
				if got := readFrame(t, s, f); !bytes.Equal(got, ref[f]) {
					t.Fatalf("shuffled read: frame %d differs from ffmpeg's", f)
				}
			}
			t.Logf("%d frames shuffled in %v, %d decoder starts", len(order), time.Since(start), decoderStarts.Load()-starts)
			start = time.Now()
			back := testtool.Quick(backwards(len(ref)), 24)
			for _, f := range back {
				if got := readFrame(t, s, f); !bytes.Equal(got, ref[f]) {
					t.Fatalf("backward read: frame %d differs from ffmpeg's", f)
				}
			}
			t.Logf("%d frames backwards in %v", len(back), time.Since(start))
		})
	}
}
