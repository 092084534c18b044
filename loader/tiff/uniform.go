package tiff

// Opening a long stack must not visit every page. Writers of uncompressed
// stacks lay pages out at a constant stride, so the IFD of page k is found
// by arithmetic once pages 1 and 2 give the stride, and the chain is checked
// where it must end and at a few pages in between.

// maxTailSlack is how many page strides of trailing bytes after the last
// IFD the page count estimate from the file size tolerates.
const maxTailSlack = 16

// tryStride sets x to stride mode if pages 1 and 2 follow page 0 with the
// same layout and the chain checks out; hint is the page count the metadata
// claims (0 if none). It reports whether it did.
func (x *pageIndex) tryStride(f *file, p0 *page, hint int) bool {
	p1, err := f.parsePage(p0.next)
	if err != nil || p1.reduced() || !p0.sameLayout(p1) || p1.next == 0 {
		return false
	}
	p2, err := f.parsePage(p1.next)
	if err != nil || p2.reduced() || !p0.sameLayout(p2) {
		return false
	}
	stride := p2.ifd - p1.ifd
	if stride <= 0 || p2.next == 0 {
		return false
	}
	x.mode, x.ifd0, x.ifd1, x.stride = modeStride, p0.ifd, p1.ifd, stride
	var cands []int
	if hint > 0 {
		cands = []int{hint}
	} else {
		room := f.size() - p1.ifd - f.minIFDSize()
		if room < 0 {
			return false
		}
		nmax := 2 + room/stride
		for n := nmax; n >= max(4, nmax-maxTailSlack); n-- {
			cands = append(cands, int(n))
		}
	}
	for _, n := range cands {
		x.n = n
		if n >= 4 && x.checkTail(f, p0, hint > 0) && x.checkSamples(f, p0) {
			return true
		}
	}
	x.mode, x.n = modeList, 0
	return false
}

// checkTail checks the predicted last page: it is there, has the layout of
// page 0, its blocks fit the file, and (without a page count from the
// metadata) it ends the chain.
func (x *pageIndex) checkTail(f *file, p0 *page, hinted bool) bool {
	last := x.ifd1 + int64(x.n-2)*x.stride
	if !f.has(last, f.minIFDSize()) {
		return false
	}
	if _, next, err := f.ifdHead(last); err != nil || (!hinted && next != 0) {
		return false
	}
	p, err := x.checkPage(f, p0, x.n-1)
	if err != nil {
		return false
	}
	for b := 0; b < p.nblocks; b++ {
		if _, _, err := f.blockExtent(p, b); err != nil {
			return false
		}
	}
	return true
}

// checkSamples checks a few pages spread over the stack.
func (x *pageIndex) checkSamples(f *file, p0 *page) bool {
	n := x.n
	for _, k := range []int{n - 2, n / 2, n / 3, 2 * n / 3, n / 4, 3 * n / 4, 3} {
		if k < 1 || k >= n {
			continue
		}
		if _, err := x.checkPage(f, p0, k); err != nil {
			return false
		}
	}
	return true
}

// checkPage parses page k at its predicted offset and checks that it is a
// page of the stack with the layout of p0 and that the chain continues
// where predicted.
func (x *pageIndex) checkPage(f *file, p0 *page, k int) (*page, error) {
	off := x.ifd1 + int64(k-1)*x.stride
	p, err := f.parsePage(off)
	if err != nil {
		return nil, err
	}
	if p.reduced() || !p0.sameLayout(p) {
		return nil, formatErr("page %d differs from page 0", k)
	}
	if want := x.nextOf(k); want >= 0 && p.next != want {
		return nil, formatErr("page %d is not where the page layout predicts", k+1)
	}
	return p, nil
}

// tryContiguous sets x to contiguous mode for an ImageJ stack whose file
// holds one IFD and n images stored back to back after page 0's data.
func (x *pageIndex) tryContiguous(f *file, p0 *page, n int) (bool, error) {
	if n <= 1 || p0.next != 0 || p0.compression != cNone || p0.tiled {
		return false, nil
	}
	start, end := int64(-1), int64(0)
	for b := 0; b < p0.nblocks; b++ {
		off, cnt, err := f.blockExtent(p0, b)
		if err != nil || cnt == 0 {
			return false, err
		}
		if start >= 0 && off != end {
			return false, nil
		}
		if start < 0 {
			start = off
		}
		end = off + cnt
	}
	size := end - start
	if size <= 0 || int64(n) > (f.size()-start)/size {
		return false, formatErr("ImageJ stack of %d images exceeds the file", n)
	}
	x.mode, x.n, x.ifd0, x.shift = modeContiguous, n, p0.ifd, size
	return true, nil
}
