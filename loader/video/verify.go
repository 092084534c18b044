package video

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"time"
)

// A seek to a keyframe does not always give the frames a decode from the
// start gives. A keyframe may be a recovery point whose pictures are whole
// only some frames later (periodic intra refresh), the decoder may drop
// frames it cannot reconstruct, or decode them from pictures it does not
// have. Reads find out from the decoder's log: a frame whose timestamp is
// not the index's (a drop) makes the keyframe bad at once; a problem the
// decoder reports (an error, a corrupt frame) makes the frames after it
// suspect, until a comparison with a decode from the previous keyframe
// shows that the seek gives the same frames. Open GOPs make the decoder
// complain about the leading pictures (which refer to the previous GOP)
// on every seek, so that each of their keyframes is compared once. Reads
// never start at a bad keyframe: they start at an earlier one, or at the
// start of the file, which is the decode every other is measured by.

// verifyReach is how many frames after a reported problem a comparison
// covers: a decoder decodes ahead of what it outputs (frame threads,
// reordering), so that a problem shows in frames at most this far on.
const verifyReach = 48

// errRestart tells a read to start again with another decoder: the one it
// used started at a keyframe seeks to which turned out not to give the
// frames a decode from the start gives.
var errRestart = errors.New("video: restart from an earlier keyframe")

// trust returns nil when the frame just read from c may be delivered: c
// decodes from the start of the file, or the decoder reported no problem
// since its seek, or a comparison shows that decoding from c's keyframe
// gives the frames the last problem may have touched (the frames decoded
// from then on, as far as verifyReach; later frames can only inherit
// damage through those) as a decode from the previous keyframe does (it
// runs one now if needed). It returns errRestart when c's keyframe is
// bad.
func (s *Source) trust(ctx context.Context, c *cursor) error {
	if !c.seek {
		return nil
	}
	s.mu.Lock()
	bad := s.badKey[c.key]
	upTo, ok := s.verified[c.key]
	s.mu.Unlock()
	switch {
	case bad:
		return errRestart
	case c.problemAt < 0:
		return nil
	}
	need := min(c.problemAt+verifyReach, s.ix.frames()-1)
	if ok && upTo >= need {
		return nil
	}
	start := s.now()
	same, err := s.verify(ctx, c.key, need)
	c.paused += s.now().Sub(start)
	switch {
	case err != nil:
		return err
	case !same:
		return errRestart
	}
	return nil
}

// verify reports whether a seek to keyframe k gives, for frames k..upTo,
// the frames that decoding from the keyframe before it (the last one not
// known to be bad, or the start) gives, and records the answer: k is
// verified up to upTo, or bad. One comparison runs at a time per source.
func (s *Source) verify(ctx context.Context, k, upTo int) (bool, error) {
	select {
	case s.verifying <- struct{}{}:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	defer func() { <-s.verifying }()
	s.mu.Lock()
	done, ok := s.verified[k]
	bad := s.badKey[k]
	ref := s.startKeyLocked(k - 1)
	s.mu.Unlock()
	if bad || ok && done >= upTo {
		return !bad, nil
	}
	same, err := s.sameFrames(ctx, k, ref, upTo)
	if err != nil {
		return false, err
	}
	if same {
		s.mu.Lock()
		s.verified[k] = upTo
		s.mu.Unlock()
	} else {
		s.markBad(k)
	}
	return same, nil
}

// sameFrames reports whether decoding from keyframe k and from keyframe
// ref give the same frames k..upTo. The two decoders run at once, and
// stop when ctx ends or the source is closed.
func (s *Source) sameFrames(ctx context.Context, k, ref, upTo int) (bool, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.life, cancel)()
	type result struct {
		sums []string
		err  error
	}
	other := make(chan result, 1)
	go func() {
		sums, err := s.frameSums(ctx, ref, k, upTo)
		other <- result{sums, err}
	}()
	sums, err := s.frameSums(ctx, k, k, upTo)
	if err != nil {
		cancel()
	}
	r := <-other
	switch {
	case err != nil:
		return false, err
	case r.err != nil:
		return false, r.err
	}
	return slices.Equal(sums, r.sums), nil
}

// frameSums decodes from keyframe k (a seek to it, or the start for the
// first frames) and returns the size and checksum of each decoded frame
// from first to last, as ffmpeg's framecrc muxer gives them.
func (s *Source) frameSums(ctx context.Context, k, first, last int) ([]string, error) {
	cmd := exec.CommandContext(ctx, s.ffmpeg, s.sumArgs(k, first, last)...)
	var stderr tailBuffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, formatError("comparing keyframe %d: ffmpeg: %s", k, orText(stderr.lastLine(s.path), err))
	}
	return parseFrameSums(out), nil
}

// sumArgs are ffmpeg's arguments to decode from keyframe k and print the
// checksums of frames first..last as they come from the decoder.
func (s *Source) sumArgs(k, first, last int) []string {
	a, _ := s.inputArgs("error", k)
	return append(a, "-vf", s.selectFrom(first), "-frames:v", strconv.Itoa(last-first+1),
		"-c:v", "rawvideo", "-f", "framecrc", "pipe:1")
}

// parseFrameSums returns the "size, checksum" ends of the frame lines of
// framecrc output ("stream, dts, pts, duration, size, checksum").
func parseFrameSums(out []byte) []string {
	var sums []string
	for _, line := range bytes.Split(out, []byte("\n")) {
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		f := bytes.Split(line, []byte(","))
		if len(f) < 6 {
			sums = append(sums, string(line))
			continue
		}
		sums = append(sums, string(bytes.TrimSpace(f[4]))+","+string(bytes.TrimSpace(f[5])))
	}
	return sums
}

// orText returns msg, or err's text when msg is empty.
func orText(msg string, err error) string {
	if msg == "" {
		return err.Error()
	}
	return msg
}

// startKeyLocked returns the keyframe a decoder for frame t starts at:
// the last keyframe at or before t that is not bad, or 0. s.mu is held.
func (s *Source) startKeyLocked(t int) int {
	i := sort.SearchInts(s.ix.keys, t+1)
	for i > 0 && s.badKey[s.ix.keys[i-1]] {
		i--
	}
	if i == 0 {
		return 0
	}
	return s.ix.keys[i-1]
}

// markBad records that seeks to keyframe k do not give the frames a
// decode from the start gives, and stops the idle decoders started there.
func (s *Source) markBad(k int) {
	var drop []*cursor
	s.mu.Lock()
	s.badKey[k] = true
	keep := s.idle[:0]
	for _, c := range s.idle {
		if c.seek && c.key == k {
			delete(s.live, c)
			drop = append(drop, c)
		} else {
			keep = append(keep, c)
		}
	}
	clear(s.idle[len(keep):])
	s.idle = keep
	s.mu.Unlock()
	for _, c := range drop {
		c.stop()
	}
}

// badKeys lists the keyframes found bad, ascending. It is safe for
// concurrent use.
func (s *Source) badKeys() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ks []int
	for k := range s.badKey {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
