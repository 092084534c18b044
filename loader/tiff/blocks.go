package tiff

import (
	"fmt"
	"math"
)

// maxBlockBytes bounds the decoded size of one strip or tile.
const maxBlockBytes = 1 << 31

// maxBeyondFile is how large an uncompressed tile or strip row may be when
// the file is smaller (as a truncated file can be). Larger ones are an
// error: they would make readers allocate chunk buffers the file cannot
// justify.
const maxBeyondFile = 64 << 20

// maxSpan bounds block offsets and byte counts, so that offsets plus the
// shift of a contiguous stack stay representable.
const maxSpan = math.MaxInt64 / 2

func (f *file) parseBlocks(p *page, fs fields) error {
	ppb := p.spp // samples per pixel in one block
	if p.planar {
		ppb = 1
	}
	planes := 1
	if p.planar {
		planes = p.spp
	}
	es := p.dtype.Size()
	var offTag, cntTag uint16
	if _, ok := fs[tagTileWidth]; ok {
		p.tiled = true
		tw, err := f.scalar(fs, tagTileWidth, 0)
		if err != nil {
			return err
		}
		th, err := f.scalar(fs, tagTileLength, 0)
		if err != nil {
			return err
		}
		if tw == 0 || th == 0 || tw > maxSide || th > maxSide {
			return formatErr("bad tile size %dx%d", tw, th)
		}
		p.bw, p.bh = int(tw), int(th)
		offTag, cntTag = tagTileOffsets, tagTileByteCounts
		if _, ok := fs[tagTileOffsets]; !ok {
			// Old writers put tiles' offsets and sizes in the strip tags.
			offTag, cntTag = tagStripOffsets, tagStripByteCounts
		}
	} else {
		rps, err := f.scalar(fs, tagRowsPerStrip, 1<<32-1)
		if err != nil {
			return err
		}
		if rps == 0 {
			return formatErr("RowsPerStrip is 0")
		}
		p.bw, p.bh = p.width, int(min(rps, uint64(p.height)))
		offTag, cntTag = tagStripOffsets, tagStripByteCounts
	}
	bb := uint64(p.bw) * uint64(p.bh) * uint64(ppb) * uint64(es)
	// What must fit in the file: a stored tile, or a stored row of a strip.
	unit := (uint64(p.bw)*uint64(ppb)*uint64(p.bits) + 7) / 8
	if p.tiled {
		unit *= uint64(p.bh)
	}
	if p.compression == cNone && unit > uint64(max(f.size(), maxBeyondFile)) {
		return formatErr("%dx%d pixel blocks of %d bytes exceed the file", p.bw, p.bh, bb)
	}
	if bb > maxBlockBytes {
		return formatErr("%dx%d pixel blocks of %d bytes are too large", p.bw, p.bh, bb)
	}
	p.across = (p.width + p.bw - 1) / p.bw
	p.down = (p.height + p.bh - 1) / p.bh
	nb := uint64(p.across) * uint64(p.down) * uint64(planes)
	if nb > uint64(f.size()) {
		return formatErr("page needs %d blocks, more than the file can hold", nb)
	}
	p.nblocks = int(nb)
	e, ok := fs[offTag]
	if !ok {
		return formatErr("IFD at offset %d has no strip or tile offsets", p.ifd)
	}
	if !isUint(e) || e.count < nb {
		return formatErr("bad strip or tile offsets: %d for %d blocks", e.count, nb)
	}
	if err := f.values(e, "strip or tile offsets"); err != nil {
		return err
	}
	p.offsets = e
	if e, ok := fs[cntTag]; ok {
		if !isUint(e) || e.count < nb {
			return formatErr("bad strip or tile byte counts: %d for %d blocks", e.count, nb)
		}
		if err := f.values(e, "strip or tile byte counts"); err != nil {
			return err
		}
		p.counts, p.hasCounts = e, true
	} else if p.compression != cNone {
		return formatErr("compressed page without byte counts")
	}
	return nil
}

// blockSamples is the number of samples per pixel stored in one block.
func (p *page) blockSamples() int {
	if p.planar {
		return 1
	}
	return p.spp
}

