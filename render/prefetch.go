package render

import (
	"vastview/levels"
	"vastview/loader"
)

// prefetchLayers is how many chunk layers ahead Prefetch asks for.
const prefetchLayers = 3

// Prefetch requests, at priority prio (Prefetch, or Background for reads
// no new view should drop) for generation gen, the chunks
// that view v would need after moving through the data in steps of dir
// planes (dir > 0 forward, < 0 back): those of the level Render would draw
// at, for the next layers chunk layers (three when layers <= 0) along the
// plane's normal axis (Z for xy, Y for xz, X for yz; time for a movie,
// whose planes have no normal axis), that are not in memory; and when that level is finer than the
// levels the source has built in the background (levels.Pyramid.Thumbnails),
// those of the first built level for the next 32 layers. It returns how
// many it requested. It never blocks, and shares the Renderer's state:
// call it from the goroutine that renders.
func (r *Renderer) Prefetch(v View, p Source, gen uint64, dir, layers int, prio levels.Priority) int {
	if layers <= 0 {
		layers = prefetchLayers
	}
	m := p.Meta()
	if chans := r.channelsOf(v, m); chans != nil {
		n := 0
		for _, ch := range chans {
			n += r.Prefetch(ChannelView(v, ch), p, gen, dir, layers, prio)
		}
		return n
	}
	v.Width, v.Height = max(0, min(maxViewport, v.Width)), max(0, min(maxViewport, v.Height))
	axis := motionAxis(m, v.Orientation)
	if dir == 0 || axis < 0 {
		return 0
	}
	r.setup(v, m)
	if r.f.outside {
		return 0
	}
	k := r.f.level
	ls := r.level(k)
	n0 := m.Shape[axis]
	pos := r.f.fixed[axis]
	last := layerAt(m, k, axis, pos)
	r.miss = r.miss[:0]
	for q, done := pos+dir, 0; q >= 0 && q < n0 && done < layers; q += dir {
		layer := layerAt(m, k, axis, q)
		if layer == last {
			continue
		}
		last = layer
		done++
		r.missingInLayer(p, ls, k, axis, layer)
	}
	count := r.requestMissing(p, prio, gen, k)
	if tk := p.Thumbnails(); tk > k && tk < len(m.Levels) {
		// The built level (a long movie's thumbnails) much further ahead:
		// read back from the disk cache, it keeps a held key drawing a
		// frame at every step while the frame's own level is computed.
		ts := r.level(tk)
		last := -1
		r.miss = r.miss[:0]
		for q, layers := pos+dir, 0; q >= 0 && q < n0 && layers < thumbLayers; q += dir {
			if layer := layerAt(m, tk, axis, q); layer != last {
				last = layer
				layers++
				r.missingInLayer(p, ts, tk, axis, layer)
			}
		}
		count += r.requestMissing(p, levels.Prefetch, gen, tk)
	}
	return count
}

// thumbLayers is how many chunk layers of the built level Prefetch asks for.
const thumbLayers = 32

// requestMissing requests the chunks of level k noted in r.miss.
func (r *Renderer) requestMissing(p Source, prio levels.Priority, gen uint64, k int) int {
	n := len(r.f.m.Axes)
	r.reqs = r.reqs[:0]
	for i := range r.miss {
		r.reqs = append(r.reqs, r.miss[i].idx[:n])
	}
	if len(r.reqs) > 0 {
		p.Request(prio, gen, k, r.reqs...)
	}
	return len(r.reqs)
}

// RequestFinest requests, at Visible priority for generation gen, the
// level-0 chunks of view v's plane that are not in memory, if the view is
// drawn at a coarser level that is computed (not stored by the source) and
// those chunks hold at most maxBytes. A view
// whose level must first be computed from many full-resolution planes (the
// first view of a volume whose levels are not built yet) is then drawn from
// its own plane at once, and refined when its level arrives. Call it before
// Render, which then asks for its level's chunks behind these. It returns
// how many it requested, never blocks, and shares the Renderer's state.
func (r *Renderer) RequestFinest(v View, p Source, gen uint64, maxBytes int) int {
	m := p.Meta()
	if chans := r.channelsOf(v, m); chans != nil {
		n, each := 0, maxBytes/len(chans)
		for _, ch := range chans {
			n += r.RequestFinest(ChannelView(v, ch), p, gen, each)
		}
		return n
	}
	v.Width, v.Height = max(0, min(maxViewport, v.Width)), max(0, min(maxViewport, v.Height))
	r.setup(v, m)
	if r.f.outside || r.f.level == 0 || r.f.level < p.Stored() {
		return 0 // the view's own level is read, not computed
	}
	ls := r.level(0)
	r.miss = r.miss[:0]
	r.missingInLayer(p, ls, 0, -1, 0)
	if len(r.miss)*ls.bytes > maxBytes {
		return 0
	}
	return r.requestMissing(p, levels.Visible, gen, 0)
}

// motionAxis is the axis planes step along: the orientation's normal
// axis, or time when the data has no such axis (or just one plane on it).
func motionAxis(m *loader.Meta, o Orientation) int {
	_, _, normal := o.Axes()
	if i := m.AxisIndex(normal); i >= 0 && m.Shape[i] > 1 {
		return i
	}
	if i := m.AxisIndex('T'); i >= 0 && m.Shape[i] > 1 {
		return i
	}
	return -1
}

// missingInLayer notes the chunks the viewport covers, with the index
// along axis set to layer (axis < 0: the view's own), that are not in
// memory.
func (r *Renderer) missingInLayer(p Source, ls *levelState, k, axis, layer int) {
	n := len(r.f.m.Axes)
	idx := ls.idx
	if axis >= 0 {
		idx[axis] = layer
	}
	rows, cols := ls.rows.chunk, ls.cols.chunk
	for y := 0; y < len(rows); y++ {
		if rows[y] < 0 || y > 0 && rows[y] == rows[y-1] {
			continue
		}
		if r.f.ra >= 0 {
			idx[r.f.ra] = rows[y]
		}
		for x := 0; x < len(cols); x++ {
			if cols[x] < 0 || x > 0 && cols[x] == cols[x-1] {
				continue
			}
			if r.f.ca >= 0 {
				idx[r.f.ca] = cols[x]
			}
			s := r.scratch[:n]
			copy(s, idx[:n])
			if p.Get(k, s) == nil {
				r.miss = append(r.miss, missingChunk{idx: idx})
			}
		}
	}
}
