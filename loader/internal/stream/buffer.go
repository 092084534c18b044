// Package stream gives random access to data that can only be decoded from
// the start (gzip, zlib, bzip2 and text encodings of raw arrays).
//
// A Buffer decodes its stream exactly once, in one background goroutine,
// and keeps the decoded bytes: small streams in memory (allocated block by
// block as the data arrives, never up front from a size a header claims),
// larger ones in an unlinked temporary file. A read waits only until the
// decoder has passed the bytes it asks for, so the first plane of a volume
// is available as soon as it is decoded, and any later read costs one
// memory copy or one pread of the temporary file instead of a re-decode.
// Memory use is bounded by the memory limit plus one block.
package stream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"vastview/loader"
)

// DefaultMemoryLimit is the largest decoded size kept in memory; larger
// streams are kept in a temporary file.
const DefaultMemoryLimit = 64 << 20

// blockSize is the unit in which decoded bytes are stored and published.
const blockSize = 1 << 20

var errClosed = errors.New("source is closed")

// Config describes the part of a decoded stream a Buffer keeps.
type Config struct {
	Skip        int64  // decoded bytes to discard before the kept part
	Size        int64  // decoded bytes to keep
	MemoryLimit int64  // keep in memory up to this size (0: DefaultMemoryLimit)
	TempDir     string // folder for the temporary file ("": os.TempDir())
}

