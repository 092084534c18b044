package tiff

// ImageJ and tifffile store the images of an uncompressed stack back to
// back after page 0's and write the IFDs of the other pages after them, or
// (ImageJ, for stacks over 4 GB) not at all. Page k is then page 0 with its
// data shifted by k images, which also finds the pages of a file that ends
// before those IFDs were written or copied.

// tryContiguous sets x to contiguous mode for a stack whose file holds one
// IFD and, by its metadata, n images back to back. Images beyond the end of
// the file are missing: reading them fails.
func (x *pageIndex) tryContiguous(f *file, p0 *page, n int) (bool, error) {
	if n <= 1 || p0.next != 0 {
		return false, nil
	}
	start, size, ok := f.contiguousData(p0)
	if !ok {
		return false, nil
	}
	if int64(n) > (maxSpan-start)/size {
		return false, formatErr("stack of %d images of %d bytes is too large", n, size)
	}
	x.setContiguous(p0, n, size)
	return true, nil
}

// tryContiguousCut sets x to contiguous mode for a stack whose metadata
// says its n images lie back to back when the file ends before all of them
// or before the IFDs after them. The IFD chain must start after the images,
// and page 1, if the file holds it, must be where the arithmetic puts it.
// It reports whether it did.
func (x *pageIndex) tryContiguousCut(f *file, p0 *page, n int) bool {
	start, size, ok := f.contiguousData(p0)
	if !ok || p0.ifd > start || int64(n) > (maxSpan-start)/size || p0.next < start+int64(n)*size {
		return false
	}
	cut := start+int64(n)*size > f.size()
	p1, err := f.parsePage(p0.next)
	switch {
	case isTruncated(err):
		cut = true
	case err != nil || !f.follows(p0, p1, start+size):
		return false
	case !cut:
		cut = chainCut(f, p1, n)
	}
	if cut {
		x.setContiguous(p0, n, size)
	}
	return cut
}

func (x *pageIndex) setContiguous(p0 *page, n int, size int64) {
	x.mode, x.n, x.present, x.ifd0, x.shift = modeContiguous, n, n, p0.ifd, size
}

// follows reports whether p1 is a page like p0 whose data is stored
// contiguously from offset at.
func (f *file) follows(p0, p1 *page, at int64) bool {
	start, _, ok := f.contiguousData(p1)
	return ok && start == at && !p1.reduced() && p0.sameLayout(p1)
}

// chainCut reports whether the IFD chain from page 1 ends before the n
// pages of the stack: it stops, or the IFD where the uniform spacing of
// pages 1 and 2 puts the last page lies beyond the end of the file.
func chainCut(f *file, p1 *page, n int) bool {
	if n <= 2 {
		return false
	}
	if p1.next == 0 {
		return true
	}
	p2, err := f.parsePage(p1.next)
	if err != nil {
		return isTruncated(err)
	}
	stride := p2.ifd - p1.ifd
	if p2.next == 0 {
		return n > 3
	}
	if stride <= 0 || int64(n-2) > maxSpan/stride {
		return false
	}
	_, _, err = f.ifdHead(p1.ifd + int64(n-2)*stride)
	return isTruncated(err)
}