// blockRows is the number of rows block b holds (the last strip of a plane
// is short; tiles are always full).
func (p *page) blockRows(b int) int {
	if p.tiled {
		return p.bh
	}
	r := b % p.down
	return min(p.bh, p.height-r*p.bh)
}

// rowBytes is the size of one row of a block as read (and as stored, unless
// the samples are converted: see storedRow).
func (p *page) rowBytes() int { return p.bw * p.blockSamples() * p.dtype.Size() }

// storedRow is the stored size of one uncompressed row of a block: packed
// samples fill whole bytes at the end of each row.
func (p *page) storedRow() int { return (p.bw*p.blockSamples()*p.bits + 7) / 8 }

// blockExtent returns block b's file offset and stored byte count (0 for an
// empty block) after checking them against the file: a block that runs past
// its end is a truncated error.
func (f *file) blockExtent(p *page, b int) (int64, int64, error) {
	o, n, err := f.blockSpan(p, b)
	if err != nil || n == 0 {
		return 0, 0, err
	}
	if !f.has(o, n) {
		return 0, 0, f.beyond(p, b, uint64(n), uint64(o))
	}
	if p.compression == cNone {
		want := int64(p.blockRows(b)) * int64(p.storedRow())
		if n < want {
			return 0, 0, formatErr("block %d of IFD at offset %d holds %d bytes, %d expected", b, p.ifd, n, want)
		}
		n = want
	}
	return o, n, nil
}

// blockSpan returns block b's file offset (with the page's shift) and its
// stored byte count (0 for an empty block) as the IFD gives them, without
// checking them against the end of the file.
func (f *file) blockSpan(p *page, b int) (int64, int64, error) {
	off := f.uintAt(p.offsets, uint64(b))
	n := uint64(p.blockRows(b)) * uint64(p.storedRow())
	if p.hasCounts {
		if n = f.uintAt(p.counts, uint64(b)); n == 0 {
			return 0, 0, nil
		}
	}
	if off > maxSpan || n > maxSpan {
		return 0, 0, f.beyond(p, b, n, off)
	}
	return int64(off) + p.shift, int64(n), nil
}

// beyond is the error for block b of p, n bytes at offset off, which the
// file does not hold. Pages without an IFD of their own (see
// contiguous.go) are not told by page 0's IFD.
func (f *file) beyond(p *page, b int, n, off uint64) error {
	where := fmt.Sprintf("block %d of IFD at offset %d", b, p.ifd)
	if p.shift != 0 {
		where = fmt.Sprintf("block %d", b)
	}
	return truncErr("%s: %d bytes at offset %d exceed the file of %d bytes", where, n, off, f.size())
}

// cutStrip returns the offset of uncompressed strip b, which the file ends
// inside of, and the size of its first rows rows; ok is false unless the
// file holds those rows. A strip whose declared size alone exceeds the
// file is not cut.
func (f *file) cutStrip(p *page, b, rows int) (off, n int64, ok bool) {
	o, cnt, err := f.blockSpan(p, b)
	rb := int64(p.storedRow())
	want := int64(p.blockRows(b)) * rb
	if err != nil || p.compression != cNone || p.tiled || cnt < want || f.has(o, want) {
		return 0, 0, false
	}
	n = int64(rows) * rb
	return o, n, f.has(o, n)
}

// contiguousData returns where the stored data of p starts and its size,
// when p is uncompressed and stored in strips back to back; ok is false
// otherwise. The data need not lie in the file.
func (f *file) contiguousData(p *page) (start, size int64, ok bool) {
	if p.compression != cNone || p.tiled {
		return 0, 0, false
	}
	start, end := int64(-1), int64(0)
	for b := 0; b < p.nblocks; b++ {
		off, n, err := f.blockSpan(p, b)
		want := int64(p.blockRows(b)) * int64(p.storedRow())
		if err != nil || n < want || (start >= 0 && off != end) {
			return 0, 0, false
		}
		if start < 0 {
			start = off
		}
		end = off + want
	}
	return start, end - start, start >= 0 && end > start
}
