package rawvol

import (
	"context"
	"fmt"
	"io"
	"os"
)

// pieces is data split across files of pieceSize stored bytes each. Files
// are opened per read, so any number of them costs no descriptors.
type pieces struct {
	parts     []Part
	pieceSize int64
}

// openPieces checks that every file exists and can hold its share.
func openPieces(parts []Part, pieceSize int64) (Data, error) {
	for _, p := range parts {
		if err := regular(p.Path); err != nil {
			return nil, err
		}
		st, err := os.Stat(p.Path)
		if err != nil {
			return nil, fileError(p.Path, err)
		}
		if p.Codec.Raw() {
			need := pieceSize
			if p.ByteSkip > 0 {
				need += p.ByteSkip
			}
			if need < pieceSize || st.Size() < need {
				return nil, fileError(p.Path, fmt.Errorf("holds %d bytes, the header needs %d", st.Size(), need))
			}
		} else if !p.Codec.Plausible(st.Size(), pieceSize+p.DecodedSkip) {
			return nil, fileError(p.Path, fmt.Errorf("%d bytes of %s data cannot hold the %d bytes the header describes", st.Size(), p.Codec.Name, pieceSize))
		}
	}
	return &pieces{parts: parts, pieceSize: pieceSize}, nil
}

func (d *pieces) Size() int64 { return d.pieceSize * int64(len(d.parts)) }

func (d *pieces) Read(ctx context.Context, off, n int64, buf []byte) ([]byte, error) {
	if off < 0 || n < 0 || off > d.Size()-n || n > int64(len(buf)) {
		return nil, fmt.Errorf("%d bytes at %d are outside the data", n, off)
	}
	out := buf[:n]
	for p := out; len(p) > 0; {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		k, within := off/d.pieceSize, off%d.pieceSize
		m := min(int64(len(p)), d.pieceSize-within)
		if err := d.readPiece(d.parts[k], within, p[:m]); err != nil {
			return nil, err
		}
		p, off = p[m:], off+m
	}
	return out, nil
}

// readPiece fills p with the bytes at off of one file's share.
func (d *pieces) readPiece(part Part, off int64, p []byte) error {
	f, err := os.Open(part.Path)
	if err != nil {
		return fileError(part.Path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fileError(part.Path, err)
	}
	if part.Codec.Raw() {
		start, err := dataStart(part, f, st.Size(), d.pieceSize)
		if err != nil {
			return fileError(part.Path, err)
		}
		if _, err := f.ReadAt(p, start+off); err != nil {
			return fileError(part.Path, err)
		}
		return nil
	}
	start, length, err := encodedRange(part, f, st.Size(), d.pieceSize)
	if err != nil {
		return fileError(part.Path, err)
	}
	r, err := part.Codec.NewReader(io.NewSectionReader(f, start, length))
	if err != nil {
		return fileError(part.Path, fmt.Errorf("%s data: %v", part.Codec.Name, err))
	}
	if _, err := io.CopyN(io.Discard, r, part.DecodedSkip+off); err != nil {
		return fileError(part.Path, shortRead(err))
	}
	if _, err := io.ReadFull(r, p); err != nil {
		return fileError(part.Path, shortRead(err))
	}
	return nil
}

func shortRead(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fmt.Errorf("decoded data ends early: file is truncated")
	}
	return err
}

func (d *pieces) Close() error { return nil }
