package bench

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
)

// benchCamera measures the time from Open to the first and the last frame
// of the high-speed camera formats, on files of 100 and 100,000 frames.
func benchCamera(ctx context.Context, env *benchEnv) error {
	var fixtures []openFixture
	for _, c := range []struct {
		format string
		write  func(*bufio.Writer, int, int, int) error
	}{{"cine", writeCine}, {"seq", writeSeq}, {"spe", writeSPE}} {
		for _, n := range []int{100, 100000} {
			f := cameraFixture(env.dir, c.format, 64, 64, n, c.write)
			if err := f.ensure(env); err != nil {
				return err
			}
			fixtures = append(fixtures, f)
		}
	}
	return env.openFigures(ctx, fixtures)
}

// The camera formats' fixtures: frames of w × h uint8 samples (the
// noisy ramp of the TIFF fixtures), laid out as each format's writer lays
// them out, so that open times can be compared as files grow a
// thousandfold.

func cameraFixture(dir, format string, w, h, frames int, write func(*bufio.Writer, int, int, int) error) openFixture {
	name := fmt.Sprintf("%s_%dx%dx%d_uint8", format, w, h, frames)
	return openFixture{name: name, path: filepath.Join(dir, name+"."+format), pages: frames, axis: 'T',
		make: func(path string) error {
			f, err := os.Create(path)
			if err != nil {
				return err
			}
			b := bufio.NewWriterSize(f, 1<<20)
			err = write(b, w, h, frames)
			if ferr := b.Flush(); err == nil {
				err = ferr
			}
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			return err
		}}
}

// writeFrames writes the frames, each after before(i) and followed by
// after(i).
func writeFrames(b *bufio.Writer, w, h, frames int, before, after func(i int) []byte) error {
	page := make([]byte, w*h)
	for i := 0; i < frames; i++ {
		fillNoisy(i, page)
		b.Write(before(i))
		b.Write(page)
		if _, err := b.Write(after(i)); err != nil {
			return err
		}
	}
	return nil
}

// writeCine writes a Phantom cine: file header, bitmap header (top-down
// rows), setup (the 16-bit frame rate), the frame offsets, and frames
// each behind an 8-byte annotation.
func writeCine(b *bufio.Writer, w, h, frames int) error {
	le := binary.LittleEndian
	const setupAt, setupSize = 84, 64
	offsetsAt := setupAt + setupSize
	first := offsetsAt + 8*frames
	hdr := make([]byte, 44)
	copy(hdr, "CI")
	le.PutUint16(hdr[2:], 44)
	le.PutUint16(hdr[6:], 1)
	le.PutUint32(hdr[12:], uint32(frames))
	le.PutUint32(hdr[20:], uint32(frames))
	le.PutUint32(hdr[24:], 44)
	le.PutUint32(hdr[28:], setupAt)
	le.PutUint32(hdr[32:], uint32(offsetsAt))
	bmi := make([]byte, 40)
	le.PutUint32(bmi, 40)
	le.PutUint32(bmi[4:], uint32(w))
	le.PutUint32(bmi[8:], uint32(int32(-h)))
	le.PutUint16(bmi[12:], 1)
	le.PutUint16(bmi[14:], 8)
	le.PutUint32(bmi[20:], uint32(w*h))
	setup := make([]byte, setupSize)
	le.PutUint16(setup, 1000)
	b.Write(hdr)
	b.Write(bmi)
	b.Write(setup)
	off := make([]byte, 8)
	for i := 0; i < frames; i++ {
		le.PutUint64(off, uint64(first+i*(8+w*h)))
		b.Write(off)
	}
	ann := make([]byte, 8)
	le.PutUint32(ann, 8)
	le.PutUint32(ann[4:], uint32(w*h))
	return writeFrames(b, w, h, frames, func(int) []byte { return ann }, func(int) []byte { return nil })
}

// writeSeq writes a StreamPix 6 sequence: an 8192-byte header, frames
// 8192 + i × stride apart, each followed by its time stamp.
func writeSeq(b *bufio.Writer, w, h, frames int) error {
	le := binary.LittleEndian
	stride := w*h + 16
	hdr := make([]byte, 8192)
	le.PutUint32(hdr, 0xFEED)
	le.PutUint32(hdr[28:], 5)
	le.PutUint32(hdr[32:], 1024)
	for off, v := range map[int]int{548: w, 552: h, 556: 8, 560: 8, 564: w * h, 568: 100, 572: frames, 580: stride} {
		le.PutUint32(hdr[off:], uint32(v))
	}
	le.PutUint64(hdr[584:], math.Float64bits(1000))
	b.Write(hdr)
	stamp := make([]byte, 16)
	return writeFrames(b, w, h, frames, func(int) []byte { return nil }, func(i int) []byte {
		le.PutUint32(stamp, uint32(1_700_000_000+i/1000))
		le.PutUint16(stamp[4:], uint16(i%1000))
		return stamp
	})
}

// writeSPE writes a WinSpec 2.x file: the 4100-byte header, then the
// frames one after another.
func writeSPE(b *bufio.Writer, w, h, frames int) error {
	le := binary.LittleEndian
	hdr := make([]byte, 4100)
	le.PutUint16(hdr[42:], uint16(w))
	le.PutUint16(hdr[656:], uint16(h))
	le.PutUint16(hdr[108:], 6) // uint8
	le.PutUint32(hdr[1446:], uint32(frames))
	b.Write(hdr)
	return writeFrames(b, w, h, frames, func(int) []byte { return nil }, func(int) []byte { return nil })
}
