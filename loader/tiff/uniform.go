package tiff

// Opening a long stack must not visit every page. Writers of uncompressed
// stacks lay pages out at a constant stride, so the IFD of page k is found
// by arithmetic once pages 1 and 2 give the stride, and the chain is checked
// where it must end and at a few pages in between. A chain that runs past
// the end of the file (a truncated copy, a file still being written) is
// checked at the last page the file holds instead.

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
	for _, n := range x.strideCounts(f, hint) {
		x.n, x.present = n, n
		if n >= 4 && x.checkTail(f, p0, hint > 0) && x.checkSamples(f, p0, n) {
			return true
		}
	}
	if x.tryCut(f, p0, hint) {
		return true
	}
	x.mode, x.n, x.present = modeList, 0, 0
	return false
}

// strideCounts returns the page counts to check: the metadata's (hint),
// else those that the file size allows.
func (x *pageIndex) strideCounts(f *file, hint int) []int {
	if hint > 0 {
		return []int{hint}
	}
	room := f.size() - x.ifd1 - f.minIFDSize()
	if room < 0 {
		return nil
	}
	nmax := 2 + room/x.stride
	var cands []int
	for n := nmax; n >= max(4, nmax-maxTailSlack); n-- {
		cands = append(cands, int(n))
	}
	return cands
}

// offsetOf returns where the stride layout puts the IFD of page k.
func (x *pageIndex) offsetOf(k int) int64 {
	if k == 0 {
		return x.ifd0
	}
	return x.ifd1 + int64(k-1)*x.stride
}

// checkTail checks the predicted last page: it is there, has the layout of
// page 0, its blocks fit the file, and (without a page count from the
// metadata) it ends the chain. The file may end inside the last page's
// values or data (a file still being written); then the page before it must
// check out, and reading the last page fails.
func (x *pageIndex) checkTail(f *file, p0 *page, hinted bool) bool {
	last := x.offsetOf(x.n - 1)
	if !f.has(last, f.minIFDSize()) {
		return false
	}
	if _, next, err := f.ifdHead(last); err != nil || (!hinted && next != 0) {
		return false
	}
	p, err := x.checkPage(f, p0, x.n-1)
	if isTruncated(err) {
		_, err = x.checkPage(f, p0, x.n-2)
		return err == nil
	}
	if err != nil {
		return false
	}
	for b := 0; b < p.nblocks; b++ {
		if _, _, err := f.blockExtent(p, b); err != nil && !isTruncated(err) {
			return false
		}
	}
	return true
}

// tryCut accepts a uniform chain that runs past the end of the file: the
// last page whose IFD the file holds points on to where the next one would
// be (or, in a file still being written, nowhere yet), and the pages before
// it check out as in a whole file. The stack has the page count of the
// metadata (hint), else the pages whose IFDs the file holds; pages after
// those are missing.
func (x *pageIndex) tryCut(f *file, p0 *page, hint int) bool {
	k := x.presentPages(f)
	if k < 3 || (hint > 0 && k >= hint) {
		return false
	}
	x.n, x.present = max(hint, k), k
	if _, next, err := f.ifdHead(x.offsetOf(k - 1)); err != nil || (next != 0 && next != x.offsetOf(k)) {
		return false
	}
	if _, err := x.checkPage(f, p0, k-1); err != nil {
		// The last page may lose its values with the end of the file;
		// then the one before it must check out.
		if !isTruncated(err) {
			return false
		}
		if _, err := x.checkPage(f, p0, k-2); err != nil {
			return false
		}
	}
	return x.checkSamples(f, p0, k-1)
}

// presentPages returns how many pages of the stride layout have their
// whole IFD in the file.
func (x *pageIndex) presentPages(f *file) int {
	room := f.size() - x.ifd1 - f.minIFDSize()
	if room < 0 {
		return 1
	}
	k := int(2 + room/x.stride)
	if _, _, err := f.ifdHead(x.offsetOf(k - 1)); isTruncated(err) {
		k--
	}
	return k
}

// checkSamples checks a few pages spread over the first upto pages.
func (x *pageIndex) checkSamples(f *file, p0 *page, upto int) bool {
	n := upto
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
	p, err := f.parsePage(x.offsetOf(k))
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