// Buffer holds the decoded bytes of a stream for random access while the
// stream is still being decoded. It is safe for concurrent use; Close must
// not race with ReadAt.
type Buffer struct {
	size  int64
	store store
	src   io.Closer

	mu       sync.Mutex
	have     int64         // decoded bytes stored so far
	err      error         // why decoding stopped early, once it has
	progress chan struct{} // closed and replaced whenever have or err change

	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

// New starts decoding r in the background. src, if not nil, is closed by
// Close once the decoder has stopped (it is typically the file r reads).
func New(r io.Reader, src io.Closer, cfg Config) (*Buffer, error) {
	if cfg.Skip < 0 || cfg.Size < 0 {
		return nil, fmt.Errorf("negative stream range")
	}
	limit := cfg.MemoryLimit
	if limit <= 0 {
		limit = DefaultMemoryLimit
	}
	var st store
	if cfg.Size <= limit {
		st = &memStore{}
	} else {
		fs, err := newFileStore(cfg.TempDir)
		if err != nil {
			return nil, err
		}
		st = fs
	}
	b := &Buffer{
		size: cfg.Size, store: st, src: src,
		progress: make(chan struct{}),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	go b.run(r, cfg.Skip)
	return b, nil
}

// Size is the number of decoded bytes the buffer serves.
func (b *Buffer) Size() int64 { return b.size }

// ReadAt fills p with the decoded bytes at off, waiting until the decoder
// has passed them. It fails if the stream ends or breaks before them, or
// with ctx.Err() if ctx ends first.
func (b *Buffer) ReadAt(ctx context.Context, p []byte, off int64) error {
	end := off + int64(len(p))
	if off < 0 || end > b.size || end < off {
		return fmt.Errorf("%d bytes at offset %d are outside the %d decoded bytes", len(p), off, b.size)
	}
	for {
		b.mu.Lock()
		have, err, ch := b.have, b.err, b.progress
		b.mu.Unlock()
		if end <= have {
			return b.store.readAt(p, off)
		}
		if err != nil {
			return err
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Wait blocks until the whole stream is decoded and returns the error that
// stopped it early, if any, or ctx.Err().
func (b *Buffer) Wait(ctx context.Context) error {
	select {
	case <-b.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// Close stops the decoder, waits for it to exit, and releases the stored
// bytes and the source. It is safe to call more than once.
func (b *Buffer) Close() error {
	var err error
	b.closeOnce.Do(func() {
		close(b.stop)
		// Closing the source first ends a read the decoder is blocked in.
		if b.src != nil {
			err = b.src.Close()
		}
		<-b.done
		if serr := b.store.close(); err == nil {
			err = serr
		}
	})
	return err
}

func (b *Buffer) run(r io.Reader, skip int64) {
	defer close(b.done)
	err := b.discard(r, skip)
	if err == nil {
		err = b.fill(r)
	}
	if err != nil {
		if b.stopped() {
			err = errClosed
		}
		b.publish(0, err)
	}
}

// discard reads and drops n decoded bytes, checking for Close between blocks.
func (b *Buffer) discard(r io.Reader, n int64) error {
	if n == 0 {
		return nil
	}
	scratch := make([]byte, min(n, blockSize))
	for done := int64(0); done < n; {
		if b.stopped() {
			return errClosed
		}
		k := min(n-done, int64(len(scratch)))
		m, err := io.ReadFull(r, scratch[:k])
		done += int64(m)
		if err != nil {
			return b.shortError(err, done-n)
		}
	}
	return nil
}

// fill decodes the kept part block by block, publishing each block.
func (b *Buffer) fill(r io.Reader) error {
	for have := int64(0); have < b.size; {
		if b.stopped() {
			return errClosed
		}
		n := min(b.size-have, blockSize-have%blockSize)
		p, err := b.store.region(have, int(n))
		if err != nil {
			return err
		}
		m, rerr := io.ReadFull(r, p)
		if m > 0 {
			if err := b.store.commit(have, p[:m]); err != nil {
				return err
			}
			have += int64(m)
			b.publish(have, nil)
		}
		if rerr != nil {
			return b.shortError(rerr, have)
		}
	}
	return nil
}

// shortError turns the error that ended the stream at decoded position pos
// (negative while skipping) into one clear line.
func (b *Buffer) shortError(err error, pos int64) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("decoded data ends after %d of %d bytes: %w", max(pos, 0), b.size, loader.ErrTruncated)
	}
	return fmt.Errorf("decoding data after %d bytes: %v", max(pos, 0), err)
}

func (b *Buffer) stopped() bool {
	select {
	case <-b.stop:
		return true
	default:
		return false
	}
}

// publish records progress (have > 0) or the terminal error and wakes readers.
func (b *Buffer) publish(have int64, err error) {
	b.mu.Lock()
	if err != nil {
		b.err = err
	} else {
		b.have = have
	}
	close(b.progress)
	b.progress = make(chan struct{})
	b.mu.Unlock()
}

// store keeps decoded bytes. region and commit are called by the decoder
// only; readAt may run concurrently with them, on bytes already committed.
type store interface {
	region(off int64, n int) ([]byte, error) // where to decode the next n bytes
	commit(off int64, p []byte) error        // p (from region) now holds data
	readAt(p []byte, off int64) error
	close() error
}

// memStore keeps decoded bytes in blocks of blockSize, allocated on demand.
type memStore struct {
	mu     sync.Mutex
	blocks [][]byte
}

func (s *memStore) region(off int64, n int) ([]byte, error) {
	i, o := int(off/blockSize), int(off%blockSize)
	s.mu.Lock()
	defer s.mu.Unlock()
	if i == len(s.blocks) {
		s.blocks = append(s.blocks, make([]byte, blockSize))
	}
	return s.blocks[i][o : o+n], nil
}

func (s *memStore) commit(int64, []byte) error { return nil }

func (s *memStore) readAt(p []byte, off int64) error {
	s.mu.Lock()
	blocks := s.blocks
	s.mu.Unlock()
	for len(p) > 0 {
		i, o := int(off/blockSize), int(off%blockSize)
		if i >= len(blocks) {
			return errClosed
		}
		n := copy(p, blocks[i][o:])
		p, off = p[n:], off+int64(n)
	}
	return nil
}

func (s *memStore) close() error {
	s.mu.Lock()
	s.blocks = nil
	s.mu.Unlock()
	return nil
}

// fileStore keeps decoded bytes in an unlinked temporary file.
type fileStore struct {
	f       *os.File
	scratch []byte
}

func newFileStore(dir string) (*fileStore, error) {
	f, err := os.CreateTemp(dir, "vastview-stream-*")
	if err != nil {
		return nil, fmt.Errorf("temporary file for decoded data: %v", err)
	}
	// Unlink now so the space is freed however the process ends; where the
	// system refuses (Windows), close removes it.
	os.Remove(f.Name())
	return &fileStore{f: f}, nil
}

func (s *fileStore) region(off int64, n int) ([]byte, error) {
	if cap(s.scratch) < n {
		s.scratch = make([]byte, blockSize)
	}
	return s.scratch[:n], nil
}

func (s *fileStore) commit(off int64, p []byte) error {
	if _, err := s.f.WriteAt(p, off); err != nil {
		return fmt.Errorf("storing decoded data: %v", err)
	}
	return nil
}

func (s *fileStore) readAt(p []byte, off int64) error {
	if _, err := s.f.ReadAt(p, off); err != nil {
		return fmt.Errorf("reading decoded data: %v", err)
	}
	return nil
}

func (s *fileStore) close() error {
	name := s.f.Name()
	err := s.f.Close()
	os.Remove(name)
	return err
}
